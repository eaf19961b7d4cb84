"""Make the benchmark models: the common small-vision and keyword-spotting architectures (fixed seeds).

Run with a Python that has TensorFlow:  python tests/models/make_benchmark_models.py [TYPE ...]
(TYPE int8, int16 or float32; default all three)

Written to benchmarks/models/ (full-integer post-training quantization with
random calibration data; random Keras-initialised weights, so the figures
measure the architecture, not a trained model). int8 makes the models below;
int16 makes their int16x8 twins, <name>_int16.tflite: the same Keras models
with the same seeds, converted with 16-bit activations and 8-bit weights
(EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8, int64 biases,
int16 input and output), plus the int16x8 models below the list.

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

int16 only (their int8 counterparts are micro_speech_quantized.tflite, TFLite
Micro's, and ds_cnn_kws.tflite, the same layers and MACs):

- micro_speech_int16: TFLite Micro's micro_speech architecture (its
  micro_speech_quantized.tflite): a 1960-value input reshaped to 49x40x1, a
  10x8 stride-2 depthwise convolution with depth multiplier 8 and ReLU, a
  4-way fully connected layer and a softmax.
- ds_cnn_s_mlzoo_int16: Arm ML-zoo's int16 DS-CNN small (ds_cnn_s_quantized_int16.tflite,
  keyword_spotting/ds_cnn_small) rebuilt from its published recipe, since
  the zoo's file is only a Git LFS pointer in the snapshot we have:
  model_core_utils/models.py's create_ds_cnn_model with model_size_info
  5 64 10 4 2 2 64 3 3 1 1 (x4): a flat 490-value input (49 frames x 10 MFCC)
  reshaped in the graph, convolutions and depthwise convolutions with biases,
  batch norm and ReLU, an average pool over the whole 25x5 map, a reshape and
  a 12-way dense softmax; converted as its convert_to_tflite.py does for
  --inference_type int16 (Optimize.DEFAULT, the int16x8 ops set, int16 input
  and output). The zoo calibrates with speech-command MFCCs and loads trained
  weights; here the weights are random (seed 600) and the calibration data
  uniform in [-1, 1], which changes the numbers, not the operators or shapes.
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


def micro_speech(x):
    import tensorflow as tf

    L = tf.keras.layers
    x = L.Reshape((49, 40, 1))(x)
    x = L.DepthwiseConv2D((10, 8), strides=2, depth_multiplier=8, padding="same", activation="relu")(x)
    return L.Softmax()(L.Dense(4)(L.Flatten()(x)))


def ds_cnn_s_mlzoo(x):
    """ML-zoo's create_ds_cnn_model for model_size_info 5 64 10 4 2 2 64 3 3 1 1 (x4), 49x10 MFCCs."""
    import tensorflow as tf

    L = tf.keras.layers
    x = L.Reshape((49, 10, 1))(x)
    x = L.Conv2D(64, (10, 4), strides=(2, 2), padding="same")(x)
    x = L.ReLU()(L.BatchNormalization()(x))
    for _ in range(4):
        x = L.DepthwiseConv2D((3, 3), strides=(1, 1), padding="same")(x)
        x = L.ReLU()(L.BatchNormalization()(x))
        x = L.Conv2D(64, (1, 1))(x)
        x = L.ReLU()(L.BatchNormalization()(x))
    x = L.AveragePooling2D(pool_size=(25, 5), strides=1)(x)
    x = L.Reshape((64,))(x)
    return L.Softmax()(L.Dense(12)(x))  # the zoo's Dense(activation="softmax"), as two layers for unit_variance


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
# (name, Keras builder, input shape, seed); the seed is the conversion's, unit_variance's is its index
MODELS = [("ds_cnn_kws", ds_cnn, (1, 49, 10, 1), 500), ("mobilenet_v1_025_96", mobilenet_v1_025, (1, 96, 96, 3), 501),
          ("resnet8_32", resnet8, (1, 32, 32, 3), 502)]
INT16_ONLY = [("micro_speech", micro_speech, (1, 1960), 503), ("ds_cnn_s_mlzoo", ds_cnn_s_mlzoo, (1, 490), 600)]


def main(types: list[str]) -> None:
    import tensorflow as tf

    BENCHMARKS.mkdir(exist_ok=True)
    jobs = [(m, "int8") for m in MODELS] if "int8" in types else []
    jobs += [(m, "int16") for m in MODELS + INT16_ONLY] if "int16" in types else []
    jobs += [(m, "float32") for m in MODELS if m[0] in FLOAT32_TWINS] if "float32" in types else []
    for (name, build, shape, seed), quantize in jobs:
        tf.keras.backend.clear_session()
        stem = name + {"int8": "", "int16": "_int16", "float32": "_f32"}[quantize]
        path = convert(build, [shape], f"../../benchmarks/models/{stem}", quantize=quantize, seed=seed,
                       input_range=(-1.0, 1.0), prepare=lambda model, k=seed - 500: unit_variance(model, k))
        print(f"{path.name}: {len(opcodes(path))} operators, {path.stat().st_size} bytes")


if __name__ == "__main__":
    main(sys.argv[1:] or ["int8", "int16", "float32"])
