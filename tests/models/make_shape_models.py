"""Make the RESHAPE/SQUEEZE/CONCATENATION/PAD/MEAN/TRANSPOSE/STRIDED_SLICE test models.

Run with a Python that has TensorFlow (offline, fixed seeds):

    /work/tfvenv/bin/python tests/models/make_shape_models.py

Every Keras model is written in an int8 and a float32 variant; each is checked
to contain the operator it is meant to exercise. SQUEEZE is patched in after
conversion (the converter turns tf.squeeze into RESHAPE), and a few int8 MEAN
models are built by hand with tests/tflite_builder.py to pick their scales.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for tflite_builder

from model_tools import MODELS_DIR, convert, opcodes  # noqa: E402


def lam(fn):
    """A TensorFlow function as a Keras layer (Keras 3 tensors do not take tf.* ops directly)."""
    import tensorflow as tf

    return tf.keras.layers.Lambda(fn)


def dense(units):
    import tensorflow as tf

    return tf.keras.layers.Dense(units)


def insert_squeeze(path: Path, tensor_index: int, squeeze_dims: list[int]) -> None:
    """Put a SQUEEZE after tensor `tensor_index` (the converter turns tf.squeeze into RESHAPE)."""
    import copy

    import numpy as np
    from tensorflow.lite.python import schema_py_generated as schema
    from tensorflow.lite.tools import flatbuffer_utils

    model = flatbuffer_utils.read_model(str(path))
    graph = model.subgraphs[0]
    source = graph.tensors[tensor_index]
    squeezed = copy.deepcopy(source)
    squeezed.name = (source.name.decode() if isinstance(source.name, bytes) else source.name) + "_squeezed"
    squeezed.shape = np.array([d for k, d in enumerate(source.shape) if k not in squeeze_dims], np.int32)
    squeezed.shapeSignature = None
    graph.tensors.append(squeezed)
    new_index = len(graph.tensors) - 1
    for op in graph.operators:
        op.inputs = np.array([new_index if i == tensor_index else i for i in op.inputs], np.int32)
    graph.outputs = np.array([new_index if i == tensor_index else i for i in graph.outputs], np.int32)
    code = schema.OperatorCodeT()
    code.builtinCode = code.deprecatedBuiltinCode = schema.BuiltinOperator.SQUEEZE
    code.version = 1
    model.operatorCodes.append(code)
    op = schema.OperatorT()
    op.opcodeIndex = len(model.operatorCodes) - 1
    op.inputs = np.array([tensor_index], np.int32)
    op.outputs = np.array([new_index], np.int32)
    op.builtinOptionsType = schema.BuiltinOptions.SqueezeOptions
    op.builtinOptions = schema.SqueezeOptionsT()
    op.builtinOptions.squeezeDims = list(squeeze_dims)
    producers = [k for k, o in enumerate(graph.operators) if tensor_index in o.outputs]
    graph.operators.insert(producers[0] + 1 if producers else 0, op)
    path.write_bytes(bytes(flatbuffer_utils.convert_object_to_bytearray(model)))


def output_of(path: Path, opcode: str) -> int:
    """Index of the output tensor of the first `opcode` operator of a model."""
    import tflite

    model = tflite.Model.GetRootAsModel(path.read_bytes(), 0)
    graph = model.Subgraphs(0)
    for k, name in enumerate(opcodes(path)):
        if name == opcode:
            return graph.Operators(k).Outputs(0)
    raise ValueError(f"{path.name} has no {opcode}")


def reshape_to_squeeze(path: Path, squeeze_dims: list[int]) -> None:
    """Turn every RESHAPE of a model into SQUEEZE(squeeze_dims), dropping the shape operand."""
    import numpy as np
    from tensorflow.lite.python import schema_py_generated as schema
    from tensorflow.lite.tools import flatbuffer_utils

    model = flatbuffer_utils.read_model(str(path))
    code = schema.OperatorCodeT()
    code.builtinCode = code.deprecatedBuiltinCode = schema.BuiltinOperator.SQUEEZE
    code.version = 1
    model.operatorCodes.append(code)
    for op in model.subgraphs[0].operators:
        if model.operatorCodes[op.opcodeIndex].builtinCode == schema.BuiltinOperator.RESHAPE:
            op.opcodeIndex = len(model.operatorCodes) - 1
            op.inputs = np.array(op.inputs[:1], np.int32)
            op.builtinOptionsType = schema.BuiltinOptions.SqueezeOptions
            op.builtinOptions = schema.SqueezeOptionsT()
            op.builtinOptions.squeezeDims = list(squeeze_dims)
    path.write_bytes(bytes(flatbuffer_utils.convert_object_to_bytearray(model)))


def shared_then_viewed(x):
    import tensorflow as tf

    hidden = dense(12)(x)
    return [tf.keras.layers.Reshape((3, 4))(hidden), dense(2)(hidden)]


def models():
    """name -> (build, input shapes, operator that must appear)."""
    import tensorflow as tf

    K = tf.keras.layers
    return {
        # Only a RESHAPE between model input and output: the copy path.
        "reshape_io": (lambda x: K.Reshape((6, 4))(x), [(1, 4, 6)], "RESHAPE"),
        # Dense -> RESHAPE -> Dense: the reshape is a view of the first Dense's output.
        "reshape_view": (lambda x: dense(5)(K.Reshape((3, 4))(dense(12)(x))), [(1, 8)], "RESHAPE"),
        "reshape_flatten": (lambda x: dense(3)(K.Flatten()(dense(4)(x))), [(1, 3, 5)], "RESHAPE"),
        "reshape_into_mean": (lambda x: K.GlobalAveragePooling2D()(K.Reshape((2, 3, 4))(dense(24)(x))), [(1, 8)], "RESHAPE"),
        # Dense -> RESHAPE as the last operator: the view becomes the model output.
        # Model input -> RESHAPE -> TRANSPOSE: the view is another name for the input array.
        "reshape_input_view": (lambda x: lam(lambda t: tf.transpose(t, [0, 2, 1]))(K.Reshape((3, 4))(x)), [(1, 12)],
                               "RESHAPE"),
        # One Dense output read by a Dense and viewed as a second model output.
        "reshape_shared_output": (shared_then_viewed, [(1, 5)], "RESHAPE"),
        "reshape_to_output": (lambda x: K.Reshape((2, 5))(dense(10)(x)), [(1, 6)], "RESHAPE"),
        # MEAN(keepdims) -> SQUEEZE -> Dense; the SQUEEZE is inserted after conversion.
        "squeeze_view": (lambda x: dense(3)(K.GlobalAveragePooling2D(keepdims=True)(x)), [(1, 3, 3, 4)],
                         ("MEAN", [1, 2])),
        # Model input -> SQUEEZE -> model output: the copy path.
        "squeeze_io": (lambda x: K.Reshape((7,))(x), [(1, 1, 1, 7)], ("RESHAPE", [1, 2])),
        "concat_channels": (lambda a, b: K.Concatenate(axis=-1)([a, b]), [(1, 4, 4, 3), (1, 4, 4, 5)], "CONCATENATION"),
        "concat_height": (lambda a, b: K.Concatenate(axis=1)([a, b]), [(1, 2, 3, 4), (1, 3, 3, 4)], "CONCATENATION"),
        "concat_batch": (lambda a, b: lam(lambda ts: tf.concat(ts, axis=0))([a, b]), [(1, 2, 3), (1, 2, 3)],
                         "CONCATENATION"),
        "concat_computed": (lambda x: K.Concatenate(axis=1)([x, dense(6)(x), x]), [(1, 6)], "CONCATENATION"),
        "pad_hw": (lambda x: lam(lambda t: tf.pad(t, [[0, 0], [1, 2], [2, 1], [0, 0]]))(x), [(1, 3, 4, 2)], "PAD"),
        "pad_channels": (lambda x: lam(lambda t: tf.pad(t, [[0, 0], [0, 0], [0, 0], [1, 3]]))(x), [(1, 2, 3, 2)], "PAD"),
        "pad_3d": (lambda x: lam(lambda t: tf.pad(t, [[0, 0], [2, 0], [1, 1]]))(dense(4)(x)), [(1, 3, 5)], "PAD"),
        "pad_v2": (lambda x: lam(lambda t: tf.pad(t, [[0, 0], [1, 1], [0, 2], [0, 0]], constant_values=-1.5))(x),
                   [(1, 3, 3, 2)], "PADV2"),
        "mean_hw_keepdims": (lambda x: lam(lambda t: tf.reduce_mean(t, axis=[1, 2], keepdims=True))(x), [(1, 5, 4, 3)], "MEAN"),
        "mean_hw_global_pool": (lambda x: K.GlobalAveragePooling2D()(x), [(1, 6, 5, 4)], "MEAN"),
        "mean_channels": (lambda x: lam(lambda t: tf.reduce_mean(t, axis=[-1]))(x), [(1, 3, 4, 5)], "MEAN"),
        "mean_axis1_3d_keepdims": (lambda x: lam(lambda t: tf.reduce_mean(t, axis=[1], keepdims=True))(x), [(1, 7, 3)], "MEAN"),
        "mean_axes_1_3": (lambda x: lam(lambda t: tf.reduce_mean(t, axis=[1, 3]))(x), [(1, 4, 3, 5)], "MEAN"),
        "mean_large": (lambda x: K.GlobalAveragePooling2D()(x), [(1, 24, 24, 3)], "MEAN"),
        "transpose_nhwc_nchw": (lambda x: lam(lambda t: tf.transpose(t, [0, 3, 1, 2]))(x), [(1, 3, 4, 5)], "TRANSPOSE"),
        "transpose_4d_mixed": (lambda x: lam(lambda t: tf.transpose(t, [0, 2, 3, 1]))(dense(5)(x)), [(1, 2, 3, 4)], "TRANSPOSE"),
        "transpose_5d": (lambda x: lam(lambda t: tf.transpose(t, [0, 4, 2, 1, 3]))(x), [(1, 2, 3, 4, 2)], "TRANSPOSE"),
        "strided_slice_steps": (lambda x: lam(lambda t: t[:, 1:6:2, ::-1, 1:])(x), [(1, 7, 4, 3)], "STRIDED_SLICE"),
        "strided_slice_shrink": (lambda x: lam(lambda t: t[:, 2, -3:, :-1])(x), [(1, 4, 5, 3)], "STRIDED_SLICE"),
        "strided_slice_negative": (lambda x: lam(lambda t: t[:, -1:-6:-2, :, ::2])(x), [(1, 6, 2, 5)], "STRIDED_SLICE"),
    }


# Hand-built int8 MEAN models: quantization TensorFlow's calibration would not choose,
# to reach TFLite's multiplier corner cases (large n, a clamped pre-shift, a left
# shift when output_scale < input_scale, both zero points at the int8 limits).
# name -> (input shape, axes, input scale, input zero point, output scale, output zero point)
MEAN_QUANTIZATION_CASES = {
    "mean_int8_large_n": ((1, 64, 64, 2), [1, 2], 0.05, 3, 0.05, -2),
    "mean_int8_tiny_ratio": ((1, 7, 5, 3), [1, 2], 0.02, -5, 0.02 * 2**25, 0),
    "mean_int8_left_shift": ((1, 1, 6, 4), [1], 0.5, 10, 0.5 / 8, -7),
    "mean_int8_zero_point_limits": ((1, 7, 5, 3), [1, 2], 0.013, -128, 0.012, -128),
    "mean_int8_batch_axes": ((2, 3, 4, 5), [0, 2], 0.1, 0, 0.07, 1),
}


def write_mean_quantization_cases() -> None:
    import numpy as np
    import tflite
    import tflite_builder as tb

    for name, (shape, axes, in_scale, in_zp, out_scale, out_zp) in MEAN_QUANTIZATION_CASES.items():
        out_shape = tuple(d for k, d in enumerate(shape) if k not in axes)
        sub = tb.Sub([tb.T("input", shape, "int8", scales=[in_scale], zero_points=[in_zp]),
                      tb.T("axes", (len(axes),), "int32", data=np.array(axes, np.int32)),
                      tb.T("output", out_shape, "int8", scales=[out_scale], zero_points=[out_zp])],
                     [tb.Op(tflite.BuiltinOperator.MEAN, [0, 1], [2])], [0], [2])
        path = MODELS_DIR / f"{name}.tflite"
        path.write_bytes(tb.build([sub]))
        print(f"{path.name}: {' '.join(opcodes(path))}")


def main() -> None:
    import tensorflow as tf

    failures = []
    for name, (build, shapes, wanted) in models().items():
        for quantize, suffix in (("int8", ""), ("float32", "_f32")):
            tf.keras.backend.clear_session()  # tensor names restart, so reruns write the same bytes
            path = convert(build, shapes, name + suffix, quantize=quantize, seed=len(name))
            opcode = wanted
            if isinstance(wanted, tuple):
                after, dims = wanted
                if after == "RESHAPE":
                    reshape_to_squeeze(path, dims)
                else:
                    insert_squeeze(path, output_of(path, after), dims)
                opcode = "SQUEEZE"
            ops = opcodes(path)
            print(f"{path.name}: {' '.join(ops)}")
            if opcode not in ops:
                failures.append(f"{path.name} has no {opcode}: {ops}")
    write_mean_quantization_cases()
    if failures:
        raise SystemExit("\n".join(failures))


if __name__ == "__main__":
    main()
