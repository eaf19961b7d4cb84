"""Output shapes of operators from their input shapes and constant operand values.

Each rule takes (operator, input shapes, value) where value(k) is the
constant contents of input k or None, and returns one shape per output; it
raises NeedsValue when an operand that decides the shape is not constant
(its value exists only at run time) and NoRule when the operator's
options are outside what the rule knows.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from usmp.lower.ops.strided_slice import slice_axes


class NeedsValue(Exception):
    """The shape depends on the run-time value of input `position`."""

    def __init__(self, position: int):
        super().__init__(position)
        self.position = position


class NoRule(Exception):
    """The rule cannot work out this operator's shape."""


RULES: dict[str, Callable] = {}


def rule(*opcodes: str):
    def register(fn: Callable) -> Callable:
        for opcode in opcodes:
            RULES[opcode] = fn
        return fn

    return register


def _ints(value, position: int) -> list[int]:
    data = value(position)
    if data is None:
        raise NeedsValue(position)
    if np.asarray(data).dtype.kind not in "iu":
        raise NoRule()
    return [int(v) for v in np.asarray(data).reshape(-1)]


def _axis(axis: int, rank: int) -> int:
    resolved = axis + rank if axis < 0 else axis
    if not 0 <= resolved < rank:
        raise NoRule()
    return resolved


def broadcast(*shapes) -> tuple[int, ...]:
    try:
        return tuple(int(d) for d in np.broadcast_shapes(*[tuple(s) for s in shapes]))
    except ValueError:
        raise NoRule() from None


# Elementwise operators and others whose output has their first input's shape.
SAME_AS_FIRST = (
    "ABS", "NEG", "RELU", "RELU6", "RELU_N1_TO_1", "RELU_0_TO_1", "LEAKY_RELU", "HARD_SWISH", "LOGISTIC", "TANH",
    "ELU", "GELU", "EXP", "LOG", "SQRT", "RSQRT", "SQUARE", "SIN", "COS", "FLOOR", "CEIL", "ROUND", "SIGN",
    "LOGICAL_NOT", "QUANTIZE", "DEQUANTIZE", "CAST", "SOFTMAX", "LOG_SOFTMAX", "L2_NORMALIZATION",
    "LOCAL_RESPONSE_NORMALIZATION", "ZEROS_LIKE", "ONES_LIKE", "CUMSUM", "REVERSE_V2", "MIRROR_PAD_SAME",
    "DYNAMIC_UPDATE_SLICE",
)
BROADCASTING = (
    "ADD", "SUB", "MUL", "DIV", "MAXIMUM", "MINIMUM", "SQUARED_DIFFERENCE", "FLOOR_DIV", "FLOOR_MOD", "POW",
    "EQUAL", "NOT_EQUAL", "GREATER", "GREATER_EQUAL", "LESS", "LESS_EQUAL", "LOGICAL_AND", "LOGICAL_OR", "PRELU",
    "SELECT_V2", "ADD_N",
)


@rule(*SAME_AS_FIRST)
def _same(op, shapes, value):
    return [shapes[0]] * len(op.outputs)


@rule(*BROADCASTING)
def _broadcasting(op, shapes, value):
    return [broadcast(*[s for s in shapes if s is not None])]


@rule("SELECT")
def _select(op, shapes, value):
    return [shapes[1]]


@rule("SHAPE")
def _shape(op, shapes, value):
    return [(len(shapes[0]),)]


@rule("BROADCAST_ARGS")
def _broadcast_args(op, shapes, value):
    return [(max(shapes[0][0] if shapes[0] else 1, shapes[1][0] if shapes[1] else 1),)]


@rule("RESHAPE")
def _reshape(op, shapes, value):
    """The shape operand, else (absent or empty) the new_shape option, as TFLite reads them."""
    wanted = [int(v) for v in op.options.get("new_shape", [])]
    if len(op.inputs) > 1 and op.inputs[1] is not None and (shapes[1] != (0,) or not wanted):
        wanted = _ints(value, 1)
    count = int(np.prod(shapes[0], dtype=np.int64))
    unknown = [k for k, d in enumerate(wanted) if d == -1]
    if len(unknown) > 1 or any(d < -1 for d in wanted):
        raise NoRule()
    if unknown:
        known = int(np.prod([d for d in wanted if d != -1], dtype=np.int64))
        if known == 0 or count % known:
            raise NoRule()
        wanted[unknown[0]] = count // known
    return [tuple(wanted)]


@rule("SQUEEZE")
def _squeeze(op, shapes, value):
    shape = shapes[0]
    dims = [_axis(int(d), len(shape)) for d in op.options.get("squeeze_dims", [])]
    keep = [d for k, d in enumerate(shape) if not (k in dims if dims else d == 1)]
    return [tuple(keep)]


@rule("EXPAND_DIMS")
def _expand_dims(op, shapes, value):
    axis = _ints(value, 1)
    if len(axis) != 1:
        raise NoRule()
    shape = list(shapes[0])
    shape.insert(_axis(axis[0], len(shape) + 1), 1)
    return [tuple(shape)]


