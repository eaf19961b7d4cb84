"""USMP's scalar kernels (kernels/scalar/, select/scalar.py): bit-exact with tflite-micro on cores without SIMD.

Each form of the kernels (rv32: 4 pixels x 4 channels, armv7m: two pixels packed in SMLAL's lanes, armv6m:
one pixel x 8 channels of unsigned weights) on layers built so that every path runs: pixel counts off the
form's group (1 to 3 left over, a row's last pixels, a fully connected layer's batch), output channels off
its block, windows read in place and output rows copied with their padding (above, below, left, right),
strides, dilation down the rows, clamped activations, per-tensor weights; depthwise 3x3 at strides 1 and 2
and other filters and multipliers. The host runs the C twins of every form under the sanitizers; the
emulated Cortex-M0, Cortex-M3 and RV32IMC run their own (the M0's and RV32's inner loops in assembly), every
layer in one model a core. Random depth-first chains run them a band at a time.
"""
from __future__ import annotations

import shutil

import numpy as np
import pytest

import tflite_builder as tb
from layer_models import RELU, RELU6, VALID, Layer, _layer_tensors, check, functions, write_model
from random_chains import longest_regions_tiler, random_chain
from usmp import compiler
from usmp.compiler import CompileOptions, compile_model
from usmp.runner.host import run_host
from usmp.select import scalar
from usmp.tiling.loop import BandLoop

CORES = {"cortex-m0": "armv6m", "cortex-m3": "armv7m", "riscv32": "rv32"}
TOOLS = {"cortex-m0": ("arm-none-eabi-gcc", "qemu-system-arm"), "cortex-m3": ("arm-none-eabi-gcc", "qemu-system-arm"),
         "riscv32": ("riscv64-unknown-elf-gcc", "qemu-system-riscv32")}

CONV_LAYERS = [
    Layer("conv", 5, 5, 16, 12, seed=1),                        # 1x1 read in place: 25 pixels, one left over
    Layer("conv", 3, 2, 20, 7, seed=2),                         # 6 pixels, 7 channels: blocks off 4 and 8
    Layer("conv", 7, 9, 3, 8, 3, 3, (2, 2), seed=3),            # padded rows, 5 columns a row: 4 + 1
    Layer("conv", 11, 10, 1, 10, 5, 4, (2, 2), seed=4),         # one channel, tall windows, cut rows
    Layer("conv", 6, 7, 8, 6, 3, 3, (1, 1), (2, 1), seed=5),    # dilation down the rows
    Layer("conv", 6, 5, 8, 5, 3, 3, (2, 1), padding=VALID, seed=6),  # windows in place, odd stride
    Layer("conv", 5, 6, 12, 9, 3, 3, activation=RELU6, seed=7),  # clamped, 6 columns: 4 + 2
    Layer("conv", 4, 3, 8, 6, batches=2, seed=8),               # batches run on as one row of pixels
    Layer("conv", 5, 7, 8, 16, 3, 3, per_channel=False, activation=RELU, seed=9),  # 7 columns: 4 + 3
    Layer("conv", 4, 4, 4, 4, 2, 2, (1, 1), (1, 2), seed=10),   # dilated across: left to the portable kernel
]
DW_LAYERS = [
    Layer("dw", 5, 5, 16, 16, 3, 3, seed=21),                   # stride 1, padded all round
    Layer("dw", 9, 8, 8, 8, 3, 3, (2, 2), seed=22),             # stride 2, padding right and below only
    Layer("dw", 7, 7, 6, 6, 3, 3, (2, 2), padding=VALID, seed=23),
    Layer("dw", 6, 5, 4, 4, 3, 3, (1, 1), (2, 2), seed=24),     # dilated: the general loop
    Layer("dw", 7, 6, 3, 6, 3, 3, activation=RELU6, seed=25),   # multiplier 2
    Layer("dw", 8, 6, 5, 5, 5, 3, (3, 1), seed=26),             # filter 5x3, stride 3 down
    Layer("dw", 12, 9, 1, 8, 3, 3, (2, 2), seed=27),            # one input channel: the matrix kernel
    Layer("dw", 5, 5, 8, 8, 3, 3, batches=2, per_channel=False, seed=28),
]
FC_LAYERS = [
    Layer("fc", in_ch=64, out_ch=12, seed=41),
    Layer("fc", in_ch=37, out_ch=5, batches=3, seed=42),
    Layer("fc", in_ch=400, out_ch=9, activation=RELU, seed=43),  # long: the M3's lanes split several times
]
ALL = {"conv": CONV_LAYERS, "dw": DW_LAYERS, "fc": FC_LAYERS}
PORTABLE = {"conv": [9], "dw": [], "fc": []}  # layers the scalar kernels leave to the portable ones


