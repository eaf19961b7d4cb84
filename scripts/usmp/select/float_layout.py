"""The float32 kernels' constants (usmp_kernels/fpu.h), laid out at compile time in the order the loops read them.

The FPU kernels (kernels/fpu/) and Helium's float kernels (kernels/helium/*_f32.c) read the same layouts:
a convolution's filter by blocks of 4 output channels, each its 4 biases then its taps row by row with the 4
channels side by side (a load-multiple or one vector load each); a depthwise filter by groups of 8 channels,
each its 8 biases then per tap the group's 8 weights.
"""
from __future__ import annotations

import numpy as np

from usmp.select.cmsis_nn import Call

CONV_BLOCK = 4  # USMP_FPU_CONV_BLOCK
DEPTHWISE_GROUP = 8  # USMP_FPU_DEPTHWISE_GROUP


def floats(c: Call, name: str) -> np.ndarray:
    return np.frombuffer(c.program.buffers[c.buffers[name]].data, np.float32)


def conv_stream(weights: np.ndarray, bias: np.ndarray) -> tuple[bytes, int]:
    """[out_ch, taps] filter and [out_ch] bias -> the blocked stream and its depth (taps rounded up to 4)."""
    out_ch, taps = weights.shape
    blocks, depth = -(-out_ch // CONV_BLOCK), -(-taps // 4) * 4
    padded = np.zeros((blocks * CONV_BLOCK, depth), np.float32)
    padded[:out_ch, :taps] = weights
    biases = np.zeros(blocks * CONV_BLOCK, np.float32)
    biases[:out_ch] = bias
    rows = padded.reshape(blocks, CONV_BLOCK, depth).transpose(0, 2, 1)  # [block][tap][channel]
    stream = np.concatenate([biases.reshape(blocks, 1, CONV_BLOCK), rows], axis=1)
    return np.ascontiguousarray(stream, np.float32).tobytes(), depth


def depthwise_stream(weights: np.ndarray, bias: np.ndarray) -> bytes:
    """[channels, taps] channel-major filter and [channels] bias -> groups of 8 (a last one of 4 when the channels
    leave 4), each its biases then per tap its channels' weights."""
    channels = weights.shape[0]
    parts = []
    for first in range(0, channels, DEPTHWISE_GROUP):
        group = slice(first, min(first + DEPTHWISE_GROUP, channels))
        parts += [bias[group], weights[group].T.reshape(-1)]
    return np.ascontiguousarray(np.concatenate(parts), np.float32).tobytes()
