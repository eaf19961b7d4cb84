"""Write the tests/models/tiling/ models: chains of window operators for the depth-first pass (fixed seeds).

Run with a Python that has TensorFlow:  /work/tfvenv/bin/python tests/models/make_tiling_models.py
Each chain mixes strides, dilation, SAME/VALID padding, depth multipliers and
pools, so that band borders fall on every kind of window edge.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from model_tools import MODELS_DIR, convert, opcodes  # noqa: E402


def models():
    """(name, build, input shapes, quantize)"""
    import tensorflow as tf

    L = tf.keras.layers

    def chain(x):
        x = L.Conv2D(8, 3, padding="same", activation="relu", bias_initializer="random_normal")(x)
        x = L.DepthwiseConv2D(3, strides=2, padding="same", activation="relu6", bias_initializer="random_normal")(x)
        x = L.Conv2D(8, 1, bias_initializer="random_normal")(x)
        x = L.MaxPooling2D((3, 2), strides=(1, 1), padding="valid")(x)
        x = L.Conv2D(6, 3, dilation_rate=2, padding="same", bias_initializer="random_normal")(x)
        return L.AveragePooling2D(3, strides=1, padding="same")(x)

    def valid_chain(x):
        x = L.DepthwiseConv2D((5, 3), depth_multiplier=2, padding="valid", bias_initializer="random_normal")(x)
        x = L.Conv2D(4, (4, 3), strides=(2, 1), padding="same", activation="relu", bias_initializer="random_normal")(x)
        return L.DepthwiseConv2D(3, padding="valid", dilation_rate=(2, 1), bias_initializer="random_normal")(x)

    def pooled_chain(x):
        """A keyword-spotter tail: the chain ends in a global average pool (AVERAGE_POOL_2D)."""
        x = L.Conv2D(8, (4, 3), strides=(2, 1), padding="same", activation="relu", bias_initializer="random_normal")(x)
        x = L.DepthwiseConv2D(3, padding="same", activation="relu", bias_initializer="random_normal")(x)
        x = L.Conv2D(8, 1, activation="relu", bias_initializer="random_normal")(x)
        return L.AveragePooling2D((7, 4))(x)

    def mean_chain(x):
        """The same ending as a MEAN over height and width (Keras GlobalAveragePooling2D), then a classifier."""
        x = L.Conv2D(6, 3, padding="same", activation="relu", bias_initializer="random_normal")(x)
        x = L.DepthwiseConv2D(3, strides=2, padding="same", activation="relu", bias_initializer="random_normal")(x)
        x = L.GlobalAveragePooling2D()(x)
        return L.Dense(3)(x)

    def sum_chain(x):
        x = L.Conv2D(5, 3, padding="valid", bias_initializer="random_normal")(x)
        x = L.DepthwiseConv2D(3, padding="same", bias_initializer="random_normal")(x)
        return L.Lambda(lambda t: tf.reduce_sum(t, axis=[1, 2]))(x)

    def residual(x):
        """Two ResNet blocks: an identity skip, then a strided one with a 1x1 projection; relu after each join."""
        x = L.Conv2D(6, 3, padding="same", activation="relu", bias_initializer="random_normal")(x)
        y = L.Conv2D(6, 3, padding="same", activation="relu", bias_initializer="random_normal")(x)
        y = L.Conv2D(6, 3, padding="same", bias_initializer="random_normal")(y)
        x = L.ReLU()(L.Add()([x, y]))
        y = L.Conv2D(8, 3, strides=2, padding="same", activation="relu", bias_initializer="random_normal")(x)
        y = L.Conv2D(8, 3, padding="same", bias_initializer="random_normal")(y)
        x = L.Conv2D(8, 1, strides=2, bias_initializer="random_normal")(x)
        x = L.ReLU()(L.Add()([x, y]))
        return L.AveragePooling2D((5, 4))(x)

    def activations_chain(x):
        """Activations as operators of their own between convolutions (as models with unfused layers have)."""
        x = L.Conv2D(6, 3, padding="same", bias_initializer="random_normal")(x)
        x = L.LeakyReLU(0.2)(x)
        x = L.DepthwiseConv2D(3, padding="same", bias_initializer="random_normal")(x)
        x = L.Activation("sigmoid")(x)
        x = L.Conv2D(6, 3, strides=2, padding="same", bias_initializer="random_normal")(x)
        x = L.Activation("tanh")(x)
        x = L.Activation("hard_swish")(L.Conv2D(4, 1, bias_initializer="random_normal")(x))
        return L.Conv2D(4, 3, padding="same", bias_initializer="random_normal")(x)

    def padded_chain(x):
        """Explicit PAD operators in the chain: MobileNet's ZeroPadding2D before a strided VALID depthwise,
        and a channel pad (as a projection-free skip would need)."""
        x = L.Conv2D(4, 3, padding="same", activation="relu", bias_initializer="random_normal")(x)
        x = L.ZeroPadding2D(((0, 1), (0, 1)))(x)
        x = L.DepthwiseConv2D(3, strides=2, padding="valid", activation="relu", bias_initializer="random_normal")(x)
        x = L.Lambda(lambda t: tf.pad(t, [[0, 0], [2, 1], [1, 0], [1, 3]]))(x)
        return L.Conv2D(5, 3, padding="valid", bias_initializer="random_normal")(x)

    return [
        ("chain_int8", chain, [(1, 16, 10, 3)], "int8"),
        ("chain_f32", chain, [(1, 16, 10, 3)], "float32"),
        ("valid_chain_int8", valid_chain, [(1, 19, 6, 2)], "int8"),
        ("pooled_chain_int8", pooled_chain, [(1, 13, 4, 1)], "int8"),
        ("pooled_chain_f32", pooled_chain, [(1, 13, 4, 1)], "float32"),
        ("mean_chain_int8", mean_chain, [(1, 12, 7, 2)], "int8"),
        ("mean_chain_f32", mean_chain, [(1, 12, 7, 2)], "float32"),
        ("sum_chain_int8", sum_chain, [(1, 9, 6, 2)], "int8"),
        ("sum_chain_f32", sum_chain, [(1, 9, 6, 2)], "float32"),
        ("residual_int8", residual, [(1, 10, 8, 2)], "int8"),
        ("residual_f32", residual, [(1, 10, 8, 2)], "float32"),
        ("activations_chain_int8", activations_chain, [(1, 12, 6, 2)], "int8"),
        ("activations_chain_f32", activations_chain, [(1, 12, 6, 2)], "float32"),
        ("padded_chain_int8", padded_chain, [(1, 11, 9, 2)], "int8"),
        ("padded_chain_f32", padded_chain, [(1, 11, 9, 2)], "float32"),
    ]


def main() -> None:
    (MODELS_DIR / "tiling").mkdir(exist_ok=True)
    for seed, (name, build, shapes, quantize) in enumerate(models()):
        path = convert(build, shapes, f"tiling/{name}", quantize=quantize, seed=300 + seed, input_range=(-1.0, 5.0))
        print(f"{name}: {opcodes(path)} {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
