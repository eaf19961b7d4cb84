"""The kernel selection pass with CMSIS-NN: bit-exact with TFLite Micro, planned scratch, clear errors.

CMSIS-NN is an external dependency, found as dependencies.py says ($CMSIS_NN_PATH first); without it
the module is skipped with that reason. The emulated DSP cores and the
Helium core (Cortex-M55) run a dozen models; the host runs every model the pass rewrites (CMSIS-NN's plain C
paths, under ASan and UBSan), which is quick.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from dependencies import CMSIS_NN_MISSING, cmsis_nn_dir
from random_chains import longest_regions_tiler
from reference import all_models, outputs_match, random_inputs, reference_outputs
from usmp.cli import main as usmp_main
from usmp.compiler import CompileOptions, compile_model
from usmp.errors import UsmpError
from usmp.runner.baremetal import run_on_target
from usmp.runner.host import run_host
from usmp.select import cmsis_nn_sizes

CMSIS_NN = cmsis_nn_dir()
MISSING = [t for t in ("arm-none-eabi-gcc", "qemu-system-arm") if shutil.which(t) is None]
pytestmark = pytest.mark.skipif(CMSIS_NN is None, reason=CMSIS_NN_MISSING)
needs_qemu = pytest.mark.skipif(bool(MISSING), reason=f"{', '.join(MISSING)} not installed")

MODELS = {m.stem: m for m in all_models()}
# model -> the glue functions its CMSIS-NN build must call (one per family and variant)
QEMU_MODELS = {
    # its depthwise conv has one input channel; the fully connected layer ends a depth-first loop (band sums)
    "micro_speech_quantized": {"usmp_cmsis_nn_convolve_rows_s8", "usmp_band_fully_connected_s8",
                               "usmp_cmsis_nn_softmax_s8"},
    "hello_world_int8": {"usmp_cmsis_nn_fully_connected_s8"},
    "arg_max_classifier": {"usmp_cmsis_nn_fully_connected_per_channel_s8"},
    "conv_1x1": {"usmp_cmsis_nn_convolve_1x1_s8_fast"},
    "conv_3x3_same_relu": {"usmp_cmsis_nn_convolve_rows_s8"},
    "conv_per_tensor": {"usmp_cmsis_nn_convolve_rows_s8"},  # 49 pixels: the odd one alone
    "conv_grouped": {"usmp_cmsis_nn_convolve_s8"},
    "conv_dilation2": {"usmp_cmsis_nn_convolve_s8"},
    "dwconv_m1_same_relu": {"usmp_cmsis_nn_depthwise_conv_3x3_s8"},
    "dwconv_m2_same_stride2_relu6": {"usmp_cmsis_nn_depthwise_conv_s8"},
    "dwconv_dilation2": {"usmp_cmsis_nn_depthwise_conv_s8"},
    "avgpool_same": {"usmp_cmsis_nn_avgpool_s8"},
    "maxpool_same_stride2": {"usmp_cmsis_nn_max_pool_s8"},
    "add_same_shape": {"usmp_cmsis_nn_elementwise_add_s8"},
    "mul_same_shape": {"usmp_cmsis_nn_elementwise_mul_s8"},
    "softmax_1x2x3x4": {"usmp_cmsis_nn_softmax_s8"},
    # 16x8 (int16 activations): CMSIS-NN's s16 kernels
    "conv_3x3_same_stride2_relu_int16": {"usmp_cmsis_nn_convolve_s16"},
    "fc_batch3_relu_int16": {"usmp_cmsis_nn_convolve_s16"},  # per-channel: a 1x1 convolution, 3 pixels
    "dwconv_stride2_relu_int16": {"usmp_cmsis_nn_depthwise_conv_fast_s16"},
    "dwconv_m2_same_int16": {"usmp_cmsis_nn_depthwise_conv_s16"},
    "avg_pool_int16": {"usmp_cmsis_nn_avgpool_s16"},
    "add_same_shape_int16": {"usmp_cmsis_nn_elementwise_add_s16"},
    "softmax_int16": {"usmp_cmsis_nn_softmax_s16"},
}


def cmsis_options(cpu: str = "cortex-m4", **changes) -> CompileOptions:
    return CompileOptions(cpu=cpu, kernels="cmsis-nn", cmsis_nn=str(CMSIS_NN), **changes)


def functions(compiled) -> set[str]:
    return {call.function for op in compiled.program.ops for call in op.calls}


def assert_matches(model: Path, compiled, run, trials: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    for trial in range(trials):
        inputs = random_inputs(compiled.program.graph, rng)
        got = run(compiled, inputs)
        for k, (e, g) in enumerate(zip(reference_outputs(model, inputs), got)):
            assert outputs_match(e, g), f"{model.name} trial {trial} output {k}:\nexpected {e}\ngot      {g}"


@needs_qemu
@pytest.mark.parametrize("target", ["cortex-m4", "cortex-m33"])
@pytest.mark.parametrize("name", sorted(QEMU_MODELS))
def test_dsp_cores_match_reference(name, target):
    from usmp.runner.baremetal import run_on_target

    compiled = compile_model(MODELS[name], cmsis_options(target))
    assert QEMU_MODELS[name] <= functions(compiled)
    assert_matches(MODELS[name], compiled, lambda c, x: run_on_target(c, x, target).outputs, 2, 11)


def rewritten_models() -> list[Path]:
    found = []
    for model in MODELS.values():
        try:
            compiled = compile_model(model, cmsis_options())
        except UsmpError:  # models the compiler refuses are tested elsewhere
            continue
        if compiled.program.external_kernels is not None:
            found.append(model)
    return found


REWRITTEN = rewritten_models()


def test_every_family_is_rewritten_somewhere():
    """The sweep below covers each CMSIS-NN family (it cannot silently shrink to nothing)."""
    seen = set().union(*(functions(compile_model(m, cmsis_options())) for m in REWRITTEN))
    assert set().union(*QEMU_MODELS.values()) <= seen


@pytest.mark.parametrize("model", REWRITTEN, ids=[m.stem for m in REWRITTEN])
def test_host_sweep_matches_reference(model):
    """Every rewritten model on the host (CMSIS-NN's plain C), with the sanitizers."""
    compiled = compile_model(model, cmsis_options())
    assert_matches(model, compiled, lambda c, x: run_host(c, x, sanitize=True), 3, 21)


@pytest.mark.parametrize("cpu", ["generic", "cortex-m0", "cortex-m0plus", "cortex-m3"])
def test_no_op_without_dsp(cpu):
    """On a core without DSP or Helium, --kernels cmsis-nn calls no CMSIS-NN: the code is that core's portable
    build (the core matters: a depth-first loop's state is sized for its pointers)."""
    model = MODELS["micro_speech_quantized"]
    portable = compile_model(model, CompileOptions(cpu=cpu, kernels="portable"))
    selected = compile_model(model, cmsis_options(cpu))
    assert selected.program.external_kernels is None
    assert selected.files == portable.files


def test_portable_ignores_cmsis_nn(monkeypatch):
    """--kernels portable calls no CMSIS-NN even when it is given (without it a DSP or Helium core takes USMP's
    own kernels: test_dsp_kernels.py, test_helium_kernels.py)."""
    monkeypatch.delenv("CMSIS_NN_PATH", raising=False)
    model = MODELS["micro_speech_quantized"]
    for cpu in ("cortex-m4", "cortex-m55"):
        plain = compile_model(model, CompileOptions(cpu=cpu, kernels="portable")).files
        assert compile_model(model, CompileOptions(cpu=cpu, kernels="portable", cmsis_nn=str(CMSIS_NN))).files == plain


def test_auto_takes_the_environment_variable(monkeypatch):
    monkeypatch.setenv("CMSIS_NN_PATH", str(CMSIS_NN))
    compiled = compile_model(MODELS["avgpool_same"], CompileOptions(cpu="cortex-m7"))
    assert "usmp_cmsis_nn_avgpool_s8" in functions(compiled)
    assert '#include "usmp_kernels/cmsis_nn_glue.h"' in compiled.files["avgpool_same.c"]


@pytest.mark.parametrize("name, size", [
    ("conv_grouped", lambda in_ch, h, w: cmsis_nn_sizes.convolve_s8("dsp", in_ch, h, w)),  # arm_convolve_s8
    ("conv_3x3_same_relu", cmsis_nn_sizes.convolve_rows_s8),  # the glue's row im2col
    ("conv_3x3_same_relu", cmsis_nn_sizes.convolve_rows_nt_s8),  # the same on Helium (int8 columns)
])
def test_scratch_is_planned(name, size):
    """The im2col buffer is a planned scratch buffer of the size its function asks for."""
    cpu = "cortex-m55" if size is cmsis_nn_sizes.convolve_rows_nt_s8 else "cortex-m4"
    compiled = compile_model(MODELS[name], cmsis_options(cpu))
    graph = compiled.program.graph
    op = next(o for o in graph.operators if o.opcode == "CONV_2D")
    _, filter_h, filter_w, _ = graph.tensors[op.inputs[1]].shape
    in_ch = graph.tensors[op.inputs[0]].shape[3]
    scratch = [b for b in compiled.program.buffers.values() if b.kind == "scratch" and "cmsis_buffer" in b.name]
    assert [b.size for b in scratch] == [size(in_ch, filter_h, filter_w)]
    assert scratch[0].name in compiled.plan.placements
    assert scratch[0].name in compiled.files[f"{compiled.program.name}_plan.json"]


def test_portable_only_buffers_are_dropped():
    """The folded bias and channel-major filter only the portable kernels read are not planned."""
    model = MODELS["dwconv_m2_same_stride2_relu6"]
    portable = compile_model(model, CompileOptions(kernels="portable")).program.buffers
    selected = compile_model(model, cmsis_options()).program.buffers
    assert any("folded_bias" in name for name in portable)
    assert not any("folded_bias" in name for name in selected)
    assert any("cmsis_filter" in name for name in selected)


@pytest.mark.parametrize("name, portable_function", [("add_broadcast_channel", "usmp_add_s8"),
                                                     ("conv_f32", "usmp_conv_f32")])
def test_what_cmsis_nn_cannot_do_stays_portable(name, portable_function):
    compiled = compile_model(MODELS[name], cmsis_options())
    assert portable_function in functions(compiled)


TILING_MODELS = sorted((Path(__file__).parent / "models" / "tiling").glob("*_int8.tflite"))


@pytest.mark.parametrize("model", TILING_MODELS, ids=[m.stem for m in TILING_MODELS])
def test_tiled_chains_run_cmsis_nn_bit_exact(model, monkeypatch):
    """A depth-first loop runs each link on the kernel its operator gets whole (CMSIS-NN's plain C on the host,
    under the sanitizers), a band at a time (the longest chain fused: these are too small for the search to
    fuse, a loop's state would take more than it saves)."""
    monkeypatch.setattr("usmp.compiler.tile_program", longest_regions_tiler(3))
    compiled = compile_model(model, cmsis_options(tiling="max"))
    fused = [op for op in compiled.program.ops if op.opcode.startswith("DEPTH_FIRST_")]
    assert fused
    assert any(call.function.startswith("usmp_cmsis_nn") for op in fused for call in op.calls)
    assert_matches(model, compiled, lambda c, x: run_host(c, x, sanitize=True), 2, 5)


@needs_qemu
@pytest.mark.parametrize("target", ["cortex-m4", "cortex-m55"])
def test_tiled_chains_on_the_fast_cores(target, monkeypatch):
    """The same loops on the emulated DSP and Helium cores, with USMP's Helium kernels on the M55."""
    monkeypatch.setattr("usmp.compiler.tile_program", longest_regions_tiler(4))
    for model in (m for m in TILING_MODELS if m.stem in ("chain_int8", "residual_int8", "pooled_chain_int8")):
        compiled = compile_model(model, cmsis_options(target, tiling="max"))
        assert any(op.opcode.startswith("DEPTH_FIRST_") for op in compiled.program.ops)
        assert_matches(model, compiled, lambda c, x: run_on_target(c, x, target).outputs, 1, 3)


def test_only_reached_sources_are_built():
    sources = compile_model(MODELS["softmax_1x4"], cmsis_options()).program.external_kernels.sources
    names = {p.name for p in sources}
    assert {"arm_softmax_s8.c", "arm_nn_softmax_common_s8.c"} <= names
    assert not any(n.startswith("arm_convolve") for n in names)


@pytest.mark.parametrize("argv, message", [
    (["--cmsis-nn", "/no/such/dir"], "--cmsis-nn /no/such/dir: not a CMSIS-NN directory"),
    ([], "--kernels cmsis-nn needs CMSIS-NN: pass --cmsis-nn DIR or set CMSIS_NN_PATH"),
])
def test_missing_cmsis_nn_is_one_line(argv, message, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("CMSIS_NN_PATH", raising=False)
    status = usmp_main(["compile", str(MODELS["conv_1x1"]), "-o", str(tmp_path / "out"), "--cpu", "cortex-m4",
                        "--kernels", "cmsis-nn", *argv])
    err = capsys.readouterr().err
    assert status == 2
    assert err.count("\n") == 1 and message in err


def test_run_target_implies_cpu(tmp_path, capsys):
    np.save(tmp_path / "in.npy", np.zeros((1, 1), np.int8))
    status = usmp_main(["run", str(MODELS["hello_world_int8"]), "--target", "cortex-m4", "--cpu", "cortex-m33",
                        "--input", str(tmp_path / "in.npy"), "--output-dir", str(tmp_path / "out")])
    assert status == 2
    assert "--cpu cortex-m33 does not match --target cortex-m4" in capsys.readouterr().err


@needs_qemu
def test_fewer_instructions_on_micro_speech():
    from usmp.runner.baremetal import run_on_target

    model = MODELS["micro_speech_quantized"]
    inputs = random_inputs(compile_model(model).program.graph, np.random.default_rng(3))
    counts = {}
    for kernels in ("portable", "cmsis-nn"):
        compiled = compile_model(model, CompileOptions(cpu="cortex-m4", kernels=kernels, cmsis_nn=str(CMSIS_NN)))
        counts[kernels] = run_on_target(compiled, inputs, "cortex-m4", count=True).report["instructions"]
    assert counts["cmsis-nn"] < 0.6 * counts["portable"], counts


@pytest.mark.parametrize("lines, kernels", [("", "auto"), ("CONFIG_USMP_KERNELS_PORTABLE=y", "portable"),
                                            ("CONFIG_USMP_KERNELS_CMSIS_NN=y", "cmsis-nn")])
def test_zephyr_kernels_choice(lines, kernels):
    from usmp.zephyr.dotconfig import parse_config_text
    from usmp.zephyr.kconfig_pools import settings_from_config

    assert settings_from_config(parse_config_text(f"CONFIG_USMP=y\n{lines}\n", "prj.conf")).kernels == kernels


def test_zephyr_portable_choice_keeps_cmsis_nn_out(tmp_path):
    """CONFIG_USMP_KERNELS_PORTABLE on an M4 build: no CMSIS-NN call, although cmake passes the module's path."""
    (tmp_path / "prj.conf").write_text("CONFIG_USMP=y\nCONFIG_CPU_CORTEX_M4=y\nCONFIG_USMP_KERNELS_PORTABLE=y\n")
    out = tmp_path / "out"
    assert usmp_main(["compile", str(MODELS["conv_1x1"]), "-o", str(out), "--dotconfig", str(tmp_path / "prj.conf"),
                      "--cmsis-nn", str(CMSIS_NN)]) == 0
    assert "cmsis_nn_glue.c" not in (out / "CMakeLists.txt").read_text()


def test_zephyr_build_selects_cmsis_nn(tmp_path):
    """usmp compile --dotconfig of an M4 build with --cmsis-nn (what cmake passes with CONFIG_CMSIS_NN), and
    CONFIG_USMP_KERNELS_CMSIS_NN (auto takes USMP's own DSP kernels for a convolution)."""
    (tmp_path / "prj.conf").write_text("CONFIG_USMP=y\nCONFIG_CPU_CORTEX_M4=y\nCONFIG_USMP_KERNELS_CMSIS_NN=y\n")
    out = tmp_path / "out"
    assert usmp_main(["compile", str(MODELS["conv_1x1"]), "-o", str(out), "--dotconfig", str(tmp_path / "prj.conf"),
                      "--cmsis-nn", str(CMSIS_NN)]) == 0
    cmake = (out / "CMakeLists.txt").read_text()
    assert "cmsis_nn_glue.c" in cmake and "if(CONFIG_CMSIS_NN)" in cmake
    assert "usmp_cmsis_nn_convolve_1x1_s8_fast" in (out / "conv_1x1.c").read_text()


def _conv_model(tmp_path: Path, depthwise: bool, wide_rows: bool = False) -> Path:
    """Hand-built edge cases of the row im2col: two batches, an odd pixel count, and a window wider
    than the input on both sides (CONV_2D 5x5 SAME over 3x3), or one input channel (DEPTHWISE_CONV_2D),
    or filter rows longer than a Helium vector (3x3 SAME over 8 channels: 24 bytes a row)."""
    import tflite

    import tflite_builder as tb

    rng = np.random.default_rng(17)
    if depthwise:
        in_shape, f_shape, out_shape, channels = (2, 5, 4, 1), (1, 3, 2, 3), (2, 3, 2, 3), 3
        op = tflite.BuiltinOperator.DEPTHWISE_CONV_2D
        opts = tb.options("DepthwiseConv2D", Padding=0, StrideW=2, StrideH=2, DepthMultiplier=3)
        axis = 3
    elif wide_rows:
        in_shape, f_shape, out_shape, channels = (1, 5, 6, 8), (3, 3, 3, 8), (1, 5, 6, 3), 3
        op = tflite.BuiltinOperator.CONV_2D
        opts = tb.options("Conv2D", Padding=0, StrideW=1, StrideH=1)
        axis = 0
    else:
        in_shape, f_shape, out_shape, channels = (2, 3, 3, 2), (3, 5, 5, 2), (2, 3, 3, 3), 3
        op = tflite.BuiltinOperator.CONV_2D
        opts = tb.options("Conv2D", Padding=0, StrideW=1, StrideH=1)
        axis = 0
    w_scales = [0.01, 0.02, 0.015]
    tensors = [
        tb.T("input", in_shape, scales=[0.05], zero_points=[-3]),
        tb.T("filter", f_shape, data=rng.integers(-127, 128, f_shape).astype(np.int8), scales=w_scales,
             zero_points=[0] * channels, axis=axis),
        tb.T("bias", (channels,), "int32", data=rng.integers(-2000, 2000, channels).astype(np.int32),
             scales=[0.05 * s for s in w_scales], zero_points=[0] * channels),
        tb.T("output", out_shape, scales=[0.2], zero_points=[5]),
    ]
    path = tmp_path / ("dw_one_channel.tflite" if depthwise else "conv_wide_rows.tflite" if wide_rows
                       else "conv_wide_window.tflite")
    path.write_bytes(tb.build([tb.Sub(tensors, [tb.Op(op, [0, 1, 2], [3], options=opts)], [0], [3])]))
    return path


@pytest.mark.parametrize("target", ["cortex-m4", "cortex-m55"])
@pytest.mark.parametrize("depthwise, wide_rows", [(False, False), (True, False), (False, True)],
                         ids=["conv_wide_window", "dw_one_channel", "conv_wide_rows"])
def test_row_im2col_edge_cases(tmp_path, target, depthwise, wide_rows):
    """DSP: int16 columns; Helium: int8 columns of whole vectors, rows of up to 16 bytes as one predicated
    vector (padding stored first), longer rows 16 bytes a step."""
    model = _conv_model(tmp_path, depthwise, wide_rows)
    compiled = compile_model(model, cmsis_options(target))
    glue = "usmp_cmsis_nn_convolve_rows_nt_s8" if target == "cortex-m55" else "usmp_cmsis_nn_convolve_rows_s8"
    assert glue in functions(compiled)
    assert_matches(model, compiled, lambda c, x: run_host(c, x, sanitize=True), 3, 8)
    if not MISSING:
        from usmp.runner.baremetal import run_on_target

        assert_matches(model, compiled, lambda c, x: run_on_target(c, x, target).outputs, 2, 9)


# Helium takes other variants than the DSP cores: the row im2col into int8 columns for CMSIS-NN's int8 GEMM,
# the vectorised _opt for 3x3 depthwise, and avgpool without scratch (--kernels cmsis-nn: not USMP's own Helium
# kernels, test_helium_kernels.py)
HELIUM_MODELS = dict(QEMU_MODELS, **{
    "micro_speech_quantized": {"usmp_cmsis_nn_convolve_rows_nt_s8", "usmp_band_fully_connected_s8",
                               "usmp_cmsis_nn_softmax_s8"},
    "conv_3x3_same_relu": {"usmp_cmsis_nn_convolve_rows_nt_s8"},
    "conv_per_tensor": {"usmp_cmsis_nn_convolve_rows_nt_s8"},  # 49 pixels: one column in the last call
    "dwconv_m1_same_relu": {"usmp_cmsis_nn_depthwise_conv_s8_opt"},
    "avgpool_same": {"usmp_cmsis_nn_avgpool_s8_unbuffered"},
    "avg_pool_int16": {"usmp_cmsis_nn_avgpool_s16_unbuffered"},
})


@needs_qemu
@pytest.mark.parametrize("name", sorted(HELIUM_MODELS))
def test_helium_matches_reference(name):
    """CMSIS-NN's MVE code paths on the emulated Cortex-M55; the fully connected ones start from kernel sums
    (hello_world's and micro_speech's inputs have non-zero zero points, which the sums must hold)."""
    from usmp.runner.baremetal import run_on_target

    compiled = compile_model(MODELS[name], cmsis_options("cortex-m55"))
    assert HELIUM_MODELS[name] <= functions(compiled)
    assert_matches(MODELS[name], compiled, lambda c, x: run_on_target(c, x, "cortex-m55").outputs, 2, 13)



_SIZES_PROGRAM = r"""
#include <stdio.h>
#include <stdlib.h>
#include "arm_nnfunctions.h"
#include "arm_nnsupportfunctions.h"

int main(int argc, char **argv)
{
    int i;
    for (i = 1; i + 2 < argc; i += 3) {
        const cmsis_nn_dims input = { 1, 8, 8, atoi(argv[i]) };
        const cmsis_nn_dims filter = { 1, atoi(argv[i + 1]), atoi(argv[i + 2]), atoi(argv[i]) };
        const cmsis_nn_dims fc_filter = { atoi(argv[i]), 1, 1, 5 };
        printf("%d %d %d %d\n", (int)arm_convolve_s8_get_buffer_size_mve(&input, &filter),
               (int)arm_depthwise_conv_s8_opt_get_buffer_size_mve(&input, &filter),
               (int)arm_avgpool_s8_get_buffer_size_mve(8, atoi(argv[i])),
               (int)arm_fully_connected_s8_get_buffer_size_mve(&fc_filter));
    }
    return 0;
}
"""


def test_helium_sizes_are_cmsis_nns(tmp_path):
    """The Python MVE scratch sizes equal CMSIS-NN's own *_get_buffer_size_mve functions (built for the
    host: they are plain C), over channel counts around the 16-byte vectors and the 124-channel blocks;
    the fully connected kernel sums fit in the bias the glue hands over (one int32 per output)."""
    import subprocess

    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no host C compiler")
    if "arm_convolve_s8_get_buffer_size_mve" not in (CMSIS_NN / "Include" / "arm_nnfunctions.h").read_text():
        pytest.skip(f"CMSIS-NN at {CMSIS_NN} has no *_get_buffer_size_mve functions to compare with")
    source = tmp_path / "sizes.c"
    source.write_text(_SIZES_PROGRAM)
    units = [CMSIS_NN / "Source" / d / f for d, f in [
        ("ConvolutionFunctions", "arm_convolve_get_buffer_sizes_s8.c"),
        ("ConvolutionFunctions", "arm_depthwise_conv_get_buffer_sizes_s8.c"),
        ("PoolingFunctions", "arm_avgpool_get_buffer_sizes_s8.c"),
        ("FullyConnectedFunctions", "arm_fully_connected_get_buffer_sizes_s8.c")]]
    binary = tmp_path / "sizes"
    subprocess.run([compiler, "-std=gnu99", "-I", str(CMSIS_NN / "Include"), str(source), *map(str, units),
                    "-o", str(binary)], check=True, capture_output=True)
    shapes = [(c, h, w) for c in (1, 3, 8, 15, 16, 17, 64, 123, 124, 125, 300) for h, w in ((1, 1), (3, 3), (5, 2))]
    lines = subprocess.run([str(binary), *(str(v) for shape in shapes for v in shape)], check=True,
                           capture_output=True, text=True).stdout.split("\n")
    for (c, h, w), line in zip(shapes, lines):
        conv, depthwise, avgpool, fc = map(int, line.split())
        assert conv == cmsis_nn_sizes.convolve_s8("mve", c, h, w), (c, h, w)
        assert depthwise == cmsis_nn_sizes.depthwise_conv_s8_opt("mve", c, h, w), (c, h, w)
        assert avgpool == cmsis_nn_sizes.avgpool_s8("mve", c), c
        assert fc == 5 * 4, c  # the bias: one int32 per output row


def _depthwise_5x5_model(tmp_path: Path) -> Path:
    """DEPTHWISE_CONV_2D, multiplier 1, 5x5 SAME: arm_depthwise_conv_s8_opt with its int16 scratch."""
    import tflite

    import tflite_builder as tb

    rng = np.random.default_rng(23)
    w_scales = list(rng.uniform(0.005, 0.02, 4))
    tensors = [
        tb.T("input", (1, 6, 5, 4), scales=[0.05], zero_points=[7]),
        tb.T("filter", (1, 5, 5, 4), data=rng.integers(-127, 128, (1, 5, 5, 4)).astype(np.int8), scales=w_scales,
             zero_points=[0] * 4, axis=3),
        tb.T("bias", (4,), "int32", data=rng.integers(-900, 900, 4).astype(np.int32),
             scales=[0.05 * s for s in w_scales], zero_points=[0] * 4),
        tb.T("output", (1, 6, 5, 4), scales=[0.1], zero_points=[-20]),
    ]
    opts = tb.options("DepthwiseConv2D", Padding=0, StrideW=1, StrideH=1, DepthMultiplier=1)
    op = tb.Op(tflite.BuiltinOperator.DEPTHWISE_CONV_2D, [0, 1, 2], [3], options=opts)
    path = tmp_path / "dw_5x5.tflite"
    path.write_bytes(tb.build([tb.Sub(tensors, [op], [0], [3])]))
    return path


@needs_qemu
@pytest.mark.parametrize("target, name", [
    *(("cortex-m4", n) for n in ("dw_5x5", "conv_grouped", "conv_per_tensor", "avgpool_same")),
    *(("cortex-m55", n) for n in ("conv_grouped", "conv_per_tensor", "micro_speech_quantized")),
])
def test_scratch_is_large_enough(tmp_path, target, name):
    """With --guards, canaries after every workspace buffer (scratch included) are checked after each
    operator: a scratch smaller than the CMSIS-NN function writes fails the run."""
    from usmp.runner.baremetal import run_on_target

    model = _depthwise_5x5_model(tmp_path) if name == "dw_5x5" else MODELS[name]
    compiled = compile_model(model, cmsis_options(target, guards=True))
    assert any(b.kind == "scratch" for b in compiled.program.buffers.values())
    if name == "dw_5x5":
        assert "usmp_cmsis_nn_depthwise_conv_s8_opt" in functions(compiled)
    assert_matches(model, compiled, lambda c, x: run_on_target(c, x, target).outputs, 2, 31)
    assert_matches(model, compiled, lambda c, x: run_host(c, x, sanitize=True), 2, 32)


@needs_qemu
@pytest.mark.parametrize("name, what, short", [
    ("conv_per_tensor", "convolve_rows_nt_s8", 16),  # 4 columns 32 bytes apart, of 27: 123 of 128 written
])
def test_guards_catch_a_small_helium_scratch(monkeypatch, name, what, short):
    """The check above can fail: a Helium scratch too small for what CMSIS-NN writes trips operator 0's
    canaries. (CMSIS-NN's sizes have slack, for vector loads past the data: 16 bytes short may only be read.)"""
    from usmp.codegen.guards import GUARD_STATUS_BASE
    from usmp.runner.baremetal import run_on_target

    exact = getattr(cmsis_nn_sizes, what)
    monkeypatch.setattr(cmsis_nn_sizes, what, lambda extension, *shape: exact(extension, *shape) - short)
    compiled = compile_model(MODELS[name], cmsis_options("cortex-m55", guards=True))
    inputs = random_inputs(compiled.program.graph, np.random.default_rng(4))
    with pytest.raises(UsmpError, match=f"run returned {GUARD_STATUS_BASE}$"):
        run_on_target(compiled, inputs, "cortex-m55")
