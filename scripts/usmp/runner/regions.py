"""Pools in the emulated board's memories: `--pool ...:region=NAME` on a bare-metal target, as in Zephyr.

A target names its memories (targets.py: the AN547's ITCM, SRAM, DTCM, ISRAM and FLASH). Two of them
hold the image: code and constants where the target's flash is, static data and the stack where its
RAM is. A pool keeps the linker's default placement when its region is the one its kind goes to anyway
(constants in the image's code memory, a workspace or state pool in its data memory), as a Zephyr pool in
the chosen zephyr,flash or zephyr,sram does. Elsewhere it gets a linker section of the region's name in that
memory (the linker script has one per region: templates/baremetal/<arch>/linker.ld.j2):

- writable memory (RAM, a TCM) is NOLOAD, as Zephyr links a devicetree memory region: a workspace pool
  is not zeroed and a constant pool's image stays in the code memory, copied in by the generated init();
- read-only memory (flash) is filled by the loader: a constant pool is ordinary const data there, and a
  workspace or state pool cannot go there.
"""
from __future__ import annotations

from dataclasses import dataclass

from usmp.errors import UsmpError
from usmp.pools import PoolSpec


@dataclass(frozen=True)
class Region:
    name: str  # what region= says; also the linker section's name
    origin: int
    size: int
    writable: bool = True  # RAM or a TCM; False: flash, which only the image's loader writes


def region_named(target, name: str, where: str) -> Region:
    regions = {r.name: r for r in target.memory_regions}
    if name not in regions:
        raise UsmpError(f"{where}: the {target.name} ({target.board}) has no memory region '{name}' "
                        f"(its regions: {', '.join(regions)})")
    return regions[name]


def image_regions(target) -> tuple[Region, Region]:
    """The regions holding the image's code and its data."""
    def at(origin: int) -> Region:
        return next((r for r in target.memory_regions if r.origin == origin),
                    Region("FLASH" if origin == target.flash_origin else "RAM", origin, 0))

    return at(target.flash_origin), at(target.ram_origin)


def place_pools(pools: list[PoolSpec], target) -> list[PoolSpec]:
    """The pools with the linker sections their regions need on target (zephyr.placement.PlacedPool)."""
    return [place_pool(pool, target) for pool in pools]


def place_pool(pool: PoolSpec, target) -> PoolSpec:
    from usmp.zephyr.placement import PlacedPool  # the same pools a Zephyr build places in its regions

    if not pool.region or isinstance(pool, PlacedPool):
        return pool  # no region, or placed already
    where = f"--pool {pool.name}:...:region={pool.region}"
    region = region_named(target, pool.region, where)
    code, data = image_regions(target)
    limit = min(pool.size_limit, region.size) if pool.size_limit else region.size
    if pool.size_limit and pool.size_limit > region.size:
        raise UsmpError(f"{where}: size={pool.size_limit} is larger than region {region.name} ({region.size} B)")
    fields = {f: getattr(pool, f) for f in ("name", "kind", "alignment", "targets", "region", "wait")}
    placed = dict(size_limit=limit, region_size=region.size, origin=f"--pool {pool.name}", **fields)
    default = code if pool.kind == "constant" else data
    if region.name == default.name:
        return PlacedPool(**placed)
    if region.name == code.name:
        raise UsmpError(f"{where}: region {region.name} holds the image's code on the {target.name}: only constant "
                        f"pools go there")
    if not region.writable:
        if pool.kind != "constant":
            raise UsmpError(f"{where}: region {region.name} is read-only on the {target.name}: a {pool.kind} pool "
                            "needs writable memory")
        return PlacedPool(load_section=region.name, **placed)
    return PlacedPool(section=region.name, **placed)
