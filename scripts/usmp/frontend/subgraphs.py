"""Extra subgraphs: the initialisers CALL_ONCE runs, and the branches and loops of IF and WHILE.

The converter turns tf.Variable initial values into a subgraph that the main
one enters once, through CALL_ONCE, before its first inference (state set
once). IF runs one of two branch subgraphs, WHILE a condition and a body
subgraph in a loop; those become C functions (usmp/control). CALL, and any
subgraph nothing runs, are refused by name.
"""
from __future__ import annotations

from typing import Callable

from usmp.errors import ModelError
from usmp.ir.graph import Graph

CONTROL_FLOW = ("IF", "WHILE", "CALL", "CALL_ONCE")
# The subgraph options of each control-flow operator that usmp compiles, and what each subgraph is.
BRANCHES = {"IF": (("then_subgraph_index", "then branch"), ("else_subgraph_index", "else branch")),
            "WHILE": (("cond_subgraph_index", "loop condition"), ("body_subgraph_index", "loop body"))}
# What an initialiser may do: name variables and give them values.
INIT_OPCODES = ("VAR_HANDLE", "ASSIGN_VARIABLE")


def attach_init_graphs(main: Graph, count: int, read_subgraph: Callable[[int], Graph],
                       fail: Callable[[str], ModelError]) -> Graph:
    """main with every subgraph its CALL_ONCE, IF and WHILE operators run; CALL and unused subgraphs refused."""
    _attach_branches(main, main, count, read_subgraph, fail, "", ())
    for op in main.operators:
        if op.opcode != "CALL_ONCE":
            continue
        number = op.options.get("init_subgraph_index")
        if not isinstance(number, int) or not 1 <= number < count:
            raise fail(f"operator {op.index} (CALL_ONCE) runs subgraph {number}, but the model has "
                       f"subgraphs 0 to {count - 1} and subgraph 0 is the main one")
        if number in main.subgraphs:
            raise fail(f"operator {op.index} (CALL_ONCE) runs subgraph {number}, which IF or WHILE also runs")
        if number not in main.init_graphs:
            main.init_graphs[number] = _init_graph(read_subgraph(number), number, fail)
    for number in range(1, count):
        if number not in main.init_graphs and number not in main.subgraphs:
            raise fail(f"the model has {count} subgraphs and subgraph {number} is not run by CALL_ONCE, IF or WHILE")
    return main


def _attach_branches(main: Graph, graph: Graph, count: int, read_subgraph, fail, where: str,
                     running: tuple[int, ...]) -> None:
    """Read the subgraphs graph's IF and WHILE operators run, and theirs, refusing a subgraph that runs itself."""
    for op in graph.operators:
        if op.opcode == "CALL" or (op.opcode == "CALL_ONCE" and graph is not main):
            raise fail(f"{where}operator {op.index} ({op.opcode}) is control flow, which is not supported "
                       f"(only IF, WHILE and CALL_ONCE, the initialiser of tf.Variable, in the main subgraph)")
        for option, role in BRANCHES.get(op.opcode, ()):
            number = op.options.get(option)
            if not isinstance(number, int) or not 1 <= number < count:
                raise fail(f"{where}operator {op.index} ({op.opcode}) runs subgraph {number} as its {role}, but "
                           f"the model has subgraphs 0 to {count - 1} and subgraph 0 is the main one")
            if number in running:
                raise fail(f"{where}operator {op.index} ({op.opcode}) runs subgraph {number} inside itself "
                           f"(recursion), which is not supported")
            if number not in main.subgraphs:
                sub = read_subgraph(number)
                main.subgraphs[number] = sub
                _attach_branches(main, sub, count, read_subgraph, fail, f"subgraph {number} ", running + (number,))


def _init_graph(graph: Graph, number: int, fail: Callable[[str], ModelError]) -> Graph:
    for op in graph.operators:
        if op.opcode in CONTROL_FLOW:
            raise fail(f"subgraph {number} operator {op.index} ({op.opcode}) is control flow inside an "
                       f"initialiser, which is not supported")
        if op.opcode not in INIT_OPCODES:
            raise fail(f"subgraph {number} operator {op.index} ({op.opcode}): an initialiser subgraph may only "
                       f"use {' and '.join(INIT_OPCODES)} (with constant values)")
    return graph
