"""Rewrite stage: every buffer becomes a pool base plus a constant offset.

This is the only place that turns the plan into addresses; the templates
just print the expressions made here.
"""
from __future__ import annotations

from dataclasses import dataclass

from usmp.lower.program import Program
from usmp.planner.problem import PlanResult
from usmp.pools import PoolSpec


@dataclass
class PoolLayout:
    spec: PoolSpec
    size: int
    c_symbol: str  # the array (library-owned pools) or the pools struct member
    lower_bound: int = 0  # the most bytes of this pool live at one step: no plan needs less


@dataclass
class Layout:
    pools: list[PoolLayout]
    placements: dict[str, tuple[str, int]]  # planned buffer -> (pool, offset)
    workspace_io: bool
    user_pools: bool

    def pool(self, name: str) -> PoolLayout:
        return next(p for p in self.pools if p.spec.name == name)

    @property
    def writable_pools(self) -> list[PoolLayout]:
        """Workspace and state pools: the members of the pools struct, the RAM the library needs."""
        return [p for p in self.pools if p.spec.kind in ("workspace", "state")]


def make_layout(program: Program, pools: list[PoolSpec], result: PlanResult, workspace_io: bool,
                user_pools: bool) -> Layout:
    layouts = []
    for spec in pools:
        size = result.pool_sizes.get(spec.name, 0)
        size = -(-size // 4) * 4  # whole words, so a pool can be declared as uint32_t if wanted
        layouts.append(PoolLayout(spec, size, f"usmp_{program.name}_{spec.name}_pool",
                                  result.lower_bounds.get(spec.name, 0)))
    return Layout(layouts, dict(result.placements), workspace_io, user_pools)


def address_of(program: Program, layout: Layout, buffer_name: str, writable: bool) -> str:
    """The C expression for a buffer's first element, typed for the kernel."""
    buffer = program.buffers[buffer_name]
    const = "" if writable else "const "
    if buffer.inside is not None:  # at an offset into another buffer's bytes
        pool, at = placement_of(program, layout, buffer_name)
        return f"({const}{buffer.c_type} *)(pool_{pool} + {at})"
    if buffer_name not in layout.placements:
        side = "inputs" if buffer.kind == "input" else "outputs"
        member = io_member_names(program, side)[buffer.io_index]
        return f"{side}->{member}"
    pool, offset = layout.placements[buffer_name]
    base = f"pool_{pool}"
    if offset == 0:
        return f"({const}{buffer.c_type} *){base}"
    return f"({const}{buffer.c_type} *)({base} + {offset})"


def placement_of(program: Program, layout: Layout, buffer_name: str) -> tuple[str, int]:
    """Pool and offset of a buffer, following Buffer.inside to the planned buffer that holds it."""
    offset = 0
    while program.buffers[buffer_name].inside is not None:
        buffer_name, at = program.buffers[buffer_name].inside
        offset += at
    pool, at = layout.placements[buffer_name]
    return pool, at + offset


def io_member_names(program: Program, side: str) -> list[str]:
    """C identifiers for the model's inputs or outputs, derived from tensor names."""
    from usmp.codegen.names import c_identifier

    indices = program.graph.inputs if side == "inputs" else program.graph.outputs
    names: list[str] = []
    for index in indices:
        base = c_identifier(program.graph.tensors[index].name)
        name, n = base, 1
        while name in names:
            n += 1
            name = f"{base}_{n}"
        names.append(name)
    return names
