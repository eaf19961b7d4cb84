"""USMP's float32 kernels (kernels/fpu/ on FPU cores, kernels/helium/*_f32.c on the M55) against tflite-micro, the
hard- and soft-float targets, and the float ABI a Zephyr build's Kconfig gives the compiler's --cpu."""
from __future__ import annotations

import shutil

import numpy as np
import pytest

from reference import TEST_MODELS, outputs_match, random_inputs, reference_outputs
from usmp.compiler import CompileOptions, compile_model
from usmp.runner.targets import TARGETS

MODELS = [TEST_MODELS / f"float_kernels_{name}.tflite" for name in ("blocks", "dilated", "relu_n1_to_1")]
MISSING = [t for t in ("arm-none-eabi-gcc", "qemu-system-arm") if shutil.which(t) is None]
needs_qemu = pytest.mark.skipif(bool(MISSING), reason=f"{', '.join(MISSING)} not installed")
FAMILY = {"cortex-m4": "usmp_fpu", "cortex-m7": "usmp_fpu", "cortex-m33": "usmp_fpu", "cortex-m55": "usmp_helium"}


def _check(model, target: str | None, cpu: str, seed: int = 5):
    compiled = compile_model(model, CompileOptions(cpu=cpu, kernels="usmp"))
    inputs = random_inputs(compiled.program.graph, np.random.default_rng(seed))
    if target is None:
        from usmp.runner.host import run_host
        outputs = run_host(compiled, inputs, sanitize=True)
    else:
        from usmp.runner.baremetal import run_on_target
        outputs = run_on_target(compiled, inputs, target).outputs
    for k, (e, g) in enumerate(zip(reference_outputs(model, inputs), outputs)):
        assert outputs_match(e, g), f"{model.name} on {target or 'host'} output {k}: max error {np.abs(e - g).max()}"
    return compiled


def _kernels_called(compiled) -> set[str]:
    return {call.function for op in compiled.program.ops for call in op.calls}


@pytest.mark.parametrize("cpu", ["cortex-m4", "cortex-m55"])
def test_float_kernels_in_c_on_the_host(cpu):
    """The kernels' plain C (what a core without the instructions would run) and the constants' layout, under
    the sanitizers."""
    for model in MODELS:
        compiled = _check(model, None, cpu)
        assert any(f.startswith(FAMILY[cpu]) for f in _kernels_called(compiled)), model.name


@needs_qemu
@pytest.mark.parametrize("target", ["cortex-m4", "cortex-m7", "cortex-m33", "cortex-m55"])
def test_float_kernels_on_the_core(target):
    """FPv4 (compares for the clamp), FPv5 single and double precision units (VMAXNM), Helium's float lanes."""
    for model in MODELS:
        called = _kernels_called(_check(model, target, target))
        mine = {f for f in called if f.startswith(FAMILY[target])}
        assert {f"{FAMILY[target]}_conv_f32", f"{FAMILY[target]}_depthwise_f32"} <= mine or \
            model.name == "float_kernels_relu_n1_to_1.tflite", (model.name, called)
        assert not {"usmp_conv_f32", "usmp_depthwise_conv_f32", "usmp_fully_connected_f32"} & called, called


def test_targets_float_abi():
    """Cores with an FPU build hard-float with their FPU; the +nofp parts soft-float, named as GCC names them."""
    fpus = {"cortex-m4": "fpv4-sp-d16", "cortex-m7": "fpv5-d16", "cortex-m33": "fpv5-sp-d16"}
    for core, fpu in fpus.items():
        assert TARGETS[core].core_flags == (f"-mcpu={core}", "-mthumb", "-mfloat-abi=hard", f"-mfpu={fpu}")
        soft = TARGETS[f"{core}+nofp"]
        assert soft.core_flags == (f"-mcpu={core}+nofp", "-mthumb", "-mfloat-abi=soft")
        assert (soft.cpu, soft.machine) == (f"{core}+nofp", TARGETS[core].machine)
    assert "-mfloat-abi=hard" in TARGETS["cortex-m55"].core_flags
    assert "-mfloat-abi=soft" in TARGETS["cortex-m3"].core_flags


@needs_qemu
def test_nofp_part_runs_soft_float():
    """A part without an FPU: soft-float ABI (newlib's nofp multilib links), the portable float kernels, no FPU
    instruction in the image (QEMU's core would run one, a real part would fault)."""
    import subprocess

    from usmp.runner.baremetal import build_image

    model = MODELS[0]
    compiled = _check(model, "cortex-m4+nofp", "cortex-m4+nofp")
    assert not any(f.startswith("usmp_fpu") for f in _kernels_called(compiled))
    elf = build_image(compiled, TARGETS["cortex-m4+nofp"]).elf
    listing = subprocess.run(["arm-none-eabi-objdump", "-d", str(elf)], capture_output=True, text=True).stdout
    fpu = [line for line in listing.splitlines() if any(f"\t{op}" in line for op in (
        "vldr", "vstr", "vldm", "vstm", "vpush", "vpop", "vmov", "vfma", "vmul", "vadd", "vcmp", "vmrs"))]
    assert not fpu, fpu[:3]


@pytest.mark.parametrize("lines, cpu", [
    ("CONFIG_CPU_CORTEX_M4=y\nCONFIG_FPU=y", "cortex-m4"),
    ("CONFIG_CPU_CORTEX_M4=y", "cortex-m4+nofp"),  # Zephyr builds -mfloat-abi=soft: no FPU instruction may run
    ("CONFIG_CPU_CORTEX_M7=y\nCONFIG_FPU=y\nCONFIG_FP_SOFTABI=y", "cortex-m7"),  # softfp: the FPU runs
    ("CONFIG_CPU_CORTEX_M7=y\nCONFIG_FPU=y\nCONFIG_FP_HARDABI=y", "cortex-m7"),
    ("CONFIG_CPU_CORTEX_M33=y\nCONFIG_ARMV8_M_DSP=y\nCONFIG_FPU=y", "cortex-m33"),
    ("CONFIG_CPU_CORTEX_M33=y\nCONFIG_ARMV8_M_DSP=y", "cortex-m33+nofp"),
    ("CONFIG_CPU_CORTEX_M33=y", "generic"),  # -mcpu=cortex-m33+nodsp+nofp: no DSP, no FPU
    ("CONFIG_CPU_CORTEX_M33=y\nCONFIG_FPU=y", "cortex-m33+nodsp"),  # Zephyr's AN521: the FPU, no DSP
    ("CONFIG_CPU_CORTEX_M55=y\nCONFIG_ARMV8_M_DSP=y\nCONFIG_ARMV8_1_M_MVEI=y\nCONFIG_FPU=y", "cortex-m55"),
    # without an FPU GCC builds with the soft-float ABI, which has no Helium: the DSP extension only
    ("CONFIG_CPU_CORTEX_M55=y\nCONFIG_ARMV8_M_DSP=y\nCONFIG_ARMV8_1_M_MVEI=y", "cortex-m33+nofp"),
    ("CONFIG_CPU_CORTEX_M55=y\nCONFIG_ARMV8_M_DSP=y\nCONFIG_FPU=y", "cortex-m33"),  # no Helium: DSP and the FPU
    ("CONFIG_CPU_CORTEX_M0=y", "cortex-m0"),
    ("", "generic"),
])
def test_zephyr_core_gives_the_cpu(lines, cpu):
    from usmp.zephyr.dotconfig import parse_config_text
    from usmp.zephyr.kconfig_pools import settings_from_config

    assert settings_from_config(parse_config_text(f"CONFIG_USMP=y\n{lines}\n", "prj.conf")).cpu == cpu
