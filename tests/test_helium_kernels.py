"""USMP's own Helium kernels (kernels/helium/): chosen on the Cortex-M55 without CMSIS-NN, bit-exact with TFLite
Micro on the emulated core (QEMU mps3-an547) and, as their plain C twins, on the host under the sanitizers."""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
import tflite

import tflite_builder as tb
from layer_models import RELU, RELU6, VALID, Layer, _layer_tensors, add_model, check, functions, write_model
from random_chains import longest_regions_tiler, random_chain
from reference import all_models
from usmp import compiler
from usmp.compiler import CompileOptions, compile_model
from usmp.runner.baremetal import run_on_target
from usmp.runner.host import run_host
from usmp.tiling.loop import BandLoop

MISSING = [t for t in ("arm-none-eabi-gcc", "qemu-system-arm") if shutil.which(t) is None]
needs_qemu = pytest.mark.skipif(bool(MISSING), reason=f"{', '.join(MISSING)} not installed")
HELIUM = CompileOptions(cpu="cortex-m55", kernels="usmp")
MODELS = {m.stem: m for m in all_models()}


def test_taken_without_cmsis_nn(monkeypatch):
    """--kernels auto on the Cortex-M55 takes USMP's Helium kernels when CMSIS-NN is not found (as a DSP core
    takes its DSP kernels), and the build names them."""
    monkeypatch.delenv("CMSIS_NN_PATH", raising=False)
    compiled = compile_model(MODELS["dwconv_m1_same_relu"], CompileOptions(cpu="cortex-m55"))
    assert "usmp_helium_depthwise_s8" in functions(compiled)
    assert compiled.program.external_kernels.name == "usmp-helium"
    assert all(p.parent.name == "helium" for p in compiled.program.external_kernels.glue)


