"""Make the IF and WHILE test models in tests/models/control_flow/.

    .venv/bin/python tests/models/make_control_flow_models.py   (needs tensorflow-cpu)

tf.cond and tf.while_loop in a tf.function convert to TFLite's IF and WHILE
with their branches, condition and body as subgraphs; each model is written as
float32 and, but the nested one, as int8 (full-integer post-training
quantization, which keeps the IF/WHILE operands float32 and quantizes inside
the subgraphs). The WHILE's trip
count depends on the data; one model nests an IF in a WHILE body; a Keras 3
LSTM converts to a WHILE over time steps. Fixed seeds; TFLite Micro runs them
all and is the reference.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from model_tools import MODELS_DIR, opcodes  # noqa: E402

OUT = MODELS_DIR / "control_flow"


def branches(tf, rng):
    w1 = tf.constant(rng.normal(0, 0.4, (8, 6)).astype(np.float32))
    w2 = tf.constant(rng.normal(0, 0.4, (8, 6)).astype(np.float32))

    def fn(x):
        return tf.cond(tf.reduce_sum(x) > 0, lambda: tf.nn.relu(tf.matmul(x, w1)),
                       lambda: tf.tanh(tf.matmul(x, w2)) + 1.0)

    return fn, [(1, 8)]


def loop(tf, rng):
    w = tf.constant(rng.normal(0, 0.4, (8, 6)).astype(np.float32))
    wl = tf.constant(rng.normal(0, 0.3, (6, 6)).astype(np.float32))
    bl = tf.constant(rng.normal(0, 0.1, 6).astype(np.float32))

    def fn(x):
        def cond(i, y):
            return tf.logical_and(i < 6, tf.reduce_max(y) > 0.2)

        def body(i, y):
            return i + 1, tf.tanh(tf.matmul(y, wl) + bl)

        i, y = tf.while_loop(cond, body, [tf.constant(0), tf.matmul(x, w)])
        return y, tf.reshape(tf.cast(i, tf.float32), (1, 1))

    return fn, [(1, 8)]


def nested(tf, rng):
    """A WHILE whose body holds an IF."""
    wa = tf.constant(rng.normal(0, 0.5, (6, 6)).astype(np.float32))
    wb = tf.constant(rng.normal(0, 0.5, (6, 6)).astype(np.float32))

    def fn(x):
        def body(i, y):
            y = tf.cond(tf.reduce_sum(y) > 0, lambda: tf.tanh(tf.matmul(y, wa)), lambda: tf.sigmoid(tf.matmul(y, wb)))
            return i + 1, y

        _, y = tf.while_loop(lambda i, y: i < 3, body, [tf.constant(0), x])
        return y

    return fn, [(1, 6)]


def convert(tf, fn, shapes, name: str, quantize: bool, seed: int) -> Path:
    specs = [tf.TensorSpec(s, tf.float32) for s in shapes]
    converter = tf.lite.TFLiteConverter.from_concrete_functions(
        [tf.function(fn, input_signature=specs).get_concrete_function()])
    if quantize:
        rng = np.random.default_rng(seed)

        def representative():
            for _ in range(32):
                yield [rng.uniform(-2, 2, s).astype(np.float32) for s in shapes]

        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        converter.representative_dataset = representative
        converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        converter.inference_input_type = converter.inference_output_type = tf.int8
    return _write(converter.convert(), f"{name}_{'int8' if quantize else 'f32'}")


def _write(data: bytes, name: str) -> Path:
    path = OUT / f"{name}.tflite"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    print(f"{path.name}: {' '.join(opcodes(path))}")
    return path


def keras_lstm(tf) -> Path:
    """Keras 3's LSTM (no fused TFLite LSTM): a WHILE over 5 time steps of 4 features, 6 units."""
    tf.keras.utils.set_random_seed(5)
    model = tf.keras.Sequential([tf.keras.Input((5, 4), batch_size=1), tf.keras.layers.LSTM(6)])
    return _write(tf.lite.TFLiteConverter.from_keras_model(model).convert(), "keras_lstm_f32")


def main() -> int:
    import tensorflow as tf

    for seed, make in enumerate((branches, loop, nested)):
        for quantize in (False, True) if make is not nested else (False,):  # (the converter fails on the nested
            tf.keras.utils.set_random_seed(seed)                              # one's int8: duplicate functions)
            fn, shapes = make(tf, np.random.default_rng(seed))
            convert(tf, fn, shapes, make.__name__, quantize, seed)
    keras_lstm(tf)
    return 0


if __name__ == "__main__":
    sys.exit(main())
