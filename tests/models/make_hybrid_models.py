"""Make the hybrid (dynamic-range) test models in tests/models/hybrid/.

    .venv/bin/python tests/models/make_hybrid_models.py   (needs tensorflow-cpu, and tf_keras for the LSTM)

TensorFlow's dynamic-range quantization (optimizations=[DEFAULT], no
representative data) keeps activations float32 and stores large weights as
int8: FULLY_CONNECTED (asymmetric input quantization, per-channel weights),
CONV_2D (per channel, and per tensor with per-channel quantization disabled),
BATCH_MATMUL with a constant rhs, UNIDIRECTIONAL_SEQUENCE_LSTM (Keras 2's fused
LSTM). The converter leaves DEPTHWISE_CONV_2D float, so its hybrid form is made
by quantizing a float model's filter per channel (symmetric, as the converter
quantizes weights); one FULLY_CONNECTED has asymmetric_quantize_inputs turned
off. TensorFlow has no SVDF layer: the hybrid SVDF is written with
tests/tflite_builder.py. Fixed seeds; TFLite Micro runs no hybrid operator,
the tests compare with LiteRT.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from model_tools import MODELS_DIR, opcodes  # noqa: E402

OUT = MODELS_DIR / "hybrid"


def convert_function(fn, shapes, name: str, seed: int, per_channel: bool = True) -> Path:
    import tensorflow as tf

    tf.keras.utils.set_random_seed(seed)
    specs = [tf.TensorSpec(s, tf.float32) for s in shapes]
    converter = tf.lite.TFLiteConverter.from_concrete_functions(
        [tf.function(fn, input_signature=specs).get_concrete_function()])
    converter.optimizations = [tf.lite.Optimize.DEFAULT]
    if not per_channel:
        converter._experimental_disable_per_channel = True
    return _write(converter.convert(), name)


def _write(data: bytes, name: str) -> Path:
    path = OUT / f"{name}.tflite"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    print(f"{path.name}: {' '.join(opcodes(path))}")
    return path


def dense_models(tf, rng):
    w1 = tf.constant(rng.normal(0, 0.2, (64, 40)).astype(np.float32))
    b1 = tf.constant(rng.normal(0, 0.1, 40).astype(np.float32))
    w2 = tf.constant(rng.normal(0, 0.2, (40, 32)).astype(np.float32))
    fn = lambda x: tf.matmul(tf.nn.relu(tf.matmul(x, w1) + b1), w2)  # noqa: E731
    convert_function(fn, [(2, 64)], "fully_connected_asymmetric", 1)
    path = convert_function(fn, [(2, 64)], "fully_connected_symmetric", 1)
    _patch_fully_connected(path)


def _patch_fully_connected(path: Path) -> None:
    """asymmetric_quantize_inputs off: LiteRT then quantizes the input symmetrically."""
    from tensorflow.lite.tools import flatbuffer_utils

    model = flatbuffer_utils.read_model(str(path))
    for op in model.subgraphs[0].operators:
        if hasattr(op.builtinOptions, "asymmetricQuantizeInputs"):
            op.builtinOptions.asymmetricQuantizeInputs = False
    flatbuffer_utils.write_model(model, str(path))


def conv_models(tf, rng):
    kernel = tf.constant(rng.normal(0, 0.3, (3, 3, 16, 40)).astype(np.float32))
    bias = tf.constant(rng.normal(0, 0.1, 40).astype(np.float32))
    fn = lambda x: tf.nn.relu6(tf.nn.conv2d(x, kernel, 2, "SAME") + bias)  # noqa: E731
    convert_function(fn, [(1, 9, 9, 16)], "conv_per_channel", 2)
    convert_function(fn, [(1, 9, 9, 16)], "conv_per_tensor", 2, per_channel=False)


def depthwise_model(tf, rng):
    kernel = tf.constant(rng.normal(0, 0.3, (3, 3, 24, 2)).astype(np.float32))
    fn = lambda x: tf.nn.depthwise_conv2d(x, kernel, [1, 1, 1, 1], "SAME")  # noqa: E731
    path = convert_function(fn, [(1, 7, 7, 24)], "depthwise_conv", 3)
    _quantize_depthwise_filter(path)


def _quantize_depthwise_filter(path: Path) -> None:
    """The float [1, H, W, C] filter as int8, symmetric per output channel (axis 3)."""
    from tensorflow.lite.python import schema_py_generated as schema
    from tensorflow.lite.tools import flatbuffer_utils

    model = flatbuffer_utils.read_model(str(path))
    graph = model.subgraphs[0]
    for op in graph.operators:
        code = model.operatorCodes[op.opcodeIndex]
        if max(code.builtinCode, code.deprecatedBuiltinCode) != schema.BuiltinOperator.DEPTHWISE_CONV_2D:
            continue
        tensor = graph.tensors[op.inputs[1]]
        buffer = model.buffers[tensor.buffer]
        values = np.frombuffer(bytes(buffer.data), np.float32).reshape(tensor.shape)
        scales = np.abs(values).max(axis=(0, 1, 2)) / 127.0
        buffer.data = np.frombuffer(np.round(values / scales).astype(np.int8).tobytes(), np.uint8)
        tensor.type = schema.TensorType.INT8
        tensor.quantization = schema.QuantizationParametersT()
        tensor.quantization.scale = scales.astype(np.float32)
        tensor.quantization.zeroPoint = np.zeros(len(scales), np.int64)
        tensor.quantization.quantizedDimension = 3
    flatbuffer_utils.write_model(model, str(path))


def batch_matmul_model(tf, rng):
    rhs = tf.constant(rng.normal(0, 0.3, (3, 24, 40)).astype(np.float32))
    convert_function(lambda x: tf.matmul(x, rhs), [(3, 5, 24)], "batch_matmul", 4)


def svdf_model(rng, asymmetric: bool) -> Path:
    """input [2, 12] -> SVDF (rank 2, 4 units, memory 5, RELU) with int8 feature and time weights."""
    import tflite

    import tflite_builder as tb

    batches, size, units, rank, memory = 2, 12, 4, 2, 5
    filters = units * rank

    def symmetric(values):
        scale = float(np.float32(np.abs(values).max() / 127))
        return np.clip(np.round(values / scale), -127, 127).astype(np.int8), scale

    wf, sf = symmetric(rng.normal(0, 0.4, (filters, size)))
    wt, st = symmetric(rng.normal(0, 0.4, (filters, memory)))

    def options(b):
        tflite.SVDFOptionsStart(b)
        tflite.SVDFOptionsAddRank(b, rank)
        tflite.SVDFOptionsAddFusedActivationFunction(b, 1)
        tflite.SVDFOptionsAddAsymmetricQuantizeInputs(b, asymmetric)
        return tflite.SVDFOptionsEnd(b)

    tensors = [
        tb.T("input", (batches, size), "float32"),
        tb.T("feature_weights", (filters, size), "int8", data=wf, scales=[sf]),
        tb.T("time_weights", (filters, memory), "int8", data=wt, scales=[st]),
        tb.T("bias", (units,), "float32", data=rng.normal(0, 0.3, units).astype(np.float32)),
        tb.T("state", (batches, filters * memory), "float32", variable=True),
        tb.T("output", (batches, units), "float32"),
    ]
    op = tb.Op(tflite.BuiltinOperator.SVDF, [0, 1, 2, 3, 4], [5], options=(tflite.BuiltinOptions.SVDFOptions, options))
    return _write(tb.build([tb.Sub(tensors, [op], [0], [5])]), f"svdf_{'asymmetric' if asymmetric else 'symmetric'}")


def lstm_model(seed: int) -> Path:
    """Keras 2's fused LSTM (6 steps of 40 features, 32 units: weights large enough to quantize)."""
    import tensorflow as tf
    import tf_keras

    tf_keras.utils.set_random_seed(seed)
    model = tf_keras.Sequential([tf_keras.Input((6, 40), batch_size=1), tf_keras.layers.LSTM(32)])
    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    converter.optimizations = [tf.lite.Optimize.DEFAULT]
    return _write(converter.convert(), "lstm")


def main() -> int:
    import tensorflow as tf

    rng = np.random.default_rng(20)
    dense_models(tf, rng)
    conv_models(tf, rng)
    depthwise_model(tf, rng)
    batch_matmul_model(tf, rng)
    svdf_model(np.random.default_rng(21), asymmetric=True)
    svdf_model(np.random.default_rng(22), asymmetric=False)
    lstm_model(23)
    return 0


if __name__ == "__main__":
    sys.exit(main())
