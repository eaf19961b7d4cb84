"""Write the add_*, sub_*, mul_*, relu_*, relu6_*, leaky_relu_*, logistic_*, tanh_*,
softmax_*, quantize_* and dequantize_* test models (fixed seeds).

Run with a Python that has TensorFlow:  /work/tfvenv/bin/python tests/models/make_elementwise_models.py
Each model is checked to contain the operator it is meant to exercise. Standalone
activations take the model input directly, so there is no operator to fuse them into.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from model_tools import convert, opcodes  # noqa: E402


def models():
    """(name, function of the inputs, input shapes, quantize, float_io, input range, expected opcodes)"""
    import tensorflow as tf

    def constant(shape, seed):
        return tf.constant(np.random.default_rng(seed).uniform(-2.0, 2.0, shape).astype(np.float32))

    img, chan = (1, 4, 4, 3), (1, 1, 1, 3)
    wide = (-3.0, 3.0)
    return [
        ("add_same_shape", lambda a, b: a + b, [img, img], "int8", False, wide, ["ADD"]),
        ("add_broadcast_channel", lambda a, b: a + b, [img, chan], "int8", False, wide, ["ADD"]),
        ("add_broadcast_constant", lambda a: a + constant((3,), 1), [img], "int8", False, wide, ["ADD"]),
        ("add_broadcast_both", lambda a, b: a + b, [(1, 4, 1, 3), (1, 1, 5, 1)], "int8", False, wide, ["ADD"]),
        ("add_relu", lambda a, b: tf.nn.relu(a + b), [img, img], "int8", False, wide, ["ADD"]),
        ("add_scaled_inputs", lambda a, b: a + 4.0 * b, [(1, 6, 5), (1, 6, 5)], "int8", False, wide, ["MUL", "ADD"]),
        ("add_5d_broadcast", lambda a, b: a + b, [(1, 2, 3, 4, 5), (1, 2, 1, 4, 1)], "int8", False, wide, ["ADD"]),
        ("sub_same_shape", lambda a, b: a - b, [img, img], "int8", False, wide, ["SUB"]),
        ("sub_broadcast_relu6", lambda a, b: tf.nn.relu6(a - b), [img, chan], "int8", False, wide, ["SUB"]),
        ("sub_constant", lambda a: constant((1, 4, 1, 1), 2) - a, [img], "int8", False, wide, ["SUB"]),
        ("mul_same_shape", lambda a, b: a * b, [img, img], "int8", False, wide, ["MUL"]),
        ("mul_broadcast", lambda a, b: a * b, [img, (1, 4, 1, 1)], "int8", False, wide, ["MUL"]),
        ("mul_constant_relu", lambda a: tf.nn.relu(a * constant((1, 1, 4, 3), 3)), [img], "int8", False, wide,
         ["MUL"]),
        ("relu_int8", lambda a: tf.nn.relu(a), [(1, 256)], "int8", False, wide, ["RELU"]),
        ("relu6_int8", lambda a: tf.nn.relu6(a), [(1, 256)], "int8", False, (-8.0, 8.0), ["RELU6"]),
        ("leaky_relu_int8", lambda a: tf.nn.leaky_relu(a, alpha=0.2), [(1, 256)], "int8", False, wide,
         ["LEAKY_RELU"]),
        ("logistic_int8", lambda a: tf.sigmoid(a), [(1, 256)], "int8", False, (-8.0, 8.0), ["LOGISTIC"]),
        ("logistic_int8_narrow", lambda a: tf.sigmoid(a), [(1, 2, 64)], "int8", False, (-1.0, 2.0), ["LOGISTIC"]),
        ("tanh_int8", lambda a: tf.tanh(a), [(1, 256)], "int8", False, wide, ["TANH"]),
        ("tanh_int8_wide", lambda a: tf.tanh(a), [(1, 256)], "int8", False, (-12.0, 10.0), ["TANH"]),
        ("softmax_1x10", lambda a: tf.nn.softmax(a), [(1, 10)], "int8", False, wide, ["SOFTMAX"]),
        ("softmax_1x2x3x4", lambda a: tf.nn.softmax(a), [(1, 2, 3, 4)], "int8", False, (-8.0, 8.0), ["SOFTMAX"]),
        ("softmax_1x4", lambda a: tf.nn.softmax(a), [(1, 4)], "int8", False, (-20.0, 20.0), ["SOFTMAX"]),
        ("softmax_1x64_narrow", lambda a: tf.nn.softmax(a), [(1, 64)], "int8", False, (-0.5, 0.5), ["SOFTMAX"]),
        ("quantize_dequantize_add", lambda a, b: a + b, [img, chan], "int8", True, wide,
         ["QUANTIZE", "ADD", "DEQUANTIZE"]),
        ("dequantize_softmax_float_io", lambda a: tf.nn.softmax(a), [(1, 3, 7)], "int8", True, wide,
         ["QUANTIZE", "SOFTMAX", "DEQUANTIZE"]),
        ("add_f32", lambda a, b: a + b, [img, chan], "float32", False, wide, ["ADD"]),
        ("add_relu_f32", lambda a, b: tf.nn.relu(a + b), [img, img], "float32", False, wide, ["ADD"]),
        ("sub_f32", lambda a, b: a - b, [(1, 4, 1, 3), (1, 1, 5, 1)], "float32", False, wide, ["SUB"]),
        ("mul_f32", lambda a, b: a * b, [img, (1, 4, 1, 1)], "float32", False, wide, ["MUL"]),
        ("relu_f32", lambda a: tf.nn.relu(a), [(1, 64)], "float32", False, wide, ["RELU"]),
        ("relu6_f32", lambda a: tf.nn.relu6(a), [(1, 64)], "float32", False, (-4.0, 9.0), ["RELU6"]),
        ("leaky_relu_f32", lambda a: tf.nn.leaky_relu(a, alpha=0.2), [(1, 64)], "float32", False, wide,
         ["LEAKY_RELU"]),
        ("logistic_f32", lambda a: tf.sigmoid(a * 8.0), [(1, 64)], "float32", False, wide, ["LOGISTIC"]),
        ("tanh_f32", lambda a: tf.tanh(a), [(1, 64)], "float32", False, wide, ["TANH"]),
        ("softmax_f32", lambda a: tf.nn.softmax(a), [(1, 2, 10)], "float32", False, wide, ["SOFTMAX"]),
    ]


def keras_function(fn):
    """A build function applying `fn` (TensorFlow ops) to the Keras inputs through a Lambda layer."""
    import tensorflow as tf

    return lambda *inputs: tf.keras.layers.Lambda(lambda xs: fn(*xs))(list(inputs))


def main() -> None:
    failed = []
    for seed, (name, fn, shapes, quantize, float_io, input_range, expected) in enumerate(models()):
        path = convert(keras_function(fn), shapes, name, quantize=quantize, seed=300 + seed, float_io=float_io,
                       input_range=input_range)
        ops = opcodes(path)
        ok = all(op in ops for op in expected)
        print(f"{name}: {ops} {path.stat().st_size} bytes {'ok' if ok else 'MISSING ' + ' '.join(expected)}")
        if not ok:
            failed.append(name)
    if failed:
        raise SystemExit(f"models without their operator: {', '.join(failed)}")


if __name__ == "__main__":
    main()
