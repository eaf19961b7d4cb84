"""Write the add_*_int16, sub_*_int16 and mul_*_int16 test models (fixed seeds).

Run with a Python that has TensorFlow:  /work/tfvenv/bin/python tests/models/make_int16_arith_models.py
The converter's 16x8 mode (int16 activations, symmetric scales, zero points 0)
as make_data_movement_models.py does it; each model is checked to contain the
operator it is meant to exercise. tests/test_ops_int16_arith.py adds hand-built
edge cases the converter does not emit.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from model_tools import convert_checked  # noqa: E402


def models():
    """name -> (function of the inputs, input shapes, operator)"""
    import tensorflow as tf

    def constant(shape, seed):
        return tf.constant(np.random.default_rng(seed).uniform(-2.0, 2.0, shape).astype(np.float32))

    img, chan = (1, 4, 4, 3), (1, 1, 1, 3)
    return {
        "add_same_shape_int16": (lambda a, b: a + b, [img, img], "ADD"),
        "add_broadcast_int16": (lambda a, b: a + b, [(1, 4, 1, 3), (1, 1, 5, 1)], "ADD"),
        "add_relu_int16": (lambda a, b: tf.nn.relu(a + b), [img, chan], "ADD"),
        "add_constant_int16": (lambda a: a + constant((3,), 1), [img], "ADD"),
        "sub_same_shape_int16": (lambda a, b: a - b, [img, img], "SUB"),
        "sub_broadcast_relu6_int16": (lambda a, b: tf.nn.relu6(a - b), [img, chan], "SUB"),
        "mul_same_shape_int16": (lambda a, b: a * b, [img, img], "MUL"),
        "mul_broadcast_int16": (lambda a, b: a * b, [img, (1, 4, 1, 1)], "MUL"),
        "mul_constant_relu_int16": (lambda a: tf.nn.relu(a * constant((1, 1, 4, 3), 3)), [img], "MUL"),
        "mul_add_5d_int16": (lambda a, b: a * b + a, [(1, 2, 3, 4, 5), (1, 2, 1, 4, 1)], "MUL"),
    }


def keras_function(fn):
    """A build function applying `fn` (TensorFlow ops) to the Keras inputs through a Lambda layer."""
    import tensorflow as tf

    return lambda *inputs: tf.keras.layers.Lambda(lambda xs: fn(*xs))(list(inputs))


def main() -> None:
    failures = []
    for name, (fn, shapes, wanted) in models().items():
        convert_checked(keras_function(fn), shapes, name, wanted, failures, quantize="int16", seed=len(name))
    if failures:
        raise SystemExit("\n".join(failures))


if __name__ == "__main__":
    main()
