"""Constant folding (usmp.fold): shape arithmetic evaluated at compile time, no kernel left for it.

The chains are built by hand as the converter writes them for dynamic reshapes (SHAPE -> STRIDED_SLICE ->
PACK -> RESHAPE) and for constants it leaves unfolded (FILL, ADD, CAST, GATHER, CONCATENATION of constants);
each model still matches tflite-micro, and the generated C has no function for a folded operator.
"""
from __future__ import annotations

import numpy as np
import pytest
import tflite

from reference import outputs_match, random_inputs, reference_outputs
from tflite_builder import Op, Sub, T, build
from usmp.compiler import compile_model
from usmp.fold import fold_constants
from usmp.fold.fold import evaluate
from usmp.frontend import read_tflite
from usmp.runner.host import run_host
from test_ops_data_movement import const, options

OPS = tflite.BuiltinOperator


def emitted(compiled) -> list[str]:
    return [op.opcode for op in compiled.program.ops]


def matches_reference(path, compiled, runs=3):
    rng = np.random.default_rng(0)
    for _ in range(runs):
        inputs = random_inputs(compiled.program.graph, rng)
        for e, g in zip(reference_outputs(path, inputs), run_host(compiled, inputs)):
            assert outputs_match(e, g)


def shape_chain_model(tmp_path):
    """x[2,3,4] -> RESHAPE(x, PACK(STRIDED_SLICE(SHAPE(x))[0], -1)), concatenated with FILL([2,3], 5)."""
    q = dict(scales=[0.1], zero_points=[-2])
    tensors = [
        T("x", (2, 3, 4), "int8", **q),                       # 0
        T("shape", (3,), "int32"),                            # 1
        const("begin", [0]), const("end", [1]), const("strides", [1]),  # 2, 3, 4
        T("batch", (), "int32"),                              # 5
        const("minus_one", -1),                               # 6
        T("new_shape", (2,), "int32"),                        # 7
        T("flat", (2, 12), "int8", **q),                      # 8
        const("unused_a", [1, 3]), const("unused_b", [1, 0]),  # 9, 10
        const("dims", [2, 3]),                                # 11
        T("five", (), "int8", data=np.array(5, np.int8), **q),  # 12
        T("filled", (2, 3), "int8", **q),                     # 13
        T("y", (2, 15), "int8", **q),                         # 14
    ]
    ops = [
        Op(OPS.SHAPE, [0], [1], options=options("Shape", OutType=2)),
        Op(OPS.STRIDED_SLICE, [1, 2, 3, 4], [5], options=options("StridedSlice", ShrinkAxisMask=1)),
        Op(OPS.PACK, [5, 6], [7], options=options("Pack", ValuesCount=2, Axis=0)),
        Op(OPS.RESHAPE, [0, 7], [8]),
        Op(OPS.FILL, [11, 12], [13]),
        Op(OPS.CONCATENATION, [8, 13], [14], options=options("Concatenation", Axis=1)),
    ]
    path = tmp_path / "shape_chain.tflite"
    path.write_bytes(build([Sub(tensors, ops, [0], [14])]))
    return path


def test_shape_chain_is_folded_and_matches_tflite_micro(tmp_path):
    path = shape_chain_model(tmp_path)
    compiled = compile_model(path)
    assert emitted(compiled) == ["CONCATENATION"]  # the RESHAPE is a view; everything else was folded
    source = compiled.files[f"{compiled.program.name}.c"].replace("usmp_", "")
    for opcode in ("shape", "strided_slice", "pack", "reshape", "fill"):
        assert f"_{opcode}(" not in source
    # The only constant buffer is the FILL's result, which the CONCATENATION copies; the shape
    # arithmetic's constants never reach the constant pool.
    constants = [b for b in compiled.program.buffers.values() if b.kind == "constant"]
    assert [b.data for b in constants] == [bytes([5] * 6)]
    matches_reference(path, compiled)


def test_fold_computes_the_chain_values(tmp_path):
    graph = fold_constants(read_tflite(shape_chain_model(tmp_path)))
    assert [op.opcode for op in graph.operators] == ["RESHAPE", "CONCATENATION"]
    assert graph.tensors[1].data.tolist() == [2, 3, 4]
    assert graph.tensors[5].data.tolist() == 2
    assert graph.tensors[7].data.tolist() == [2, -1]
    assert graph.tensors[13].data.tolist() == [[5] * 3] * 2


