"""USMP's own kernels for Helium cores (kernels/helium/): which calls take them, and their constants.

The Cortex-M55's MVE sums 16 int8 products an instruction (VMLADAVA) and
requantizes four int32 lanes at once. Every shape and constant is known
here, so the constants are laid out once, in the order the vector loops
read them (usmp_kernels/helium.h). The kernels need no CMSIS-NN; where it is
at hand, each layer goes to whichever of the two the measured per-layer cost
table (LAYER_COSTS) says runs it in fewer instructions: the family's offers
cost what it says, and so do CMSIS-NN's on Helium (cmsis_nn_family.py).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from usmp.paths import KERNELS_DIR
from usmp.select.cmsis_nn import same_shape_size
from usmp.select.family import Call, Entry, Family, NewBuffer, Offer, Rewrite
from usmp.select.helium_s16 import S16_TABLE

HELIUM_SOURCES = tuple(sorted((KERNELS_DIR / "helium").glob("*_s8.c")))  # int8; built only for programs calling them
HELIUM_HEADER = "usmp_kernels/helium.h"


@dataclass(frozen=True)
class LayerCost:
    """Instructions of a layer on the Cortex-M55, roughly: per MAC, per output element, per output pixel, and per
    element of an element-wise kernel."""

    per_mac: float = 0.0
    per_output: float = 0.0
    per_pixel: float = 0.0
    per_element: float = 0.0


# Least-squares fits of the QEMU counts of the benchmark models' layers on the M55, whole tensors
# (benchmarks/helium_kernels.py --layers: every layer with USMP's Helium kernels and with CMSIS-NN's MVE kernels),
# within about 50 % of each layer; where two kernels can take a layer, they differ by 1.5-5x.
LAYER_COSTS = {
    "usmp_helium_conv_s8": LayerCost(per_mac=0.149, per_output=2.88, per_pixel=58.6),
    "usmp_helium_conv_1x1_s8": LayerCost(per_mac=0.130, per_output=3.33, per_pixel=19.7),
    "usmp_helium_conv_rows_s8": LayerCost(per_mac=0.12, per_output=2.88, per_pixel=58.6),  # micro_speech's 78 K
    "usmp_helium_depthwise_s8": LayerCost(per_mac=1.222, per_output=0.14),
    "usmp_helium_depthwise_rows_s8": LayerCost(per_mac=1.207, per_output=0.14),
    "usmp_helium_add_s8": LayerCost(per_element=5.5),
    "usmp_helium_avg_pool_s8": LayerCost(per_mac=0.25, per_output=4.0),
    "usmp_softmax_s8": LayerCost(per_element=560.0),  # the portable kernel (softmax below)
    "usmp_cmsis_nn_convolve_rows_nt_s8": LayerCost(per_mac=0.201, per_output=17.27, per_pixel=120.5),
    "usmp_cmsis_nn_convolve_s8": LayerCost(per_mac=0.201, per_output=17.27, per_pixel=150.0),
    "usmp_cmsis_nn_convolve_1x1_s8_fast": LayerCost(per_mac=0.187, per_output=12.27, per_pixel=57.9),
    "usmp_cmsis_nn_convolve_1x1_s8": LayerCost(per_mac=0.187, per_output=17.3, per_pixel=57.9),
    "usmp_cmsis_nn_depthwise_conv_s8_opt": LayerCost(per_mac=1.907, per_output=0.21, per_pixel=248.9),
    "usmp_cmsis_nn_depthwise_conv_s8": LayerCost(per_mac=2.5, per_output=1.0, per_pixel=248.9),
    "usmp_cmsis_nn_fully_connected_s8": LayerCost(per_mac=0.48, per_output=25.5),
    "usmp_cmsis_nn_fully_connected_per_channel_s8": LayerCost(per_mac=0.48, per_output=25.5),
    "usmp_cmsis_nn_elementwise_add_s8": LayerCost(per_element=13.8),
    "usmp_cmsis_nn_avgpool_s8": LayerCost(per_mac=1.6, per_output=5.0),
    "usmp_cmsis_nn_avgpool_s8_unbuffered": LayerCost(per_mac=1.6, per_output=5.0),
}


def layer_cost(function: str, p: dict) -> float:
    """The estimate of LAYER_COSTS for a kernel taking the layer of portable parameters p (infinite where the table
    has no figures: a kernel of its own is preferred to one nobody measured)."""
    cost = LAYER_COSTS.get(function)
    if cost is None:
        return float("inf")
    if "in_features" in p:  # a fully connected layer
        pixels, outputs, taps = p["batches"], p["batches"] * p["out_features"], p["in_features"]
    elif "filter_h" in p:  # a convolution or a pool
        pixels = p["batches"] * p["out_h"] * p["out_w"]
        channels = p.get("out_ch") or p.get("channels") or p["in_ch"] * p["depth_multiplier"]
        outputs = pixels * channels
        taps = p["filter_h"] * p["filter_w"] * p.get("filter_in_ch", 1)
    elif "rows" in p:  # a softmax
        return cost.per_element * p["rows"] * p["depth"]
    else:  # element-wise
        return cost.per_element * (same_shape_size(p) or 0)
    return cost.per_mac * outputs * taps + cost.per_output * outputs + cost.per_pixel * pixels


def _int32(values) -> bytes:
    return np.ascontiguousarray(values, dtype=np.int32).tobytes()


def _padded(values: np.ndarray, size: int) -> np.ndarray:
    return np.concatenate([values, np.zeros(size - len(values), values.dtype)])


# im2col columns a call of the matrix loop takes: at least MIN_RUN (the scratch CMSIS-NN's convolutions take on
# Helium), more for shallow windows, whose columns cost more to build one at a time, up to COLUMN_BYTES of scratch
MIN_RUN, COLUMN_BYTES = 4, 1024
PADDED_ROWS_BYTES = 2048  # scratch for the padded input rows of gathered windows
# A layer over one input channel (an audio front end: DS-CNN's 10x4 window) has columns many times its input, and
# sits where the first layers' tensors set the peak: its columns and padded rows together stay within
# ONE_CHANNEL_BYTES (at least MIN_RUN columns)
ONE_CHANNEL_BYTES = 640
# A layer over an image's few channels (MobileNetV1's and ResNet-8's first layers, 3x3 windows over 3 channels) sits
# at its model's peak too, beside the image: its columns and padded rows stay within FEW_CHANNEL_BYTES (at least
# MIN_RUN columns; a run may span output rows); each call more costs the matrix loop ~200 instructions
FEW_CHANNEL_BYTES = 1200


def _channel_values(c: Call, name: str, channels: int) -> np.ndarray:
    """A per-channel constant of the portable call, one per channel (a per-tensor one repeated)."""
    values = np.frombuffer(c.program.buffers[c.buffers[name]].data, np.int32)
    return np.resize(values, channels) if len(values) == 1 else values[:channels]


def matrix_blocks(weights: np.ndarray, bias: np.ndarray, multiplier: np.ndarray, shift: np.ndarray,
                  general: bool) -> bytes:
    """[out_ch, depth] int8 filter and per-channel int32 constants -> usmp_helium_conv_s8's blocks: per 4 output
    channels the biases, the filter as chunks x 4 channels x 16 bytes, the multipliers, the right shifts (<= 0)
    and, general, the left shifts (>= 0); missing channels and taps are zeros."""
    out_ch, depth = weights.shape
    blocks, chunks = -(-out_ch // 4), -(-depth // 16)
    padded = np.zeros((blocks * 4, chunks * 16), np.int8)
    padded[:out_ch, :depth] = weights
    filters = padded.reshape(blocks, 4, chunks, 16).transpose(0, 2, 1, 3).reshape(blocks, -1)

    def lanes(values: np.ndarray) -> np.ndarray:
        return _padded(values.astype(np.int32), blocks * 4).reshape(blocks, 4)

    fields = [lanes(multiplier), lanes(np.minimum(shift, 0))] + ([lanes(np.maximum(shift, 0))] if general else [])
    per_block = [lanes(bias).view(np.int8).reshape(blocks, 16), filters,
                 *(f.view(np.int8).reshape(blocks, 16) for f in fields)]
    return np.concatenate(per_block, axis=1).tobytes()


MATRIX_STATE_BYTES = 160  # USMP_HELIUM_MATRIX_STATE_BYTES: the matrix kernels' state during a call, in their scratch


def _matrix(c: Call, weights: np.ndarray, bias: np.ndarray, geometry: dict, pad_value: int) -> Rewrite:
    """A convolution (or fully connected layer) as usmp_helium_conv_s8, or usmp_helium_conv_1x1_s8 where the input
    is its own columns (a 1x1 window, stride 1, no padding, whole 16-byte chunks of channels)."""
    p = c.p
    out_ch, depth = weights.shape
    chunks = -(-depth // 16)
    multiplier = _channel_values(c, "multiplier", out_ch)
    shift = _channel_values(c, "shift", out_ch)
    # left shifts, or an activation narrower than int8 (the loops that clamp are the general ones: less code)
    general = bool(np.any(shift >= 0)) or (p["act_min"], p["act_max"]) != (-128, 127)
    pixels = min(geometry["out_h"], c.rows_per_call or geometry["out_h"]) * geometry["out_w"]  # in one call
    run = _run(geometry, chunks, pixels + pixels % 2)
    in_place = ((geometry["filter_h"], geometry["filter_w"], geometry["stride_h"], geometry["stride_w"]) == (1, 1, 1, 1)
                and geometry["pad_top"] == geometry["pad_left"] == 0
                and (geometry["in_h"], geometry["in_w"]) == (geometry["out_h"], geometry["out_w"]))
    narrow = chunks == 1  # the narrow loop: its sums in the scratch after the columns
    direct = in_place and narrow  # the input is the columns, in_ch bytes apart
    params = dict(geometry, pad_value=pad_value, depth=depth, chunks=chunks, run=run,
                  output_offset=p["output_offset"], act_min=p["act_min"], act_max=p["act_max"],
                  requant_general=int(general), direct=int(direct))
    data = matrix_blocks(weights, bias, multiplier, shift, general)
    offsets = _gather_offsets(geometry, depth) if not direct else np.zeros(0, np.uint16)
    gathered = _gathered(geometry, depth, general) if len(offsets) else None
    rows_gathered = None if gathered or not len(offsets) else _rows_gathered(geometry, depth, general)
    params["direct"] = GATHERED if gathered else ROWS if rows_gathered else params["direct"]
    params["gathers"] = 0 if gathered or rows_gathered else len(offsets) // 8
    if gathered or rows_gathered:  # an output row a call, no columns (the narrow loop's sums for the row)
        params["run"] = geometry["out_w"]
    data += gathered or rows_gathered or offsets.tobytes()
    constants = ("blocks", NewBuffer("helium_blocks", "int8_t", len(data), data), False)
    if in_place and not narrow and geometry["in_ch"] % 16 == 0:
        args = [("input", c.buffers["input"], False), constants,
                ("columns", NewBuffer("helium_columns", "int8_t", MATRIX_STATE_BYTES), True),
                ("output", c.buffers["output"], True)]
        return Rewrite("usmp_helium_conv_1x1_s8", "usmp_helium_conv_params", params, args, ())
    rows = geometry["filter_h"] * _padded_row_bytes(geometry) if len(offsets) else 0
    if params["direct"] == ROWS:  # as many rows as the chunks span (those past the filter meet zero filter bytes)
        scratch = MATRIX_STATE_BYTES + max(rows, chunks * 16 * _padded_row_bytes(geometry) // _row(geometry))
    elif params["direct"] == GATHERED:
        scratch = MATRIX_STATE_BYTES + 16 * geometry["out_w"] + 16 + rows
    else:
        scratch = MATRIX_STATE_BYTES + (0 if direct else run * 16 * chunks) + (run * 16 + 16 if narrow else 0) + rows
    args = [("input", c.buffers["input"], False), constants,
            ("columns", NewBuffer("helium_columns", "int8_t", scratch), True),
            ("output", c.buffers["output"], True)]
    function = "usmp_helium_conv_rows_s8" if params["direct"] == ROWS else "usmp_helium_conv_s8"
    return Rewrite(function, "usmp_helium_conv_params", params, args, ())


def _row(g: dict) -> int:
    """Bytes of one filter row of a window."""
    return g["filter_w"] * g["in_ch"]


def _padded_row_bytes(g: dict) -> int:
    """Bytes of the kernel's padded copy of an input row: the columns every window of an output row reads."""
    return ((g["out_w"] - 1) * g["stride_w"] + g["filter_w"]) * g["in_ch"]


