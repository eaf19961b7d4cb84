"""Memory traffic counted in QEMU by the TCG plugin (runner/traffic.py), against hand-counted kernels, and
pools placed in the AN547's memories by their region= (runner/regions.py).

The portable kernels on the Cortex-M0 load every operand element with one byte load and store every
output element once, so their traffic per buffer follows from the loop nests; a Helium kernel's vector
load of 16 bytes is 4 accesses (32-bit transfers), not the 16 element accesses QEMU reports.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from layer_models import RELU6, Layer, write_model
from reference import reference_outputs
from usmp.cli import main as usmp_main
from usmp.compiler import CompileOptions, compile_model
from usmp.errors import UsmpError
from usmp.pools import parse_pool
from usmp.runner.regions import place_pools
from usmp.runner.targets import target_named

MISSING = [t for t in ("arm-none-eabi-gcc", "qemu-system-arm", "cc") if shutil.which(t) is None]
needs_qemu = pytest.mark.skipif(bool(MISSING), reason=f"{', '.join(MISSING)} not installed (scripts/bootstrap)")
MODELS = Path(__file__).parent / "models"
AN547_POOLS = ["dtcm:workspace:size=8k:wait=0:region=DTCM", "sram:workspace:wait=2:region=SRAM",
               "itcm:constant:size=16k:wait=0:region=ITCM", "flash:constant:wait=3:region=FLASH"]


def _run_by_buffer(model: Path, target: str, **options):
    from usmp.runner.baremetal import run_on_target

    compiled = compile_model(model, CompileOptions(cpu=target, workspace_io=True, **options))
    graph = compiled.program.graph
    rng = np.random.default_rng(0)
    inputs = [rng.integers(-128, 128, size=graph.tensors[i].shape).astype(np.int8) for i in graph.inputs]
    run = run_on_target(compiled, inputs, target, traffic="buffers")
    return compiled, run.report["buffer_traffic"]


def _buffer(compiled, arg: str, step: int = 0) -> str:
    return next(a.buffer for a in compiled.program.ops[step].args if a.name == arg)


@needs_qemu
def test_portable_add_loads_each_operand_once_and_stores_each_result_once():
    compiled, traffic = _run_by_buffer(MODELS / "add_same_shape.tflite", "cortex-m0")
    n = compiled.program.buffers[_buffer(compiled, "output")].size
    for arg in ("input1", "input2"):
        assert traffic[_buffer(compiled, arg)] == {"loads": n, "stores": 0, "bytes_read": n, "bytes_written": 0}
    assert traffic[_buffer(compiled, "output")] == {"loads": 0, "stores": n, "bytes_read": 0, "bytes_written": n}


@needs_qemu
def test_portable_convolution_reads_input_and_filter_once_per_multiply():
    """usmp_conv_s8 on a 1x1 convolution: for each output pixel and channel, each input channel's input byte
    and filter byte once; the folded bias, multiplier and shift one word per output element."""
    compiled, traffic = _run_by_buffer(MODELS / "conv_1x1.tflite", "cortex-m0", kernels="portable")
    graph = compiled.program.graph
    _, height, width, channels = graph.tensors[graph.inputs[0]].shape
    outputs = compiled.program.buffers[_buffer(compiled, "output")].size
    macs = outputs * channels
    assert traffic[_buffer(compiled, "input")] == {"loads": macs, "stores": 0, "bytes_read": macs, "bytes_written": 0}
    assert traffic[_buffer(compiled, "filter")]["loads"] == macs
    assert traffic[_buffer(compiled, "output")] == {"loads": 0, "stores": outputs, "bytes_read": 0,
                                                    "bytes_written": outputs}
    for arg in ("folded_bias", "multiplier", "shift"):
        assert traffic[_buffer(compiled, arg)] == {"loads": outputs, "stores": 0, "bytes_read": 4 * outputs,
                                                   "bytes_written": 0}


@needs_qemu
def test_vector_loads_count_32_bit_transfers(tmp_path):
    """USMP's Helium 1x1 convolution (32 input channels: whole vectors, the input its own columns) reads its
    input once per block of 4 output channels, with vector loads: one access per word, not one per byte as
    QEMU reports the elements; its outputs (4 channels a pixel, clamped: not scattered) are one word store
    each."""
    model = write_model(tmp_path / "conv_1x1_32.tflite",
                        [Layer("conv", h=6, w=6, in_ch=32, out_ch=4, activation=RELU6)])
    compiled, traffic = _run_by_buffer(model, "cortex-m55", kernels="usmp")
    assert compiled.program.ops[0].calls[0].function == "usmp_helium_conv_1x1_s8"
    size = compiled.program.buffers[_buffer(compiled, "input")].size
    assert traffic[_buffer(compiled, "input")] == {"loads": size // 4, "stores": 0, "bytes_read": size,
                                                   "bytes_written": 0}
    out = compiled.program.buffers[_buffer(compiled, "output")].size
    assert traffic[_buffer(compiled, "output")] == {"loads": 0, "stores": out // 4, "bytes_read": 0,
                                                    "bytes_written": out}


@needs_qemu
def test_stats_count_each_pool_in_its_an547_region(tmp_path, capsys):
    """`usmp run --stats --json` on the M55 with pools in DTCM, SRAM, ITCM and the QSPI flash: bit-exact, the
    pools' traffic with their wait states, the stack and the rest adding up to the total, and the wait
    cycles the sum of accesses times waits."""
    model = MODELS / "conv_3x3_same_relu.tflite"
    compiled = compile_model(model, CompileOptions())
    rng = np.random.default_rng(3)
    inputs = [rng.integers(-128, 128, size=compiled.program.graph.tensors[i].shape).astype(np.int8)
              for i in compiled.program.graph.inputs]
    np.save(tmp_path / "in.npy", inputs[0])
    arguments = ["run", str(model), "--input", str(tmp_path / "in.npy"), "--output-dir", str(tmp_path / "out"),
                 "--target", "cortex-m55", "--stats", "--json", "--kernels", "portable"]
    for pool in AN547_POOLS:
        arguments += ["--pool", pool]
    assert usmp_main(arguments) == 0
    report = json.loads(capsys.readouterr().out)
    expected = reference_outputs(model, inputs)
    assert np.array_equal(np.load(tmp_path / "out" / "output_0.npy"), expected[0])
    memory = report["memory"]
    assert {p: memory["pools"][p]["region"] for p in memory["pools"]} == {
        "dtcm": "DTCM", "sram": "SRAM", "itcm": "ITCM", "flash": "FLASH"}
    parts = [*memory["pools"].values(), memory["stack"], memory["other"]]
    for key in ("loads", "stores", "bytes_read", "bytes_written"):
        assert sum(part[key] for part in parts) == memory["total"][key] > 0
    assert memory["pools"]["itcm"]["loads"] + memory["pools"]["flash"]["loads"] > 0  # the weights
    assert memory["pools"]["itcm"]["stores"] == memory["pools"]["flash"]["stores"] == 0
    waits = sum((p["loads"] + p["stores"]) * p["wait"] for p in memory["pools"].values())
    assert report["wait_cycles"] == memory["wait_cycles"] == waits
    assert report["estimated_cycles"] == report["instructions"] + waits


def test_pools_go_to_the_an547_memories_their_regions_name():
    an547 = target_named("cortex-m55")
    dtcm, sram, itcm, flash = place_pools([parse_pool(p) for p in AN547_POOLS], an547)
    assert (dtcm.section, dtcm.size_limit) == (None, 8192)  # the image's RAM: plain .bss
    assert (sram.section, sram.size_limit) == ("SRAM", 2 * 1024 * 1024)  # NOLOAD, as Zephyr links it
    assert (itcm.section, itcm.load_section) == (None, None)  # the image's code memory: plain .rodata
    assert (flash.section, flash.load_section) == (None, "FLASH")  # read-only: loaded with the image
    copied = place_pools([parse_pool("fast:constant:region=DTCM")], an547)[0]
    assert copied.section == "DTCM"  # a constant pool in RAM: init() copies it in


@pytest.mark.parametrize("spec, message", [
    ("w:workspace:region=NOWHERE", "has no memory region 'NOWHERE' (its regions: ITCM, SRAM, DTCM, ISRAM, FLASH)"),
    ("w:workspace:region=FLASH", "region FLASH is read-only"),
    ("w:workspace:region=ITCM", "region ITCM holds the image's code"),
    ("w:workspace:size=1M:region=DTCM", "larger than region DTCM"),
])
def test_region_mistakes_are_one_line_errors(spec, message):
    with pytest.raises(UsmpError, match=message.replace("(", r"\(").replace(")", r"\)")):
        place_pools([parse_pool(spec)], target_named("cortex-m55"))
