"""What each step of a compiled program is, for the plan JSON, the profile and the report page.

A step is one generated operator function: a TFLite operator, or a depth-first chain of them
(tiling/). Its kernel family says what runs it: the portable kernels, a CMSIS-NN glue function,
USMP's own Helium kernels, or a chain of portable band calls. `compiler_changes` says what never
became a step (folded, views); which operators a fast core keeps on portable kernels is the selection's
(program.portable_steps).
"""
from __future__ import annotations

from usmp.lower.program import LoweredOp, Program
from usmp.report.macs import operator_macs



def kernel_family(op: LoweredOp) -> dict:
    """{"kernel": portable | cmsis-nn | helium | dsp | depth-first, "functions": [...], "bands": N or None}."""
    functions = list(dict.fromkeys(call.function for call in op.calls))
    choice = getattr(op, "choice", None)
    if choice is not None:
        return {"kernel": "depth-first", "functions": functions, "bands": choice.bands}
    if any(f.startswith("usmp_helium_") for f in functions):
        family = "helium"
    elif any(f.startswith("usmp_dsp_") for f in functions):
        family = "dsp"
    elif any(f.startswith("usmp_fpu_") for f in functions):
        family = "fpu"
    elif any(f.startswith("usmp_cmsis_nn_") for f in functions):
        family = "cmsis-nn"
    else:
        family = "portable"
    return {"kernel": family, "functions": functions, "bands": None}


def kernel_label(entry: dict) -> str:
    """The kernel family as a person reads it: "CMSIS-NN convolve_1x1_s8_fast" (the glue
    function, named after the CMSIS-NN function it calls), "USMP Helium conv_1x1_s8", "depth-first x3, 12 bands"."""
    family, functions = entry["kernel"], entry.get("functions", [])
    if family == "depth-first":
        on = [name for name, used in (
            ("CMSIS-NN", any(f.startswith("usmp_cmsis_nn_") for f in functions)),
            ("USMP Helium", any(f.startswith("usmp_helium_") for f in functions)),
            ("USMP DSP", any(f.startswith("usmp_dsp_") for f in functions)),
            ("USMP FPU", any(f.startswith("usmp_fpu_") for f in functions))) if used] or ["portable"]
        return f"depth-first x{len(entry.get('chain', [])) or '?'}, {entry['bands']} bands, {' + '.join(on)} kernels"
    if family in ("cmsis-nn", "helium", "dsp", "fpu"):
        own = ("usmp_cmsis_nn_", "usmp_helium_", "usmp_dsp_", "usmp_fpu_")
        name = next((f for f in functions if f.startswith(own)), functions[0])
        short = (name.removeprefix("usmp_cmsis_nn_").removeprefix("usmp_helium_").removeprefix("usmp_dsp_")
                 .removeprefix("usmp_fpu_"))
        names = {'cmsis-nn': 'CMSIS-NN', 'helium': 'USMP Helium', 'dsp': 'USMP DSP', 'fpu': 'USMP FPU'}
        return f"{names[family]} {short}"
    return "portable"


def _tensor_entry(graph, index: int) -> dict:
    t = graph.tensors[index]
    return {"tensor": t.name, "shape": list(t.shape), "dtype": t.dtype, "constant": t.is_constant}


def operator_entries(program: Program) -> list[dict]:
    """One entry per step, in execution order."""
    by_index = {o.index: o for o in program.graph.operators}
    entries = []
    for step, op in enumerate(program.ops):
        choice = getattr(op, "choice", None)
        members = [by_index[i] for i in (choice.op_indices if choice else [op.op_index]) if i in by_index]
        first, last = (members[0], members[-1]) if members else (None, None)
        entry = {
            "step": step, "index": op.op_index, "op": op.opcode, "function": op.function_name,
            **kernel_family(op),
            "chain": [{"index": m.index, "op": m.opcode} for m in members] if choice else [],
            "inputs": [_tensor_entry(program.graph, i) for i in (first.inputs if first else []) if i is not None],
            "outputs": [_tensor_entry(program.graph, i) for i in (last.outputs if last else [])],
            "macs": sum(operator_macs(program.graph, m) for m in members),
            "reads": op.buffers_read(), "writes": op.buffers_written(),
            "bytes_read": sum(program.buffers[n].size for n in op.buffers_read()),
            "bytes_written": sum(program.buffers[n].size for n in op.buffers_written()),
        }
        entries.append(entry)
    return entries


