"""Single-layer test models built by hand (tests/tflite_builder.py): several layers a model, each with its own
input and output, so that one run checks many shapes of a kernel family; and the check against tflite-micro."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import tflite

import tflite_builder as tb
from reference import outputs_match, random_inputs, reference_outputs

SAME, VALID = 0, 1
NONE, RELU, RELU6 = 0, 1, 3


@dataclass
class Layer:
    """One layer of a test model: CONV_2D, DEPTHWISE_CONV_2D or FULLY_CONNECTED, its shape and quantization."""

    kind: str  # conv, dw or fc
    h: int = 1
    w: int = 1
    in_ch: int = 4
    out_ch: int = 4  # depthwise: the multiplier times in_ch
    fh: int = 1
    fw: int = 1
    stride: tuple = (1, 1)
    dilation: tuple = (1, 1)
    padding: int = SAME
    activation: int = NONE
    batches: int = 1
    per_channel: bool = True
    seed: int = 0
    extra: dict = field(default_factory=dict)


def _layer_tensors(layer: Layer, base: int) -> tuple[list, tb.Op]:
    rng = np.random.default_rng(layer.seed)
    in_scale = float(rng.uniform(0.01, 0.05))
    in_zp = int(rng.integers(-128, 128))
    if layer.kind == "fc":
        in_shape, w_shape = (layer.batches, layer.in_ch), (layer.out_ch, layer.in_ch)
        depth, channels = layer.in_ch, layer.out_ch
    elif layer.kind == "conv":
        in_shape = (layer.batches, layer.h, layer.w, layer.in_ch)
        w_shape = (layer.out_ch, layer.fh, layer.fw, layer.in_ch)
        depth, channels = layer.fh * layer.fw * layer.in_ch, layer.out_ch
    else:
        in_shape = (layer.batches, layer.h, layer.w, layer.in_ch)
        w_shape = (1, layer.fh, layer.fw, layer.out_ch)
        depth, channels = layer.fh * layer.fw, layer.out_ch
    weights = rng.integers(-127, 128, w_shape).astype(np.int8)
    w_scales = rng.uniform(0.002, 0.02, channels if layer.per_channel else 1)
    real_spread = in_scale * float(np.mean(w_scales)) * np.sqrt(depth) * 73 * 73
    out_scale = float(real_spread / 40 * rng.uniform(0.5, 2.0))
    out_zp = int(rng.integers(-100, 60)) if layer.activation != NONE else int(rng.integers(-128, 128))
    if layer.activation == RELU6:
        out_scale = min(out_scale, 6.0 / (100 - out_zp))  # act_max below 127: the clamp runs
    bias_scales = in_scale * w_scales
    bias = rng.integers(-3000, 3000, channels).astype(np.int32)
    axis = 0 if layer.kind != "dw" else 3
    tensors = [
        tb.T(f"in{base}", in_shape, "int8", scales=[in_scale], zero_points=[in_zp]),
        tb.T(f"w{base}", w_shape, "int8", data=weights, scales=list(w_scales), zero_points=[0] * len(w_scales),
             axis=axis),
        tb.T(f"b{base}", (channels,), "int32", data=bias, scales=list(np.resize(bias_scales, channels)),
             zero_points=[0] * channels),
        tb.T(f"out{base}", _out_shape(layer), "int8", scales=[out_scale], zero_points=[out_zp]),
    ]
    k = 4 * base
    if layer.kind == "fc":
        opts = tb.options("FullyConnected", FusedActivationFunction=layer.activation)
        op = tb.Op(tflite.BuiltinOperator.FULLY_CONNECTED, [k, k + 1, k + 2], [k + 3], options=opts)
    elif layer.kind == "conv":
        opts = tb.options("Conv2D", Padding=layer.padding, StrideH=layer.stride[0], StrideW=layer.stride[1],
                          DilationHFactor=layer.dilation[0], DilationWFactor=layer.dilation[1],
                          FusedActivationFunction=layer.activation)
        op = tb.Op(tflite.BuiltinOperator.CONV_2D, [k, k + 1, k + 2], [k + 3], options=opts)
    else:
        opts = tb.options("DepthwiseConv2D", Padding=layer.padding, StrideH=layer.stride[0],
                          StrideW=layer.stride[1], DilationHFactor=layer.dilation[0],
                          DilationWFactor=layer.dilation[1], DepthMultiplier=layer.out_ch // layer.in_ch,
                          FusedActivationFunction=layer.activation)
        op = tb.Op(tflite.BuiltinOperator.DEPTHWISE_CONV_2D, [k, k + 1, k + 2], [k + 3], options=opts)
    return tensors, op


def _out_shape(layer: Layer) -> tuple:
    if layer.kind == "fc":
        return (layer.batches, layer.out_ch)
    sizes = []
    for size, f, s, d in ((layer.h, layer.fh, layer.stride[0], layer.dilation[0]),
                          (layer.w, layer.fw, layer.stride[1], layer.dilation[1])):
        reach = (f - 1) * d + 1
        sizes.append(-(-size // s) if layer.padding == SAME else (size - reach) // s + 1)
    return (layer.batches, *sizes, layer.out_ch)


def write_model(path: Path, layers: list, layer_tensors=None) -> Path:
    """One model of the layers; layer_tensors(layer, n) gives a layer's four tensors and its operator (default:
    the int8 layers' _layer_tensors)."""
    tensors, ops = [], []
    for n, layer in enumerate(layers):
        t, op = (layer_tensors or _layer_tensors)(layer, n)
        tensors += t
        ops.append(op)
    inputs = [4 * n for n in range(len(layers))]
    path.write_bytes(tb.build([tb.Sub(tensors, ops, inputs, [i + 3 for i in inputs])]))
    return path


def add_model(path: Path, cases: list[tuple]) -> Path:
    """One ADD of two same-shape tensors per case (elements, scale1, scale2, output scale, fused activation),
    each its own inputs and output, zero points drawn from the case's index."""
    tensors, ops, inputs, outputs = [], [], [], []
    for n, (size, s1, s2, so, activation) in enumerate(cases):
        rng = np.random.default_rng(n)
        zps = [int(z) for z in rng.integers(-100, 100, 3)]
        tensors += [tb.T(f"a{n}", (1, size), scales=[s1], zero_points=[zps[0]]),
                    tb.T(f"b{n}", (1, size), scales=[s2], zero_points=[zps[1]]),
                    tb.T(f"y{n}", (1, size), scales=[so], zero_points=[zps[2]])]
        ops.append(tb.Op(tflite.BuiltinOperator.ADD, [3 * n, 3 * n + 1], [3 * n + 2],
                         options=tb.options("Add", FusedActivationFunction=activation)))
        inputs += [3 * n, 3 * n + 1]
        outputs.append(3 * n + 2)
    path.write_bytes(tb.build([tb.Sub(tensors, ops, inputs, outputs)]))
    return path


def functions(compiled) -> list[str]:
    return [call.function for op in compiled.program.ops for call in op.calls]


def check(model: Path, compiled, run, trials: int = 2, seed: int = 3) -> None:
    rng = np.random.default_rng(seed)
    for trial in range(trials):
        inputs = random_inputs(compiled.program.graph, rng)
        for k, (e, g) in enumerate(zip(reference_outputs(model, inputs), run(compiled, inputs))):
            assert outputs_match(e, g), f"{model.name} trial {trial} output {k} (layer {k}):\nexpected {e}\ngot {g}"
