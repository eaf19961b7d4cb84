"""External dependencies some suites and benchmarks need, found where a user would point at them.

Nothing here is part of the repository: CMSIS-NN is a library USMP calls, never copies. It is
looked for as a user has it: $CMSIS_NN_PATH, then ../shared/third_party/cmsis-nn beside the
repository (the project's own machines: the revision TFLite Micro pins), then the `cmsis-nn` module
of a Zephyr workspace ($ZEPHYR_BASE/../modules/lib/cmsis-nn, ~/zephyrproject/...). Suites that need
it skip with the reason.
"""
from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
CMSIS_NN_HEADER = Path("Include") / "arm_nnfunctions.h"


def cmsis_nn_candidates() -> list[Path]:
    places = []
    if os.environ.get("CMSIS_NN_PATH"):
        places.append(Path(os.environ["CMSIS_NN_PATH"]).expanduser())
    places.append(REPO_ROOT.parent / "shared" / "third_party" / "cmsis-nn")
    for zephyr in (os.environ.get("ZEPHYR_BASE"), str(Path.home() / "zephyrproject" / "zephyr")):
        if zephyr:
            places.append(Path(zephyr).expanduser().parent / "modules" / "lib" / "cmsis-nn")
    return places


def cmsis_nn_dir() -> Path | None:
    """The first CMSIS-NN checkout found, or None."""
    return next((p.resolve() for p in cmsis_nn_candidates() if (p / CMSIS_NN_HEADER).is_file()), None)


CMSIS_NN_MISSING = ("CMSIS-NN not found: set CMSIS_NN_PATH to a CMSIS-NN checkout "
                    "(github.com/ARM-software/CMSIS-NN) or use a Zephyr workspace with the cmsis-nn module")
