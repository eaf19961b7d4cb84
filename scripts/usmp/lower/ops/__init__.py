"""Operator lowerings, one module per operator family.

Each module registers its functions with @lowering("OPCODE"); this package
imports them all, so adding an operator means adding a module.
"""
from __future__ import annotations

import importlib
import pkgutil
from typing import Callable

LOWERINGS: dict[str, Callable] = {}


def lowering(*opcodes: str):
    def register(fn: Callable) -> Callable:
        for opcode in opcodes:
            if opcode in LOWERINGS:  # two modules claiming one operator: the import order would pick silently
                raise RuntimeError(f"{opcode} is lowered by both {LOWERINGS[opcode].__module__} and {fn.__module__}")
            LOWERINGS[opcode] = fn
        return fn

    return register


def supported_opcodes() -> list[str]:
    _load_all()
    return sorted(LOWERINGS)


def lowering_for(opcode: str) -> Callable | None:
    _load_all()
    return LOWERINGS.get(opcode)


_loaded = False


def _load_all() -> None:
    global _loaded
    if _loaded:
        return
    for module in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{module.name}")
    _loaded = True
