"""Find a Zephyr build's .config and devicetree, with or without sysbuild.

Single-image build: BUILD/zephyr/.config. Sysbuild: every image has its own
tree, BUILD/<image>/zephyr/.config; we take the image that enables usmp (or
the one asked for), and say which images exist when that is ambiguous.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from usmp.errors import UsmpError


@dataclass(frozen=True)
class BuildFiles:
    dotconfig: Path
    devicetree: Path | None  # edt.pickle, else zephyr.dts, else None
    zephyr_base: Path | None  # from the image's CMakeCache.txt


def find_build_files(build_dir: str | Path, image: str | None = None) -> BuildFiles:
    build = Path(build_dir)
    if not build.is_dir():
        raise UsmpError(f"build directory {build} does not exist: build the application first (west build)")
    if image is None and (build / "zephyr" / ".config").is_file():
        return _image_files(build)
    images = {p.parent.parent.name: p.parent.parent for p in sorted(build.glob("*/zephyr/.config"))}
    if image is not None:
        if image not in images:
            known = ", ".join(images) or "none"
            raise UsmpError(f"{build} has no sysbuild image '{image}' (images: {known})")
        return _image_files(images[image])
    if not images:
        raise UsmpError(f"{build} is not a Zephyr build directory (no zephyr/.config): build it first or give -d")
    with_usmp = [name for name, path in images.items() if _enables_usmp(path / "zephyr" / ".config")]
    candidates = with_usmp or list(images)
    if len(candidates) > 1:
        raise UsmpError(f"{build} is a sysbuild with images {', '.join(candidates)}: choose one with --image NAME")
    return _image_files(images[candidates[0]])


def _image_files(image_dir: Path) -> BuildFiles:
    zephyr_dir = image_dir / "zephyr"
    devicetree = next((p for p in (zephyr_dir / "edt.pickle", zephyr_dir / "zephyr.dts") if p.is_file()), None)
    return BuildFiles(zephyr_dir / ".config", devicetree, _cached_zephyr_base(image_dir / "CMakeCache.txt"))


def _enables_usmp(dotconfig: Path) -> bool:
    try:
        return "CONFIG_USMP=y" in dotconfig.read_text().splitlines()
    except OSError:
        return False


def _cached_zephyr_base(cache: Path) -> Path | None:
    try:
        text = cache.read_text()
    except OSError:
        return None
    match = re.search(r"^ZEPHYR_BASE:[A-Z]+=(.+)$", text, re.M)
    return Path(match.group(1).strip()) if match else None
