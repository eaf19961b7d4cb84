"""Write small .tflite flatbuffers by hand, for models TensorFlow will not make.

Tests use it for the rejections (custom operators, several subgraphs, dynamic
shapes, unsupported types, bad references) and for the malformed corpus.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import flatbuffers
import numpy as np
import tflite

TYPES = {"float32": 0, "float16": 1, "int32": 2, "uint8": 3, "int64": 4, "string": 5, "bool": 6,
         "int16": 7, "int8": 9, "resource": 13, "uint64": 12, "uint32": 15}


@dataclass
class T:
    name: str
    shape: tuple
    dtype: str = "int8"
    data: np.ndarray | None = None
    scales: list | None = None
    zero_points: list | None = None
    axis: int = 0
    signature: tuple | None = None
    variable: bool = False


@dataclass
class Op:
    opcode: int  # tflite.BuiltinOperator value
    inputs: list
    outputs: list
    custom_code: str | None = None
    options: tuple | None = None  # (tflite.BuiltinOptions code, function(builder) -> options table offset)
    intermediates: list | None = None  # tensors an operator lists as intermediates (LSTM's gate statistics)
    custom_options: bytes | None = None  # a custom operator's options (a FlexBuffer, see flexbuffer_options)


@dataclass
class Sub:
    tensors: list
    ops: list
    inputs: list
    outputs: list


def _ints(builder, start_vector, values, kind="Int32"):
    start_vector(builder, len(values))
    for v in reversed(values):
        getattr(builder, f"Prepend{kind}")(v)
    return builder.EndVector()


def build(subgraphs: list[Sub], identifier: bytes = b"TFL3") -> bytes:
    b = flatbuffers.Builder(1024)
    buffers_data = [None]  # buffer 0 is the empty sentinel
    opcode_keys: list[tuple[int, str | None]] = []
    sub_offsets = []
    for sub in subgraphs:
        tensor_offsets = []
        for t in sub.tensors:
            name = b.CreateString(t.name)
            shape = _ints(b, tflite.TensorStartShapeVector, list(t.shape))
            signature = _ints(b, tflite.TensorStartShapeSignatureVector, list(t.signature)) if t.signature else None
            quant = None
            if t.scales is not None:
                scales = _ints(b, tflite.QuantizationParametersStartScaleVector, list(t.scales), "Float32")
                zps = _ints(b, tflite.QuantizationParametersStartZeroPointVector,
                            list(t.zero_points if t.zero_points is not None else [0] * len(t.scales)), "Int64")
                tflite.QuantizationParametersStart(b)
                tflite.QuantizationParametersAddScale(b, scales)
                tflite.QuantizationParametersAddZeroPoint(b, zps)
                tflite.QuantizationParametersAddQuantizedDimension(b, t.axis)
                quant = tflite.QuantizationParametersEnd(b)
            buffer_index = 0
            if t.data is not None:
                buffers_data.append(np.ascontiguousarray(t.data).tobytes())
                buffer_index = len(buffers_data) - 1
            tflite.TensorStart(b)
            tflite.TensorAddName(b, name)
            tflite.TensorAddShape(b, shape)
            if signature is not None:
                tflite.TensorAddShapeSignature(b, signature)
            tflite.TensorAddType(b, TYPES[t.dtype])
            tflite.TensorAddBuffer(b, buffer_index)
            if quant is not None:
                tflite.TensorAddQuantization(b, quant)
            if t.variable:
                tflite.TensorAddIsVariable(b, True)
            tensor_offsets.append(tflite.TensorEnd(b))
        op_offsets = []
        for op in sub.ops:
            key = (op.opcode, op.custom_code)
            if key not in opcode_keys:
                opcode_keys.append(key)
            ins = _ints(b, tflite.OperatorStartInputsVector, list(op.inputs))
            outs = _ints(b, tflite.OperatorStartOutputsVector, list(op.outputs))
            options = op.options[1](b) if op.options else None
            intermediates = _ints(b, tflite.OperatorStartIntermediatesVector, list(op.intermediates)) \
                if op.intermediates else None
            custom = b.CreateByteVector(op.custom_options) if op.custom_options else None
            tflite.OperatorStart(b)
            tflite.OperatorAddOpcodeIndex(b, opcode_keys.index(key))
            tflite.OperatorAddInputs(b, ins)
            tflite.OperatorAddOutputs(b, outs)
            if intermediates is not None:
                tflite.OperatorAddIntermediates(b, intermediates)
            if custom is not None:
                tflite.OperatorAddCustomOptions(b, custom)
            if options is not None:
                tflite.OperatorAddBuiltinOptionsType(b, op.options[0])
                tflite.OperatorAddBuiltinOptions(b, options)
            op_offsets.append(tflite.OperatorEnd(b))
        tensors_vec = _offsets(b, tflite.SubGraphStartTensorsVector, tensor_offsets)
        ops_vec = _offsets(b, tflite.SubGraphStartOperatorsVector, op_offsets)
        ins = _ints(b, tflite.SubGraphStartInputsVector, list(sub.inputs))
        outs = _ints(b, tflite.SubGraphStartOutputsVector, list(sub.outputs))
        tflite.SubGraphStart(b)
        tflite.SubGraphAddTensors(b, tensors_vec)
        tflite.SubGraphAddOperators(b, ops_vec)
        tflite.SubGraphAddInputs(b, ins)
        tflite.SubGraphAddOutputs(b, outs)
        sub_offsets.append(tflite.SubGraphEnd(b))
    code_offsets = []
    for opcode, custom in opcode_keys:
        custom_offset = b.CreateString(custom) if custom is not None else None
        tflite.OperatorCodeStart(b)
        tflite.OperatorCodeAddDeprecatedBuiltinCode(b, min(opcode, 127))
        tflite.OperatorCodeAddBuiltinCode(b, opcode)
        if custom_offset is not None:
            tflite.OperatorCodeAddCustomCode(b, custom_offset)
        tflite.OperatorCodeAddVersion(b, 1)
        code_offsets.append(tflite.OperatorCodeEnd(b))
    buffer_offsets = []
    for data in buffers_data:
        data_vec = b.CreateByteVector(data) if data else None
        tflite.BufferStart(b)
        if data_vec is not None:
            tflite.BufferAddData(b, data_vec)
        buffer_offsets.append(tflite.BufferEnd(b))
    subs_vec = _offsets(b, tflite.ModelStartSubgraphsVector, sub_offsets)
    codes_vec = _offsets(b, tflite.ModelStartOperatorCodesVector, code_offsets)
    bufs_vec = _offsets(b, tflite.ModelStartBuffersVector, buffer_offsets)
    tflite.ModelStart(b)
    tflite.ModelAddVersion(b, 3)
    tflite.ModelAddOperatorCodes(b, codes_vec)
    tflite.ModelAddSubgraphs(b, subs_vec)
    tflite.ModelAddBuffers(b, bufs_vec)
    b.Finish(tflite.ModelEnd(b), file_identifier=identifier)
    return bytes(b.Output())


def _offsets(b, start_vector, offsets):
    start_vector(b, len(offsets))
    for o in reversed(offsets):
        b.PrependUOffsetTRelative(o)
    return b.EndVector()


def fc_subgraph(in_dtype="int8", **input_overrides) -> Sub:
    """input[1,4] -> FULLY_CONNECTED(weights[2,4], bias[2]) -> output[1,2], int8."""
    rng = np.random.default_rng(0)
    tensors = [
        T("input", (1, 4), in_dtype, scales=[0.05], zero_points=[-3], **input_overrides),
        T("weights", (2, 4), "int8", data=rng.integers(-127, 128, (2, 4)).astype(np.int8), scales=[0.01]),
        T("bias", (2,), "int32", data=np.array([100, -50], np.int32), scales=[0.0005]),
        T("output", (1, 2), "int8", scales=[0.1], zero_points=[2]),
    ]
    return Sub(tensors, [Op(tflite.BuiltinOperator.FULLY_CONNECTED, [0, 1, 2], [3])], [0], [3])


def options(kind: str, **fields):
    """Builtin options for Op: e.g. options("LeakyRelu", Alpha=0.2) -> (options type, writer)."""
    def write(builder):
        getattr(tflite, f"{kind}OptionsStart")(builder)
        for name, value in fields.items():
            getattr(tflite, f"{kind}OptionsAdd{name}")(builder, value)
        return getattr(tflite, f"{kind}OptionsEnd")(builder)

    return getattr(tflite.BuiltinOptions, f"{kind}Options"), write


def flexbuffer_options(**values) -> bytes:
    """A custom operator's options as TFLite Micro's signal library reads them: a FlexBuffer map."""
    from flatbuffers import flexbuffers

    return bytes(flexbuffers.Dumps(values))
