"""Control flow: IF and WHILE, their subgraphs lowered into blocks that become C functions.

TFLite's IF runs one of two branch subgraphs, WHILE a condition subgraph and,
while it says true, a body subgraph. Each subgraph is lowered like the main
graph, in the same buffer namespace (names prefixed sg<N>/), into a Block; the
IF or WHILE becomes one operator whose generated function copies its operands
into the block's inputs, calls the block functions from an if/else or a loop,
and copies the results out (codegen/control.py writes that C).

The planner sees every buffer once. For liveness the operator is unrolled into
its steps (expanded_steps): an IF's then block, then its else block, so the
two branches' buffers never overlap in time and may share memory; a WHILE's
entry copy, condition, test, body, carry-back copy and exit copy, so the
loop's carried values (written at the entry, read at the exit) live across
the whole loop while each iteration's temporaries live only within it.
"""
from __future__ import annotations

from usmp.control.flow import Block, ControlFlow, Copy, control_regions, expanded_steps, step_positions
from usmp.control.lowering import lower_if, lower_while

__all__ = ["Block", "ControlFlow", "Copy", "control_regions", "expanded_steps", "lower_if", "lower_while", "step_positions"]
