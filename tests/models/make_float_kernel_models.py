"""Make the float32 models that exercise USMP's float kernels (kernels/fpu/, kernels/helium/*_f32.c).

Run with a Python that has TensorFlow:  /work/tfvenv/bin/python tests/models/make_float_kernel_models.py

Each reaches the kernels' edge cases: an odd number of output pixels (a lone
last column), output channels that leave a part block (7, 10, 3), windows
whose depth is no multiple of 4 (copied into columns with zero taps), 1x1
layers that read the input directly, depthwise layers with a last group of 4
channels (12 = 8 + 4), padding on every side, strides and dilations, and each
fused activation (none, RELU, RELU6, RELU_N1_TO_1).
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from model_tools import convert_checked  # noqa: E402


def blocks(x):
    import tensorflow as tf

    L = tf.keras.layers
    x = L.Conv2D(7, 3, strides=2, padding="same", activation="relu6")(x)  # 5x5 pixels, depth 45
    x = L.Conv2D(12, 1, activation="relu")(x)  # direct 1x1, 7 inputs: a copied column
    x = L.DepthwiseConv2D(3, padding="same")(x)  # 8 + 4 channels, borders on every side, no activation
    x = L.DepthwiseConv2D(3, strides=2, padding="same", activation="relu")(x)
    x = L.Conv2D(10, 1)(x)  # direct 1x1 (12 inputs), a part block of 2
    return L.Dense(3)(L.Flatten()(x))  # 3 outputs, 90 inputs


def dilated(x):
    import tensorflow as tf

    L = tf.keras.layers
    x = L.Conv2D(8, 3, dilation_rate=2, padding="same", activation="relu")(x)
    x = L.DepthwiseConv2D(3, dilation_rate=2, padding="valid", activation="relu6")(x)
    x = L.DepthwiseConv2D((2, 3), padding="valid")(x)
    return L.Conv2D(5, (3, 2), strides=(1, 2), padding="valid")(x)


def relu_n1_to_1(x):
    """RELU_N1_TO_1 fused into a convolution and a depthwise layer (TFLite fuses a clip to [-1, 1])."""
    import tensorflow as tf

    L = tf.keras.layers
    clip = L.Activation(lambda t: tf.clip_by_value(t, -1.0, 1.0))
    x = clip(L.Conv2D(4, 3, padding="same")(x))
    return clip(L.DepthwiseConv2D(3, padding="same")(x))


def main() -> None:
    failures: list[str] = []
    convert_checked(blocks, [(1, 9, 9, 5)], "float_kernels_blocks", "DEPTHWISE_CONV_2D", failures,
                    quantize="float32", seed=31)
    convert_checked(dilated, [(1, 12, 11, 4)], "float_kernels_dilated", "DEPTHWISE_CONV_2D", failures,
                    quantize="float32", seed=32)
    convert_checked(relu_n1_to_1, [(1, 6, 7, 3)], "float_kernels_relu_n1_to_1", "CONV_2D", failures,
                    quantize="float32", seed=33)
    if failures:
        raise SystemExit("\n".join(failures))


if __name__ == "__main__":
    main()
