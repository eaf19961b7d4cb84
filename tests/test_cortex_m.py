"""Every model runs bit-exact on an emulated Cortex-M0 (QEMU micro:bit), and is measured there.

A model that does not fit the micro:bit must be refused before QEMU starts, with
what each region would need; it then runs on the emulated Cortex-M3 (MPS2 AN385).
"""
from __future__ import annotations

import json
import re
import shutil

import numpy as np
import pytest
import tflite

import tflite_builder as tb
from reference import all_models, outputs_match, random_inputs, reference_outputs, example_models
from usmp.cli import main as usmp_main
from usmp.compiler import CompileOptions, compile_model
from usmp.errors import UsmpError
from usmp.runner import baremetal
from usmp.runner.baremetal import run_on_target
from usmp.runner.host import run_host
from usmp.runner.arm import thumb_instruction_offsets, thumb_instructions
from usmp.runner.qemu import count_instructions

MISSING = [t for t in ("arm-none-eabi-gcc", "arm-none-eabi-nm", "qemu-system-arm") if shutil.which(t) is None]
pytestmark = pytest.mark.skipif(bool(MISSING), reason=f"{', '.join(MISSING)} not installed (scripts/bootstrap installs them)")

MODELS = all_models()
EXAMPLES = set(example_models())
HELLO = next(m for m in MODELS if m.stem == "hello_world_int8")
DOES_NOT_FIT = re.compile(r"does not fit the cortex-m0 .*: flash needs (\d+) of 262144 bytes, RAM needs (\d+) of 16384 bytes")


def run_on_smallest_board(compiled, inputs):
    try:
        return run_on_target(compiled, inputs, "cortex-m0")
    except UsmpError as exc:
        if not DOES_NOT_FIT.search(str(exc)):
            raise
        return run_on_target(compiled, inputs, "cortex-m3")


@pytest.mark.parametrize("model", MODELS, ids=[m.stem for m in MODELS])
def test_matches_reference(model):
    """One input per test model and two per example model keep the suite quick."""
    compiled = compile_model(model)
    rng = np.random.default_rng(99)
    for trial in range(2 if model in EXAMPLES else 1):
        inputs = random_inputs(compiled.program.graph, rng)
        got = run_on_smallest_board(compiled, inputs).outputs
        expected = reference_outputs(model, inputs)
        assert len(got) == len(expected)
        for k, (e, g) in enumerate(zip(expected, got)):
            assert outputs_match(e, g), f"{model.name} trial {trial} output {k}:\nexpected {e}\ngot      {g}"


@pytest.mark.parametrize("model", sorted(EXAMPLES), ids=[m.stem for m in sorted(EXAMPLES)])
def test_matches_host(model):
    """The same bytes as the host build (test_bit_exact.py checks the host against the reference everywhere)."""
    compiled = compile_model(model)
    inputs = random_inputs(compiled.program.graph, np.random.default_rng(3))
    for h, g in zip(run_host(compiled, inputs), run_on_target(compiled, inputs, "cortex-m0").outputs):
        assert h.dtype == g.dtype and np.array_equal(h, g), f"{model.name}: host {h} != cortex-m0 {g}"


def test_measurements_are_complete_and_repeatable():
    compiled = compile_model(HELLO)
    inputs = [np.array([[17]], np.int8)]
    first = run_on_target(compiled, inputs, "cortex-m0", count=True).report
    second = run_on_target(compiled, inputs, "cortex-m0", count=True).report
    assert first == second
    assert first["instructions"] > 100  # three FULLY_CONNECTED layers, 288 multiply-accumulates
    flash = first["flash_bytes"]
    assert sum(flash.values()) == first["flash_total_bytes"] <= 256 * 1024
    assert min(flash.values()) > 0
    pools = {p.spec.name: p.size for p in compiled.layout.pools if p.spec.kind == "workspace"}
    assert first["ram_bytes"]["pools"] == pools
    assert 0 < first["ram_bytes"]["stack"] < 1024
    assert first["ram_bytes"]["other"] > 0


