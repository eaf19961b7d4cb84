"""Make the recurrent test models (SVDF, UNIDIRECTIONAL_SEQUENCE_LSTM) in tests/models/stateful/.

    /work/tfvenv/bin/python tests/models/make_rnn_models.py

The LSTM models come from Keras 2 (the tf_keras package: Keras 3's LSTM
converts to a WHILE loop, Keras 2's to the fused UNIDIRECTIONAL_SEQUENCE_LSTM
whose hidden and cell states are variable tensors, carried from one
inference to the next on TFLite Micro). int8 ones by full-integer
post-training quantization (int8 activations, int16 cell state, int8
weights). One has its cell_clip option patched small so that the clipping
is exercised (the converter always writes 10).

TensorFlow has no SVDF layer, so the SVDF models are written by hand with
tests/tflite_builder.py (fixed seeds): weights drawn in float and quantized
the way TFLite's converter does (symmetric weights, int32 bias at
state_scale * time_scale), shapes like TFLite Micro's keyword-spotting
SVDF layers. Their state is a variable tensor updated in place every
inference; tests/test_stateful.py and tests/test_ops_rnn.py run them as
sequences against one TFLite Micro interpreter.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from model_tools import MODELS_DIR, opcodes  # noqa: E402

STATEFUL_DIR = MODELS_DIR / "stateful"
ACT = {"NONE": 0, "RELU": 1, "RELU_N1_TO_1": 2, "RELU6": 3, "TANH": 4, "SIGN_BIT": 5}


def _symmetric(values: np.ndarray, dtype, bits: int):
    """Symmetric per-tensor quantization of constant weights: (data, scale)."""
    limit = 2 ** (bits - 1) - 1
    scale = float(np.float32(np.abs(values).max() / limit))
    return np.clip(np.round(values / scale), -limit, limit).astype(dtype), scale


def svdf_model(path: Path, seed: int, batches: int, input_size: int, units: int, rank: int, memory: int,
               dtype: str, state_type: str = "int16", activation: str = "NONE", dense: int = 0,
               state_zero_point: int = 0) -> Path:
    """input [batches, input_size] -> SVDF (state [batches, units*rank*memory]) [-> FULLY_CONNECTED dense]."""
    import tflite

    import tflite_builder as tb

    rng = np.random.default_rng(seed)
    filters = units * rank
    wf = rng.normal(0, 0.4, (filters, input_size)).astype(np.float32)
    wt = rng.normal(0, 0.4, (filters, memory)).astype(np.float32)
    bias = rng.normal(0, 0.3, units).astype(np.float32)
    wd = rng.normal(0, 0.4, (dense, units)).astype(np.float32) if dense else None
    svdf_options = (tflite.BuiltinOptions.SVDFOptions, _svdf_options(rank, ACT[activation]))
    fc_options = (tflite.BuiltinOptions.FullyConnectedOptions, _fc_options())
    out_shape = (batches, units)
    if dtype == "float32":
        tensors = [tb.T("input", (batches, input_size), "float32"),
                   tb.T("weights_feature", (filters, input_size), "float32", data=wf),
                   tb.T("weights_time", (filters, memory), "float32", data=wt),
                   tb.T("bias", (units,), "float32", data=bias),
                   tb.T("state", (batches, filters * memory), "float32", variable=True),
                   tb.T("svdf_out", out_shape, "float32")]
        if dense:
            tensors += [tb.T("dense_w", (dense, units), "float32", data=wd),
                        tb.T("dense_b", (dense,), "float32", data=np.zeros(dense, np.float32)),
                        tb.T("output", (batches, dense), "float32")]
    else:
        in_scale, in_zp = 3.0 / 127, -4
        wf_q, wf_scale = _symmetric(wf, np.int8, 8)
        state_bits = 16 if state_type == "int16" else 8
        wt_q, wt_scale = _symmetric(wt, np.int16 if state_bits == 16 else np.int8, state_bits)
        # The state holds projections of inputs up to 3 in magnitude; give it room for them.
        projection = np.abs(wf).sum(axis=1).max() * 3.0
        state_scale = float(np.float32(projection / (2 ** (state_bits - 1) - 1)))
        bias_scale = float(np.float32(np.float32(state_scale) * np.float32(wt_scale)))
        bias_q = np.round(bias / bias_scale).astype(np.int32)
        out_scale = float(np.float32((projection * np.abs(wt).sum(axis=1).max() * rank / 4) / 127))
        tensors = [tb.T("input", (batches, input_size), "int8", scales=[in_scale], zero_points=[in_zp]),
                   tb.T("weights_feature", (filters, input_size), "int8", data=wf_q, scales=[wf_scale]),
                   tb.T("weights_time", (filters, memory), state_type, data=wt_q, scales=[wt_scale]),
                   tb.T("bias", (units,), "int32", data=bias_q, scales=[bias_scale]),
                   tb.T("state", (batches, filters * memory), state_type, variable=True, scales=[state_scale],
                        zero_points=[state_zero_point]),
                   tb.T("svdf_out", out_shape, "int8", scales=[out_scale], zero_points=[5])]
        if dense:
            wd_q, wd_scale = _symmetric(wd, np.int8, 8)
            d_scale = float(np.float32(out_scale * 127 * np.abs(wd).sum(axis=1).max() / 2 / 127))
            tensors += [tb.T("dense_w", (dense, units), "int8", data=wd_q, scales=[wd_scale]),
                        tb.T("dense_b", (dense,), "int32", data=np.zeros(dense, np.int32),
                             scales=[float(np.float32(out_scale) * np.float32(wd_scale))]),
                        tb.T("output", (batches, dense), "int8", scales=[d_scale], zero_points=[-2])]
    ops = [tb.Op(tflite.BuiltinOperator.SVDF, [0, 1, 2, 3, 4], [5], options=svdf_options)]
    if dense:
        ops.append(tb.Op(tflite.BuiltinOperator.FULLY_CONNECTED, [5, 6, 7], [8], options=fc_options))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(tb.build([tb.Sub(tensors, ops, [0], [len(tensors) - 1])]))
    return path


def _svdf_options(rank: int, activation: int):
    import tflite

    def options(b):
        tflite.SVDFOptionsStart(b)
        tflite.SVDFOptionsAddRank(b, rank)
        tflite.SVDFOptionsAddFusedActivationFunction(b, activation)
        return tflite.SVDFOptionsEnd(b)

    return options


def _fc_options():
    import tflite

    def options(b):
        tflite.FullyConnectedOptionsStart(b)
        return tflite.FullyConnectedOptionsEnd(b)

    return options


def svdf_models() -> list[Path]:
    return [
        # A keyword-spotting layer: 16 features per frame, 8 units of rank 2 over 8 frames, then a dense layer.
        svdf_model(STATEFUL_DIR / "svdf_kws.tflite", 1, 1, 16, 8, 2, 8, "int8", dense=4),
        # int8 state and time weights, state zero point away from 0, two streams in a batch, rank 3.
        svdf_model(STATEFUL_DIR / "svdf_s8_state.tflite", 2, 2, 6, 3, 3, 5, "int8", state_type="int8",
                   state_zero_point=-7),
        svdf_model(STATEFUL_DIR / "svdf_f32.tflite", 3, 1, 16, 8, 2, 8, "float32", activation="RELU", dense=4),
        svdf_model(STATEFUL_DIR / "svdf_f32_batch.tflite", 4, 2, 5, 4, 1, 6, "float32", activation="RELU6"),
    ]


def lstm_model(name: str, seed: int, quantize: str, batches: int = 1, steps: int = 3, features: int = 5,
               units: int = 4, time_major: bool = False, head: int = 0, cell_clip: float | None = None,
               layers: int = 1) -> Path:
    """input [batches, steps, features] (or [steps, batches, features]) -> LSTM (all steps) x layers
    [-> last step -> Dense(head)]."""
    import tensorflow as tf
    import tf_keras

    tf_keras.utils.set_random_seed(seed)
    shape = (steps, batches, features) if time_major else (batches, steps, features)
    inp = tf_keras.Input(shape=shape[1:], batch_size=shape[0], name="frames")  # named: no counter in the file
    out = inp
    for _ in range(layers):
        out = tf_keras.layers.LSTM(units, return_sequences=True, time_major=time_major, unroll=False,
                                   recurrent_initializer="glorot_uniform", unit_forget_bias=True)(out)
    if head:
        out = tf_keras.layers.Dense(head)(out[:, -1, :])
    model = tf_keras.Model(inp, out)
    # Larger weights than Keras' initialisers give, so the gates leave their linear middle.
    model.set_weights([w * 2.5 for w in model.get_weights()])
    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    if quantize == "int8":
        rng = np.random.default_rng(seed)

        def representative():
            for _ in range(64):
                yield [rng.uniform(-3.0, 3.0, shape).astype(np.float32)]

        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        converter.representative_dataset = representative
        converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        converter.inference_input_type = tf.int8
        converter.inference_output_type = tf.int8
    data = bytearray(converter.convert())
    if cell_clip is not None:
        _patch_cell_clip(data, cell_clip)
    path = STATEFUL_DIR / f"{name}.tflite"
    path.write_bytes(bytes(data))
    return path


def _patch_cell_clip(data: bytearray, value: float) -> None:
    """Overwrite the cell_clip option of the (first) LSTM in place."""
    import struct

    import tflite

    model = tflite.Model.GetRootAsModel(data, 0)
    graph = model.Subgraphs(0)
    for i in range(graph.OperatorsLength()):
        op = graph.Operators(i)
        if model.OperatorCodes(op.OpcodeIndex()).BuiltinCode() != tflite.BuiltinOperator.UNIDIRECTIONAL_SEQUENCE_LSTM:
            continue
        options = tflite.UnidirectionalSequenceLSTMOptions()
        table = op.BuiltinOptions()
        options.Init(table.Bytes, table.Pos)
        field = options._tab.Offset(6)  # cell_clip
        assert field, "the converter wrote no cell_clip to patch"
        struct.pack_into("<f", data, options._tab.Pos + field, value)
        return
    raise AssertionError("no UNIDIRECTIONAL_SEQUENCE_LSTM")


def lstm_models() -> list[Path]:
    return [
        lstm_model("lstm_i8", 1, "int8"),
        # A classifier on the last step, two streams in a batch.
        lstm_model("lstm_i8_batch_head", 2, "int8", batches=2, steps=4, features=3, units=6, head=3),
        lstm_model("lstm_i8_time_major", 3, "int8", batches=2, steps=3, features=4, units=5, time_major=True),
        lstm_model("lstm_i8_clip", 4, "int8", cell_clip=0.3),
        # Two layers (their gate tables are stored once), then a classifier on the last step.
        lstm_model("lstm_i8_stacked", 7, "int8", steps=2, features=4, units=3, head=2, layers=2),
        lstm_model("lstm_f32", 5, "float32"),
        lstm_model("lstm_f32_time_major_clip", 6, "float32", batches=2, steps=3, features=4, units=5,
                   time_major=True, cell_clip=0.3),
    ]


def main() -> None:
    for path in lstm_models():
        ops = opcodes(path)
        assert "UNIDIRECTIONAL_SEQUENCE_LSTM" in ops, (path.name, ops)
        print(f"{path.relative_to(MODELS_DIR)}: {path.stat().st_size} bytes, {' '.join(ops)}")
    for path in svdf_models():
        print(f"{path.relative_to(MODELS_DIR)}: {path.stat().st_size} bytes, {' '.join(opcodes(path))}")


if __name__ == "__main__":
    main()
