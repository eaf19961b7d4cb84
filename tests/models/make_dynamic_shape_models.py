"""Make the models whose shapes the graph computes (tests/models/dynamic_shapes/).

    .venv/bin/python tests/models/make_dynamic_shape_models.py   (needs tensorflow-cpu)

Each is converted from a tf.function whose inputs have an open batch
dimension, so the converter writes shape signatures with -1 and computes
the batch in the graph (SHAPE -> STRIDED_SLICE -> PACK -> FILL/RESHAPE,
BROADCAST_ARGS); the .tflite records batch 1. An unrolled Keras LSTM gives the
TRANSPOSE [steps, -1, features] and UNPACK of issue 20. Each model is written
as int8 (full-integer post-training quantization) and float32, with fixed seeds.
TFLite Micro refuses them (FILL needs constant dims), so the tests compare the
float ones with LiteRT, the int8 LSTM with TFLite Micro running a twin
(`lstm_unrolled_twin_int8`: the same file, where each FILL, BROADCAST_TO or RESHAPE whose
shape operand the graph computes reads a constant with the value LiteRT computes
for it instead, and every tensor records the shape LiteRT ran with; everything else, the shape arithmetic included, TFLite Micro
computes itself) and the other int8 one with LiteRT (TFLite Micro has no int32 GATHER).
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from model_tools import MODELS_DIR, opcodes  # noqa: E402

OUT = MODELS_DIR / "dynamic_shapes"


def lstm_unrolled(tf):
    """An unrolled LSTM (8 steps of 6 features, 5 units) and a dense head."""
    lstm = tf.keras.layers.LSTM(5, unroll=True)
    head = tf.keras.layers.Dense(3)
    lstm.build((None, 8, 6))
    head.build((None, 5))
    return (lambda x: head(lstm(x))), [(8, 6)]


def reshape_fill_broadcast(tf):
    """RESHAPE to [batch, -1], FILL of [batch, 4], BROADCAST_TO a BROADCAST_ARGS shape, GATHER of a shape."""
    dense = tf.keras.layers.Dense(4)
    dense.build((None, 12))
    offsets = tf.constant(np.linspace(-1, 1, 4, dtype=np.float32).reshape(1, 4))

    def fn(x):
        batch = tf.shape(x)[0]
        flat = tf.reshape(x, tf.stack([batch, -1]))
        y = dense(flat) + tf.fill(tf.stack([batch, 4]), 0.5)
        shape = tf.broadcast_dynamic_shape(tf.shape(y), tf.shape(offsets))
        z = tf.broadcast_to(offsets, shape) * y
        rows = tf.gather(tf.shape(x), [0, 1])
        return tf.reshape(z, tf.concat([rows[:1], [2, 2]], 0))

    return fn, [(3, 4)]


def convert(tf, fn, shapes, name: str, quantize: bool, seed: int) -> Path:
    specs = [tf.TensorSpec((None, *s), tf.float32) for s in shapes]
    concrete = tf.function(fn, input_signature=specs).get_concrete_function()
    converter = tf.lite.TFLiteConverter.from_concrete_functions([concrete])
    if quantize:
        rng = np.random.default_rng(seed)

        def representative():
            for _ in range(32):
                yield [rng.uniform(-2, 2, (1, *s)).astype(np.float32) for s in shapes]

        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        converter.representative_dataset = representative
        converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        converter.inference_input_type = converter.inference_output_type = tf.int8
    path = OUT / f"{name}_{'int8' if quantize else 'f32'}.tflite"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(converter.convert())
    print(f"{path.name}: {' '.join(sorted(set(opcodes(path))))}")
    return path


# operator -> the input that gives its output shape
SHAPE_OPERANDS = {"FILL": 0, "BROADCAST_TO": 1, "RESHAPE": 1}


def frozen_twin(path: Path) -> Path:
    """path with every computed shape operand replaced by a constant of its value (TFLite Micro then runs it)."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    from tensorflow.lite.python import schema_py_generated as schema
    from tensorflow.lite.tools import flatbuffer_utils

    interpreter = Interpreter(model_path=str(path), experimental_preserve_all_tensors=True,
                              experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    interpreter.allocate_tensors()
    detail = interpreter.get_input_details()[0]
    interpreter.set_tensor(detail["index"], np.zeros(detail["shape"], detail["dtype"]))
    interpreter.invoke()
    model = flatbuffer_utils.read_model(str(path))
    graph = model.subgraphs[0]
    names = {v: k for k, v in vars(schema.BuiltinOperator).items() if not k.startswith("_")}
    for op in graph.operators:
        code = model.operatorCodes[op.opcodeIndex]
        position = SHAPE_OPERANDS.get(names[max(code.builtinCode, code.deprecatedBuiltinCode)])
        if position is None or position >= len(op.inputs):
            continue
        source = graph.tensors[op.inputs[position]]
        if model.buffers[source.buffer].data is not None:
            continue  # already a constant
        value = interpreter.get_tensor(int(op.inputs[position]))
        buffer = schema.BufferT()
        buffer.data = np.frombuffer(value.tobytes(), np.uint8)
        model.buffers.append(buffer)
        frozen = schema.TensorT()
        frozen.name, frozen.type, frozen.shape = b"frozen_shape", source.type, np.array(value.shape, np.int32)
        frozen.buffer = len(model.buffers) - 1
        graph.tensors.append(frozen)
        op.inputs[position] = len(graph.tensors) - 1
    for index, tensor in enumerate(graph.tensors):  # the shapes LiteRT ran with (the file's guesses may be wrong)
        if tensor.shapeSignature is not None and tensor.type != schema.TensorType.RESOURCE:
            tensor.shape = np.array(interpreter.get_tensor(index).shape, np.int32)
            tensor.shapeSignature = None
    twin = path.with_name(path.stem.replace("_int8", "_twin_int8") + ".tflite")
    flatbuffer_utils.write_model(model, str(twin))
    print(f"{twin.name}: {' '.join(sorted(set(opcodes(twin))))}")
    return twin


def main() -> int:
    import tensorflow as tf

    for seed, make in enumerate((lstm_unrolled, reshape_fill_broadcast)):
        for quantize in (True, False):
            tf.keras.backend.clear_session()
            tf.keras.utils.set_random_seed(seed)
            fn, shapes = make(tf)
            path = convert(tf, fn, shapes, make.__name__, quantize, seed)
            if quantize and make is lstm_unrolled:  # TFLite Micro has no int32 GATHER for the other
                frozen_twin(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
