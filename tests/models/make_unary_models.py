"""Write the unary test models: abs_*, neg_f32, ceil_f32, ..., elu_*, hard_swish_*,
rsqrt_*, logical_not_bool, cast_* and zeros_like_* (fixed seeds).

Run with a Python that has TensorFlow:  /work/tfvenv/bin/python tests/models/make_unary_models.py
The float32 and int8 models come from the TensorFlow converter; the int16, bool,
CAST and ZEROS_LIKE ones, and int8 ELU (which the converter leaves in float
between DEQUANTIZE and QUANTIZE), are written with tests/tflite_builder.py. Each model is checked to contain its operator.
rsqrt_int8's input range starts at 0, so its zero point is -128 and every int8
input is valid (TFLite Micro stops with an error below the zero point).
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from model_tools import MODELS_DIR, convert, opcodes  # noqa: E402


def converted_models():
    """(name, function of the input, input shape, quantize, input range, expected opcodes)"""
    import tensorflow as tf

    row, small = (1, 256), (1, 4, 4, 4)
    wide = (-3.0, 3.0)
    return [
        ("abs_int8", tf.abs, row, "int8", (-2.0, 5.0), ["ABS"]),
        ("abs_f32", tf.abs, small, "float32", wide, ["ABS"]),
        ("neg_f32", tf.negative, small, "float32", wide, ["NEG"]),
        ("ceil_f32", lambda a: tf.math.ceil(a * 2.0), small, "float32", wide, ["CEIL"]),
        ("floor_f32", lambda a: tf.math.floor(a * 2.0), small, "float32", wide, ["FLOOR"]),
        ("round_f32", lambda a: tf.math.round(a * 2.0), small, "float32", wide, ["ROUND"]),
        ("sqrt_f32", tf.sqrt, small, "float32", wide, ["SQRT"]),
        ("rsqrt_f32", tf.math.rsqrt, small, "float32", wide, ["RSQRT"]),
        ("rsqrt_int8", tf.math.rsqrt, row, "int8", (0.0, 4.0), ["RSQRT"]),
        ("square_f32", tf.square, small, "float32", wide, ["SQUARE"]),
        ("exp_f32", tf.exp, small, "float32", wide, ["EXP"]),
        ("log_f32", tf.math.log, small, "float32", wide, ["LOG"]),
        ("sin_f32", lambda a: tf.sin(a * 3.0), small, "float32", wide, ["SIN"]),
        ("cos_f32", lambda a: tf.cos(a * 3.0), small, "float32", wide, ["COS"]),
        ("sin_cos_chain_f32", lambda a: tf.exp(tf.sin(tf.cos(a))), small, "float32", wide, ["COS", "SIN", "EXP"]),
        ("elu_f32", tf.nn.elu, small, "float32", wide, ["ELU"]),
        ("hard_swish_int8", lambda a: a * tf.nn.relu6(a + 3.0) * (1.0 / 6.0), row, "int8", (-5.0, 5.0),
         ["HARD_SWISH"]),
        ("hard_swish_f32", lambda a: a * tf.nn.relu6(a + 3.0) * (1.0 / 6.0), small, "float32", (-5.0, 5.0),
         ["HARD_SWISH"]),
    ]


def built_models():
    """(name, tensors, operators): the models written with tflite_builder."""
    import tflite

    from tflite_builder import Op, T

    ops = tflite.BuiltinOperator
    shape = (1, 3, 5, 4)

    def one(opcode, in_dtype, out_dtype, in_q=None, out_q=None):
        def q(params):
            return dict(scales=[params[0]], zero_points=[params[1]]) if params else {}
        return [T("input", shape, in_dtype, **q(in_q)), T("output", shape, out_dtype, **q(out_q))], \
            [Op(opcode, [0], [1])]

    models = [
        ("elu_int8", *one(ops.ELU, "int8", "int8", (0.025, 8), (0.02, -77))),
        ("abs_int16", *one(ops.ABS, "int16", "int16", (0.001, 0), (0.0015, 0))),
        ("abs_int16_plain", *one(ops.ABS, "int16", "int16")),
        ("logical_not_bool", *one(ops.LOGICAL_NOT, "bool", "bool")),
        ("zeros_like_f32", *one(ops.ZEROS_LIKE, "float32", "float32")),
        ("zeros_like_int8", *one(ops.ZEROS_LIKE, "int8", "int8", (0.1, 3), (0.1, 3))),
        ("zeros_like_int32", *one(ops.ZEROS_LIKE, "int32", "int32")),
    ]
    for a, b in [("float32", "int8"), ("float32", "int32"), ("float32", "bool"), ("int8", "float32"),
                 ("int8", "int16"), ("int16", "int8"), ("int16", "float32"), ("int32", "float32"),
                 ("int32", "int8"), ("bool", "float32"), ("bool", "int32")]:
        models.append((f"cast_{_short(a)}_{_short(b)}", *one(ops.CAST, a, b)))
    # in place: ABS overwrites the ELU result that dies there (the last ELU writes the model output)
    q = dict(scales=[0.03], zero_points=[-5])
    models.append(("elu_abs_chain_int8", [T("input", shape, "int8", **q), T("elu", shape, "int8", **q),
                                          T("abs", shape, "int8", scales=[0.02], zero_points=[-128]),
                                          T("output", shape, "int8", scales=[0.02], zero_points=[-10])],
                   [Op(ops.ELU, [0], [1]), Op(ops.ABS, [1], [2]), Op(ops.ELU, [2], [3])]))
    # in place: the CAST's output feeds ABS, and the int16 ABS result dies into a second ABS
    models.append(("cast_abs_chain_int16", [T("input", shape, "float32"), T("cast", shape, "int16"),
                                            T("abs", shape, "int16"), T("output", shape, "int16")],
                   [Op(ops.CAST, [0], [1]), Op(ops.ABS, [1], [2]), Op(ops.ABS, [2], [3])]))
    return models


def _short(dtype: str) -> str:
    return {"float32": "f32"}.get(dtype, dtype)


def main() -> None:
    from tflite_builder import Sub, build

    failed = []
    for seed, (name, fn, shape, quantize, input_range, expected) in enumerate(converted_models()):
        path = convert(keras_function(fn), [shape], name, quantize=quantize, seed=500 + seed,
                       input_range=input_range)
        failed += _report(name, path, expected)
    for name, tensors, operators in built_models():
        path = MODELS_DIR / f"{name}.tflite"
        path.write_bytes(build([Sub(tensors, operators, [0], [len(tensors) - 1])]))
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
