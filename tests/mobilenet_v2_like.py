"""A MobileNetV2-shaped int8 model written with tflite_builder (no TensorFlow), for tests that need a
model of the usual size (about 70 operators): a 3x3 stride-2 convolution, 17 inverted residual blocks
(1x1 expansion, 3x3 depthwise, 1x1 projection, an ADD where the shape allows; as in Keras, a PAD on the
bottom and right before each stride-2 depthwise, which then pads nothing), a 1x1 convolution, a global
average pool, a classifier and a softmax, between a QUANTIZE and a DEQUANTIZE: 72 operators.

Random weights from a fixed seed: the figures measure the architecture, not a trained model.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import tflite

import tflite_builder as tb

# (expansion, output channels, blocks, stride) of MobileNetV2, channels at width 0.35 (rounded to 8)
BLOCKS = ((1, 8, 1, 1), (6, 8, 2, 2), (6, 16, 3, 2), (6, 24, 4, 2), (6, 32, 3, 1), (6, 56, 3, 2), (6, 112, 1, 1))
SAME, VALID = tflite.Padding.SAME, tflite.Padding.VALID
RELU6, NONE = tflite.ActivationFunctionType.RELU6, tflite.ActivationFunctionType.NONE
OP = tflite.BuiltinOperator


class _Model:
    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)
        self.tensors: list[tb.T] = []
        self.ops: list[tb.Op] = []

    def tensor(self, name, shape, dtype="int8", **kw) -> int:
        self.tensors.append(tb.T(name, tuple(shape), dtype, **kw))
        return len(self.tensors) - 1

    def activation(self, name, shape) -> int:
        return self.tensor(name, shape, scales=[0.05], zero_points=[-128])

    def weights(self, name, shape, scale=0.01) -> int:
        data = self.rng.integers(-127, 128, shape).astype(np.int8)
        return self.tensor(name, shape, data=data, scales=[scale])

    def bias(self, name, channels, scale=0.0005) -> int:
        data = self.rng.integers(-300, 300, channels).astype(np.int32)
        return self.tensor(name, (channels,), "int32", data=data, scales=[scale])

    def conv(self, x, shape, out_ch, kernel, stride, name, activation=RELU6) -> tuple[int, tuple]:
        n, h, w, c = shape
        out_shape = (n, -(-h // stride), -(-w // stride), out_ch)
        f = self.weights(f"{name}/filter", (out_ch, kernel, kernel, c))
        y = self.activation(name, out_shape)
        self.ops.append(tb.Op(OP.CONV_2D, [x, f, self.bias(f"{name}/bias", out_ch), ], [y], options=tb.options(
            "Conv2D", Padding=SAME, StrideW=stride, StrideH=stride, FusedActivationFunction=activation)))
        return y, out_shape

    def depthwise(self, x, shape, stride, name) -> tuple[int, tuple]:
        n, h, w, c = shape
        out_shape = (n, -(-h // stride), -(-w // stride), c)
        padding = SAME
        if stride == 2:
            paddings = self.tensor(f"{name}/paddings", (4, 2), "int32",
                                   data=np.array([[0, 0], [0, h % 2 == 0], [0, w % 2 == 0], [0, 0]], np.int32))
            padded = self.activation(f"{name}/pad", (n, h + (h % 2 == 0), w + (w % 2 == 0), c))
            self.ops.append(tb.Op(OP.PAD, [x, paddings], [padded]))
            x, padding = padded, VALID
        f = self.weights(f"{name}/filter", (1, 3, 3, c))
        y = self.activation(name, out_shape)
        self.ops.append(tb.Op(OP.DEPTHWISE_CONV_2D, [x, f, self.bias(f"{name}/bias", c)], [y], options=tb.options(
            "DepthwiseConv2D", Padding=padding, StrideW=stride, StrideH=stride, DepthMultiplier=1,
            FusedActivationFunction=RELU6)))
        return y, out_shape


def mobilenet_v2_like(path: Path, size: int = 64, classes: int = 10, seed: int = 0) -> Path:
    """Write the model to path; its input is float32 [1, size, size, 3]."""
    m = _Model(seed)
    image = m.tensor("image", (1, size, size, 3), "float32")
    x = m.tensor("image_int8", (1, size, size, 3), scales=[1 / 128], zero_points=[0])
    m.ops.append(tb.Op(OP.QUANTIZE, [image], [x]))
    x, shape = m.conv(x, (1, size, size, 3), 16, 3, 2, "stem")
    block = 0
    for expansion, channels, repeats, first_stride in BLOCKS:
        for r in range(repeats):
            stride = first_stride if r == 0 else 1
            name = f"block{block}"
            y, y_shape = x, shape
            if expansion != 1:
                y, y_shape = m.conv(y, y_shape, shape[-1] * expansion, 1, 1, f"{name}/expand")
            y, y_shape = m.depthwise(y, y_shape, stride, f"{name}/depthwise")
            y, y_shape = m.conv(y, y_shape, channels, 1, 1, f"{name}/project", activation=NONE)
            if stride == 1 and shape[-1] == channels:
                total = m.activation(f"{name}/add", y_shape)
                m.ops.append(tb.Op(OP.ADD, [x, y], [total], options=tb.options("Add", FusedActivationFunction=NONE)))
                y = total
            x, shape = y, y_shape
            block += 1
    x, shape = m.conv(x, shape, 160, 1, 1, "head")
    pooled = m.activation("pool", (1, 1, 1, 160))
    m.ops.append(tb.Op(OP.AVERAGE_POOL_2D, [x], [pooled], options=tb.options(
        "Pool2D", Padding=VALID, StrideW=1, StrideH=1, FilterWidth=shape[2], FilterHeight=shape[1],
        FusedActivationFunction=NONE)))
    new_shape = m.tensor("flat_shape", (2,), "int32", data=np.array([1, 160], np.int32))
    flat = m.activation("flat", (1, 160))
    m.ops.append(tb.Op(OP.RESHAPE, [pooled, new_shape], [flat]))
    logits = m.tensor("logits", (1, classes), scales=[0.1], zero_points=[0])
    m.ops.append(tb.Op(OP.FULLY_CONNECTED, [flat, m.weights("fc/weights", (classes, 160)),
                                            m.bias("fc/bias", classes)], [logits]))
    probabilities = m.tensor("probabilities", (1, classes), scales=[1 / 256], zero_points=[-128])
    m.ops.append(tb.Op(OP.SOFTMAX, [logits], [probabilities], options=tb.options("Softmax", Beta=1.0)))
    output = m.tensor("output", (1, classes), "float32")
    m.ops.append(tb.Op(OP.DEQUANTIZE, [probabilities], [output]))
    path = Path(path)
    path.write_bytes(tb.build([tb.Sub(m.tensors, m.ops, [image], [output])]))
    return path
