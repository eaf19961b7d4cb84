"""Write the float16-weight test models into tests/models/float16/ (fixed seeds).

Run with a Python that has TensorFlow:  /work/tfvenv/bin/python tests/models/make_float16_models.py
The converter stores their weights as float16 and expands each with a
DEQUANTIZE. TFLite Micro cannot run them, so they live in their own folder
with their own test (tests/test_float16_weights.py, against LiteRT).
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from model_tools import convert, opcodes  # noqa: E402


def models():
    """(name, build, input shapes)"""
    import tensorflow as tf

    L = tf.keras.layers

    def conv_net(x):
        x = L.Conv2D(4, 3, padding="same", activation="relu", bias_initializer="random_normal")(x)
        x = L.DepthwiseConv2D(3, padding="valid", bias_initializer="random_normal")(x)
        x = L.AveragePooling2D(2)(x)
        return L.Dense(3, bias_initializer="random_normal")(L.Flatten()(x))

    def fc_net(x):
        x = L.Dense(12, activation="relu", bias_initializer="random_normal")(x)
        return L.Softmax()(L.Dense(5, bias_initializer="random_normal")(x))

    def add_constant(x):  # a float16 constant operand of an elementwise operator
        return L.Add()([x, tf.constant(((0.5, -1.25, 2.0, 0.125),), tf.float32)])

    return [
        ("conv_net_f16", conv_net, [(1, 8, 8, 2)]),
        ("fc_net_f16", fc_net, [(1, 10)]),
        ("add_constant_f16", add_constant, [(1, 4)]),
    ]


def main() -> None:
    for name, build, shapes in models():
        path = convert(build, shapes, f"float16/{name}", quantize="float16", seed=11)
        ops = opcodes(path)
        assert "DEQUANTIZE" in ops, (name, ops)
        print(f"{path.name}: {path.stat().st_size} bytes, {ops}")


if __name__ == "__main__":
    main()
