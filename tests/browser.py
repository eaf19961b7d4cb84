"""Open a page in Debian's headless Chromium: its DOM after the scripts ran, console errors, a screenshot.

Tests skip with the reason when chromium is not installed (scripts/bootstrap installs it).
"""
from __future__ import annotations

import re
import shutil
import struct
import subprocess
import tempfile
import zlib
from pathlib import Path

import numpy as np

CHROMIUM_MISSING = "chromium not found: install Debian's chromium (scripts/bootstrap does)"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
         "--enable-logging=stderr", "--v=0"]
_CONSOLE = re.compile(r"CONSOLE[^\]]*\]\s*(.*)")


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _run(url: str, *extra: str) -> tuple[str, list[str]]:
    with tempfile.TemporaryDirectory(prefix="usmp-chromium-") as profile:
        done = subprocess.run([chromium(), *FLAGS, f"--user-data-dir={profile}", *extra, url],
                              capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    console = [m.group(1) for m in map(_CONSOLE.search, done.stderr.splitlines()) if m]
    return done.stdout, console


def dump_dom(page: Path, fragment: str = "") -> tuple[str, list[str]]:
    """The DOM once the page's scripts ran, and what the page wrote to its console."""
    return _run(page.resolve().as_uri() + fragment, "--dump-dom", "--virtual-time-budget=2000")


def screenshot(page: Path, png: Path, width: int = 1400, height: int = 2400) -> list[str]:
    _, console = _run(page.resolve().as_uri(), f"--screenshot={png}", f"--window-size={width},{height}")
    return console


def read_png(path: Path) -> np.ndarray:
    """An 8-bit RGB or RGBA PNG (what Chromium writes) as an array of height x width x channels."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    position, idat, header = 8, b"", None
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        position += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0, f"unsupported PNG: {header}"
    channels = 3 if colour == 2 else 4
    stride = width * channels
    raw = zlib.decompress(idat)
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if kind == 1:
            for i in range(channels, stride):
                line[i] = (line[i] + line[i - channels]) & 0xFF
        elif kind == 2:
            line = bytearray((a + b) & 0xFF for a, b in zip(line, previous))
        elif kind == 3:
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                line[i] = (line[i] + ((left + previous[i]) >> 1)) & 0xFF
        elif kind == 4:
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                up, up_left = previous[i], previous[i - channels] if i >= channels else 0
                p = left + up - up_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - up_left)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else up_left)) & 0xFF
        rows.append(bytes(line))
        previous = line
    return np.frombuffer(b"".join(rows), np.uint8).reshape(height, width, channels)
