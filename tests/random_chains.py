"""Random depth-first chains as .tflite files, for a differential test nobody can tune to.

random_chain(seed) writes (with tests/tflite_builder.py, no TensorFlow) an int8 model of 2 to 7 layers
drawn from CONV_2D (1x1 to 5x5, strides, dilations, SAME/VALID, per-channel or per-tensor weights),
DEPTHWISE_CONV_2D (multipliers 1 and 2), AVERAGE/MAX_POOL_2D, PAD, a residual ADD or a CONCATENATION
along channels of a tensor and a side branch of it, with fused activations and random
quantization, sometimes ended by a global average pool, MEAN or FULLY_CONNECTED layer. Shapes are
drawn so that every layer is valid and small (they also run on the emulated cores). The same seed
always gives the same bytes. tests/test_tiling_differential.py checks a sample against tflite-micro;
benchmarks/tiling_differential.py checks many.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import tflite

import tflite_builder as tb

CONV, DW = tflite.BuiltinOperator.CONV_2D, tflite.BuiltinOperator.DEPTHWISE_CONV_2D
AVG, MAX = tflite.BuiltinOperator.AVERAGE_POOL_2D, tflite.BuiltinOperator.MAX_POOL_2D
SAME, VALID = 0, 1


@dataclass
class _Tensor:
    index: int
    shape: tuple  # (1, H, W, C)
    scale: float
    zero_point: int


class _Model:
    def __init__(self, rng: np.random.Generator):
        self.rng = rng
        self.tensors: list[tb.T] = []
        self.ops: list[tb.Op] = []

    def activation(self, shape: tuple, scale: float) -> _Tensor:
        zero_point = int(self.rng.integers(-128, 100))
        self.tensors.append(tb.T(f"t{len(self.tensors)}", shape, scales=[scale], zero_points=[zero_point]))
        return _Tensor(len(self.tensors) - 1, shape, scale, zero_point)

    def constant(self, shape: tuple, data: np.ndarray, dtype: str = "int8", scales=None, axis: int = 0) -> int:
        zero_points = [0] * len(scales) if scales is not None else None
        self.tensors.append(tb.T(f"c{len(self.tensors)}", shape, dtype, data=data, scales=scales,
                                 zero_points=zero_points, axis=axis))
        return len(self.tensors) - 1

    def weights(self, shape: tuple, channels: int, axis: int, per_channel: bool) -> tuple[int, list[float]]:
        scales = list(self.rng.uniform(0.002, 0.03, channels if per_channel else 1))
        data = self.rng.integers(-127, 128, shape).astype(np.int8)
        return self.constant(shape, data, scales=scales, axis=axis), scales

    def bias(self, channels: int, in_scale: float, w_scales: list[float]) -> int:
        scales = [in_scale * s for s in (w_scales if len(w_scales) > 1 else w_scales * channels)]
        data = self.rng.integers(-2000, 2000, channels).astype(np.int32)
        return self.constant((channels,), data, "int32", scales=scales)


def _window(size: int, kernel: int, stride: int, dilation: int, padding: int) -> int:
    extent = (kernel - 1) * dilation + 1
    return -(-size // stride) if padding == SAME else (size - extent) // stride + 1


def _out_scale(x: _Tensor, w_scales: list[float], taps: int) -> float:
    return float(x.scale * np.mean(w_scales) * 127 * np.sqrt(taps) / 4)


def _conv(m: _Model, x: _Tensor, depthwise: bool) -> _Tensor | None:
    rng = m.rng
    _, h, w, c = x.shape
    kernel = int(rng.choice([1, 3, 3, 5] if not depthwise else [3, 3, 5]))
    stride = int(rng.choice([1, 1, 2]))
    dilation = int(rng.choice([1, 1, 2])) if stride == 1 and kernel > 1 else 1
    padding = int(rng.choice([SAME, SAME, VALID]))
    oh, ow = _window(h, kernel, stride, dilation, padding), _window(w, kernel, stride, dilation, padding)
    if oh < 1 or ow < 1:
        return None
    per_channel = bool(rng.random() < 0.8)
    activation = int(rng.choice([0, 1, 3]))  # none, RELU, RELU6
    if depthwise:
        multiplier = int(rng.choice([1, 1, 2])) if c <= 16 else 1
        out_c = c * multiplier
        wi, ws = m.weights((1, kernel, kernel, out_c), out_c, 3, per_channel)
        options = tb.options("DepthwiseConv2D", Padding=padding, StrideW=stride, StrideH=stride,
                             DepthMultiplier=multiplier, DilationWFactor=dilation, DilationHFactor=dilation,
                             FusedActivationFunction=activation)
        taps = kernel * kernel
    else:
        out_c = int(rng.choice([4, 8, 12, 16, 24]))
        wi, ws = m.weights((out_c, kernel, kernel, c), out_c, 0, per_channel)
        options = tb.options("Conv2D", Padding=padding, StrideW=stride, StrideH=stride,
                             DilationWFactor=dilation, DilationHFactor=dilation, FusedActivationFunction=activation)
        taps = kernel * kernel * c
    bi = m.bias(out_c, x.scale, ws)
    y = m.activation((1, oh, ow, out_c), _out_scale(x, ws, taps))
    m.ops.append(tb.Op(DW if depthwise else CONV, [x.index, wi, bi], [y.index], options=options))
    return y


def _pool(m: _Model, x: _Tensor) -> _Tensor | None:
    rng = m.rng
    _, h, w, c = x.shape
    kernel, stride = int(rng.choice([2, 3])), int(rng.choice([1, 2]))
    padding = int(rng.choice([SAME, VALID]))
    oh, ow = _window(h, kernel, stride, 1, padding), _window(w, kernel, stride, 1, padding)
    if oh < 1 or ow < 1:
        return None
    y = m.activation((1, oh, ow, c), x.scale)  # pools keep the quantization
    m.tensors[y.index].zero_points = [x.zero_point]
    y.zero_point = x.zero_point
    opcode = AVG if rng.random() < 0.5 else MAX
    m.ops.append(tb.Op(opcode, [x.index], [y.index], options=tb.options(
        "Pool2D", Padding=padding, StrideW=stride, StrideH=stride, FilterWidth=kernel, FilterHeight=kernel,
        FusedActivationFunction=int(rng.choice([0, 1])))))
    return y


def _pad(m: _Model, x: _Tensor) -> _Tensor:
    rng = m.rng
    pads = np.array([[0, 0], *[[int(rng.integers(0, 3)), int(rng.integers(0, 3))] for _ in range(3)]], np.int32)
    shape = tuple(int(d + a + b) for d, (a, b) in zip(x.shape, pads))
    pi = m.constant((4, 2), pads, "int32")
    y = m.activation(shape, x.scale)
    m.tensors[y.index].zero_points = [x.zero_point]  # PAD keeps the quantization
    y.zero_point = x.zero_point
    m.ops.append(tb.Op(tflite.BuiltinOperator.PAD, [x.index, pi], [y.index]))
    return y


def _branch(m: _Model, x: _Tensor, out_c: int, scale: float | None = None, zero_point: int | None = None) -> _Tensor:
    """A side branch keeping x's height and width: a CONV_2D or DEPTHWISE_CONV_2D, stride 1, SAME."""
    rng = m.rng
    c = x.shape[3]
    kernel = int(rng.choice([1, 3]))
    depthwise = out_c == c and kernel == 3 and rng.random() < 0.5
    if depthwise:
        wi, ws = m.weights((1, 3, 3, c), c, 3, True)
        options = tb.options("DepthwiseConv2D", Padding=SAME, StrideW=1, StrideH=1, DepthMultiplier=1,
                             FusedActivationFunction=1)
        taps = 9
    else:
        wi, ws = m.weights((out_c, kernel, kernel, c), out_c, 0, True)
        options = tb.options("Conv2D", Padding=SAME, StrideW=1, StrideH=1, FusedActivationFunction=1)
        taps = kernel * kernel * c
    bi = m.bias(out_c, x.scale, ws)
    y = m.activation(x.shape[:3] + (out_c,), scale or _out_scale(x, ws, taps))
    if zero_point is not None:
        m.tensors[y.index].zero_points = [zero_point]
        y.zero_point = zero_point
    m.ops.append(tb.Op(DW if depthwise else CONV, [x.index, wi, bi], [y.index], options=options))
    return y