# usmp_helium_conv_rows_s8's layers: micro_speech's 10x8 window over one channel (8-byte rows, two a chunk); 4-byte
# rows whose last chunk reads rows past the filter's (against zero filter bytes), batches; 2-byte rows, eight a chunk
ROWS_LAYERS = [
    Layer("dw", 12, 12, 1, 8, 10, 8, (2, 2), seed=25),
    Layer("conv", 11, 12, 1, 8, 5, 4, (2, 2), batches=2, seed=26),
    Layer("conv", 12, 8, 2, 4, 9, 1, seed=27),
]
# Every remainder path of the matrix kernel: pixel counts odd and even, output channels off the blocks of 4 (1, 2,
# 3 left), depths off the 16-byte chunks, the input read as its own columns (1x1 over whole chunks), columns from
# windows inside the input, cut by padding on every side, rows outside it, strides, dilation, batches, clamps.
CONV_LAYERS = [
    Layer("conv", 5, 5, 64, 64, seed=1),                      # 1x1 read in place, 25 pixels: a lone last one; 4 chunks
    Layer("conv", 3, 4, 20, 7, seed=2),                       # 1x1 off whole chunks: columns, 3 channels left
    Layer("conv", 2, 3, 8, 1, seed=3),                        # one output channel: no full block
    Layer("conv", 4, 4, 6, 10, seed=4),                       # two channels left
    Layer("conv", 7, 6, 16, 12, 3, 3, seed=5),                # 48-byte rows, windows cut at the borders
    Layer("conv", 9, 7, 3, 8, 3, 3, (2, 2), seed=6),          # 9-byte rows, stride 2 (MobileNet's first)
    Layer("conv", 3, 37, 3, 8, 3, 3, seed=19),                # 3 channels: runs of FEW_CHANNEL_BYTES across rows
    Layer("conv", 11, 10, 1, 9, 5, 4, (2, 2), seed=7),        # one channel, 4-byte rows
    Layer("conv", 6, 6, 4, 6, 3, 3, (1, 1), (2, 2), seed=8),  # dilation: tap by tap
    Layer("conv", 6, 5, 8, 6, 3, 3, (2, 1), padding=VALID, seed=9),
    Layer("conv", 5, 5, 12, 10, 3, 3, activation=RELU6, seed=10),  # clamped outputs
    Layer("conv", 4, 3, 16, 6, 1, 1, batches=2, seed=11),    # batches read in place
    Layer("conv", 5, 4, 8, 6, 3, 3, per_channel=False, activation=RELU, seed=12),
    Layer("conv", 3, 3, 40, 5, 3, 3, (2, 2), seed=13),        # 120-byte rows: several vectors a row
    Layer("conv", 9, 10, 2, 5, 3, 3, (2, 2), (2, 1), padding=VALID, batches=2, seed=14),  # gathered, rows apart
    Layer("conv", 3, 2, 120, 8, seed=15),                     # eight chunks: unrolled
    # a lone last pixel (gemm_single_*) after the pairs: two chunks (a loop), eight (four held, four loaded), clamped
    Layer("conv", 3, 3, 32, 8, seed=20),
    Layer("conv", 3, 1, 128, 8, seed=21),
    Layer("conv", 1, 5, 48, 4, activation=RELU6, seed=28),
    Layer("conv", 5, 3, 8, 8, seed=16),                       # depth 8: the narrow loop two pixels a step, one odd
    Layer("conv", 3, 5, 4, 8, activation=RELU6, seed=17),     # the narrow loop clamped
    Layer("conv", 4, 4, 32, 8, activation=RELU, seed=18),     # two chunks clamped: the loop, not the unrolled
    # windows of one chunk gathered by the narrow loop from the padded rows: no columns
    Layer("conv", 11, 9, 1, 8, 3, 3, (2, 2), seed=23),        # person_detect's first layer's shape, odd rows
    Layer("conv", 7, 8, 1, 4, 3, 3, batches=2, seed=24),      # batches
    Layer("conv", 7, 8, 1, 4, 3, 3, activation=RELU6, seed=22),  # clamped: columns
    # windows of several chunks of whole filter rows gathered by the pairs' loop from the padded rows: no columns
    *ROWS_LAYERS,
]
# Depthwise: 3x3 layers in assembly (groups of 16 channels, 8 channels two pixels a vector), the rest with
# intrinsics (other windows, dilation, left shifts); partial groups, strides, padding on every side, batches.
DW_LAYERS = [
    Layer("dw", 12, 9, 1, 8, 3, 3, (2, 2), seed=31),          # one input channel: a convolution
    Layer("dw", 10, 8, 1, 3, 10, 8, (2, 2), seed=32),         # micro_speech's: 80 taps, multiplier 3
    Layer("dw", 7, 7, 8, 8, 3, 3, seed=33),                   # two pixels a vector, an odd row of them
    Layer("dw", 9, 8, 16, 16, 3, 3, (2, 2), seed=34),         # stride 2, SAME: padding on the far side
    Layer("dw", 6, 5, 64, 64, 3, 3, activation=RELU6, seed=35),  # four groups, DS-CNN's width
    Layer("dw", 5, 6, 13, 13, 3, 3, (2, 1), seed=36),         # a partial group only
    Layer("dw", 4, 4, 40, 40, 3, 3, padding=VALID, seed=37),  # two groups and a partial one, VALID
    Layer("dw", 5, 5, 3, 3, 3, 2, seed=38),                   # fewer channels than a group, a 3x2 window
    Layer("dw", 7, 6, 24, 24, 5, 5, activation=RELU, seed=39),  # 5x5: intrinsics
    Layer("dw", 6, 6, 16, 16, 3, 3, dilation=(2, 2), seed=40),  # dilation: intrinsics
    Layer("dw", 5, 5, 8, 8, 3, 3, batches=2, per_channel=False, seed=44),
    Layer("dw", 3, 3, 136, 136, 3, 3, seed=45),               # nine groups, every pixel at a border
    # rows wider than the strips' budget: chunks of a row, passes over the groups
    Layer("dw", 4, 40, 48, 48, 3, 3, seed=46),                # three passes of a group, two chunks
    Layer("dw", 5, 45, 24, 24, 3, 3, (2, 2), seed=47),        # stride 2, a partial group in its own pass
    Layer("dw", 3, 99, 8, 8, 3, 3, seed=48),                  # two pixels a vector, a lone pixel in the last chunk
    # a narrower activation: clamped after the assembly (two pixels a vector with a lone one; stride 2, groups)
    Layer("dw", 7, 9, 8, 8, 3, 3, activation=RELU6, seed=49),
    Layer("dw", 9, 8, 40, 40, 3, 3, (2, 2), activation=RELU, seed=50),
    # read in place (3x3, strides 1 and 2, whole groups): one column (both edges one pixel), two, VALID with
    # batches; stride 2 over odd and even widths (padding both sides, the right only), VALID, stride 2 across only
    Layer("dw", 5, 1, 16, 16, 3, 3, activation=RELU, seed=51),
    Layer("dw", 4, 2, 32, 32, 3, 3, seed=52),
    Layer("dw", 6, 7, 32, 32, 3, 3, padding=VALID, batches=2, activation=RELU6, seed=53),
    Layer("dw", 7, 7, 32, 32, 3, 3, (2, 2), activation=RELU6, seed=54),
    Layer("dw", 6, 10, 16, 16, 3, 3, (2, 2), padding=VALID, batches=2, seed=55),
    Layer("dw", 5, 6, 16, 16, 3, 3, (1, 2), seed=56),
    # 8 channels two pixels a vector read in place over even widths: the edge vectors; two columns; stride 2 down;
    # VALID with batches
    Layer("dw", 6, 8, 8, 8, 3, 3, activation=RELU6, seed=57),
    Layer("dw", 4, 2, 8, 8, 3, 3, seed=58),
    Layer("dw", 5, 10, 8, 8, 3, 3, (2, 1), seed=59),
    Layer("dw", 5, 6, 8, 8, 3, 3, padding=VALID, batches=2, seed=62),
]
FC_LAYERS = [
    Layer("fc", in_ch=64, out_ch=12, seed=41),                # read in place
    Layer("fc", in_ch=37, out_ch=5, batches=3, seed=42),      # columns
    Layer("fc", in_ch=400, out_ch=4, activation=RELU, seed=43),
]
ALL = {"conv": CONV_LAYERS, "dw": DW_LAYERS, "fc": FC_LAYERS}


