"""Python values as C literals."""
from __future__ import annotations

import numpy as np


def c_literal(value) -> str:
    if isinstance(value, (list, tuple, np.ndarray)):
        return "{" + ", ".join(c_literal(v) for v in value) + "}"
    if isinstance(value, (bool, np.bool_)):
        return "1" if value else "0"
    if isinstance(value, (int, np.integer)):
        value = int(value)
        if value == -(2**31):
            return "(-2147483647 - 1)"
        return str(value)
    if isinstance(value, (float, np.floating)):
        return c_float(value)
    raise TypeError(f"no C literal for {value!r}")


def c_float(value) -> str:
    value = np.float32(value)
    if not np.isfinite(value):
        raise ValueError(f"non-finite float constant {value}")
    text = "%.9g" % float(value)
    if "e" not in text and "." not in text:
        text += ".0"
    return text + "f"


def c_byte_rows(data: bytes, per_row: int = 16) -> list[str]:
    return [", ".join(f"0x{b:02x}" for b in data[i:i + per_row]) for i in range(0, len(data), per_row)]
