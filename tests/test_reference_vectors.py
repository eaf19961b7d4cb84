"""`usmp reference`: reference inputs, the tflite-micro interpreter's outputs
and the check function the Zephyr samples and ztest suites run on target.
Here the check function is built and run on the host, in every calling
convention of the generated library, and must also catch a wrong output."""
import re
import subprocess
import sys

import pytest

from usmp.cli import main
from usmp.errors import UsmpError
from usmp.paths import KERNELS_INCLUDE_DIR, KERNELS_SRC_DIR
from usmp.pools import PoolSpec
from usmp.zephyr.group import group_files
from usmp.zephyr.placement import PlacedPool
from reference import TEST_MODELS

FLAGS = ["-std=c99", "-Wall", "-Wextra", "-Werror"]
MODES = {
    "default": [],
    "workspace_io": ["--workspace-io"],
    "user_pools": ["--user-pools"],
    "workspace_io_user_pools": ["--workspace-io", "--user-pools"],
}

MAIN = r"""
#include <stdio.h>
#include "{name}_reference.h"
#ifdef USER_POOLS
static uint8_t pool[USMP_{NAME}_WORKSPACE_POOL_SIZE + 4] __attribute__((aligned(16)));
static struct usmp_{name}_workspace_pools pools = {{ .workspace = pool }};
#define POOLS &pools
#else
#define POOLS
#endif
int main(void)
{{
	printf("%d %d\n", (int)usmp_{name}_reference_check(POOLS), USMP_{NAME}_LOWER_BOUND_BYTES);
	return 0;
}}
"""


def build_and_check(tmp_path, model, name, args):
    """Compile the model and its reference vectors, run the check: (mismatches, lower bound)."""
    out = tmp_path / "out"
    common = [str(TEST_MODELS / model), "--name", name, "-o", str(out)] + args
    assert main(["compile"] + common) == 0
    assert main(["reference", "--check", "--seed", "3"] + common) == 0
    return run_check(tmp_path, out, name, "--user-pools" in args)


def run_check(tmp_path, out, name, user_pools):
    (out / "main.c").write_text(MAIN.format(name=name, NAME=name.upper()))
    exe = tmp_path / "check"
    sources = [str(p) for p in out.glob("*.c")] + [str(p) for p in KERNELS_SRC_DIR.glob("*.c")]
    defines = ["-DUSER_POOLS"] if user_pools else []
    subprocess.run(["cc", *FLAGS, *defines, f"-I{KERNELS_INCLUDE_DIR}", f"-I{out}", *sources, "-lm", "-o", str(exe)],
                   check=True)
    mismatches, bound = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split()
    return int(mismatches), int(bound)


@pytest.mark.parametrize("mode", sorted(MODES))
def test_check_passes_in_every_calling_convention(tmp_path, mode):
    mismatches, bound = build_and_check(tmp_path, "conv_3x3_same_relu.tflite", "conv", MODES[mode])
    assert mismatches == 0
    assert bound >= 0


def test_float_model_passes_within_tolerance(tmp_path):
    mismatches, _ = build_and_check(tmp_path, "conv_f32.tflite", "conv_f32", ["--workspace-io"])
    assert mismatches == 0


@pytest.mark.parametrize("mode", ["default", "workspace_io"])
def test_check_catches_a_wrong_expected_byte(tmp_path, mode):
    build_and_check(tmp_path, "add_relu.tflite", "addr", MODES[mode])
    source = tmp_path / "out" / "addr_reference.c"
    text = source.read_text()
    # Change the first expected value: the check must now count one mismatch.
    match = re.search(r"(usmp_addr_expected_\w+\[\d+\][^{]*\{\s*)(-?\d+)", text)
    wrong = int(match.group(2)) + 1 if int(match.group(2)) < 127 else 126
    source.write_text(text[:match.start(2)] + str(wrong) + text[match.end(2):])
    mismatches, _ = run_check(tmp_path, tmp_path / "out", "addr", False)
    assert mismatches == 1


def test_lower_bound_is_the_plans(tmp_path):
    _, bound = build_and_check(tmp_path, "mean_channels.tflite", "mean", [])
    header = (tmp_path / "out" / "mean.h").read_text()
    size = int(re.search(r"USMP_MEAN_WORKSPACE_POOL_SIZE (\d+)", header).group(1))
    assert 0 < bound <= size


def test_input_files_are_used(tmp_path):
    import numpy as np

    array = np.arange(-60, 60, dtype=np.int8).reshape(1, 3, 4, 10)[:, :, :, :5].copy()
    np.save(tmp_path / "in.npy", array)
    out = tmp_path / "out"
    assert main(["reference", str(TEST_MODELS / "mean_channels.tflite"), "--name", "m", "-o", str(out),
                 "--input", str(tmp_path / "in.npy")]) == 0
    text = (out / "m_reference.c").read_text()
    assert ", ".join(str(v) for v in array.reshape(-1)[:16]) in text


def test_wrong_input_file_is_one_line_error(tmp_path, capsys):
    import numpy as np

    np.save(tmp_path / "in.npy", np.zeros((2, 2), np.float32))
    code = main(["reference", str(TEST_MODELS / "mean_channels.tflite"), "-o", str(tmp_path / "o"),
                 "--input", str(tmp_path / "in.npy")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err and "input 0" in err


def test_missing_tflite_micro_says_what_to_install(monkeypatch):
    from usmp.reference_vectors import reference_outputs

    monkeypatch.setitem(sys.modules, "tflite_micro", None)
    with pytest.raises(UsmpError, match="pip install tflite-micro"):
        reference_outputs(str(TEST_MODELS / "mean_channels.tflite"), [], 1)


def test_group_size_expression_stays_small_for_many_models(tmp_path):
    """A chain of MAX_(a, b) expands 2^n times; the generator must keep it polynomial."""
    models = [f"m{i}" for i in range(48)]
    pool = PlacedPool(**vars(PoolSpec("workspace", "workspace")))
    header = group_files("many", models, [pool])["usmp_group_many.h"]
    line = next(l for l in header.splitlines() if "USMP_GROUP_MANY_WORKSPACE_POOL_SIZE" in l)
    depth = deepest = 0
    for char in line:
        depth += {"(": 1, ")": -1}.get(char, 0)
        deepest = max(deepest, depth)
    assert deepest <= 8  # log2(48) + 2: balanced; a chain nests 47 deep (checked before compiling it)
    # The compiler agrees: the largest of 48 sizes.
    sizes = [(i * 37) % 101 for i in range(48)]
    defines = "".join(f"#define USMP_M{i}_WORKSPACE_POOL_SIZE {size}\n" for i, size in enumerate(sizes))
    program = (defines + "#define USMP_GROUP_MAX_(a, b) ((a) > (b) ? (a) : (b))\n" + line + "\n"
               "#include <stdio.h>\nint main(void) { printf(\"%d\\n\", USMP_GROUP_MANY_WORKSPACE_POOL_SIZE); return 0; }\n")
    source, exe = tmp_path / "size.c", tmp_path / "size"
    source.write_text(program)
    subprocess.run(["cc", *FLAGS, str(source), "-o", str(exe)], check=True, timeout=120)
    assert int(subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout) == max(sizes)