def one_op_graph(tmp_path, opcode, tensors, inputs, outputs, op_options=None, graph_inputs=(0,)):
    """A constant-fed operator whose result feeds a RESHAPE of the model input (so it is not a model output)."""
    extra = len(tensors)
    tensors = tensors + [T("x", (4,), "int32"), T("y", (4,), "int32")]
    ops = [Op(getattr(OPS, opcode), inputs, outputs, options=op_options),
           Op(OPS.RESHAPE, [extra, outputs[0]], [extra + 1])]
    path = tmp_path / f"{opcode.lower()}.tflite"
    path.write_bytes(build([Sub(tensors, ops, [extra], [extra + 1])]))
    return read_tflite(path)


FOLDED = [  # opcode, input tensors, output tensors, options, expected first output
    ("CAST", [const("a", [1, 4], "int64")], [T("o", (2,), "int32")], None, [1, 4]),
    ("CAST", [const("a", [1.9, -4.5], "float32")], [T("o", (2,), "int32")], None, [1, -4]),
    ("GATHER", [const("a", [[5, 6], [7, 8]]), const("i", [1, 0, 1])], [T("o", (3, 2), "int32")],
     options("Gather", Axis=0), [[7, 8], [5, 6], [7, 8]]),
    ("CONCATENATION", [const("a", [1, 2]), const("b", [3])], [T("o", (3,), "int32")],
     options("Concatenation", Axis=0), [1, 2, 3]),
    ("BROADCAST_TO", [const("a", [[1], [2]]), const("s", [2, 3])], [T("o", (2, 3), "int32")], None,
     [[1, 1, 1], [2, 2, 2]]),
    ("MUL", [const("a", [2, 3]), const("b", [4, -1])], [T("o", (2,), "int32")],
     options("Mul", FusedActivationFunction=0), [8, -3]),
    ("SUB", [const("a", [2, 3]), const("b", 1)], [T("o", (2,), "int32")], options("Sub", FusedActivationFunction=0),
     [1, 2]),
    ("SPLIT", [const("axis", [0]), const("a", [1, 2, 3, 4])], [T("o", (2,), "int32"), T("p", (2,), "int32")],
     options("Split", NumSplits=2), [1, 2]),
    ("TILE", [const("a", [1, 2]), const("m", [2])], [T("o", (4,), "int32")], None, [1, 2, 1, 2]),
    ("EXPAND_DIMS", [const("a", [1, 2]), const("axis", [0])], [T("o", (1, 2), "int32")], None, [[1, 2]]),
    ("SLICE", [const("a", [[1, 2, 3], [4, 5, 6]]), const("b", [0, 1]), const("s", [-1, 2])], [T("o", (2, 2), "int32")],
     None, [[2, 3], [5, 6]]),
    ("FLOOR_DIV", [const("a", [7, -7, 6]), const("b", [2, 2, -4])], [T("o", (3,), "int32")], None, [3, -4, -2]),
    ("MAXIMUM", [const("a", [1, 5]), const("b", 3)], [T("o", (2,), "int32")], None, [3, 5]),
    ("MINIMUM", [const("a", [1, 5]), const("b", 3)], [T("o", (2,), "int32")], None, [1, 3]),
    ("RANGE", [const("a", 5), const("b", -1), const("c", -2)], [T("o", (3,), "int32")], None, [5, 3, 1]),
]


@pytest.mark.parametrize("opcode, inputs, outputs, opts, expected", FOLDED, ids=[f[0] for f in FOLDED])
def test_constant_operators_are_folded(tmp_path, opcode, inputs, outputs, opts, expected):
    n = len(inputs)
    graph = fold_constants(one_op_graph(tmp_path, opcode, inputs + outputs, list(range(n)),
                                        list(range(n, n + len(outputs))), opts))
    assert [op.opcode for op in graph.operators] == ["RESHAPE"]
    assert graph.tensors[n].data.tolist() == expected


NOT_FOLDED = [  # results the kernels decide, or values the output type cannot hold
    ("GATHER", [const("a", [5, 6]), const("i", [2])], [T("o", (1,), "int32")], options("Gather", Axis=0)),
    ("CAST", [const("a", [3e9], "float32")], [T("o", (1,), "int32")], None),
    ("ADD", [const("a", [2**31 - 1]), const("b", [1])], [T("o", (1,), "int32")],
     options("Add", FusedActivationFunction=0)),
    ("ADD", [const("a", [1.5], "float32"), const("b", [1.0], "float32")], [T("o", (1,), "float32")],
     options("Add", FusedActivationFunction=0)),
    ("ADD", [const("a", [1]), const("b", [2])], [T("o", (1,), "int32")], options("Add", FusedActivationFunction=1)),
    ("FLOOR_DIV", [const("a", [1]), const("b", [0])], [T("o", (1,), "int32")], None),
    # 8 KiB of flash for what a fill kernel writes from 4 bytes: left to the kernel.
    ("FILL", [const("d", [2048]), const("v", 3)], [T("o", (2048,), "int32")], None),
]


