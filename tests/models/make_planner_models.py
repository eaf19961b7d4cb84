"""Make the branching test models of the memory planner (run with /work/tfvenv/bin/python).

planner_branchy_fc: two wide fully-connected branches joined by a concatenation;
the operator order decides whether both wide tensors are live at once, which
is what `--reorder` improves.
"""
from __future__ import annotations

from model_tools import convert, opcodes


def branchy_fc(x):
    import tensorflow as tf

    a = tf.keras.layers.Dense(8)(tf.keras.layers.Dense(256, activation="relu")(x))
    b = tf.keras.layers.Dense(8)(tf.keras.layers.Dense(192, activation="relu")(x))
    c = tf.keras.layers.Dense(8)(tf.keras.layers.Dense(128, activation="relu")(x))
    return tf.keras.layers.Dense(4)(tf.keras.layers.Concatenate()([a, b, c]))


if __name__ == "__main__":
    for quantize, suffix in (("int8", ""), ("float32", "_f32")):
        path = convert(branchy_fc, [(1, 32)], f"planner_branchy_fc{suffix}", quantize=quantize, seed=3)
        print(path.name, opcodes(path))
