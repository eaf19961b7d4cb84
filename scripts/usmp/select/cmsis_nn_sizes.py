"""Scratch bytes of the CMSIS-NN int8 and int16 functions, as their *_get_buffer_size return them.

CMSIS-NN leaves scratch to its caller and sizes it with C functions that
depend on the extension the library is compiled for (see cpus.py): plain C,
DSP and Helium (MVE) sizes differ. The compiler knows the CPU and every shape, so it computes the same numbers here
and plans the scratch like any other buffer. Ported from the CMSIS-NN
revision in ../shared/third_party/cmsis-nn (GCC build: no Arm Compiler paths).
"""
from __future__ import annotations

CH_IN_BLOCK_MVE = 124  # arm_nnsupportfunctions.h: channels arm_depthwise_conv_s8_opt does per block on Helium


def _round_up(value: int, step: int) -> int:
    return (value + step - 1) // step * step


def convolve_rows_s8(in_ch: int, filter_h: int, filter_w: int) -> int:
    """USMP's usmp_cmsis_nn_convolve_rows_s8 (kernels/cmsis_nn): two int16 columns and one int8 column."""
    return 5 * _round_up(filter_h * filter_w * in_ch, 4)


def convolve_rows_nt_s8(in_ch: int, filter_h: int, filter_w: int) -> int:
    """USMP's usmp_cmsis_nn_convolve_rows_nt_s8: four int8 columns of whole 16-byte vectors."""
    return 4 * _round_up(filter_h * filter_w * in_ch, 16)


def convolve_s8(extension: str | None, in_ch: int, filter_h: int, filter_w: int) -> int:
    """arm_convolve_s8_get_buffer_size: two im2col columns of int16 (sized by all input channels), or on
    Helium four int8 columns, each padded to whole 16-byte vectors for arm_nn_mat_mult_nt_t_s8."""
    if extension == "mve":
        return 4 * _round_up(filter_h * filter_w * in_ch, 16)
    return 2 * _round_up(filter_h * filter_w * in_ch, 4) * 2


def depthwise_conv_s8_opt(extension: str | None, in_ch: int, filter_h: int, filter_w: int) -> int:
    """arm_depthwise_conv_s8_opt: one int16 im2col patch of every channel (none in plain C), or on Helium
    four int8 patches of one block of CH_IN_BLOCK_MVE channels, whatever the channel count."""
    if extension == "mve":
        return 4 * CH_IN_BLOCK_MVE * filter_h * filter_w
    if extension == "dsp":
        return in_ch * filter_h * filter_w * 2
    return 0


def avgpool_s8(extension: str | None, channels: int) -> int:
    """arm_avgpool_s8 and arm_avgpool_s16: one int32 sum per channel with DSP (none in plain C or on Helium)."""
    return channels * 4 if extension == "dsp" else 0


def convolve_s16(extension: str | None, in_ch: int, filter_h: int, filter_w: int) -> int:
    """arm_convolve_s16_get_buffer_size: two int16 columns, or on Helium four of whole 8-lane vectors."""
    if extension == "mve":
        return 4 * _round_up(filter_h * filter_w * in_ch, 8) * 2
    return 2 * filter_h * filter_w * in_ch * 2


def depthwise_conv_fast_s16(extension: str | None, in_ch: int, filter_h: int, filter_w: int) -> int:
    """arm_depthwise_conv_fast_s16_get_buffer_size: one int16 patch of every channel with DSP, four and 8
    bytes more on Helium (its vector loop reads past the patches), none in plain C."""
    if extension == "mve":
        return 4 * in_ch * filter_w * filter_h * 2 + 8
    if extension == "dsp":
        return in_ch * filter_w * filter_h * 2
    return 0

