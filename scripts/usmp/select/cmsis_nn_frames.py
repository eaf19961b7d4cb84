"""The stack CMSIS-NN's int8 calls take on the DSP cores, beside their costs: the selector weighs both.

Per glue function (kernels/cmsis_nn/cmsis_nn_glue.c), the deepest path of frames below the generated code's
call of it: the glue's frame and CMSIS-NN's under it, as usmp/stack bounds them in a Cortex-M4 image
(arm-none-eabi-gcc 12.2, the glue at -Os and CMSIS-NN at -O2 as the builds compile them; the M7 and M33 build
the same C). Measured with benchmarks/cmsis_nn_frames.py. CMSIS-NN's own frames hold what its loops spill (its
4-element add keeps 184 B, its 3x3 depthwise 216 B): an offer above select.KERNEL_STACK_BUDGET is taken only
where no offer fits. Calls not listed (the 16x8 glue, the Helium build) are not weighed.
"""
from __future__ import annotations

DSP = {
    "usmp_cmsis_nn_convolve_s8": 560,  # 56 -> arm_convolve_s8 376 -> arm_nn_mat_mult_kernel_row_offset_s8_s16 128
    "usmp_cmsis_nn_convolve_rows_s8": 232,  # 104 -> arm_nn_mat_mult_kernel_s8_s16 128
    "usmp_cmsis_nn_convolve_rows_nt_s8": 288,  # 104 -> arm_nn_mat_mult_nt_t_s8 184 (offered on Helium only)
    "usmp_cmsis_nn_convolve_1x1_s8_fast": 304,  # 56 -> arm_convolve_1x1_s8_fast 64 -> arm_nn_mat_mult_nt_t_s8 184
    "usmp_cmsis_nn_convolve_1x1_s8": 360,  # 56 -> arm_convolve_1x1_s8 120 -> arm_nn_mat_mult_nt_t_s8 184
    "usmp_cmsis_nn_depthwise_conv_s8_opt": 352,  # 56 -> arm_depthwise_conv_s8_opt 272 -> arm_q7_to_q15_with_offset 24
    "usmp_cmsis_nn_depthwise_conv_3x3_s8": 272,  # 56 -> arm_depthwise_conv_3x3_s8 216
    "usmp_cmsis_nn_depthwise_conv_s8": 568,  # 56 -> arm_depthwise_conv_s8 328 -> depthwise_conv_s8_mult_4 184
    "usmp_cmsis_nn_fully_connected_s8": 280,  # 56 -> arm_fully_connected_s8 96 -> arm_nn_vec_mat_mult_t_s8 128
    "usmp_cmsis_nn_fully_connected_per_channel_s8": 264,  # 56 -> ... 96 -> arm_nn_vec_mat_mult_t_per_ch_s8 112
    "usmp_cmsis_nn_avgpool_s8": 200,  # 24 -> arm_avgpool_s8 176
    "usmp_cmsis_nn_avgpool_s8_unbuffered": 200,  # 24 -> arm_avgpool_s8 176
    "usmp_cmsis_nn_max_pool_s8": 224,  # 24 -> arm_max_pool_s8 200
    "usmp_cmsis_nn_softmax_s8": 176,  # 24 -> arm_nn_softmax_common_s8 152 (arm_softmax_s8 is only its call)
    "usmp_cmsis_nn_elementwise_add_s8": 240,  # 56 -> arm_elementwise_add_s8 184
    "usmp_cmsis_nn_elementwise_mul_s8": 152,  # 40 -> arm_elementwise_mul_s8 112
}

FRAMES = {"dsp": DSP}  # by cpus.cpu_extension


def stack_of(extension: str | None, function: str) -> int | None:
    """The bytes a call of the glue `function` takes below its caller on this extension's cores, if measured."""
    return FRAMES.get(extension or "", {}).get(function)
