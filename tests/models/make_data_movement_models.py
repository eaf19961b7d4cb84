"""Make the SPLIT/SPLIT_V/PACK/UNPACK/SLICE/GATHER/BROADCAST_TO/MIRROR_PAD/space-depth-batch test models.

Run with a Python that has TensorFlow (offline, fixed seeds):

    /work/tfvenv/bin/python tests/models/make_data_movement_models.py

Every model is written in an int8 and a float32 variant (a Dense layer on
either side, where there is one, makes the operator sit between computed
tensors, as in real models); each is checked to contain the operator it is
meant to exercise. A few data-movement-only models are also converted with
16-bit activations (the converter's 16x8 mode: int16 tensors, symmetric), for
the int16 paths of SPLIT, SPLIT_V, PACK, CONCATENATION, TRANSPOSE, PAD and
STRIDED_SLICE. test_bit_exact.py and test_cortex_m.py run them all.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from model_tools import MODELS_DIR, convert_checked  # noqa: E402


def lam(fn):
    """A TensorFlow function as a Keras layer (Keras 3 tensors do not take tf.* ops directly)."""
    import tensorflow as tf

    return tf.keras.layers.Lambda(fn)


def dense(units):
    import tensorflow as tf

    return tf.keras.layers.Dense(units)


def split_then_dense(x):
    """Streaming keyword spotting: a window split along time, each part through its own layer."""
    import tensorflow as tf

    first, second = lam(lambda t: tf.split(t, 2, axis=1))(x)
    return tf.keras.layers.Concatenate(axis=-1)([dense(3)(first), dense(2)(second)])


def split_v_outputs(x):
    import tensorflow as tf

    return lam(lambda t: tf.split(t, [1, 4, 3], axis=-1))(dense(8)(x))


def unstack_outputs(x):
    import tensorflow as tf

    return lam(lambda t: tf.unstack(t, axis=1))(x)


def models():
    """name -> (build, input shapes, operator that must appear)."""
    import tensorflow as tf

    return {
        "split_time": (split_then_dense, [(1, 4, 5)], "SPLIT"),
        "split_v_channels": (split_v_outputs, [(1, 3, 6)], "SPLIT_V"),
        "pack_axis1": (lambda a, b: lam(lambda ts: tf.stack(ts, axis=1))([dense(4)(a), b]), [(1, 3, 4), (1, 3, 4)],
                       "PACK"),
        "unpack_axis1": (unstack_outputs, [(1, 3, 4)], "UNPACK"),
        "slice_begin_size": (lambda x: lam(lambda t: tf.slice(t, [0, 1, 0, 1], [1, 2, -1, 2]))(dense(4)(x)),
                             [(1, 4, 3, 2)], "SLICE"),
        "gather_constant_indices": (lambda x: lam(lambda t: tf.gather(t, [3, 0, 0, 2], axis=2))(x), [(1, 2, 4, 3)],
                                    "GATHER"),
        "broadcast_to": (lambda x: lam(lambda t: tf.broadcast_to(t, [2, 3, 4]))(dense(4)(x)), [(1, 1, 6)],
                         "BROADCAST_TO"),
        "mirror_pad_reflect": (lambda x: lam(lambda t: tf.pad(t, [[0, 0], [1, 2], [2, 1], [0, 0]], "REFLECT"))(x),
                               [(1, 4, 4, 2)], "MIRROR_PAD"),
        "mirror_pad_symmetric": (lambda x: lam(lambda t: tf.pad(t, [[0, 0], [2, 0], [0, 3]], "SYMMETRIC"))(x),
                                 [(1, 3, 5)], "MIRROR_PAD"),
        "depth_to_space": (lambda x: lam(lambda t: tf.nn.depth_to_space(t, 2))(x), [(1, 2, 3, 8)], "DEPTH_TO_SPACE"),
        "space_to_depth": (lambda x: lam(lambda t: tf.nn.space_to_depth(t, 2))(x), [(1, 4, 6, 2)], "SPACE_TO_DEPTH"),
        "space_to_batch": (lambda x: lam(lambda t: tf.space_to_batch_nd(t, [2, 2], [[0, 0], [0, 0]]))(x),
                           [(1, 4, 6, 3)], "SPACE_TO_BATCH_ND"),
        "batch_to_space": (lambda x: lam(lambda t: tf.batch_to_space(t, [2, 2], [[0, 1], [1, 0]]))(x),
                           [(4, 3, 2, 3)], "BATCH_TO_SPACE_ND"),
    }


def int16_models():
    """name -> (build, input shapes, operator): converted with int16 activations, no Dense layers."""
    import tensorflow as tf

    return {
        "split_time_int16": (lambda x: lam(lambda t: tf.split(t, 2, axis=1))(x), [(1, 4, 5)], "SPLIT"),
        "split_v_int16": (lambda x: lam(lambda t: tf.split(t, [2, 1, 3], axis=-1))(x), [(1, 3, 6)], "SPLIT_V"),
        # One input, so every operand shares its scale (two inputs would get a requantizing QUANTIZE).
        "pack_int16": (lambda x: lam(lambda t: tf.stack([t, t[:, ::-1]], axis=2))(x), [(1, 3, 4)], "PACK"),
        "concat_int16": (lambda x: lam(lambda t: tf.concat([t, t[:, 1:]], axis=1))(x), [(1, 4, 3)], "CONCATENATION"),
        "transpose_int16": (lambda x: lam(lambda t: tf.transpose(t, [0, 2, 3, 1]))(x), [(1, 2, 3, 4)], "TRANSPOSE"),
        "pad_int16": (lambda x: lam(lambda t: tf.pad(t, [[0, 0], [1, 2], [2, 0]]))(x), [(1, 3, 4)], "PAD"),
        "strided_slice_int16": (lambda x: lam(lambda t: t[:, 1::2, ::-1])(x), [(1, 5, 4)], "STRIDED_SLICE"),
    }


def main() -> None:
    failures = []
    for name, (build, shapes, wanted) in models().items():
        for quantize, suffix in (("int8", ""), ("float32", "_f32")):
            convert_checked(build, shapes, name + suffix, wanted, failures, quantize=quantize, seed=len(name))
    for name, (build, shapes, wanted) in int16_models().items():
        convert_checked(build, shapes, name, wanted, failures, quantize="int16", seed=len(name))
    if failures:
        raise SystemExit("\n".join(failures))


if __name__ == "__main__":
    main()
