"""ADD_N: the sum of two or more tensors of the output's shape (float32, int8).

A kernel call has a fixed list of pointers, so the sum is built one input
per call, in TFLite's order (usmp_kernels/add_n.h): float32 accumulates in
the output; int8 rescales every input like int8 ADD (20 bits of headroom,
half the common input scale) into an int32 scratch sum, then rescales the
sum to the output. TFLite Micro needs all int8 inputs quantized alike.
"""
from __future__ import annotations

from usmp.lower.fixed_point import INT8_MAX, INT8_MIN
from usmp.lower.ops import lowering
from usmp.lower.ops.arith_binary import smaller_than_one
from usmp.lower.ops.common import require_dtype, require_quantized

ADD_N_LEFT_SHIFT = 20  # TFLite's headroom for int8 ADD_N


@lowering("ADD_N")
def lower_add_n(op, ctx):
    if len(op.inputs) < 2 or any(i is None for i in op.inputs):
        raise ctx.fail("needs at least two inputs")
    inputs, out = [ctx.tensor(i) for i in op.inputs], ctx.tensor(op.outputs[0])
    dtype = require_dtype(ctx, out, "int8", "float32")
    for t in inputs:
        require_dtype(ctx, t, dtype)
        if t.num_elements != out.num_elements:
            raise ctx.fail(f"input shape {list(t.shape)} differs from the output shape {list(out.shape)}")
    size = out.num_elements
    first, rest = op.inputs[0], op.inputs[1:]
    # The first call may overwrite the first input, unless a later call reads it again.
    output = ctx.write(op.outputs[0]) if first in rest else ctx.write_in_place(op.outputs[0], first)
    if dtype == "float32":
        params = dict(size=size)
        ctx.call("usmp_add_n_f32_first", "usmp_add_n_f32_params", params, input=ctx.read(first), sum=output)
        for index in rest:
            ctx.call("usmp_add_n_f32_accumulate", "usmp_add_n_f32_params", params, input=ctx.read(index), sum=output)
        return
    q, qo = require_quantized(ctx, inputs[0]), require_quantized(ctx, out)
    for t in inputs[1:]:
        qt = require_quantized(ctx, t)
        if (qt.scale, qt.zero_point) != (q.scale, q.zero_point):
            raise ctx.fail(f"int8 inputs must share one quantization; tensor {t.index} '{t.name}' differs from "
                           f"tensor {inputs[0].index} '{inputs[0].name}'")
    twice_max = 2.0 * q.scale
    input_multiplier, input_shift = smaller_than_one(ctx, q.scale / twice_max, "input")
    output_multiplier, output_shift = smaller_than_one(ctx, twice_max / ((1 << ADD_N_LEFT_SHIFT) * qo.scale), "output")
    params = dict(size=size, input_offset=-q.zero_point, left_shift=ADD_N_LEFT_SHIFT, input_multiplier=input_multiplier,
                  input_shift=input_shift, output_offset=qo.zero_point, output_multiplier=output_multiplier,
                  output_shift=output_shift, act_min=INT8_MIN, act_max=INT8_MAX)
    total = ctx.scratch("sum", 4 * size, "int32_t", alignment=4)
    ctx.call("usmp_add_n_s8_first", "usmp_add_n_s8_params", params, input=ctx.read(first), sum=total)
    for index in rest:
        ctx.call("usmp_add_n_s8_accumulate", "usmp_add_n_s8_params", params, input=ctx.read(index), sum=total)
    ctx.call("usmp_add_n_s8_finish", "usmp_add_n_s8_params", params, sum=total, output=output)
