"""USMP's own DSP kernels (kernels/dsp/, select/dsp.py): bit-exact with tflite-micro and the portable kernels.

Random single-layer shapes, several layers a model (each layer its own input and output), built by hand
(tests/tflite_builder.py) so that every remainder path runs: odd pixel counts and output channels, depths off
the kernels' four-tap quads, quads odd and even, each way of building an im2col column (a pixel, rows of whole
quads, cut windows, gathered windows, dilation), depthwise channel groups off four, odd output widths, strides
1 and 2 and more rows, padding, clamped activations, int8 and wide filters. The host runs the plain C twins
under ASan and UBSan; the emulated Cortex-M4, M7 and M33 run the DSP instructions. Depth-first bands: random
chains (tests/random_chains.py) fused into loops call the same DSP kernels a band at a time, bit-exact.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

import tflite_builder as tb
from layer_models import NONE, RELU, RELU6, VALID, Layer, _layer_tensors, add_model, check, functions, write_model
from random_chains import longest_regions_tiler, random_chain
from usmp import compiler
from usmp.compiler import CompileOptions, compile_model
from usmp.runner.host import run_host
from usmp.select import dsp
from usmp.tiling.loop import BandLoop

MISSING = [t for t in ("arm-none-eabi-gcc", "qemu-system-arm") if shutil.which(t) is None]
needs_qemu = pytest.mark.skipif(bool(MISSING), reason=f"{', '.join(MISSING)} not installed")
DSP_CORES = ["cortex-m4", "cortex-m7", "cortex-m33"]


# Every remainder path of the matrix kernel: pixels odd/even, out_ch odd/even/1, depth % 4 and quads odd/even,
# and each way of building a column.
CONV_LAYERS = [
    Layer("conv", 5, 5, 64, 64, seed=1),                      # 1x1 from the pixel, 16 quads, 25 pixels
    Layer("conv", 3, 4, 20, 7, seed=2),                       # 1x1, 5 quads, odd channels
    Layer("conv", 2, 3, 8, 1, seed=3),                        # one output channel: no pair
    Layer("conv", 4, 4, 6, 9, seed=4),                        # 1x1 off whole quads: gathered
    Layer("conv", 7, 6, 16, 12, 3, 3, seed=5),                # rows of whole quads, cut windows at the borders
    Layer("conv", 9, 7, 3, 8, 3, 3, (2, 2), seed=6),          # rows of 9 bytes: gathered (MobileNet's first)
    Layer("conv", 11, 10, 1, 10, 5, 4, (2, 2), seed=7),       # one channel, 4-byte rows, cut rows staged
    Layer("conv", 6, 6, 4, 6, 3, 3, (1, 1), (2, 2), seed=8),  # dilation
    Layer("conv", 6, 5, 8, 6, 3, 3, (2, 1), padding=VALID, seed=9),
    Layer("conv", 5, 5, 12, 10, 3, 3, activation=RELU6, seed=10),  # clamped outputs
    Layer("conv", 4, 3, 8, 6, 1, 1, batches=2, seed=11),
    Layer("conv", 5, 4, 8, 6, 3, 3, per_channel=False, activation=RELU, seed=12),
]
DW_LAYERS = [
    Layer("dw", 5, 5, 64, 64, 3, 3, seed=21),                 # DS-CNN: out_w odd
    Layer("dw", 8, 8, 8, 8, 3, 3, seed=22),                   # even width
    Layer("dw", 9, 9, 16, 16, 3, 3, (2, 2), padding=VALID, seed=23),  # stride 2 pairs and a single
    Layer("dw", 8, 6, 12, 12, 3, 3, (2, 2), seed=24),         # stride 2, SAME (pad only on the far side)
    Layer("dw", 6, 7, 6, 6, 3, 3, seed=25),                   # a partial group of two channels
    Layer("dw", 5, 6, 3, 3, 3, 3, (1, 2), seed=26),           # fewer channels than a group
    Layer("dw", 7, 5, 8, 8, 5, 3, seed=27),                   # filter height 5: the C rows
    Layer("dw", 10, 4, 4, 4, 3, 3, (3, 1), seed=28),          # stride 3 down the rows: rows skipped
    Layer("dw", 6, 6, 8, 8, 3, 3, activation=RELU6, seed=29),
    Layer("dw", 5, 5, 8, 8, 3, 3, batches=2, per_channel=False, seed=30),
    Layer("dw", 12, 9, 1, 8, 3, 3, (2, 2), seed=31),          # one input channel: a convolution
]
FC_LAYERS = [
    Layer("fc", in_ch=64, out_ch=12, seed=41),
    Layer("fc", in_ch=37, out_ch=5, batches=3, seed=42),
    Layer("fc", in_ch=400, out_ch=4, activation=RELU, seed=43),
]
ALL = {"conv": CONV_LAYERS, "dw": DW_LAYERS, "fc": FC_LAYERS}


def dsp_options(cpu: str = "cortex-m4", optimize: str = "balanced") -> CompileOptions:
    return CompileOptions(cpu=cpu, kernels="usmp", optimize=optimize, tiling="off")


@pytest.mark.parametrize("optimize", ["size", "speed"])
@pytest.mark.parametrize("family", sorted(ALL))
def test_host_twins_match_reference(family, optimize, tmp_path):
    """Every shape on the host (the plain C twins, the same constants), under the sanitizers."""
    model = write_model(tmp_path / f"{family}.tflite", ALL[family])
    compiled = compile_model(model, dsp_options(optimize=optimize))
    calls = functions(compiled)
    assert all(f.startswith("usmp_dsp_") for f in calls), calls
    assert (family == "dw") == ("usmp_dsp_depthwise_3x3_s8" in calls)  # DS-CNN's shape: the in-place kernel
    assert any(f.endswith("wide_s8") for f in calls) == (optimize == "speed")
    check(model, compiled, lambda c, x: run_host(c, x, sanitize=True))


@needs_qemu
@pytest.mark.parametrize("optimize", ["size", "speed"])
@pytest.mark.parametrize("target", DSP_CORES)
@pytest.mark.parametrize("family", sorted(ALL))
def test_dsp_cores_match_reference(family, target, optimize, tmp_path):
    from usmp.runner.baremetal import run_on_target

    model = write_model(tmp_path / f"{family}.tflite", ALL[family])
    compiled = compile_model(model, dsp_options(target, optimize))
    assert all(f.startswith("usmp_dsp_") for f in functions(compiled))
    check(model, compiled, lambda c, x: run_on_target(c, x, target).outputs)


@pytest.mark.parametrize("seed", range(6))
def test_random_shapes_on_the_host(seed, tmp_path):
    """Shapes drawn at random, both filter layouts: the same as tflite-micro."""
    rng = np.random.default_rng(100 + seed)
    layers = []
    for n in range(6):
        kind = ["conv", "dw", "fc"][n % 3]
        in_ch = int(rng.integers(1, 24))
        if kind == "dw":
            in_ch = int(rng.choice([in_ch, 4 * int(rng.integers(1, 6))]))
            out_ch, fh, fw = in_ch, int(rng.integers(1, 6)), 3
        else:
            out_ch, fh, fw = int(rng.integers(1, 20)), int(rng.integers(1, 5)), int(rng.integers(1, 5))
        layers.append(Layer(kind, int(rng.integers(fh, 12)), int(rng.integers(fw, 12)), in_ch, out_ch, fh, fw,
                            (int(rng.integers(1, 3)), int(rng.integers(1, 3))), padding=int(rng.integers(0, 2)),
                            activation=int(rng.choice([NONE, RELU, RELU6])), seed=1000 * seed + n))
    model = write_model(tmp_path / "random.tflite", layers)
    for optimize in ("size", "speed"):
        compiled = compile_model(model, dsp_options(optimize=optimize))
        assert sum(f.startswith("usmp_dsp_") for f in functions(compiled)) == len(layers)
        check(model, compiled, lambda c, x: run_host(c, x, sanitize=True), trials=1, seed=seed)


def check_chain(tmp_path: Path, seed: int, cpu: str, optimize: str, run, monkeypatch) -> None:
    """A random depth-first chain (tests/random_chains.py) as loops over bands on the DSP kernels: every
    convolution, depthwise and add link the DSP kernels take whole runs them a band at a time, bit-exact."""
    model = tmp_path / f"chain{seed}.tflite"
    model.write_bytes(random_chain(seed))
    monkeypatch.setattr(compiler, "tile_program", longest_regions_tiler(seed))
    compiled = compile_model(model, CompileOptions(cpu=cpu, kernels="usmp", optimize=optimize, tiling="max"))
    whole = compile_model(model, CompileOptions(cpu=cpu, kernels="usmp", optimize=optimize, tiling="off"))
    in_loops = [c.function for op in compiled.program.ops if isinstance(op, BandLoop) for c in op.calls]
    linked = {link.op_index for op in compiled.program.ops if isinstance(op, BandLoop) for link in op.links}
    expected = sorted(c.function for op in whole.program.ops if op.op_index in linked for c in op.calls
                      if c.function.startswith("usmp_dsp_"))
    assert expected and sorted(f for f in in_loops if f.startswith("usmp_dsp_")) == expected, (in_loops, expected)
    check(model, compiled, run, trials=1, seed=seed)


@pytest.mark.parametrize("optimize", ["size", "speed"])
@pytest.mark.parametrize("seed", range(4))
def test_bands_on_the_host(seed, optimize, tmp_path, monkeypatch):
    check_chain(tmp_path, seed, "cortex-m4", optimize, lambda c, x: run_host(c, x, sanitize=True), monkeypatch)


@needs_qemu
@pytest.mark.parametrize("target", DSP_CORES)
def test_bands_on_dsp_cores(target, tmp_path, monkeypatch):
    from usmp.runner.baremetal import run_on_target

    for seed, optimize in ((4, "size"), (5, "speed"), (23, "size")):  # 23 ends in a fully connected layer
        check_chain(tmp_path, seed, target, optimize, lambda c, x: run_on_target(c, x, target).outputs, monkeypatch)


def test_ds_cnn_bands_are_short_on_the_in_place_depthwise():
    """DS-CNN on the M4 (the default tiling budget): its 3x3 depthwise layers take the in-place kernel, which
    widens no rows, so a band costs it a call and each pointwise -> depthwise chain takes bands of 1 or 2 rows (the
    widening kernel, re-widening the halo rows in each band, took 4: 1,920 B of band rows, not 1,280 or 960)."""
    model = Path(__file__).resolve().parents[1] / "benchmarks" / "models" / "ds_cnn_kws.tflite"
    compiled = compile_model(model, CompileOptions(cpu="cortex-m4", kernels="usmp", workspace_io=True))
    loops = [op for op in compiled.program.ops if isinstance(op, BandLoop)]
    depthwise = [op for op in loops if "usmp_dsp_depthwise_3x3_s8" in {c.function for c in op.calls}]
    assert len(depthwise) == 4 and all(op.band <= 2 for op in depthwise)


def test_not_exact_stays_portable(tmp_path):
    """A channel whose shift is not negative (scale >= 0.5) is left to the portable kernel, which is exact."""
    layer = Layer("conv", 4, 4, 8, 4, seed=50)
    model = write_model(tmp_path / "m.tflite", [layer])
    graph_scale_breaker = tb.T  # noqa: F841 (the layer below is built with a huge output multiplier)
    tensors, op = _layer_tensors(layer, 0)
    tensors[3] = tb.T("out0", tensors[3].shape, "int8", scales=[1e-6], zero_points=[0])
    model.write_bytes(tb.build([tb.Sub(tensors, [op], [0], [3])]))
    compiled = compile_model(model, dsp_options())
    assert functions(compiled) == ["usmp_conv_s8"]
    check(model, compiled, lambda c, x: run_host(c, x))


def test_constants_follow_the_budget(tmp_path):
    """size: int8 filters only; speed: all wide; balanced: the kernels' constants within 1.25x what they are
    with int8 filters (the small layers are widened first: the most instructions saved per byte)."""
    model = write_model(tmp_path / "m.tflite", [Layer("conv", 4, 4, 64, 64, 3, 3, seed=60), CONV_LAYERS[1],
                                                 DW_LAYERS[2]])  # stride 2: the widened depthwise kernel

    def constants(optimize):
        compiled = compile_model(model, dsp_options(optimize=optimize))
        return sum(b.size for b in compiled.program.buffers.values() if b.kind == "constant"), functions(compiled)

    size, size_calls = constants("size")
    balanced, balanced_calls = constants("balanced")
    speed, speed_calls = constants("speed")
    assert not any(f.endswith("wide_s8") for f in size_calls)
    assert all(f.endswith("wide_s8") for f in speed_calls)
    assert [f.endswith("wide_s8") for f in balanced_calls] == [False, True, True]
    assert size < balanced <= dsp.WIDE_BUDGET * size < speed


def test_weights_stream_is_pairs_of_channels_by_quads():
    """Per channel pair: biases, the quads of both channels, multipliers, roundings, shifts."""
    weights = np.arange(3 * 6).reshape(3, 6).astype(np.int8)
    fields = np.array([[100, 7, 8, 9], [101, 17, 18, 19], [102, 27, 28, 29]])
    data, quads = dsp.weights_stream(weights, fields, wide=False)
    assert quads == 2
    words = np.frombuffer(data, np.int32).reshape(2, 2 + 2 * 2 + 6)
    assert words[0, :2].tolist() == [100, 101] and words[0, 6:].tolist() == [7, 17, 8, 18, 9, 19]
    assert words[1, :2].tolist() == [102, 0] and words[1, 6:].tolist() == [27, 0, 28, 0, 29, 1]
    blocks = np.frombuffer(words[:, 2:6].tobytes(), np.int8).reshape(2, 2, 2, 4)  # [pair][quad][channel][tap]
    assert blocks[0, 1, 1].tolist() == [10, 11, 0, 0] and blocks[1, 0, 0].tolist() == [12, 13, 14, 15]
    assert not blocks[1, :, 1].any()  # the missing channel of the last pair is zeros
    wide, _ = dsp.weights_stream(weights, fields, wide=True)
    taps = np.frombuffer(np.frombuffer(wide, np.uint32).reshape(2, 16)[:, 2:10].tobytes(), np.int16)
    assert taps.reshape(2, 2, 2, 4)[1, 0, 0].tolist() == [24, 28, 26, 30]


def test_auto_without_cmsis_nn_takes_the_dsp_kernels(tmp_path, monkeypatch):
    """On a DSP core where CMSIS-NN is absent, --kernels auto uses USMP's own kernels for what they cover."""
    monkeypatch.delenv("CMSIS_NN_PATH", raising=False)
    model = write_model(tmp_path / "m.tflite", [CONV_LAYERS[0], DW_LAYERS[0], FC_LAYERS[0]])
    compiled = compile_model(model, CompileOptions(cpu="cortex-m7", cmsis_nn=str(tmp_path / "nowhere")))
    assert [f.replace("_wide", "") for f in functions(compiled)] == ["usmp_dsp_conv_s8", "usmp_dsp_depthwise_3x3_s8",
                                                                      "usmp_dsp_conv_s8"]
    external = compiled.program.external_kernels
    assert external.sources == [] and external.include_dirs == [] and external.own_operators == 3
    assert '#include "usmp_kernels/dsp.h"' in compiled.files["m.c"]
    assert "#define USMP_M_DSP_OPERATORS 3" in compiled.files["m.h"]
    assert "CMSIS_NN" not in compiled.files["CMakeLists.txt"] and "kernels/dsp/conv.c" in compiled.files["CMakeLists.txt"]