@pytest.mark.parametrize("opcode, inputs, outputs, opts", NOT_FOLDED,
                         ids=[f"{f[0]}{k}" for k, f in enumerate(NOT_FOLDED)])
def test_what_is_not_folded(tmp_path, opcode, inputs, outputs, opts):
    n = len(inputs)
    graph = fold_constants(one_op_graph(tmp_path, opcode, inputs + outputs, list(range(n)),
                                        list(range(n, n + len(outputs))), opts))
    assert [op.opcode for op in graph.operators] == [opcode, "RESHAPE"]


def test_a_model_output_is_not_folded(tmp_path):
    """A constant result that is a model output is still written by a kernel (the user's array)."""
    tensors = [const("dims", [2]), const("value", 7), T("o", (2,), "int32"), T("x", (1,), "int8", scales=[1.0]),
               const("s", [1]), T("y", (1,), "int8", scales=[1.0])]
    path = tmp_path / "fill_out.tflite"
    path.write_bytes(build([Sub(tensors, [Op(OPS.FILL, [0, 1], [2]), Op(OPS.RESHAPE, [3, 4], [5])], [3], [2, 5])]))
    compiled = compile_model(path)
    assert "FILL" in emitted(compiled)
    x = np.array([5], np.int8)
    assert run_host(compiled, [x])[0].tolist() == [7, 7]


AGREE = [  # opcode, data shape, data type, other operands, output shapes, options
    ("STRIDED_SLICE", (4, 5), "int16", [const("b", [3, 0]), const("e", [0, 5]), const("s", [-1, 2])], [(3, 3)],
     options("StridedSlice")),
    ("TRANSPOSE", (2, 3, 4), "float32", [const("p", [1, 2, 0])], [(3, 4, 2)], None),
    ("GATHER", (4, 3), "int8", [const("i", [[2, 0], [3, 3]])], [(2, 2, 3)], options("Gather", Axis=0)),
    ("BROADCAST_TO", (3, 1), "int32", [const("s", [2, 3, 4])], [(2, 3, 4)], None),
    ("TILE", (2, 3), "int8", [const("m", [2, 3])], [(4, 9)], None),
    ("SPLIT_V", (5, 2), "float32", [const("sizes", [2, 3]), const("axis", [0])], [(2, 2), (3, 2)],
     options("SplitV", NumSplits=2)),
    ("UNPACK", (3, 2), "int16", [], [(2,), (2,), (2,)], options("Unpack", Num=3, Axis=0)),
]


@pytest.mark.parametrize("opcode, shape, dtype, operands, out_shapes, opts", AGREE, ids=[a[0] for a in AGREE])
def test_folded_values_equal_what_the_kernels_compute(tmp_path, opcode, shape, dtype, operands, out_shapes, opts):
    """The same operator on the same data: folded from a constant, and run by the kernels from a model input."""
    rng = np.random.default_rng(7)
    values = (rng.uniform(-3, 3, shape) if dtype == "float32" else rng.integers(-100, 100, shape)).astype(dtype)
    outputs = [T(f"out{k}", s, dtype) for k, s in enumerate(out_shapes)]
    n = 1 + len(operands)
    op_outputs = list(range(n, n + len(outputs)))

    def graph_with(data_tensor, name):
        sub = Sub([data_tensor] + operands + outputs, [Op(getattr(OPS, opcode), list(range(n)), op_outputs,
                                                           options=opts)], [0] if data_tensor.data is None else [],
                  op_outputs)
        path = tmp_path / f"{name}.tflite"
        path.write_bytes(build([sub]))
        return path

    run = run_host(compile_model(graph_with(T("x", shape, dtype), "run")), [values])
    constant = read_tflite(graph_with(T("x", shape, dtype, data=values), "fold"))
    folded = evaluate(constant.operators[0], constant.tensors)  # (fold_constants leaves model outputs alone)
    assert folded is not None and len(folded) == len(run)
    for f, r in zip(folded, run):
        assert np.array_equal(f, r)
