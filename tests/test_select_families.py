"""Selection as data (scripts/usmp/select/): every family that applies to the core and --kernels offers a
rewrite per portable call with its estimated instructions, the cheapest offer wins, a family's reasons for
leaving a call are kept, a family's settle step decides for all the calls it won. Fake families over a real
lowered program; no C is built."""
from __future__ import annotations

import pytest

from reference import EXAMPLE_MODELS
from usmp import select
from usmp.compiler import CompileOptions, compile_model
from usmp.fold import fold_constants
from usmp.frontend import read_tflite
from usmp.lower import lower_graph
from usmp.select.family import Entry, Family, Offer, Rewrite

MICRO_SPEECH = EXAMPLE_MODELS / "micro_speech_quantized.tflite"  # DEPTHWISE_CONV_2D, FULLY_CONNECTED, SOFTMAX
SOFTMAX = ("input", "output")


def program():
    return lower_graph(fold_constants(read_tflite(MICRO_SPEECH)))


def offering(function: str, cost: float, reason: str | None = None):
    """A handler offering `function` at `cost` (or declining with `reason`)."""
    def handler(call):
        if reason is not None:
            return reason
        return Offer(Rewrite(function, None, {}, [(n, call.buffers[n], n == "output") for n in SOFTMAX]), cost)
    return handler


def family(name: str, handler, kernels: str = "usmp", extensions=("dsp",), settle=None, **more) -> Family:
    return Family(name=name, key=name, kernels=kernels, extensions=extensions, number_types=("int8",),
                  table={"usmp_softmax_s8": Entry(SOFTMAX, handler)}, settle=settle, **more)


@pytest.fixture
def families(monkeypatch):
    def use(*chosen):
        monkeypatch.setattr(select, "FAMILIES", tuple(chosen))
    return use


def chosen_functions(p) -> list[str]:
    return [call.function for op in p.ops for call in op.calls]


def test_the_cheapest_offer_wins(families):
    families(family("a", offering("kernel_a", 500)), family("b", offering("kernel_b", 300)),
             family("c", offering("kernel_c", 0, reason="not this shape")))
    p = select.select_kernels(program(), "cortex-m4", "usmp")
    assert "kernel_b" in chosen_functions(p) and "usmp_softmax_s8" not in chosen_functions(p)
    selection = select.choose(program(), list(select.FAMILIES), "dsp")
    (site, choice), = selection.chosen.items()
    assert choice.family.name == "b" and choice.offer.cost == 300
    assert [(f.name, why) for f, why in selection.declined[site]] == [("c", "not this shape")]


@pytest.mark.parametrize("cpu, kernels, cmsis_nn_found, expected", [
    ("cortex-m4", "auto", True, ["dsp-own", "dsp-lib", "any-fast", "float-own"]),
    ("cortex-m4", "auto", False, ["dsp-own", "any-fast", "float-own"]),  # CMSIS-NN's only where it is found
    ("cortex-m4", "usmp", True, ["dsp-own", "any-fast", "float-own"]),
    ("cortex-m4", "cmsis-nn", True, ["dsp-lib"]),
    ("cortex-m4", "portable", True, []),
    ("cortex-m4+nofp", "auto", True, ["dsp-own", "dsp-lib", "any-fast"]),  # no FPU: no float family
    ("cortex-m55", "auto", True, ["any-fast"]),
    ("cortex-m0", "auto", True, []),
])
def test_families_that_apply(families, cpu, kernels, cmsis_nn_found, expected):
    families(family("dsp-own", None), family("dsp-lib", None, kernels="cmsis-nn", cmsis_nn=True),
             family("any-fast", None, extensions=("dsp", "mve")),
             family("float-own", None, extensions=(), float_units=("fpu",)))
    assert [f.name for f in select.active_families(cpu, kernels, cmsis_nn_found)] == expected


def test_settle_decides_for_the_calls_a_family_won(families):
    seen = []

    def settle(won, p, optimize):
        seen.append((len(won), optimize))
        return {site: Rewrite("kernel_settled", None, {}, offer.rewrite.args) for site, offer in won.items()}

    families(family("a", offering("kernel_a", 100), settle=settle))
    assert "kernel_settled" in chosen_functions(select.select_kernels(program(), "cortex-m4", "usmp",
                                                                      optimize="size"))
    assert seen == [(1, "size")]


def test_real_families_keep_the_generated_code_of_a_plain_core():
    """No family runs on the generic core (the cores without SIMD have the scalar family's kernels:
    test_scalar_kernels.py): the program is the portable one."""
    assert compile_model(MICRO_SPEECH, CompileOptions(cpu="generic")).files == \
        compile_model(MICRO_SPEECH, CompileOptions(kernels="portable")).files
