"""Put pools into devicetree memory regions.

Zephyr's Cortex-M linker script gives every node with a
`zephyr,memory-region = "NAME"` property a MEMORY region and a NOLOAD output
section `NAME`. A pool in such a region is declared with
`__attribute__((section("NAME")))`. The section is NOLOAD: nothing there is
initialised by the loader. A state pool is given its values by the generated
usmp_<name>_init(); a constant pool placed in one (constants in a tightly
coupled memory) keeps its image in flash and init() copies it in before the
first run: the same code on every Zephyr release, unlike code relocation,
whose region names and Kconfig differ between them. A pool whose region is the
chosen `zephyr,sram` (or `zephyr,flash` for constants) stays plain .bss (or
.rodata) and the region only bounds its size.
"""
from __future__ import annotations

from dataclasses import dataclass

from usmp.errors import UsmpError
from usmp.pools import PoolSpec
from usmp.zephyr.devicetree import Devicetree, MemoryRegion
from usmp.zephyr.kconfig_pools import PoolRequest


@dataclass(frozen=True)
class PlacedPool(PoolSpec):
    """A pool with where the linker must put it (templates read `section`)."""
    section: str | None = None  # linker section; None: the default .bss/.rodata
    load_section: str | None = None  # a constant pool's section in read-only memory the image loads (no copy)
    region_size: int | None = None  # bytes of the devicetree region, when there is one
    origin: str = ""  # the setting that made this pool, for messages (a CONFIG_ symbol or --pool)


def place_pools(requests: list[PoolRequest], tree: Devicetree | None) -> list[PlacedPool]:
    return [place_pool(r, tree) for r in requests]


def place_pool(request: PoolRequest, tree: Devicetree | None) -> PlacedPool:
    limit = request.size_limit or None
    common = dict(name=request.name, kind=request.kind, alignment=request.alignment,
                  region=request.region or None, origin=request.symbol("SIZE"))
    if not request.region:
        return PlacedPool(size_limit=limit, **common)
    where = f"{request.symbol('REGION')}=\"{request.region}\""
    if tree is None:
        raise UsmpError(f"{where}: a pool region needs the devicetree: give -d BUILD_DIR or --devicetree FILE")
    region = tree.region(request.region, where)
    if limit is not None and limit > region.size:
        raise UsmpError(f"{request.symbol('SIZE')}={limit} is larger than region '{region.display}' "
                        f"({region.size} B): lower it, or set 0 to use the region's size")
    size = min(limit, region.size) if limit else region.size
    section = _section(request, region, tree, where)
    return PlacedPool(size_limit=size, section=section, region_size=region.size, **common)


def _section(request: PoolRequest, region: MemoryRegion, tree: Devicetree, where: str) -> str | None:
    default = tree.chosen_region("zephyr,flash" if request.kind == "constant" else "zephyr,sram")
    if default is not None and default.path == region.path:
        return None  # the region the linker uses anyway
    if not region.linker_name:
        raise UsmpError(f"{where}: node '{region.display}' ({region.path}) has no zephyr,memory-region property, so "
                        "the linker has no section for it: add `zephyr,memory-region = \"NAME\";` to the node "
                        "(compatible \"zephyr,memory-region\") or "
                        + ("use the chosen zephyr,sram" if request.kind == "workspace" else
                           "leave the region empty to keep the constants in flash"))
    return region.linker_name

