"""Extra subgraphs: the initialisers CALL_ONCE runs, and nothing else.

The converter turns tf.Variable initial values into a subgraph that the main
one enters once, through CALL_ONCE, before its first inference. That pattern
has a static meaning (state set once), so it is read; real control flow
(IF, WHILE, CALL) would need run-time dispatch and is refused by name.
"""
from __future__ import annotations

from typing import Callable

from usmp.errors import ModelError
from usmp.ir.graph import Graph

CONTROL_FLOW = ("IF", "WHILE", "CALL", "CALL_ONCE")
# What an initialiser may do: name variables and give them values.
INIT_OPCODES = ("VAR_HANDLE", "ASSIGN_VARIABLE")


def attach_init_graphs(main: Graph, count: int, read_subgraph: Callable[[int], Graph],
                       fail: Callable[[str], ModelError]) -> Graph:
    """main with every subgraph its CALL_ONCE operators run; other control flow is refused."""
    for op in main.operators:
        if op.opcode in CONTROL_FLOW and op.opcode != "CALL_ONCE":
            raise fail(f"operator {op.index} ({op.opcode}) is control flow, which is not supported "
                       f"(only CALL_ONCE, the initialiser of tf.Variable)")
        if op.opcode != "CALL_ONCE":
            continue
        number = op.options.get("init_subgraph_index")
        if not isinstance(number, int) or not 1 <= number < count:
            raise fail(f"operator {op.index} (CALL_ONCE) runs subgraph {number}, but the model has "
                       f"subgraphs 0 to {count - 1} and subgraph 0 is the main one")
        if number not in main.init_graphs:
            main.init_graphs[number] = _init_graph(read_subgraph(number), number, fail)
    for number in range(1, count):
        if number not in main.init_graphs:
            raise fail(f"the model has {count} subgraphs and subgraph {number} is not run by CALL_ONCE; "
                       f"only initialiser subgraphs are supported besides the main one")
    return main


def _init_graph(graph: Graph, number: int, fail: Callable[[str], ModelError]) -> Graph:
    for op in graph.operators:
        if op.opcode in CONTROL_FLOW:
            raise fail(f"subgraph {number} operator {op.index} ({op.opcode}) is control flow inside an "
                       f"initialiser, which is not supported")
        if op.opcode not in INIT_OPCODES:
            raise fail(f"subgraph {number} operator {op.index} ({op.opcode}): an initialiser subgraph may only "
                       f"use {' and '.join(INIT_OPCODES)} (with constant values)")
    return graph
