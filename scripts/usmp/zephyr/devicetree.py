"""Memory regions of a Zephyr build's devicetree.

Two sources, same answer: `edt.pickle` (unpickled with the devicetree library
of the Zephyr that wrote it, so it needs ZEPHYR_BASE) or `zephyr.dts`, the
final merged devicetree as text, which we parse ourselves. A region is found
by node label (`sram1`) or by chosen node (`chosen:zephyr,sram`).
"""
from __future__ import annotations

import pickle
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from usmp.errors import UsmpError


@dataclass(frozen=True)
class MemoryRegion:
    path: str  # node path, e.g. /soc/memory@20000000
    labels: tuple[str, ...]
    address: int
    size: int
    linker_name: str | None  # `zephyr,memory-region`: the linker section and MEMORY region
    compatible: tuple[str, ...] = ()
    wait_states: int | None = None  # the node's `wait-states` property, when the board gives one

    @property
    def display(self) -> str:
        return self.labels[0] if self.labels else self.path


@dataclass
class Devicetree:
    source: str
    regions: dict[str, MemoryRegion] = field(default_factory=dict)  # path -> region
    labels: dict[str, str] = field(default_factory=dict)  # label -> path
    chosen: dict[str, str] = field(default_factory=dict)  # chosen name -> path

    def region(self, ref: str, where: str) -> MemoryRegion:
        """The region `ref` names: a node label or `chosen:<name>`."""
        if ref.startswith("chosen:"):
            chosen = ref[len("chosen:"):]
            path = self.chosen.get(chosen)
            if path is None:
                known = ", ".join(sorted(self.chosen)) or "none"
                raise UsmpError(f"{where}: the devicetree ({self.source}) has no chosen node '{chosen}' (chosen: {known})")
        else:
            path = self.labels.get(ref)
            if path is None:
                known = ", ".join(sorted(r.display for r in self.regions.values())) or "none"
                raise UsmpError(f"{where}: the devicetree ({self.source}) has no node labelled '{ref}' "
                                f"(memory nodes: {known})")
        region = self.regions.get(path)
        if region is None:
            raise UsmpError(f"{where}: devicetree node '{ref}' ({path}) has no reg property: it is not a memory region")
        return region

    def chosen_region(self, name: str) -> MemoryRegion | None:
        path = self.chosen.get(name)
        return self.regions.get(path) if path else None


def load_devicetree(path: str | Path, zephyr_base: str | Path | None = None) -> Devicetree:
    """Read edt.pickle (falling back to zephyr.dts beside it) or a .dts file."""
    path = Path(path)
    if path.suffix == ".pickle":
        sibling = path.with_name("zephyr.dts")
        try:
            return read_edt_pickle(path, zephyr_base)
        except UsmpError:
            if sibling.exists():
                return read_dts(sibling)
            raise
    return read_dts(path)


# --- edt.pickle -------------------------------------------------------------

def read_edt_pickle(path: Path, zephyr_base: str | Path | None) -> Devicetree:
    if zephyr_base:
        library = Path(zephyr_base) / "scripts" / "dts" / "python-devicetree" / "src"
        if str(library) not in sys.path:
            sys.path.insert(0, str(library))
    try:
        with open(path, "rb") as f:
            edt = pickle.load(f)
    except OSError as exc:
        raise UsmpError(f"cannot read devicetree {path}: {exc.strerror}") from None
    except (ModuleNotFoundError, AttributeError) as exc:
        raise UsmpError(f"cannot unpickle {path} ({exc}): give --zephyr-base or read zephyr.dts instead") from None
    tree = Devicetree(str(path))
    for node in edt.nodes:
        for label in node.labels:
            tree.labels[label] = node.path
        if node.regs and node.regs[0].size:
            reg = node.regs[0]
            prop = node.props.get("zephyr,memory-region")
            compat = node.props.get("compatible")
            tree.regions[node.path] = MemoryRegion(
                node.path, tuple(node.labels), reg.addr or 0, reg.size, prop.val if prop else None,
                tuple(compat.val) if compat else (), _pickled_wait_states(node))
    for name, node in edt.chosen_nodes.items():
        tree.chosen[name] = node.path
    return tree


def _pickled_wait_states(node) -> int | None:
    """`wait-states` of an edtlib node: a binding's property, else the raw devicetree one (no binding has it)."""
    if "wait-states" in node.props:
        return int(node.props["wait-states"].val)
    raw = getattr(getattr(node, "_node", None), "props", {}).get("wait-states")
    try:
        return raw.to_num() if raw is not None else None
    except Exception:  # not a single cell: ignored, as a board that does not say
        return None


# --- zephyr.dts ------------------------------------------------------------

_TOKEN = re.compile(r'''
    (?P<ws>\s+) | (?P<comment>/\*.*?\*/|//[^\n]*) |
    (?P<string>"(?:\\.|[^"\\])*") |
    (?P<punct>[{};=<>\[\]]) |
    (?P<word>[^\s{};=<>\[\]"]+)
''', re.X | re.S)


