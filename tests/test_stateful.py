"""Models with state (tests/models/stateful/): whole sequences, bit-exact with TFLite Micro.

Each stream is at least 20 inferences long and is compared with one
TFLite Micro interpreter invoked as many times (its variables carry over),
then restarted with reset() for 20 more, on the host and on the emulated
Cortex-M0 and M3. Also: the generated API, the state pool, and the errors.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys

import numpy as np
import pytest

import tflite_builder as tb
from reference import outputs_match
from sequences import STATEFUL_MODELS_DIR, mismatched_steps, random_sequence, reference_sequence, \
    restarted_reference, stateful_models
from usmp.compiler import CompileOptions, compile_model
from usmp.errors import UsmpError
from usmp.pools import PoolSpec
from usmp.runner.host import run_host

MODELS = stateful_models()
STEPS = 24
RESTART = STEPS  # reset() before this step; STEPS more follow
ZERO_INITIAL = STATEFUL_MODELS_DIR / "kws_stream.tflite"  # initial values are zero points
MISSING_ARM = [t for t in ("arm-none-eabi-gcc", "arm-none-eabi-nm", "qemu-system-arm") if shutil.which(t) is None]


def sequence(compiled, seed: int, steps: int = 2 * STEPS):
    return random_sequence(compiled.program.graph, steps, np.random.default_rng(seed))


def assert_sequence_matches(expected, got, what: str) -> None:
    bad = mismatched_steps(expected, got, outputs_match)
    assert not bad, f"{what}: steps {bad} differ from TFLite Micro; first: expected {expected[0][bad[0]]}, " \
                    f"got {got[0][bad[0]]}"


@pytest.mark.parametrize("model", MODELS, ids=[m.stem for m in MODELS])
def test_host_sequence_and_restart(model):
    compiled = compile_model(model)
    inputs = sequence(compiled, 1)
    got = run_host(compiled, inputs, steps=2 * STEPS, reset_before=RESTART)
    assert_sequence_matches(restarted_reference(model, inputs, RESTART), got, model.name)


def test_restart_matches_tflite_micro_reset_when_initial_values_are_zero_points():
    compiled = compile_model(ZERO_INITIAL)
    inputs = sequence(compiled, 2)
    got = run_host(compiled, inputs, steps=2 * STEPS, reset_before=RESTART)
    assert_sequence_matches(reference_sequence(ZERO_INITIAL, inputs, reset_before=RESTART), got, "reset")


def test_state_is_carried():
    """Not a stateless model in disguise: the same frame gives different outputs as the ring buffers fill."""
    compiled = compile_model(ZERO_INITIAL)
    frame = sequence(compiled, 3, 1)[0]
    got = run_host(compiled, [np.repeat(frame, 4, axis=0)], steps=4)[0]
    assert len({g.tobytes() for g in got}) > 1


@pytest.mark.parametrize("model", MODELS, ids=[m.stem for m in MODELS])
def test_sanitizers_clean(model):
    compiled = compile_model(model)
    inputs = sequence(compiled, 4, 6)
    got = run_host(compiled, inputs, steps=6, reset_before=3, sanitize=True)
    assert_sequence_matches(restarted_reference(model, inputs, 3), got, model.name)


@pytest.mark.parametrize("options", [
    dict(user_pools=True), dict(workspace_io=True), dict(workspace_io=True, user_pools=True),
    dict(reorder=True), dict(guards=True), dict(algorithm="optimal"),
], ids=["user_pools", "workspace_io", "workspace_io_user_pools", "reorder", "guards", "optimal"])
def test_compile_options(options):
    model = STATEFUL_MODELS_DIR / "kws_stream_init.tflite"
    compiled = compile_model(model, CompileOptions(**options))
    inputs = sequence(compiled, 5, 2 * STEPS)
    got = run_host(compiled, inputs, steps=2 * STEPS, reset_before=RESTART)
    assert_sequence_matches(restarted_reference(model, inputs, RESTART), got, str(options))


@pytest.mark.skipif(bool(MISSING_ARM), reason=f"{', '.join(MISSING_ARM)} not installed")
@pytest.mark.parametrize("target", ["cortex-m0", "cortex-m3"])
@pytest.mark.parametrize("model", MODELS, ids=[m.stem for m in MODELS])
def test_cortex_m_sequence_and_restart(model, target):
    from usmp.runner.cortex_m import run_cortex_m

    compiled = compile_model(model)
    inputs = sequence(compiled, 6)
    run = run_cortex_m(compiled, inputs, target, steps=2 * STEPS, reset_before=RESTART)
    assert_sequence_matches(restarted_reference(model, inputs, RESTART), run.outputs, f"{model.name} on {target}")
    assert run.report["ram_bytes"]["pools"]["state"] == compiled.layout.pool("state").size


def test_state_pool_is_planned_apart_and_live_throughout():
    compiled = compile_model(ZERO_INITIAL)
    program, placements = compiled.program, compiled.plan.placements
    state = program.state_buffers
    assert len(state) == 2
    assert {placements[name][0] for name in state} == {"state"}
    assert all(placements[name][0] == "workspace" for name, b in program.buffers.items()
               if b.kind in ("tensor", "scratch"))
    assert compiled.layout.pool("state").size == sum(program.buffers[name].size for name in state)
    document = json.loads(compiled.files["kws_stream_plan.json"])
    assert {p["name"]: p["kind"] for p in document["pools"]}["state"] == "state"
    assert document["state_bytes"] == compiled.layout.pool("state").size
    rows = [b for b in document["buffers"] if b["kind"] == "state"]
    assert len(rows) == 2 and all((b["first_step"], b["last_step"]) == (0, document["steps"] - 1) for b in rows)


def test_ring_buffers_need_no_copies():
    """READ_VARIABLE results are views of the state and the slices are computed straight into it."""
    compiled = compile_model(ZERO_INITIAL)
    opcodes = [op.opcode for op in compiled.program.ops]
    assert "READ_VARIABLE" not in opcodes and "ASSIGN_VARIABLE" not in opcodes
    writers = {arg.buffer for op in compiled.program.ops if op.opcode == "STRIDED_SLICE"
               for arg in op.args if arg.writable}
    assert writers == set(compiled.program.state_buffers)


def test_generated_api():
    header = compile_model(ZERO_INITIAL).files["kws_stream.h"]
    assert "int32_t usmp_kws_stream_init(void);" in header
    assert "int32_t usmp_kws_stream_reset(void);" in header
    assert "USMP_KWS_STREAM_STATE_POOL_SIZE" in header
    assert "Call order: usmp_kws_stream_init() once" in header
    user = compile_model(ZERO_INITIAL, CompileOptions(user_pools=True)).files["kws_stream.h"]
    assert "int32_t usmp_kws_stream_init(struct usmp_kws_stream_workspace_pools *pools);" in user
    assert "\tuint8_t *state;" in user


def test_stateless_api_unchanged():
    from reference import test_models

    model = next(m for m in test_models() if m.stem == "add_same_shape")
    files = compile_model(model).files
    assert "_init(" not in files["add_same_shape.h"] and "STATE" not in files["add_same_shape.h"]
    assert "_initialised" not in files["add_same_shape.c"]


def test_run_refused_before_init(tmp_path):
    """run() returns -2 until init() has given the variables their values."""
    compiled = compile_model(ZERO_INITIAL)
    for name, text in compiled.files.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "main.c").write_text(
        '#include <stdio.h>\n#include "kws_stream.h"\n'
        'int main(void) { static int8_t in[10], out[4]; struct usmp_kws_stream_inputs i = { .serving_default_frame_0 = in };\n'
        '  struct usmp_kws_stream_outputs o = { .statefulpartitionedcall_0 = out };\n'
        '  int a = usmp_kws_stream_run(&i, &o); int b = usmp_kws_stream_init(); int c = usmp_kws_stream_run(&i, &o);\n'
        '  printf("%d %d %d\\n", a, b, c); return 0; }\n')
    from usmp.paths import KERNELS_INCLUDE_DIR, KERNELS_SRC_DIR

    sources = [str(p) for p in tmp_path.glob("*.c")] + [str(p) for p in KERNELS_SRC_DIR.glob("*.c")]
    subprocess.run(["cc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-I", str(tmp_path), "-I",
                    str(KERNELS_INCLUDE_DIR), *sources, "-o", str(tmp_path / "a.out")], check=True)
    done = subprocess.run([str(tmp_path / "a.out")], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["-2", "0", "0"]


def test_state_pool_too_small():
    pools = [PoolSpec("workspace", "workspace"), PoolSpec("constants", "constant"),
             PoolSpec("vars", "state", size_limit=16)]
    with pytest.raises(UsmpError, match="'vars'.*16"):
        compile_model(ZERO_INITIAL, CompileOptions(pools=pools))


def test_named_state_pool_is_used():
    pools = [PoolSpec("workspace", "workspace"), PoolSpec("constants", "constant"), PoolSpec("vars", "state")]
    compiled = compile_model(ZERO_INITIAL, CompileOptions(pools=pools))
    assert [p.spec.name for p in compiled.layout.pools] == ["workspace", "constants", "vars"]
    assert {compiled.plan.placements[n][0] for n in compiled.program.state_buffers} == {"vars"}


# -- the command line ------------------------------------------------------------------------


def usmp(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "usmp", *args], capture_output=True, text=True)


def test_cli_steps(tmp_path):
    compiled = compile_model(ZERO_INITIAL)
    inputs = sequence(compiled, 7, 20)
    np.save(tmp_path / "frames.npy", inputs[0])
    done = usmp("run", str(ZERO_INITIAL), "--steps", "20", "--input", str(tmp_path / "frames.npy"),
                "--output-dir", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    got = [np.load(tmp_path / "out" / "output_0.npy")]
    assert got[0].shape == (20, 1, 4)
    assert_sequence_matches(reference_sequence(ZERO_INITIAL, inputs), got, "usmp run --steps")


def test_cli_steps_on_a_stateless_model(tmp_path):
    from reference import reference_outputs, test_models

    model = next(m for m in test_models() if m.stem == "add_same_shape")
    compiled = compile_model(model)
    inputs = sequence(compiled, 8, 3)
    paths = []
    for i, array in enumerate(inputs):
        paths += ["--input", str(tmp_path / f"in{i}.npy")]
        np.save(tmp_path / f"in{i}.npy", array)
    done = usmp("run", str(model), "--steps", "3", *paths, "--output-dir", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    got = np.load(tmp_path / "out" / "output_0.npy")
    for k in range(3):
        assert outputs_match(reference_outputs(model, [a[k] for a in inputs])[0], got[k])


def test_cli_steps_needs_stacked_inputs(tmp_path):
    np.save(tmp_path / "frames.npy", np.zeros((5, 1, 1, 10), np.int8))
    done = usmp("run", str(ZERO_INITIAL), "--steps", "6", "--input", str(tmp_path / "frames.npy"),
                "--output-dir", str(tmp_path / "out"))
    assert done.returncode == 2 and "--steps 6 needs 6 inputs" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_cli_pool_kind_state(tmp_path):
    done = usmp("compile", str(ZERO_INITIAL), "-o", str(tmp_path / "out"), "--pool", "ws:workspace",
                "--pool", "c:constant", "--pool", "vars:state:size=64")
    assert done.returncode == 0, done.stderr
    assert "USMP_KWS_STREAM_VARS_POOL_SIZE 36" in (tmp_path / "out" / "kws_stream.h").read_text()


# -- models that are refused ------------------------------------------------------------------

OP = __import__("tflite").BuiltinOperator
BO = __import__("tflite").BuiltinOptions


def var_handle(name: str):
    import tflite

    def options(b):
        shared = b.CreateString(name)
        tflite.VarHandleOptionsStart(b)
        tflite.VarHandleOptionsAddSharedName(b, shared)
        return tflite.VarHandleOptionsEnd(b)

    return (BO.VarHandleOptions, options)


def call_once(index: int):
    import tflite

    def options(b):
        tflite.CallOnceOptionsStart(b)
        tflite.CallOnceOptionsAddInitSubgraphIndex(b, index)
        return tflite.CallOnceOptionsEnd(b)

    return (BO.CallOnceOptions, options)


def stateful_subgraphs(read_shape=(1, 4), init: bool = True, init_shape=(1, 4), extra_main=()):
    """main: x -> ADD(x, READ(v)) -> y, ASSIGN(v, y); init subgraph: ASSIGN(v, constant)."""
    q = dict(scales=[0.05], zero_points=[0])
    main = tb.Sub([
        tb.T("x", (1, 4), "int8", **q), tb.T("v_handle", (), "resource"), tb.T("v_value", read_shape, "int8", **q),
        tb.T("y", (1, 4), "int8", **q),
    ], [
        *([tb.Op(OP.CALL_ONCE, [], [], options=call_once(1))] if init else []),
        tb.Op(OP.VAR_HANDLE, [], [1], options=var_handle("v")),
        tb.Op(OP.READ_VARIABLE, [1], [2]),
        tb.Op(OP.ADD, [0, 2], [3]),
        tb.Op(OP.ASSIGN_VARIABLE, [1, 3], []),
        *extra_main,
    ], [0], [3])
    subs = [main]
    if init:
        subs.append(tb.Sub([tb.T("h", (), "resource"),
                            tb.T("c", init_shape, "int8", data=np.ones(init_shape, np.int8), **q)],
                           [tb.Op(OP.VAR_HANDLE, [], [0], options=var_handle("v")),
                            tb.Op(OP.ASSIGN_VARIABLE, [0, 1], [])], [], []))
    return subs


def test_hand_built_accumulator_matches_tflite_micro(tmp_path):
    """y = x + v; v = y: the state is read by an ADD and the assignment is computed in place."""
    model = tmp_path / "accumulator.tflite"
    model.write_bytes(tb.build(stateful_subgraphs()))
    compiled = compile_model(model)
    inputs = [np.random.default_rng(9).integers(-10, 11, (30, 1, 4)).astype(np.int8)]
    got = run_host(compiled, inputs, steps=30)
    assert_sequence_matches(reference_sequence(model, inputs), got, "accumulator")


def refused(tmp_path, subgraphs, *fragments):
    from test_import_errors import compile_bytes

    return compile_bytes(tmp_path, tb.build(subgraphs), *fragments)


def test_read_before_assignment_without_initial_value(tmp_path):
    refused(tmp_path, stateful_subgraphs(init=False), "operator 1 (READ_VARIABLE)", "variable 'v'",
            "before any assignment")


def test_handle_shared_by_mismatched_shapes(tmp_path):
    refused(tmp_path, stateful_subgraphs(init_shape=(1, 5)), "variable 'v'", "int8[1, 4]", "int8[1, 5]")


def test_call_is_refused_by_name_and_index(tmp_path):
    subs = stateful_subgraphs(extra_main=[tb.Op(OP.CALL, [0], [4])])
    subs[0].tensors.append(tb.T("z", (1, 4), "int8", scales=[0.05]))
    refused(tmp_path, subs, "operator 5 (CALL)", "control flow")


@pytest.mark.parametrize("opcode,role", [("IF", "then branch"), ("WHILE", "loop condition")])
def test_if_and_while_without_their_subgraphs_are_refused_by_name_and_index(tmp_path, opcode, role):
    """IF and WHILE compile (tests/test_control_flow.py); without an options table they name no subgraph."""
    subs = stateful_subgraphs(extra_main=[tb.Op(getattr(OP, opcode), [0], [4])])
    subs[0].tensors.append(tb.T("z", (1, 4), "int8", scales=[0.05]))
    refused(tmp_path, subs, f"operator 5 ({opcode}) runs subgraph None as its {role}")


def test_subgraph_not_run_by_call_once(tmp_path):
    refused(tmp_path, [tb.fc_subgraph(), tb.fc_subgraph()], "2 subgraphs", "subgraph 1 is not run by CALL_ONCE, IF or WHILE")


def test_initialiser_that_computes_is_refused(tmp_path):
    subs = stateful_subgraphs()
    subs[1].tensors.append(tb.T("d", (1, 4), "int8", scales=[0.05]))
    subs[1].ops.append(tb.Op(OP.ADD, [1, 1], [2]))
    refused(tmp_path, subs, "subgraph 1 operator 2 (ADD)", "initialiser")


GROUP_MAIN = r"""
#include <stdio.h>
#include "usmp_group_pair.h"

