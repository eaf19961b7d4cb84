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
                  region=request.region or None, origin=request.symbol("SIZE"), targets=request.targets)
    if not request.region:
        return PlacedPool(size_limit=limit, wait=pool_wait(request, None, tree), **common)
    where = f"{request.symbol('REGION')}=\"{request.region}\""
    if tree is None:
        raise UsmpError(f"{where}: a pool region needs the devicetree: give -d BUILD_DIR or --devicetree FILE")
    region = tree.region(request.region, where)
    if limit is not None and limit > region.size:
        raise UsmpError(f"{request.symbol('SIZE')}={limit} is larger than region '{region.display}' "
                        f"({region.size} B): lower it, or set 0 to use the region's size")
    size = min(limit, region.size) if limit else region.size
    section = _section(request, region, tree, where)
    return PlacedPool(size_limit=size, section=section, region_size=region.size,
                      wait=pool_wait(request, region, tree), **common)


def pool_wait(request: PoolRequest, region: MemoryRegion | None, tree: Devicetree | None) -> int:
    """CONFIG_USMP_POOL<n>_WAIT, or when it is -1 the devicetree's: the memory's `wait-states` property, else
    0 for a tightly coupled memory and RAM, CONFIG_USMP_FLASH_WAIT_STATES for flash. A pool without a region
    is in the chosen zephyr,flash (constants) or zephyr,sram."""
    if request.wait >= 0:
        return request.wait
    if region is None and tree is not None:
        region = tree.chosen_region("zephyr,flash" if request.kind == "constant" else "zephyr,sram")
    if region is None:
        return request.flash_wait if request.kind == "constant" else 0
    if region.wait_states is not None:
        return region.wait_states
    names = " ".join([*region.labels, region.linker_name or "", region.path.rsplit("/", 1)[-1]]).lower()
    if "tcm" in names:
        return 0
    chosen_flash = tree.chosen_region("zephyr,flash") if tree is not None else None
    flash = ("soc-nv-flash" in region.compatible or "flash" in names
             or (chosen_flash is not None and chosen_flash.path == region.path))
    return request.flash_wait if flash else 0


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