def _tokens(text: str, source: str):
    pos = 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if not match:
            raise UsmpError(f"{source}: cannot parse devicetree near '{text[pos:pos + 20]}'")
        pos = match.end()
        if match.lastgroup not in ("ws", "comment"):
            yield match.group()


@dataclass
class _Node:
    path: str
    labels: list[str]
    props: dict[str, list] = field(default_factory=dict)
    children: list["_Node"] = field(default_factory=list)


class _DtsParser:
    def __init__(self, text: str, source: str):
        self.tokens = list(_tokens(text, source))
        self.pos = 0
        self.source = source

    def fail(self, what: str) -> UsmpError:
        near = " ".join(self.tokens[self.pos:self.pos + 6])
        return UsmpError(f"{self.source}: {what} near '{near}'")

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            raise self.fail(f"expected '{expected}'" if expected else "unexpected end")
        self.pos += 1
        return token

    def parse(self) -> list[_Node]:
        roots = []
        while self.peek() is not None:
            token = self.peek()
            if token.startswith("/dts-v1/") or token.startswith("/memreserve/") or token.startswith("/plugin/"):
                while self.take() != ";":
                    pass
            elif token == "/" or token.startswith("&") or token.endswith(":"):
                roots.append(self.node(parent=None))
            else:
                raise self.fail("expected a node")
        return roots

    def node(self, parent: str | None) -> _Node:
        labels = []
        while self.peek().endswith(":"):
            labels.append(self.take()[:-1])
        name = self.take()
        path = "/" if name == "/" else ("" if parent in (None, "/") else parent) + "/" + name
        node = _Node(path, labels)
        self.take("{")
        while self.peek() != "}":
            if self.peek().endswith(":") or self.tokens[self.pos + 1] == "{":  # labelled or plain child node
                node.children.append(self.node(path))
            else:
                self.property(node)
        self.take("}")
        self.take(";")
        return node

    def property(self, node: _Node) -> None:
        name = self.take()
        if self.peek() == ";":
            self.take()
            node.props[name] = []
            return
        self.take("=")
        values: list = []
        while True:
            token = self.take()
            if token == "<":
                while self.peek() != ">":
                    values.append(self.cell(self.take()))
                self.take(">")
            elif token == "[":
                while self.peek() != "]":
                    self.take()
                self.take("]")
            elif token.startswith('"'):
                values.append(token[1:-1])
            elif token.startswith("&"):
                values.append(token)
            else:
                raise self.fail(f"unexpected '{token}' in property {name}")
            if self.take() == ";":
                break
        node.props[name] = values

    def cell(self, token: str):
        if token.startswith("&"):
            return token
        try:
            return int(token.strip("()"), 0)
        except ValueError:
            raise self.fail(f"cell '{token}' is not a number (give the preprocessed zephyr.dts)") from None


def read_dts(path: str | Path) -> Devicetree:
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise UsmpError(f"cannot read devicetree {path}: {exc.strerror}") from None
    return parse_dts(text, str(path))


def parse_dts(text: str, source: str = "<dts>") -> Devicetree:
    tree = Devicetree(source)
    chosen_refs: dict[str, str] = {}

    def visit(node: _Node, cells: tuple[int, int]) -> None:
        for label in node.labels:
            tree.labels[label] = node.path
        reg = node.props.get("reg")
        address_cells, size_cells = cells
        if reg and size_cells and len(reg) >= address_cells + size_cells:
            address = _join_cells(reg[:address_cells])
            size = _join_cells(reg[address_cells:address_cells + size_cells])
            name = node.props.get("zephyr,memory-region")
            waits = node.props.get("wait-states")
            tree.regions[node.path] = MemoryRegion(
                node.path, tuple(node.labels), address, size, name[0] if name else None,
                tuple(v for v in node.props.get("compatible", []) if isinstance(v, str)),
                waits[0] if waits and isinstance(waits[0], int) else None)
        if node.path == "/chosen":
            for key, value in node.props.items():
                if value and isinstance(value[0], str):
                    chosen_refs[key] = value[0]
        child_cells = (_one(node.props.get("#address-cells"), 2), _one(node.props.get("#size-cells"), 1))
        for child in node.children:
            visit(child, child_cells)

    for root in _DtsParser(text, source).parse():
        if root.path != "/":
            continue  # &label { } overlays are merged already in zephyr.dts
        visit(root, (2, 1))
    for key, ref in chosen_refs.items():
        tree.chosen[key] = tree.labels.get(ref[1:], ref) if ref.startswith("&") else ref
    return tree


def _one(values, default: int) -> int:
    return values[0] if values and isinstance(values[0], int) else default


def _join_cells(cells: list) -> int:
    value = 0
    for cell in cells:
        if not isinstance(cell, int):
            return 0
        value = (value << 32) | cell
    return value
