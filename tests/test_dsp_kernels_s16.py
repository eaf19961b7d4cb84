"""USMP's DSP kernels for 16x8 layers (kernels/dsp/*_s16.c, select/dsp_s16.py): bit-exact with tflite-micro.

Single-layer shapes, several layers a model, built by hand (tests/tflite_builder.py) so that every path runs:
1x1 windows read straight from the input and windows copied (padding, strides, dilation, depths off the
kernels' quads), odd pixel counts and output channels, batches, clamps, per-tensor and per-channel scales,
both of TFLite's sums (int64 bias: 64-bit sums rescaled with a 16-bit multiplier; int32 bias: 32-bit sums),
fully connected layers with zero points. The host runs the plain C twins under ASan and UBSan; the emulated
Cortex-M4, M7 and M33 run the DSP instructions.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import tflite

import tflite_builder as tb
from layer_models import NONE, RELU, RELU6, SAME, VALID, _out_shape, check, functions
from layer_models import write_model as write_layers
from test_dsp_kernels import needs_qemu
from usmp.compiler import CompileOptions, compile_model
from usmp.runner.host import run_host

INT32 = 2  # tflite TensorType, as quantized_bias_type names it


@dataclass
class Layer:
    """One 16x8 layer: CONV_2D, DEPTHWISE_CONV_2D or FULLY_CONNECTED."""

    kind: str  # conv, dw or fc
    h: int = 1
    w: int = 1
    in_ch: int = 4
    out_ch: int = 4
    fh: int = 1
    fw: int = 1
    stride: tuple = (1, 1)
    dilation: tuple = (1, 1)
    padding: int = SAME
    activation: int = NONE
    batches: int = 1
    per_channel: bool = True
    bias: str = "int64"  # int64: 64-bit sums; int32: 32-bit sums
    out_zp: int = 0  # fully connected only
    bias_at: int | None = None  # every bias this value (else random)
    seed: int = 0


def _layer(layer: Layer, base: int) -> tuple[list, tb.Op]:
    rng = np.random.default_rng(layer.seed)
    in_scale = float(rng.uniform(1e-4, 4e-4))
    if layer.kind == "fc":
        in_shape, w_shape, depth = (layer.batches, layer.in_ch), (layer.out_ch, layer.in_ch), layer.in_ch
    elif layer.kind == "conv":
        in_shape = (layer.batches, layer.h, layer.w, layer.in_ch)
        w_shape, depth = (layer.out_ch, layer.fh, layer.fw, layer.in_ch), layer.fh * layer.fw * layer.in_ch
    else:
        in_shape = (layer.batches, layer.h, layer.w, layer.in_ch)
        w_shape, depth = (1, layer.fh, layer.fw, layer.out_ch), layer.fh * layer.fw
    channels = layer.out_ch
    weights = rng.integers(-127, 128, w_shape).astype(np.int8)
    w_scales = rng.uniform(0.002, 0.02, channels if layer.per_channel else 1)
    spread = in_scale * float(np.mean(w_scales)) * np.sqrt(depth) * 73 * 18000
    out_scale = float(spread / 9000 * rng.uniform(0.5, 2.0))
    bias = rng.integers(-300000, 300000, channels) if layer.bias_at is None else np.full(channels, layer.bias_at)
    tensors = [
        tb.T(f"in{base}", in_shape, "int16", scales=[in_scale], zero_points=[0]),
        tb.T(f"w{base}", w_shape, "int8", data=weights, scales=list(w_scales), zero_points=[0] * len(w_scales),
             axis=3 if layer.kind == "dw" else 0),
        tb.T(f"b{base}", (channels,), layer.bias, data=bias.astype(layer.bias),
             scales=list(np.resize(in_scale * w_scales, channels)), zero_points=[0] * channels),
        tb.T(f"out{base}", _out_shape(layer), "int16", scales=[out_scale], zero_points=[layer.out_zp]),
    ]
    k = 4 * base
    bias_type = {"QuantizedBiasType": INT32} if layer.bias == "int32" else {}
    if layer.kind == "fc":
        opts = tb.options("FullyConnected", FusedActivationFunction=layer.activation, **bias_type)
        return tensors, tb.Op(tflite.BuiltinOperator.FULLY_CONNECTED, [k, k + 1, k + 2], [k + 3], options=opts)
    window = dict(Padding=layer.padding, StrideH=layer.stride[0], StrideW=layer.stride[1],
                  DilationHFactor=layer.dilation[0], DilationWFactor=layer.dilation[1],
                  FusedActivationFunction=layer.activation)
    if layer.kind == "conv":
        opts = tb.options("Conv2D", **window, **bias_type)
        return tensors, tb.Op(tflite.BuiltinOperator.CONV_2D, [k, k + 1, k + 2], [k + 3], options=opts)
    opts = tb.options("DepthwiseConv2D", **window, DepthMultiplier=layer.out_ch // layer.in_ch)
    return tensors, tb.Op(tflite.BuiltinOperator.DEPTHWISE_CONV_2D, [k, k + 1, k + 2], [k + 3], options=opts)


def write_model(path: Path, layers: list[Layer]) -> Path:
    return write_layers(path, layers, _layer)


# Every path of the matrix kernel: 1x1 windows read from the input (whole quads) or copied (depth off
# quads), windows cut by padding, strides, dilation, odd pixels and channels, one channel, batches, clamps.
CONV_LAYERS = [
    Layer("conv", 5, 5, 64, 64, seed=1),                            # 1x1 from the input, 25 pixels
    Layer("conv", 3, 4, 6, 7, seed=2),                              # 1x1 copied: depth 6, odd channels
    Layer("conv", 2, 3, 8, 1, seed=3),                              # one output channel: no pair
    Layer("conv", 7, 6, 16, 12, 3, 3, seed=4),                      # cut windows at the borders
    Layer("conv", 9, 7, 3, 8, 3, 3, (2, 2), seed=5),                # depth 27: a partial quad
    Layer("conv", 11, 10, 1, 10, 5, 4, (2, 2), seed=6),             # one input channel
    Layer("conv", 6, 6, 4, 6, 3, 3, (1, 1), (2, 2), seed=7),        # dilation
    Layer("conv", 6, 5, 8, 6, 3, 3, (2, 1), padding=VALID, seed=8),
    Layer("conv", 5, 5, 12, 10, 3, 3, activation=RELU6, seed=9),   # clamped outputs
    Layer("conv", 4, 3, 8, 6, 1, 1, batches=2, activation=RELU, seed=10),
    Layer("conv", 5, 4, 8, 6, 3, 3, per_channel=False, seed=11),
    Layer("conv", 5, 5, 8, 8, 3, 3, bias="int32", seed=12),         # 32-bit sums
    Layer("conv", 4, 4, 16, 5, 1, 1, bias="int32", activation=RELU, seed=13),
    Layer("dw", 12, 9, 1, 8, 3, 3, (2, 2), seed=14),                # one input channel: a convolution
    Layer("dw", 20, 16, 1, 8, 10, 8, (2, 2), padding=VALID, seed=15),  # micro_speech's window
]
# The depthwise kernel: channel groups of four and less, odd channel counts (pixels not word aligned), odd
# and even widths, strides 1 to 3, padding on either side, taller filters (the C rows), clamps, batches.
DW_LAYERS = [
    Layer("dw", 5, 5, 64, 64, 3, 3, seed=41),                       # DS-CNN's: odd width
    Layer("dw", 8, 8, 8, 8, 3, 3, seed=42),
    Layer("dw", 9, 9, 16, 16, 3, 3, (2, 2), padding=VALID, seed=43),
    Layer("dw", 8, 6, 12, 12, 3, 3, (2, 2), seed=44),               # stride 2, SAME (far side padding)
    Layer("dw", 6, 7, 6, 6, 3, 3, seed=45),                         # a partial group of two channels
    Layer("dw", 5, 6, 3, 3, 3, 3, (1, 2), seed=46),                 # fewer channels than a group
    Layer("dw", 5, 4, 5, 5, 3, 3, seed=47),                         # odd channels: unaligned pixels
    Layer("dw", 7, 5, 8, 8, 5, 3, seed=48),                         # filter height 5: the C rows
    Layer("dw", 10, 4, 4, 4, 3, 3, (3, 1), seed=49),                # stride 3 down the rows
    Layer("dw", 6, 6, 8, 8, 3, 3, activation=RELU6, seed=50),
    Layer("dw", 5, 5, 8, 8, 3, 3, batches=2, per_channel=False, seed=51),
]
FC_LAYERS = [
    Layer("fc", in_ch=64, out_ch=12, seed=21),                      # a pixel of whole quads, from the input
    Layer("fc", in_ch=37, out_ch=5, batches=3, seed=22),            # copied rows, odd batch and channels
    Layer("fc", in_ch=400, out_ch=4, activation=RELU, per_channel=False, seed=23),
    Layer("fc", in_ch=40, out_ch=6, bias="int32", seed=24),
    Layer("fc", in_ch=32, out_ch=3, out_zp=-1234, seed=25),         # TFLite's fully connected honours it
]
# 64-bit sums: a fully connected layer of 4,000 inputs (micro_speech's), and a convolution of a deep window
SUM64_LAYERS = [Layer("fc", in_ch=4000, out_ch=5, seed=26), Layer("conv", 3, 3, 600, 3, 3, 3, seed=27)]
ALL = {"conv": CONV_LAYERS, "dw": DW_LAYERS, "fc": FC_LAYERS}


def usmp_options(cpu: str = "cortex-m4") -> CompileOptions:
    return CompileOptions(cpu=cpu, kernels="usmp", tiling="off")


@pytest.mark.parametrize("family", sorted(ALL))
def test_host_twins_match_reference(family, tmp_path):
    """Every shape on the host (the plain C twins, the same constants), under the sanitizers."""
    model = write_model(tmp_path / f"{family}.tflite", ALL[family])
    compiled = compile_model(model, usmp_options())
    assert functions(compiled) and all(f.startswith("usmp_dsp_") and "_s16" in f for f in functions(compiled))
    check(model, compiled, lambda c, x: run_host(c, x, sanitize=True))


@needs_qemu
@pytest.mark.parametrize("target", ["cortex-m4", "cortex-m7", "cortex-m33"])
def test_dsp_cores_match_reference(target, tmp_path):
    from usmp.runner.baremetal import run_on_target

    model = write_model(tmp_path / "layers.tflite", CONV_LAYERS + DW_LAYERS + FC_LAYERS + SUM64_LAYERS)
    compiled = compile_model(model, usmp_options(target))
    assert all(f.startswith("usmp_dsp_") and "_s16" in f for f in functions(compiled))
    check(model, compiled, lambda c, x: run_on_target(c, x, target).outputs)


def test_sums_beyond_32_bits(tmp_path):
    """Sums or a bias beyond 32 bits (an int64 bias near 2^40; a fully connected layer of 4,000 inputs, as
    micro_speech's) take the 64-bit sums; the selection says why the 32-bit kernel could not."""
    from usmp import select

    layers = [Layer("fc", in_ch=8, out_ch=2, bias_at=2**40, seed=31), Layer("fc", in_ch=4000, out_ch=4, seed=32),
              Layer("fc", in_ch=2000, out_ch=3, batches=3, out_zp=77, seed=33)]
    model = write_model(tmp_path / "big.tflite", layers)
    compiled = compile_model(model, usmp_options())
    assert functions(compiled) == ["usmp_dsp_conv_s16_sum64"] * 3
    check(model, compiled, lambda c, x: run_host(c, x, sanitize=True))
    portable = compile_model(write_model(tmp_path / "int32.tflite", [Layer("fc", in_ch=4000, out_ch=4, bias="int32",
                                                                           seed=34)]), CompileOptions(kernels="portable"))
    selection = select.choose(portable.program, select.active_families("cortex-m4", "usmp", False), "dsp")
    (reasons,) = selection.declined.values()
    assert [why for _, why in reasons] == ["its 32-bit sums could overflow, which the DSP kernels do not wrap as "
                                           "TFLite does"]


def test_depth_first_chains_as_for_int8():
    """int16 models get depth-first chains by the same rule as int8 (the same search and cost model, with the
    s16 kernels' figures): the int16 DS-CNN twin on the M4 chains each convolution with the depthwise layer
    after it where its int8 twin chains them (the int8 one, its depthwise layers cheaper to band, may take
    longer chains), the links run the DSP s16 kernels a band at a time, the workspace
    shrinks, and every output stays bit-exact (the plain C twins on the host, under the sanitizers)."""
    from reference import REPO_ROOT
    from usmp.tiling.loop import BandLoop

    models = REPO_ROOT / "benchmarks" / "models"

    def chains(compiled) -> list[list[int]]:
        return [[link.op_index for link in op.links] for op in compiled.program.ops if isinstance(op, BandLoop)]

    model = models / "ds_cnn_kws_int16.tflite"
    options = CompileOptions(cpu="cortex-m4", kernels="usmp")
    compiled, whole = compile_model(model, options), compile_model(model, usmp_options())
    int8_linked = {i for chain in chains(compile_model(models / "ds_cnn_kws.tflite", options)) for i in chain}
    assert chains(compiled) and {chain[0] for chain in chains(compiled)} <= int8_linked
    loops = [op for op in compiled.program.ops if isinstance(op, BandLoop)]
    assert {call.function for op in loops for call in op.calls} == {"usmp_dsp_conv_s16", "usmp_dsp_depthwise_s16"}
    assert compiled.plan.pool_sizes["workspace"] < 0.8 * whole.plan.pool_sizes["workspace"]
    check(model, compiled, lambda c, x: run_host(c, x, sanitize=True), trials=1)
