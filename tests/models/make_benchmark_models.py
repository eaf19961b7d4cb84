"""Write the benchmark models into benchmarks/models/ (fixed seeds, int8 full-integer quantization).

Run with a Python that has TensorFlow:  /work/tfvenv/bin/python tests/models/make_benchmark_models.py

The three networks the TinyML comparisons use, with the published layer shapes but random weights
(Keras initialisers). Batch normalisation gets random scales and offsets and the statistics it would
have learnt on the random input data (a few training-mode passes): without them the deep layers of
a random network carry only their biases, and every input gives the same output. The random
representative data set then gives every layer a quantization range its activations really use. Too big for tests/models (every model there runs in
the whole Cortex-M suite): tests/test_benchmark_models.py and benchmarks/cortex_m_targets.py use them.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from model_tools import convert, opcodes  # noqa: E402

BENCHMARK_MODELS_DIR = Path(__file__).resolve().parents[2] / "benchmarks" / "models"


def layers():
    import tensorflow as tf

    L = tf.keras.layers
    init = tf.keras.initializers

    def batch_norm():
        return L.BatchNormalization(momentum=0.8, gamma_initializer=init.RandomUniform(0.5, 1.5),
                                    beta_initializer=init.RandomNormal(0.0, 0.2))

    def conv_bn(x, filters, kernel, strides=1, relu="relu"):
        x = L.Conv2D(filters, kernel, strides=strides, padding="same", use_bias=False,
                     kernel_initializer="he_normal")(x)
        x = batch_norm()(x)
        return L.Activation(relu)(x) if relu else x

    def depthwise_separable(x, filters, strides=1, relu="relu"):
        x = L.DepthwiseConv2D(3, strides=strides, padding="same", use_bias=False,
                              depthwise_initializer="he_normal")(x)
        x = L.Activation(relu)(batch_norm()(x))
        return conv_bn(x, filters, 1, relu=relu)

    def classifier(x, classes):
        # A whole-map AVERAGE_POOL_2D, as the reference models have (Keras' global pooling becomes MEAN).
        x = L.Flatten()(L.AveragePooling2D(pool_size=tuple(x.shape[1:3]))(x))
        return L.Dense(classes, activation="softmax")(x)

    return L, conv_bn, depthwise_separable, classifier


def ds_cnn_kws(x):
    """DS-CNN keyword spotting (MLPerf Tiny): 49x10 MFCC, conv 10x4/2 to 64, 4 DS blocks, 12 classes."""
    L, conv_bn, depthwise_separable, classifier = layers()
    x = conv_bn(x, 64, (10, 4), strides=2)
    for _ in range(4):
        x = depthwise_separable(x, 64)
    return classifier(x, 12)


def mobilenet_v1_025_96(x):
    """MobileNetV1 alpha 0.25 at 96x96x3, 2 classes (visual wake words): conv 3x3/2 then 13 DS blocks."""
    L, conv_bn, depthwise_separable, classifier = layers()
    x = conv_bn(x, 8, 3, strides=2, relu="relu6")
    blocks = [(16, 1), (32, 2), (32, 1), (64, 2), (64, 1), (128, 2)] + [(128, 1)] * 5 + [(256, 2), (256, 1)]
    for filters, strides in blocks:
        x = depthwise_separable(x, filters, strides, relu="relu6")
    return classifier(x, 2)


def resnet8_32(x):
    """ResNet-8 (MLPerf Tiny image classification): 32x32x3, stages of 16/32/64 channels, 10 classes."""
    L, conv_bn, _, classifier = layers()
    x = conv_bn(x, 16, 3)
    for filters, strides in ((16, 1), (32, 2), (64, 2)):
        y = conv_bn(x, filters, 3, strides=strides)
        y = conv_bn(y, filters, 3, relu=None)
        if strides != 1:
            x = L.Conv2D(filters, 1, strides=strides, padding="same", kernel_initializer="he_normal")(x)
        x = L.Activation("relu")(L.Add()([x, y]))
    return classifier(x, 10)


def with_learnt_statistics(build, input_range, passes=48):
    """build, followed by training-mode passes over random inputs that set the normalisation statistics."""
    import numpy as np
    import tensorflow as tf

    def built(x):
        out = build(x)
        model = tf.keras.Model(x, out)
        rng = np.random.default_rng(passes)
        for _ in range(passes):
            model(rng.uniform(*input_range, tuple(x.shape)).astype(np.float32), training=True)
        return out

    return built


MODELS = [
    # name, build, input shape, input range of the representative data, operators it must contain
    ("ds_cnn_kws", ds_cnn_kws, (1, 49, 10, 1), (-3.0, 3.0),
     {"CONV_2D", "DEPTHWISE_CONV_2D", "AVERAGE_POOL_2D", "FULLY_CONNECTED", "SOFTMAX"}),
    ("mobilenet_v1_025_96", mobilenet_v1_025_96, (1, 96, 96, 3), (-1.0, 1.0),
     {"CONV_2D", "DEPTHWISE_CONV_2D", "AVERAGE_POOL_2D", "FULLY_CONNECTED", "SOFTMAX"}),
    ("resnet8_32", resnet8_32, (1, 32, 32, 3), (-1.0, 1.0),
     {"CONV_2D", "ADD", "AVERAGE_POOL_2D", "FULLY_CONNECTED", "SOFTMAX"}),
]


def main() -> None:
    for seed, (name, build, shape, input_range, expected) in enumerate(MODELS, start=55):
        path = convert(with_learnt_statistics(build, input_range), [shape], name, seed=seed, input_range=input_range, calibration_samples=100,
                       directory=BENCHMARK_MODELS_DIR)
        ops = opcodes(path)
        missing = expected - set(ops)
        assert not missing, f"{name}: expected {sorted(missing)} in {ops}"
        print(f"{path.name}: {path.stat().st_size} bytes, {len(ops)} operators ({', '.join(sorted(set(ops)))})")


if __name__ == "__main__":
    main()
