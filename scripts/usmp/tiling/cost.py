"""What a band loop costs in instructions, on the kernels the selection pass will give its links.

A loop computes the same outputs as whole-tensor calls; what it adds is
- per band, usmp_band_step's work for each link, and per link and band a copy
  of the kernel's parameters;
- each kernel call's own set-up, paid once per band instead of once: some
  kernels loop over their filters or channel blocks before touching a pixel
  (CMSIS-NN's DSP matrix kernel sums every filter row, USMP's Helium 1x1
  loads each block's constants);
- pixels a kernel cannot take in its usual group (CMSIS-NN's matrix kernels
  take 2 pixels at once on DSP cores, 4 on Helium, USMP's DSP convolution 2):
  a band whose pixels are no multiple of the group leaves some to a slower
  path, once per band;
- input rows a kernel prepares again in every band: USMP's DSP depthwise
  kernel widens each input row it reads into int16 pairs, a group of four
  channels at a time, so a band widens the filter's halo rows again (a cost
  per row and group, and per element);
- rows kept in band buffers, moved to the top (0.1-0.8 instructions a byte by core);
- with `recompute`, the rows computed twice.
The figures are QEMU instruction counts measured on the Cortex-M targets
(benchmarks/band_costs.py prints each chain's estimate against its
measurement, run_on_target's per-call profile each band's calls); the portable
kernels' are the Cortex-M0's, whose per-MAC cost the others scale.
"""
from __future__ import annotations

from dataclasses import dataclass

from usmp.lower.program import KernelCall
from usmp.tiling.band_fields import by_variant

# instructions per multiply-accumulate of the convolution kernels, by CMSIS-NN extension (None: portable C)
PER_MAC = {None: 11.0, "dsp": 2.8, "mve": 0.5}
# instructions per element of an element-wise or pooling kernel
PER_ELEMENT = {None: 12.0, "dsp": 6.0, "mve": 2.0}
# CMSIS-NN convolutions gather each output pixel's window first (im2col): per filter row copied
IM2COL_ROW = {"dsp": 20.0, "mve": 20.0}
IM2COL_KERNELS = ("usmp_cmsis_nn_convolve_rows_s8", "usmp_cmsis_nn_convolve_rows_nt_s8", "usmp_cmsis_nn_convolve_s8")
# USMP's DSP convolution builds each output pixel's window (filter rows of more than one row) as a column of
# int16 pairs: per filter row and pixel, measured on the Cortex-M4 (micro_speech's 10x8 window: 650,876
# instructions for 320,000 MACs whole, 0.92 a MAC in the matrix loop).
DSP_WINDOW_ROW = 70.0
DSP_WINDOW_KERNELS = ("usmp_dsp_conv_s8", "usmp_dsp_conv_wide_s8")
# USMP's Helium matrix kernel builds its columns likewise (run_columns: per filter row and pixel, and per element
# of the column: KernelCost.per_column), fitted with its other terms to the benchmark models' layers whole on the M55.
HELIUM_WINDOW_ROW = 4.0
HELIUM_WINDOW_KERNELS = ("usmp_helium_conv_s8",)
# the 16x8 kernel copies a window's int16 taps as they are: per filter row half the int8's, plus one per tap
DSP_S16_WINDOW_KERNELS = ("usmp_dsp_conv_s16", "usmp_dsp_conv_s16_sum32", "usmp_dsp_conv_s16_sum64")
# per loop: its function's set-up, a reduction's start and finish, the tables' first reads. On Helium a few hundred
# (the M55's chains of micro_speech and DS-CNN: 250-300 beyond their bands' calls and steps)
LOOP = {None: 1500, "dsp": 1500, "mve": 300}
# usmp_band_step's plan, per link and band, beyond NEXT's share. Its steady bands (tiling.c: the band before
# moved on) cost about half what the others do: QEMU's count of the step in the --tiling max builds fell from 165
# to 96 a link and band on DS-CNN's chain on the M55, 167 to 115 on person_detect's, 151 to 151 on ResNet-8's
# paced one (no band is the one before moved on). So the M55's 135 (fitted to ResNet-8's and person_detect's
# chains before) less the three chains' mean saving, 32: 103. On the DSP cores 10 (fitted to DS-CNN's pointwise
# -> depthwise chains on the Cortex-M4, benchmarks/band_costs.py) less its saving there, 66 a link and band (162
# to 96), is below 0: 0, the step's cost now within NEXT's. Without an extension 100, not fitted again (the M0's
# micro_speech chain: 210 to 117 a link and band).
PLAN_PER_LINK = {None: 100, "dsp": 0, "mve": 103}
# A steady band's step and call in all, per link (in place of PLAN_PER_LINK and NEXT; the search counts the bands
# band_rows.walk finds repeating): on the M55 70, fitted to QEMU's count of usmp_band_step in DS-CNN's default
# builds (26 steady and 68 other link-bands: 9,980 instructions; with --tiling-budget 6.5, 78 and 62: 11,549): about
# 45 a steady link-band and 130 another, and 15 more in the loop's function (the band's count, its parameters'
# variant); micro_speech's 1-row chain (14 and 12: 2,326) about 55 and 22. Elsewhere not fitted: priced as any
# other band (PLAN_PER_LINK + NEXT).
STEADY_PER_LINK = {None: 200, "dsp": 100, "mve": 70}
NEXT = 100  # usmp_band_step's rows of one link and setting the band's members, per link and band
PARAMS_PER_WORD = 2.0  # copying a kernel's parameters for the band (usmp_band_params: CMSIS-NN's), per 32-bit word
# rows kept in a band buffer, moved to its top (tiling.c's copy_words), per byte: with an FPU (the M4, M7, M33 and
# M55) 64 bytes a VLDM/VSTM pair, about 0.1 with the loop (ResNet-8's chains on the M55: 0.7 priced them 1.7x what
# QEMU counts; a DSP core built without its FPU moves 32 bytes an LDM/STM pair, about 0.2); the M0's frameless copy
# 13 instructions per 16 bytes, the M3's and RV32's four words a step in C.
MOVE_PER_BYTE = {None: 0.7, "dsp": 0.1, "mve": 0.1}