@pytest.mark.parametrize("family", sorted(ALL))
def test_host_twins_match_reference(family, tmp_path):
    """Every shape on the host (the plain C twins, the same constants), under the sanitizers."""
    model = write_model(tmp_path / f"{family}.tflite", ALL[family])
    compiled = compile_model(model, HELIUM)
    assert all(f.startswith("usmp_helium_") for f in functions(compiled)), functions(compiled)
    check(model, compiled, lambda c, x: run_host(c, x, sanitize=True))


@needs_qemu
@pytest.mark.parametrize("family", sorted(ALL))
def test_cortex_m55_matches_reference(family, tmp_path):
    model = write_model(tmp_path / f"{family}.tflite", ALL[family])
    compiled = compile_model(model, HELIUM)
    check(model, compiled, lambda c, x: run_on_target(c, x, "cortex-m55").outputs)


@pytest.mark.parametrize("kind", ["conv", "dw"])
def test_left_shifts_take_the_general_requantization(kind, tmp_path):
    """A layer whose output scale makes some multipliers exceed 1 (left shifts) is requantized with them, on
    the host and the emulated core; one with right shifts only takes the shorter loop."""
    out_ch = 8 if kind == "conv" else 32
    layers = [Layer(kind, 4, 4, 32, out_ch, 3, 3, seed=60), Layer(kind, 4, 4, 32, out_ch, 3, 3, seed=61)]
    model = tmp_path / "m.tflite"
    rebuilt = []
    for n, layer in enumerate(layers):
        t, o = _layer_tensors(layer, n)
        if n == 1:
            t[3] = tb.T("out1", t[3].shape, "int8", scales=[1e-5], zero_points=[3])
        rebuilt.append((t, o))
    model.write_bytes(tb.build([tb.Sub([t for ts, _ in rebuilt for t in ts], [o for _, o in rebuilt], [0, 4],
                                      [3, 7])]))
    compiled = compile_model(model, HELIUM)
    general = [c.params["requant_general"] for op in compiled.program.ops for c in op.calls]
    assert general == [0, 1]
    check(model, compiled, lambda c, x: run_host(c, x, sanitize=True))
    if not MISSING:
        check(model, compiled, lambda c, x: run_on_target(c, x, "cortex-m55").outputs)


ADD_CASES = [
    (37, 0.02, 0.05, 0.06, 0),    # input2 has the larger scale: a shift for it; a tail of one element
    (64, 0.05, 0.02, 0.04, 1),    # input1 has it: the inputs swapped; RELU
    (18, 0.03, 0.03, 0.05, 0),    # equal scales: both halved, the general path
    (21, 0.02, 0.05, 0.00004, 3),  # a tiny output scale: the output's shift is a left shift; RELU6
]


