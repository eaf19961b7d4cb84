"""The C of IF and WHILE: block functions, and the operator's function that calls them (see usmp/control).

Every function here takes typed pointers, as operator functions do: the IF
or WHILE function receives every buffer its blocks touch (run() computes the
addresses), passes each block function the ones it needs, and each block
function calls its operators' functions in order. Copies of operands in and
out of blocks are usmp_copy_bytes calls.
"""
from __future__ import annotations

from usmp.lower.program import LoweredOp, Program


def control_functions(program: Program, op: LoweredOp, op_view) -> list[dict]:
    """Function views (the template's op shape) for op's nested operators, its blocks and op itself, in the
    order C needs them. op_view(nested_op) gives an ordinary operator's view."""
    names = {a.buffer: a.name for a in op.args}
    functions: list[dict] = []
    for block in op.control.blocks:
        used: dict[str, bool] = {}
        calls = []
        for inner in block.ops:
            functions.extend(control_functions(program, inner, op_view) if inner.control else [op_view(inner)])
            for a in inner.args:
                used[a.buffer] = used.get(a.buffer, False) or a.writable
            calls.append(f"{inner.function_name}({', '.join(names[a.buffer] for a in inner.args)});")
        block.parameters = list(used)
        functions.append(dict(
            title=f"Subgraph {block.subgraph}: the {block.role} of {_where(op)}", function=block.function_name,
            params=[], calls=[], body=calls, guards=[], loop=None,
            parameters=[dict(decl=_decl(program, b, w, names[b])) for b, w in used.items()]))
    view = op_view(op)
    view.update(title=f"Operator {op.op_index}: {op.opcode}" + (f" (subgraph {op.subgraph})" if op.subgraph else ""),
                body=_body(op, names))
    functions.append(view)
    return functions


def _where(op: LoweredOp) -> str:
    return f"operator {op.op_index} ({op.opcode})" + (f" of subgraph {op.subgraph}" if op.subgraph else "")


def _decl(program: Program, buffer: str, writable: bool, name: str) -> str:
    return f"{'' if writable else 'const '}{program.buffers[buffer].c_type} *{name}"


def _copies(copies, names) -> list[str]:
    return [f"usmp_copy_bytes(&(const struct usmp_copy_bytes_params){{ {c.nbytes} }}, {names[c.source]}, "
            f"{names[c.target]});" for c in copies if c.source != c.target]


def _call(block, names) -> str:
    return f"{block.function_name}({', '.join(names[b] for b in block.parameters)});"


def _body(op: LoweredOp, names: dict[str, str]) -> list[str]:
    """The operator's statements, one C line each (tabs give the nesting)."""
    control = op.control
    if control.kind == "if":
        then, otherwise = control.blocks
        lines = [f"if ({names[control.condition]}[0] != 0) {{"]
        lines += ["\t" + s for s in _copies(control.enter[0], names) + [_call(then, names)]
                  + _copies(control.leave[0], names)]
        lines += ["} else {"]
        lines += ["\t" + s for s in _copies(control.enter[1], names) + [_call(otherwise, names)]
                  + _copies(control.leave[1], names)]
        return lines + ["}"]
    cond, body = control.blocks
    lines = _copies(control.enter[0], names) + ["for (;;) {", "\t" + _call(cond, names),
                                                 f"\tif ({names[control.condition]}[0] == 0) {{", "\t\tbreak;", "\t}",
                                                 "\t" + _call(body, names)]
    lines += ["\t" + s for s in _copies(control.carry, names)]
    return lines + ["}"] + _copies(control.leave[0], names)