@pytest.mark.parametrize("cpu", ["generic", "cortex-m0", "cortex-m3"])
def test_no_dsp_kernels_without_the_extension(cpu, tmp_path):
    """Cores without DSP get no DSP kernels: the generic build the portable ones, the M0 and M3 the scalar
    family's (tests/test_scalar_kernels.py; the Cortex-M55 has its own: test_helium_kernels.py)."""
    model = write_model(tmp_path / "m.tflite", [CONV_LAYERS[0], DW_LAYERS[0]])
    compiled = compile_model(model, CompileOptions(cpu=cpu, kernels="usmp"))
    if cpu in ("cortex-m0", "cortex-m3"):
        assert not any(f.startswith("usmp_dsp_") for f in functions(compiled))
    else:
        assert compiled.files == compile_model(model, CompileOptions(kernels="portable")).files


def test_cli_kernels_and_optimize(tmp_path, capsys):
    from usmp.cli import main as usmp_main

    model = write_model(tmp_path / "m.tflite", [CONV_LAYERS[0]])
    assert usmp_main(["compile", str(model), "-o", str(tmp_path / "out"), "--cpu", "cortex-m33", "--kernels", "usmp",
                      "--optimize", "speed"]) == 0
    assert "usmp_dsp_conv_wide_s8(" in (tmp_path / "out" / "m.c").read_text()
    with pytest.raises(SystemExit):
        usmp_main(["compile", str(model), "-o", str(tmp_path / "out"), "--optimize", "fastest"])
    assert "invalid choice: 'fastest'" in capsys.readouterr().err


