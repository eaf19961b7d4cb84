"""numpy evaluators of the operators the folding pass can compute at compile time.

Each takes (operator, input tensors, output tensors) and returns one array
per output, or raises CannotFold to leave the operator to its kernel. They
cover data movement of any type (exact by nature) and integer arithmetic on
unquantized int32/int64 tensors (the converter's shape computations); float
and quantized arithmetic is never folded, since its rounding is the kernels'.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from usmp.ir.graph import numpy_dtype
from usmp.lower.ops.strided_slice import slice_axes


class CannotFold(Exception):
    """The operator is left to its lowering (which refuses it if it is malformed)."""


EVALUATORS: dict[str, Callable] = {}


def evaluator(*opcodes: str, shape_only: bool = False):
    def register(fn: Callable) -> Callable:
        fn.shape_only = shape_only
        for opcode in opcodes:
            EVALUATORS[opcode] = fn
        return fn

    return register


def _ints(tensor) -> list[int]:
    if tensor is None or tensor.dtype not in ("int32", "int64"):
        raise CannotFold()
    return [int(v) for v in tensor.data.reshape(-1)]


def _axis(value: int, rank: int) -> int:
    axis = value + rank if value < 0 else value
    if not 0 <= axis < rank:
        raise CannotFold()
    return axis


def _same_quantization(*tensors) -> None:
    """Moving values is only exact when every tensor has the same type and quantization."""
    if any(t.dtype != tensors[0].dtype for t in tensors):
        raise CannotFold()
    quants = [(None if t.quant is None else (tuple(t.quant.scales.tolist()), tuple(t.quant.zero_points.tolist())))
              for t in tensors]
    if any(q != quants[0] for q in quants):
        raise CannotFold()


@evaluator("SHAPE", shape_only=True)
def _shape(op, inputs, outputs):
    return [np.array(inputs[0].shape, dtype=numpy_dtype(outputs[0].dtype))]


@evaluator("RESHAPE", "SQUEEZE", "EXPAND_DIMS")
def _view(op, inputs, outputs):
    _same_quantization(inputs[0], outputs[0])
    return [inputs[0].data.reshape(outputs[0].shape)]


@evaluator("CAST")
def _cast(op, inputs, outputs):
    data, dtype = inputs[0].data, numpy_dtype(outputs[0].dtype)
    if data.dtype.kind == "f" and np.dtype(dtype).kind in "iu":
        if not np.all(np.isfinite(data)):
            raise CannotFold()
        info = np.iinfo(dtype)
        if np.any(data <= info.min - 1) or np.any(data >= info.max + 1):
            raise CannotFold()  # out of range: undefined in C, left alone
    elif data.dtype.kind in "iu" and np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        if np.any(data < info.min) or np.any(data > info.max):
            raise CannotFold()
    return [data.astype(dtype)]


@evaluator("STRIDED_SLICE")
def _strided_slice(op, inputs, outputs):
    o = op.options
    if o.get("ellipsis_mask", 0) or o.get("new_axis_mask", 0) or o.get("offset", False):
        raise CannotFold()
    data = inputs[0].data
    begin, end, strides = (_ints(t) for t in inputs[1:4])
    if not len(begin) == len(end) == len(strides) == data.ndim or 0 in strides:
        raise CannotFold()
    _same_quantization(inputs[0], outputs[0])
    axes, out_shape = slice_axes(data.shape, begin, end, strides, int(o.get("begin_mask", 0)),
                                 int(o.get("end_mask", 0)), int(o.get("shrink_axis_mask", 0)))
    index = tuple(np.arange(count, dtype=np.int64) * stride + start for start, count, stride in axes)
    return [data[np.ix_(*index)].reshape(out_shape)]


@evaluator("SLICE")
def _slice(op, inputs, outputs):
    data = inputs[0].data
    begin, size = _ints(inputs[1]), _ints(inputs[2])
    if not len(begin) == len(size) == data.ndim:
        raise CannotFold()
    _same_quantization(inputs[0], outputs[0])
    size = [d - b if s == -1 else s for d, b, s in zip(data.shape, begin, size)]
    if any(b < 0 or s < 0 or b + s > d for d, b, s in zip(data.shape, begin, size)):
        raise CannotFold()
    return [data[tuple(slice(b, b + s) for b, s in zip(begin, size))]]


@evaluator("PACK")
def _pack(op, inputs, outputs):
    _same_quantization(*inputs, outputs[0])
    return [np.stack([t.data for t in inputs], axis=_axis(int(op.options.get("axis", 0)), len(outputs[0].shape)))]


@evaluator("UNPACK")
def _unpack(op, inputs, outputs):
    _same_quantization(inputs[0], *outputs)
    data = inputs[0].data
    axis = _axis(int(op.options.get("axis", 0)), data.ndim)
    return [np.take(data, k, axis=axis) for k in range(data.shape[axis])]


@evaluator("CONCATENATION")
def _concatenation(op, inputs, outputs):
    if op.options.get("fused_activation_function", 0):
        raise CannotFold()
    _same_quantization(*inputs, outputs[0])
    return [np.concatenate([t.data for t in inputs], axis=_axis(int(op.options.get("axis", 0)), len(outputs[0].shape)))]


@evaluator("FILL")
def _fill(op, inputs, outputs):
    value = inputs[1].data.reshape(-1)
    _same_quantization(inputs[1], outputs[0])
    if value.size != 1:
        raise CannotFold()
    return [np.full(_ints(inputs[0]), value[0], dtype=value.dtype)]


@evaluator("BROADCAST_TO")
def _broadcast_to(op, inputs, outputs):
    _same_quantization(inputs[0], outputs[0])
    return [np.broadcast_to(inputs[0].data, _ints(inputs[1]))]


@evaluator("TILE")
def _tile(op, inputs, outputs):
    _same_quantization(inputs[0], outputs[0])
    multiples = _ints(inputs[1])
    if len(multiples) != inputs[0].data.ndim or min(multiples, default=0) < 0:
        raise CannotFold()
    return [np.tile(inputs[0].data, multiples)]


@evaluator("TRANSPOSE")
def _transpose(op, inputs, outputs):
    _same_quantization(inputs[0], outputs[0])
    perm = _ints(inputs[1])
    if sorted(perm) != list(range(inputs[0].data.ndim)):
        raise CannotFold()
    return [np.transpose(inputs[0].data, perm)]


@evaluator("GATHER")
def _gather(op, inputs, outputs):
    if int(op.options.get("batch_dims", 0)) != 0:
        raise CannotFold()
    _same_quantization(inputs[0], outputs[0])
    data, indices = inputs[0].data, np.asarray(_ints(inputs[1])).reshape(inputs[1].shape)
    axis = _axis(int(op.options.get("axis", 0)), data.ndim)
    if np.any(indices < 0) or np.any(indices >= data.shape[axis]):
        raise CannotFold()  # TFLite Micro fails on these at run time; the kernel decides
    return [np.take(data, indices, axis=axis)]


@evaluator("SPLIT")
def _split(op, inputs, outputs):
    data = inputs[1].data
    axis_values = _ints(inputs[0])
    if len(axis_values) != 1:
        raise CannotFold()
    _same_quantization(inputs[1], *outputs)
    return np.split(data, len(outputs), axis=_axis(axis_values[0], data.ndim))


@evaluator("SPLIT_V")
def _split_v(op, inputs, outputs):
    data = inputs[0].data
    axis_values = _ints(inputs[2])
    if len(axis_values) != 1:
        raise CannotFold()
    _same_quantization(inputs[0], *outputs)
    axis = _axis(axis_values[0], data.ndim)
    sizes = [t.shape[axis] for t in outputs]
    return np.split(data, np.cumsum(sizes)[:-1], axis=axis)


def _integer_operands(op, inputs, outputs):
    """Unquantized int32/int64 operands of a binary operator without fused activation."""
    if op.options.get("fused_activation_function", 0) or len(inputs) != 2:
        raise CannotFold()
    for t in (*inputs, outputs[0]):
        if t.dtype not in ("int32", "int64") or t.quant is not None:
            raise CannotFold()
    return inputs[0].data.astype(np.int64), inputs[1].data.astype(np.int64)


@evaluator("ADD")
def _add(op, inputs, outputs):
    a, b = _integer_operands(op, inputs, outputs)
    return [a + b]


@evaluator("SUB")
def _sub(op, inputs, outputs):
    a, b = _integer_operands(op, inputs, outputs)
    return [a - b]


@evaluator("MUL")
def _mul(op, inputs, outputs):
    a, b = _integer_operands(op, inputs, outputs)
    return [a * b]


@evaluator("FLOOR_DIV")
def _floor_div(op, inputs, outputs):
    a, b = _integer_operands(op, inputs, outputs)
    if np.any(b == 0):
        raise CannotFold()
    return [a // b]  # numpy's integer // rounds toward minus infinity, as FLOOR_DIV does


@evaluator("MAXIMUM")
def _maximum(op, inputs, outputs):
    a, b = _integer_operands(op, inputs, outputs)
    return [np.maximum(a, b)]


@evaluator("MINIMUM")
def _minimum(op, inputs, outputs):
    a, b = _integer_operands(op, inputs, outputs)
    return [np.minimum(a, b)]


@evaluator("BROADCAST_ARGS")
def _broadcast_args(op, inputs, outputs):
    shapes = [tuple(_ints(t)) for t in inputs]
    if len(shapes) != 2 or any(d < 0 for s in shapes for d in s):
        raise CannotFold()
    return [np.array(np.broadcast_shapes(*shapes), dtype=np.int64)]


@evaluator("RANGE")
def _range(op, inputs, outputs):
    start, limit, delta = (_ints(t) for t in inputs)
    if len(start) != 1 or len(limit) != 1 or delta != [delta[0]] or delta[0] == 0:
        raise CannotFold()
    return [np.arange(start[0], limit[0], delta[0], dtype=np.int64)]
