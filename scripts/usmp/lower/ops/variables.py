"""Resource variables: VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE and CALL_ONCE.

The state stage (usmp/state) has already resolved every handle to a state
buffer and decided which reads are views and which values are computed in
place; what is left here is a byte copy where neither was safe. VAR_HANDLE
and CALL_ONCE emit nothing: handles are compile-time names, and the
initialiser becomes the generated init() and reset().
"""
from __future__ import annotations

from usmp.lower.context import Ref
from usmp.lower.ops import lowering


@lowering("VAR_HANDLE", "CALL_ONCE")
def lower_nothing(op, ctx):
    return


@lowering("READ_VARIABLE")
def lower_read(op, ctx):
    state = ctx.variable(op.inputs[0])
    out = ctx.write(op.outputs[0])
    if out.buffer != state.buffer:
        copy_bytes(ctx, ctx.tensor(op.outputs[0]).nbytes, Ref(state.buffer, writable=False), out)


@lowering("ASSIGN_VARIABLE")
def lower_assign(op, ctx):
    state = ctx.variable(op.inputs[0])
    value = ctx.read(op.inputs[1])
    if value.buffer != state.buffer:
        copy_bytes(ctx, ctx.tensor(op.inputs[1]).nbytes, value, state)


def copy_bytes(ctx, count: int, source, target) -> None:
    """Any element type: variables hold whatever their operators compute."""
    ctx.call("usmp_copy_bytes", "usmp_copy_bytes_params", dict(count=int(count)), input=source, output=target)
