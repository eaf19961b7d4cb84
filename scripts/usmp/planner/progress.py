"""Progress of a long planning run on the terminal (stderr), after one second."""
from __future__ import annotations

import sys
import time


class TerminalProgress:
    """callback(best_bytes, bound_bytes): prints at most twice a second, only once planning is slow."""

    def __init__(self, stream=None, delay: float = 1.0, every: float = 0.5):
        self.stream = stream if stream is not None else sys.stderr
        self.start = time.perf_counter()
        self.delay, self.every = delay, every
        self.last = None
        self.shown = False

    def __call__(self, best: int, bound: int) -> None:
        now = time.perf_counter()
        elapsed = now - self.start
        if elapsed < self.delay or (self.last is not None and now - self.last < self.every):
            return
        self.last = now
        self.shown = True
        self.stream.write(f"\rusmp: planning: best {best} B, bound {bound} B, {elapsed:.1f} s ")
        self.stream.flush()

    def finish(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()
            self.shown = False
