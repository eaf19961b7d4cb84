"""Subcommands of `usmp` (and `west usmp`), one module each.

A command module has NAME, HELP, add_arguments(parser) and run(args) -> int.
"""
from __future__ import annotations

import importlib
import pkgutil

ORDER = ["compile", "run", "check", "plan", "report", "plan_buffers"]


def all_commands() -> list:
    modules = [
        importlib.import_module(f"{__name__}.{m.name}")
        for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_") and m.name != "options"
    ]
    rank = {name: i for i, name in enumerate(ORDER)}
    return sorted((m for m in modules if hasattr(m, "NAME")), key=lambda m: rank.get(m.__name__.rsplit(".", 1)[1], 99))
