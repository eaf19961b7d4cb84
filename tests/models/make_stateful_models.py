"""Make the stateful (streaming) test models in tests/models/stateful/.

Run with a Python that has TensorFlow (offline, fixed seeds):

    /work/tfvenv/bin/python tests/models/make_stateful_models.py

Each is a streaming keyword spotter fed one feature frame per inference: two
1-D convolutions over time whose past frames wait in ring buffers held in
tf.Variables (the converter emits a CALL_ONCE initialiser subgraph,
VAR_HANDLE / READ_VARIABLE / ASSIGN_VARIABLE, and CONCATENATION +
STRIDED_SLICE for the ring buffers), then a dense layer and softmax. They are
run as sequences by tests/test_stateful.py, not by test_bit_exact.py.

kws_wake_word is the full wake-word form: SPLIT_V of the frame, int8 input and
uint8 output through QUANTIZE int8->uint8, as wake-word models are trained.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from model_tools import MODELS_DIR, opcodes  # noqa: E402

STATEFUL_DIR = MODELS_DIR / "stateful"
FRAME = 10  # features per frame
CHANNELS = (8, 6)  # outputs of the two convolutions
TAPS = 3  # frames each convolution sees: the current one and TAPS - 1 kept in a ring buffer
CLASSES = 4


def streaming_kws(seed: int, initial: float, split: bool):
    """A tf.Module whose __call__ takes one frame [1, 1, FRAME] and returns class scores [1, CLASSES]."""
    import tensorflow as tf

    rng = np.random.default_rng(seed)

    class Kws(tf.Module):
        def __init__(self):
            super().__init__()
            self.ring1 = tf.Variable(initial * np.linspace(-1, 1, (TAPS - 1) * FRAME, dtype=np.float32)
                                     .reshape(1, TAPS - 1, FRAME), trainable=False)
            self.ring2 = tf.Variable(initial * np.linspace(0, 1, (TAPS - 1) * CHANNELS[0], dtype=np.float32)
                                     .reshape(1, TAPS - 1, CHANNELS[0]), trainable=False)
            self.w1 = tf.constant(rng.normal(0, 0.3, [TAPS, FRAME, CHANNELS[0]]).astype(np.float32))
            self.b1 = tf.constant(rng.normal(0, 0.1, [CHANNELS[0]]).astype(np.float32))
            self.w2 = tf.constant(rng.normal(0, 0.3, [TAPS, CHANNELS[0], CHANNELS[1]]).astype(np.float32))
            self.b2 = tf.constant(rng.normal(0, 0.1, [CHANNELS[1]]).astype(np.float32))
            self.wd = tf.constant(rng.normal(0, 0.4, [CHANNELS[1], CLASSES]).astype(np.float32))

        @tf.function(input_signature=[tf.TensorSpec([1, 1, FRAME], tf.float32)])
        def __call__(self, frame):
            if split:  # e.g. energy features apart from the rest, as front ends deliver them
                energy, rest = tf.split(frame, [2, FRAME - 2], axis=2)
                frame = tf.concat([rest, energy], axis=2)
            window1 = tf.concat([self.ring1, frame], axis=1)
            self.ring1.assign(window1[:, 1:, :])
            h1 = tf.nn.relu(tf.nn.conv1d(window1, self.w1, 1, "VALID") + self.b1)
            window2 = tf.concat([self.ring2, h1], axis=1)
            self.ring2.assign(window2[:, 1:, :])
            h2 = tf.nn.relu(tf.nn.conv1d(window2, self.w2, 1, "VALID") + self.b2)
            return tf.nn.softmax(tf.matmul(tf.reshape(h2, [1, CHANNELS[1]]), self.wd))

    return Kws()


def convert_module(module, path: Path, quantize: str, output_type=None, seed: int = 0) -> Path:
    import tensorflow as tf

    converter = tf.lite.TFLiteConverter.from_concrete_functions([module.__call__.get_concrete_function()], module)
    if quantize == "int8":
        rng = np.random.default_rng(seed)

        def representative():
            for _ in range(64):
                yield [rng.uniform(-3.0, 3.0, [1, 1, FRAME]).astype(np.float32)]

        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        converter.representative_dataset = representative
        converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        converter.inference_input_type = tf.int8
        converter.inference_output_type = output_type or tf.int8
        converter._experimental_variable_quantization = True  # int8 ring buffers, as on a microcontroller
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(converter.convert())
    return path


def main() -> None:
    import tensorflow as tf

    made = [
        convert_module(streaming_kws(1, 0.0, split=False), STATEFUL_DIR / "kws_stream.tflite", "int8"),
        # Non-zero initial values (a ramp): the initialiser is copied in, not just the zero point filled.
        convert_module(streaming_kws(2, 1.5, split=False), STATEFUL_DIR / "kws_stream_init.tflite", "int8"),
        convert_module(streaming_kws(3, 0.5, split=False), STATEFUL_DIR / "kws_stream_f32.tflite", "float32"),
        convert_module(streaming_kws(4, 0.0, split=True), STATEFUL_DIR / "kws_wake_word.tflite",
                       "int8", output_type=tf.uint8),
    ]
    for path in made:
        ops = opcodes(path)
        for needed in ("CALL_ONCE", "VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE", "STRIDED_SLICE",
                       "CONCATENATION"):
            assert needed in ops, (path.name, needed, ops)
        print(f"{path.relative_to(MODELS_DIR)}: {path.stat().st_size} bytes, {' '.join(ops)}")
    assert "SPLIT_V" in opcodes(made[-1]) and opcodes(made[-1])[-1] == "QUANTIZE"


if __name__ == "__main__":
    main()