@pytest.mark.parametrize("lines, kernels, optimize", [
    ("", "auto", "balanced"),
    ("CONFIG_USMP_KERNELS_USMP=y\nCONFIG_USMP_OPTIMIZE_SPEED=y", "usmp", "speed"),
    ("CONFIG_USMP_OPTIMIZE_SIZE=y", "auto", "size"),
])
def test_kconfig_choices(lines, kernels, optimize):
    from usmp.zephyr.dotconfig import parse_config_text
    from usmp.zephyr.kconfig_pools import settings_from_config

    settings = settings_from_config(parse_config_text(f"CONFIG_USMP=y\n{lines}\n", "prj.conf"))
    assert (settings.kernels, settings.optimize) == (kernels, optimize)


def test_the_stack_budget_comes_before_the_estimate(tmp_path, monkeypatch):
    """With CMSIS-NN at hand, an offer known to take more stack than select.KERNEL_STACK_BUDGET loses to one
    within it however cheaper it is estimated: a depthwise layer of three output columns and 14 channels (not
    whole groups of four: USMP's widening kernel, not the in-place one; CMSIS-NN's 3x3 kernel takes 272 B under
    the glue, USMP's 184) and a fully connected layer of one output (264 B) go to USMP's kernels
    as wider ones do. Without the budget the cheaper offer wins: CMSIS-NN's for those two (measured within 10 %
    either way: 3x3x16 CMSIS-NN 9,497, USMP 8,574; 32 -> 1: 246 against 352)."""
    from dependencies import CMSIS_NN_MISSING, cmsis_nn_dir

    from usmp import select

    root = cmsis_nn_dir()
    if root is None:
        pytest.skip(CMSIS_NN_MISSING)
    model = write_model(tmp_path / "m.tflite", [Layer("dw", 3, 3, 14, 14, 3, 3, seed=70), DW_LAYERS[0],
                                                 Layer("fc", in_ch=32, out_ch=1, seed=71), FC_LAYERS[0]])
    auto = functions(compile_model(model, CompileOptions(cpu="cortex-m4", cmsis_nn=str(root))))
    assert all(f.startswith("usmp_dsp_") for f in auto)
    monkeypatch.setattr(select, "KERNEL_STACK_BUDGET", 10_000)
    unbounded = functions(compile_model(model, CompileOptions(cpu="cortex-m4", cmsis_nn=str(root))))
    assert unbounded[0].startswith("usmp_cmsis_nn_") and unbounded[2].startswith("usmp_cmsis_nn_")
    assert unbounded[1].startswith("usmp_dsp_") and unbounded[3].startswith("usmp_dsp_")


