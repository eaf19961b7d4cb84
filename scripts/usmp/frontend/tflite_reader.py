"""Read a .tflite flatbuffer into the graph IR.

The flatbuffer accessors of the `tflite` package trust the file; a damaged
file makes them raise whatever Python error the bad offset leads to. Every
read therefore happens inside one guard that turns such errors into a
ModelError, and the values read are checked before anything uses them.
"""
from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import tflite

from usmp.errors import ModelError, UsmpError
from usmp.frontend.float16 import fold_float16_weights
from usmp.frontend.subgraphs import attach_init_graphs
from usmp.ir.graph import Graph, Operator, Quantization, Tensor, element_size, numpy_dtype

_TENSOR_TYPES = {
    getattr(tflite.TensorType, name): name.lower()
    for name in ("FLOAT32", "FLOAT16", "INT8", "UINT8", "INT16", "INT32", "INT64", "UINT32", "UINT64", "BOOL",
                 "RESOURCE")
}
# Types read only as constant data (float16 weights: see frontend/float16.py).
CONSTANT_ONLY_TYPES = {"float16"}
_TENSOR_TYPE_NAMES = {v: k for k, v in vars(tflite.TensorType).items() if not k.startswith("_")}
_OPCODE_NAMES = {v: k for k, v in vars(tflite.BuiltinOperator).items() if not k.startswith("_")}
_OPTIONS_NAMES = {v: k for k, v in vars(tflite.BuiltinOptions).items() if not k.startswith("_")}

# TFLite Micro's shapes hold at most 6 dimensions (it has no heap for more).
MAX_RANK = 6

# Bigger than any microcontroller; stops absurd shapes before numpy tries them.
MAX_TENSOR_BYTES = 1 << 30


def read_tflite(path: str | Path, name: str | None = None) -> Graph:
    path = Path(path)
    if name is not None and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        # It names the C functions, macros and files: anything else breaks the build later.
        raise UsmpError(f"--name '{printable(name)}' must be a C identifier (letters, digits and _, "
                        f"not starting with a digit)")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ModelError(f"{path}: cannot read model file: {exc.strerror or exc}") from None
    return parse_tflite(data, name or _default_name(path), source=str(path))


def parse_tflite(data: bytes, name: str, source: str = "<model>") -> Graph:
    if len(data) < 8 or data[4:8] != b"TFL3":
        raise ModelError(f"{source}: not a TFLite model (no 'TFL3' file identifier)")
    try:
        return fold_float16_weights(_Reader(data, name, source).graph())
    except ModelError:
        raise
    except Exception as exc:  # damaged flatbuffer: any accessor may fail
        raise ModelError(
            f"{source}: corrupt or truncated model ({type(exc).__name__} while reading the flatbuffer)"
        ) from None


def printable(text: str) -> str:
    """Names from the file go into one-line messages and C comments: no control characters."""
    return "".join(c if c.isprintable() else "?" for c in text)


def _default_name(path: Path) -> str:
    stem = re.sub(r"[^0-9A-Za-z_]", "_", path.stem).lower()
    return stem if stem and not stem[0].isdigit() else f"m_{stem}"


