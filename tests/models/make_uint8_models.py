"""Make the uint8 (asymmetric, per-tensor) test models in tests/models/uint8/.

    .venv/bin/python tests/models/make_uint8_models.py   (needs tensorflow-cpu)

The legacy quantization TensorFlow 1 did for Coral and the first MobileNets:
a graph with fake-quantization nodes (fixed ranges) converted with
inference_type=uint8, so every tensor, weights included, is uint8 with its
own zero point and int32 biases. Weights are drawn with fixed seeds. TFLite
Micro does not run uint8 models; the tests compare with LiteRT.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from model_tools import MODELS_DIR, opcodes  # noqa: E402

OUT = MODELS_DIR / "uint8"


def fq(tf, x, lo, hi):
    return tf.quantization.fake_quant_with_min_max_args(x, lo, hi)


def weights(tf, rng, shape, spread, lo, hi):
    """Weights through a fake-quant node of an asymmetric range (so their zero point is not 128)."""
    return fq(tf, tf.constant(rng.normal(0, spread, shape).astype(np.float32)), lo, hi)


def mobilenet_block(tf, rng, x):
    """CONV_2D (stride 2, RELU6) -> DEPTHWISE_CONV_2D (multiplier 2) -> CONV_2D 1x1 -> AVERAGE_POOL_2D ->
    RESHAPE -> FULLY_CONNECTED -> SOFTMAX, as in a MobileNet."""
    bias = lambda n: tf.constant(rng.normal(0, 0.2, n).astype(np.float32))  # noqa: E731
    x = tf.nn.conv2d(x, weights(tf, rng, (3, 3, 3, 8), 0.3, -0.7, 0.9), 2, "SAME") + bias(8)
    x = fq(tf, tf.nn.relu6(x), 0.0, 6.0)
    x = tf.nn.depthwise_conv2d(x, weights(tf, rng, (3, 3, 8, 2), 0.4, -1.1, 0.8), [1, 1, 1, 1], "SAME") + bias(16)
    x = fq(tf, tf.nn.relu6(x), 0.0, 6.0)
    x = tf.nn.conv2d(x, weights(tf, rng, (1, 1, 16, 12), 0.3, -0.6, 0.7), 1, "VALID") + bias(12)
    x = fq(tf, tf.nn.relu6(x), 0.0, 6.0)
    x = fq(tf, tf.nn.avg_pool2d(x, 4, 4, "VALID"), 0.0, 6.0)
    x = tf.reshape(x, (1, -1))
    x = fq(tf, tf.matmul(x, weights(tf, rng, (12, 10), 0.3, -0.9, 0.6)) + bias(10), -6.0, 6.0)
    return fq(tf, tf.nn.softmax(x), 0.0, 255.0 / 256.0)


def residual_block(tf, rng, x):
    """CONV_2D twice, ADD, CONCATENATION (shared range), MAX_POOL_2D, PAD, AVERAGE_POOL_2D with padding (SAME)."""
    a = fq(tf, tf.nn.conv2d(x, weights(tf, rng, (3, 3, 3, 4), 0.3, -0.8, 0.8), 1, "SAME"), -4.0, 4.0)
    b = fq(tf, tf.nn.conv2d(x, weights(tf, rng, (1, 1, 3, 4), 0.5, -1.0, 1.3), 1, "SAME"), -4.0, 4.0)
    s = fq(tf, a + b, -6.0, 6.0)
    c = tf.concat([s, fq(tf, a - b, -6.0, 6.0)], axis=3)
    m = tf.nn.max_pool2d(c, 2, 2, "VALID")
    p = tf.pad(m, [[0, 0], [1, 0], [0, 1], [0, 0]])
    return fq(tf, tf.nn.avg_pool2d(p, 3, 2, "SAME"), -6.0, 6.0)


def fully_connected(tf, rng, x):
    """RESHAPE and a uint8 FULLY_CONNECTED."""
    x = tf.reshape(x, (1, -1))
    return fq(tf, tf.matmul(x, weights(tf, rng, (192, 6), 0.1, -0.3, 0.2)), -3.0, 3.0)


def upsample(tf, rng, x):
    """CONV_2D, then RESIZE_BILINEAR to 13x13 (LiteRT's uint8 interpolation is in float), as DeepLab ends."""
    x = fq(tf, tf.nn.conv2d(x, weights(tf, rng, (3, 3, 3, 6), 0.4, -0.9, 1.1), 1, "SAME"), -3.0, 3.0)
    y = tf.compat.v1.image.resize_bilinear(x, (13, 13))
    z = tf.compat.v1.image.resize_bilinear(x, (11, 5), align_corners=True)
    return fq(tf, y, -3.0, 3.0), fq(tf, z, -3.0, 3.0)


def convert(make, seed: int) -> Path:
    import tensorflow as tf

    tf1 = tf.compat.v1
    graph = tf1.Graph()
    with graph.as_default():
        rng = np.random.default_rng(seed)
        x = tf1.placeholder(tf.float32, (1, 8, 8, 3), name="input")
        results = make(tf, rng, fq(tf, x, -1.0, 1.0))
        results = results if isinstance(results, tuple) else (results,)
        outputs = [tf.identity(r, name=f"output{k}" if k else "output") for k, r in enumerate(results)]
        with tf1.Session(graph=graph) as session:
            converter = tf1.lite.TFLiteConverter.from_session(session, [x], outputs)
            converter.inference_type = tf.uint8
            converter.quantized_input_stats = {"input": (127.5, 127.5)}  # (mean, std): [-1, 1] in 0..255
            data = converter.convert()
    path = OUT / f"{make.__name__}_u8.tflite"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    print(f"{path.name}: {' '.join(opcodes(path))}")
    return path


def main() -> int:
    import tensorflow as tf

    tf.compat.v1.disable_eager_execution()
    convert(mobilenet_block, 1)
    convert(residual_block, 2)
    convert(fully_connected, 3)
    convert(upsample, 4)
    return 0


if __name__ == "__main__":
    sys.exit(main())
