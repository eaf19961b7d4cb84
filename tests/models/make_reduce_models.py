"""Make the SUM/REDUCE_MAX/REDUCE_MIN/REDUCE_ALL/ARG_MAX/ARG_MIN/CUMSUM/L2_NORMALIZATION/
L2_POOL_2D/LOG_SOFTMAX (and int16 MEAN) test models.

Run with a Python that has TensorFlow (offline, fixed seeds):

    /work/tfvenv/bin/python tests/models/make_reduce_models.py

Keras models are written in an int8 and a float32 variant, each checked to
contain the operator it exercises. The converter keeps int8 CUMSUM in float
and never emits L2_POOL_2D, and it does not pick int16 or extreme
quantizations: those models are built by hand with tests/tflite_builder.py.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for tflite_builder

from model_tools import MODELS_DIR, convert_checked, opcodes  # noqa: E402


def lam(fn):
    """A TensorFlow function as a Keras layer (Keras 3 tensors do not take tf.* ops directly)."""
    import tensorflow as tf

    return tf.keras.layers.Lambda(fn)


def models():
    """name -> (build, input shapes, operator that must appear)."""
    import tensorflow as tf

    dense = tf.keras.layers.Dense
    return {
        "sum_hw": (lambda x: lam(lambda t: tf.reduce_sum(t, axis=[1, 2]))(x), [(1, 4, 5, 3)], "SUM"),
        "sum_channels_keepdims": (lambda x: lam(lambda t: tf.reduce_sum(t, axis=[-1], keepdims=True))(x),
                                  [(1, 3, 4, 6)], "SUM"),
        "sum_axes_0_2": (lambda x: lam(lambda t: tf.reduce_sum(t, axis=[0, 2]))(x), [(2, 3, 4, 5)], "SUM"),
        "sum_large": (lambda x: lam(lambda t: tf.reduce_sum(t, axis=[1, 2]))(x), [(1, 32, 32, 2)], "SUM"),
        "reduce_max_hw": (lambda x: lam(lambda t: tf.reduce_max(t, axis=[1, 2]))(x), [(1, 5, 4, 3)], "REDUCE_MAX"),
        "reduce_max_after_dense": (lambda x: lam(lambda t: tf.reduce_max(t, axis=[1]))(dense(6)(x)), [(1, 5, 4)],
                                   "REDUCE_MAX"),
        "reduce_min_channels_keepdims": (lambda x: lam(lambda t: tf.reduce_min(t, axis=[-1], keepdims=True))(x),
                                         [(1, 4, 5, 3)], "REDUCE_MIN"),
        "reduce_min_axes_1_3": (lambda x: lam(lambda t: tf.reduce_min(t, axis=[1, 3]))(x), [(1, 4, 3, 5)],
                                "REDUCE_MIN"),
        "arg_max_channels": (lambda x: lam(lambda t: tf.argmax(t, axis=-1, output_type=tf.int32))(x), [(1, 4, 6)],
                             "ARG_MAX"),
        "arg_max_long_axis": (lambda x: lam(lambda t: tf.argmax(t, axis=1, output_type=tf.int32))(x), [(1, 300, 2)],
                              "ARG_MAX"),
        "arg_max_classifier": (lambda x: lam(lambda t: tf.argmax(t, axis=-1, output_type=tf.int32))(dense(10)(x)),
                               [(1, 8)], "ARG_MAX"),
        "arg_min_axis1": (lambda x: lam(lambda t: tf.argmin(t, axis=1, output_type=tf.int32))(x), [(1, 4, 6)],
                          "ARG_MIN"),
        "arg_min_batch_axis": (lambda x: lam(lambda t: tf.argmin(t, axis=0, output_type=tf.int32))(x), [(3, 2, 5)],
                               "ARG_MIN"),
        "l2_norm_channels": (lambda x: lam(lambda t: tf.math.l2_normalize(t, axis=-1))(x), [(1, 4, 6)],
                             "L2_NORMALIZATION"),
        "l2_norm_after_dense": (lambda x: lam(lambda t: tf.math.l2_normalize(t, axis=-1))(dense(16)(x)), [(1, 8)],
                                "L2_NORMALIZATION"),
        "log_softmax_rows": (lambda x: lam(lambda t: tf.nn.log_softmax(t, axis=-1))(x), [(1, 4, 6)], "LOG_SOFTMAX"),
        "log_softmax_classifier": (lambda x: lam(lambda t: tf.nn.log_softmax(t, axis=-1))(dense(10)(x)), [(1, 8)],
                                   "LOG_SOFTMAX"),
    }


# Float-only models the converter makes (its int8 CUMSUM stays float between QUANTIZE/DEQUANTIZE).
def float_models():
    import tensorflow as tf

    return {
        "cumsum_axis1_f32": (lambda x: lam(lambda t: tf.math.cumsum(t, axis=1))(x), [(1, 5, 3)], "CUMSUM"),
        "cumsum_exclusive_reverse_f32": (lambda x: lam(lambda t: tf.math.cumsum(t, axis=-1, exclusive=True,
                                                                              reverse=True))(x),
                                         [(2, 3, 7)], "CUMSUM"),
    }


def reducer_options(keep_dims: bool):
    import tflite

    def write(builder):
        tflite.ReducerOptionsStart(builder)
        tflite.ReducerOptionsAddKeepDims(builder, keep_dims)
        return tflite.ReducerOptionsEnd(builder)

    return tflite.BuiltinOptions.ReducerOptions, write


def cumsum_options(exclusive: bool, reverse: bool):
    import tflite

    def write(builder):
        tflite.CumsumOptionsStart(builder)
        tflite.CumsumOptionsAddExclusive(builder, exclusive)
        tflite.CumsumOptionsAddReverse(builder, reverse)
        return tflite.CumsumOptionsEnd(builder)

    return tflite.BuiltinOptions.CumsumOptions, write


def pool_options(padding: int, stride: tuple, size: tuple, activation: int):
    import tflite

    def write(builder):
        tflite.Pool2DOptionsStart(builder)
        tflite.Pool2DOptionsAddPadding(builder, padding)
        tflite.Pool2DOptionsAddStrideH(builder, stride[0])
        tflite.Pool2DOptionsAddStrideW(builder, stride[1])
        tflite.Pool2DOptionsAddFilterHeight(builder, size[0])
        tflite.Pool2DOptionsAddFilterWidth(builder, size[1])
        tflite.Pool2DOptionsAddFusedActivationFunction(builder, activation)
        return tflite.Pool2DOptionsEnd(builder)

    return tflite.BuiltinOptions.Pool2DOptions, write


def quantized(name, shape, dtype, q):
    import tflite_builder as tb

    return tb.T(name, shape, dtype, scales=[q[0]] if q else None, zero_points=[q[1]] if q else None)


def reduced_shape(shape, axes, keep_dims):
    axes = [a % len(shape) for a in axes]
    if keep_dims:
        return tuple(1 if k in axes else d for k, d in enumerate(shape))
    return tuple(d for k, d in enumerate(shape) if k not in axes)


# Hand-built reductions: int16 (the converter's 16x8 mode is another helper's), saturating
# sums, a left-shifting rescale, zero points at the limits; bool REDUCE_ALL.
# name -> (opcode, input shape, axes, keep_dims, dtype, input (scale, zero point), output (scale, zero point))
REDUCTION_CASES = {
    "sum_int8_saturating": ("SUM", (1, 64, 4), [1], False, "int8", (0.05, 3), (0.05, -2)),
    "sum_int8_left_shift": ("SUM", (1, 3, 4), [1], True, "int8", (0.5, 10), (0.5 / 8, -7)),
    "sum_int8_zero_point_limits": ("SUM", (2, 5, 3), [0, 1], False, "int8", (0.013, -128), (0.2, 127)),
    "sum_int16_axes_1_3": ("SUM", (2, 3, 4, 5), [1, 3], False, "int16", (0.001, 0), (0.01, 0)),
    "sum_int16_keepdims": ("SUM", (1, 6, 7), [-1], True, "int16", (0.002, 0), (0.004, 0)),
    "mean_int16_hw": ("MEAN", (1, 5, 4, 3), [1, 2], False, "int16", (0.001, 0), (0.0009, 0)),
    "mean_int16_channels_keepdims": ("MEAN", (1, 3, 4, 6), [3], True, "int16", (0.003, 0), (0.002, 0)),
    "reduce_max_int8_limits": ("REDUCE_MAX", (2, 3, 40), [0, 2], True, "int8", (0.07, -128), (0.07, -128)),
    "reduce_min_int8_every_axis": ("REDUCE_MIN", (2, 3, 4), [0, 1, 2], False, "int8", (0.1, 5), (0.1, 5)),
    "reduce_all_axis1": ("REDUCE_ALL", (3, 2, 4), [1], False, "bool", None, None),
    "reduce_all_axes_0_2_keepdims": ("REDUCE_ALL", (2, 3, 2), [0, 2], True, "bool", None, None),
}

# int8 CUMSUM: name -> (shape, axis, exclusive, reverse, input q, output q)
CUMSUM_CASES = {
    "cumsum_int8_axis1": ((1, 6, 4), 1, False, False, (0.05, 3), (0.2, -5)),
    "cumsum_int8_exclusive_reverse": ((2, 5, 3), -1, True, True, (0.02, -128), (0.1, 0)),
    "cumsum_int8_long_wrapping": ((1, 48), 1, False, False, (0.02, -128), (0.5, 0)),
}

# L2_POOL_2D: name -> (input shape, padding (0 SAME, 1 VALID), stride, filter, activation)
L2_POOL_CASES = {
    "l2_pool_valid_stride2_f32": ((1, 7, 6, 3), 1, (2, 2), (3, 3), 0),
    "l2_pool_same_relu_f32": ((2, 5, 7, 2), 0, (1, 2), (2, 3), 1),
    "l2_pool_same_relu_n1_to_1_f32": ((1, 4, 4, 3), 0, (2, 1), (2, 2), 2),
}

# int8 LOG_SOFTMAX at input scales the converter would not choose: name -> (shape, input q)
LOG_SOFTMAX_CASES = {
    "log_softmax_int8_fine_scale": ((3, 20), (0.004, 5)),
    "log_softmax_int8_coarse_scale": ((2, 9), (1.5, -20)),
}


def write_hand_built() -> list[str]:
    import numpy as np
    import tflite
    import tflite_builder as tb

    op_codes = tflite.BuiltinOperator
    written = []
    for name, (opcode, shape, axes, keep, dtype, q_in, q_out) in REDUCTION_CASES.items():
        sub = tb.Sub([quantized("input", shape, dtype, q_in),
                      tb.T("axes", (len(axes),), "int32", data=np.array(axes, np.int32)),
                      quantized("output", reduced_shape(shape, axes, keep), dtype, q_out)],
                     [tb.Op(getattr(op_codes, opcode), [0, 1], [2], options=reducer_options(keep))], [0], [2])
        written.append(_write(name, tb.build([sub])))
    for name, (shape, axis, exclusive, reverse, q_in, q_out) in CUMSUM_CASES.items():
        sub = tb.Sub([quantized("input", shape, "int8", q_in), tb.T("axis", (), "int32", data=np.array(axis, np.int32)),
                      quantized("output", shape, "int8", q_out)],
                     [tb.Op(op_codes.CUMSUM, [0, 1], [2], options=cumsum_options(exclusive, reverse))], [0], [2])
        written.append(_write(name, tb.build([sub])))
    for name, (shape, padding, stride, size, activation) in L2_POOL_CASES.items():
        out_h = -(-shape[1] // stride[0]) if padding == 0 else (shape[1] - size[0]) // stride[0] + 1
        out_w = -(-shape[2] // stride[1]) if padding == 0 else (shape[2] - size[1]) // stride[1] + 1
        sub = tb.Sub([tb.T("input", shape, "float32"), tb.T("output", (shape[0], out_h, out_w, shape[3]), "float32")],
                     [tb.Op(op_codes.L2_POOL_2D, [0], [1], options=pool_options(padding, stride, size, activation))],
                     [0], [1])
        written.append(_write(name, tb.build([sub])))
    for name, (shape, q_in) in LOG_SOFTMAX_CASES.items():
        sub = tb.Sub([quantized("input", shape, "int8", q_in), quantized("output", shape, "int8", (16 / 256, 127))],
                     [tb.Op(op_codes.LOG_SOFTMAX, [0], [1])], [0], [1])
        written.append(_write(name, tb.build([sub])))
    return written


def _write(name: str, data: bytes) -> str:
    path = MODELS_DIR / f"{name}.tflite"
    path.write_bytes(data)
    print(f"{path.name}: {' '.join(opcodes(path))}")
    return name


def main() -> None:
    failures = []
    jobs = [(name, spec, (("int8", ""), ("float32", "_f32"))) for name, spec in models().items()]
    jobs += [(name, spec, (("float32", ""),)) for name, spec in float_models().items()]
    for name, (build, shapes, wanted), variants in jobs:
        for quantize, suffix in variants:
            convert_checked(build, shapes, name + suffix, wanted, failures, quantize=quantize, seed=len(name))
    write_hand_built()
    if failures:
        raise SystemExit("\n".join(failures))


if __name__ == "__main__":
    main()
