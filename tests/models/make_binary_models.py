"""Write the div_*, floor_div_*, floor_mod_*, maximum_*, minimum_*, squared_difference_*, comparison
(equal_*, greater_*, ...), logical_*, select_v2_*, prelu_* and add_n_* test models (fixed seeds).

Run with a Python that has TensorFlow:  /work/tfvenv/bin/python tests/models/make_binary_models.py
Each model is checked to contain the operator it is meant to exercise. Comparisons produce bool
outputs; the logical operators and SELECT_V2 take bools made by comparisons in the model.
The converter keeps ADD_N and NOT_EQUAL in float inside int8 models (*_int8_io); the int8
kernels of those are tested on hand-built models in tests/test_ops_binary.py.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from model_tools import convert, opcodes  # noqa: E402


def models():
    """(name, build function of the Keras inputs, input shapes, quantize, expected opcodes)"""
    import tensorflow as tf

    def lam(fn):
        return lambda *inputs: tf.keras.layers.Lambda(lambda xs: fn(*xs))(list(inputs))

    def constant(shape, seed):
        return tf.constant(np.random.default_rng(seed).uniform(-2.0, 2.0, shape).astype(np.float32))

    def prelu(a):
        layer = tf.keras.layers.PReLU(shared_axes=[1, 2],
                                      alpha_initializer=tf.keras.initializers.RandomUniform(-0.5, 0.5, seed=1))
        return layer(a)

    img, chan, col = (1, 4, 4, 3), (1, 1, 1, 3), (1, 4, 1, 1)
    models = [
        ("div_f32", lam(lambda a, b: a / b), [img, chan], "float32", ["DIV"]),
        ("div_int8", lam(lambda a, b: a / (b * b + 1.0)), [img, img], "int8", ["DIV"]),
        ("floor_div_f32", lam(lambda a, b: tf.math.floordiv(a * 4.0, b)), [img, col], "float32", ["FLOOR_DIV"]),
        ("floor_mod_f32", lam(lambda a, b: tf.math.floormod(a * 4.0, b)), [img, img], "float32", ["FLOOR_MOD"]),
        ("maximum_int8", lam(lambda a, b: tf.maximum(a, b)), [img, chan], "int8", ["MAXIMUM"]),
        ("minimum_int8", lam(lambda a: tf.minimum(a, constant((3,), 1))), [img], "int8", ["MINIMUM"]),
        ("maximum_f32", lam(lambda a, b: tf.maximum(a, b)), [img, col], "float32", ["MAXIMUM"]),
        ("minimum_f32", lam(lambda a, b: tf.minimum(a, b)), [img, img], "float32", ["MINIMUM"]),
        ("squared_difference_int8", lam(lambda a, b: tf.math.squared_difference(a, b)), [img, chan], "int8",
         ["SQUARED_DIFFERENCE"]),
        ("squared_difference_f32", lam(lambda a, b: tf.math.squared_difference(a, b)), [img, img], "float32",
         ["SQUARED_DIFFERENCE"]),
        ("prelu_int8", prelu, [img], "int8", ["PRELU"]),
        ("prelu_f32", prelu, [img], "float32", ["PRELU"]),
        ("add_n_int8_io", lam(lambda a, b, c: tf.math.add_n([a, b, c])), [img, img, img], "int8", ["ADD_N"]),
        ("add_n_f32", lam(lambda a, b, c: tf.math.add_n([a, b, c])), [img, img, img], "float32", ["ADD_N"]),
        ("select_v2_int8", lam(lambda a, b: tf.where(a > b, a, b * 0.5)), [img, chan], "int8", ["SELECT_V2"]),
        ("select_v2_f32", lam(lambda a, b: tf.where(a > 0.0, a, b)), [img, col], "float32", ["SELECT_V2"]),
        ("logical_f32", lam(lambda a, b: tf.logical_or(tf.logical_and(a > 0.0, b < 0.5), a < -1.0)), [img, chan],
         "float32", ["LOGICAL_AND", "LOGICAL_OR"]),
    ]
    for name, fn in [("equal", tf.equal), ("not_equal", tf.not_equal), ("greater", tf.greater),
                     ("greater_equal", tf.greater_equal), ("less", tf.less), ("less_equal", tf.less_equal)]:
        opcode = name.upper()
        # The converter keeps NOT_EQUAL (and ADD_N) in float between DEQUANTIZEs: int8 I/O only.
        models.append((f"{name}_int8{'_io' if name == 'not_equal' else ''}", lam(lambda a, b, fn=fn: fn(a, b)),
                       [img, chan], "int8", [opcode]))
        models.append((f"{name}_f32", lam(lambda a, b, fn=fn: fn(a, b)), [img, col], "float32", [opcode]))
    return models


def main() -> None:
    failed = []
    for seed, (name, build, shapes, quantize, expected) in enumerate(models()):
        try:
            path = convert(build, shapes, name, quantize=quantize, seed=500 + seed)
        except Exception as exc:  # report every model, then fail
            print(f"{name}: conversion failed: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
            failed.append(name)
            continue
        ops = opcodes(path)
        ok = all(op in ops for op in expected)
        print(f"{name}: {ops} {path.stat().st_size} bytes {'ok' if ok else 'MISSING ' + ' '.join(expected)}")
        if not ok:
            failed.append(name)
    if failed:
        raise SystemExit(f"models without their operator: {', '.join(failed)}")


if __name__ == "__main__":
    main()