def test_instructions_differ_with_the_work_done(tmp_path):
    """The count covers the inference itself: a bigger model needs more instructions."""
    small = run_on_target(compile_model(HELLO), [np.array([[1]], np.int8)], "cortex-m0", count=True)
    big_model = compile_model(_fc_model(inputs=64, units=32, tmp_path=tmp_path))
    inputs = random_inputs(big_model.program.graph, np.random.default_rng(0))
    big = run_on_target(big_model, inputs, "cortex-m0", count=True)
    assert big.report["instructions"] > small.report["instructions"] + 64 * 32


@pytest.mark.parametrize("options", [CompileOptions(workspace_io=True), CompileOptions(user_pools=True),
                                     CompileOptions(workspace_io=True, user_pools=True)],
                         ids=["workspace_io", "user_pools", "workspace_io+user_pools"])
def test_library_modes(options):
    """Inputs inside the workspace, or pools the caller owns: same outputs, pools still reported."""
    compiled = compile_model(HELLO, options)
    inputs = [np.array([[-40]], np.int8)]
    result = run_on_target(compiled, inputs, "cortex-m0")
    assert np.array_equal(result.outputs[0], reference_outputs(HELLO, inputs)[0])
    pools = {p.spec.name: p.size for p in compiled.layout.pools if p.spec.kind == "workspace"}
    assert result.report["ram_bytes"]["pools"] == pools


def test_cli_json_is_one_object(tmp_path, capsys):
    np.save(tmp_path / "in.npy", np.array([[5]], np.int8))
    status = usmp_main(["run", str(HELLO), "--target", "cortex-m0", "--input", str(tmp_path / "in.npy"),
                        "--output-dir", str(tmp_path / "out"), "--json"])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    report = json.loads(captured.out)
    assert report["target"] == "cortex-m0"
    assert set(report["flash_bytes"]) == {"generated_code", "kernels", "constants", "harness"}
    assert all(isinstance(v, int) for v in report["flash_bytes"].values())
    assert set(report["ram_bytes"]) == {"pools", "stack", "other"}
    assert all(isinstance(v, int) for v in report["ram_bytes"]["pools"].values())
    assert isinstance(report["instructions"], int) and report["instructions"] > 0
    got = np.load(tmp_path / "out" / "output_0.npy")
    assert np.array_equal(got, reference_outputs(HELLO, [np.array([[5]], np.int8)])[0])


def test_cli_stats_prints_every_part(tmp_path, capsys):
    np.save(tmp_path / "in.npy", np.array([[5]], np.int8))
    status = usmp_main(["run", str(HELLO), "--target", "cortex-m0", "--input", str(tmp_path / "in.npy"),
                        "--output-dir", str(tmp_path / "out"), "--stats"])
    out = capsys.readouterr().out
    assert status == 0
    for word in ("generated code", "kernels", "constants", "harness", "pools", "stack", "instructions"):
        assert word in out


def _fc_model(inputs: int, units: int, tmp_path):
    """input[1,inputs] -> FULLY_CONNECTED -> output[1,units], int8, weights from a fixed seed."""
    rng = np.random.default_rng(inputs * 7919 + units)
    tensors = [
        tb.T("input", (1, inputs), "int8", scales=[0.05], zero_points=[-3]),
        tb.T("weights", (units, inputs), "int8", data=rng.integers(-127, 128, (units, inputs)).astype(np.int8),
             scales=[0.002]),
        tb.T("bias", (units,), "int32", data=rng.integers(-500, 500, units).astype(np.int32), scales=[0.0001]),
        tb.T("output", (1, units), "int8", scales=[0.25], zero_points=[1]),
    ]
    sub = tb.Sub(tensors, [tb.Op(tflite.BuiltinOperator.FULLY_CONNECTED, [0, 1, 2], [3])], [0], [3])
    path = tmp_path / f"fc_{inputs}x{units}.tflite"
    path.write_bytes(tb.build([sub]))
    return path


