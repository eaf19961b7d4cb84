"""CAST between float32, int8, int16, int32 and bool, and uint32 <-> int32: the pairs TFLite Micro converts.

TFLite Micro ignores quantization parameters here (a plain C++ conversion);
usmp_kernels/cast.h says what each conversion does at the edges. uint8 and
int64 are refused: TFLite Micro's CAST stops with an error on them.
"""
from __future__ import annotations

from usmp.lower.ops import lowering
from usmp.lower.ops.activations import unary_refs
from usmp.lower.ops.common import require_dtype

SUFFIXES = {"float32": "f32", "int8": "s8", "int16": "s16", "int32": "s32", "bool": "b8"}


@lowering("CAST")
def lower_cast(op, ctx):
    inp, out = ctx.tensor(op.inputs[0]), ctx.tensor(op.outputs[0])
    if "uint32" in (inp.dtype, out.dtype):  # the audio front end's uint32 <-> int32
        require_dtype(ctx, inp, *(("int32",) if out.dtype == "uint32" else ("uint32",)))
        require_dtype(ctx, out, *(("int32",) if inp.dtype == "uint32" else ("uint32",)))
        function = "usmp_cast_u32_s32" if inp.dtype == "uint32" else "usmp_cast_s32_u32"
        ctx.call(function, "usmp_cast_params", dict(size=out.num_elements), **unary_refs(op, ctx))
        return
    require_dtype(ctx, inp, *SUFFIXES)
    require_dtype(ctx, out, *SUFFIXES)
    if inp.num_elements != out.num_elements:
        raise ctx.fail(f"input shape {list(inp.shape)} and output shape {list(out.shape)} differ in size")
    function = f"usmp_cast_{SUFFIXES[inp.dtype]}_{SUFFIXES[out.dtype]}"
    ctx.call(function, "usmp_cast_params", dict(size=out.num_elements), **unary_refs(op, ctx))
