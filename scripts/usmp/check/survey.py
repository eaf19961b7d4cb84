"""Survey a model item by item with the importer's and the lowerings' own checks.

Nothing here decides what is supported: each tensor goes through the
importer's tensor reader, each operator through the importer's operator
reader and then its own lowering; their ModelError messages are the reasons.
The whole pipeline (import, then lower) runs last, so a problem only the
whole model shows (several subgraphs, an output nothing writes) is listed too.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from usmp.errors import ModelError
from usmp.fold import fold_constants
from usmp.frontend.tflite_reader import (
    _TENSOR_TYPE_NAMES, _TENSOR_TYPES, CONSTANT_ONLY_TYPES, _default_name, _Reader, parse_tflite,
)
from usmp.ir.graph import Graph, Operator, Tensor
from usmp.lower import lower_graph
from usmp.lower.context import LowerContext
from usmp.lower.lowering import unsupported_reason
from usmp.lower.ops import lowering_for
from usmp.shapes import resolve_shapes
from usmp.uint8 import rewrite_uint8
from usmp.state import resolve_state

# Operators that run other subgraphs: usmp compiles straight-line code of one subgraph.
CONTROL_FLOW = frozenset({"IF", "WHILE", "CALL", "CALL_ONCE", "STABLEHLO_WHILE", "STABLEHLO_CASE",
                          "STABLEHLO_COMPOSITE"})


@dataclass
class OperatorReport:
    subgraph: int
    index: int
    opcode: str  # builtin name, or CUSTOM:<custom code>
    inputs: list[tuple[int, str]]  # (tensor index or -1 when omitted, type name)
    outputs: list[tuple[int, str]]
    reason: str | None = None  # why it cannot be compiled; None: supported
    folded: bool = False  # computed at compile time (DEQUANTIZE of float16 weights): no code at run time

    @property
    def supported(self) -> bool:
        return self.reason is None

    @property
    def custom_name(self) -> str | None:
        return self.opcode.removeprefix("CUSTOM:") if self.opcode.startswith("CUSTOM:") else None

    def as_dict(self) -> dict:
        return dict(subgraph=self.subgraph, index=self.index, opcode=self.opcode, custom_name=self.custom_name,
                    inputs=[dict(tensor=t, type=ty) for t, ty in self.inputs],
                    outputs=[dict(tensor=t, type=ty) for t, ty in self.outputs],
                    supported=self.supported, reason=self.reason, folded=self.folded)


@dataclass
class TensorTypeReport:
    subgraph: int
    index: int
    name: str
    type: str
    reason: str


@dataclass
class ModelReport:
    model: str
    subgraphs: int
    tensors: int  # in all subgraphs
    operators: list[OperatorReport] = field(default_factory=list)
    tensor_types: list[TensorTypeReport] = field(default_factory=list)  # tensors of a type usmp has no use for
    problems: list[str] = field(default_factory=list)  # one line each, first found first

    @property
    def compiles(self) -> bool:
        return not self.problems

    def custom_operators(self) -> dict[str, list[OperatorReport]]:
        found: dict[str, list[OperatorReport]] = {}
        for op in self.operators:
            if op.custom_name is not None:
                found.setdefault(op.custom_name, []).append(op)
        return found

    def control_flow(self) -> list[OperatorReport]:
        return [op for op in self.operators if op.opcode in CONTROL_FLOW]

    def as_dict(self) -> dict:
        return dict(
            model=self.model, subgraphs=self.subgraphs, tensors=self.tensors,
            operators=[op.as_dict() for op in self.operators],
            unsupported_tensor_types=[vars(t).copy() for t in self.tensor_types],
            custom_operators=[dict(name=name, operators=[dict(subgraph=o.subgraph, index=o.index) for o in ops])
                              for name, ops in self.custom_operators().items()],
            control_flow=[dict(subgraph=o.subgraph, index=o.index, opcode=o.opcode) for o in self.control_flow()],
            problems=list(self.problems),
            verdict="compiles" if self.compiles else "refused",
        )


def check_model(path: str | Path) -> ModelReport:
    """The whole model's report; a file that is no readable model at all is one ModelError."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ModelError(f"{path}: cannot read model file: {exc.strerror or exc}") from None
    source = str(path)
    try:
        graph, first = fold_constants(rewrite_uint8(resolve_shapes(parse_tflite(data, _default_name(path), source)))), None  # as compile does
    except ModelError as exc:
        if len(data) < 8 or data[4:8] != b"TFL3":
            raise
        graph, first = None, exc
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):  # operators compile never reached: stay quiet
            warnings.simplefilter("ignore")
            return _Survey(data, _default_name(path), source).report(graph, first)
    except ModelError:
        raise
    except Exception:  # damaged beyond item-by-item reading: the importer's own message says so
        if first is not None:
            raise first from None
        raise


def count_problems(path: str | Path) -> int | None:
    """How many problems `usmp check` lists (None: the file cannot be surveyed)."""
    try:
        return len(check_model(path).problems)
    except Exception:  # only a count for an error message: never a second error
        return None


