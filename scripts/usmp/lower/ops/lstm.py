"""UNIDIRECTIONAL_SEQUENCE_LSTM, as TFLite Micro evaluates it: four gates, no peephole, projection or layer norm.

int8 activations and hidden state, int16 cell state, int8 weights, int32
biases (or the "16x8" form: int16 activations, int64 biases): each gate is
two products (input, previous hidden state)
requantized into Q3.12 int16, summed, and squashed into Q0.15 by the int16
table sigmoid or tanh; the cell and hidden updates are int16 products
requantized into the cell's power-of-two scale and the hidden state's scale.
Everything that does not depend on the data is computed here: the
multipliers, the zero points folded into the biases (modulo 2**32, as
TFLite's int32 sums wrap), the quantized cell clip, the tanh input scaling,
and the four gates' weights stacked into one matrix per operand (the
original weight tensors are then not stored). float32 follows the same
steps in float. The hidden and cell states are variable tensors updated in
place; every step's hidden state is also written to the output.
"""
from __future__ import annotations

import math

import numpy as np

from usmp.lower.fixed_point import quantize_multiplier
from usmp.lower.ops import hybrid, lowering
from usmp.lower.ops.common import require_dtype, require_quantized

INPUT, HIDDEN, CELL = 0, 18, 19
# Inputs per gate, in the kernel's order forget, input, cell, output: (input weights, recurrent weights, bias).
GATES = ((2, 6, 13), (1, 5, 12), (3, 7, 14), (4, 8, 15))
ABSENT = {9: "peephole (cell-to-gate) weights", 10: "peephole (cell-to-gate) weights",
          11: "peephole (cell-to-gate) weights", 16: "projection weights", 17: "projection bias",
          20: "layer norm coefficients", 21: "layer norm coefficients", 22: "layer norm coefficients",
          23: "layer norm coefficients"}
ACT_TANH = 4
Q3_12, Q0_15 = 2.0 ** -12, 2.0 ** -15

# sigmoid(i / 24) in 0.16 fixed point, i = 0..255: the interpolation table of TFLite's int16 logistic and tanh
# (its published values, which the bit-exact results depend on).
SIGMOID_TABLE = np.array([
    32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498, 40149, 40794, 41432, 42064, 42688,
    43304, 43912, 44511, 45102, 45683, 46255, 46817, 47369, 47911, 48443, 48964, 49475, 49975, 50464, 50942, 51409,
    51865, 52311, 52745, 53169, 53581, 53983, 54374, 54755, 55125, 55485, 55834, 56174, 56503, 56823, 57133, 57433,
    57724, 58007, 58280, 58544, 58800, 59048, 59288, 59519, 59743, 59959, 60168, 60370, 60565, 60753, 60935, 61110,
    61279, 61441, 61599, 61750, 61896, 62036, 62172, 62302, 62428, 62549, 62666, 62778, 62886, 62990, 63090, 63186,
    63279, 63368, 63454, 63536, 63615, 63691, 63765, 63835, 63903, 63968, 64030, 64090, 64148, 64204, 64257, 64308,
    64357, 64405, 64450, 64494, 64536, 64576, 64614, 64652, 64687, 64721, 64754, 64786, 64816, 64845, 64873, 64900,
    64926, 64950, 64974, 64997, 65019, 65039, 65060, 65079, 65097, 65115, 65132, 65149, 65164, 65179, 65194, 65208,
    65221, 65234, 65246, 65258, 65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360, 65367,
    65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425, 65429, 65433, 65438, 65442, 65445, 65449,
    65453, 65456, 65459, 65462, 65465, 65468, 65471, 65474, 65476, 65479, 65481, 65483, 65485, 65488, 65489, 65491,
    65493, 65495, 65497, 65498, 65500, 65501, 65503, 65504, 65505, 65507, 65508, 65509, 65510, 65511, 65512, 65513,
    65514, 65515, 65516, 65517, 65517, 65518, 65519, 65520, 65520, 65521, 65522, 65522, 65523, 65523, 65524, 65524,
    65525, 65525, 65526, 65526, 65526, 65527, 65527, 65528, 65528, 65528, 65529, 65529, 65529, 65529, 65530, 65530,
    65530, 65530, 65531, 65531, 65531, 65531, 65531, 65532, 65532, 65532, 65532, 65532, 65532, 65533, 65533, 65533,
    65533, 65533, 65533, 65533, 65533, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65535,
], dtype=np.uint16)


