"""EMBEDDING_LOOKUP: rows of a table picked by int32 ids.

Types as TFLite Micro: a float32 or int8 table copied as is, or an int8 table
with zero point 0 dequantized into a float32 output (hybrid). Ids outside the
table make TFLite Micro stop with an error: constant ids are refused here,
run-time ones give a row of zeros (the kernel cannot report an error).
Constant ids of a plain lookup are consumed here: each run of consecutive
ids becomes one strided copy, unless there are more than MAX_RUNS runs.
"""
from __future__ import annotations

import numpy as np

from usmp.ir.graph import element_size
from usmp.lower.ops import lowering
from usmp.lower.ops.common import require_dtype, require_quantized
from usmp.lower.ops.slice import strided_copy

MAX_RUNS = 8  # constant ids in more runs than this are read by the kernel instead


@lowering("EMBEDDING_LOOKUP")
def lower_embedding_lookup(op, ctx):
    if len(op.inputs) != 2 or None in op.inputs or len(op.outputs) != 1:
        raise ctx.fail("expects ids, a table and one output")
    ids, table, out = ctx.tensor(op.inputs[0]), ctx.tensor(op.inputs[1]), ctx.tensor(op.outputs[0])
    require_dtype(ctx, ids, "int32")
    if len(ids.shape) != 1:
        raise ctx.fail(f"ids tensor '{ids.name}' has shape {list(ids.shape)}; expected one dimension")
    dtype = require_dtype(ctx, table, "float32", "int8")
    require_dtype(ctx, out, *(("float32",) if dtype == "float32" else ("int8", "float32")))
    if len(table.shape) < 2:
        raise ctx.fail(f"table '{table.name}' has shape {list(table.shape)}; expected at least two dimensions")
    rows, lookups = int(table.shape[0]), int(ids.shape[0])
    columns = table.num_elements // rows if rows else 0
    if out.num_elements != lookups * columns:
        raise ctx.fail(f"output holds {out.num_elements} elements; {lookups} rows of {columns} expected")
    if ids.is_constant:
        bad = [int(i) for i in ids.data.reshape(-1) if not 0 <= int(i) < rows]
        if bad:
            raise ctx.fail(f"id {bad[0]} is outside the table's {rows} rows")
    if out.num_elements == 0:
        return
    hybrid = dtype == "int8" and out.dtype == "float32"
    if ids.is_constant and not hybrid:
        runs = _runs([int(i) for i in ids.data.reshape(-1)])
        if len(runs) <= MAX_RUNS:
            table_ref, output = ctx.read(op.inputs[1]), ctx.write(op.outputs[0])
            done = 0
            for first, length in runs:
                strided_copy(ctx, dtype, [length * columns], [1], [1], table_ref, output,
                             in_offset=first * columns, out_offset=done * columns)
                done += length
            return
    refs = dict(ids=ctx.read(op.inputs[0]), table=ctx.read(op.inputs[1]), output=ctx.write(op.outputs[0]))
    if hybrid:
        q = require_quantized(ctx, table)
        if int(q.zero_point) != 0:
            raise ctx.fail(f"table '{table.name}' has zero point {int(q.zero_point)}; the hybrid lookup needs 0")
        ctx.call("usmp_embedding_lookup_s8_f32", "usmp_embedding_lookup_s8_f32_params",
                 dict(lookups=lookups, rows=rows, columns=columns, scale=float(np.float32(q.scale))), **refs)
        return
    ctx.call("usmp_embedding_lookup", "usmp_embedding_lookup_params",
             dict(lookups=lookups, rows=rows, row_bytes=columns * element_size(dtype)), **refs)


def _runs(ids: list[int]) -> list[tuple[int, int]]:
    """(first id, length) of each run of consecutive ids, in order."""
    runs: list[tuple[int, int]] = []
    for i in ids:
        if runs and runs[-1][0] + runs[-1][1] == i:
            runs[-1] = (runs[-1][0], runs[-1][1] + 1)
        else:
            runs.append((i, 1))
    return runs
