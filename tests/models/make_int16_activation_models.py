"""Write the int16 ("16x8") activation and pooling test models: leaky_relu_int16, max_pool_int16,
avg_pool_int16, logistic_int16, tanh_int16, softmax_int16, a chain of them, relu_int16 and
relu6_int16 (fixed seeds).

Run with a Python that has TensorFlow:  /work/tfvenv/bin/python tests/models/make_int16_activation_models.py
All come from TensorFlow's 16x8 post-training quantization (convert_16x8 in make_spatial_models.py),
so they carry the scales the converter chooses; each is checked to contain its operators.
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from make_spatial_models import convert_16x8  # noqa: E402
from model_tools import opcodes  # noqa: E402


def models():
    """(name, function of the input, input shape, expected opcodes)"""
    import tensorflow as tf

    layers = tf.keras.layers

    def fn(f):
        """TensorFlow ops applied to the Keras input through a Lambda layer."""
        return lambda a: layers.Lambda(f)(a)

    image = (1, 6, 7, 3)
    return [
        ("leaky_relu_int16", fn(lambda a: tf.nn.leaky_relu(a, alpha=0.2)), (1, 8, 32), ["LEAKY_RELU"]),
        ("max_pool_int16", layers.MaxPool2D(3, strides=2, padding="same"), image, ["MAX_POOL_2D"]),
        ("avg_pool_int16", layers.AveragePooling2D(2, strides=1, padding="same"), image, ["AVERAGE_POOL_2D"]),
        ("avg_pool_valid_relu_int16", fn(lambda a: tf.nn.relu(tf.nn.avg_pool2d(a, 3, 2, "VALID"))), image,
         ["AVERAGE_POOL_2D"]),
        ("logistic_int16", fn(tf.sigmoid), (1, 8, 32), ["LOGISTIC"]),
        ("tanh_int16", fn(tf.tanh), (1, 8, 32), ["TANH"]),
        ("softmax_int16", fn(tf.nn.softmax), (4, 40), ["SOFTMAX"]),
        ("pool_activation_chain_int16",
         fn(lambda a: tf.tanh(tf.nn.max_pool2d(tf.nn.leaky_relu(tf.nn.avg_pool2d(a, 2, 1, "SAME"), 0.1), 2, 2,
                                               "VALID"))),
         image, ["AVERAGE_POOL_2D", "LEAKY_RELU", "MAX_POOL_2D", "TANH"]),
        ("relu_int16", fn(tf.nn.relu), (1, 8, 32), ["RELU"]),
        ("relu6_int16", fn(tf.nn.relu6), (1, 8, 32), ["RELU6"]),
    ]


def main() -> None:
    for seed, (name, build, shape, expected) in enumerate(models()):
        path = convert_16x8(build, [shape], name, seed=700 + seed)
        ops = opcodes(path)
        status = "ok" if all(op in ops for op in expected) else f"MISSING {expected}"
        print(f"{name}: {ops} {path.stat().st_size} bytes {status}")


if __name__ == "__main__":
    main()
