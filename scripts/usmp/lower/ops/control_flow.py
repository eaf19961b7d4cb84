"""IF and WHILE: their subgraphs become blocks of operators, called from an if/else or a loop (usmp/control)."""
from __future__ import annotations

from usmp.lower.ops import lowering


@lowering("IF")
def lower_if(op, ctx):
    from usmp.control import lower_if as lower

    lower(op, ctx)


@lowering("WHILE")
def lower_while(op, ctx):
    from usmp.control import lower_while as lower

    lower(op, ctx)