@lowering("UNIDIRECTIONAL_SEQUENCE_LSTM")
def lower_lstm(op, ctx):
    inputs = list(op.inputs) + [None] * (24 - len(op.inputs))
    for position, what in ABSENT.items():
        if inputs[position] is not None:
            raise ctx.fail(f"{what} (input {position}) are not supported; TFLite Micro's LSTM has none")
    for position in [p for gate in GATES for p in gate] + [HIDDEN, CELL]:
        if inputs[position] is None:
            raise ctx.fail(f"input {position} is missing (all four gates, their biases and both states are needed)")
    inp, out = ctx.tensor(inputs[INPUT]), ctx.tensor(op.outputs[0])
    hidden, cell = ctx.tensor(inputs[HIDDEN]), ctx.tensor(inputs[CELL])
    for state in (hidden, cell):
        if not state.is_variable:
            raise ctx.fail(f"state tensor {state.index} '{state.name}' is not marked as a variable")
    time_major = bool(op.options.get("time_major", False))
    if len(inp.shape) != 3:
        raise ctx.fail(f"input '{inp.name}' must be 3-D, not {list(inp.shape)}")
    steps, batches, input_size = inp.shape if time_major else (inp.shape[1], inp.shape[0], inp.shape[2])
    if len(hidden.shape) != 2 or hidden.shape[0] != batches:
        raise ctx.fail(f"hidden state '{hidden.name}' {list(hidden.shape)} is not [{batches}, units]")
    units = hidden.shape[1]
    if tuple(cell.shape) != tuple(hidden.shape):
        raise ctx.fail(f"cell state '{cell.name}' {list(cell.shape)} differs from the hidden state {list(hidden.shape)}")
    expected = (inp.shape[0], inp.shape[1], units)
    if tuple(out.shape) != expected:
        raise ctx.fail(f"output shape {list(out.shape)} is not {list(expected)}")
    weights = []
    for w_in, w_rec, bias in GATES:
        for position, shape in ((w_in, (units, input_size)), (w_rec, (units, units)), (bias, (units,))):
            tensor = ctx.tensor(inputs[position])
            if not tensor.is_constant or tuple(tensor.shape) != shape:
                raise ctx.fail(f"input {position} '{tensor.name}' must be a constant of shape {list(shape)}")
        weights.append(tuple(ctx.tensor(inputs[p]) for p in (w_in, w_rec, bias)))
    if op.options.get("diagonal_recurrent_tensors", False):
        raise ctx.fail("diagonal recurrent weights (option diagonal_recurrent_tensors) are not supported")
    if op.options.get("fused_activation_function", 0) != ACT_TANH:
        raise ctx.fail("the cell gate activation must be TANH (the only one TFLite Micro evaluates)")
    cell_clip = float(np.float32(op.options.get("cell_clip", 0.0)))
    shape = dict(batches=batches, time_steps=steps, input_size=input_size, state_size=units,
                 time_major=int(time_major))
    if inp.dtype == "float32" and ctx.tensor(inputs[GATES[0][0]]).dtype == "int8":  # int8 weights, float rest
        hybrid.lower_lstm(op, ctx, inputs, weights, shape, max(cell_clip, 0.0))
        return
    dtype = require_dtype(ctx, inp, "int8", "int16", "float32")
    if dtype == "float32":
        for tensor in [hidden, cell, out] + [t for gate in weights for t in gate]:
            require_dtype(ctx, tensor, "float32")

        def stack(k):
            return np.concatenate([gate[k].data.astype(np.float32) for gate in weights])

        ctx.call("usmp_lstm_f32", "usmp_lstm_f32_params", dict(shape, cell_clip=max(cell_clip, 0.0)),
                 input=ctx.read(inputs[INPUT]), input_weights=ctx.constant("input_weights", stack(0)),
                 bias=ctx.constant("bias", stack(2)), recurrent_weights=ctx.constant("recurrent_weights", stack(1)),
                 hidden=ctx.state(inputs[HIDDEN]), cell=ctx.state(inputs[CELL]),
                 scratch=ctx.scratch("gates", 5 * units * 4, "float"), output=ctx.write(op.outputs[0]))
        return
    lower_lstm_integer(op, ctx, inputs, weights, shape, cell_clip, dtype)