def options(cpu: str) -> CompileOptions:
    return CompileOptions(cpu=cpu, tiling="off")


def assert_scalar(compiled, portable: list[int]) -> None:
    calls = functions(compiled)
    for k, f in enumerate(calls):
        assert f.startswith("usmp_scalar_") != (k in portable), calls


@pytest.mark.parametrize("cpu", sorted(CORES))
@pytest.mark.parametrize("family", sorted(ALL))
def test_host_twins_match_reference(family, cpu, tmp_path):
    """Every layer in each core's form, its C twin on the host under the sanitizers."""
    model = write_model(tmp_path / f"{family}.tflite", ALL[family])
    compiled = compile_model(model, options(cpu))
    assert_scalar(compiled, PORTABLE[family])
    assert all(f.startswith((f"usmp_scalar_conv_{CORES[cpu]}", "usmp_scalar_depthwise")) for f in functions(compiled)
               if f.startswith("usmp_scalar_"))
    check(model, compiled, lambda c, x: run_host(c, x, sanitize=True))


@pytest.mark.parametrize("cpu", sorted(CORES))
def test_cores_match_reference(cpu, tmp_path):
    """The same layers on the emulated core, its own form, in one model."""
    missing = [t for t in TOOLS[cpu] if shutil.which(t) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed")
    from usmp.runner.baremetal import run_on_target

    layers, portable = [], []
    for family in sorted(ALL):
        portable += [len(layers) + k for k in PORTABLE[family]]
        layers += ALL[family]
    model = write_model(tmp_path / "layers.tflite", layers)
    compiled = compile_model(model, options(cpu))
    assert_scalar(compiled, portable)
    check(model, compiled, lambda c, x: run_on_target(c, x, cpu).outputs, trials=1)


@pytest.mark.parametrize("cpu", sorted(CORES))
def test_bands_match_reference(cpu, tmp_path, monkeypatch):
    """Random chains as depth-first loops: every convolution and depthwise link the scalar kernels take whole runs
    them a band at a time (on the host; the emulated core for one chain)."""
    from usmp.runner.baremetal import run_on_target

    for seed in range(3):
        model = tmp_path / f"chain{seed}.tflite"
        model.write_bytes(random_chain(seed))
        monkeypatch.setattr(compiler, "tile_program", longest_regions_tiler(seed))
        compiled = compile_model(model, CompileOptions(cpu=cpu, tiling="max"))
        in_loops = [c.function for op in compiled.program.ops if isinstance(op, BandLoop) for c in op.calls]
        assert any(f.startswith("usmp_scalar_") for f in in_loops), in_loops
        run = run_host if seed or shutil.which(TOOLS[cpu][1]) is None else \
            (lambda c, x: run_on_target(c, x, cpu).outputs)
        check(model, compiled, lambda c, x: run(c, x), trials=1, seed=seed)


def test_jobs_are_planned_as_the_kernels_define_them():
    """The bytes the compiler plans at the start of a kernel's scratch for its job (what it keeps during a call)
    are what the C defines (the kernels check their structs against their defines): the scalar, DSP and Helium
    families."""
    import re

    from usmp.paths import KERNELS_DIR
    from usmp.select import dsp, helium, helium_s16

    def define(path: str, name: str) -> int:
        return int(re.search(rf"#define {name} (\d+)", (KERNELS_DIR / path).read_text()).group(1))

    assert [scalar.FORMS[f].job_bytes for f in ("rv32", "armv7m", "armv6m")] == \
        [define("scalar/conv_s8.c", f"{f}_JOB_BYTES") for f in ("RV32", "V7M", "V6M")]
    assert scalar.DEPTHWISE_JOB_BYTES == define("scalar/depthwise_s8.c", "DW_JOB_BYTES")
    assert dsp.DEPTHWISE_JOB_BYTES == define("dsp/depthwise_common.h", "DW_JOB_BYTES")
    assert dsp.CONV_JOB_BYTES == define("dsp/conv.c", "CONV_JOB_BYTES")
    assert (helium.MATRIX_STATE_BYTES, helium.DW_STATE_BYTES) == \
        tuple(define("include/usmp_kernels/helium.h", f"USMP_HELIUM_{n}_STATE_BYTES") for n in ("MATRIX", "DW"))
    assert (helium_s16.CONV_S16_STATE_BYTES, helium_s16.DW_S16_STATE_BYTES) == \
        tuple(define("include/usmp_kernels/helium.h", f"USMP_HELIUM_{n}_S16_STATE_BYTES") for n in ("CONV", "DW"))


def test_other_cores_keep_their_kernels(tmp_path):
    """The generic build, the DSP and Helium cores get no scalar kernels; --kernels portable none anywhere."""
    model = write_model(tmp_path / "m.tflite", [CONV_LAYERS[0], DW_LAYERS[0]])
    for cpu in ("generic", "cortex-m4", "cortex-m55"):
        assert not any(f.startswith("usmp_scalar_") for f in functions(compile_model(model, CompileOptions(cpu=cpu))))
    portable = compile_model(model, CompileOptions(cpu="cortex-m3", kernels="portable"))
    assert functions(portable) == ["usmp_conv_s8", "usmp_depthwise_conv_s8"]


def test_not_exact_stays_portable(tmp_path):
    """A channel whose shift is not negative (scale >= 0.5) is left to the portable kernel, which is exact."""
    tensors, op = _layer_tensors(Layer("conv", 4, 4, 8, 4, seed=50), 0)
    tensors[3] = tb.T("out0", tensors[3].shape, "int8", scales=[1e-6], zero_points=[0])
    model = tmp_path / "m.tflite"
    model.write_bytes(tb.build([tb.Sub(tensors, [op], [0], [3])]))
    compiled = compile_model(model, options("riscv32"))
    assert functions(compiled) == ["usmp_conv_s8"]
    check(model, compiled, lambda c, x: run_host(c, x))


def test_weights_stream_blocks():
    """Per block of channels: biases, taps [tap][channel] in whole words, then multiplier, rounding, shift per
    channel; a block's missing channels are zeros with shift 1; armv6m stores the taps as w + 128."""
    weights = np.arange(5 * 3).reshape(5, 3).astype(np.int8) - 7
    fields = np.array([[100 + o, 10 + o, 20 + o, 30 + o] for o in range(5)])
    data = scalar.weights_stream(scalar.FORMS["rv32"], weights, fields[:, 0], fields)
    words = np.frombuffer(data, np.int32).reshape(2, 4 + 3 + 12)
    assert words[0, :4].tolist() == [100, 101, 102, 103] and words[1, :4].tolist() == [104, 0, 0, 0]
    taps = np.frombuffer(words[:, 4:7].tobytes(), np.int8).reshape(2, 12)
    assert taps[0].tolist() == weights[:4].T.reshape(-1).tolist()
    assert taps[1].reshape(3, 4)[:, 0].tolist() == weights[4].tolist() and not taps[1].reshape(3, 4)[:, 1:].any()
    assert words[0, 7:].reshape(4, 3)[2].tolist() == [12, 22, 32] and words[1, 7:].reshape(4, 3)[1].tolist() == [0, 0, 1]
    unsigned = scalar.weights_stream(scalar.FORMS["armv6m"], weights, fields[:, 0], fields)
    block = np.frombuffer(unsigned, np.uint8)[32:32 + 24].reshape(3, 8)
    assert block[:, :5].T.astype(int).tolist() == (weights.astype(int) + 128).tolist()


def test_armv7m_chunk_keeps_the_low_lane():
    """The chunk is the longest run of taps whose |w| sum, times 128, stays below 2^22 in every channel."""
    weights = np.full((2, 1000), 127, np.int8)
    chunk = scalar.armv7m_chunk(weights)
    assert 128 * 127 * chunk < 1 << 22 <= 128 * 127 * (chunk + 1)
    weights[1, :] = 1
    weights[0, :] = 0
    assert scalar.armv7m_chunk(weights) == 1000
