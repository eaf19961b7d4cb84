"""Write the resize_*, tconv_* and batch_matmul_* test models (fixed seeds).

Run with a Python that has TensorFlow:  /work/tfvenv/bin/python tests/models/make_spatial_models.py
Each model is checked to contain the operator it is meant to exercise, and the
int16 (16x8) ones are kept only if TFLite Micro runs them.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from model_tools import MODELS_DIR, convert, opcodes  # noqa: E402


def models():
    """(name, build, input shapes, quantize ("int8", "int16" = 16x8, "float32"), expected opcode)"""
    import tensorflow as tf

    L = tf.keras.layers

    def fn(f):
        """A build function applying TensorFlow ops to the Keras inputs through a Lambda layer."""
        return lambda *inputs: L.Lambda(lambda xs: f(*xs))(list(inputs))

    def tconv(*args, **kw):
        return lambda x: L.Conv2DTranspose(*args, bias_initializer="random_normal", **kw)(x)

    def constant(shape, seed):
        return tf.constant(np.random.default_rng(seed).uniform(-1.0, 1.0, shape).astype(np.float32))

    v1 = tf.compat.v1.image
    resize = tf.image.resize
    return [
        ("resize_nearest_x2", fn(lambda x: v1.resize_nearest_neighbor(x, (8, 10))), [(1, 4, 5, 3)], "int8",
         "RESIZE_NEAREST_NEIGHBOR"),
        ("resize_nearest_half_pixel", fn(lambda x: resize(x, (7, 9), "nearest")), [(1, 4, 5, 2)], "int8",
         "RESIZE_NEAREST_NEIGHBOR"),
        ("resize_nearest_align_corners", fn(lambda x: v1.resize_nearest_neighbor(x, (7, 9), align_corners=True)),
         [(1, 4, 5, 2)], "int8", "RESIZE_NEAREST_NEIGHBOR"),
        ("resize_nearest_shrink_f32", fn(lambda x: resize(x, (3, 2), "nearest")), [(1, 7, 5, 2)], "float32",
         "RESIZE_NEAREST_NEIGHBOR"),
        ("resize_nearest_int16", fn(lambda x: resize(x, (7, 9), "nearest")), [(1, 4, 5, 2)], "int16",
         "RESIZE_NEAREST_NEIGHBOR"),
        ("resize_bilinear_x2", lambda x: L.UpSampling2D(2, interpolation="bilinear")(x), [(1, 4, 5, 3)], "int8",
         "RESIZE_BILINEAR"),
        ("resize_bilinear_shrink", fn(lambda x: resize(x, (3, 4), "bilinear")), [(1, 6, 7, 2)], "int8",
         "RESIZE_BILINEAR"),
        ("resize_bilinear_align_corners", fn(lambda x: v1.resize_bilinear(x, (7, 9), align_corners=True)),
         [(1, 4, 5, 2)], "int8", "RESIZE_BILINEAR"),
        ("resize_bilinear_legacy", fn(lambda x: v1.resize_bilinear(x, (6, 11))), [(1, 4, 5, 2)], "int8",
         "RESIZE_BILINEAR"),
        ("resize_bilinear_f32", fn(lambda x: resize(x, (7, 9), "bilinear")), [(1, 4, 5, 2)], "float32",
         "RESIZE_BILINEAR"),
        ("resize_bilinear_align_corners_f32", fn(lambda x: v1.resize_bilinear(x, (7, 9), align_corners=True)),
         [(1, 4, 5, 2)], "float32", "RESIZE_BILINEAR"),
        ("tconv_same_stride2", tconv(4, 3, strides=2, padding="same"), [(1, 4, 4, 3)], "int8", "TRANSPOSE_CONV"),
        ("tconv_valid_stride21", tconv(3, (3, 2), strides=(2, 1), padding="valid"), [(1, 3, 4, 2)], "int8",
         "TRANSPOSE_CONV"),
        ("tconv_no_bias_relu", lambda x: L.Conv2DTranspose(3, 4, strides=2, padding="same", use_bias=False,
                                                           activation="relu")(x), [(1, 3, 3, 2)], "int8",
         "TRANSPOSE_CONV"),
        ("tconv_f32", tconv(3, 3, strides=2, padding="same", activation="relu"), [(1, 3, 4, 2)], "float32",
         "TRANSPOSE_CONV"),
        ("tconv_valid_f32", tconv(2, (2, 3), strides=(1, 2), padding="valid"), [(1, 4, 3, 3)], "float32",
         "TRANSPOSE_CONV"),
        ("tconv_int16", tconv(4, 3, strides=2, padding="same"), [(1, 4, 4, 3)], "int16", "TRANSPOSE_CONV"),
        # One input each: the calibrator feeds two inputs to BATCH_MATMUL the wrong way round.
        ("batch_matmul", fn(lambda a: tf.matmul(a, tf.nn.relu(tf.transpose(a, [0, 1, 3, 2])))), [(1, 2, 3, 4)],
         "int8", "BATCH_MATMUL"),
        ("batch_matmul_adj_y", fn(lambda a: tf.matmul(a, a, transpose_b=True)), [(2, 3, 6)], "int8", "BATCH_MATMUL"),
        ("batch_matmul_constant_rhs", fn(lambda a: tf.matmul(a, constant((2, 4, 5), 7))), [(2, 3, 4)], "int8",
         "BATCH_MATMUL"),
        ("batch_matmul_f32", fn(lambda a: tf.matmul(a, tf.nn.relu(a), transpose_a=True)), [(2, 4, 3)], "float32",
         "BATCH_MATMUL"),
        ("batch_matmul_int16", fn(lambda a: tf.matmul(a, a, transpose_b=True)), [(1, 2, 3, 4)], "int16",
         "BATCH_MATMUL"),
        ("batch_matmul_constant_rhs_int16", fn(lambda a: tf.matmul(a, constant((2, 4, 5), 8))), [(2, 3, 4)], "int16",
         "BATCH_MATMUL"),
    ]


def convert_16x8(build, input_shapes, name: str, seed: int) -> Path:
    """Post-training quantization with int16 activations and int8 weights (TFLite's 16x8 mode)."""
    import tensorflow as tf

    tf.keras.utils.set_random_seed(seed)
    # Named in order: the calibrator feeds the inputs sorted by name.
    inputs = [tf.keras.Input(shape=tuple(s[1:]), batch_size=s[0], name=f"input_{i}")
              for i, s in enumerate(input_shapes)]
    model = tf.keras.Model(inputs=inputs, outputs=build(*inputs))
    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    rng = np.random.default_rng(seed)

    def representative():
        for _ in range(64):
            yield [rng.uniform(-3.0, 3.0, s).astype(np.float32) for s in input_shapes]

    converter.optimizations = [tf.lite.Optimize.DEFAULT]
    converter.representative_dataset = representative
    converter.target_spec.supported_ops = [tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8]
    converter.inference_input_type = tf.int16
    converter.inference_output_type = tf.int16
    path = MODELS_DIR / f"{name}.tflite"
    path.write_bytes(converter.convert())
    return path


def tflite_micro_runs(path: Path) -> bool:
    """Run the model once on zeros in TFLite Micro (in a subprocess: a refused model may abort it)."""
    import subprocess

    script = ("import sys, numpy as np, tflite, tflite_micro\n"
              "path = sys.argv[1]\n"
              "count = tflite.Model.GetRootAsModel(open(path, 'rb').read(), 0).Subgraphs(0).InputsLength()\n"
              "i = tflite_micro.runtime.Interpreter.from_file(path, arena_size=1 << 20)\n"
              "for n in range(count):\n"
              "    d = i.get_input_details(n)\n"
              "    i.set_input(np.zeros(d['shape'], d['dtype']), n)\n"
              "i.invoke()\n")
    return subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True).returncode == 0


def main() -> None:
    for seed, (name, build, shapes, quantize, opcode) in enumerate(models()):
        if quantize == "int16":
            path = convert_16x8(build, shapes, name, seed=300 + seed)
        else:
            path = convert(build, shapes, name, quantize=quantize, seed=300 + seed)
        ops = opcodes(path)
        status = "ok" if opcode in ops else f"MISSING {opcode}"
        if quantize == "int16" and not tflite_micro_runs(path):
            path.unlink()
            status = "removed: TFLite Micro does not run it"
        print(f"{name}: {ops} {path.stat().st_size if path.exists() else 0} bytes {status}")


if __name__ == "__main__":
    main()
