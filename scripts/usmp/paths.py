"""Where the non-Python parts of the module live.

The package is installed editable from the module's repository (a Zephyr module
is always a checkout), so templates and the kernel library are found beside it.
"""
from pathlib import Path

MODULE_ROOT = Path(__file__).resolve().parents[2]
TEMPLATES_DIR = MODULE_ROOT / "templates"
KERNELS_DIR = MODULE_ROOT / "kernels"
KERNELS_INCLUDE_DIR = KERNELS_DIR / "include"
KERNELS_SRC_DIR = KERNELS_DIR / "src"