def _join(m: _Model, x: _Tensor) -> _Tensor:
    """x joined with a side branch of itself: a residual ADD, or a CONCATENATION along channels."""
    rng = m.rng
    if rng.random() < 0.5:
        branch = _branch(m, x, x.shape[3])
        y = m.activation(x.shape, float((x.scale + branch.scale) * rng.uniform(0.6, 1.2)))
        m.ops.append(tb.Op(tflite.BuiltinOperator.ADD, [x.index, branch.index], [y.index],
                           options=tb.options("Add", FusedActivationFunction=int(rng.choice([0, 1])))))
        return y
    # CONCATENATION requantizes nothing: the branch gets x's quantization, and so does the output
    branch = _branch(m, x, int(rng.choice([2, 4, 8])), x.scale, x.zero_point)
    y = m.activation(x.shape[:3] + (x.shape[3] + branch.shape[3],), x.scale)
    m.tensors[y.index].zero_points = [x.zero_point]
    y.zero_point = x.zero_point
    inputs = [x.index, branch.index] if rng.random() < 0.5 else [branch.index, x.index]
    m.ops.append(tb.Op(tflite.BuiltinOperator.CONCATENATION, inputs, [y.index],
                       options=tb.options("Concatenation", Axis=3)))
    return y


def _end(m: _Model, x: _Tensor) -> _Tensor:
    rng = m.rng
    _, h, w, c = x.shape
    kind = rng.choice(["avg", "mean", "fc"])
    if kind == "avg":
        y = m.activation((1, 1, 1, c), x.scale)
        m.tensors[y.index].zero_points = [x.zero_point]
        m.ops.append(tb.Op(AVG, [x.index], [y.index], options=tb.options(
            "Pool2D", Padding=VALID, StrideW=1, StrideH=1, FilterWidth=w, FilterHeight=h)))
        return y
    if kind == "mean":
        axes = m.constant((2,), np.array([1, 2], np.int32), "int32")
        y = m.activation((1, 1, 1, c), x.scale * float(rng.uniform(0.5, 1.5)))
        m.ops.append(tb.Op(tflite.BuiltinOperator.MEAN, [x.index, axes], [y.index],
                           options=tb.options("Reducer", KeepDims=True)))
        return y
    outputs = int(rng.integers(2, 10))
    features = h * w * c
    wi, ws = m.weights((outputs, features), outputs, 0, bool(rng.random() < 0.5))
    bi = m.bias(outputs, x.scale, ws)
    flat = m.activation((1, outputs), _out_scale(x, ws, features))
    m.ops.append(tb.Op(tflite.BuiltinOperator.FULLY_CONNECTED, [x.index, wi, bi], [flat.index]))
    return flat


