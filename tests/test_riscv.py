"""The RISC-V targets (RV32IMC and RV32IMAC on QEMU's virt board) run models bit-exact and are measured there.

TFLite Micro's example models, the benchmark models and every fourth test model are compared with
TFLite Micro's interpreter on the RV32IMC core, whose QEMU CPU has no atomics or floating point, so
an instruction outside RV32IMC (in the kernels or in the C library) would stop the run. The
instruction counter is checked on a hand-written program whose count is known, compressed
instructions included.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess

import numpy as np
import pytest

from reference import REPO_ROOT, all_models, check_on_target, example_models, outputs_match, reference_outputs
from sequences import mismatched_steps, random_sequence, restarted_reference, stateful_models
from usmp.cli import main as usmp_main
from usmp.compiler import compile_model
from usmp.runner.baremetal import run_on_target
from usmp.runner.qemu import count_instructions, run_qemu
from usmp.runner.riscv import RISCV, riscv_instruction_offsets, riscv_instructions
from usmp.runner.targets import TARGETS


def _missing() -> list[str]:
    missing = [t for t in (RISCV.tool("gcc"), RISCV.tool("nm"), RISCV.qemu) if shutil.which(t) is None]
    if not missing:
        found = subprocess.run([RISCV.tool("gcc"), "-print-file-name=picolibc.specs"], capture_output=True, text=True)
        if found.stdout.strip() == "picolibc.specs":
            missing.append("picolibc-riscv64-unknown-elf")
    return missing


MISSING = _missing()
pytestmark = pytest.mark.skipif(bool(MISSING), reason=f"{', '.join(MISSING)} not installed (scripts/bootstrap installs them)")

EXAMPLES = sorted(example_models())
SAMPLE = [m for m in all_models() if m not in EXAMPLES][::4]
BENCHMARK_MODELS = sorted((REPO_ROOT / "benchmarks" / "models").glob("*.tflite"))
HELLO = next(m for m in EXAMPLES if m.stem == "hello_world_int8")


@pytest.mark.parametrize("model", EXAMPLES + SAMPLE + BENCHMARK_MODELS,
                         ids=[m.stem for m in EXAMPLES + SAMPLE + BENCHMARK_MODELS])
def test_matches_reference_on_rv32imc(model):
    check_on_target(model, "riscv32", seed=11)


CONVOLUTIONS = sorted(m for m in all_models() if m.stem.startswith(("conv", "dwconv")))


@pytest.mark.parametrize("model", CONVOLUTIONS, ids=[m.stem for m in CONVOLUTIONS])
def test_convolutions_on_rv32imc(model):
    """RISC-V has its own forms of the dot-product loops (kernels/src/conv.c, depthwise_conv.c: four taps a turn
    through advancing pointers); every convolution test model, three inputs each, takes them."""
    for seed in (21, 22, 23):
        check_on_target(model, "riscv32", seed)


@pytest.mark.parametrize("model", EXAMPLES, ids=[m.stem for m in EXAMPLES])
def test_matches_reference_on_rv32imac_with_steady_count(model):
    compiled, inputs, first = check_on_target(model, "riscv32imac", seed=5, count=True)
    again = run_on_target(compiled, inputs, "riscv32imac", count=True)
    assert first.report["instructions"] > 0
    assert again.report == first.report


@pytest.mark.parametrize("model", stateful_models()[::3], ids=[m.stem for m in stateful_models()[::3]])
def test_sequence_and_restart(model):
    """A model with state over a sequence: init() once, reset() half-way, picolibc's fseek on the inputs."""
    steps = 12
    compiled = compile_model(model)
    inputs = random_sequence(compiled.program.graph, 2 * steps, np.random.default_rng(8))
    run = run_on_target(compiled, inputs, "riscv32", steps=2 * steps, reset_before=steps)
    bad = mismatched_steps(restarted_reference(model, inputs, steps), run.outputs, outputs_match)
    assert not bad, f"{model.name}: steps {bad} differ from TFLite Micro"


def test_measurements_are_complete():
    compiled = compile_model(HELLO)
    report = run_on_target(compiled, [np.array([[17]], np.int8)], "riscv32", count=True).report
    assert report["target"] == "riscv32" and report["machine"] == "virt"
    assert report["instructions"] > 100  # three FULLY_CONNECTED layers, 288 multiply-accumulates
    flash = report["flash_bytes"]
    assert sum(flash.values()) == report["flash_total_bytes"] <= TARGETS["riscv32"].flash_size
    assert min(flash.values()) > 0
    pools = {p.spec.name: p.size for p in compiled.layout.pools if p.spec.kind == "workspace"}
    assert report["ram_bytes"]["pools"] == pools
    assert 0 < report["ram_bytes"]["stack"] < 1024
    assert report["ram_bytes"]["other"] > 0


