"""ctx.write_in_place: an elementwise output shares the buffer of an input that dies there."""
from __future__ import annotations

import numpy as np

from usmp.ir.graph import Graph, Operator, Tensor
from usmp.lower.context import LowerContext


def graph(extra_consumer: bool = False, out_dtype: str = "int8", out_shape=(1, 8)) -> Graph:
    tensors = [
        Tensor(0, "in", (1, 8), "int8"),
        Tensor(1, "mid", (1, 8), "int8"),
        Tensor(2, "act", out_shape, out_dtype),
        Tensor(3, "out", (1, 8), "int8"),
        Tensor(4, "weights", (1, 8), "int8", data=np.zeros((1, 8), np.int8)),
        Tensor(5, "side", (1, 8), "int8"),
    ]
    ops = [Operator(0, "A", [0], [1]), Operator(1, "B", [1], [2]), Operator(2, "C", [2], [3])]
    if extra_consumer:
        ops.append(Operator(3, "D", [1], [5]))
    outputs = [3] + ([5] if extra_consumer else [])
    return Graph("g", tensors, ops, [0], outputs)


def lower_first_two(g: Graph, output: int, source: int):
    ctx = LowerContext(g)
    ctx.begin(g.operators[0])
    ctx.call("op_a", x=ctx.read(0), y=ctx.write(1))
    ctx.end()
    ctx.begin(g.operators[1])
    allowed = ctx.can_write_in_place(output, source)
    out = ctx.write_in_place(output, source)
    ctx.call("op_b", x=ctx.read(source), y=out)
    ctx.end()
    return ctx, allowed, out


def test_output_shares_the_dying_input_buffer_and_is_one_argument():
    ctx, allowed, out = lower_first_two(graph(), 2, 1)
    assert allowed
    assert out.buffer == ctx.tensor_buffers[1] == ctx.tensor_buffers[2]
    assert ctx.buffers[out.buffer].tensors == [1, 2]
    op = ctx.ops[-1]
    assert len(op.args) == 1 and op.args[0].writable
    assert op.calls[0].args == [op.args[0].name, op.args[0].name]


def test_refused_when_another_operator_still_reads_the_input():
    ctx, allowed, out = lower_first_two(graph(extra_consumer=True), 2, 1)
    assert not allowed and out.buffer != ctx.tensor_buffers[1]


def test_refused_for_a_different_type_or_size():
    for kwargs in ({"out_dtype": "int16"}, {"out_shape": (1, 4)}):
        ctx, allowed, out = lower_first_two(graph(**kwargs), 2, 1)
        assert not allowed and out.buffer != ctx.tensor_buffers[1]


def test_refused_over_model_inputs_constants_and_into_model_outputs():
    g = graph()
    ctx = LowerContext(g)
    ctx.begin(g.operators[0])
    assert not ctx.can_write_in_place(1, 0)  # the model input belongs to the caller
    assert not ctx.can_write_in_place(1, 4)  # constants are read-only
    ctx.end()
    g2 = graph()
    ctx2, _, _ = lower_first_two(g2, 2, 1)
    ctx2.begin(g2.operators[2])
    assert not ctx2.can_write_in_place(3, 2)  # model outputs are the caller's memory
