"""How often each buffer is read and written in one inference, known at compile time from the kernels' loops.

Each kernel family declares, beside its sources, the memory accesses of one call of each of its kernels
(`kernels/<family>/access.yaml`): per kernel parameter, loads and stores as 32-bit transfers, each an
expression over the call's parameters (KernelCall.params, lists indexed as `input[1]`), names defined
under `let:`, `calls` (how many times the call runs: a depth-first link once a band) and the helpers
below. An entry reads

    usmp_helium_conv_1x1_s8:
      args: [input, filter, bias, multiplier, shift, output]   # the kernel's pointer parameters, in order
      let: {blocks: "ceil(out_ch / 4)"}
      filter: {loads: "pixels * blocks * ceil(in_ch / 16) * 16"}
      output: {stores: "pixels * blocks"}

A kernel no family describes gets the conservative default, reported as such: each buffer it reads read
once, each it writes written once, an element an access (the least any kernel touching it does).
The tests check the estimates against the traffic QEMU counts (runner/traffic.py).
"""
from __future__ import annotations

import ast
import math
import operator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import yaml

from usmp.errors import UsmpError
from usmp.paths import KERNELS_DIR

ELEMENT_BYTES = {"int8_t": 1, "uint8_t": 1, "int16_t": 2, "uint16_t": 2, "int32_t": 4, "uint32_t": 4, "float": 4,
                 "int64_t": 8, "uint64_t": 8, "bool": 1}


@dataclass
class Accesses:
    loads: float = 0.0
    stores: float = 0.0

    @property
    def total(self) -> float:
        return self.loads + self.stores


@dataclass
class AccessEstimate:
    """Accesses of every buffer in one inference, and the kernels the estimate had to guess for."""

    buffers: dict[str, Accesses] = field(default_factory=dict)
    unmodelled: list[str] = field(default_factory=list)  # kernel functions no access.yaml describes
    guessed: list[str] = field(default_factory=list)  # buffers counted by a lower bound (a loop's state)

    def of(self, name: str) -> Accesses:
        return self.buffers.get(name, Accesses())


# --- the expression language --------------------------------------------------------------------------

def _window(size: int, filter_size: int, stride: int, pad: int, out: int, dilation: int = 1) -> int:
    """Taps of a window of `filter_size` (every `dilation`) inside [0, size), summed over `out` positions."""
    total = 0
    for o in range(int(out)):
        start = o * stride - pad
        total += sum(1 for k in range(int(filter_size)) if 0 <= start + k * dilation < size)
    return total


def _inside(size: int, filter_size: int, stride: int, pad: int, out: int, dilation: int = 1) -> int:
    """Positions (of `out`) whose whole window lies inside [0, size): no padding."""
    return sum(1 for o in range(int(out))
               if o * stride - pad >= 0 and o * stride - pad + (filter_size - 1) * dilation < size)


FUNCTIONS = {"ceil": lambda x: math.ceil(x), "floor": lambda x: math.floor(x), "min": min, "max": max,
             "prod": lambda xs: math.prod(xs), "sum": sum, "window": _window, "inside": _inside, "abs": abs}
_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}
_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Gt: operator.gt, ast.GtE: operator.ge}


@lru_cache(maxsize=None)
def _parse(text: str) -> ast.expr:
    try:
        return ast.parse(text, mode="eval").body
    except SyntaxError as exc:
        raise UsmpError(f"access model: '{text}' is not an expression ({exc.msg})") from None


def evaluate(text: str | int | float, names: dict):
    """The value of an access-model expression; only arithmetic, comparisons, indexing and FUNCTIONS."""
    if isinstance(text, (int, float)):
        return text

    def value(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in names:
                raise UsmpError(f"access model: '{text}' uses '{node.id}', which the call does not have")
            return names[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            return _BINARY[type(node.op)](value(node.left), value(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -value(node.operand)
        if isinstance(node, ast.Subscript):
            return value(node.value)[value(node.slice)]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS:
            return FUNCTIONS[node.func.id](*(value(a) for a in node.args))
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _COMPARE:
            return _COMPARE[type(node.ops[0])](value(node.left), value(node.comparators[0]))
        if isinstance(node, ast.IfExp):
            return value(node.body) if value(node.test) else value(node.orelse)
        if isinstance(node, ast.BoolOp):
            values = [value(v) for v in node.values]
            return all(values) if isinstance(node.op, ast.And) else any(values)
        raise UsmpError(f"access model: '{text}' uses something other than arithmetic, comparisons, indexing "
                        f"and {', '.join(FUNCTIONS)}")

    return value(_parse(text))


# --- the families' data ------------------------------------------------------------------------------

def model_files() -> list[Path]:
    return sorted(KERNELS_DIR.glob("*/access.yaml"))


@lru_cache(maxsize=1)
def kernel_models() -> dict[str, dict]:
    """Kernel function -> its entry, from every family's access.yaml."""
    models: dict[str, dict] = {}
    for path in model_files():
        entries = yaml.safe_load(path.read_text()) or {}
        for name, entry in entries.items():
            if name.startswith("."):  # YAML anchors' holders
                continue
            if not isinstance(entry, dict) or not isinstance(entry.get("args"), list):
                raise UsmpError(f"{path}: kernel '{name}' needs `args:`, its pointer parameters in order")
            if name in models:
                raise UsmpError(f"{path}: kernel '{name}' is described twice")
            models[name] = entry
    return models


def call_accesses(function: str, params: dict, arg_buffers: list[str], calls: int,
                  buffer_bytes: list[int], extension: str | None) -> dict[int, Accesses] | None:
    """Accesses per argument position of `calls` runs of one kernel call, or None for a kernel no family
    describes. params: the call's parameters; arg_buffers and buffer_bytes per argument; extension: the
    core's ("dsp", "mve" or None), which some kernels' loops depend on (names `dsp` and `mve`, 0 or 1)."""
    entry = kernel_models().get(function)
    if entry is None:
        return None
    names = {**params, "calls": calls, "mve": int(extension == "mve"), "dsp": int(extension in ("dsp", "mve"))}
    names.update({f"{arg}_bytes": size for arg, size in zip(entry["args"], buffer_bytes)})
    for key, text in (entry.get("let") or {}).items():
        names[key] = evaluate(text, names)
    result = {}
    for position, arg in enumerate(entry["args"]):
        if position >= len(arg_buffers) or arg not in entry:
            continue
        spec = entry[arg] or {}
        result[position] = Accesses(float(evaluate(spec.get("loads", 0), names)),
                                    float(evaluate(spec.get("stores", 0), names)))
    return result


def default_accesses(writable: list[bool], element_bytes: list[int], buffer_bytes: list[int],
                     calls: int) -> dict[int, Accesses]:
    """The conservative default: every argument it reads read once, every one it writes written once, an
    element an access."""
    result = {}
    for k, (written, element, size) in enumerate(zip(writable, element_bytes, buffer_bytes)):
        elements = calls * size / max(element, 1)
        result[k] = Accesses(0.0, elements) if written else Accesses(elements, 0.0)
    return result
