"""The seeded corpus: variant i of seed s is always the same bytes.

Half the variants are byte-level damage (truncation, flipped bits, offsets
out of range), half schema-aware damage (shapes, buffer sizes, quantization
lengths, missing tensors, huge dimensions...), spread over every model of the
project; the example models get a larger share because users start there.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from malformed import bytewise, structured
from reference import all_models, example_models

EXAMPLE_WEIGHT = 10  # each example model counts as this many test models


@dataclass(frozen=True)
class Variant:
    index: int
    model: str  # stem of the model it was made from
    kind: str  # mutation name
    what: str  # what exactly changed
    data: bytes

    @property
    def label(self) -> str:
        return f"#{self.index} {self.model} {self.kind}: {self.what}"


def _weighted_models() -> list[Path]:
    examples = example_models()
    return examples * EXAMPLE_WEIGHT + [m for m in all_models() if m not in examples]


def variant(seed: int, index: int, models: list[Path] | None = None) -> Variant:
    models = models or _weighted_models()
    rng = random.Random(f"usmp-malformed:{seed}:{index}")
    model = rng.choice(models)
    data = model.read_bytes()
    unchanged = {data}
    structured_first = rng.random() < 0.5
    for attempt in range(20):  # a mutation may not apply, or may change nothing (a value set to itself)
        if structured_first and attempt < 10:
            mutation = rng.choice(structured.MUTATIONS)
            done = structured.apply(data, mutation, rng)
            if done is None:
                continue
            unchanged.add(structured.repacked(data))
            damaged, what = done
        else:
            mutation = rng.choice(bytewise.MUTATIONS)
            damaged, what = mutation(data, rng)
        if damaged not in unchanged:
            return Variant(index, model.stem, mutation.__name__, what, damaged)
    raise RuntimeError(f"no mutation changed {model.name} (seed {seed}, index {index})")


def variants(seed: int, count: int, start: int = 0):
    models = _weighted_models()
    for index in range(start, start + count):
        yield variant(seed, index, models)
