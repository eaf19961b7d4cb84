"""usmp check: everything in a model usmp cannot compile, in one report (exit 0: it compiles, 2: it does not)."""
from __future__ import annotations

import json

from usmp import progress
from usmp.check import ModelReport, check_model
from usmp.select import CPUS, KERNEL_CHOICES
from usmp.select.cmsis_nn_sources import ENV_VARIABLE

NAME = "check"
HELP = "report every operator, tensor type and problem of a model; exit status 0 when it compiles, 2 when not"


def add_arguments(parser) -> None:
    parser.add_argument("model", help="the .tflite model")
    parser.add_argument("--json", action="store_true", help="print the report as one JSON object")
    parser.add_argument("--cpu", choices=tuple(CPUS), default=None,
                        help="also name the operators this core would run on portable kernels, and why")
    parser.add_argument("--kernels", choices=KERNEL_CHOICES, default="auto", help="the kernels, as usmp compile's")
    parser.add_argument("--cmsis-nn", metavar="DIR", default=None,
                        help=f"the CMSIS-NN directory (default: ${ENV_VARIABLE})")


def run(args) -> int:
    report = check_model(args.model)
    portable = portable_on(args) if args.cpu and report.compiles else None
    progress.clear()  # the stage line, before the command's own output
    if args.json:
        document = report.as_dict()
        if portable is not None:
            document.update(cpu=args.cpu, portable_kernels=[step.as_dict() for step in portable])
        print(json.dumps(document, indent=2))
    else:
        print("\n".join(report_lines(report, portable, args.cpu)))
    return 0 if report.compiles else 2


def portable_on(args) -> list:
    """The operators the model's compile for args.cpu leaves on portable kernels (select/fallbacks.py)."""
    from usmp.compiler import CompileOptions, analyse_model  # the check stage is imported by the compiler

    program, _ = analyse_model(args.model, CompileOptions(cpu=args.cpu, kernels=args.kernels, cmsis_nn=args.cmsis_nn))
    return program.portable_steps


def report_lines(report: ModelReport, portable: list | None = None, cpu: str | None = None) -> list[str]:
    lines = [f"model: {report.model} ({report.subgraphs} subgraph{'s' if report.subgraphs != 1 else ''}, "
             f"{len(report.operators)} operators, {report.tensors} tensors)", "operators:"]
    slow = {step.index: step for step in portable or []}
    for op in report.operators:
        where = f"{op.index}" if op.subgraph == 0 else f"{op.subgraph}:{op.index}"
        types = f"{_types(op.inputs)} -> {_types(op.outputs)}"
        status = "supported" if op.supported else f"NOT SUPPORTED: {op.reason}"
        if op.folded:
            status += " (folded into a constant at compile time)"
        if op.subgraph == 0 and op.index in slow:
            status += f"; portable kernel on the {cpu}: {slow[op.index].why}"
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
    if portable is not None:
        lines.append(f"portable kernels on the {cpu}: " + (f"{len(portable)} operator{'s' if len(portable) > 1 else ''} "
                                                          f"(marked above)" if portable else "none"))
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
