"""Memory traffic as a person reads it: `usmp run --stats` and `--profile` tables.

The figures come from runner/traffic.memory_entries: loads and stores (32-bit transfers) and bytes per
pool, the stack and the rest, each pool priced by its wait states.
"""
from __future__ import annotations


def _table(rows: list[list[str]], left: tuple[int, ...] = (0,)) -> list[str]:
    """Columns padded to their widest cell: those in `left` left-aligned, the numbers right-aligned."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))).rstrip()
            for row in rows]


def format_traffic(memory: dict, instructions: int | None) -> str:
    """Per memory: loads, stores, bytes, wait states and wait cycles; then the estimate."""
    rows = [["memory", "loads", "stores", "bytes read", "bytes written", "wait", "wait cycles"]]
    for name, entry in memory["pools"].items():
        where = f"{name} ({entry['kind']}" + (f", {entry['region']})" if entry["region"] else ")")
        rows.append([where, f"{entry['loads']:,}", f"{entry['stores']:,}", f"{entry['bytes_read']:,}",
                     f"{entry['bytes_written']:,}", str(entry["wait"]), f"{entry['wait_cycles']:,}"])
    for name in ("stack", "other", "total"):
        entry = memory[name]
        rows.append([{"other": "other (harness, C library, tables)"}.get(name, name), f"{entry['loads']:,}",
                     f"{entry['stores']:,}", f"{entry['bytes_read']:,}", f"{entry['bytes_written']:,}",
                     "" if name == "total" else "-", f"{memory['wait_cycles']:,}" if name == "total" else "-"])
    lines = ["  traffic    one inference's loads and stores (an access is one 32-bit transfer):"]
    lines += ["    " + line for line in _table(rows)]
    if instructions is not None:
        lines.append(f"  estimate   {instructions + memory['wait_cycles']:>9} cycles = {instructions:,} instructions "
                     f"+ {memory['wait_cycles']:,} wait cycles (an estimate: one cycle an instruction plus the "
                     f"pools' wait states per access)")
    return "\n".join(lines)


def format_operator_traffic(rows: list[dict], memory: dict) -> str:
    """Accesses (loads + stores) of each operator per pool, the stack and the rest, and its wait cycles."""
    pools = list(memory["pools"])
    table = [["index", "operator", *pools, "stack", "other", "wait cycles"]]
    for row in rows:
        m = row["memory"]
        table.append([str(row["index"]), row["op"],
                      *(f"{m['pools'][p]['loads'] + m['pools'][p]['stores']:,}" for p in pools),
                      *(f"{m[k]['loads'] + m[k]['stores']:,}" for k in ("stack", "other")),
                      f"{row['wait_cycles']:,}"])
    counted = sum(r["memory"]["total"]["loads"] + r["memory"]["total"]["stores"] for r in rows)
    total = memory["total"]["loads"] + memory["total"]["stores"]
    lines = ["loads + stores per operator and memory:", *_table(table, left=(1,))]
    lines.append(f"operators {counted:,} of {total:,} accesses; run() itself and the call {total - counted:,}")
    return "\n".join(lines)