def compiler_changes(program: Program) -> dict:
    """What the compiler did besides one kernel call per operator.

    folded: computed at compile time; without_code: operators that became no step, such as views
    (RESHAPE, SQUEEZE: another name for their input's buffer) and state bookkeeping; shared_buffers:
    buffers holding several tensors (views, and element-wise results written over an input that dies
    there). Which kernels run is each operator's own entry (operator_entries).
    """
    graph = program.graph
    stepped = {i for op in program.ops
               for i in (op.choice.op_indices if getattr(op, "choice", None) else [op.op_index])}
    without_code = [{"index": o.index, "op": o.opcode, "outputs": [graph.tensors[i].name for i in o.outputs]}
                    for o in graph.operators if o.index not in stepped]
    folded = [{"index": o.index, "op": o.opcode, "why": why,
               "outputs": [graph.tensors[i].name for i in o.outputs]} for o, why in graph.folded]
    shared = [{"buffer": name, "tensors": buffer_tensor_names(program, name)}
              for name, b in program.buffers.items() if len(b.tensors) > 1]
    return {"folded": folded, "without_code": without_code, "shared_buffers": shared}


def live_bytes_by_pool(document: dict) -> dict[str, list[int]]:
    """Bytes live at each step in each workspace pool of a plan document (planned sizes, alignment aside)."""
    steps = max(document.get("steps", 0), 1)
    pools = {p["name"]: [0] * steps for p in document["pools"] if p["kind"] == "workspace"}
    for b in document["buffers"]:
        if b["pool"] in pools:
            for step in range(b["first_step"], min(b["last_step"], steps - 1) + 1):
                pools[b["pool"]][step] += b["size_bytes"]
    return pools


def profile_rows(document: dict, step_instructions: list[int] | None = None, total: int | None = None,
                 step_memory: list[dict] | None = None) -> list[dict]:
    """One row per step for `usmp run --profile` and the report: what it is, its MACs and bytes, and with
    a Cortex-M run its instructions, share of the whole inference and instructions per MAC, and its loads
    and stores per memory when they were counted (runner/traffic.memory_entries)."""
    pools = live_bytes_by_pool(document)
    rows = []
    for entry in document["operators"]:
        step = entry["step"]
        row = {"step": step, "index": entry["index"], "op": entry["op"], "kernel": kernel_label(entry),
               "kernel_family": entry["kernel"], "bands": entry["bands"], "macs": entry["macs"],
               "chain": [member["op"] for member in entry.get("chain", [])],  # a depth-first loop's operators
               "bytes_live": sum(live[step] for live in pools.values()),
               "bytes_read": entry["bytes_read"], "bytes_written": entry["bytes_written"]}
        if step_instructions is not None:
            n = step_instructions[step]
            row.update(instructions=n, share=n / total if total else None,
                       instructions_per_mac=n / entry["macs"] if entry["macs"] else None)
        if step_memory is not None:
            row.update(memory=step_memory[step], wait_cycles=step_memory[step]["wait_cycles"])
        rows.append(row)
    return rows


def format_profile(rows: list[dict], total: int | None = None, outside: int | None = None) -> str:
    """The profile as a terminal table; instructions columns only when a Cortex-M run counted them."""
    counted = bool(rows) and "instructions" in rows[0]
    header = ["index", "operator", "kernel", "MACs", "B live", "B read", "B written"]
    if counted:
        header += ["instructions", "share", "instr/MAC"]
    table = [header]
    for r in rows:
        cells = [str(r["index"]), r["op"], r["kernel"], f"{r['macs']:,}", f"{r['bytes_live']:,}",
                 f"{r['bytes_read']:,}", f"{r['bytes_written']:,}"]
        if counted:
            cells += [f"{r['instructions']:,}", f"{100 * r['share']:.1f} %" if r["share"] is not None else "-",
                      f"{r['instructions_per_mac']:.2f}" if r["instructions_per_mac"] is not None else "-"]
        table.append(cells)
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) if i in (1, 2) else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))).rstrip()
             for row in table]
    macs = sum(r["macs"] for r in rows)
    if counted and total:
        summed = sum(r["instructions"] for r in rows)
        lines.append(f"operators {summed:,} of {total:,} instructions ({100 * summed / total:.2f} %); "
                     f"run() itself and the call {outside:,}; {macs:,} MACs"
                     + (f", {total / macs:.2f} instructions per MAC" if macs else ""))
    else:
        lines.append(f"{macs:,} MACs; instructions are counted on a Cortex-M target (--target cortex-mX)")
    return "\n".join(lines)


def buffer_tensor_names(program, name: str) -> list[str]:
    """The names of the tensors a buffer holds; a subgraph's buffers (sg<N>/..., sg<N>#k/...) index its graph."""
    graph = program.graph
    if name.startswith("sg") and "/" in name:
        number = name[2:name.index("/")].partition("#")[0]
        if number.isdigit() and int(number) in getattr(graph, "subgraphs", {}):
            graph = graph.subgraphs[int(number)]
    return [graph.tensors[i].name for i in program.buffers[name].tensors]