def lower_lstm_integer(op, ctx, inputs, weights, shape, cell_clip: float, dtype: str) -> None:
    inp, out = ctx.tensor(inputs[INPUT]), ctx.tensor(op.outputs[0])
    hidden, cell = ctx.tensor(inputs[HIDDEN]), ctx.tensor(inputs[CELL])
    require_dtype(ctx, hidden, dtype)
    require_dtype(ctx, out, dtype)
    require_dtype(ctx, cell, "int16")
    bias_type = "int32" if dtype == "int8" else "int64"
    q_in, q_hidden, q_cell = require_quantized(ctx, inp), require_quantized(ctx, hidden), require_quantized(ctx, cell)
    cell_scale, hidden_scale = float(np.float32(q_cell.scale)), float(np.float32(q_hidden.scale))
    cell_power = _log2(ctx, cell, cell_scale)
    gate_scales, in_bias, rec_bias, in_w, rec_w = [], [], [], [], []
    for w_in, w_rec, bias in weights:
        for tensor, wanted in ((w_in, "int8"), (w_rec, "int8"), (bias, bias_type)):
            require_dtype(ctx, tensor, wanted)
        for scale_in, tensor in ((q_in.scale, w_in), (q_hidden.scale, w_rec)):
            q = require_quantized(ctx, tensor)
            if q.zero_point != 0:
                raise ctx.fail(f"weights '{tensor.name}' have a non-zero zero point; they must be symmetric")
            gate_scales += quantize_multiplier(float(np.float32(scale_in)) * float(np.float32(q.scale)) / Q3_12)
        w_x, w_h = w_in.data.astype(np.int64), w_rec.data.astype(np.int64)
        in_bias.append(bias.data.astype(np.int64) - q_in.zero_point * w_x.sum(axis=1))
        rec_bias.append(-q_hidden.zero_point * w_h.sum(axis=1))
        in_w.append(w_in.data)
        rec_w.append(w_rec.data)
    forget = quantize_multiplier(Q0_15 * cell_scale / cell_scale)
    update = quantize_multiplier(Q0_15 * Q0_15 / cell_scale)
    to_hidden = quantize_multiplier(Q0_15 * Q0_15 / hidden_scale)
    quantized_clip = int(min(max(cell_clip / cell_scale, -32768.0), 32767.0)) if cell_clip > 0 else 0
    # The tanh table wants Q3.12 times 3 (steps of 1/24): a left shift from the cell's power, or a right one.
    shift = 15 + cell_power - 3
    tanh_multiplier, tanh_shift = (3 << shift, 0) if shift >= 0 else (3, -shift)
    fold = _wrap32 if dtype == "int8" else (lambda values: values.astype(np.int64))
    ctx.call(f"usmp_lstm_{'s8' if dtype == 'int8' else 's16'}", "usmp_lstm_s8_params",
             dict(shape, forget_multiplier=forget[0], forget_shift=forget[1], update_multiplier=update[0],
                  update_shift=update[1], hidden_multiplier=to_hidden[0], hidden_shift=to_hidden[1],
                  hidden_offset=q_hidden.zero_point, cell_clip=quantized_clip,
                  tanh_multiplier=tanh_multiplier, tanh_shift=tanh_shift),
             input=ctx.read(inputs[INPUT]), input_weights=ctx.constant("input_weights", np.concatenate(in_w)),
             input_bias=ctx.constant("input_bias", fold(np.concatenate(in_bias))),
             recurrent_weights=ctx.constant("recurrent_weights", np.concatenate(rec_w)),
             recurrent_bias=ctx.constant("recurrent_bias", fold(np.concatenate(rec_bias))),
             gate_scales=ctx.constant("gate_scales", np.array(gate_scales, np.int32)),
             sigmoid_table=ctx.constant("sigmoid_table", SIGMOID_TABLE),
             hidden=ctx.state(inputs[HIDDEN]), cell=ctx.state(inputs[CELL]),
             scratch=ctx.scratch("gates", 4 * shape["state_size"] * 2, "int16_t"), output=ctx.write(op.outputs[0]))


def _log2(ctx, tensor, scale: float) -> int:
    """The cell state's scale must be a power of two (TFLite's CheckedLog2: within 1e-3 of an integer)."""
    exact = math.log2(scale)
    power = round(exact)
    if abs(exact - power) >= 1e-3 or not -27 <= power <= 0:
        raise ctx.fail(f"cell state '{tensor.name}' has scale {scale:g}; it must be a power of two in [2^-27, 1]")
    return power


def _wrap32(values: np.ndarray) -> np.ndarray:
    return ((values + 2**31) % 2**32 - 2**31).astype(np.int32)
