"""Write the SLICE, REVERSE_V2, DYNAMIC_UPDATE_SLICE, EMBEDDING_LOOKUP and BROADCAST_ARGS test
models (fixed seeds).

Run with a Python that has TensorFlow:  /work/tfvenv/bin/python tests/models/make_slicing_models.py
tf.slice and tf.reverse come from the TensorFlow converter (int8 and float32). The converter
folds BROADCAST_ARGS of static shapes and makes GATHER of embedding lookups, so those, the
int16/int32/int64/bool variants and DYNAMIC_UPDATE_SLICE are written with tests/tflite_builder.py.
Models in tests/models/ take data inputs any random values suit (constant indices, or starts
that TFLite Micro clamps); those whose index inputs must be valid (ids, begin, axes, shapes
that must broadcast) go to tests/models/slicing/, which tests/test_ops_slicing.py runs with valid inputs.
Each model is checked to contain its operator.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from model_tools import MODELS_DIR, convert, opcodes  # noqa: E402

SLICING_DIR = MODELS_DIR / "slicing"


def converted_models():
    """(name, function of the input, input shape, quantize, expected opcodes)"""
    import tensorflow as tf

    shape = (1, 4, 5, 3)
    return [
        ("slice_int8", lambda x: tf.slice(x, [0, 1, 1, 0], [1, 2, -1, 2]), shape, "int8", ["SLICE"]),
        ("slice_f32", lambda x: tf.slice(x, [0, 2, 0, 1], [-1, 2, 3, -1]), shape, "float32", ["SLICE"]),
        ("reverse_int8", lambda x: tf.reverse(x, axis=[2]), shape, "int8", ["REVERSE_V2"]),
        ("reverse_f32", lambda x: tf.reverse(x, axis=[1, 2]), shape, "float32", ["REVERSE_V2"]),
    ]


def _q(dtype):
    return {"int8": dict(scales=[0.05], zero_points=[3]), "int16": dict(scales=[0.001], zero_points=[0])}.get(dtype, {})


def built_models():
    """(name, folder, tensors, operators, model inputs, model outputs)"""
    import tflite

    from tflite_builder import Op, T

    ops = tflite.BuiltinOperator
    rng = np.random.default_rng(11)
    models = []
    for dtype in ("int16", "int32", "bool"):  # constant begin/size
        models.append((f"slice_{dtype}", MODELS_DIR,
                       [T("input", (2, 4, 6), dtype, **_q(dtype)),
                        T("begin", (3,), "int32", data=np.array([1, 0, 2], np.int32)),
                        T("size", (3,), "int32", data=np.array([-1, 3, 3], np.int32)),
                        T("output", (1, 3, 3), dtype, **_q(dtype))],
                       [Op(ops.SLICE, [0, 1, 2], [3])], [0], [3]))
    for dtype in ("int16", "int32", "int64", "bool"):
        models.append((f"reverse_{dtype}", MODELS_DIR,
                       [T("input", (3, 4, 5), dtype, **_q(dtype)),
                        T("axis", (2,), "int32", data=np.array([-1, 1], np.int32)),
                        T("output", (3, 4, 5), dtype, **_q(dtype))],
                       [Op(ops.REVERSE_V2, [0, 1], [2])], [0], [2]))
    for dtype in ("int8", "int32", "float32"):  # start as a model input: TFLite Micro clamps any value
        models.append((f"dynamic_update_slice_{dtype.replace('float32', 'f32')}", MODELS_DIR,
                       [T("operand", (4, 6, 2), dtype, **_q(dtype)), T("update", (2, 3, 2), dtype, **_q(dtype)),
                        T("start", (3,), "int32"), T("output", (4, 6, 2), dtype, **_q(dtype))],
                       [Op(ops.DYNAMIC_UPDATE_SLICE, [0, 1, 2], [3])], [0, 1, 2], [3]))
    models.append(("dynamic_update_slice_const_start_int8", MODELS_DIR,
                   [T("operand", (5, 8), "int8", **_q("int8")), T("update", (2, 3), "int8", **_q("int8")),
                    T("start", (2,), "int64", data=np.array([2, 4], np.int64)),
                    T("output", (5, 8), "int8", **_q("int8"))],
                   [Op(ops.DYNAMIC_UPDATE_SLICE, [0, 1, 2], [3])], [0, 1], [3]))
    models.append(("embedding_lookup_table_input_f32", MODELS_DIR,
                   [T("ids", (4,), "int32", data=np.array([2, 0, 2, 5], np.int32)), T("table", (6, 8), "float32"),
                    T("output", (4, 8), "float32")],
                   [Op(ops.EMBEDDING_LOOKUP, [0, 1], [2])], [1], [2]))
    models.append(("broadcast_args_int32", MODELS_DIR,  # one shape of ones broadcasts with anything
                   [T("ones", (4,), "int32", data=np.ones(4, np.int32)), T("shape", (3,), "int32"),
                    T("output", (4,), "int32")],
                   [Op(ops.BROADCAST_ARGS, [0, 1], [2])], [1], [2]))
    tables = {"f32": rng.uniform(-2, 2, (10, 2, 4)).astype(np.float32),
              "int8": rng.integers(-128, 128, (10, 2, 4)).astype(np.int8)}
    for name, table, out_dtype in (("f32", tables["f32"], "float32"), ("int8", tables["int8"], "int8"),
                                   ("hybrid", tables["int8"], "float32")):
        q = dict(scales=[0.02], zero_points=[0]) if table.dtype == np.int8 else {}
        out_q = q if out_dtype == "int8" else {}
        models.append((f"embedding_lookup_{name}", SLICING_DIR,
                       [T("ids", (5,), "int32"), T("table", table.shape, str(table.dtype), data=table, **q),
                        T("output", (5, 2, 4), out_dtype, **out_q)],
                       [Op(ops.EMBEDDING_LOOKUP, [0, 1], [2])], [0], [2]))
    models.append(("slice_begin_input_int8", SLICING_DIR,
                   [T("input", (3, 6, 4), "int8", **_q("int8")), T("begin", (3,), "int32"),
                    T("size", (3,), "int32", data=np.array([2, 3, -1], np.int32)),
                    T("output", (2, 3, 4), "int8", **_q("int8"))],
                   [Op(ops.SLICE, [0, 1, 2], [3])], [0, 1], [3]))
    models.append(("reverse_axis_input_int16", SLICING_DIR,
                   [T("input", (3, 4, 5), "int16", **_q("int16")), T("axis", (2,), "int32"),
                    T("output", (3, 4, 5), "int16", **_q("int16"))],
                   [Op(ops.REVERSE_V2, [0, 1], [2])], [0, 1], [2]))
    models.append(("broadcast_args_int64", SLICING_DIR,
                   [T("s1", (3,), "int64"), T("s2", (2,), "int64"), T("output", (3,), "int64")],
                   [Op(ops.BROADCAST_ARGS, [0, 1], [2])], [0, 1], [2]))
    return models


def main() -> None:
    from tflite_builder import Sub, build

    failed = []
    for seed, (name, fn, shape, quantize, expected) in enumerate(converted_models()):
        path = convert(keras_function(fn), [shape], name, quantize=quantize, seed=900 + seed)
        failed += _report(name, path, expected)
    SLICING_DIR.mkdir(exist_ok=True)
    for name, folder, tensors, operators, inputs, outputs in built_models():
        path = folder / f"{name}.tflite"
        path.write_bytes(build([Sub(tensors, operators, inputs, outputs)]))
        failed += _report(name, path, [])
    if failed:
        raise SystemExit(f"models without their operator: {', '.join(failed)}")


def _report(name: str, path: Path, expected: list[str]) -> list[str]:
    ops = opcodes(path)
    ok = all(op in ops for op in expected)
    print(f"{name}: {ops} {path.stat().st_size} bytes {'ok' if ok else 'MISSING ' + ' '.join(expected)}")
    return [] if ok else [name]


def keras_function(fn):
    """A build function applying `fn` (TensorFlow ops) to the Keras input through a Lambda layer."""
    import tensorflow as tf

    return lambda x: tf.keras.layers.Lambda(fn)(x)


if __name__ == "__main__":
    main()
