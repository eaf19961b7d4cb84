"""Shared pieces of the tests/test_zephyr_*.py suites: fixtures, small models
built by hand, and where a Zephyr workspace is (if any)."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
import tflite

from tflite_builder import Op, Sub, T, build

FIXTURES = Path(__file__).parent / "fixtures" / "zephyr"
DTS = FIXTURES / "zephyr_sram1.dts"
PINNED_CONFIG = FIXTURES / "pinned.config"
PRJ_CONF = FIXTURES / "prj.conf"


def fc_chain_model(path: Path, width: int, seed: int = 0) -> Path:
    """input[1,width] -> FC -> [1,width] -> FC -> output[1,4], int8: the middle tensor needs workspace."""
    rng = np.random.default_rng(seed)

    def weights(name, rows, cols):
        return T(name, (rows, cols), "int8", data=rng.integers(-127, 128, (rows, cols)).astype(np.int8),
                 scales=[0.01])

    def bias(name, n):
        return T(name, (n,), "int32", data=rng.integers(-200, 200, n).astype(np.int32), scales=[0.0005])

    tensors = [
        T("input", (1, width), "int8", scales=[0.05], zero_points=[-3]),
        weights("w1", width, width), bias("b1", width),
        T("hidden", (1, width), "int8", scales=[0.1], zero_points=[1]),
        weights("w2", 4, width), bias("b2", 4),
        T("output", (1, 4), "int8", scales=[0.1], zero_points=[2]),
    ]
    fc = tflite.BuiltinOperator.FULLY_CONNECTED
    sub = Sub(tensors, [Op(fc, [0, 1, 2], [3]), Op(fc, [3, 4, 5], [6])], [0], [6])
    path.write_bytes(build([sub]))
    return path


def zephyr_base() -> Path | None:
    """A Zephyr tree: $ZEPHYR_BASE, else ~/zephyrproject/zephyr."""
    candidates = [os.environ.get("ZEPHYR_BASE"), str(Path.home() / "zephyrproject" / "zephyr")]
    for candidate in candidates:
        if candidate and (Path(candidate) / "scripts" / "dts" / "python-devicetree").is_dir():
            return Path(candidate)
    return None


def require_zephyr() -> Path:
    base = zephyr_base()
    if base is None:
        pytest.skip("no Zephyr workspace: set ZEPHYR_BASE or assemble ~/zephyrproject (see issue 4)")
    return base


def write_edt_pickle(base: Path, dts: Path, out_dir: Path) -> Path:
    """Run the Zephyr tree's own generator (gen_edt.py from 3.5, gen_defines.py in 3.4) on a .dts."""
    import subprocess
    import sys

    scripts = base / "scripts" / "dts"
    pickle_path = out_dir / "edt.pickle"
    command = [sys.executable, str(scripts / "gen_edt.py"), "--dts", str(dts), "--dtc-flags", "",
               "--bindings-dirs", str(base / "dts" / "bindings"), "--dts-out", str(out_dir / "out.dts"),
               "--edt-pickle-out", str(pickle_path)]
    if not (scripts / "gen_edt.py").is_file():
        command[1] = str(scripts / "gen_defines.py")
        command += ["--header-out", str(out_dir / "devicetree_generated.h")]
    env = {"PYTHONPATH": str(scripts / "python-devicetree" / "src"), "PATH": os.environ.get("PATH", "")}
    subprocess.run(command, check=True, capture_output=True, env=env)
    return pickle_path
