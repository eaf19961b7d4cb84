"""Make small test models with TensorFlow (offline, fixed seeds).

Used by the tests/models/make_*.py scripts, run with a Python that has
tensorflow-cpu (not needed by CI: the resulting .tflite files are committed).

    convert(build, input_shapes, "name", quantize="int8")

`build(*inputs)` is a function of Keras tensors returning the output
tensor(s); weights come from Keras initialisers seeded by `seed`.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

MODELS_DIR = Path(__file__).resolve().parent


def convert(build, input_shapes, name: str, quantize: str = "int8", seed: int = 0,
            float_io: bool = False, calibration_samples: int = 64, input_range=(-3.0, 3.0), prepare=None,
            directory: Path = MODELS_DIR) -> Path:
    """Build a Keras model with batch 1 and convert it.

    quantize: "int8" (full-integer post-training quantization, per-channel weights)
              "int16" (16x8: int16 activations, int8 weights, int64 biases)
              "float32" (no quantization) or "float16" (float16 weights, float32 activations).
    float_io: integer model whose inputs/outputs stay float32 (adds QUANTIZE/DEQUANTIZE).
    prepare: called with the Keras model before conversion (e.g. to rescale its weights).
    directory: where <name>.tflite goes (benchmark models live outside tests/models).
    """
    import tensorflow as tf

    tf.keras.utils.set_random_seed(seed)
    inputs = [tf.keras.Input(shape=tuple(s[1:]), batch_size=s[0]) for s in input_shapes]
    outputs = build(*inputs)
    model = tf.keras.Model(inputs=inputs, outputs=outputs)
    if prepare is not None:
        prepare(model)
    # Inputs carry a fixed batch size, so every shape in the .tflite is static.
    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    if quantize in ("int8", "int16"):
        rng = np.random.default_rng(seed)

        def representative():
            for _ in range(calibration_samples):
                yield [rng.uniform(*input_range, s).astype(np.float32) for s in input_shapes]

        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        converter.representative_dataset = representative
        if quantize == "int8":
            converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        else:
            converter.target_spec.supported_ops = [
                tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8]
        if not float_io:
            converter.inference_input_type = converter.inference_output_type = getattr(tf, quantize)
    elif quantize == "float16":  # float16 weights, each expanded by a DEQUANTIZE at run time
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        converter.target_spec.supported_types = [tf.float16]
    elif quantize != "float32":
        raise ValueError(quantize)
    data = converter.convert()
    path = Path(directory) / f"{name}.tflite"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def convert_checked(build, input_shapes, name: str, wanted: str, failures: list[str], **options) -> Path:
    """convert() in a fresh Keras session (tensor names restart, so reruns write the same bytes), print the
    model's operators and record in `failures` a model that lacks the operator it was made for."""
    import tensorflow as tf

    tf.keras.backend.clear_session()
    path = convert(build, input_shapes, name, **options)
    ops = opcodes(path)
    print(f"{path.name}: {' '.join(ops)}")
    if wanted not in ops:
        failures.append(f"{path.name} has no {wanted}: {ops}")
    return path


def opcodes(path: Path) -> list[str]:
    """The builtin operator names a model uses, in operator order (for checking a script's output)."""
    import tflite

    model = tflite.Model.GetRootAsModel(path.read_bytes(), 0)
    names = {v: k for k, v in vars(tflite.BuiltinOperator).items() if not k.startswith("_")}
    graph = model.Subgraphs(0)
    result = []
    for i in range(graph.OperatorsLength()):
        code = model.OperatorCodes(graph.Operators(i).OpcodeIndex())
        result.append(names.get(max(code.BuiltinCode(), code.DeprecatedBuiltinCode()), "?"))
    return result
