"""The parameter structs a link's kernel runs its bands with, written by the compiler as const data.

A kernel learns which rows a band holds from a few members of its parameter
struct (band_fields.py). Copying the struct into RAM each band to set them
costs the loop's state a struct's bytes and every call a copy; yet a loop's
bands take only a handful of different sets of those members (the first band,
the steady ones, the last), which the compiler knows from the bands' rows
(band_rows.py, the twin of the band step). So it writes one const struct per
set, the most frequent first, and the loop passes the kernel the one whose band
members match the band's: a few compares, no copy, nothing in RAM.
"""
from __future__ import annotations

import copy
import re
from collections import Counter

from usmp.tiling.band_fields import band_fields, by_variant
from usmp.tiling.loop import BandLink, BandLoop

def multiplier(link: BandLink, per: str) -> int:
    """What a band member's value is multiplied by (band_fields.BandField.per) for this link."""
    return {"1": 1, "row": link.row_elements, "width": link.width}[per]


def as_band_member(value: int) -> int:
    """The value as the loop reads it from struct usmp_band, whose members are uint16_t (a PAD link's pad_top of
    -1 below its input's last row reads 65535, and so the kernel has always been given it)."""
    return value & 0xFFFF


def band_values(loop: BandLoop, link_index: int, params_type: str) -> list[tuple[int, ...]]:
    """The sets of band member values the link's bands take, in band_fields order, the most frequent first."""
    link = loop.links[link_index]
    fields = band_fields(params_type)
    seen: Counter = Counter()
    for steps in _steps(loop):
        step = steps[link_index]
        if step is not None and step.count > 0:
            seen[tuple(as_band_member(getattr(step, f.value)) * multiplier(link, f.per) for f in fields)] += 1
    return [values for values, _ in seen.most_common()]


def band_variants(loop: BandLoop, k: int) -> list[dict] | None:
    """The parameters of loop call k (a link's) for each set of band members its bands take, or None where the
    loop copies them into RAM instead (by_variant)."""
    call = loop.calls[k]
    link_index = next((j for j, link in enumerate(loop.links) if k in link.calls), None)
    if link_index is None or not by_variant(call.params_type):
        return None
    fields = band_fields(call.params_type)
    variants = []
    for values in band_values(loop, link_index, call.params_type):
        params = copy.deepcopy(call.params)
        for f, value in zip(fields, values):
            _set_member(params, f.member, value)
        variants.append(params)
    return variants


def _set_member(params: dict, member: str, value: int) -> None:
    name, index = re.fullmatch(r"(\w+)(?:\[(\d+)\])?", member).groups()
    if index is None:
        params[name] = value
    else:
        params[name] = list(params[name])
        params[name][int(index)] = value


def _steps(loop: BandLoop):
    """Every band's steps, walked once per loop (a loop object lives through one compile)."""
    cached = getattr(loop, "_band_steps", None)
    if cached is None:
        cached = loop.rows.steps()
        object.__setattr__(loop, "_band_steps", cached)
    return cached


def varying_members(params_type: str, variants: list[dict]) -> list[str]:
    """The band members whose values tell the variants apart: the loop compares only these (a member all the
    link's bands share needs no test, since the compiler made a variant for every band's rows)."""
    members = [f.member for f in band_fields(params_type)]
    return [m for m in members if len({repr(_member(v, m)) for v in variants}) > 1]


def _member(params: dict, member: str):
    name, index = re.fullmatch(r"(\w+)(?:\[(\d+)\])?", member).groups()
    return params[name] if index is None else params[name][int(index)]