def test_cli_json(tmp_path, capsys):
    np.save(tmp_path / "in.npy", np.array([[5]], np.int8))
    status = usmp_main(["run", str(HELLO), "--target", "riscv32", "--input", str(tmp_path / "in.npy"),
                        "--output-dir", str(tmp_path / "out"), "--json"])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    report = json.loads(captured.out)
    assert report["target"] == "riscv32"
    assert set(report["flash_bytes"]) == {"generated_code", "kernels", "constants", "harness"}
    assert set(report["ram_bytes"]) == {"pools", "stack", "other"}
    assert isinstance(report["instructions"], int) and report["instructions"] > 0
    got = np.load(tmp_path / "out" / "output_0.npy")
    assert np.array_equal(got, reference_outputs(HELLO, [np.array([[5]], np.int8)])[0])


def test_cli_refuses_an_arm_cpu(tmp_path, capsys):
    np.save(tmp_path / "in.npy", np.array([[5]], np.int8))
    status = usmp_main(["run", str(HELLO), "--target", "riscv32", "--cpu", "cortex-m4", "--input",
                        str(tmp_path / "in.npy"), "--output-dir", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1 and "--cpu cortex-m4 does not match --target riscv32" in err[0]


def test_instruction_lengths():
    """Two low bits other than 0b11: a compressed instruction; else 32 bits (a 32-bit word is two parcels)."""
    assert riscv_instructions([0x4515]) == 1  # c.li a0, 5
    assert riscv_instructions([0x0313, 0x3E83]) == 1  # addi t1, t1, 1000
    assert riscv_instructions([0x4515, 0x0313, 0x3E83, 0x8082]) == 3
    assert riscv_instructions([]) == 0


def test_instruction_count_from_a_trace(tmp_path):
    """QEMU prints a compressed instruction as 4 hexadecimal digits and a 32-bit one as 8, one per line."""
    log = tmp_path / "trace.log"
    log.write_text(
        "----------------\nIN: begin\nPriv: 3; Virt: 0\n0x80000100:  8082              ret\n\n"
        "Trace 0: 0x7f10 [00000000/80000100/00109003/ff000200] begin\n"
        "----------------\nIN: loop\nPriv: 3; Virt: 0\n"
        "0x80000010:  12fd              addi                    t0,t0,-1\n"
        "0x80000012:  3e830313          addi                    t1,t1,1000\n"
        "0x80000016:  fe029de3          bnez                    t0,-6                   # 0x80000010\n\n"
        "Trace 0: 0x7f30 [00000000/80000010/00109003/ff000200] loop\n"
        "Trace 0: 0x7f30 [00000000/80000010/00109003/ff000200] loop\n"
        "----------------\nIN: end\nPriv: 3; Virt: 0\n0x80000200:  8082              ret\n\n"
        "Trace 0: 0x7f20 [00000000/80000200/00109003/ff000200] end\n"
    )
    assert count_instructions(log, 0x80000100, 0x80000200, riscv_instruction_offsets) == 2 * 3


COUNTED_PROGRAM = """
	.section .text
	.global _start
_start:
	jal ra, begin
	li t0, 10                 /* c.li */
1:	addi t0, t0, -1           /* c.addi */
	addi t1, t1, 1000         /* 32 bits */
	bnez t0, 1b               /* 32 bits: t0 has no compressed branch */
	jal ra, end
	.option push
	.option norvc
	.balign 16
	li a0, 0x18               /* semihosting SYS_EXIT, ADP_Stopped_ApplicationExit */
	li a1, 0x20026
	slli zero, zero, 0x1f
	ebreak
	srai zero, zero, 7
	.option pop
2:	j 2b
begin:	ret
end:	ret
"""


def test_instruction_count_of_a_known_program(tmp_path):
    """Between the markers: li, ten times the 3-instruction loop, and the call of the end marker."""
    (tmp_path / "counted.S").write_text(COUNTED_PROGRAM)
    target = TARGETS["riscv32"]
    elf = tmp_path / "counted.elf"
    subprocess.run([RISCV.tool("gcc"), *target.core_flags, "-nostdlib", "-nostartfiles",
                    f"-Wl,-Ttext=0x{target.flash_origin:x}", str(tmp_path / "counted.S"), "-o", str(elf)], check=True)
    symbols = dict(reversed(line.split()[::2]) for line in subprocess.run(
        [RISCV.tool("nm"), str(elf)], capture_output=True, text=True, check=True).stdout.splitlines())
    trace = tmp_path / "trace.log"
    done = run_qemu(RISCV.qemu, target.qemu_arguments, elf, tmp_path, 30, trace)
    assert done.returncode == 0, done.stdout
    assert re.search(r"^0x[0-9a-f]+:  [0-9a-f]{4} ", trace.read_text(), re.MULTILINE)  # compressed ones ran
    count = count_instructions(trace, int(symbols["begin"], 16), int(symbols["end"], 16), riscv_instruction_offsets)
    assert count == 1 + 10 * 3 + 1
