"""Write the conv_*, dwconv_*, avgpool_* and maxpool_* test models (fixed seeds).

Run with a Python that has TensorFlow:  /work/tfvenv/bin/python tests/models/make_conv_models.py
Each model is checked to contain the operator it is meant to exercise.
"""
from __future__ import annotations

import contextlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from model_tools import convert, opcodes  # noqa: E402


@contextlib.contextmanager
def per_tensor_weights():
    """Make the converter quantize weights per tensor instead of per channel."""
    import tensorflow as tf

    cls = tf.lite.TFLiteConverter
    original = cls.from_keras_model

    def patched(model):
        converter = original(model)
        converter._experimental_disable_per_channel = True
        return converter

    cls.from_keras_model = staticmethod(patched)
    try:
        yield
    finally:
        cls.from_keras_model = staticmethod(original)


def models():
    """(name, build, input shapes, quantize, expected opcode, per-tensor weights)"""
    import tensorflow as tf

    L = tf.keras.layers

    def conv(*args, **kw):
        return lambda x: L.Conv2D(*args, bias_initializer="random_normal", **kw)(x)

    def dwconv(*args, **kw):
        return lambda x: L.DepthwiseConv2D(*args, bias_initializer="random_normal", **kw)(x)

    def relu_n1_to_1(layer):
        return lambda x: tf.keras.ops.clip(layer(x), -1.0, 1.0)

    return [
        ("conv_3x3_same_relu", conv(8, 3, padding="same", activation="relu"), [(1, 8, 8, 3)], "int8", "CONV_2D", False),
        ("conv_valid_stride2_relu6", conv(6, 3, strides=2, padding="valid", activation="relu6"), [(1, 9, 7, 4)],
         "int8", "CONV_2D", False),
        ("conv_dilation2", conv(5, 3, dilation_rate=2, padding="same"), [(1, 9, 9, 3)], "int8", "CONV_2D", False),
        ("conv_1x1", conv(4, 1), [(1, 6, 6, 8)], "int8", "CONV_2D", False),
        ("conv_no_bias", lambda x: L.Conv2D(4, 3, strides=2, padding="same", use_bias=False)(x), [(1, 8, 8, 3)],
         "int8", "CONV_2D", False),
        ("conv_4x4_same_stride2_relu_n1_to_1", relu_n1_to_1(conv(5, 4, strides=2, padding="same")), [(1, 8, 7, 3)],
         "int8", "CONV_2D", False),
        ("conv_per_tensor", conv(6, 3, padding="same", activation="relu"), [(1, 7, 7, 3)], "int8", "CONV_2D", True),
        ("conv_grouped", conv(6, 3, padding="same", groups=2), [(1, 6, 6, 4)], "int8", "CONV_2D", False),
        ("conv_f32", conv(6, 3, strides=(2, 1), padding="same", activation="relu"), [(1, 9, 7, 3)], "float32",
         "CONV_2D", False),
        ("conv_dilation2_f32", conv(4, 3, dilation_rate=2, padding="same"), [(1, 8, 8, 3)], "float32",
         "CONV_2D", False),
        ("dwconv_m1_same_relu", dwconv(3, padding="same", activation="relu"), [(1, 8, 8, 4)], "int8",
         "DEPTHWISE_CONV_2D", False),
        ("dwconv_m2_valid_stride2", dwconv(3, strides=2, padding="valid", depth_multiplier=2), [(1, 9, 7, 3)],
         "int8", "DEPTHWISE_CONV_2D", False),
        ("dwconv_m2_same_stride2_relu6", dwconv((4, 3), strides=2, padding="same", depth_multiplier=2,
                                               activation="relu6"), [(1, 8, 9, 3)], "int8", "DEPTHWISE_CONV_2D", False),
        ("dwconv_dilation2", dwconv(3, dilation_rate=2, padding="same"), [(1, 9, 9, 4)], "int8",
         "DEPTHWISE_CONV_2D", False),
        ("dwconv_micro_speech_like", dwconv((10, 8), strides=2, padding="same", depth_multiplier=8, activation="relu"),
         [(1, 49, 40, 1)], "int8", "DEPTHWISE_CONV_2D", False),
        ("dwconv_per_tensor", dwconv(3, padding="same", depth_multiplier=2), [(1, 6, 6, 3)], "int8",
         "DEPTHWISE_CONV_2D", True),
        ("dwconv_f32", dwconv(3, strides=2, padding="same", depth_multiplier=2, activation="relu6"), [(1, 9, 7, 3)],
         "float32", "DEPTHWISE_CONV_2D", False),
        ("avgpool_same", lambda x: L.AveragePooling2D(3, strides=2, padding="same")(x), [(1, 7, 9, 3)], "int8",
         "AVERAGE_POOL_2D", False),
        ("avgpool_same_stride1", lambda x: L.AveragePooling2D((2, 3), strides=1, padding="same")(x), [(1, 5, 6, 4)],
         "int8", "AVERAGE_POOL_2D", False),
        ("avgpool_valid", lambda x: L.AveragePooling2D(2, padding="valid")(x), [(1, 8, 8, 4)], "int8",
         "AVERAGE_POOL_2D", False),
        ("avgpool_f32", lambda x: L.AveragePooling2D(3, strides=2, padding="same")(x), [(1, 7, 9, 3)], "float32",
         "AVERAGE_POOL_2D", False),
        ("maxpool_same_stride2", lambda x: L.MaxPooling2D(3, strides=2, padding="same")(x), [(1, 9, 7, 3)], "int8",
         "MAX_POOL_2D", False),
        ("maxpool_valid", lambda x: L.MaxPooling2D((2, 3), strides=(2, 1), padding="valid")(x), [(1, 8, 7, 5)], "int8",
         "MAX_POOL_2D", False),
        ("maxpool_f32", lambda x: L.MaxPooling2D(3, strides=2, padding="same")(x), [(1, 9, 7, 3)], "float32",
         "MAX_POOL_2D", False),
    ]


# Calibration ranges giving the input a large zero point, so that the zero-point
# term TFLite leaves out for padded taps is large too (micro_speech's is -128).
INPUT_RANGES = {"dwconv_micro_speech_like": (0.0, 6.0), "conv_1x1": (-3.0, 3.0)}
SHIFTED_RANGE = (-1.0, 5.0)


def main() -> None:
    for seed, (name, build, shapes, quantize, opcode, per_tensor) in enumerate(models()):
        input_range = INPUT_RANGES.get(name, SHIFTED_RANGE if name.startswith(("conv_", "dwconv_")) else (-3.0, 3.0))
        with per_tensor_weights() if per_tensor else contextlib.nullcontext():
            path = convert(build, shapes, name, quantize=quantize, seed=100 + seed, input_range=input_range)
        ops = opcodes(path)
        status = "ok" if opcode in ops else f"MISSING {opcode}"
        print(f"{name}: {ops} {path.stat().st_size} bytes {status}")


if __name__ == "__main__":
    main()
