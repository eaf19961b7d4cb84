"""Make the benchmark models: the common small-vision and keyword-spotting architectures (fixed seeds).

Run with a Python that has TensorFlow:  /work/tfvenv/bin/python tests/models/make_benchmark_models.py [TYPE ...]
(TYPE int8 or float32; default both)

Written to benchmarks/models/ (int8, full-integer post-training quantization
with random calibration data; random Keras-initialised weights, so the
figures measure the architecture, not a trained model):

- ds_cnn_kws: a DS-CNN keyword spotter as in Arm's ML-KWS and MLPerf Tiny:
  49x10 MFCC input, a 10x4 stride-2 convolution to 64 channels, 4
  depthwise-separable blocks (3x3 depthwise + 1x1, 64 channels, batch norm
  folded, ReLU), a global average pool and a 12-way classifier.
- mobilenet_v1_025_96: MobileNetV1 with width 0.25 at 96x96x3 (the visual
  wake words class): the standard 13 depthwise-separable blocks, ReLU6, a
  global average pool and 2 classes.
- resnet8_32: MLPerf Tiny's ResNet-8 for 32x32x3 images: 16/32/64 channels,
  three residual stages (the last two strided, with 1x1 projections), an
  8x8 average pool and 10 classes.

float32 twins of DS-CNN and MobileNetV1 (ds_cnn_kws_f32, mobilenet_v1_025_96_f32: the same architecture,
seed and weights, converted without quantization) measure the float kernels.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from model_tools import MODELS_DIR, convert, opcodes  # noqa: E402

BENCHMARKS = MODELS_DIR.parents[1] / "benchmarks" / "models"


def ds_cnn(x):
    import tensorflow as tf

    L = tf.keras.layers
    x = L.Conv2D(64, (10, 4), strides=2, padding="same", use_bias=False)(x)
    x = L.ReLU()(L.BatchNormalization()(x))
    for _ in range(4):
        x = L.DepthwiseConv2D(3, padding="same", use_bias=False)(x)
        x = L.ReLU()(L.BatchNormalization()(x))
        x = L.Conv2D(64, 1, use_bias=False)(x)
        x = L.ReLU()(L.BatchNormalization()(x))
    x = L.AveragePooling2D((25, 5))(x)
    return L.Softmax()(L.Dense(12)(L.Flatten()(x)))  # separate, so that unit_variance scales the logits


def mobilenet_v1_025(x):
    import tensorflow as tf

    L = tf.keras.layers

    def conv_bn(x, filters, stride):
        x = L.Conv2D(filters, 3, strides=stride, padding="same", use_bias=False)(x)
        return L.ReLU(6.0)(L.BatchNormalization()(x))

    def separable(x, filters, stride):
        x = L.DepthwiseConv2D(3, strides=stride, padding="same", use_bias=False)(x)
        x = L.ReLU(6.0)(L.BatchNormalization()(x))
        x = L.Conv2D(filters, 1, use_bias=False)(x)
        return L.ReLU(6.0)(L.BatchNormalization()(x))

    x = conv_bn(x, 8, 2)
    for filters, stride in ((16, 1), (32, 2), (32, 1), (64, 2), (64, 1), (128, 2), (128, 1), (128, 1), (128, 1),
                            (128, 1), (128, 1), (256, 2), (256, 1)):
        x = separable(x, filters, stride)
    x = L.GlobalAveragePooling2D()(x)
    return L.Softmax()(L.Dense(2)(x))


def resnet8(x):
    import tensorflow as tf

    L = tf.keras.layers

    def conv(x, filters, stride=1, kernel=3):
        return L.BatchNormalization()(L.Conv2D(filters, kernel, strides=stride, padding="same")(x))

    x = L.ReLU()(conv(x, 16))
    y = L.ReLU()(conv(x, 16))
    x = L.ReLU()(L.Add()([x, conv(y, 16)]))
    for filters in (32, 64):
        y = L.ReLU()(conv(x, filters, 2))
        y = conv(y, filters)
        x = L.Conv2D(filters, 1, strides=2, padding="same")(x)
        x = L.ReLU()(L.Add()([x, y]))
    x = L.AveragePooling2D(8)(x)
    return L.Softmax()(L.Dense(10)(L.Flatten()(x)))


def unit_variance(model, seed: int) -> None:
    """Scale each layer's weights so its output has unit variance on random inputs (LSUV initialisation):
    random weights alone let the activations of a deep network fade to nothing."""
    import numpy as np
    import tensorflow as tf

    x = np.random.default_rng(seed).uniform(-1.0, 1.0, (8, *model.inputs[0].shape[1:])).astype(np.float32)
    for layer in model.layers:
        if not isinstance(layer, (tf.keras.layers.Conv2D, tf.keras.layers.Dense)):
            continue  # DepthwiseConv2D is a Conv2D in Keras
        std = float(np.std(tf.keras.Model(model.inputs, layer.output)(x).numpy()))
        if std > 0:
            layer.set_weights([w / std for w in layer.get_weights()])


FLOAT32_TWINS = ("ds_cnn_kws", "mobilenet_v1_025_96")


def main(types: list[str]) -> None:
    import tensorflow as tf

    BENCHMARKS.mkdir(exist_ok=True)
    for seed, (name, build, shape) in enumerate([("ds_cnn_kws", ds_cnn, (1, 49, 10, 1)),
                                                 ("mobilenet_v1_025_96", mobilenet_v1_025, (1, 96, 96, 3)),
                                                 ("resnet8_32", resnet8, (1, 32, 32, 3))]):
        for quantize in types:
            if quantize == "float32" and name not in FLOAT32_TWINS:
                continue
            tf.keras.backend.clear_session()
            suffix = "" if quantize == "int8" else "_f32"
            path = convert(build, [shape], f"../../benchmarks/models/{name}{suffix}", quantize=quantize,
                           seed=500 + seed, input_range=(-1.0, 1.0), prepare=lambda model: unit_variance(model, seed))
            print(f"{path.name}: {len(opcodes(path))} operators, {path.stat().st_size} bytes")


if __name__ == "__main__":
    main(sys.argv[1:] or ["int8", "float32"])
