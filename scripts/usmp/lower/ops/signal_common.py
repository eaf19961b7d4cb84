"""What the lowerings of TFLite Micro's signal library share: reading their FlexBuffer options.

The custom operators (SignalWindow, SignalRfft, ...) carry their settings as a
FlexBuffer map, which the importer reads into op.options; each lowering takes
the ones it needs, checked here so a damaged or foreign model gets a one-line
error naming the option.
"""
from __future__ import annotations


def int_option(ctx, op, name: str, low: int | None = None, high: int | None = None) -> int:
    value = op.options.get(name)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ctx.fail(f"option '{name}' is {value!r}; an integer is needed")
    if (low is not None and value < low) or (high is not None and value > high):
        raise ctx.fail(f"option '{name}' is {value}, outside [{low}, {high}]")
    return value


def bool_option(ctx, op, name: str) -> bool:
    value = op.options.get(name, False)
    if not isinstance(value, (bool, int)):
        raise ctx.fail(f"option '{name}' is {value!r}; a boolean is needed")
    return bool(value)


def operands(ctx, op, inputs: int, outputs: int):
    """The operator's input and output tensors, as many as it must have."""
    if len(op.inputs) != inputs or any(i is None for i in op.inputs) or len(op.outputs) != outputs:
        raise ctx.fail(f"has {len(op.inputs)} inputs and {len(op.outputs)} outputs; it takes {inputs} and "
                       f"gives {outputs}")
    return [ctx.tensor(i) for i in op.inputs], [ctx.tensor(i) for i in op.outputs]
