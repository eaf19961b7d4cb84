"""Make the QUANTIZE / DEQUANTIZE test models of 16x8 (int16 activation) models.

Run with a Python that has TensorFlow (offline, fixed seeds):

    /work/tfvenv/bin/python tests/models/make_quantize_models.py

A 16x8 model whose inputs and outputs stay float32 starts with QUANTIZE
float32 -> int16 and ends with DEQUANTIZE int16 -> float32, the way such
models are usually shipped. The operators between them are data movement
only, so the models test the two conversions. Edge cases the converter does
not make (int16 <-> int8, int32) are hand-built in tests/test_ops_quantize.py.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from model_tools import convert, opcodes  # noqa: E402


def models():
    """name -> (build, input shapes, input range)."""
    import tensorflow as tf

    def pad_and_flip(x):
        return tf.keras.layers.Lambda(lambda t: tf.pad(t[:, ::-1], [[0, 0], [1, 1], [0, 2]]))(x)

    return {
        "quantize_float_io_int16": (pad_and_flip, [(1, 6, 5)], (-3.0, 3.0)),
        "quantize_float_io_wide_int16": (pad_and_flip, [(1, 4, 8)], (-900.0, 700.0)),
    }


def main() -> None:
    import tensorflow as tf

    failures = []
    for name, (build, shapes, input_range) in models().items():
        tf.keras.backend.clear_session()
        path = convert(build, shapes, name, quantize="int16", float_io=True, seed=len(name), input_range=input_range)
        ops = opcodes(path)
        print(f"{path.name}: {' '.join(ops)}")
        if ops[0] != "QUANTIZE" or ops[-1] != "DEQUANTIZE":
            failures.append(f"{path.name} does not start with QUANTIZE and end with DEQUANTIZE: {ops}")
    if failures:
        raise SystemExit("\n".join(failures))


if __name__ == "__main__":
    main()
