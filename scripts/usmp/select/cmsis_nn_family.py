"""The CMSIS-NN family: CMSIS-NN's kernels through USMP's glue (kernels/cmsis_nn/), on DSP and Helium cores.

Its handlers are the rewrites of cmsis_nn.py (int8) and cmsis_nn_s16.py
(16x8), each offered with the instructions it is estimated to take and the
stack it takes where measured (cmsis_nn_frames.py): the selector weighs them
against the other families' offers for the same call.
"""
from __future__ import annotations

from typing import Callable

from usmp.paths import KERNELS_DIR
from usmp.report.macs import operator_macs
from usmp.select.cmsis_nn import FAST, REWRITES
from usmp.select.cmsis_nn_frames import stack_of
from usmp.select.cmsis_nn_s16 import S16_REWRITES
from usmp.select.family import Call, Entry, Family, Offer, Rewrite
from usmp.select.helium import layer_cost

# Estimated instructions of CMSIS-NN's kernels (and the Helium ones of the glue), per multiply-accumulate and
# per output element, by extension: measured on the Cortex-M4 and M55 with single layers (run_on_target's
# profile). The DSP depthwise kernels take about 7 a MAC (3x3, 16 to 256 channels), the fully connected one
# 1.9 a MAC and 57 per output, the convolutions 2.8 a MAC, 30 per output and the im2col's 20 per filter row and
# pixel (a 1x1 convolution of 8 channels: 12,571 instructions for 1,792 MACs).
PER_MAC = {"dsp": {"conv": 2.8, "depthwise": 7.0, "fc": 1.9}, "mve": {"conv": 0.5, "depthwise": 1.0, "fc": 0.48}}
# the s16 kernels (int16 columns, int8 filters widened as the sums go), measured on the Cortex-M4 with DS-CNN's
# int16 twin: the 1x1 convolutions 2.2 a MAC, the 3x3 depthwise (arm_depthwise_conv_fast_s16) 12.2; on the M55
# with the int16 twins (least squares over MobileNetV1-0.25's and micro_speech's eight convolution shapes, within
# 20 %): 0.39 a MAC, 27.5 an output and 146 per filter row and pixel of its im2col, the 3x3 depthwise 6.5-6.9 a
# MAC, the fully connected layer of 4,000 inputs 3.7 (its 64-bit sums)
PER_MAC_S16 = {"dsp": {"conv": 2.2, "depthwise": 12.0, "fc": 2.5}, "mve": {"conv": 0.39, "depthwise": 6.6, "fc": 3.7}}
PER_OUTPUT = {"dsp": {"conv": 30.0, "fc": 57.0, "other": 6.0}, "mve": {"conv": 27.5, "fc": 10.0, "other": 2.0}}
IM2COL_ROW = {"dsp": 20.0, "mve": 146.0}
CALL = {"fc": 160}  # instructions of a call's own set-up (300 where not listed)
# per output element of single calls, measured on the Cortex-M4 (4,096 elements, both inputs rescaled)
PER_ELEMENT = {"dsp": {"usmp_cmsis_nn_elementwise_add_s8": 81.0}}


def estimate(c: Call, rewrite: Rewrite) -> float:
    """The instructions a CMSIS-NN call is estimated to take on c.extension's core: on Helium the measured layer
    costs USMP's Helium kernels are weighed against (infinite where unmeasured, so that those win)."""
    if c.extension == "mve" and not rewrite.function.endswith("_s16"):
        return layer_cost(rewrite.function, c.p)
    op = c.graph_op()
    graph = c.program.graph
    macs = operator_macs(graph, op)
    outputs = graph.tensors[op.outputs[0]].num_elements
    kind = {"CONV_2D": "conv", "DEPTHWISE_CONV_2D": "depthwise", "FULLY_CONNECTED": "fc"}.get(op.opcode)
    if op.opcode == "DEPTHWISE_CONV_2D" and rewrite.params_type == "usmp_cmsis_nn_conv_params":
        kind = "conv"  # one input channel: as a convolution
    if kind is None:
        per_output = PER_ELEMENT.get(c.extension, {}).get(rewrite.function, PER_OUTPUT[c.extension]["other"])
        return CALL.get("other", 300) + per_output * outputs
    per_mac = (PER_MAC_S16 if c.call.function.endswith("_s16") else PER_MAC)[c.extension][kind]
    cost = CALL.get(kind, 300) + per_mac * macs + PER_OUTPUT[c.extension].get(kind, 0.0) * outputs
    if rewrite.function in IM2COL_KERNELS:
        n, h, w, _ = rewrite.params["output"]
        cost += IM2COL_ROW[c.extension] * rewrite.params["filter"][1] * n * h * w
    return cost


IM2COL_KERNELS = ("usmp_cmsis_nn_convolve_rows_s8", "usmp_cmsis_nn_convolve_rows_nt_s8", "usmp_cmsis_nn_convolve_s8",
                  "usmp_cmsis_nn_convolve_s16", "usmp_cmsis_nn_convolve_s16_int32_bias")


def _offering(rewrite: Callable[[Call], Rewrite | None]):
    def handler(c: Call) -> Offer | str | None:
        chosen = rewrite(c)
        if not isinstance(chosen, Rewrite):
            return chosen
        return Offer(chosen, estimate(c, chosen), stack=stack_of(c.extension, chosen.function))
    return handler


GLUE_SOURCE = KERNELS_DIR / "cmsis_nn" / "cmsis_nn_glue.c"

FAMILY = Family(
    name="CMSIS-NN", key="cmsis-nn", kernels="cmsis-nn", extensions=FAST, number_types=("int8", "int16"),
    table={function: Entry(names, _offering(rewrite))
           for function, (names, rewrite) in {**REWRITES, **S16_REWRITES}.items()},
    sources=(GLUE_SOURCE,), header="usmp_kernels/cmsis_nn_glue.h", cmsis_nn=True)