class _Reader:
    def __init__(self, data: bytes, name: str, source: str):
        self.data = data
        self.name = name
        self.source = source
        self.model = tflite.Model.GetRootAsModel(data, 0)

    def fail(self, message: str) -> ModelError:
        return ModelError(f"{self.source}: {message}")

    def graph(self) -> Graph:
        model = self.model
        count = model.SubgraphsLength()
        if count < 1:
            raise self.fail("the model has no subgraphs")
        opcodes = [self._opcode_name(model.OperatorCodes(i)) for i in range(model.OperatorCodesLength())]
        main = self._subgraph(0, opcodes)
        if not main.operators:
            raise self.fail("the model has no operators")
        if not main.outputs:
            raise self.fail("the model has no outputs")
        for index in main.inputs:
            if main.tensors[index].is_constant:
                raise self.fail(f"model input tensor {index} '{main.tensors[index].name}' is a constant")
            if main.tensors[index].is_variable:  # state lives in the library, never in the caller's arrays
                raise self.fail(f"model input tensor {index} '{main.tensors[index].name}' is a variable tensor")
        self._check_io(main.tensors, main.operators, main.inputs, main.outputs)
        self._check_empty(main.tensors, main.operators, main.inputs + main.outputs)
        return attach_init_graphs(main, count, lambda i: self._checked_subgraph(i, opcodes), self.fail)

    def _checked_subgraph(self, number: int, opcodes: list[str]) -> Graph:
        graph = self._subgraph(number, opcodes)
        self._check_io(graph.tensors, graph.operators, graph.inputs, graph.outputs, subgraph=number)
        self._check_empty(graph.tensors, graph.operators, graph.inputs + graph.outputs)
        return graph

    def _subgraph(self, number: int, opcodes: list[str]) -> Graph:
        subgraph = self.model.Subgraphs(number)
        try:
            tensors = [self._tensor(subgraph.Tensors(i), i) for i in range(subgraph.TensorsLength())]
        except ModelError:
            self._unknown_custom_first(subgraph, number, opcodes)
            raise
        operators = [
            self._operator(subgraph.Operators(i), i, opcodes, len(tensors))
            for i in range(subgraph.OperatorsLength())
        ]
        inputs = self._tensor_list(subgraph.InputsAsNumpy(), subgraph.InputsLength(), len(tensors), "model inputs")
        outputs = self._tensor_list(subgraph.OutputsAsNumpy(), subgraph.OutputsLength(), len(tensors), "model outputs")
        return Graph(self.name, tensors, operators, inputs, outputs)

    def _unknown_custom_first(self, subgraph, number: int, opcodes: list[str]) -> None:
        """A custom operator no lowering knows is the root cause of the unusual tensor types it produces or
        reads: named before them."""
        from usmp.lower.ops import lowering_for

        for i in range(subgraph.OperatorsLength()):
            code = subgraph.Operators(i).OpcodeIndex()
            opcode = opcodes[code] if 0 <= code < len(opcodes) else ""
            if opcode.startswith("CUSTOM:") and lowering_for(opcode) is None:
                where = f"subgraph {number} operator {i}" if number else f"operator {i}"
                raise self.fail(f"{where}: custom operator {opcode.removeprefix('CUSTOM:')} is not supported")

    def _check_io(self, tensors, operators, inputs, outputs, subgraph: int = 0) -> None:
        """Inputs and outputs are distinct buffers the caller owns (no repeats, no overlap, no writes to inputs);
        every other tensor has at most one producer. A subgraph IF or WHILE runs may pass an input straight
        through to an output, or return a constant (its operator copies them)."""
        for what, indices in (("inputs", inputs), ("outputs", outputs)):
            repeated = sorted({i for i in indices if indices.count(i) > 1})
            if repeated:
                raise self.fail(f"model {what} list tensor {repeated[0]} more than once")
        for index in outputs if not subgraph else ():
            if tensors[index].is_constant:  # the generated code never copies a constant into the caller's output
                raise self.fail(f"model output tensor {index} '{tensors[index].name}' is a constant")
        both = sorted(set(inputs) & set(outputs)) if not subgraph else []
        if both:
            raise self.fail(f"tensor {both[0]} '{tensors[both[0]].name}' is both a model input and a model output")
        producer: dict[int, int] = {}
        for op in operators:
            for index in op.outputs:
                if index in producer:  # the second write would silently win (or break a view)
                    raise self.fail(f"tensor {index} '{tensors[index].name}' is written by operators "
                                    f"{producer[index]} and {op.index}")
                producer[index] = op.index
            written = sorted(set(op.outputs) & set(inputs))
            if written:
                raise self.fail(f"operator {op.index} ({op.opcode}) writes model input tensor {written[0]} "
                                f"'{tensors[written[0]].name}'")

    def _check_empty(self, tensors, operators, io) -> None:
        """An empty tensor only operators or the caller touch is refused; LSTM intermediates (shape [0]) carry
        nothing but quantization metadata no kernel here reads."""
        used = set(io) | {v for op in operators for v in op.inputs + op.outputs if v is not None}
        for index in sorted(used):
            if any(d == 0 for d in tensors[index].shape):
                raise self.fail(f"tensor {index} '{tensors[index].name}' has an empty dimension in shape "
                                f"{list(tensors[index].shape)}")

    def _opcode_name(self, code) -> str:
        builtin = max(code.BuiltinCode(), code.DeprecatedBuiltinCode())
        if builtin == tflite.BuiltinOperator.CUSTOM:
            custom = code.CustomCode()
            return f"CUSTOM:{printable(custom.decode(errors='replace')) if custom else '?'}"
        return _OPCODE_NAMES.get(builtin, f"UNKNOWN_BUILTIN_{builtin}")

    def _tensor_list(self, values, length, tensor_count, what) -> list[int]:
        if length == 0:
            return []
        result = [int(v) for v in values]
        for v in result:
            if not 0 <= v < tensor_count:
                raise self.fail(f"{what} refer to tensor {v}, but the model has {tensor_count} tensors")
        return result

    def _tensor(self, t, index: int) -> Tensor:
        raw_name = t.Name()
        name = printable(raw_name.decode(errors="replace")) if raw_name else f"tensor_{index}"
        where = f"tensor {index} '{name}'"
        type_code = t.Type()
        if type_code not in _TENSOR_TYPES:
            type_name = _TENSOR_TYPE_NAMES.get(type_code, str(type_code))
            if type_name == "VARIANT":
                raise self.fail(f"{where} is a VARIANT tensor, which is not supported")
            raise self.fail(f"{where} has type {type_name}, which is not supported")
        dtype = _TENSOR_TYPES[type_code]
        shape = tuple(int(d) for d in t.ShapeAsNumpy()) if t.ShapeLength() else ()
        signature = tuple(int(d) for d in t.ShapeSignatureAsNumpy()) if t.ShapeSignatureLength() else shape
        if any(d < 0 for d in shape) or len(signature) != len(shape):
            raise self.fail(f"{where} has a dynamic shape {list(signature) or list(shape)}; only static shapes "
                            f"and shapes the input shapes fix are supported")
        dynamic = signature if any(d < 0 for d in signature) else None  # resolved by usmp/shapes
        if len(shape) > MAX_RANK:
            raise self.fail(f"{where} has {len(shape)} dimensions; at most {MAX_RANK} are supported (as in TFLite Micro)")
        nbytes = element_size(dtype)
        for d in shape:
            nbytes *= d
            if nbytes > MAX_TENSOR_BYTES:
                raise self.fail(f"{where} has shape {list(shape)}, larger than {MAX_TENSOR_BYTES} bytes")
        data = self._constant(t, where, shape, dtype, nbytes)
        if dtype in CONSTANT_ONLY_TYPES and data is None:
            raise self.fail(f"{where} has type {dtype.upper()} and is not a constant; {dtype} is supported only "
                            f"for constant weights that DEQUANTIZE expands, not for activations")
        return Tensor(index, name, shape, dtype, self._quantization(t), data, is_variable=bool(t.IsVariable()),
                      signature=dynamic if data is None else None)

    def _quantization(self, t) -> Quantization | None:
        """Taken as written: only the kernel that uses a scale or zero point knows what it needs.

        A bias carries its filter's per-channel scales and axis, zero points may
        be missing or extra; TFLite Micro reads none of that, so neither does the
        importer check it (require_quantized and the filter checks do, per use).
        """
        q = t.Quantization()
        if q is None or q.ScaleLength() == 0:
            return None
        scales = np.asarray(q.ScaleAsNumpy(), dtype=np.float32)
        zero_points = (
            np.asarray(q.ZeroPointAsNumpy(), dtype=np.int64) if q.ZeroPointLength() else np.zeros(len(scales), np.int64)
        )
        return Quantization(scales, zero_points, int(q.QuantizedDimension()))

    def _constant(self, t, where, shape, dtype, nbytes) -> np.ndarray | None:
        index = t.Buffer()
        if index == 0:
            return None
        if not 0 <= index < self.model.BuffersLength():
            raise self.fail(f"{where} refers to buffer {index}, but the model has {self.model.BuffersLength()} buffers")
        buffer = self.model.Buffers(index)
        if buffer.Offset() > 1:  # data stored after the flatbuffer (models over 2 GB)
            start, size = buffer.Offset(), buffer.Size()
            if start + size > len(self.data):
                raise self.fail(f"{where}: its data lies beyond the end of the file")
            raw = self.data[start:start + size]
        elif buffer.DataLength() == 0:
            return None
        else:
            raw = buffer.DataAsNumpy().tobytes()
        if len(raw) != nbytes:
            raise self.fail(f"{where} has {len(raw)} bytes of data but its shape {list(shape)} needs {nbytes}")
        return np.frombuffer(raw, dtype=numpy_dtype(dtype)).reshape(shape).copy()

    def _operator(self, op, index, opcodes, tensor_count) -> Operator:
        code_index = op.OpcodeIndex()
        if not 0 <= code_index < len(opcodes):
            raise self.fail(f"operator {index} uses opcode {code_index}, but the model has {len(opcodes)}")
        opcode = opcodes[code_index]
        inputs = [int(v) for v in op.InputsAsNumpy()] if op.InputsLength() else []
        outputs = [int(v) for v in op.OutputsAsNumpy()] if op.OutputsLength() else []
        for v in inputs + outputs:
            if not -1 <= v < tensor_count:
                raise self.fail(f"operator {index} ({opcode}) refers to tensor {v}, but the model has {tensor_count} tensors")
        if any(v < 0 for v in outputs):
            raise self.fail(f"operator {index} ({opcode}) has an omitted output")
        looped = sorted(set(inputs) & set(outputs))
        if looped:
            raise self.fail(f"operator {index} ({opcode}) reads tensor {looped[0]}, which it also writes")
        options = self._custom_options(op, index, opcode) if opcode.startswith("CUSTOM:") else self._options(op)
        for key, value in options.items():
            if isinstance(value, float) and not math.isfinite(value):
                raise self.fail(f"operator {index} ({opcode}) has option {key} = {value}, not a finite number")
        return Operator(index, opcode, [None if v < 0 else v for v in inputs], outputs, options)

    def _custom_options(self, op, index: int, opcode: str) -> dict:
        """A custom operator's options: a FlexBuffer map (TFLite Micro's signal library writes one)."""
        if not op.CustomOptionsLength():
            return {}
        from flatbuffers import flexbuffers

        try:
            values = flexbuffers.Loads(op.CustomOptionsAsNumpy().tobytes())
        except Exception:  # any damage in the bytes
            raise self.fail(f"operator {index} ({opcode}) has custom options that are not a FlexBuffer map") from None
        return dict(values) if isinstance(values, dict) else {}

    def _options(self, op) -> dict:
        type_code = op.BuiltinOptionsType()
        table = op.BuiltinOptions()
        if type_code == 0 or table is None:
            return {}
        class_name = _OPTIONS_NAMES.get(type_code)
        options_class = getattr(getattr(tflite, class_name, None), class_name, None) if class_name else None
        if options_class is None:
            options_class = getattr(tflite, class_name, None) if class_name else None
        if options_class is None or not isinstance(options_class, type):
            return {}
        options = options_class()
        options.Init(table.Bytes, table.Pos)
        return _options_to_dict(options)


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _options_to_dict(options) -> dict:
    """Call every plain getter of a flatbuffer options table; vectors become int lists."""
    result = {}
    names = {n for n in dir(options) if n[:1].isupper()}
    for name in sorted(names):
        if name in ("Init",) or name.startswith("GetRootAs") or name.endswith(("AsNumpy", "Length", "IsNone")):
            continue
        if f"{name}AsNumpy" in names:
            length = getattr(options, f"{name}Length")()
            result[_snake(name)] = [int(v) for v in getattr(options, f"{name}AsNumpy")()] if length else []
            continue
        try:
            result[_snake(name)] = getattr(options, name)()
        except TypeError:  # accessor needs arguments: not a scalar field
            continue
    return result
