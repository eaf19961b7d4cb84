"""SVDF: a rank-limited filter over the last `memory` frames, its past kept in a variable tensor.

int8 (input, feature weights, output) with an int16 state and int16 time
weights, or an int8 state and int8 time weights, as TFLite Micro does it:
the feature projection is requantized into the state, the time sums into the
output. Both zero points are folded into biases at compile time (modulo 2**32,
as TFLite's int32 sums wrap), so the kernel's inner loops are plain dot
products. The projection is clamped to the state type before the state's
zero point is added, and the sum wraps around in the state type, as the
TFLite Micro interpreter the tests run does it. TFLite Micro applies no fused activation in the integer form (only
the int8 range), so neither does this one. float32: the fused activation
clamps the output, or is TANH or SIGN_BIT. The state is updated in place in its state buffer.
"""
from __future__ import annotations

import numpy as np

from usmp.lower.fixed_point import f32, quantize_multiplier
from usmp.lower.ops import hybrid, lowering
from usmp.lower.ops.common import float_activation, optional_input, require_constant, require_dtype, \
    require_quantized

_STATE_RANGE = {"int16": (-32768, 32767), "int8": (-128, 127)}
_FLOAT_FUNCTIONS = {4: 1, 5: 2}  # TANH, SIGN_BIT -> the kernel's USMP_SVDF_TANH, USMP_SVDF_SIGN_BIT; the rest clamp


@lowering("SVDF")
def lower_svdf(op, ctx):
    if len(op.inputs) != 5 or op.inputs[4] is None:
        raise ctx.fail("SVDF needs 5 inputs: input, feature weights, time weights, bias and the state")
    inp, out = ctx.tensor(op.inputs[0]), ctx.tensor(op.outputs[0])
    features, times = require_constant(ctx, op, 1), require_constant(ctx, op, 2)
    state = ctx.tensor(op.inputs[4])
    if not state.is_variable:
        raise ctx.fail(f"state tensor {state.index} '{state.name}' is not marked as a variable")
    rank = int(op.options.get("rank", 0))
    if len(inp.shape) != 2 or len(features.shape) != 2 or len(times.shape) != 2:
        raise ctx.fail("input, feature weights and time weights must be 2-D")
    batches, input_size = inp.shape
    filters, memory = times.shape
    if rank <= 0 or filters % rank or features.shape != (filters, input_size):
        raise ctx.fail(f"feature weights {list(features.shape)} and time weights {list(times.shape)} do not fit "
                       f"input {list(inp.shape)} with rank {rank}")
    units = filters // rank
    if tuple(out.shape) != (batches, units):
        raise ctx.fail(f"output shape {list(out.shape)} is not [{batches}, {units}]")
    if state.num_elements != batches * filters * memory:
        raise ctx.fail(f"state '{state.name}' {list(state.shape)} does not hold {batches} x {filters * memory} values")
    bias_index = optional_input(op, 3)
    bias = ctx.tensor(bias_index) if bias_index is not None else None
    if bias is not None and (not bias.is_constant or bias.num_elements != units):
        raise ctx.fail(f"bias '{bias.name}' must be a constant of {units} elements")
    shape = dict(batches=batches, input_size=input_size, filters=filters, rank=rank, memory=memory)
    if inp.dtype == "float32" and features.dtype == "int8":  # hybrid: int8 weights, float activations
        hybrid.lower_svdf(op, ctx, shape, _float_output(ctx, op, units))
        return
    dtype = require_dtype(ctx, inp, "int8", "float32")
    require_dtype(ctx, out, dtype)
    if dtype == "float32":
        for tensor in (features, times, state) + ((bias,) if bias is not None else ()):
            require_dtype(ctx, tensor, "float32")
        function, bias_ref = _float_output(ctx, op, units)
        ctx.call("usmp_svdf_f32", "usmp_svdf_f32_params", dict(shape, **function),
                 input=ctx.read(op.inputs[0]), feature_weights=ctx.read(op.inputs[1]),
                 time_weights=ctx.read(op.inputs[2]), bias=bias_ref, state=ctx.state(op.inputs[4]),
                 output=ctx.write(op.outputs[0]))
        return
    state_type = require_dtype(ctx, state, "int16", "int8")
    require_dtype(ctx, features, "int8")
    require_dtype(ctx, times, state_type)
    if bias is not None:
        require_dtype(ctx, bias, "int32")
    q_in, q_out, q_state = (require_quantized(ctx, t) for t in (inp, out, state))
    q_features, q_times = require_quantized(ctx, features), require_quantized(ctx, times)
    feature_multiplier, feature_shift = quantize_multiplier(
        _ratio(q_in.scale, q_features.scale, q_state.scale))
    output_multiplier, output_shift = quantize_multiplier(
        _ratio(q_state.scale, q_times.scale, q_out.scale))
    feature_bias = -q_in.zero_point * features.data.astype(np.int64).sum(axis=1)
    time_sums = times.data.astype(np.int64).reshape(units, rank * memory).sum(axis=1)
    folded = (bias.data.astype(np.int64) if bias is not None else np.zeros(units, np.int64))
    folded = folded - q_state.zero_point * time_sums
    state_min, state_max = _STATE_RANGE[state_type]
    ctx.call(f"usmp_svdf_s8_{'s16' if state_type == 'int16' else 's8'}", "usmp_svdf_s8_params",
             dict(shape, feature_multiplier=feature_multiplier, feature_shift=feature_shift,
                  state_offset=q_state.zero_point, state_min=state_min, state_max=state_max,
                  output_multiplier=output_multiplier, output_shift=output_shift, output_offset=q_out.zero_point),
             input=ctx.read(op.inputs[0]), feature_weights=ctx.read(op.inputs[1]),
             feature_bias=ctx.constant("feature_bias", _wrap32(feature_bias)),
             time_weights=ctx.read(op.inputs[2]), bias=ctx.constant("bias", _wrap32(folded)),
             state=ctx.state(op.inputs[4]), output=ctx.write(op.outputs[0]))


def _float_output(ctx, op, units: int):
    """The float SVDF's output function (activation, act_min, act_max) and its bias (zeros when omitted)."""
    activation = op.options.get("fused_activation_function", 0)
    kind = _FLOAT_FUNCTIONS.get(activation, 0)
    lo, hi = float_activation(ctx, op) if not kind else (0.0, 0.0)
    bias_index = optional_input(op, 3)
    if bias_index is not None:
        require_dtype(ctx, ctx.tensor(bias_index), "float32")
    bias_ref = ctx.read(bias_index) if bias_index is not None else ctx.constant("bias", np.zeros(units, np.float32))
    return dict(activation=kind, act_min=lo, act_max=hi), bias_ref


def _wrap32(values: np.ndarray) -> np.ndarray:
    return ((values + 2**31) % 2**32 - 2**31).astype(np.int32)


def _ratio(a: float, b: float, c: float) -> float:
    """a * b / c as TFLite Micro forms it: in float, then widened to double."""
    return f32(np.float32(np.float32(a) * np.float32(b)) / np.float32(c))