def test_add(tmp_path):
    """ADD on the emulated Cortex-M55 and as the plain C twin: each input's rescaling (a plain halving for the
    larger scale, swapped inputs, left shifts) and tails off the four lanes, bit-exact."""
    model = add_model(tmp_path / "add.tflite", ADD_CASES)
    compiled = compile_model(model, HELIUM)
    assert functions(compiled) == ["usmp_helium_add_s8"] * len(ADD_CASES)
    check(model, compiled, lambda c, x: run_host(c, x, sanitize=True))
    if not MISSING:
        check(model, compiled, lambda c, x: run_on_target(c, x, "cortex-m55").outputs)


def _pool_model(path: Path) -> Path:
    """AVERAGE_POOL_2D windows (global, 3x3 SAME cut at the borders, 2x2 stride 2) and MEANs over the pixels,
    channel counts off the 8 lanes; each layer its own input and output."""
    cases = [("avg", (1, 5, 7, 13), dict(Padding=1, StrideW=1, StrideH=1, FilterWidth=7, FilterHeight=5)),
             ("avg", (1, 6, 5, 24), dict(Padding=0, StrideW=1, StrideH=1, FilterWidth=3, FilterHeight=3,
                                         FusedActivationFunction=1)),
             ("avg", (2, 8, 8, 3), dict(Padding=1, StrideW=2, StrideH=2, FilterWidth=2, FilterHeight=2)),
             ("avg", (1, 16, 16, 8), dict(Padding=1, StrideW=1, StrideH=1, FilterWidth=16, FilterHeight=16)),
             ("mean", (1, 3, 3, 20), None), ("mean", (1, 4, 6, 64), None)]
    tensors, ops, inputs, outputs = [], [], [], []
    for n, (kind, shape, opts) in enumerate(cases):
        rng = np.random.default_rng(n)
        scale, zp = float(rng.uniform(0.01, 0.1)), int(rng.integers(-100, 100))
        x = len(tensors)
        tensors.append(tb.T(f"x{n}", shape, scales=[scale], zero_points=[zp]))
        if kind == "avg":
            oh = -(-shape[1] // opts["StrideH"]) if opts["Padding"] == 0 else (shape[1] - opts["FilterHeight"]) // opts["StrideH"] + 1
            ow = -(-shape[2] // opts["StrideW"]) if opts["Padding"] == 0 else (shape[2] - opts["FilterWidth"]) // opts["StrideW"] + 1
            tensors.append(tb.T(f"y{n}", (shape[0], oh, ow, shape[3]), scales=[scale], zero_points=[zp]))
            ops.append(tb.Op(tflite.BuiltinOperator.AVERAGE_POOL_2D, [x], [x + 1], options=tb.options("Pool2D", **opts)))
        else:
            tensors.append(tb.T(f"axes{n}", (2,), "int32", data=np.array([1, 2], np.int32)))
            tensors.append(tb.T(f"y{n}", (1, 1, 1, shape[3]), scales=[scale * float(rng.uniform(0.3, 1.5))],
                                zero_points=[int(rng.integers(-100, 100))]))
            ops.append(tb.Op(tflite.BuiltinOperator.MEAN, [x, x + 1], [x + 2], options=tb.options("Reducer", KeepDims=True)))
        inputs.append(x)
        outputs.append(len(tensors) - 1)
    path.write_bytes(tb.build([tb.Sub(tensors, ops, inputs, outputs)]))
    return path


def test_pools_and_means(tmp_path):
    """AVERAGE_POOL_2D (a division rounded as TFLite's by a multiply-high) and MEAN over the pixels, on the
    emulated Cortex-M55 and as the plain C twins."""
    model = _pool_model(tmp_path / "pools.tflite")
    compiled = compile_model(model, HELIUM)
    assert functions(compiled) == ["usmp_helium_avg_pool_s8"] * 4 + ["usmp_helium_mean_s8"] * 2
    check(model, compiled, lambda c, x: run_host(c, x, sanitize=True))
    if not MISSING:
        check(model, compiled, lambda c, x: run_on_target(c, x, "cortex-m55").outputs)


def check_chain(tmp_path: Path, seed: int, run, monkeypatch) -> None:
    """A random depth-first chain (tests/random_chains.py) as loops over bands: every link USMP's Helium kernels
    take whole runs them a band at a time (rows in_h, out_h, pad_top of the band), bit-exact."""
    model = tmp_path / f"chain{seed}.tflite"
    model.write_bytes(random_chain(seed))
    monkeypatch.setattr(compiler, "tile_program", longest_regions_tiler(seed))
    compiled = compile_model(model, CompileOptions(cpu="cortex-m55", kernels="usmp", tiling="max"))
    whole = compile_model(model, CompileOptions(cpu="cortex-m55", kernels="usmp", tiling="off"))
    in_loops = [c.function for op in compiled.program.ops if isinstance(op, BandLoop) for c in op.calls]
    linked = {link.op_index for op in compiled.program.ops if isinstance(op, BandLoop) for link in op.links}
    expected = sorted(c.function for op in whole.program.ops if op.op_index in linked for c in op.calls
                      if c.function.startswith("usmp_helium_"))
    assert expected and sorted(f for f in in_loops if f.startswith("usmp_helium_")) == expected, (in_loops, expected)
    check(model, compiled, run, trials=1, seed=seed)


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 5, 6])
def test_bands_on_the_host(seed, tmp_path, monkeypatch):
    check_chain(tmp_path, seed, lambda c, x: run_host(c, x, sanitize=True), monkeypatch)


