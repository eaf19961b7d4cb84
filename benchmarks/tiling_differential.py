"""The differential test of depth-first loops, at scale: random chains checked against tflite-micro.

    .venv/bin/python benchmarks/tiling_differential.py [--seeds N] [--first S]
                     [--configs host,host-m4,host-m55,cortex-m0,cortex-m4,cortex-m55] [--cmsis-nn DIR]

Each seed is a model of tests/random_chains.py; its longest regions are fused into loops with a band height
and strategy drawn from the seed (whatever the search would choose), compiled for each configuration and
run on one random input: `host` with the portable kernels (under ASan and UBSan), `host-m4`/`host-m55` with
the DSP/Helium kernel selections (CMSIS-NN's plain C, USMP's Helium kernels' C twins), and the emulated
cores (CMSIS-NN's DSP and Helium code on the M4 and M55). Prints per configuration the models run, those
bit-exact and the seeds of any that are not, then which operators ran as links and which kernels the loops
called. Exit status 1 when any output differs.
"""
from __future__ import annotations

import argparse
import collections
import sys
import tempfile
from pathlib import Path
from unittest import mock

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from dependencies import CMSIS_NN_MISSING, cmsis_nn_dir  # noqa: E402
from random_chains import longest_regions_tiler, random_chain  # noqa: E402
from reference import outputs_match, random_inputs, reference_outputs  # noqa: E402

from usmp.compiler import CompileOptions, compile_model  # noqa: E402
from usmp.runner.cortex_m import run_cortex_m  # noqa: E402
from usmp.runner.host import run_host  # noqa: E402

CONFIGS = {  # name -> (cpu, run)
    "host": ("generic", lambda c, x: run_host(c, x, sanitize=True)),
    "host-m4": ("cortex-m4", lambda c, x: run_host(c, x, sanitize=True)),
    "host-m55": ("cortex-m55", lambda c, x: run_host(c, x, sanitize=True)),
    "cortex-m0": ("cortex-m0", lambda c, x: run_cortex_m(c, x, "cortex-m0").outputs),
    "cortex-m4": ("cortex-m4", lambda c, x: run_cortex_m(c, x, "cortex-m4").outputs),
    "cortex-m55": ("cortex-m55", lambda c, x: run_cortex_m(c, x, "cortex-m55").outputs),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=300)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--configs", default=",".join(CONFIGS))
    parser.add_argument("--cmsis-nn", help="CMSIS-NN directory (default: $CMSIS_NN_PATH, a Zephyr workspace's module)")
    args = parser.parse_args(argv)
    cmsis_nn = args.cmsis_nn or cmsis_nn_dir()
    configs = [c for c in args.configs.split(",") if c]
    if cmsis_nn is None and any(c != "host" and c != "cortex-m0" for c in configs):
        print(f"note: {CMSIS_NN_MISSING}; the DSP and Helium configurations run the portable kernels", file=sys.stderr)
    work = Path(tempfile.mkdtemp(prefix="usmp-chains-"))
    exact = collections.Counter()
    differ: dict[str, list[int]] = collections.defaultdict(list)
    links, kernels = collections.Counter(), collections.Counter()
    for seed in range(args.first, args.first + args.seeds):
        model = work / f"chain{seed}.tflite"
        model.write_bytes(random_chain(seed))
        for config in configs:
            cpu, run = CONFIGS[config]
            with mock.patch("usmp.compiler.tile_program", longest_regions_tiler(seed)):
                compiled = compile_model(model, CompileOptions(tiling="max", cpu=cpu,
                                                               cmsis_nn=str(cmsis_nn) if cmsis_nn else None))
            loops = [op for op in compiled.program.ops if getattr(op, "links", None)]
            if config == configs[0]:
                links.update(link.opcode for op in loops for link in op.links)
            kernels.update(call.function for op in loops for call in op.calls)
            inputs = random_inputs(compiled.program.graph, np.random.default_rng(seed))
            got = run(compiled, inputs)
            if all(outputs_match(e, g) for e, g in zip(reference_outputs(model, inputs), got)):
                exact[config] += 1
            else:
                differ[config].append(seed)
        print(f"seed {seed} done", file=sys.stderr, flush=True)
    print(f"{args.seeds} random chains (seeds {args.first}..{args.first + args.seeds - 1}), loops forced on the "
          f"longest regions")
    print("configuration | models | bit-exact | differing seeds")
    for config in configs:
        print(f"{config} | {args.seeds} | {exact[config]} | {' '.join(map(str, differ[config])) or '-'}")
    print("operators run as links: " + ", ".join(f"{k} {v}" for k, v in links.most_common()))
    print("kernels the loops called: " + ", ".join(f"{k} {v}" for k, v in kernels.most_common()))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