@dataclass(frozen=True)
class KernelCost:
    call: int = 100  # set-up per call
    per_block: int = 0  # per group of 4 output channels and call
    per_weight: float = 0.0  # per filter weight and call
    granule: int = 1  # pixels the kernel takes together
    leftover: float = 0.0  # extra work of a pixel outside a group, as a share of its MACs
    per_mac: float | None = None  # instructions per MAC of the whole kernel, where not its extension's PER_MAC
    per_halo_element: float = 0.0  # per element of the input rows a call prepares again (the window's halo)
    per_halo_row: float = 0.0  # per such row and group of 4 channels: the widening loop's own set-up
    per_out_channel: float = 0.0  # per output pixel and channel beyond its MACs (requantizing, storing)
    per_column: float = 0.0  # per element of an output pixel's column (filter taps x input channels), building it
    per_element: float | None = None  # instructions per output element of an element-wise kernel, where not its
    # extension's PER_ELEMENT


KERNELS = {
    # CMSIS-NN's DSP matrix kernel sums every filter row again in each call, for the input offset's term
    ("usmp_cmsis_nn_convolve_1x1_s8_fast", "dsp"): KernelCost(call=200, per_weight=3.5, granule=2, leftover=1.5),
    ("usmp_cmsis_nn_convolve_1x1_s8", "dsp"): KernelCost(call=200, per_weight=3.5, granule=2, leftover=1.5),
    ("usmp_cmsis_nn_convolve_rows_s8", "dsp"): KernelCost(call=300, granule=2, leftover=1.0),
    ("usmp_cmsis_nn_convolve_s8", "dsp"): KernelCost(call=300, granule=2, leftover=1.0),
    ("usmp_cmsis_nn_convolve_1x1_s8_fast", "mve"): KernelCost(call=200, per_weight=0.25, granule=4, leftover=0.7),
    ("usmp_cmsis_nn_convolve_1x1_s8", "mve"): KernelCost(call=200, per_weight=0.25, granule=4, leftover=0.7),
    ("usmp_cmsis_nn_convolve_rows_nt_s8", "mve"): KernelCost(call=300, granule=4, leftover=0.7),
    ("usmp_cmsis_nn_convolve_s8", "mve"): KernelCost(call=300, granule=4, leftover=0.7),
    # USMP's Helium kernels (kernels/helium/), measured on the M55 with the benchmark models' layers (whole tensors:
    # benchmarks/helium_kernels.py --layers; bands: benchmarks/band_costs.py). The matrix kernel takes two pixels
    # at a time (an odd last one, gemm_single_*, 0.16-0.37 of its MACs' price more: one layer on 4, 5 and 6 pixels,
    # 1x1 and 3x3, 4 to 18 chunks; 0.85 on a 32 -> 32 1x1, whose MACs are few) and builds a band's first columns in
    # each call; the depthwise kernel copies the filter's rows into its strips again in each call (the halo:
    # fill_gathered, 0.6 an element) and sets up its passes and spans (320 a call): measured on DS-CNN's 3x3 layers
    # (5 columns, 64 channels) as bands of 4 and 8 rows, about 700 instructions a call beyond the same rows whole.
    # The matrix kernel's instructions per pixel are 0.12 a MAC, 3 per output channel, 0.9 per column element and 4
    # per filter row (fitted to the 3x3, 1x1 and wider layers of the five benchmark models whole on the M55, 1x1 to
    # 64x64 channels: every layer within 5 % but DS-CNN's first, 10x4 over one channel, 22 % under, person_detect's
    # 16 -> 32 1x1 19 % over; 0.2 a MAC flat priced ResNet-8's 32- and 64-channel layers 1.3-1.5x); the 1x1 kernel
    # likewise (8 to 256 channels within 5 %, the 3x3-pixel layers 8-15 % under; 0.17 flat: 0.8-1.3x). The depthwise
    # kernel 1.05 a MAC whole (3x3, 8 to 256 channels: 0.96-1.12 a MAC by layer, stride 2 the dearest; 1.25 priced
    # the models' depthwise layers 1.2x). USMP's Helium add about 5.5 an element (ResNet-8's adds: 90,170 for 16,384).
    ("usmp_helium_conv_s8", "mve"): KernelCost(call=50, granule=2, leftover=0.3, per_mac=0.12, per_out_channel=3.0,
                                               per_column=0.9),
    # The same loop gathering each chunk itself from an output row's padded rows (usmp_helium_conv_rows_s8:
    # micro_speech's 10x8 window over one channel, 77.4 K instructions whole for 320,000 MACs and 4,000 outputs;
    # a call sets up its state and row loop, about 30)
    ("usmp_helium_conv_rows_s8", "mve"): KernelCost(call=30, granule=2, per_mac=0.2, per_out_channel=3.3),
    ("usmp_helium_add_s8", "mve"): KernelCost(per_element=5.5),
    ("usmp_helium_conv_1x1_s8", "mve"): KernelCost(call=40, granule=2, leftover=0.3, per_mac=0.12,
                                                   per_out_channel=3.0),
    ("usmp_helium_depthwise_s8", "mve"): KernelCost(call=320, per_mac=1.05, per_halo_element=0.6),
    # The in-place one (3x3, stride 1) reads a band's rows where they are: no halo to copy again, a call's set-up a
    # few fields; 1.02 a MAC on DS-CNN's layers whole (a row a call of its assembly, rows outside the input a pixel).
    ("usmp_helium_depthwise_rows_s8", "mve"): KernelCost(call=40, per_mac=1.02),
    # Their 16x8 twins (kernels/helium/*_s16.c), measured on the M55 with the int16 twins' layers whole (usmp run
    # --profile): the matrix kernel 0.33 a MAC on DS-CNN's 1x1 layers (0.28-0.41 on MobileNetV1's deeper ones, 0.91
    # on its shallowest), a lone last pixel through the one-pixel loop (4 sums, one column load per 4 filter
    # loads) about 1.6 times a pair's share by its instruction count; the depthwise kernel reads the input in
    # place (no strips, no halo to prepare again), 1.75-2.1 a MAC on 3x3 layers.
    ("usmp_helium_conv_s16", "mve"): KernelCost(call=100, granule=2, leftover=0.6, per_mac=0.33),
    ("usmp_helium_conv_s16_sum64", "mve"): KernelCost(call=100, per_mac=1.0),
    ("usmp_helium_depthwise_s16", "mve"): KernelCost(call=60, per_mac=1.9),
    ("usmp_cmsis_nn_depthwise_conv_s8_opt", "dsp"): KernelCost(call=300),
    ("usmp_cmsis_nn_depthwise_conv_s8_opt", "mve"): KernelCost(call=300),
    # USMP's DSP kernels (kernels/dsp/), measured on the Cortex-M4 with DS-CNN's layers whole and as bands of one
    # row (run_on_target's profile): the convolution's lone pixel (widened into its column once, then the one-column
    # loop, two quads a turn) costs about 1.6 instructions a MAC against 1.08 in a pair (int8 filters; wide 0.98
    # against 0.91): counted from the loops, and DS-CNN's 1-row bands (75 odd pointwise pixels) 107 K instructions
    # fewer than with the raw pixel's 1.9 (wide 1.34). The depthwise kernel's band calls, against the same rows whole
    # (person_detect's and DS-CNN's seven depthwise layers, 5 to 48 columns, 8 to 64 channels, as bands of 1 to 4
    # rows): about 170 instructions per halo row and group of four channels, and 2 per halo element, fitted to
    # within 20 % of each layer (2,106 to 8,503 a call).
    ("usmp_dsp_conv_s8", "dsp"): KernelCost(call=150, granule=2, leftover=0.44, per_mac=1.13),
    ("usmp_dsp_conv_wide_s8", "dsp"): KernelCost(call=150, granule=2, leftover=0.21, per_mac=0.92),
    ("usmp_dsp_depthwise_s8", "dsp"): KernelCost(call=100, per_mac=4.8, per_halo_element=2.0, per_halo_row=170),
    ("usmp_dsp_depthwise_wide_s8", "dsp"): KernelCost(call=100, per_mac=4.6, per_halo_element=2.0, per_halo_row=170),
    # The 3x3 one reading its input in place (depthwise_3x3.c) prepares nothing: a band costs it a call.
    ("usmp_dsp_depthwise_3x3_s8", "dsp"): KernelCost(call=60, per_mac=3.75),
    # Their 16x8 twins (kernels/dsp/*_s16.c; select/dsp_s16.py's figures): the matrix kernel takes int16 taps as they
    # are (0.95 a MAC in its pair loop; 1.6 with 64-bit sums), the depthwise one lays out its rows as the int8 one
    # does (pairs of pixels by PKHBT in place of the widening), so a band's halo rows cost it the same.
    **{(f, "dsp"): KernelCost(call=150, granule=2, leftover=0.8, per_mac=m)
       for f, m in (("usmp_dsp_conv_s16", 0.95), ("usmp_dsp_conv_s16_sum32", 0.95), ("usmp_dsp_conv_s16_sum64", 1.6))},
    ("usmp_dsp_depthwise_s16", "dsp"): KernelCost(call=100, per_mac=4.6, per_halo_element=2.0, per_halo_row=170),
    # CMSIS-NN's s16 kernels on Helium (the M55 with 16x8 models) price a band dearly: the int16 DS-CNN's chains of
    # its 1x1 convolution and 3x3 depthwise layers cost 122,074 (9 bands, 18 calls), 171,275 and 248,214 (26 bands,
    # 78 calls each) instructions beyond the same layers whole (benchmarks/band_costs.py), about 2,900 a call.
    **{(f, "mve"): KernelCost(call=2900, per_mac=m)
       for f, m in (("usmp_cmsis_nn_convolve_s16", 0.85), ("usmp_cmsis_nn_depthwise_conv_fast_s16", 7.0))},
    # USMP's float kernels (kernels/fpu/ on the M4, M7, M33; kernels/helium/ on the M55), measured on DS-CNN's and
    # MobileNetV1's float32 layers whole (usmp run --profile): a lone last pixel costs about what a pair of
    # columns costs per pixel (one column through the same loop) on the FPU, a lone one of three on Helium
    # twice its share.
    **{("usmp_fpu_conv_f32", extension): KernelCost(call=100, granule=2, leftover=0.1, per_mac=1.3)
       for extension in (None, "dsp")},
    **{("usmp_fpu_depthwise_f32", extension): KernelCost(call=60, per_mac=2.9) for extension in (None, "dsp")},
    ("usmp_helium_conv_f32", "mve"): KernelCost(call=100, granule=3, leftover=1.0, per_mac=0.47),
    ("usmp_helium_depthwise_f32", "mve"): KernelCost(call=60, per_mac=1.4),
    # USMP's scalar kernels (kernels/scalar/) on cores without SIMD: RV32 sums 4 pixels at once (a pixel left
    # over alone costs about 1.5 times its share), the Cortex-M3 2, the M0 one.
    ("usmp_scalar_conv_rv32_s8", None): KernelCost(call=150, granule=4, leftover=0.5, per_mac=3.2),
    ("usmp_scalar_conv_armv7m_s8", None): KernelCost(call=150, granule=2, leftover=0.8, per_mac=2.2),
    ("usmp_scalar_conv_armv6m_s8", None): KernelCost(call=100, per_mac=4.0),
    ("usmp_scalar_depthwise_s8", None): KernelCost(call=100, per_mac=6.0),
}
PORTABLE = KernelCost(call=100)


