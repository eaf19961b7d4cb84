"""Placement by demand on the Cortex-M55 (QEMU MPS3 AN547) with pools of different speeds (issue 34).

    PYTHONPATH=scripts .venv/bin/python benchmarks/memory_placement.py [--cmsis-nn DIR] [MODEL ...]

The pools: an 8 KB workspace in DTCM (0 wait states), the rest of the workspace in SRAM (2), 16 KB of
constants in ITCM (0) and the rest in the QSPI flash (3), each in the AN547 memory its region= names. Per
model, for `--placement order` (the pools in the order given) and the default `--placement demand`: the
loads and stores of one inference per pool, the stack and the rest, counted by QEMU's memory plugin (they
add up to the inference's total), the wait cycles (sum of accesses x wait) and whether the outputs equal
tflite-micro's; the copies placement by demand made. Then the same with `--io-targets dma`, the DTCM pool
reachable by the CPU only and SRAM by the CPU and the DMA: where the input and output buffers sit (the
pool the DMA sees) and whether the results stay bit-exact. The summary is the geometric mean of the
demand/order wait-cycle ratios.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from dependencies import CMSIS_NN_MISSING, cmsis_nn_dir  # noqa: E402
from reference import EXAMPLE_MODELS, outputs_match, random_inputs, reference_outputs  # noqa: E402

from usmp.codegen.layout import placement_of  # noqa: E402
from usmp.compiler import CompileOptions, compile_model  # noqa: E402
from usmp.pools import parse_pool  # noqa: E402
from usmp.runner.baremetal import run_on_target  # noqa: E402
from usmp.runner.regions import place_pools  # noqa: E402
from usmp.runner.targets import target_named  # noqa: E402

TARGET = "cortex-m55"
POOLS = ["dtcm:workspace:size=8k:wait=0:region=DTCM", "sram:workspace:wait=2:region=SRAM",
         "itcm:constant:size=16k:wait=0:region=ITCM", "flash:constant:wait=3:region=FLASH"]
DMA_POOLS = ["dtcm:workspace:size=8k:wait=0:region=DTCM:targets=c", "sram:workspace:wait=2:region=SRAM:targets=c+dma",
             "itcm:constant:size=16k:wait=0:region=ITCM", "flash:constant:wait=3:region=FLASH"]
MODELS = [ROOT / "benchmarks" / "models" / "ds_cnn_kws.tflite", ROOT / "benchmarks" / "models" / "mobilenet_v1_025_96.tflite",
          ROOT / "benchmarks" / "models" / "resnet8_32.tflite", EXAMPLE_MODELS / "person_detect.tflite"]


def measure(model: Path, pools: list[str], cmsis_nn: str, **options) -> dict:
    specs = place_pools([parse_pool(p) for p in pools], target_named(TARGET))
    compiled = compile_model(model, CompileOptions(cpu=TARGET, pools=specs, cmsis_nn=cmsis_nn, **options))
    inputs = random_inputs(compiled.program.graph, np.random.default_rng(2024))
    run = run_on_target(compiled, inputs, TARGET, count=True, traffic=True)
    expected = reference_outputs(model, inputs)
    plan = json.loads(compiled.files[f"{compiled.program.name}_plan.json"])
    memory = run.report["memory"]
    parts = [*memory["pools"].values(), memory["stack"], memory["other"]]
    return {
        "memory": memory, "instructions": run.report["instructions"], "wait_cycles": run.report["wait_cycles"],
        "adds_up": all(sum(p[k] for p in parts) == memory["total"][k] for k in ("loads", "stores")),
        "bit_exact": len(expected) == len(run.outputs) and all(outputs_match(e, g) for e, g in zip(expected, run.outputs)),
        "copies": plan["placement"]["copies"], "plan": plan, "program": compiled.program, "layout": compiled.layout,
    }


def traffic_lines(name: str, row: dict) -> list[str]:
    memory = row["memory"]
    cells = [f"{pool} {m['loads'] + m['stores']:,}" for pool, m in memory["pools"].items()]
    cells += [f"stack {memory['stack']['loads'] + memory['stack']['stores']:,}",
              f"other {memory['other']['loads'] + memory['other']['stores']:,}"]
    total = memory["total"]["loads"] + memory["total"]["stores"]
    return [f"  {name:<7} loads+stores: {', '.join(cells)} = {total:,} ({'adds up' if row['adds_up'] else 'DOES NOT ADD UP'}); "
            f"wait cycles {row['wait_cycles']:,}; {row['instructions']:,} instructions; "
            f"{'bit-exact' if row['bit_exact'] else 'NOT BIT-EXACT'}"]


def io_pool(row: dict, name: str) -> str:
    """The pool of an input or output: its own, or its host's when it lives inside another buffer's bytes."""
    return placement_of(row["program"], row["layout"], name)[0]


def io_pools(row: dict) -> str:
    program = row["program"]
    where = [f"{'input' if n in program.inputs else 'output'} {n}: {io_pool(row, n)}"
             + (f" (inside {program.buffers[n].inside[0]})" if program.buffers[n].inside else "")
             for n in (*program.inputs, *program.outputs)]
    return "; ".join(where)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", type=Path, default=MODELS)
    parser.add_argument("--cmsis-nn", default=None, help="CMSIS-NN directory (default: as tests/dependencies.py finds it)")
    args = parser.parse_args()
    cmsis_nn = args.cmsis_nn or cmsis_nn_dir()
    if cmsis_nn is None:
        print(CMSIS_NN_MISSING, file=sys.stderr)
        return 1
    print(f"pools: {' '.join('--pool ' + p for p in POOLS)}")
    ratios, ok = [], True
    for model in args.models:
        order = measure(model, POOLS, str(cmsis_nn), placement="order")
        demand = measure(model, POOLS, str(cmsis_nn))
        ratio = demand["wait_cycles"] / order["wait_cycles"] if order["wait_cycles"] else 1.0
        ratios.append(ratio)
        print(f"\n{model.stem}: wait cycles demand/order {ratio:.3f}")
        print("\n".join(traffic_lines("order", order) + traffic_lines("demand", demand)))
        for c in demand["copies"]:
            print(f"    copy ({c['when']}): {c['buffer']} {c['size_bytes']} B from {c['from_pool']} into {c['to_pool']}")
        dma = measure(model, DMA_POOLS, str(cmsis_nn), io_targets=("dma",))
        print(f"  --io-targets dma: {io_pools(dma)}; "
              f"{'bit-exact' if dma['bit_exact'] else 'NOT BIT-EXACT'}; wait cycles {dma['wait_cycles']:,}")
        for c in dma["copies"]:
            if c["when"] != "start-up":
                print(f"    copy ({c['when']}): {c['buffer']} {c['size_bytes']} B from {c['from_pool']} into {c['to_pool']}")
        ok &= order["bit_exact"] and demand["bit_exact"] and dma["bit_exact"] and order["adds_up"] and demand["adds_up"]
        ok &= ratio <= 1.0 and all(io_pool(dma, n) == "sram"
                                   for n in (*dma["program"].inputs, *dma["program"].outputs))
    geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    print(f"\ngeo-mean wait cycles demand/order: {geo:.3f} (at most {max(ratios):.3f} for one model)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