@needs_qemu
def test_bands_on_the_cortex_m55(tmp_path, monkeypatch):
    for seed in (4, 7, 23):  # 23 ends in a fully connected layer: band_dot4_s8's steps and its predicated tail
        check_chain(tmp_path, seed, lambda c, x: run_on_target(c, x, "cortex-m55").outputs, monkeypatch)


def test_layers_go_to_the_cheaper_family(monkeypatch):
    """With CMSIS-NN at hand each layer goes to whichever of the two the per-layer cost table says is cheaper:
    USMP's Helium kernels for the benchmark models' layers (measured: benchmarks/helium_kernels.py --layers), and
    CMSIS-NN's MVE kernel where the table says so."""
    from dependencies import cmsis_nn_dir

    from usmp.select import helium

    root = cmsis_nn_dir()
    if root is None:
        pytest.skip("CMSIS-NN not found")
    options = CompileOptions(cpu="cortex-m55", cmsis_nn=str(root), tiling="off")
    model = MODELS["conv_3x3_same_relu"]
    assert "usmp_helium_conv_s8" in functions(compile_model(model, options))
    cheap = dict(helium.LAYER_COSTS, usmp_cmsis_nn_convolve_rows_nt_s8=helium.LayerCost(per_mac=0.01))
    monkeypatch.setattr(helium, "LAYER_COSTS", cheap)
    assert "usmp_cmsis_nn_convolve_rows_nt_s8" in functions(compile_model(model, options))


def test_depthwise_reads_in_place_where_it_can(tmp_path):
    """The 3x3 layers of strides 1 and 2 of whole groups of 16 channels (or 8 channels over even widths) take the
    in-place kernel, whose scratch is its state (no strips of copied rows); the others the strips."""
    model = write_model(tmp_path / "dw.tflite", DW_LAYERS)
    compiled = compile_model(model, HELIUM)
    program = compiled.program
    in_place = [op for op in program.ops if op.calls[0].function == "usmp_helium_depthwise_rows_s8"]
    assert len(in_place) == 13 and len(program.ops) - len(in_place) == len(DW_LAYERS) - 13
    for op in in_place:
        state = {a.name: program.buffers[a.buffer].size for a in op.args}["state"]
        assert state == (168 if op.calls[0].params["pixels_per_vector"] == 1 else 168 + 96)


def test_rows_of_short_windows_are_gathered_by_the_matrix_loop(tmp_path):
    """Windows of several chunks whose filter rows are 1 to 8 bytes (micro_speech's 10x8 over one channel) take
    usmp_helium_conv_rows_s8: its scratch is its state and an output row's padded rows, no columns."""
    from usmp.select import helium

    model = write_model(tmp_path / "rows.tflite", ROWS_LAYERS)
    program = compile_model(model, HELIUM).program
    for op in program.ops:
        call = op.calls[0]
        assert call.function == "usmp_helium_conv_rows_s8"
        p = call.params
        rows = max(p["filter_h"], p["chunks"] * 16 // (p["filter_w"] * p["in_ch"]))
        padded = ((p["out_w"] - 1) * p["stride_w"] + p["filter_w"]) * p["in_ch"]
        columns = {a.name: program.buffers[a.buffer].size for a in op.args}["columns"]
        assert columns == helium.MATRIX_STATE_BYTES + rows * padded
