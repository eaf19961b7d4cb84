"""Read Kconfig output (`.config`) and Kconfig fragments (`prj.conf`).

We parse `.config`, not `autoconf.h`: its location moved in Zephyr 3.7 and it
cannot tell a string from a macro. Both files share one syntax:

    CONFIG_FOO=y
    CONFIG_BAR="text"
    CONFIG_BAZ=4096
    # CONFIG_QUX is not set
"""
from __future__ import annotations

import re
from pathlib import Path

from usmp.errors import UsmpError

_ASSIGNMENT = re.compile(r"^(CONFIG_[A-Za-z0-9_]+)=(.*)$")
_UNSET = re.compile(r"^#\s*(CONFIG_[A-Za-z0-9_]+) is not set\s*$")


class KconfigValues(dict):
    """CONFIG_NAME -> value: True/False for bool, int for numbers, str for strings."""

    def __init__(self, values=(), source: str = "<config>"):
        super().__init__(values)
        self.source = source

    def flag(self, name: str) -> bool:
        return self.get(name) is True

    def string(self, name: str, default: str = "") -> str:
        value = self.get(name, default)
        return value if isinstance(value, str) else default

    def integer(self, name: str, default: int = 0) -> int:
        value = self.get(name, default)
        return value if isinstance(value, int) and not isinstance(value, bool) else default


def parse_config_text(text: str, source: str = "<config>") -> KconfigValues:
    values = KconfigValues(source=source)
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        unset = _UNSET.match(line)
        if unset:
            values[unset.group(1)] = False
            continue
        if not line or line.startswith("#"):
            continue
        match = _ASSIGNMENT.match(line)
        if not match:
            raise UsmpError(f"{source}:{number}: not a Kconfig assignment: '{line}'")
        values[match.group(1)] = _value(match.group(2).strip(), f"{source}:{number}")
    return values


def read_config(path: str | Path) -> KconfigValues:
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise UsmpError(f"cannot read Kconfig file {path}: {exc.strerror}") from None
    return parse_config_text(text, str(path))


def _value(text: str, where: str):
    if text == "y":
        return True
    if text == "n":
        return False
    if text.startswith('"'):
        if len(text) < 2 or not text.endswith('"'):
            raise UsmpError(f"{where}: unterminated string {text}")
        return re.sub(r'\\(.)', r'\1', text[1:-1])
    try:
        return int(text, 0)
    except ValueError:
        return text  # tristate 'm' or something we do not use: keep it verbatim
