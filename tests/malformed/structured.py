"""Schema-aware damage: a well-formed flatbuffer whose values disagree.

The model is unpacked with the TFLite schema's object API (shipped with
tflite-micro), one field is changed, and it is packed again, so the damage
reaches the checks behind the flatbuffer parser: shapes against buffer sizes,
quantization lengths, tensor and opcode references, huge dimensions, wrong
types and options. Each mutation returns a short description of what it did.
"""
from __future__ import annotations

import random

import flatbuffers
import numpy as np
from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema

INTERESTING_INTS = [0, 1, -1, 2, 3, 7, 64, 255, 256, 65535, 65536, 1 << 20, (1 << 31) - 1, -(1 << 31)]
HUGE_DIMS = [1 << 16, 1 << 20, 1 << 24, (1 << 31) - 1]


def unpack(data: bytes):
    return schema.ModelT.InitFromPackedBuf(bytearray(data), 0)


def pack(model) -> bytes:
    builder = flatbuffers.Builder(1024)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def repacked(data: bytes) -> bytes:
    """The model packed again unchanged: what an applied mutation that changed nothing gives."""
    return pack(unpack(data))


def _subgraph(model):
    return model.subgraphs[0]


def _tensor(model, rng):
    tensors = _subgraph(model).tensors
    k = rng.randrange(len(tensors))
    return k, tensors[k]


def _operator(model, rng):
    ops = _subgraph(model).operators
    k = rng.randrange(len(ops))
    return k, ops[k]


def _shape(t) -> list[int]:
    return [int(d) for d in (t.shape if t.shape is not None else [])]


# -- the mutations ----------------------------------------------------------------------

def shape_disagrees(model, rng):
    k, t = _tensor(model, rng)
    shape = _shape(t) or [1]
    axis = rng.randrange(len(shape))
    shape[axis] = rng.choice([shape[axis] + 1, max(shape[axis] - 1, 0), shape[axis] * 2, 0, -1, 3])
    t.shape = np.array(shape, np.int32)
    return f"tensor {k} shape -> {shape}"


def huge_dimension(model, rng):
    k, t = _tensor(model, rng)
    shape = _shape(t) or [1]
    shape[rng.randrange(len(shape))] = rng.choice(HUGE_DIMS)
    t.shape = np.array(shape, np.int32)
    return f"tensor {k} shape -> {shape}"


def rank_changed(model, rng):
    k, t = _tensor(model, rng)
    shape = _shape(t)
    shape = shape[:-1] if shape and rng.random() < 0.4 else [1] * rng.randrange(1, 9) + shape
    t.shape = np.array(shape, np.int32)
    t.shapeSignature = None
    return f"tensor {k} rank -> {len(shape)}"


