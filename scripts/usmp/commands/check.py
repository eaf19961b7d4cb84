"""usmp check: everything in a model usmp cannot compile, in one report (exit 0: it compiles, 2: it does not)."""
from __future__ import annotations

import json

from usmp import progress
from usmp.check import ModelReport, check_model

NAME = "check"
HELP = "report every operator, tensor type and problem of a model; exit status 0 when it compiles, 2 when not"


def add_arguments(parser) -> None:
    parser.add_argument("model", help="the .tflite model")
    parser.add_argument("--json", action="store_true", help="print the report as one JSON object")


def run(args) -> int:
    report = check_model(args.model)
    progress.clear()  # the stage line, before the command's own output
    print(json.dumps(report.as_dict(), indent=2) if args.json else "\n".join(report_lines(report)))
    return 0 if report.compiles else 2


def report_lines(report: ModelReport) -> list[str]:
    lines = [f"model: {report.model} ({report.subgraphs} subgraph{'s' if report.subgraphs != 1 else ''}, "
             f"{len(report.operators)} operators, {report.tensors} tensors)", "operators:"]
    for op in report.operators:
        where = f"{op.index}" if op.subgraph == 0 else f"{op.subgraph}:{op.index}"
        types = f"{_types(op.inputs)} -> {_types(op.outputs)}"
        status = "supported" if op.supported else f"NOT SUPPORTED: {op.reason}"
        if op.folded:
            status += " (folded into a constant at compile time)"
        lines.append(f"  {where:>5}  {op.opcode:24} {types:36} {status}")
    lines.append("unsupported tensor types: " + (", ".join(
        f"{_where(t.subgraph)}tensor {t.index} '{t.name}' {t.type}" for t in report.tensor_types) or "none"))
    custom = report.custom_operators()
    lines.append("custom operators: " + (", ".join(
        f"{name} ({', '.join(f'{_where(o.subgraph)}operator {o.index}' for o in ops)})"
        for name, ops in custom.items()) or "none"))
    flow = report.control_flow()
    lines.append("control flow: " + (", ".join(f"{o.opcode} ({_where(o.subgraph)}operator {o.index})" for o in flow)
                                     or "none"))
    if report.compiles:
        lines.append("verdict: compiles")
    else:
        lines.append(f"problems ({len(report.problems)}):")
        lines.extend(f"  - {p}" for p in report.problems)
        lines.append(f"verdict: refused ({len(report.problems)} problem{'s' if len(report.problems) > 1 else ''})")
    return lines


def _types(tensors: list[tuple[int, str]]) -> str:
    return ",".join("-" if t < 0 else ty.lower() for t, ty in tensors) or "()"


def _where(subgraph: int) -> str:
    return "" if subgraph == 0 else f"subgraph {subgraph} "
