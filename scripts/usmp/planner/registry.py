"""Planning algorithms by name, plus the user's own.

An algorithm is a function (buffers, pools, **options) -> placements, where
placements maps every buffer name to (pool name, offset); built-in ones
return a Solution (placements plus what they proved). Options they may
accept: time_limit (seconds), progress (callback(best, bound)).

User algorithms: `--algorithm package.module:function`, or a name registered
by an installed package under the entry-point group `usmp.algorithms`.
"""
from __future__ import annotations

import importlib
import inspect
from importlib.metadata import entry_points

from usmp.errors import PlanError
from usmp.planner.auto import auto
from usmp.planner.greedy import greedy_by_conflicts, greedy_by_size
from usmp.planner.hill_climb import hill_climb
from usmp.planner.optimal import optimal

ENTRY_POINT_GROUP = "usmp.algorithms"

ALGORITHMS = {
    "greedy_by_size": greedy_by_size,
    "greedy_by_conflicts": greedy_by_conflicts,
    "hill_climb": hill_climb,
    "optimal": optimal,
    "auto": auto,
}
# What `usmp plan` compares (auto is the best of these).
COMPARED = ("greedy_by_size", "greedy_by_conflicts", "hill_climb", "optimal")


def known_names() -> list[str]:
    return sorted(set(ALGORITHMS) | {ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)})


def get_algorithm(name: str):
    if name in ALGORITHMS:
        return ALGORITHMS[name]
    if ":" in name:
        return _load_reference(name)
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name == name:
            try:
                return ep.load()
            except Exception as exc:
                raise PlanError(f"planning algorithm '{name}' (entry point {ep.value}) failed to load: {exc}") from None
    raise PlanError(f"unknown planning algorithm '{name}' (known: {', '.join(known_names())}; "
                    f"or give package.module:function)")


def _load_reference(reference: str):
    module_name, _, function_name = reference.partition(":")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:
        raise PlanError(f"--algorithm {reference}: cannot import module '{module_name}': {exc}") from None
    function = getattr(module, function_name, None)
    if not callable(function):
        raise PlanError(f"--algorithm {reference}: module '{module_name}' has no function '{function_name}'")
    return function


def call_algorithm(function, buffers, pools, **options):
    """Call with the options the function declares (user functions may take only two arguments)."""
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return function(buffers, pools)
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return function(buffers, pools, **options)
    return function(buffers, pools, **{k: v for k, v in options.items() if k in parameters})
