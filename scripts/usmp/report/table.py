"""Terminal tables of plans: pools against their bounds, algorithms against each other."""
from __future__ import annotations


def pools_table(document: dict) -> str:
    rows = [("pool", "kind", "size B", "bound B", "ratio", "limit B")]
    for p in document["pools"]:
        bound = p.get("lower_bound_bytes", 0)
        ratio = f"{p['size_bytes'] / bound:.3f}" if bound else "-"
        limit = "-" if p["limit_bytes"] is None else str(p["limit_bytes"])
        rows.append((p["name"], p["kind"], str(p["size_bytes"]), str(bound), ratio, limit))
    return format_rows(rows)


def algorithms_table(results: list[tuple[str, dict | None, float, str]]) -> str:
    """results: (algorithm, pool sizes or None when it failed, seconds, note)."""
    names = []
    for _, sizes, _, _ in results:
        for name in sizes or {}:
            if name not in names:
                names.append(name)
    rows = [("algorithm", *[f"{n} B" for n in names], "seconds", "")]
    for algorithm, sizes, seconds, note in results:
        cells = [str(sizes[n]) if sizes else "-" for n in names]
        rows.append((algorithm, *cells, f"{seconds:.3f}", note))
    return format_rows(rows)


def format_rows(rows: list[tuple[str, ...]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for r in rows:
        cells = [c.ljust(w) if i == 0 or not c[:1].isdigit() else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def placement_table(document: dict) -> str:
    """Placement by demand: each pool's wait states and the accesses and wait cycles the access model estimates
    there; then the constants copied at start-up, and the kernels the model had to guess for."""
    placement = document["placement"]
    rows = [("pool", "wait", "est. accesses", "est. wait cycles")]
    for p in placement["pools"]:
        rows.append((p["name"], str(p["wait"]), str(p["estimated_accesses"]), str(p["estimated_wait_cycles"])))
    lines = [format_rows(rows), f"estimated wait cycles of one inference: {placement['estimated_wait_cycles']}"]
    for c in placement["copies"]:
        how = "by init()" if c["when"] == "start-up" else "by a COPY operator"
        lines.append(f"{c['when']} copy: {c['buffer']} ({c['size_bytes']} B) from {c['from_pool']} into "
                     f"{c['to_pool']} {how}, {c['estimated_accesses']} accesses of the copy an inference")
    if placement["unmodelled_kernels"]:
        lines.append("kernels without an access model (each operand counted once): "
                     + ", ".join(placement["unmodelled_kernels"]))
    return "\n".join(lines)


def tiling_table(document: dict) -> str:
    """The depth-first chains: which operators, band height, bytes saved and the instructions the cost model says
    each adds (per cent of the whole-tensor program's estimate)."""
    rows = [("chain (operators)", "band rows", "bands", "schedule", "whole B", "bands B", "saved B", "+instructions")]
    for t in document["tiling"]:
        whole = t.get("whole_instructions") or 0
        extra = t.get("extra_instructions") or 0
        share = f" ({100 * extra / whole:.1f} %)" if whole else ""
        rows.append((" ".join(str(i) for i in t["operators"]), str(t["band_rows"]), str(t["bands"]), t["strategy"],
                     str(t["whole_bytes"]), str(t["band_bytes"]), str(t["whole_bytes"] - t["band_bytes"]),
                     f"{extra}{share}"))
    return format_rows(rows)


def control_flow_table(document: dict) -> str:
    """IF and WHILE operators: each block (subgraph) and the steps of the plan it spans."""
    rows = [("operator", "block", "subgraph", "steps")]
    for region in document.get("control_flow", []):
        where = f"{region['operator']} {region['opcode']}" + (f" (subgraph {region['subgraph']})"
                                                              if region["subgraph"] else "")
        for block in region["blocks"]:
            rows.append((where, block["role"], str(block["subgraph"]), f"{block['first_step']}-{block['last_step']}"))
    return format_rows(rows)