@pytest.fixture
def no_qemu(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("QEMU was started for a model that does not fit")

    monkeypatch.setattr(baremetal, "run_qemu", refuse)


def test_too_much_flash_is_refused_before_running(tmp_path, no_qemu):
    model = _fc_model(inputs=600, units=512, tmp_path=tmp_path)  # 300 KB of weights
    with pytest.raises(UsmpError) as caught:
        run_on_target(compile_model(model), [np.zeros((1, 600), np.int8)], "cortex-m0")
    flash, ram = (int(v) for v in DOES_NOT_FIT.search(str(caught.value)).groups())
    assert flash > 600 * 512 > 262144 and ram < 16384
    assert "\n" not in str(caught.value)


def test_too_much_ram_is_refused_before_running(tmp_path, no_qemu):
    model = _fc_model(inputs=20000, units=1, tmp_path=tmp_path)  # a 20000-byte input buffer
    with pytest.raises(UsmpError) as caught:
        run_on_target(compile_model(model), [np.zeros((1, 20000), np.int8)], "cortex-m0")
    flash, ram = (int(v) for v in DOES_NOT_FIT.search(str(caught.value)).groups())
    assert ram > 20000 and flash < 262144


def test_too_big_model_is_one_line_on_the_cli(tmp_path, capsys, no_qemu):
    model = _fc_model(inputs=600, units=512, tmp_path=tmp_path)
    np.save(tmp_path / "in.npy", np.zeros((1, 600), np.int8))
    status = usmp_main(["run", str(model), "--target", "cortex-m0", "--input", str(tmp_path / "in.npy"),
                        "--output-dir", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1 and DOES_NOT_FIT.search(err[0])
    assert not (tmp_path / "out").exists()


def test_big_model_runs_on_cortex_m3(tmp_path):
    model = _fc_model(inputs=600, units=512, tmp_path=tmp_path)
    compiled = compile_model(model)
    inputs = random_inputs(compiled.program.graph, np.random.default_rng(5))
    got = run_on_target(compiled, inputs, "cortex-m3")
    assert got.report["flash_total_bytes"] > 600 * 512
    assert np.array_equal(got.outputs[0], reference_outputs(model, inputs)[0])


def test_instruction_count_from_trace(tmp_path):
    """Only blocks between the markers count; a re-translated block takes its new size."""
    log = tmp_path / "trace.log"
    log.write_text(
        "IN: main\n0x00000100:  2001  movs r0, #1\n0x00000102:  4770  bx lr\n\n"
        "Trace 0: 0x7f00 [00000000/00000100/00000000/00000000] main\n"
        "IN: begin\n0x00000200:  4770  bx lr\n\n"
        "Trace 0: 0x7f10 [00000000/00000200/00000000/00000000] begin\n"
        "Trace 0: 0x7f00 [00000000/00000100/00000000/00000000] main\n"
        "Trace 0: 0x7f00 [00000000/00000100/00000000/00000000] main\n"
        "IN: main\n0x00000100:  2001  movs r0, #1\n0x00000102:  2002  movs r0, #2\n0x00000104:  4770  bx lr\n\n"
        "Trace 0: 0x7f40 [00000000/00000100/00000000/00000000] main\n"
        "IN: end\n0x00000300:  4770  bx lr\n\n"
        "Trace 0: 0x7f20 [00000000/00000300/00000000/00000000] end\n"
        "Trace 0: 0x7f00 [00000000/00000100/00000000/00000000] main\n"
    )
    assert count_instructions(log, 0x200, 0x300, thumb_instruction_offsets) == 2 + 2 + 3


def test_instruction_count_reads_the_bytes_not_the_lines(tmp_path):
    """QEMU 7.2 prints a Helium instruction its disassembler does not know (here VMLADAV) as two lines,
    a ".byte" and a misread 16-bit instruction; it is one 32-bit instruction."""
    log = tmp_path / "trace.log"
    log.write_text(
        "IN: begin\n0x00000200:  4770       bx       lr\n\n"
        "Trace 0: 0x7f10 [00000000/00000200/00000000/00000000] begin\n"
        "IN: loop\n"
        "0x00000400:  ecbc 1e10  ldc      p14, c1, [ip], #0x40\n"
        "0x00000404:  eef0       .byte    0xf0, 0xee\n"
        "0x00000406:  2f22       cmp      r7, #0x22\n"
        "0x00000408:  3d01       subs     r5, #1\n"
        "0x0000040a:  d1f9       bne      #0x400\n\n"
        "Trace 0: 0x7f30 [00000000/00000400/00000000/00000000] loop\n"
        "Trace 0: 0x7f30 [00000000/00000400/00000000/00000000] loop\n"
        "IN: end\n0x00000300:  4770       bx       lr\n\n"
        "Trace 0: 0x7f20 [00000000/00000300/00000000/00000000] end\n"
    )
    assert count_instructions(log, 0x200, 0x300, thumb_instruction_offsets) == 2 * 4
    assert thumb_instructions([0x2001, 0xE92D, 0x4FF0, 0xEEF0, 0x2F22, 0xF000, 0xF800]) == 4


MAP_EXCERPT = """\
Archive member included to satisfy reference by file (symbol)

/cache/lib/kernels/libusmp_kernels.a(fully_connected.o)
                              /build/obj/generated_code/m.o (usmp_fully_connected_s8)
/lib/libgcc.a(_muldi3.o)
                              /cache/lib/kernels/libusmp_kernels.a(fully_connected.o) (__aeabi_lmul)
/lib/libc.a(lib_a-fopen.o)   /build/obj/harness/harness_main.o (fopen)
/lib/libc.a(lib_a-findfp.o)
                              /lib/libc.a(lib_a-fopen.o) (__sfp)

Linker script and memory map

.vectors        0x00000000       0x40
 .vectors       0x00000000       0x40 /cache/lib/harness/startup.o
.text           0x00000040      0x130
 .text.usmp_fully_connected_s8
                0x00000040      0x100 /cache/lib/kernels/libusmp_kernels.a(fully_connected.o)
 .text          0x00000140       0x1c /lib/libgcc.a(_muldi3.o)
 *fill*         0x0000015c        0x4
 .text          0x00000160       0x10 /lib/libc.a(lib_a-findfp.o)
.rodata         0x00000170       0x20
 .rodata        0x00000170       0x18 /build/obj/constants/m_constants.o
 .rodata.params 0x00000188        0x8 /build/obj/generated_code/m.o
.data           0x20000000        0x8 load address 0x00000190
 .data          0x20000000        0x8 /lib/libc.a(lib_a-findfp.o)
.bss            0x20000008       0x44 load address 0x00000198
 .bss.usmp_m_workspace_pool
                0x20000008       0x40 /build/obj/generated_code/m.o
 .bss.x         0x20000048        0x4 /build/obj/harness/harness_main.o
.debug_info     0x00000000     0x9999
 .debug_info    0x00000000     0x9999 /build/obj/generated_code/m.o
"""


def test_map_attribution(tmp_path):
    """The kernel archive's members count as kernels, a C-library member with the object that pulled it in
    (libgcc's multiply with the kernel needing it, stdio with the harness); padding with the harness; debug
    info nowhere."""
    from usmp.runner.baremetal import _part_of_object
    from usmp.runner.elf_stats import read_image_usage

    (tmp_path / "model.map").write_text(MAP_EXCERPT)
    usage = read_image_usage(tmp_path / "model.map", _part_of_object, (0, 0x40000), (0x20000000, 0x4000))
    assert usage.flash_total == 0x198
    assert usage.flash_parts == {"generated_code": 0x8, "kernels": 0x100 + 0x1c, "constants": 0x18,
                                 "harness": 0x40 + 0x4 + 0x10 + 0x8}
    assert usage.ram_static == 0x4c
    assert usage.ram_parts["generated_code"] == 0x40 and usage.ram_parts["harness"] == 0xc
