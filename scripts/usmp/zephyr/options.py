"""Zephyr options of `usmp compile` (and `west usmp`): take pools, algorithm
and I/O placement from a build's Kconfig and devicetree.

    -d/--build-dir BUILD     a Zephyr build: BUILD/zephyr/.config and edt.pickle
    --dotconfig FILE         a .config (or a prj.conf: absent options take their defaults)
    --devicetree FILE        edt.pickle or zephyr.dts, for region sizes and linker sections
    --zephyr-base DIR        the Zephyr whose devicetree library unpickles edt.pickle

Explicit --pool and --algorithm still win over Kconfig.
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import sys

from usmp.compiler import CompileOptions
from usmp.stack.on_target import missing_tool
from usmp.zephyr.build_dir import find_build_files
from usmp.zephyr.devicetree import Devicetree, load_devicetree
from usmp.zephyr.dotconfig import read_config
from usmp.zephyr.kconfig_pools import UsmpSettings, settings_from_config
from usmp.zephyr.placement import place_pools


def add_zephyr_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("Zephyr", "take pools and the algorithm from a Zephyr build's Kconfig")
    group.add_argument("-d", "--build-dir", metavar="BUILD", help="a Zephyr build directory (sysbuild too)")
    group.add_argument("--image", metavar="NAME", help="with a sysbuild build directory: the image to read")
    group.add_argument("--dotconfig", metavar="FILE", help="a .config or prj.conf with CONFIG_USMP_* options")
    group.add_argument("--devicetree", metavar="FILE", help="edt.pickle or zephyr.dts of the build")
    group.add_argument("--zephyr-base", metavar="DIR", help="Zephyr tree (to read edt.pickle; default: $ZEPHYR_BASE)")


def zephyr_requested(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "build_dir", None) or getattr(args, "dotconfig", None)
                or getattr(args, "devicetree", None))


def load_zephyr_settings(args: argparse.Namespace) -> tuple[UsmpSettings | None, Devicetree | None]:
    dotconfig, devicetree, zephyr_base = args.dotconfig, args.devicetree, args.zephyr_base
    if args.build_dir:
        files = find_build_files(args.build_dir, args.image)
        dotconfig = dotconfig or files.dotconfig
        devicetree = devicetree or files.devicetree
        zephyr_base = zephyr_base or files.zephyr_base
    zephyr_base = zephyr_base or os.environ.get("ZEPHYR_BASE")
    tree = load_devicetree(devicetree, zephyr_base) if devicetree else None
    settings = settings_from_config(read_config(dotconfig)) if dotconfig else None
    return settings, tree


def zephyr_compile_options(args: argparse.Namespace, options: CompileOptions) -> CompileOptions:
    """`options` from the command line, completed from the Zephyr build when one is given."""
    if not zephyr_requested(args):
        return options
    settings, tree = load_zephyr_settings(args)
    if settings is None:
        return options
    changes = {}
    if not args.pool:
        changes["pools"] = place_pools(settings.pools, tree)
    if args.algorithm == "auto":
        changes["algorithm"] = settings.algorithm
    if settings.workspace_io:
        changes["workspace_io"] = True
    if getattr(args, "tiling", None) is None:  # not on the command line: the build's Kconfig choice
        changes["tiling"] = settings.tiling
    if getattr(args, "tiling_budget", None) is None and settings.tiling_budget is not None:
        changes["tiling_budget"] = settings.tiling_budget
    if getattr(args, "cpu", None) is None:
        changes["cpu"] = settings.cpu
    if getattr(args, "kernels", None) is None:
        changes["kernels"] = settings.kernels
    if getattr(args, "optimize", None) is None:
        changes["optimize"] = settings.optimize
    if getattr(args, "placement", None) is None:
        changes["placement"] = settings.placement
    if getattr(args, "io_targets", None) is None and settings.io_targets:
        changes["io_targets"] = settings.io_targets
        changes["workspace_io"] = True
    if getattr(args, "stack_bound", None) is None and settings.stack_bound:
        missing = missing_tool(settings.stack_bound)
        if missing is None:
            changes["stack_bound"] = settings.stack_bound
        else:  # a Zephyr SDK alone builds the app: the build goes on, without the bound (the samples' check too)
            print(f"usmp: warning: CONFIG_USMP_STACK_BOUND=y but {missing} is not on PATH: the header has no "
                  f"stack bound and code checking it at build time skips the check", file=sys.stderr)
    return dataclasses.replace(options, **changes)