@rule("TRANSPOSE")
def _transpose(op, shapes, value):
    perm = _ints(value, 1)
    if sorted(perm) != list(range(len(shapes[0]))):
        raise NoRule()
    return [tuple(shapes[0][p] for p in perm)]


@rule("PACK")
def _pack(op, shapes, value):
    shape = list(shapes[0])
    if any(s != shapes[0] for s in shapes):
        raise NoRule()
    shape.insert(_axis(int(op.options.get("axis", 0)), len(shape) + 1), len(op.inputs))
    return [tuple(shape)]


@rule("UNPACK")
def _unpack(op, shapes, value):
    shape = list(shapes[0])
    del shape[_axis(int(op.options.get("axis", 0)), len(shape))]
    return [tuple(shape)] * len(op.outputs)


@rule("CONCATENATION")
def _concatenation(op, shapes, value):
    axis = _axis(int(op.options.get("axis", 0)), len(shapes[0]))
    shape = list(shapes[0])
    shape[axis] = sum(s[axis] for s in shapes)
    return [tuple(shape)]


@rule("SPLIT")
def _split(op, shapes, value):
    axis = _ints(value, 0)
    shape = list(shapes[1])
    axis = _axis(axis[0], len(shape))
    if shape[axis] % len(op.outputs):
        raise NoRule()
    shape[axis] //= len(op.outputs)
    return [tuple(shape)] * len(op.outputs)


@rule("SPLIT_V")
def _split_v(op, shapes, value):
    sizes, axis = _ints(value, 1), _ints(value, 2)
    shape = list(shapes[0])
    axis = _axis(axis[0], len(shape))
    if sizes.count(-1) == 1:
        sizes[sizes.index(-1)] = shape[axis] - (sum(sizes) + 1)
    result = []
    for size in sizes:
        shape[axis] = size
        result.append(tuple(shape))
    return result


@rule("STRIDED_SLICE")
def _strided_slice(op, shapes, value):
    o = op.options
    if o.get("ellipsis_mask", 0) or o.get("new_axis_mask", 0) or o.get("offset", False):
        raise NoRule()
    begin, end, strides = _ints(value, 1), _ints(value, 2), _ints(value, 3)
    if not len(begin) == len(end) == len(strides) == len(shapes[0]) or 0 in strides:
        raise NoRule()
    _, out_shape = slice_axes(shapes[0], begin, end, strides, int(o.get("begin_mask", 0)),
                              int(o.get("end_mask", 0)), int(o.get("shrink_axis_mask", 0)))
    return [tuple(out_shape)]


@rule("SLICE")
def _slice(op, shapes, value):
    begin, size = _ints(value, 1), _ints(value, 2)
    if not len(begin) == len(size) == len(shapes[0]):
        raise NoRule()
    return [tuple(d - b if s == -1 else s for d, b, s in zip(shapes[0], begin, size))]


@rule("GATHER")
def _gather(op, shapes, value):
    if int(op.options.get("batch_dims", 0)) != 0:
        raise NoRule()
    params, indices = shapes[0], shapes[1]
    axis = _axis(int(op.options.get("axis", 0)), len(params))
    return [tuple(params[:axis]) + tuple(indices) + tuple(params[axis + 1:])]


@rule("FILL")
def _fill(op, shapes, value):
    return [tuple(_ints(value, 0))]


@rule("BROADCAST_TO")
def _broadcast_to(op, shapes, value):
    return [tuple(_ints(value, 1))]


@rule("TILE")
def _tile(op, shapes, value):
    multiples = _ints(value, 1)
    if len(multiples) != len(shapes[0]):
        raise NoRule()
    return [tuple(d * m for d, m in zip(shapes[0], multiples))]


@rule("FULLY_CONNECTED")
def _fully_connected(op, shapes, value):
    units, depth = shapes[1]
    if op.options.get("keep_num_dims", False):
        return [tuple(shapes[0][:-1]) + (units,)]
    count = int(np.prod(shapes[0], dtype=np.int64))
    if depth == 0 or count % depth:
        raise NoRule()
    return [(count // depth, units)]


@rule("BATCH_MATMUL")
def _batch_matmul(op, shapes, value):
    a, b = shapes[0], shapes[1]
    if len(a) < 2 or len(b) < 2:
        raise NoRule()
    rows = a[-1] if op.options.get("adj_x", False) else a[-2]
    cols = b[-2] if op.options.get("adj_y", False) else b[-1]
    return [broadcast(a[:-2], b[:-2]) + (rows, cols)]


@rule("MEAN", "SUM", "REDUCE_MAX", "REDUCE_MIN", "REDUCE_PROD", "REDUCE_ANY", "REDUCE_ALL")
def _reduce(op, shapes, value):
    rank = len(shapes[0])
    axes = {_axis(a, rank) for a in _ints(value, 1)}
    keep = bool(op.options.get("keep_dims", False))
    return [tuple(1 if k in axes else d for k, d in enumerate(shapes[0]) if keep or k not in axes)]


@rule("ARG_MAX", "ARG_MIN")
def _arg(op, shapes, value):
    axis = _ints(value, 1)
    shape = list(shapes[0])
    del shape[_axis(axis[0], len(shape))]
    return [tuple(shape)]
