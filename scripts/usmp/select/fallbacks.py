"""Never silently slow: which operators a core with fast kernel families still runs on portable kernels, and why.

The reasons come from the family tables: no family on this core takes the
operator's kernel (its number type or the operator: "no kernel family for
int16 PAD"), a family that would take it is left out (CMSIS-NN not found,
--kernels), or each family that was asked said why it leaves the call (its
shape, its sums...). A family of float kernels missing on an FPU core is
reported the same way as any other.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

from usmp.lower.program import Program
from usmp.select.family import Family, Site
from usmp.tiling.loop import BandLoop

CMSIS_NN_MISSING = "CMSIS-NN was not found"


@dataclass(frozen=True)
class PortableStep:
    """A model operator left on a portable kernel."""

    step: int  # its place in the schedule (a depth-first loop's links share one)
    index: int
    op: str
    type: str  # the number type of its activations: int8, int16, float32, ...
    why: str

    def as_dict(self) -> dict:
        return asdict(self)


def portable_steps(program: Program, on_core: list[Family], active: list[Family], declined: dict[Site, list],
                   chosen: set[tuple[int, int | None]], kernels: str) -> list[PortableStep]:
    """Every operator (a depth-first loop's links one by one) whose kernel no family replaced, in program order.

    on_core: the families that run on the core, whatever --kernels says and CMSIS-NN found or not; active:
    those the selection asked; declined: their reasons by site; chosen: the (position, link) they took."""
    by_site: dict[tuple[int, int | None], list] = {}
    for site, reasons in declined.items():
        by_site.setdefault((site.position, site.link), []).extend(reasons)
    by_index = {o.index: o for o in program.graph.operators}
    steps = []
    for position, op in enumerate(program.ops):
        if isinstance(op, BandLoop):
            units = [(j, link.op_index, [op.calls[k] for k in link.calls]) for j, link in enumerate(op.links)]
        else:
            units = [(None, op.op_index, op.calls)]
        for link, index, calls in units:
            functions = [call.function for call in calls]
            if (position, link) in chosen or not functions or any(f.startswith("usmp_band_") for f in functions):
                continue  # a fast kernel, no code, or a depth-first loop's band kernel for a reduction
            graph_op = by_index.get(index)
            number_type = _number_type(program, graph_op)
            opcode = graph_op.opcode if graph_op is not None else op.opcode
            why = _why(functions, on_core, active, by_site.get((position, link), []), kernels,
                       f"{number_type} {opcode}")
            steps.append(PortableStep(position, index, opcode, number_type, why))
    return steps


def _number_type(program: Program, graph_op) -> str:
    if graph_op is None:
        return "?"
    tensors = [i for i in list(graph_op.inputs[:1]) + list(graph_op.outputs[:1]) if i is not None]
    return program.graph.tensors[tensors[0]].dtype if tensors else "?"


def _why(functions: list[str], on_core: list[Family], active: list[Family], declined: list, kernels: str,
         what: str) -> str:
    able = [f for f in on_core if any(fn in f.table for fn in functions)]
    if not able:
        return f"no kernel family for {what} on this core"
    reasons = []
    said = {family.name: why for family, why in declined}
    for family in able:
        if family not in active:
            reasons.append(CMSIS_NN_MISSING if family.cmsis_nn and kernels in ("auto", "cmsis-nn")
                           else f"--kernels {kernels} leaves out {family.name}")
        elif family.name in said:
            reasons.append(f"{family.name}: {said[family.name] or 'not this case'}")
        else:
            reasons.append(f"{family.name}: not inside this operator's several kernel calls")
    return "; ".join(dict.fromkeys(reasons))
