"""The USMP DSP family: USMP's own kernels for cores with the DSP extension (kernels/dsp/; Cortex-M4, M7, M33).

Its handlers are dsp.py's (int8) and dsp_s16.py's (16x8); they need no
CMSIS-NN. dsp.settle decides which int8 filters of the calls it wins get
widened (--optimize).
"""
from __future__ import annotations

from usmp.select.dsp import CANDIDATES, DSP_HEADER, DSP_SOURCES, settle
from usmp.select.dsp_s16 import S16_CANDIDATES
from usmp.select.family import Family

FAMILY = Family(name="USMP DSP", key="usmp-dsp", kernels="usmp", extensions=("dsp",), number_types=("int8", "int16"),
                table={**CANDIDATES, **S16_CANDIDATES}, sources=DSP_SOURCES, header=DSP_HEADER, settle=settle)
