"""The checks of `MetricCallback`'s arguments, run when it is built.

Metrics are named and their outputs must not collide; every declared input
maps to a key of the step's returned dict; stages, prefixes, test names and
counts are checked before any epoch runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from lightscore.core.contract import metric_name
from lightscore.core.metric import BaseMetric
from lightscore.lightning.tally import check_test_name

__all__ = [
    "DEFAULT_PREFIX",
    "STAGES",
    "as_named",
    "check_count",
    "check_stages",
    "input_keys",
    "check_test_names",
    "prefixes",
]

STAGES = ("validate", "test")
DEFAULT_PREFIX = {"validate": "val/", "test": "test/"}


def as_named(metrics: Any) -> dict[str, BaseMetric]:
    """Metrics as name -> metric: a dict keeps its names, a metric or a list is named by class path."""
    if isinstance(metrics, Mapping):
        named = dict(metrics)
    else:
        listed = [metrics] if isinstance(metrics, BaseMetric) else list(metrics)
        named = {metric_name(m): m for m in listed}
        if len(named) < len(listed):
            raise ValueError("MetricCallback: a metric class is listed twice; pass a dict to name each one")
    if not named:
        raise ValueError("MetricCallback: give at least one metric")
    for name, metric in named.items():
        if not isinstance(metric, BaseMetric):
            raise TypeError(f"MetricCallback: metric {name!r} is a {type(metric).__name__}, not a BaseMetric")
    _check_unique_outputs(named)
    return named


def _check_unique_outputs(metrics: dict[str, BaseMetric]) -> None:
    owner: dict[str, str] = {}
    for name, metric in metrics.items():
        for f in metric.outputs:
            if f.name in owner:
                raise ValueError(
                    f"MetricCallback: metrics {owner[f.name]!r} and {name!r} both return {f.name!r}; "
                    "give one of them its own MetricCallback with its own prefix"
                )
            owner[f.name] = name


def input_keys(metrics: dict[str, BaseMetric], inputs: Mapping[str, str]) -> dict[str, str]:
    """Every declared input name -> the step's key for it (``inputs``, else the name)."""
    declared = list(dict.fromkeys(f.name for m in metrics.values() for f in m.inputs))
    unknown = [name for name in inputs if name not in declared]
    if unknown:
        raise ValueError(
            f"MetricCallback: inputs names {', '.join(unknown)}, which no metric declares "
            f"(declared: {', '.join(declared)})"
        )
    return {name: inputs.get(name, name) for name in declared}


def check_count(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"MetricCallback: log_samples must be a count (an int >= 0), got {n!r}")
    return n


def check_stages(stages: Sequence[str]) -> tuple[str, ...]:
    stages = (stages,) if isinstance(stages, str) else tuple(stages)
    unknown = [s for s in stages if s not in STAGES]
    if unknown:
        raise ValueError(f"MetricCallback: stages {unknown} are not among {list(STAGES)}")
    return stages


def prefixes(prefix: str | Mapping[str, str] | None) -> dict[str, str]:
    if isinstance(prefix, str):
        return {stage: prefix for stage in STAGES}
    return {**DEFAULT_PREFIX, **(prefix or {})}


def check_test_names(test_names: Mapping[str, Any] | None) -> dict[str, list[str]]:
    """``test_names`` as stage -> list of names by dataloader index, every name a plain token.

    >>> check_test_names({"validate": ["dev", "other"], "test": "test-clean"})
    {'validate': ['dev', 'other'], 'test': ['test-clean']}
    >>> check_test_names({"test": 5})
    Traceback (most recent call last):
    ...
    ValueError: MetricCallback: test_names['test'] must be a name or a list of names (one per dataloader), got 5
    """
    if not isinstance(test_names, (Mapping, type(None))):
        raise ValueError(f"MetricCallback: test_names must map a stage to its test name(s), got {test_names!r}")
    lists = {}
    for stage, names in (test_names or {}).items():
        if stage not in STAGES:
            raise ValueError(f"MetricCallback: test_names names the stage {stage!r}, not one of {list(STAGES)}")
        if not isinstance(names, (str, list, tuple)):
            raise ValueError(
                f"MetricCallback: test_names[{stage!r}] must be a name or a list of names (one per dataloader), "
                f"got {names!r}"
            )
        lists[stage] = [check_test_name(n) for n in ([names] if isinstance(names, str) else names)]
    return lists
