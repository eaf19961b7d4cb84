"""What a depth-first loop keeps while it runs, as one planned buffer rather than stack.

A loop keeps, from its first band to its last: a struct usmp_band per link (the rows it has computed, the
rows its consumers still read, this band's rows and their addresses), the addresses of its band buffers
and whole tensors (the band step's buffers[]), and, while it calls a link's kernel whose parameters the
compiler cannot write for each band (variants.py: CMSIS-NN's nested structs), the band's copy of them
(its band members set in a copy of the whole-tensor struct; one copy at a time, so all links share its
bytes). These live only during the loop's step, so they are a scratch buffer the
planner places like any other, over bytes dead tensors leave; the generated code reaches it as a struct
(codegen/band_loop.py) whose size a compile-time check holds to the bytes planned here.

Its size depends on the core's pointers (struct usmp_band holds five): 4 bytes on the 32-bit cores,
8 for a generic build, which may run on a 64-bit host; the buffer's alignment is the pointer size it was
planned for (planned_pointer). A core's build run on a 64-bit host, as the tests do, keeps it on its stack.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from usmp.lower.program import Arg, Buffer, KernelCall, Program
from usmp.paths import KERNELS_INCLUDE_DIR
from usmp.tiling.band_fields import band_fields, by_variant
from usmp.tiling.cost import struct_words
from usmp.tiling.loop import BandLoop
from usmp.tiling.struct_sizes import struct_bytes

STATE_ARG = "state"


def params_bytes(call: KernelCall, pointer: int, include_dirs: tuple[Path, ...] = (KERNELS_INCLUDE_DIR,)) -> int:
    """Bytes of a call's parameter struct, from the headers (struct_sizes.py); else a word per value it sets."""
    return struct_bytes(call.params_type, pointer, include_dirs) or 4 * struct_words(call.params)


def band_copies(loop: BandLoop) -> list[KernelCall]:
    """The calls whose parameters the loop copies each band: the links' window and flat kernels that take no
    const variants (variants.py)."""
    return [loop.calls[k] for link in loop.links for k in link.calls
            if band_fields(loop.calls[k].params_type) and not by_variant(loop.calls[k].params_type)]


def state_bytes(links: int, buffers: int, copies: list[int], pointer: int) -> int:
    """The loop's state: `links` struct usmp_band, `buffers` addresses, room for the largest parameter copy."""
    band = struct_bytes("usmp_band", pointer, (KERNELS_INCLUDE_DIR,))
    size = links * band + buffers * pointer + max(copies, default=0)
    return -(-size // pointer) * pointer


def with_loop_state(program: Program, loop: BandLoop, pointer: int,
                    include_dirs: tuple[Path, ...] = (KERNELS_INCLUDE_DIR,)) -> tuple[BandLoop, Buffer]:
    """The loop with its state buffer (argument STATE_ARG, buffer op<N>_loop_state), sized for its calls."""
    name = f"op{loop.op_index}_loop_state"
    copies = [params_bytes(c, pointer, include_dirs) for c in band_copies(loop)]
    size = state_bytes(len(loop.links), len(loop.links) + len(loop.whole_inputs()), copies, pointer)
    args = [a for a in loop.args if a.name != STATE_ARG] + [Arg(STATE_ARG, name, True)]
    return replace(loop, args=args), Buffer(name, "scratch", size, pointer, "uint8_t")


def planned_pointer(state: Buffer) -> int:
    """The pointer bytes a loop's state buffer was planned for."""
    return state.alignment


def size_loop_state(program: Program, pointer: int) -> Program:
    """Every loop's state sized for the parameter structs it copies once the kernel selection has chosen them
    (fuse.py sized it for the portable ones)."""
    external = program.external_kernels
    include_dirs = (KERNELS_INCLUDE_DIR, *(external.include_dirs if external else ()))
    buffers = dict(program.buffers)
    ops = []
    for op in program.ops:
        if isinstance(op, BandLoop):
            op, state = with_loop_state(program, op, pointer, include_dirs)
            buffers[state.name] = state
        ops.append(op)
    return replace(program, buffers=buffers, ops=ops)
