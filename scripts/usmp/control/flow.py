"""What an IF or WHILE operator is after lowering, and the steps the planner sees for it."""
from __future__ import annotations

from dataclasses import dataclass, field

from usmp.lower.program import Arg, LoweredOp, Program


@dataclass
class Copy:
    """A byte copy between two buffers (operands in and out of blocks)."""

    source: str
    target: str
    nbytes: int


@dataclass
class Block:
    """One subgraph lowered: its operators in order, and the buffers holding its inputs and outputs."""

    subgraph: int
    role: str  # "then branch", "else branch", "loop condition", "loop body"
    ops: list[LoweredOp]
    inputs: list[str]
    outputs: list[str]
    copy: int = 1  # the k-th block made of this subgraph (a subgraph several operators run has one per operator)

    @property
    def function_name(self) -> str:
        return f"subgraph_{self.subgraph}" + (f"_{self.copy}" if self.copy > 1 else "")


@dataclass
class ControlFlow:
    """IF: blocks [then, else], condition the IF's bool operand, enter[k]/leave[k] the copies of block k.
    WHILE: blocks [cond, body], condition the cond block's bool output, enter[0] the operands into the carried
    buffers (the body's inputs), carry the body's outputs back into them, leave[0] the carried values out."""

    kind: str  # "if" or "while"
    condition: str
    blocks: list[Block]
    enter: list[list[Copy]]
    leave: list[list[Copy]]
    carry: list[Copy] = field(default_factory=list)


def _copy_step(copies: list[Copy]) -> list[Arg]:
    args = [Arg(f"from{k}", c.source, False) for k, c in enumerate(copies)]
    return args + [Arg(f"to{k}", c.target, True) for k, c in enumerate(copies)]


def op_steps(op: LoweredOp) -> list[list[Arg]]:
    """The steps one lowered operator takes, as the argument lists liveness reads (nested control unrolled)."""
    control = op.control
    if control is None:
        return [op.args]
    steps: list[list[Arg]] = []
    # The results are held from the first step: no block buffer shares their memory, so what the caller (or a
    # guard, codegen/guards.py) put there before the operator runs is only overwritten by the results.
    results = [Arg(f"result{k}", b, True) for k, b in enumerate(control_results(op))]
    if control.kind == "if":
        steps.append([Arg("cond", control.condition, False)] + results)
        for block, enter, leave in zip(control.blocks, control.enter, control.leave):
            steps.append(_copy_step(enter))
            steps.extend(block_steps(block))
            steps.append(_copy_step(leave))
        return steps
    cond, body = control.blocks
    steps.append(_copy_step(control.enter[0]) + results)
    steps.extend(block_steps(cond))
    steps.append([Arg("cond", control.condition, False)])
    steps.extend(block_steps(body))
    steps.append(_copy_step(control.carry))
    steps.append(_copy_step(control.leave[0]))
    return steps


def block_steps(block: Block) -> list[list[Arg]]:
    return [step for op in block.ops for step in op_steps(op)]


def expanded_steps(program: Program) -> list[list[Arg]]:
    """The schedule as the planner sees it: one step per operator, IF and WHILE unrolled into theirs."""
    return [step for op in program.ops for step in op_steps(op)]


def step_positions(program: Program) -> list[int]:
    """The first expanded step of each operator of program.ops."""
    positions, step = [], 0
    for op in program.ops:
        positions.append(step)
        step += len(op_steps(op))
    return positions


def nested_buffers(op: LoweredOp) -> list[tuple[str, bool]]:
    """Every (buffer, written) an IF or WHILE's blocks and copies touch, in first-use order."""
    seen: dict[str, bool] = {}
    for step in op_steps(op):
        for arg in step:
            seen[arg.buffer] = seen.get(arg.buffer, False) or arg.writable
    return list(seen.items())


def control_regions(program: Program) -> list[dict]:
    """Every IF and WHILE (nested ones too) with the expanded steps its blocks span: for plan reports."""
    regions: list[dict] = []

    def visit(ops: list[LoweredOp], step: int) -> int:
        for op in ops:
            if op.control is None:
                step += 1
                continue
            start, blocks = step, []
            step += 1  # the condition test (IF) or the entry copy (WHILE)
            for k, block in enumerate(op.control.blocks):
                if op.control.kind == "if":
                    step += 1  # copy in
                first = step
                step = visit(block.ops, step)
                blocks.append(dict(subgraph=block.subgraph, role=block.role, first_step=first, last_step=step - 1))
                if op.control.kind == "if":
                    step += 1  # copy out
                elif k == 0:
                    step += 1  # the loop's test
            if op.control.kind == "while":
                step += 2  # carry back, exit copy
            regions.append(dict(operator=op.op_index, opcode=op.opcode, subgraph=op.subgraph, first_step=start,
                                last_step=step - 1, blocks=blocks))
        return step

    visit(program.ops, 0)
    return regions



def control_results(op: LoweredOp) -> list[str]:
    """The buffers an IF or WHILE finally writes: its outputs."""
    return list(dict.fromkeys(copy.target for copies in op.control.leave for copy in copies))
