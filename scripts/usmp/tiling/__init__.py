"""Depth-first execution: chains of sliding-window operators run a band of rows at a time."""
from usmp.tiling.chains import TilingChoice, tile_program

__all__ = ["TilingChoice", "tile_program"]