def _gathers(g: dict) -> bool:
    """Whether the windows are gathered from padded rows: filter rows shorter than a vector."""
    return (_row(g) < 16 and g["dilation_w"] == 1 and (g["filter_h"], g["filter_w"]) != (1, 1)
            and g["filter_h"] * _padded_row_bytes(g) <= PADDED_ROWS_BYTES)


def _run(g: dict, chunks: int, most: int) -> int:
    """The pixels a call of the matrix loop takes (even, at most `most`): up to COLUMN_BYTES of columns, or with
    padded rows over a few input channels FEW_CHANNEL_BYTES of columns and rows, over one ONE_CHANNEL_BYTES."""
    column = 16 * chunks
    if g["in_ch"] != 1 and not _gathers(g):
        return min(max(MIN_RUN, COLUMN_BYTES // column) // 2 * 2, most)
    rows = g["filter_h"] * _padded_row_bytes(g) if _gathers(g) else 0
    budget = ONE_CHANNEL_BYTES if g["in_ch"] == 1 else FEW_CHANNEL_BYTES
    return min(max(MIN_RUN, (budget - rows) // column) // 2 * 2, most)


def _gather_offsets(g: dict, depth: int) -> np.ndarray:
    """Where each byte of a column lies from its window's first tap in the padded rows (filter row after filter
    row), 8 a gather, the whole column (bytes past the depth: the first tap, against zero filter bytes), for
    windows whose filter rows are shorter than a vector; else none."""
    row = _row(g)
    if not _gathers(g):
        return np.zeros(0, np.uint16)
    taps = np.arange(-(-depth // 16) * 16)
    offsets = taps // row * _padded_row_bytes(g) + taps % row
    offsets[taps >= depth] = 0
    return offsets.astype(np.uint16) if offsets.max() < 1 << 16 else np.zeros(0, np.uint16)


GATHERED = 2  # usmp_helium_conv_params.direct: USMP_HELIUM_GATHERED (1: USMP_HELIUM_DIRECT, the input is the columns)
ROWS = 3  # USMP_HELIUM_ROWS: several chunks, each gathered by the pairs' loop from the padded rows


def _rows_gathered(g: dict, depth: int, general: bool) -> bytes | None:
    """The pairs' loop's own gathers (USMP_HELIUM_ROWS: micro_speech's 10x8 window over one channel): where filter
    rows of 1, 2, 4 or 8 bytes make each chunk 16 / row whole filter rows, within 8-bit offsets of the chunk's
    first byte in the padded rows, the same 16 for every chunk; the whole int8 range, whole blocks of 4 channels
    and an even output row (no lone pixel or channels, which read columns): the windows are never copied into
    columns, the scratch holds only an output row's padded rows. Else None."""
    row, padded = _row(g), _padded_row_bytes(g)
    lanes = np.arange(16)
    offsets = lanes // row * padded + lanes % row
    if depth <= 16 or 16 % row or general or g["out_ch"] % 4 or g["out_w"] % 2 or offsets.max() >= 256:
        return None
    return offsets.astype(np.uint8).tobytes()


def _gathered(g: dict, depth: int, general: bool) -> bytes | None:
    """The narrow loop's own gathers (struct gathered: a window's 16 uint8 offsets from its first byte in the padded
    rows; bytes past the depth read the first tap, against zero filter bytes) where a window is one chunk within
    8-bit offsets, over the whole int8 range (the loop without a clamp) and whole blocks of 4 channels (the loop for
    the last block's channels, gemm_lone, reads columns): no columns at all; else None."""
    row, padded = _row(g), _padded_row_bytes(g)
    lanes = np.arange(16)
    if depth > 16 or general or g["out_ch"] % 4:
        return None
    offsets = np.where(lanes < depth, lanes // row * padded + lanes % row, 0)
    return offsets.astype(np.uint8).tobytes() if offsets.max() < 256 else None


def _geometry(p: dict, in_ch: int, out_ch: int) -> dict:
    keys = ("batches", "in_h", "in_w", "out_h", "out_w", "filter_h", "filter_w", "stride_h", "stride_w",
            "dilation_h", "dilation_w", "pad_top", "pad_left")
    return dict({k: p[k] for k in keys}, in_ch=in_ch, out_ch=out_ch)


def conv(c: Call) -> Rewrite | None:
    """CONV_2D without groups. Padding reads the input zero point (-input_offset), so the lowering's folded bias
    (bias + input offset * filter sums) is exact for every window."""
    p = c.p
    if p["filter_in_ch"] != p["in_ch"]:
        return None
    weights = np.frombuffer(c.program.buffers[c.buffers["filter"]].data, np.int8)
    weights = weights[:p["out_ch"] * p["filter_h"] * p["filter_w"] * p["in_ch"]].reshape(p["out_ch"], -1)
    return _matrix(c, weights, _channel_values(c, "folded_bias", p["out_ch"]), _geometry(p, p["in_ch"], p["out_ch"]),
                   -p["input_offset"])


def fully_connected(c: Call) -> Rewrite | None:
    """Each batch row is one pixel of a 1 x batches image; the lowering's bias holds the input zero point's
    term, so the input is taken as it is."""
    p = c.p
    rows, depth = p["out_features"], p["in_features"]
    weights = np.frombuffer(c.program.buffers[c.buffers["weights"]].data, np.int8)[:rows * depth].reshape(rows, depth)
    geometry = dict(batches=1, in_h=1, in_w=p["batches"], in_ch=depth, out_h=1, out_w=p["batches"], out_ch=rows,
                    filter_h=1, filter_w=1, stride_h=1, stride_w=1, dilation_h=1, dilation_w=1, pad_top=0,
                    pad_left=0)
    return _matrix(c, weights, _channel_values(c, "bias", rows), geometry, 0)


DW_MAX_FILTER_H = 5  # USMP_HELIUM_DW_MAX_FILTER_H
DW_STATE_BYTES = 256  # USMP_HELIUM_DW_STATE_BYTES: the kernel's state during a call, before its strips
DW_ROWS_STATE_BYTES, DW_ROWS_EDGES_BYTES = 168, 96  # the in-place kernel's state, and its edge vectors (8 channels)
STRIP_BUDGET = 1536  # bytes of strips a depthwise layer's scratch may take (at least a group's four vectors' worth)
SUM_LANES = [0, 4, 8, 12, 2, 6, 10, 14, 1, 5, 9, 13, 3, 7, 11, 15]  # the lanes of the depthwise kernel's four sums


def depthwise_groups(weights: np.ndarray, bias: np.ndarray, multiplier: np.ndarray, shift: np.ndarray,
                     per: int, general: bool) -> bytes:
    """[taps, channels] int8 filter and per-channel constants -> usmp_helium_depthwise_s8's groups of 16 lanes (lane
    l of group g is channel 16 g + l, or with `per` pixels a vector channel l % channels): the biases, the taps'
    16 filter bytes, the multipliers, the right shifts and, general, the left shifts; the int32 fields in the
    order of the kernel's sums (SUM_LANES). Lanes past the channels are zeros."""
    taps, channels = weights.shape
    lanes = np.arange(16) % channels if per > 1 else np.arange(-(-channels // 16) * 16)
    real = lanes < channels
    pick = np.where(real, lanes, 0)
    groups = len(lanes) // 16

    def field(values: np.ndarray) -> np.ndarray:
        return np.where(real, values[pick], 0).astype(np.int32).reshape(groups, 16)[:, SUM_LANES]

    filters = np.where(real, weights[:, pick], 0).astype(np.int8).reshape(taps, groups, 16).transpose(1, 0, 2)
    fields = [field(bias), filters.reshape(groups, -1), field(multiplier), field(np.minimum(shift, 0))]
    if general:
        fields.append(field(np.maximum(shift, 0)))
    as_bytes = [np.ascontiguousarray(f).view(np.uint8).reshape(groups, -1) for f in fields]
    return np.concatenate(as_bytes, axis=1).tobytes()


def depthwise(c: Call) -> Rewrite | None:
    """DEPTHWISE_CONV_2D of one input channel as a convolution; with multiplier 1 usmp_helium_depthwise_s8, 16
    lanes a vector: 16 channels of a pixel or, with 8 channels where consecutive windows are consecutive bytes
    (stride and dilation 1 along the width), two pixels. Its scratch holds its state during a call (not the stack)
    and filter_h strips of padded input rows."""
    p = c.p
    if p["in_ch"] == 1:  # a convolution whose [out_ch, H, W, 1] filter is the lowering's channel-major one
        out_ch = p["depth_multiplier"]
        weights = np.frombuffer(c.program.buffers[c.buffers["filter"]].data, np.int8)
        weights = weights[:out_ch * p["filter_h"] * p["filter_w"]].reshape(out_ch, -1)
        return _matrix(c, weights, _channel_values(c, "folded_bias", out_ch), _geometry(p, 1, out_ch),
                       -p["input_offset"])
    if p["depth_multiplier"] != 1 or p["filter_h"] > DW_MAX_FILTER_H:
        return None
    channels, taps = p["in_ch"], p["filter_h"] * p["filter_w"]
    tensor = c.program.graph.tensors[c.graph_op().inputs[1]]  # the [1, H, W, C] filter as stored
    weights = np.ascontiguousarray(tensor.data, dtype=np.int8).reshape(taps, channels)
    shift = _channel_values(c, "shift", channels)
    general = bool(np.any(shift >= 0))
    per = 2 if channels == 8 and p["stride_w"] == p["dilation_w"] == 1 else 1  # two pixels a vector
    data = depthwise_groups(weights, _channel_values(c, "folded_bias", channels),
                            _channel_values(c, "multiplier", channels), shift, per, general)
    keys = ("batches", "in_h", "in_w", "out_h", "out_w", "filter_h", "filter_w", "stride_h", "stride_w", "dilation_h",
            "dilation_w", "pad_top", "pad_left", "input_offset", "output_offset", "act_min", "act_max")
    lane_bytes = channels if per > 1 else 16

    def strip_bytes(vectors: int) -> tuple[int, int]:  # a strip's pixels and bytes for `vectors` vectors
        width = (vectors * per - 1) * p["stride_w"] + (p["filter_w"] - 1) * p["dilation_w"] + 1
        return width, -(-width * lane_bytes // 16) * 16 + 16  # USMP_HELIUM_DW_STRIP_BYTES

    # a pass takes as many groups as fit the budget (balanced), then the strips narrow to fit
    groups, vectors = 1 if per > 1 else -(-channels // 16), -(-p["out_w"] // per)
    chunk, passes = vectors, 1
    while passes < groups and p["filter_h"] * -(-groups // passes) * strip_bytes(chunk)[1] > STRIP_BUDGET:
        passes += 1
    group_pass = -(-groups // passes)
    while chunk > 4 and p["filter_h"] * group_pass * strip_bytes(chunk)[1] > STRIP_BUDGET:
        chunk -= 1
    width, strip = strip_bytes(chunk)
    params = dict({k: p[k] for k in keys}, channels=channels, pixels_per_vector=per, requant_general=int(general),
                  chunk=chunk, strip_width=width, group_pass=group_pass)
    constants = ("constants", NewBuffer("helium_groups", "int8_t", len(data), data), False)
    if reads_in_place(p, channels, per, general):
        tail = (np.full(8, p["output_offset"], np.int16).tobytes() + np.full(16, p["act_min"], np.int8).tobytes()
                + np.full(16, p["act_max"], np.int8).tobytes()
                + np.full(max(channels, 16), -p["input_offset"], np.int8).tobytes())
        state = DW_ROWS_STATE_BYTES + (DW_ROWS_EDGES_BYTES if per > 1 else 0)
        args = [("input", c.buffers["input"], False),
                ("constants", NewBuffer("helium_groups", "int8_t", len(data + tail), data + tail), False),
                ("state", NewBuffer("helium_dw_state", "int8_t", state), True),
                ("output", c.buffers["output"], True)]
        return Rewrite("usmp_helium_depthwise_rows_s8", "usmp_helium_depthwise_params", params, args, ())
    args = [("input", c.buffers["input"], False), constants,
            ("strips", NewBuffer("helium_strips", "int8_t", DW_STATE_BYTES + p["filter_h"] * group_pass * strip), True),
            ("output", c.buffers["output"], True)]
    return Rewrite("usmp_helium_depthwise_s8", "usmp_helium_depthwise_params", params, args, ())


def reads_in_place(p: dict, channels: int, per: int, general: bool) -> bool:
    """usmp_helium_depthwise_rows_s8's layers: 3x3, strides 1 or 2, dilations 1, at most one column of padding a
    side, whole groups of 16 channels (or 8 channels, two pixels a vector, over an even output width), right shifts
    only. It reads the input where it is (a band's rows where their producer wrote them), so its scratch is its state
    (168 B; 264 B with two pixels a vector), not strips of copied rows; the padding reads the zero point its
    constants hold."""
    pad_right = (p["out_w"] - 1) * p["stride_w"] + 3 - p["in_w"] - p["pad_left"]
    return (p["filter_h"] == p["filter_w"] == 3 and p["stride_h"] in (1, 2) and p["stride_w"] in (1, 2)
            and p["dilation_h"] == p["dilation_w"] == 1 and 0 <= p["pad_left"] <= 1 and pad_right <= 1
            and (channels % 16 == 0 if per == 1 else p["out_w"] % 2 == 0) and not general)


def add(c: Call) -> Rewrite | None:
    """ADD of two tensors of one shape: usmp_helium_add_s8, four lanes at a time."""
    size = same_shape_size(c.p)
    if size is None:
        return None
    fields = ("input1_offset", "input2_offset", "output_offset", "left_shift", "input1_multiplier", "input1_shift",
              "input2_multiplier", "input2_shift", "output_multiplier", "output_shift", "act_min", "act_max")
    args = [("input1", c.buffers["input1"], False), ("input2", c.buffers["input2"], False),
            ("output", c.buffers["output"], True)]
    return Rewrite("usmp_helium_add_s8", "usmp_helium_add_params", dict({k: c.p[k] for k in fields}, size=size),
                   args, ())


SUM_LANES_MAX = 256  # int8 values an int16 lane sums without overflow


def avg_pool(c: Call) -> Rewrite | None:
    """AVERAGE_POOL_2D: usmp_helium_avg_pool_s8 (the portable kernel's parameters), windows of at most 256 taps."""
    if c.p["filter_h"] * c.p["filter_w"] > SUM_LANES_MAX:
        return None
    args = [("input", c.buffers["input"], False), ("output", c.buffers["output"], True)]
    return Rewrite("usmp_helium_avg_pool_s8", c.call.params_type, dict(c.p), args, ())


def mean(c: Call) -> Rewrite | None:
    """MEAN (int8) over every axis but the innermost: usmp_helium_mean_s8, no scratch."""
    p = c.p
    count, steps = p["count"], p["out_step"]
    pixels = int(np.prod(count[:-1]))
    if steps[-1] != 1 or any(steps[:-1]) or p["num_outputs"] != count[-1] or pixels > SUM_LANES_MAX:
        return None
    params = dict(channels=count[-1], pixels=pixels, sum_offset=p["sum_offset"], multiplier=p["multiplier"],
                  shift=p["shift"], output_offset=p["output_offset"])
    args = [("input", c.buffers["input"], False), ("output", c.buffers["output"], True)]
    return Rewrite("usmp_helium_mean_s8", "usmp_helium_mean_params", params, args, ())


def softmax(c: Call) -> Rewrite | None:
    """SOFTMAX (int8): the portable kernel itself, kept. On the M55 it runs within 200 instructions of CMSIS-NN's
    arm_softmax_s8 on the benchmark models' 2 to 12 classes (an exp per element either way) and spares its
    3.3 KB of code, so LAYER_COSTS gives no figure for CMSIS-NN's (--kernels cmsis-nn still takes it)."""
    args = [("input", c.buffers["input"], False), ("output", c.buffers["output"], True)]
    return Rewrite(c.call.function, c.call.params_type, dict(c.p), args, ())


# portable kernel -> (its parameter names in order, rewrite or None)
CANDIDATES = {
    "usmp_conv_s8": (("input", "filter", "bias", "folded_bias", "multiplier", "shift", "output"), conv),
    "usmp_depthwise_conv_s8": (("input", "filter", "bias", "folded_bias", "multiplier", "shift", "output"), depthwise),
    "usmp_fully_connected_s8": (("input", "weights", "bias", "multiplier", "shift", "output"), fully_connected),
    "usmp_add_s8": (("input1", "input2", "output"), add),
    "usmp_avg_pool_s8": (("input", "output"), avg_pool),
    "usmp_quantized_sum_s8": (("input", "accumulators", "output"), mean),
    "usmp_softmax_s8": (("input", "output"), softmax),
}


def _offering(rewrite):
    def handler(c: Call) -> Offer | None:
        chosen = rewrite(c)
        return None if chosen is None else Offer(chosen, layer_cost(chosen.function, c.p))
    return handler


FAMILY = Family(name="USMP Helium", key="usmp-helium", kernels="usmp", extensions=("mve",),
                number_types=("int8", "int16"),
                table={**{function: Entry(names, _offering(rewrite)) for function, (names, rewrite) in CANDIDATES.items()},
                       **S16_TABLE},
                sources=HELIUM_SOURCES, header=HELIUM_HEADER)
