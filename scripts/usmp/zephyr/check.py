"""Configure-time check run by the module's CMake: `python -m usmp.zephyr.check`.

It fails the CMake run (exit 2, one line) before anything is built when the
Python that Zephyr uses lacks the compiler's packages, or when the usmp
Kconfig options cannot work with this devicetree, saying what to change.
"""
from __future__ import annotations

import argparse
import importlib.util
import sys

REQUIRED = {"tflite": "tflite", "numpy": "numpy", "jinja2": "jinja2", "yaml": "pyyaml"}


def missing_packages() -> list[str]:
    return [package for module, package in REQUIRED.items() if importlib.util.find_spec(module) is None]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m usmp.zephyr.check")
    parser.add_argument("--dotconfig", required=True)
    parser.add_argument("--devicetree")
    parser.add_argument("--zephyr-base")
    args = parser.parse_args(argv)
    missing = missing_packages()
    if missing:
        print(f"the Python of this build ({sys.executable}) lacks {', '.join(missing)}: "
              f"run `{sys.executable} -m pip install {' '.join(missing)}`", file=sys.stderr)
        return 2
    from usmp.errors import UsmpError
    from usmp.zephyr.devicetree import load_devicetree
    from usmp.zephyr.dotconfig import read_config
    from usmp.zephyr.kconfig_pools import settings_from_config
    from usmp.zephyr.placement import place_pools

    try:
        settings = settings_from_config(read_config(args.dotconfig))
        tree = load_devicetree(args.devicetree, args.zephyr_base) if args.devicetree else None
        pools = place_pools(settings.pools, tree)
        check_algorithm(settings.algorithm)
    except UsmpError as exc:
        print(exc, file=sys.stderr)
        return 2
    print(f"usmp: algorithm {settings.algorithm}; pools: " + "; ".join(describe(p) for p in pools))
    return 0


def describe(pool) -> str:
    where = f"section {pool.section}" if pool.section else ("RAM" if pool.kind == "workspace" else "flash")
    limit = f"<= {pool.size_limit} B" if pool.size_limit else "no limit"
    return f"{pool.name} ({pool.kind}, {where}, {limit}, align {pool.alignment})"


def check_algorithm(name: str) -> None:
    """A planner name must exist; package.module:function is checked when the model compiles."""
    if ":" in name:
        return
    from usmp.errors import UsmpError
    from usmp.planner.registry import get_algorithm

    try:
        get_algorithm(name)
    except UsmpError as exc:
        raise UsmpError(f"{exc}: change the choice 'Memory planning algorithm' (CONFIG_USMP_ALGORITHM_*)") from None


if __name__ == "__main__":
    sys.exit(main())
