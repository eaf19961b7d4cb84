"""USMP's Helium kernels for 16x8 layers (kernels/helium/*_s16.c, select/helium_s16.py): bit-exact with tflite-micro.

The int16 benchmark twins' layer shapes (DS-CNN's 10x4 first window and 64-channel 1x1 and 3x3 depthwise layers,
MobileNetV1's 3x3x3 stride-2 first layer and strided depthwise ones, ResNet-8's 3x3 convolutions, micro_speech's
10x8 window over one channel, their fully connected layers), on few pixels, plus the tails the twins do not
have: depths off whole vectors of 8 taps, channel counts off blocks of 4 and groups of 8, a lone last pixel,
batches, clamps, sums beyond 32 bits. One model of every layer, run on the host (the plain C twins, under the sanitizers) and on
the emulated Cortex-M55 (the vector code), where the selection must give every layer a Helium s16 kernel.
"""
from __future__ import annotations

import numpy as np
import pytest
import tflite

import tflite_builder as tb
from layer_models import RELU, RELU6, VALID, check, functions
from test_dsp_kernels import needs_qemu
from test_dsp_kernels_s16 import Layer, write_model
from usmp.compiler import CompileOptions, compile_model
from reference import outputs_match, reference_outputs
from usmp.runner.host import run_host

LAYERS = [
    Layer("conv", 5, 5, 64, 64, seed=1),                            # DS-CNN's 1x1: read from the input, odd pixels
    Layer("conv", 12, 6, 1, 12, 10, 4, (2, 2), seed=2),             # DS-CNN's first window: copied columns
    Layer("conv", 9, 9, 3, 8, 3, 3, (2, 2), seed=3),                # MobileNet's first layer: depth 27
    Layer("conv", 6, 6, 16, 16, 3, 3, activation=RELU, seed=4),     # ResNet's: rows of whole vectors inside
    Layer("conv", 4, 3, 12, 7, seed=5),                             # 1x1 over 12 channels: copied; 7 channels
    Layer("conv", 5, 4, 8, 6, 3, 3, (1, 1), (2, 2), seed=6),        # dilation
    Layer("conv", 5, 5, 8, 5, 3, 3, (2, 1), padding=VALID, batches=2, per_channel=False, seed=7),
    Layer("dw", 16, 12, 1, 8, 10, 8, (2, 2), seed=8),               # micro_speech's: one input channel
    Layer("dw", 5, 5, 64, 64, 3, 3, seed=9),                        # DS-CNN's depthwise
    Layer("dw", 8, 8, 8, 8, 3, 3, (2, 2), seed=10),                 # MobileNet's strided one
    Layer("dw", 6, 5, 12, 12, 3, 3, activation=RELU6, seed=11),     # a group and a half
    Layer("dw", 5, 6, 5, 5, 3, 3, (1, 2), padding=VALID, seed=12),  # fewer channels than a group
    Layer("dw", 7, 7, 8, 8, 3, 3, (1, 1), (2, 2), batches=2, seed=13),
    Layer("fc", in_ch=64, out_ch=12, seed=14),                      # DS-CNN's classifier
    Layer("fc", in_ch=37, out_ch=5, batches=3, seed=15),            # odd depth, batches as pixels
    Layer("fc", in_ch=32, out_ch=3, out_zp=-1234, seed=16),         # the output zero point
    Layer("fc", in_ch=3999, out_ch=5, seed=17),                     # micro_speech's: 64-bit sums, a tail
    Layer("conv", 3, 3, 600, 3, 3, 3, seed=18),                     # a deep window: 64-bit sums
]


@pytest.mark.parametrize("target", ["host", pytest.param("cortex-m55", marks=needs_qemu)])
def test_helium_s16_kernels_match_reference(target, tmp_path):
    from usmp.runner.baremetal import run_on_target

    model = write_model(tmp_path / "layers.tflite", LAYERS)
    compiled = compile_model(model, CompileOptions(cpu="cortex-m55", kernels="usmp", tiling="off"))
    assert set(functions(compiled)) == {"usmp_helium_conv_s16", "usmp_helium_depthwise_s16",
                                        "usmp_helium_conv_s16_sum64"}
    assert len(functions(compiled)) == len(LAYERS)
    if target == "host":
        check(model, compiled, lambda c, x: run_host(c, x, sanitize=True))
    else:
        check(model, compiled, lambda c, x: run_on_target(c, x, target).outputs)


# AVERAGE_POOL_2D (usmp_helium_avg_pool_s16): the twins' global pools (DS-CNN's 25x5 over 64 channels, ResNet-8's
# 8x8), windows cut by SAME padding with a clamp, strides over batches of 3 channels, the largest window (256 taps).
POOLS = [((1, 25, 5, 64), 25, 5, 1, 1, VALID, 0), ((1, 8, 8, 64), 8, 8, 1, 1, VALID, 0),
         ((1, 6, 5, 12), 3, 3, 1, 1, 0, RELU), ((2, 8, 7, 3), 2, 2, 2, 2, 0, 0), ((1, 16, 16, 13), 16, 16, 1, 1, VALID, 0)]


def _pool_model(path):
    tensors, ops = [], []
    for n, (shape, fh, fw, sh, sw, padding, activation) in enumerate(POOLS):
        out_h = -(-shape[1] // sh) if padding == 0 else (shape[1] - fh) // sh + 1
        out_w = -(-shape[2] // sw) if padding == 0 else (shape[2] - fw) // sw + 1
        scale = 1e-3 * (n + 1)
        tensors += [tb.T(f"x{n}", shape, "int16", scales=[scale], zero_points=[0]),
                    tb.T(f"y{n}", (shape[0], out_h, out_w, shape[3]), "int16", scales=[scale], zero_points=[0])]
        ops.append(tb.Op(tflite.BuiltinOperator.AVERAGE_POOL_2D, [2 * n], [2 * n + 1], options=tb.options(
            "Pool2D", Padding=padding, StrideW=sw, StrideH=sh, FilterWidth=fw, FilterHeight=fh,
            FusedActivationFunction=activation)))
    path.write_bytes(tb.build([tb.Sub(tensors, ops, list(range(0, 2 * len(POOLS), 2)),
                                      list(range(1, 2 * len(POOLS), 2)))]))
    return path


@pytest.mark.parametrize("target", ["host", pytest.param("cortex-m55", marks=needs_qemu)])
def test_helium_s16_avg_pool_matches_reference(target, tmp_path):
    """Random images, and images of one extreme (the largest sums and roundings the multiply-high divides)."""
    from usmp.runner.baremetal import run_on_target

    model = _pool_model(tmp_path / "pools.tflite")
    compiled = compile_model(model, CompileOptions(cpu="cortex-m55", kernels="usmp", tiling="off"))
    assert functions(compiled) == ["usmp_helium_avg_pool_s16"] * len(POOLS)
    run = ((lambda c, x: run_host(c, x, sanitize=True)) if target == "host"
           else (lambda c, x: run_on_target(c, x, target).outputs))
    check(model, compiled, run)
    for value in (-32768, 32767):
        images = [np.full(shape, value, np.int16) for shape, *_ in POOLS]
        for k, (e, g) in enumerate(zip(reference_outputs(model, images), run(compiled, images))):
            assert outputs_match(e, g), f"layer {k} of {value}s:\nexpected {e}\ngot {g}"
