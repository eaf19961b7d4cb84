"""The code that gives every state buffer its initial contents (init() and reset()).

Computed here, at compile time: a buffer whose initial bytes are all equal
(zero points, zeros) is filled with that byte, any other is copied from a
constant holding its initial image.
"""
from __future__ import annotations

import numpy as np

from usmp.ir.graph import Operator
from usmp.lower.program import LoweredOp

INIT_OPCODE = "STATE_INIT"


def lower_init(ctx, names: list[str]) -> list[LoweredOp]:
    """One operator whose calls set each named state buffer; kept apart from the schedule."""
    if not names:
        return []
    from usmp.lower.context import Ref

    start = len(ctx.ops)
    ctx.begin(Operator(len(ctx.graph.operators), INIT_OPCODE, [], []))
    for name in names:
        image = ctx.buffers[name].data
        target = Ref(name, writable=True)
        if image.count(image[:1]) == len(image):
            ctx.call("usmp_fill_bytes", "usmp_fill_bytes_params", dict(count=len(image), value=image[0]),
                     state=target)
        else:
            source = ctx.constant("initial_value", np.frombuffer(image, np.uint8))
            ctx.call("usmp_copy_bytes", "usmp_copy_bytes_params", dict(count=len(image)),
                     initial=source, state=target)
    ctx.end()
    init_ops = ctx.ops[start:]
    del ctx.ops[start:]
    return init_ops