ADD_CASES = [(37, 0.02, 0.05, 0.06, NONE),  # input2 has the larger scale: it is halved, input1 rescaled
             (64, 0.05, 0.02, 0.04, RELU),  # input1 has it; clamped after the loop
             (18, 0.03, 0.03, 0.05, NONE),  # equal scales: both halved
             (21, 0.02, 0.05, 0.00004, RELU6)]  # a tiny output scale: the output's rounding large; RELU6


def test_add(tmp_path):
    """ADD of one shape: either input or both halved, the others rescaled, clamped activations, a large output
    shift. Bit-exact on the host (the plain C twin) and the emulated Cortex-M4."""
    model = add_model(tmp_path / "add.tflite", ADD_CASES)
    compiled = compile_model(model, dsp_options())
    assert functions(compiled) == ["usmp_dsp_add_s8"] * 4
    assert [c.params["halved"] for op in compiled.program.ops for c in op.calls] == [2, 1, 3, 2]
    check(model, compiled, lambda c, x: run_host(c, x, sanitize=True))
    if not MISSING:
        from usmp.runner.baremetal import run_on_target

        check(model, compiled, lambda c, x: run_on_target(c, x, "cortex-m4").outputs)


def test_requantization_is_tflite_s():
    """The kernels' requantization (usmp_kernels/dsp.h: SMMLAR of the doubled sum with round - (sum < 0), then
    the shift) equals TFLite's MultiplyByQuantizedMultiplier plus the output offset, for sums of both signs,
    small ones (whose high word rounds to 0 or -1) included."""
    rng = np.random.default_rng(9)

    def tflite(acc, m, shift, offset):
        ab = acc * m
        high = (ab + (1 << 30 if ab >= 0 else 1 - (1 << 30))) // (1 << 31) if ab >= 0 else -((-(ab + 1 - (1 << 30))) // (1 << 31))
        e = -shift
        mask = (1 << e) - 1
        threshold = (mask >> 1) + (1 if high < 0 else 0)
        return (high >> e) + (1 if (high & mask) > threshold else 0) + offset

    def kernels(acc, m, shift, offset):
        e = -shift
        round_ = (1 << (e - 1)) + offset * (1 << e)
        doubled = 2 * acc
        return (round_ + (-1 if doubled < 0 else 0) + ((doubled * m + (1 << 31)) >> 32)) >> e

    for _ in range(20000):
        m = int(rng.integers(1 << 30, 1 << 31))
        shift = -int(rng.integers(1, 20))
        offset = int(rng.integers(-128, 128))
        acc = int(rng.choice([rng.integers(-(1 << 29), 1 << 29), rng.integers(-64, 64)]))
        assert kernels(acc, m, shift, offset) == tflite(acc, m, shift, offset), (acc, m, shift, offset)