def random_chain(seed: int) -> bytes:
    """The .tflite bytes of random chain `seed`."""
    rng = np.random.default_rng(seed)
    m = _Model(rng)
    shape = (1, int(rng.integers(6, 26)), int(rng.integers(3, 14)), int(rng.choice([1, 2, 3, 4, 8, 16])))
    x = m.activation(shape, float(rng.uniform(0.01, 0.1)))
    first = x.index
    for _ in range(int(rng.integers(2, 8))):
        kind = rng.choice(["conv", "conv", "dw", "dw", "pool", "pad", "join", "join"])
        y = {"conv": lambda: _conv(m, x, False), "dw": lambda: _conv(m, x, True), "pool": lambda: _pool(m, x),
             "pad": lambda: _pad(m, x), "join": lambda: _join(m, x)}[kind]()
        if y is not None and y.shape[1] * y.shape[2] * y.shape[3] <= 16384:
            x = y
    if rng.random() < 0.4:
        x = _end(m, x)
    return tb.build([tb.Sub(m.tensors, m.ops, [first], [x.index])])


def longest_regions_tiler(seed: int):
    """A stand-in for the tiling pass (usmp.compiler.tile_program) that fuses the longest region of every run,
    whatever it does to the peak, with a band height (1 to 3) and strategy drawn from the seed: so that every
    model runs loops, not only those the search would choose."""
    from usmp.tiling import chains
    from usmp.tiling.band_rows import STRATEGIES
    from usmp.tiling.region import region_at

    def longest(program, run: list[int]) -> list[int] | None:
        for length in range(len(run), 1, -1):
            for i in range(len(run) - length + 1):
                if region_at(program, run[i:i + length]) is not None:
                    return run[i:i + length]
        return None

    def tile(program, mode, workspace_io=False, *_):
        for run in reversed(chains.find_chains(program)):  # the last first: earlier positions do not shift
            region = longest(program, run)
            if region is not None:
                program = chains._apply(program, region, 1 + seed % 3, STRATEGIES[seed % 2], workspace_io)
        return program, []

    return tile
