"""SignalFilterBankLog (TFLite Micro's signal library): output_scale * ln(x << correction bits) in fixed
point, as int16. The logarithm interpolates a table over one octave: the correction of log2(1 + f) against
f, in 2^16 units over 128 segments (its published values, which the bit-exact results depend on)."""
from __future__ import annotations

import numpy as np

from usmp.lower.ops import lowering
from usmp.lower.ops.common import require_dtype
from usmp.lower.ops.signal_common import int_option, operands

LOG2_CORRECTION = np.array([
    0, 224, 442, 654, 861, 1063, 1259, 1450, 1636, 1817, 1992, 2163, 2329, 2490, 2646, 2797, 2944, 3087, 3224,
    3358, 3487, 3611, 3732, 3848, 3960, 4068, 4172, 4272, 4368, 4460, 4549, 4633, 4714, 4791, 4864, 4934, 5001,
    5063, 5123, 5178, 5231, 5280, 5326, 5368, 5408, 5444, 5477, 5507, 5533, 5557, 5578, 5595, 5610, 5622, 5631,
    5637, 5640, 5641, 5638, 5633, 5626, 5615, 5602, 5586, 5568, 5547, 5524, 5498, 5470, 5439, 5406, 5370, 5332,
    5291, 5249, 5203, 5156, 5106, 5054, 5000, 4944, 4885, 4825, 4762, 4697, 4630, 4561, 4490, 4416, 4341, 4264,
    4184, 4103, 4020, 3935, 3848, 3759, 3668, 3575, 3481, 3384, 3286, 3186, 3084, 2981, 2875, 2768, 2659, 2549,
    2437, 2323, 2207, 2090, 1971, 1851, 1729, 1605, 1480, 1353, 1224, 1094, 963, 830, 695, 559, 421, 282, 142, 0,
    0], dtype=np.uint16)


@lowering("CUSTOM:SignalFilterBankLog")
def lower_signal_filter_bank_log(op, ctx):
    (inp,), (out,) = operands(ctx, op, 1, 1)
    require_dtype(ctx, inp, "uint32")
    require_dtype(ctx, out, "int16")
    if out.num_elements != inp.num_elements:
        raise ctx.fail(f"input of {inp.num_elements} channels, output of {out.num_elements}")
    params = dict(channels=inp.num_elements, output_scale=int_option(ctx, op, "output_scale", 0, (1 << 32) - 1),
                  correction_bits=int_option(ctx, op, "input_correction_bits", 0, 31))
    ctx.call("usmp_signal_filter_bank_log", "usmp_signal_filter_bank_log_params", params,
             input=ctx.read(op.inputs[0]), log_table=ctx.constant("log2_correction", LOG2_CORRECTION),
             output=ctx.write(op.outputs[0]))