@dataclass(frozen=True)
class CallShape:
    """What the cost model reads of a link's kernel call."""

    function: str
    copied_words: int  # 32-bit words of the parameter struct the loop copies each band (0: const variants)
    pixels_per_row: int  # output columns
    macs_per_pixel: int  # multiply-accumulates per output pixel (0 for element-wise kernels)
    elements_per_row: int  # output elements per row
    out_ch: int
    weights: int  # filter weights
    window_rows: int = 1  # filter rows an output pixel reads
    halo_elements: int = 0  # input elements of the rows a band reads that the band before read too (sliding)
    halo_row_groups: int = 0  # those rows times the groups of 4 channels


def call_shape(call: KernelCall, params: dict) -> CallShape:
    """From the whole-tensor call (its kernel) and the link's row geometry (the portable params)."""
    out_w = params["out_w"]
    out_ch = params.get("out_ch") or params.get("channels") or params["in_ch"] * params.get("depth_multiplier", 1)
    taps = params.get("filter_h", 1) * params.get("filter_w", 1)
    macs = 0
    weights = 0
    if "filter_in_ch" in params or "depth_multiplier" in params:  # a convolution
        depth = params.get("filter_in_ch", 1)
        macs = out_ch * taps * depth
        weights = macs
    window = (params.get("filter_h", 1) - 1) * params.get("dilation_h", 1) + 1
    halo_rows = max(window - params.get("stride_h", 1), 0)
    in_ch = params.get("in_ch", out_ch)
    copied = 0 if by_variant(call.params_type) else struct_words(call.params)
    return CallShape(call.function, copied, out_w, macs, out_w * out_ch, out_ch, weights,
                     params.get("filter_h", 1), halo_rows * params.get("in_w", out_w) * in_ch,
                     halo_rows * -(-in_ch // 4))


def struct_words(value) -> int:
    """32-bit words of a parameter struct written as a dict of numbers and lists of them."""
    if isinstance(value, dict):
        return sum(struct_words(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return sum(struct_words(v) for v in value)
    return 1


def row_work(shape: CallShape, extension: str | None) -> float:
    """Instructions of one output row."""
    if shape.macs_per_pixel:
        gather = IM2COL_ROW[extension] * shape.window_rows if shape.function in IM2COL_KERNELS else 0.0
        if shape.function in DSP_WINDOW_KERNELS and shape.window_rows > 1:
            gather = DSP_WINDOW_ROW * shape.window_rows
        if shape.function in HELIUM_WINDOW_KERNELS and shape.window_rows > 1:
            gather = HELIUM_WINDOW_ROW * shape.window_rows
        if shape.function in DSP_S16_WINDOW_KERNELS and shape.window_rows > 1:
            gather = DSP_WINDOW_ROW / 2 * shape.window_rows + shape.macs_per_pixel / max(shape.out_ch, 1)
        k = KERNELS.get((shape.function, extension), PORTABLE)
        pixel = k.per_out_channel * shape.out_ch + k.per_column * shape.macs_per_pixel / max(shape.out_ch, 1)
        return shape.pixels_per_row * (shape.macs_per_pixel * per_mac(shape, extension) + gather + pixel)
    return shape.elements_per_row * per_element(shape.function, extension)


def per_element(function: str, extension: str | None) -> float:
    k = KERNELS.get((function, extension), PORTABLE)
    return PER_ELEMENT[extension] if k.per_element is None else k.per_element


def per_mac(shape: CallShape, extension: str | None) -> float:
    k = KERNELS.get((shape.function, extension), PORTABLE)
    return PER_MAC[extension] if k.per_mac is None else k.per_mac


def call_overhead(shape: CallShape, extension: str | None) -> float:
    """A kernel call's own set-up (the loop's copy of its parameters is counted apart: every band pays it)."""
    k = KERNELS.get((shape.function, extension), PORTABLE)
    return (k.call + k.per_block * -(-shape.out_ch // 4) + k.per_weight * shape.weights
            + k.per_halo_element * shape.halo_elements + k.per_halo_row * shape.halo_row_groups)


# A chain ending in a reduction or a fully connected layer (reductions.py) runs it as a band kernel of USMP's own in
# place of the whole-tensor kernel: instructions per input element (sums, maxima) or per MAC (fully connected),
# of the band kernel and of the whole-tensor one, by extension (whole: CMSIS-NN's where it takes the operator).
BAND_REDUCE = {None: 6.0, "dsp": 4.8, "mve": 2.0}
WHOLE_REDUCE = {None: 8.0, "dsp": 6.3, "mve": 1.6}
# On Helium the band kernel about 0.2 a MAC, the whole-tensor one 0.16 (micro_speech's 4,000 x 4 layer on the M55:
# 2,534 instructions whole through USMP's matrix kernel's odd-pixel loop, gemm_single; 2,725 as 5 band calls of
# usmp_band_fully_connected_s8, 3,625 as 25);
# on the Cortex-M4 the band kernel 1.7 (26,196 as 13 calls, 27,300 as 25; whole, USMP's DSP kernel, 28,049).
BAND_FULLY_CONNECTED = {None: 5.0, "dsp": 1.7, "mve": 0.2}
WHOLE_FULLY_CONNECTED = {None: 5.0, "dsp": 1.9, "mve": 0.16}


def tail_change(elements: int, macs: int, extension: str | None, whole_selected: bool) -> float:
    """Instructions the band kernel of a chain's last, reading link takes beyond the whole-tensor kernel's."""
    whole = extension if whole_selected else None
    if macs:
        return macs * (BAND_FULLY_CONNECTED[extension] - WHOLE_FULLY_CONNECTED[whole])
    return elements * (BAND_REDUCE[extension] - WHOLE_REDUCE[whole])


def leftover_work(shape: CallShape, extension: str | None, rows: int) -> float:
    """The extra instructions of the pixels of `rows` rows that fall outside the kernel's groups."""
    k = KERNELS.get((shape.function, extension), PORTABLE)
    if k.granule == 1 or not shape.macs_per_pixel:
        return 0.0
    return (rows * shape.pixels_per_row % k.granule) * shape.macs_per_pixel * per_mac(shape, extension) * k.leftover
