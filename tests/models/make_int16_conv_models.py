"""Write the 16x8 fc_*_int16, conv_*_int16 and dwconv_*_int16 test models (fixed seeds).

Run with a Python that has TensorFlow:  /work/tfvenv/bin/python tests/models/make_int16_conv_models.py
int16 activations, int8 weights (TFLite's 16x8 mode, int64 biases). Each model
is checked to contain the operator it is meant to exercise and kept only if
TFLite Micro runs it.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from make_spatial_models import convert_16x8, tflite_micro_runs  # noqa: E402
from model_tools import opcodes  # noqa: E402


def models():
    """(name, build, input shapes, expected opcode)"""
    import tensorflow as tf

    L = tf.keras.layers

    def layer(cls, *args, **kw):
        return lambda x: cls(*args, bias_initializer="random_normal", **kw)(x)

    return [
        ("fc_int16", layer(L.Dense, 6), [(1, 10)], "FULLY_CONNECTED"),
        ("fc_no_bias_int16", lambda x: L.Dense(5, use_bias=False)(x), [(1, 12)], "FULLY_CONNECTED"),
        ("fc_batch3_relu_int16", layer(L.Dense, 7, activation="relu"), [(3, 9)], "FULLY_CONNECTED"),
        ("conv_1x1_int16", layer(L.Conv2D, 4, 1), [(1, 5, 5, 6)], "CONV_2D"),
        ("conv_3x3_same_stride2_relu_int16", layer(L.Conv2D, 5, 3, strides=2, padding="same", activation="relu"),
         [(1, 7, 8, 3)], "CONV_2D"),
        ("conv_dilation2_int16", layer(L.Conv2D, 4, 3, dilation_rate=2, padding="same"), [(1, 7, 7, 3)], "CONV_2D"),
        ("conv_valid_relu6_batch2_int16", layer(L.Conv2D, 3, (2, 3), padding="valid", activation="relu6"),
         [(2, 5, 6, 2)], "CONV_2D"),
        ("dwconv_m2_same_int16", layer(L.DepthwiseConv2D, 3, padding="same", depth_multiplier=2), [(1, 6, 6, 3)],
         "DEPTHWISE_CONV_2D"),
        ("dwconv_stride2_relu_int16", layer(L.DepthwiseConv2D, (3, 2), strides=2, padding="same", activation="relu"),
         [(1, 7, 8, 4)], "DEPTHWISE_CONV_2D"),
        ("dwconv_dilation2_valid_int16", layer(L.DepthwiseConv2D, 3, dilation_rate=2, padding="valid"),
         [(1, 8, 8, 2)], "DEPTHWISE_CONV_2D"),
        ("fc_3d_relu6_int16", layer(L.Dense, 5, activation="relu6"), [(1, 4, 8)], "FULLY_CONNECTED"),
    ]


def main() -> None:
    for seed, (name, build, shapes, opcode) in enumerate(models()):
        path = convert_16x8(build, shapes, name, seed=700 + seed)
        ops = opcodes(path)
        status = "ok" if opcode in ops else f"MISSING {opcode}"
        if not tflite_micro_runs(path):
            path.unlink()
            status = "removed: TFLite Micro does not run it"
        print(f"{name}: {ops} {path.stat().st_size if path.exists() else 0} bytes {status}")


if __name__ == "__main__":
    main()