int main(void)
{
	static int8_t frames[%(steps)d][10] = { %(frames)s };
	int8_t frame_out[4], a[%(n)d], b[%(n)d], sum[%(n)d];
	struct usmp_kws_stream_inputs ki = { .serving_default_frame_0 = frames[0] };
	struct usmp_kws_stream_outputs ko = { .statefulpartitionedcall_0 = frame_out };
	struct usmp_add_same_shape_inputs ai = { %(add_inputs)s };
	struct usmp_add_same_shape_outputs ao = { %(add_outputs)s };
	int step, i;

	if (usmp_kws_stream_init(&usmp_group_pair_kws_stream_pools) != 0) return 1;
	for (step = 0; step < %(steps)d; step++) {
		ki.serving_default_frame_0 = frames[step];
		if (usmp_kws_stream_run(&ki, &ko, &usmp_group_pair_kws_stream_pools) != 0) return 2;
		for (i = 0; i < %(n)d; i++) { a[i] = (int8_t)(i + step); b[i] = (int8_t)(3 * i - step); }
		/* the stateless member reuses the shared workspace between the stream's steps */
		if (usmp_add_same_shape_run(&ai, &ao, &usmp_group_pair_add_same_shape_pools) != 0) return 3;
		for (i = 0; i < 4; i++) printf("%%d ", frame_out[i]);
		printf("\n");
	}
	(void)sum;
	return 0;
}
"""


def test_shared_workspace_group_keeps_each_members_state(tmp_path):
    """A SHARED_WORKSPACE group shares workspace only: the stream's state survives the other model's runs."""
    from usmp.compiler import compile_to_directory
    from usmp.paths import KERNELS_INCLUDE_DIR, KERNELS_SRC_DIR
    from usmp.zephyr.group import group_files
    from usmp.zephyr.kconfig_pools import settings_from_config
    from usmp.zephyr.dotconfig import parse_config_text
    from usmp.zephyr.placement import place_pools
    from reference import test_models

    add_model = next(m for m in test_models() if m.stem == "add_same_shape")
    options = CompileOptions(user_pools=True)
    add = compile_to_directory(add_model, tmp_path, options)
    kws = compile_to_directory(ZERO_INITIAL, tmp_path, options)
    settings = settings_from_config(parse_config_text("CONFIG_USMP=y\n"))
    for name, text in group_files("pair", ["kws_stream", "add_same_shape"], place_pools(settings.pools, None)).items():
        (tmp_path / name).write_text(text)
    assert "usmp_group_pair_kws_stream_state_pool" in (tmp_path / "usmp_group_pair.c").read_text()
    inputs = sequence(kws, 10, 20)
    n = add.program.graph.tensors[add.program.graph.inputs[0]].num_elements
    members = [m for m in add.files["add_same_shape.h"].split("struct usmp_add_same_shape_inputs {")[1]
               .split("};")[0].split(";") if "*" in m]
    names = [m.split("*")[1].strip() for m in members]
    (tmp_path / "main.c").write_text(GROUP_MAIN % dict(
        steps=20, n=n, frames=", ".join("{" + ", ".join(str(int(v)) for v in f.ravel()) + "}" for f in inputs[0]),
        add_inputs=", ".join(f".{name} = {'a' if k == 0 else 'b'}" for k, name in enumerate(names)),
        add_outputs=f".{add.files['add_same_shape.h'].split('struct usmp_add_same_shape_outputs {')[1].split('*')[1].split(';')[0].strip()} = sum"))
    sources = [str(p) for p in tmp_path.glob("*.c")] + [str(p) for p in KERNELS_SRC_DIR.glob("*.c")]
    subprocess.run(["cc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-I", str(tmp_path), "-I",
                    str(KERNELS_INCLUDE_DIR), *sources, "-o", str(tmp_path / "a.out")], check=True)
    done = subprocess.run([str(tmp_path / "a.out")], capture_output=True, text=True, check=True)
    got = [np.array([[int(v) for v in line.split()] for line in done.stdout.strip().splitlines()], np.int8)
           .reshape(20, 1, 4)]
    assert_sequence_matches(reference_sequence(ZERO_INITIAL, inputs), got, "group member")


def test_kconfig_state_pool_pinned_to_a_noload_region(tmp_path):
    """A Kconfig slot of kind state in a devicetree region: the state array goes in its linker section."""
    from zephyr_helpers import DTS

    config = tmp_path / "prj.conf"
    config.write_text('CONFIG_USMP=y\nCONFIG_USMP_POOL2=y\nCONFIG_USMP_POOL2_NAME="vars"\n'
                      'CONFIG_USMP_POOL2_KIND_STATE=y\nCONFIG_USMP_POOL2_REGION="usmp_pool2"\n')
    done = usmp("compile", str(ZERO_INITIAL), "-o", str(tmp_path / "out"), "--dotconfig", str(config),
                "--devicetree", str(DTS))
    assert done.returncode == 0, done.stderr
    source = (tmp_path / "out" / "kws_stream.c").read_text()
    assert 'usmp_kws_stream_vars_pool[36] __attribute__((section("SRAM1"), aligned(16)))' in source
    assert "usmp_kws_stream_workspace_pool[" in source and 'workspace_pool[68] __attribute__((aligned' in source


@pytest.mark.parametrize("flags", [[], ["--workspace-io"]], ids=["default", "workspace_io"])
def test_reference_check_restarts_the_stream(tmp_path, flags):
    """usmp reference --check on a model with state: the check resets, runs one step and finds no mismatch."""
    from usmp.paths import KERNELS_INCLUDE_DIR, KERNELS_SRC_DIR

    model = STATEFUL_MODELS_DIR / "kws_stream_init.tflite"
    out = tmp_path / "out"
    for command in (["reference", str(model), "-o", str(out), "--check"], ["compile", str(model), "-o", str(out)]):
        done = usmp(*command, *flags)
        assert done.returncode == 0, done.stderr
    (out / "main.c").write_text('#include <stdio.h>\n#include "kws_stream_init_reference.h"\n'
                                'int main(void) { int a = (int)usmp_kws_stream_init_reference_check();\n'
                                '  int b = (int)usmp_kws_stream_init_reference_check(); printf("%d %d\\n", a, b); return 0; }\n')
    sources = [str(p) for p in out.glob("*.c")] + [str(p) for p in KERNELS_SRC_DIR.glob("*.c")]
    subprocess.run(["cc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-I", str(out), "-I", str(KERNELS_INCLUDE_DIR),
                    *sources, "-o", str(tmp_path / "a.out")], check=True)
    done = subprocess.run([str(tmp_path / "a.out")], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["0", "0"]


def test_state_pool_too_small_on_the_command_line(tmp_path):
    done = usmp("compile", str(ZERO_INITIAL), "-o", str(tmp_path / "out"), "--pool", "ws:workspace",
                "--pool", "c:constant", "--pool", "vars:state:size=20")
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "'vars'" in done.stderr and "20" in done.stderr
    assert not (tmp_path / "out").exists()


def test_variable_tensor_is_state_holding_its_zero_point(tmp_path):
    """A tensor marked is_variable (the state input of SVDF or LSTM) is a state buffer that
    starts at its zero point, as TFLite Micro resets it; here an ADD reads it."""
    q = dict(scales=[0.05])
    sub = tb.Sub([tb.T("x", (1, 4), "int8", **q), tb.T("v", (1, 4), "int8", zero_points=[7], variable=True, **q),
                  tb.T("y", (1, 4), "int8", zero_points=[-3], **q)],
                 [tb.Op(OP.ADD, [0, 1], [2])], [0], [2])
    model = tmp_path / "variable_tensor.tflite"
    model.write_bytes(tb.build([sub]))
    compiled = compile_model(model)
    [state] = compiled.program.state_buffers
    assert compiled.program.buffers[state].data == bytes([7]) * 4
    inputs = [np.random.default_rng(12).integers(-128, 128, (5, 1, 4)).astype(np.int8)]
    got = run_host(compiled, inputs, steps=5)
    assert_sequence_matches(reference_sequence(model, inputs), got, "variable tensor")


def hand_built(tmp_path, name: str, tensors, ops, outputs):
    """main: the given ops after CALL_ONCE and VAR_HANDLE (tensor 1, variable 'v' = ones); input x is tensor 0."""
    q = dict(scales=[0.05], zero_points=[0])
    main = tb.Sub([tb.T("x", (1, 4), "int8", **q), tb.T("h", (), "resource"),
                   *[tb.T(t, (1, 4), "int8", **q) for t in tensors]],
                  [tb.Op(OP.CALL_ONCE, [], [], options=call_once(1)), tb.Op(OP.VAR_HANDLE, [], [1], options=var_handle("v")),
                   *ops], [0], outputs)
    init = stateful_subgraphs()[1]
    model = tmp_path / f"{name}.tflite"
    model.write_bytes(tb.build([main, init]))
    return model


def check_hand_built(model, steps: int = 12):
    compiled = compile_model(model)
    inputs = [np.random.default_rng(13).integers(-20, 21, (steps, 1, 4)).astype(np.int8)]
    got = run_host(compiled, inputs, steps=steps, reset_before=steps // 2)
    assert_sequence_matches(restarted_reference(model, inputs, steps // 2), got, model.stem)
    return [op.opcode for op in compiled.program.ops]


def test_read_used_after_the_assignment_is_a_copy(tmp_path):
    """r = READ(v); v = x; y = x + r: r must keep the old value, so it cannot be a view of v."""
    model = hand_built(tmp_path, "read_after_assign", ["r", "y"], [
        tb.Op(OP.READ_VARIABLE, [1], [2]), tb.Op(OP.ASSIGN_VARIABLE, [1, 0], []), tb.Op(OP.ADD, [0, 2], [3])], [3])
    assert check_hand_built(model) == ["READ_VARIABLE", "ASSIGN_VARIABLE", "ADD"]


def test_read_between_producer_and_assignment_keeps_the_copy(tmp_path):
    """s = x + READ(v); r2 = READ(v); v = s; y = r2 + s: s cannot be computed into v before r2 is read."""
    model = hand_built(tmp_path, "read_between", ["r1", "s", "r2", "y"], [
        tb.Op(OP.READ_VARIABLE, [1], [2]), tb.Op(OP.ADD, [0, 2], [3]), tb.Op(OP.READ_VARIABLE, [1], [4]),
        tb.Op(OP.ASSIGN_VARIABLE, [1, 3], []), tb.Op(OP.ADD, [4, 3], [5])], [5])
    assert check_hand_built(model) == ["ADD", "READ_VARIABLE", "ASSIGN_VARIABLE", "ADD"]


def test_value_computed_in_place(tmp_path):
    """s = x + READ(v) feeds only the assignment: the ADD writes straight into v (no copy), y reads v afterwards."""
    model = hand_built(tmp_path, "in_place", ["r", "s", "r2", "y"], [
        tb.Op(OP.READ_VARIABLE, [1], [2]), tb.Op(OP.ADD, [0, 2], [3]), tb.Op(OP.ASSIGN_VARIABLE, [1, 3], []),
        tb.Op(OP.READ_VARIABLE, [1], [4]), tb.Op(OP.ADD, [4, 0], [5])], [5])
    assert check_hand_built(model) == ["READ_VARIABLE", "ADD", "ADD"]
