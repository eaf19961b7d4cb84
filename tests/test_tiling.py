"""Depth-first tiling (scripts/usmp/tiling): every band schedule is bit-exact and lowers the peak."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from dependencies import CMSIS_NN_MISSING, cmsis_nn_dir
from reference import outputs_match, random_inputs, reference_outputs
from usmp.analysis.liveness import live_intervals
from usmp.compiler import CompileOptions, analyse_model, compile_model
from usmp.runner.baremetal import run_on_target
from usmp.runner.host import run_host
from usmp.tiling import chains
from usmp.tiling.chains import find_chains, step_profile, tile_program
from usmp.tiling.overlay import overlay_saving, overlay_source
from usmp.tiling.region import buffer_users, region_at
from usmp.tiling.band_rows import STRATEGIES
from usmp.tiling.fuse import fuse
from usmp.tiling.loop import BandLoop

MODELS_DIR = Path(__file__).parent / "models"
CHAINS = sorted((MODELS_DIR / "tiling").glob("*.tflite"))
PERSON = MODELS_DIR / "tflm" / "person_detect.tflite"
BENCHMARKS = Path(__file__).parents[1] / "benchmarks" / "models"
QEMU = all(shutil.which(t) for t in ("arm-none-eabi-gcc", "qemu-system-arm"))


def check(compiled, model, trials, run=run_host, seed=5):
    rng = np.random.default_rng(seed)
    for trial in range(trials):
        inputs = random_inputs(compiled.program.graph, rng)
        got = run(compiled, inputs)
        for k, (e, g) in enumerate(zip(reference_outputs(model, inputs), got)):
            assert outputs_match(e, g), f"{model.name} trial {trial} output {k}:\nexpected {e}\ngot      {g}"


def forced(monkeypatch, positions, band, strategy):
    """Compile with exactly one chain fused at `positions`, whatever the cost model would choose."""
    def fuse_only(program, mode, workspace_io=False, *_):
        return chains._apply(program, positions, band, strategy, workspace_io), []
    monkeypatch.setattr("usmp.compiler.tile_program", fuse_only)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("model", CHAINS, ids=[m.stem for m in CHAINS])
def test_every_sub_chain_and_band_is_bit_exact(model, strategy, monkeypatch):
    """Every run of two or more links, every band height, both strategies: the same values as tflite-micro."""
    program, _ = analyse_model(model, CompileOptions(tiling="off"))
    (chain,) = find_chains(program)
    tried = 0
    for i in range(len(chain) - 1):
        for j in range(i + 2, len(chain) + 1):
            region = region_at(program, chain[i:j])
            if region is None:
                continue  # e.g. a residual block cut in half: its skip tensor is read after the cut
            tried += 1
            out_h = region.params[-1]["out_h"]  # a reducing tail: its input rows
            for band in sorted({1, 2, 3, max(out_h - 1, 1)}):
                forced(monkeypatch, chain[i:j], band, strategy)
                check(compile_model(model, CompileOptions(tiling="max")), model, 1, seed=band + 10 * i + j)
    assert tried


@pytest.mark.parametrize("mode", ["auto", "max"])
@pytest.mark.parametrize("model", CHAINS + [PERSON], ids=[m.stem for m in CHAINS + [PERSON]])
def test_modes_bit_exact_and_lower(model, mode):
    """Where a mode fuses a chain, the peak is lower, its loop's state counted; no mode raises it. On the smallest
    chains a loop's fixed cost can exceed the budget's share of so few instructions (`auto`), or its state (a
    generic build's pointers are 8 bytes) what it saves (`max`): they stay whole. person_detect's chains pay."""
    off = compile_model(model, CompileOptions(tiling="off"))
    tiled = compile_model(model, CompileOptions(tiling=mode))
    check(tiled, model, 3)
    fused = any(isinstance(op, BandLoop) for op in tiled.program.ops)
    assert fused or model != PERSON
    if fused:
        assert tiled.plan.pool_sizes["workspace"] < off.plan.pool_sizes["workspace"]
    else:
        assert tiled.plan.pool_sizes["workspace"] == off.plan.pool_sizes["workspace"]


def test_person_detect_workspace():
    """MobileNetV1 0.25 at 96x96: the tensor-level bound is 55,296 bytes."""
    off = compile_model(PERSON, CompileOptions(tiling="off"))
    auto = compile_model(PERSON, CompileOptions(tiling="auto"))
    assert off.plan.pool_sizes["workspace"] == 55296
    assert auto.plan.pool_sizes["workspace"] <= 36864


def test_auto_is_the_default_and_off_changes_nothing():
    program, _ = analyse_model(PERSON, CompileOptions(tiling="off"))
    assert CompileOptions().tiling == "auto"
    assert tile_program(program, "off") == (program, [])


@pytest.mark.parametrize("budget", [0.0, 1.0, 5.0])
def test_auto_stays_within_its_budget(budget):
    """The instructions the cost model says `auto`'s chains add stay within --tiling-budget of the whole program's."""
    program, _ = analyse_model(PERSON, CompileOptions(tiling="off"))
    tiled, choices = tile_program(program, "auto", budget=budget)
    assert sum(c.extra_instructions for c in choices) <= budget / 100 * max([c.whole_instructions for c in choices] + [0])
    if choices:
        assert step_profile(tiled)[0] < step_profile(program)[0]
    else:
        assert budget == 0.0 and tiled is program


@pytest.mark.skipif(not QEMU, reason="arm-none-eabi-gcc or qemu-system-arm not installed")
@pytest.mark.parametrize("model", CHAINS, ids=[m.stem for m in CHAINS])
def test_cortex_m0(model):
    compiled = compile_model(model, CompileOptions(tiling="max"))
    check(compiled, model, 1, run=lambda c, x: run_on_target(c, x, "cortex-m0").outputs)


@pytest.mark.parametrize("text, mode", [("", "auto"), ("CONFIG_USMP_TILING_OFF=y\n", "off"),
                                        ("CONFIG_USMP_TILING_MAX=y\n", "max")])
def test_kconfig_choice(text, mode):
    from usmp.zephyr.dotconfig import parse_config_text
    from usmp.zephyr.kconfig_pools import settings_from_config

    assert settings_from_config(parse_config_text("CONFIG_USMP=y\n" + text, "prj.conf")).tiling == mode


def test_kconfig_budget():
    from usmp.zephyr.dotconfig import parse_config_text
    from usmp.zephyr.kconfig_pools import settings_from_config

    settings = settings_from_config(parse_config_text("CONFIG_USMP=y\nCONFIG_USMP_TILING_BUDGET=2\n", "prj.conf"))
    assert settings.tiling_budget == 2.0
    assert settings_from_config(parse_config_text("CONFIG_USMP=y\n", "prj.conf")).tiling_budget is None


def test_tiling_budget_option(tmp_path, capsys):
    """--tiling-budget 0 leaves every tensor whole (each loop costs something); a negative one is one line."""
    from usmp.cli import main

    assert main(["plan", str(PERSON), "--tiling-budget", "0", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["tiling"] == []
    assert main(["compile", str(PERSON), "-o", str(tmp_path / "out"), "--tiling-budget", "-1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--tiling-budget -1.0: expected a non-negative per cent" in err


def test_plan_command_lists_the_chains(capsys):
    from usmp.cli import main

    assert main(["plan", str(PERSON), "--tiling", "auto", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["tiling"] and all(t["band_bytes"] < t["whole_bytes"] for t in doc["tiling"])
    assert main(["plan", str(PERSON), "--tiling", "auto", "--no-compare"]) == 0
    table = capsys.readouterr().out
    assert "band rows" in table and "saved B" in table and "+instructions" in table
    assert main(["plan", str(PERSON), "--json"]) == 0  # auto is the default
    assert json.loads(capsys.readouterr().out)["tiling"]
    assert main(["plan", str(PERSON), "--tiling", "off", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["tiling"] == []


REDUCING = [m for m in CHAINS if m.stem.split("_")[0] in ("pooled", "mean", "sum")]


@pytest.mark.parametrize("model", REDUCING, ids=[m.stem for m in REDUCING])
def test_a_reduction_ends_the_chain_band_by_band(model):
    """A global pool, MEAN or SUM joins the chain as its last link, so its input never exists whole (these chains
    are so small that the search keeps some whole: a loop's state would cost more than it saves)."""
    program, _ = analyse_model(model, CompileOptions(tiling="off"))
    (chain,) = find_chains(program)
    assert program.ops[chain[-1]].opcode in ("AVERAGE_POOL_2D", "MEAN", "SUM")
    tiled = chains._apply(program, chain, 1, pointer=4)
    functions = {call.function for op in tiled.ops for call in op.calls}
    assert functions & {"usmp_band_sum_s8", "usmp_band_sum_f32"}
    reduced_input = program.ops[chain[-1]].args[0].buffer
    assert reduced_input not in tiled.buffers


@pytest.mark.parametrize("cpu", ["cortex-m0", "cortex-m3", "cortex-m4", "cortex-m55", "riscv32"])
def test_every_kernel_family_ends_a_chain_with_the_global_pool(cpu):
    """DS-CNN's global AVERAGE_POOL_2D is a chain's last link on the scalar, DSP and Helium cores too (its band
    sums after the family's own convolution), so the 8,000 B tensor before it never exists whole (bit-exact on
    each core: benchmarks/stack.py; the loops on every emulated core: test_stack)."""
    compiled = compile_model(BENCHMARKS / "ds_cnn_kws.tflite", CompileOptions(workspace_io=True, cpu=cpu))
    pooled = [op for op in compiled.program.ops if any(c.function == "usmp_band_sum_s8" for c in op.calls)]
    assert pooled and isinstance(pooled[0], BandLoop) and pooled[0].opcode.startswith("DEPTH_FIRST_")
    assert all(op.opcode != "AVERAGE_POOL_2D" for op in compiled.program.ops)


def test_svg_shows_the_bands(tmp_path):
    from usmp.cli import main

    svg = tmp_path / "plan.svg"
    assert main(["plan", str(PERSON), "--tiling", "auto", "--no-compare", "--svg", str(svg)]) == 0
    text = svg.read_text()
    assert "depth-first: operators [0, 1," in text and "bands of 1 rows (paced)" in text
    assert text.count('fill="#edc948"') >= 3  # the first chain's band buffers


@pytest.mark.parametrize("model", [MODELS_DIR / "tiling" / f"residual_{t}.tflite" for t in ("int8", "f32")],
                         ids=["int8", "f32"])
def test_residual_blocks_go_depth_first_as_one_region(model, monkeypatch):
    """Both joins (an identity skip and a strided 1x1 projection) and the final pool can run as one loop, with no
    whole tensor left, bit-exact; `max` picks whatever split gives the lowest peak, no higher than that."""
    program, _ = analyse_model(model, CompileOptions(tiling="off"))
    everything = list(range(len(program.ops)))
    assert region_at(program, everything) is not None
    tiled, choices = tile_program(program, "max")
    assert choices and step_profile(tiled)[0] <= step_profile(chains._apply(program, everything, 1))[0]
    check(compile_model(model, CompileOptions(tiling="max")), model, 2)
    forced(monkeypatch, everything, 1, "sliding")
    whole_loop = compile_model(model, CompileOptions(tiling="max"))
    assert all(b.kind != "tensor" for b in whole_loop.program.buffers.values())
    check(whole_loop, model, 2)


# The targets for --tiling auto: workspace at most this share of the tensor-level bound.
TARGET_SHARE = {"mobilenet_v1_025_96": 1 / 3, "ds_cnn_kws": 1 / 2, "resnet8_32": 1 / 2}


@pytest.mark.parametrize("name", sorted(TARGET_SHARE))
def test_benchmark_architectures_meet_their_targets(name):
    """MobileNetV1 0.25 at 96x96 within 1/3 of its bound, DS-CNN and ResNet-8 within 1/2, bit-exact."""
    model = BENCHMARKS / f"{name}.tflite"
    off = compile_model(model, CompileOptions(tiling="off"))
    auto = compile_model(model, CompileOptions(tiling="auto"))
    assert off.plan.pool_sizes["workspace"] == off.plan.lower_bounds["workspace"]
    assert auto.plan.pool_sizes["workspace"] <= TARGET_SHARE[name] * off.plan.pool_sizes["workspace"]
    check(auto, model, 1)


def test_workspace_io_output_overwrites_the_consumed_input():
    """person_detect's first run reads the 96x96 input top to bottom; its output goes where rows were read."""
    plain = compile_model(PERSON, CompileOptions(tiling="auto"))
    io = compile_model(PERSON, CompileOptions(tiling="auto", workspace_io=True))
    (source,) = [b for b in io.program.buffers.values() if b.kind == "input"]
    assert len(source.tensors) >= 2  # the input, the first run's output (and the next runs' written over it)
    assert io.plan.pool_sizes["workspace"] < plain.plan.pool_sizes["workspace"] + source.size
    check(io, PERSON, 2)


def _overlay(model, positions, workspace_io):
    program, _ = analyse_model(model, CompileOptions(tiling="off"))
    loop = fuse(program, positions, 1)[0]
    return program, overlay_source(program, region_at(program, positions), loop.rows, buffer_users(program),
                                   set(positions), workspace_io)


def test_overlay_lags_where_writes_would_overtake_reads():
    """DS-CNN's first convolution widens 10-byte input rows to 320-byte rows, and the depthwise convolution
    after it writes them: over the input as it is, output row 0 would overwrite input rows still to be read.
    The output starts 6,920 bytes before the input instead: the last row written while the input is still read
    (row 22, bytes up to 23 x 320 = 7,360) against the first input byte read after it (row 44 for the first
    convolution's last row, byte 440). Its buffer is 8,000 bytes, the input's 490 inside it: the whole input
    saved. A chain that narrows its rows (chain_int8: 30-byte rows to 40-byte rows at half the height) needs
    no lag; a model input qualifies only in the workspace."""
    for model, lag in ((BENCHMARKS / "ds_cnn_kws.tflite", 6920), (MODELS_DIR / "tiling" / "chain_int8.tflite", 0)):
        program, (source, found) = _overlay(model, [0, 1], True)
        assert program.buffers[source].kind == "input" and found == lag
        assert _overlay(model, [0, 1], False)[1] is None
    program, (source, lag) = _overlay(BENCHMARKS / "ds_cnn_kws.tflite", [0, 1], True)
    assert overlay_saving(program.buffers[source].size, 8000, lag) == program.buffers[source].size == 490


def test_in_place_depthwise(monkeypatch):
    """MobileNetV1's third depthwise convolution (3x3, stride 1) and the 1x1 convolution after it: 1x1 row r is
    written once the depthwise has read input rows up to r + 1, and the depthwise reads row r again for its row
    r + 1, so the output starts one input row (768 bytes) before the input: one buffer of 18,432 + 768 bytes
    instead of two of 18,432, live from the input's producer on. Bit-exact on the host and the Cortex-M3."""
    model = BENCHMARKS / "mobilenet_v1_025_96.tflite"
    program, (source, lag) = _overlay(model, [5, 6], False)
    assert lag == 768 and program.buffers[source].size == 18432
    forced(monkeypatch, [5, 6], 1, "sliding")
    compiled = compile_model(model, CompileOptions(tiling="max"))
    inside = compiled.program.buffers[source]
    host = compiled.program.buffers[inside.inside[0]]
    assert inside.inside[1] == 768 and host.size == 18432 + 768 and host.name not in compiled.program.inputs
    live = live_intervals(compiled.program)
    assert live[host.name][0] <= live[source][0] and live[host.name][1] >= live[source][1]
    check(compiled, model, 1)
    if QEMU:
        check(compiled, model, 1, run=lambda c, x: run_on_target(c, x, "cortex-m3").outputs)


@pytest.mark.skipif(cmsis_nn_dir() is None, reason=CMSIS_NN_MISSING)
def test_a_buffer_holding_an_input_keeps_its_bytes_while_it_lives():
    """DS-CNN on the M55 with CMSIS-NN: a chain's output buffer holds the chain's input (its lag), and a later
    chain's output is then written over it (two tensors: the bytes in use vary by step). The byte profile
    counts the input's bytes while it lives, and the check of the analysis refuses a profile that stops short
    of them (once the planner put a band buffer there and the M55 got wrong outputs). Bit-exact on the host
    and on the Cortex-M55."""
    from dataclasses import replace

    from usmp.analysis.liveness import check_insiders
    from usmp.errors import PlanError

    model = BENCHMARKS / "ds_cnn_kws.tflite"
    options = CompileOptions(tiling="auto", workspace_io=True, cpu="cortex-m55", cmsis_nn=str(cmsis_nn_dir()))
    compiled = compile_model(model, options)
    program = compiled.program
    (inner,) = [b for b in program.buffers.values()
                if b.inside and program.buffers[b.inside[0]].kind != "scratch"]
    host, end = program.buffers[inner.inside[0]], inner.inside[1] + inner.size
    assert len(set(host.tensors)) > 1
    check(compiled, model, 1)
    if QEMU:
        check(compiled, model, 1, run=lambda c, x: run_on_target(c, x, "cortex-m55").outputs)
    program, infos = analyse_model(model, options)  # its check passed: the analysis' profile holds the input
    first, last = live_intervals(program)[inner.name]
    short = [replace(i, profile=((first, last, end - 1),)) if i.name == host.name else i for i in infos]
    with pytest.raises(PlanError, match="internal error"):
        check_insiders(program, short)


@pytest.mark.skipif(not QEMU, reason="arm-none-eabi-gcc or qemu-system-arm not installed")
def test_workspace_io_overlay_on_cortex_m0():
    model = MODELS_DIR / "tiling" / "chain_int8.tflite"
    compiled = compile_model(model, CompileOptions(tiling="auto", workspace_io=True))
    assert any(len(b.tensors) == 2 for b in compiled.program.buffers.values() if b.kind == "input")
    check(compiled, model, 1, run=lambda c, x: run_on_target(c, x, "cortex-m0").outputs)


@pytest.mark.parametrize("model", CHAINS + [PERSON], ids=[m.stem for m in CHAINS + [PERSON]])
def test_workspace_io_bit_exact(model):
    check(compile_model(model, CompileOptions(tiling="max", workspace_io=True)), model, 2)


def _concatenation_model(path: Path, tensors: int) -> Path:
    """A 1x1 or 3x3 convolution, `tensors` - 1 branches of it, all concatenated along channels, then another."""
    import tflite
    import tflite_builder as tb
    from random_chains import _Model, _branch

    m = _Model(np.random.default_rng(7))
    x = m.activation((1, 12, 6, 4), 0.05)
    head = _branch(m, x, 4)
    branches = [_branch(m, head, 4, head.scale, head.zero_point) for _ in range(tensors - 1)]
    joined = m.activation((1, 12, 6, 4 * tensors), head.scale)
    m.tensors[joined.index].zero_points = [head.zero_point]
    m.ops.append(tb.Op(tflite.BuiltinOperator.CONCATENATION, [head.index] + [b.index for b in branches],
                       [joined.index], options=tb.options("Concatenation", Axis=3)))
    out = _branch(m, joined, 4)
    path.write_bytes(tb.build([tb.Sub(m.tensors, m.ops, [x.index], [out.index])]))
    return path


@pytest.mark.parametrize("tensors", [4, 5])
def test_a_concatenation_joins_a_chain_only_where_a_band_holds_its_inputs(tmp_path, tensors):
    """struct usmp_band has row addresses for USMP_BAND_MAX_INPUTS (4) inputs: a CONCATENATION of four tensors
    runs inside a chain, one of five stays whole (a fifth address was written past the array), both bit-exact
    with the address sanitizer on."""
    model = _concatenation_model(tmp_path / f"concat{tensors}.tflite", tensors)
    compiled = compile_model(model, CompileOptions(tiling="max"))
    loops = [op for op in compiled.program.ops if isinstance(op, BandLoop)]
    assert any(link.opcode == "CONCATENATION" for op in loops for link in op.links) == (tensors <= 4)
    check(compiled, model, 2, run=lambda c, x: run_host(c, x, sanitize=True))
