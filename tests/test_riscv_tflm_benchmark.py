"""benchmarks/riscv_tflm.py without a TFLite Micro tree: the sources it takes from one, the operators it registers,
and a one-line error for a directory that is not a tree. (The benchmark itself runs for minutes: its figures are
in the README, measured with a tree from github.com/tensorflow/tflite-micro.)"""
from __future__ import annotations

import argparse
import sys

import pytest

from reference import EXAMPLE_MODELS, REPO_ROOT
from usmp.errors import UsmpError

sys.path.insert(0, str(REPO_ROOT / "benchmarks"))
import riscv_tflm  # noqa: E402

SOURCES_INC = """\
MICROLITE_TEST_SRCS := \\
$(TENSORFLOW_ROOT)tensorflow/lite/micro/micro_log_test.cc

MICROLITE_CC_KERNEL_SRCS := \\
$(TENSORFLOW_ROOT)tensorflow/lite/micro/kernels/add.cc \\
$(TENSORFLOW_ROOT)tensorflow/lite/micro/kernels/conv.cc

MICROLITE_CC_HDRS := \\
$(TENSORFLOW_ROOT)tensorflow/lite/micro/micro_log.h
"""


def fake_tree(root):
    files = ["tensorflow/lite/micro/micro_interpreter.cc", "tensorflow/lite/micro/micro_log_test.cc",
             "tensorflow/lite/micro/memory_planner/greedy_memory_planner.cc",
             "tensorflow/lite/micro/tools/benchmarking/generic_model_benchmark.cc",
             "tensorflow/lite/micro/kernels/add.cc", "tensorflow/lite/micro/kernels/conv.cc",
             "tensorflow/lite/micro/kernels/unused.cc", "tensorflow/lite/core/c/common.cc",
             "tensorflow/lite/array.cc", "tensorflow/lite/experimental/x.cc",
             "tensorflow/compiler/mlir/lite/schema/schema_utils.cc", "tensorflow/lite/micro/micro_interpreter.h"]
    for name in files:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("")
    (root / "tensorflow/lite/micro/tools/make").mkdir(parents=True)
    (root / "tensorflow/lite/micro/tools/make/sources.inc").write_text(SOURCES_INC)
    return root


def test_library_sources_follow_the_makefile(tmp_path):
    """The runtime and TFLite's shared sources at the Makefile's core level, the kernels sources.inc lists at its
    kernel level; tests, benchmarks, unlisted kernels, experimental/ and array.cc left out."""
    tree = fake_tree(tmp_path)
    got = sorted((str(p.relative_to(tree)), opt) for p, opt in riscv_tflm.library_sources(tree))
    core, kernel = riscv_tflm.CORE_OPT, riscv_tflm.KERNEL_OPT
    assert (core, kernel) == ("-Os", "-O2")
    assert got == sorted([("tensorflow/lite/micro/micro_interpreter.cc", core),
                          ("tensorflow/lite/micro/memory_planner/greedy_memory_planner.cc", core),
                          ("tensorflow/lite/core/c/common.cc", core),
                          ("tensorflow/compiler/mlir/lite/schema/schema_utils.cc", core),
                          ("tensorflow/lite/micro/kernels/add.cc", kernel), ("tensorflow/lite/micro/kernels/conv.cc", kernel)])


def test_resolver_registers_the_models_operators():
    assert riscv_tflm.resolver_calls(EXAMPLE_MODELS / "micro_speech_quantized.tflite") == [
        "resolver.AddDepthwiseConv2D();", "resolver.AddFullyConnected();", "resolver.AddReshape();",
        "resolver.AddSoftmax();"]


def test_not_a_tree_is_one_line(tmp_path):
    args = argparse.Namespace(tflm=str(tmp_path), flatbuffers=None, gemmlowp=None, ruy=None, cxx_headers=None)
    with pytest.raises(UsmpError, match="not a TFLite Micro source tree"):
        riscv_tflm.find_sources(args)
    fake_tree(tmp_path)
    with pytest.raises(UsmpError, match="Makefile: does not say 'CORE_OPTIMIZATION_LEVEL := -Os'"):
        riscv_tflm.find_sources(args)  # a tree whose makefiles moved from the flags the build follows
    for name, lines in riscv_tflm.MAKEFILE_SAYS.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("\n".join(lines) + "\n")
    with pytest.raises(UsmpError, match="--flatbuffers .*: no include/flatbuffers/flatbuffers.h"):
        riscv_tflm.find_sources(args)