def buffer_size_disagrees(model, rng):
    with_data = [i for i, b in enumerate(model.buffers) if b.data is not None and len(b.data)]
    if not with_data:
        return None
    i = rng.choice(with_data)
    data = np.asarray(model.buffers[i].data, np.uint8)
    cut = rng.choice([1, 2, 3, 4, len(data) // 2, len(data) - 1])
    model.buffers[i].data = data[:-cut] if rng.random() < 0.6 else np.concatenate([data, data[:cut]])
    return f"buffer {i}: {len(data)} -> {len(model.buffers[i].data)} bytes"


def constant_buffer_dropped(model, rng):
    k, t = _tensor(model, rng)
    t.buffer = rng.choice([0, len(model.buffers), len(model.buffers) + 5, (1 << 32) - 1, (1 << 31) - 1])
    return f"tensor {k} buffer -> {t.buffer}"


def quantization_lengths(model, rng):
    quantized = [t for t in _subgraph(model).tensors if t.quantization is not None and t.quantization.scale is not None]
    if not quantized:
        return None
    q = rng.choice(quantized).quantization
    scale = [float(s) for s in q.scale]
    zero_point = [int(z) for z in (q.zeroPoint if q.zeroPoint is not None else [0] * len(scale))]
    choice = rng.randrange(5)
    if choice == 0:
        zero_point = zero_point + [0]
    elif choice == 1:
        scale = scale + scale[:1] * rng.randrange(1, 4)
    elif choice == 2:
        zero_point = zero_point[:-1]
    elif choice == 3:
        scale = scale[:-1] or []
    else:
        q.quantizedDimension = rng.choice([-1, 1, 3, 7, 1 << 20])
        return f"quantized_dimension -> {q.quantizedDimension}"
    q.scale = np.array(scale, np.float32)
    q.zeroPoint = np.array(zero_point, np.int64)
    return f"quantization: {len(scale)} scales, {len(zero_point)} zero points"


def quantization_values(model, rng):
    quantized = [t for t in _subgraph(model).tensors if t.quantization is not None and t.quantization.scale is not None
                 and len(t.quantization.scale)]
    if not quantized:
        return None
    q = rng.choice(quantized).quantization
    if rng.random() < 0.5:
        q.scale = np.array(q.scale, np.float32)
        q.scale[rng.randrange(len(q.scale))] = rng.choice([0.0, -1.0, np.nan, np.inf, 1e-30, 1e30, 3.0e38])
        return "quantization scale -> odd value"
    q.zeroPoint = np.array(q.zeroPoint if q.zeroPoint is not None else [0] * len(q.scale), np.int64)
    if len(q.zeroPoint):
        q.zeroPoint[rng.randrange(len(q.zeroPoint))] = rng.choice([-129, 128, 255, 1 << 40, -(1 << 40)])
    return "quantization zero point -> out of range"


def operator_tensor_missing(model, rng):
    k, op = _operator(model, rng)
    count = len(_subgraph(model).tensors)
    side = "inputs" if rng.random() < 0.6 or op.outputs is None else "outputs"
    values = [int(v) for v in (getattr(op, side) if getattr(op, side) is not None else [])] or [0]
    values[rng.randrange(len(values))] = rng.choice([count, count + 1, -2, -1, 1 << 30, -(1 << 31)])
    setattr(op, side, np.array(values, np.int32))
    return f"operator {k} {side} -> {values}"


def operator_tensor_swapped(model, rng):
    k, op = _operator(model, rng)
    count = len(_subgraph(model).tensors)
    side = "inputs" if rng.random() < 0.7 else "outputs"
    values = [int(v) for v in (getattr(op, side) if getattr(op, side) is not None else [])] or [0]
    values[rng.randrange(len(values))] = rng.randrange(count)
    setattr(op, side, np.array(values, np.int32))
    return f"operator {k} {side} -> {values}"


def operator_arity(model, rng):
    k, op = _operator(model, rng)
    side = "inputs" if rng.random() < 0.7 else "outputs"
    values = [int(v) for v in (getattr(op, side) if getattr(op, side) is not None else [])]
    values = values[:-1] if values and rng.random() < 0.5 else values + [rng.choice(values or [0])]
    setattr(op, side, np.array(values, np.int32))
    return f"operator {k} {side} -> {values}"


def graph_io_missing(model, rng):
    sub = _subgraph(model)
    side = rng.choice(["inputs", "outputs"])
    values = [int(v) for v in (getattr(sub, side) if getattr(sub, side) is not None else [])]
    choice = rng.randrange(3)
    if choice == 0 or not values:
        values.append(rng.choice([len(sub.tensors), -1, rng.randrange(len(sub.tensors))]))
    elif choice == 1:
        values = values[:-1]
    else:
        values[0] = rng.randrange(len(sub.tensors))
    setattr(sub, side, np.array(values, np.int32))
    return f"subgraph {side} -> {values}"


def opcode_changed(model, rng):
    if rng.random() < 0.3:
        k, op = _operator(model, rng)
        op.opcodeIndex = rng.choice([len(model.operatorCodes), 1 << 20, (1 << 32) - 1])
        return f"operator {k} opcode index -> {op.opcodeIndex}"
    code = rng.choice(model.operatorCodes)
    code.builtinCode = rng.randrange(0, 210)
    code.deprecatedBuiltinCode = min(code.builtinCode, 127)
    return f"builtin code -> {code.builtinCode}"


def tensor_type_changed(model, rng):
    k, t = _tensor(model, rng)
    t.type = rng.choice([0, 1, 2, 3, 4, 6, 7, 9, 10, 13, 17, 99])
    return f"tensor {k} type -> {t.type}"


def options_changed(model, rng):
    with_options = [op for op in _subgraph(model).operators if op.builtinOptions is not None]
    if not with_options:
        return None
    op = rng.choice(with_options)
    if rng.random() < 0.2:
        op.builtinOptionsType = rng.randrange(1, 130)
        return f"options type -> {op.builtinOptionsType}"
    options = op.builtinOptions
    fields = [n for n, v in vars(options).items() if isinstance(v, (int, float, bool, np.ndarray, list))]
    if not fields:
        return None
    field = rng.choice(fields)
    value = getattr(options, field)
    if isinstance(value, (np.ndarray, list)):
        new = [rng.choice(INTERESTING_INTS) for _ in range(max(len(value), 1) + rng.choice([-1, 0, 1]))]
        setattr(options, field, np.array(new, np.int32))
    elif isinstance(value, float):
        setattr(options, field, rng.choice([0.0, -1.0, float("nan"), float("inf"), 1e30]))
    else:
        setattr(options, field, rng.choice([v for v in INTERESTING_INTS if -(1 << 7) <= v < (1 << 7)] if isinstance(value, bool)
                                           else INTERESTING_INTS))
    return f"options {type(options).__name__}.{field} -> {getattr(options, field)}"


def graph_rewired(model, rng):
    sub = _subgraph(model)
    choice = rng.randrange(4)
    if choice == 0 and len(sub.operators) > 1:
        del sub.operators[rng.randrange(len(sub.operators))]
        return "an operator removed"
    if choice == 1:
        sub.operators.append(sub.operators[rng.randrange(len(sub.operators))])
        return "an operator duplicated (a tensor written twice)"
    if choice == 2:
        k, op = _operator(model, rng)
        if op.outputs is not None and len(op.outputs) and op.inputs is not None and len(op.inputs):
            op.inputs = np.array(op.inputs, np.int32)
            op.inputs[0] = op.outputs[0]
            return f"operator {k} reads its own output"
    if len(sub.tensors) > 1:
        del sub.tensors[-1]
        return "the last tensor removed"
    return None


def variable_or_sparse(model, rng):
    k, t = _tensor(model, rng)
    if rng.random() < 0.5:
        t.isVariable = True
        return f"tensor {k} is variable"
    t.shapeSignature = np.array([-1] + _shape(t)[1:], np.int32)
    return f"tensor {k} has a dynamic signature"


NASTY_NAMES = [b"a*/b/*c", b"quote\" back\\slash", b"??=??/", b"line\nbreak\r\t", b"\xff\xfe not utf-8",
               b"x" * 5000, b"", b"%s%n{}{{"]


def tensor_renamed(model, rng):
    """Names end up in messages, C comments and strings: they must not break any of them."""
    k, t = _tensor(model, rng)
    t.name = rng.choice(NASTY_NAMES)
    return f"tensor {k} renamed to {t.name[:20]!r}"


def subgraphs_changed(model, rng):
    if rng.random() < 0.5:
        model.subgraphs.append(model.subgraphs[0])
        return "a second subgraph"
    model.subgraphs = []
    return "no subgraphs"


MUTATIONS = [
    shape_disagrees, huge_dimension, rank_changed, buffer_size_disagrees, constant_buffer_dropped,
    quantization_lengths, quantization_values, operator_tensor_missing, operator_tensor_swapped, operator_arity,
    graph_io_missing, opcode_changed, tensor_type_changed, options_changed, graph_rewired, variable_or_sparse,
    subgraphs_changed, tensor_renamed,
]


def apply(data: bytes, mutation, rng: random.Random) -> tuple[bytes, str] | None:
    """(damaged model, description), or None when the mutation does not apply to this model."""
    model = unpack(data)
    if not model.subgraphs or not _subgraph(model).tensors or not _subgraph(model).operators:
        return None
    what = mutation(model, rng)
    if what is None:
        return None
    try:
        return pack(model), what
    except (TypeError, ValueError, OverflowError):  # a value the field's type cannot hold
        return None


def mutate_structured(data: bytes, rng: random.Random) -> bytes | None:
    """One random schema-aware mutation of any input (None when it does not unpack): for the fuzzer."""
    try:
        done = apply(data, rng.choice(MUTATIONS), rng)
    except Exception:  # the input is not a model the object API can read, or packing refused the value
        return None
    return done[0] if done else None