class _Survey:
    def __init__(self, data: bytes, name: str, source: str):
        self.reader = _Reader(data, name, source)
        self.name = name
        self.source = source
        self.problems: list[str] = []

    def note(self, message: str) -> str:
        """Record a problem once (the pipeline repeats, and may extend, what an item already said)."""
        message = message.removeprefix(f"{self.source}: ")
        for k, problem in enumerate(self.problems):
            if message.startswith(problem):  # the same problem, perhaps said at more length: keep the longer
                self.problems[k] = message
                return message
        self.problems.append(message)
        return message

    def report(self, graph: Graph | None, first: ModelError | None) -> ModelReport:
        model = self.reader.model
        opcodes = [self.reader._opcode_name(model.OperatorCodes(i)) for i in range(model.OperatorCodesLength())]
        report = ModelReport(self.source, model.SubgraphsLength(), 0)
        for s in range(model.SubgraphsLength()):
            sub = model.Subgraphs(s)
            report.tensors += sub.TensorsLength()
            tensors = [self._tensor(report, s, sub.Tensors(i), i) for i in range(sub.TensorsLength())]
            types = [_TENSOR_TYPE_NAMES.get(sub.Tensors(i).Type(), "?").lower() for i in range(sub.TensorsLength())]
            parsed = []
            for i in range(sub.OperatorsLength()):
                op, op_report = self._operator(s, sub.Operators(i), i, opcodes, tensors, types)
                parsed.append(op)
                report.operators.append(op_report)
            if s == 0:
                self._lower(graph or self._partial_graph(sub, tensors, parsed),
                            [r for r in report.operators if r.subgraph == 0], tensors)
        if first is not None:
            self.note(str(first))
        elif graph is not None:
            try:
                lower_graph(graph)
            except ModelError as exc:
                self.note(str(exc))
        # An unknown custom operator is the root cause of the unusual tensors it makes: listed first.
        report.problems = sorted(self.problems, key=lambda p: ": custom operator " not in p)
        return report

    def _tensor(self, report: ModelReport, s: int, t, index: int) -> Tensor | None:
        try:
            return self.reader._tensor(t, index)
        except ModelError as exc:
            message = self.note(_in_subgraph(s, str(exc).removeprefix(f"{self.source}: ")))
            if _TENSOR_TYPES.get(t.Type(), "unknown") in CONSTANT_ONLY_TYPES | {"unknown"}:
                name = t.Name().decode(errors="replace") if t.Name() else f"tensor_{index}"
                report.tensor_types.append(TensorTypeReport(
                    s, index, name, _TENSOR_TYPE_NAMES.get(t.Type(), str(t.Type())).lower(), message))
            return None

    def _operator(self, s, op, index, opcodes, tensors, types) -> tuple[Operator, OperatorReport]:
        code = op.OpcodeIndex()
        opcode = opcodes[code] if 0 <= code < len(opcodes) else f"UNKNOWN_OPCODE_{code}"

        def typed(values):
            return [(int(v), types[v] if 0 <= v < len(types) else "-") for v in values]

        inputs = [int(v) for v in op.InputsAsNumpy()] if op.InputsLength() else []
        outputs = [int(v) for v in op.OutputsAsNumpy()] if op.OutputsLength() else []
        report = OperatorReport(s, index, opcode, typed(inputs), typed(outputs))
        try:
            parsed = self.reader._operator(op, index, opcodes, len(tensors))
        except ModelError as exc:
            report.reason = self.note(_in_subgraph(s, str(exc).removeprefix(f"{self.source}: ")))
            known = [v for v in inputs + outputs if 0 <= v < len(tensors)]  # keeps its outputs produced
            return Operator(index, opcode, [v for v in inputs if v in known], [v for v in outputs if v in known]), report
        reason = unsupported_reason(parsed)
        if reason is not None:
            report.reason = self.note(_in_subgraph(s, reason))
        else:
            bad = [v for v in inputs + outputs if 0 <= v < len(tensors) and tensors[v] is None]
            if bad:  # the tensor's own problem is listed; this is its consequence
                report.reason = f"{_in_subgraph(s, f'operator {index} ({opcode})')} uses tensor {bad[0]}, which cannot be imported"
        return parsed, report

    def _partial_graph(self, sub, tensors, parsed) -> Graph:
        """Subgraph 0 with stand-ins for what could not be imported, so the other operators still lower."""
        count = len(tensors)
        filled = [t if t is not None else Tensor(i, f"tensor_{i}", (1,), "int8") for i, t in enumerate(tensors)]
        inputs = [int(v) for v in sub.InputsAsNumpy() if 0 <= v < count] if sub.InputsLength() else []
        outputs = [int(v) for v in sub.OutputsAsNumpy() if 0 <= v < count] if sub.OutputsLength() else []
        return Graph(self.name, filled, parsed, inputs, outputs)

    def _lower(self, graph: Graph, reports: list[OperatorReport], tensors: list[Tensor | None]) -> None:
        """Each operator's own lowering, in order, in one context (later ones read earlier outputs)."""
        try:  # variables resolved as compile resolves them, so their reads and writes lower
            state = resolve_state(graph)
        except ModelError as exc:
            self.note(str(exc))
            state = None
        except Exception:  # a partial graph (stand-in tensors) the state stage cannot read: no variables
            state = None
        ctx = LowerContext(graph, state)
        for index in graph.inputs:
            if tensors[index] is not None and not graph.tensors[index].is_constant:
                ctx.read(index)
        by_index = {r.index: r for r in reports}
        remaining = {op.index for op in graph.operators}
        for report in reports:
            report.folded = report.reason is None and report.index not in remaining
        for op in graph.operators:
            report = by_index.get(op.index)
            if report is None or report.reason is not None:
                continue
            ctx.begin(op)
            try:
                lowering_for(op.opcode)(op, ctx)
            except ModelError as exc:
                report.reason = self.note(str(exc))
            except Exception as exc:  # a lowering bug: still one line, and the survey goes on
                report.reason = self.note(f"operator {op.index} ({op.opcode}): internal error while lowering "
                                          f"({type(exc).__name__}: {exc})")
            ctx.end()


def _in_subgraph(s: int, message: str) -> str:
    return message if s == 0 else f"subgraph {s}: {message}"
