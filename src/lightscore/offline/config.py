"""The metrics config: loading it, its test sets, its entries, and binding each input to a file.

`load_config` reads a mapping, a DictConfig or a YAML path (with dot-list
overrides); `find_test_sets` and `build_entries` check everything before
anything is scored (`lightscore.offline.bindings` then binds each entry's
inputs to one test set's files). See ``docs/measure.md`` for the keys.

A metrics YAML is code: each ``_target_`` is imported and called. Metric
targets must be `BaseMetric` subclasses, refused before they are called
(`lightscore.core.targets.build_target`). hydra and omegaconf are imported inside
the functions that need them.
"""

from __future__ import annotations

import contextlib
import copy
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lightscore.core.contract import check_metric_contract, check_metric_inputs, metric_name
from lightscore.core.metric import BaseMetric
from lightscore.core.targets import build_target, one_line
from lightscore.offline.dataset_columns import audio_options
from lightscore.offline.sclite_bindings import ScliteBinding, format_options, sclite_binding
from lightscore.offline.yaml_bounds import check_expansion
from lightscore.report.scoreboard import RESERVED
from lightscore.scp.lines import check_name

__all__ = [
    "DATASET_PREFIX",
    "RESERVED_NAMES",
    "Entry",
    "TestSet",
    "artifact_options_of",
    "build_entries",
    "build_entry",
    "build_metric",
    "find_test_sets",
    "inference_dir_of",
    "load_config",
    "sclite_metric",
    "with_inference",
]

DATASET_PREFIX = "dataset:"
ENTRY_KEYS = ("metric", "inputs", "apply_to", "name", "glm", "language")
RESERVED_NAMES = ("metrics.json", *RESERVED)
"""Names lightscore gives its own results (metrics.json; the pooled and macro rows); no test set may take one."""


@dataclass(frozen=True)
class TestSet:
    """One test set: its directory name and, for ``dataset:`` sources, its dataset config."""

    __test__ = False  # not a pytest class
    name: str
    dataset: dict | None = None
    idx_key: str = "utt_id"


@dataclass
class Entry:
    """One checked ``metrics:`` entry: its key, its metric, input name -> source, test sets; sclite files if bound."""

    key: str
    metric: BaseMetric
    sources: dict[str, str]
    tests: list[str]
    sclite: ScliteBinding | None = None


# -- config ------------------------------------------------------------------------


def load_config(config: Any, overrides: Sequence[str] = ()) -> tuple[Any, str]:
    """Return ``(DictConfig, where)`` from a mapping, a DictConfig or a YAML path, with dot-list overrides.

    ``where`` names the config in error messages.

    >>> cfg, where = load_config({"inference_dir": "exp"}, ["inference_dir=exp/decode"])
    >>> cfg.inference_dir, where
    ('exp/decode', 'metrics config')
    >>> load_config({}, ["inference_dir"])
    Traceback (most recent call last):
    ...
    ValueError: override 'inference_dir' is not key=value (e.g. inference_dir=exp/decode)
    """
    from omegaconf import DictConfig, OmegaConf

    overrides = list(overrides)
    for item in overrides:
        if "=" not in item or not item.split("=", 1)[0]:
            raise ValueError(f"override {item!r} is not key=value (e.g. inference_dir=exp/decode)")
    where = "metrics config"
    if isinstance(config, (str, os.PathLike)):
        where = str(config)
        if not Path(config).is_file():
            raise FileNotFoundError(f"{where}: no such config file")
        check_expansion(Path(config), where)
        try:
            config = OmegaConf.load(config)
        except Exception as e:
            raise ValueError(f"{where}: not a readable YAML config: {e}") from None
    elif isinstance(config, Mapping) and not isinstance(config, DictConfig):
        config = OmegaConf.create(dict(config))
    if not isinstance(config, DictConfig):
        raise TypeError(f"{where}: expected a mapping, a DictConfig or a YAML path, got {type(config).__name__}")
    if overrides:
        config = copy.deepcopy(config)  # the caller's DictConfig stays as it was
        try:
            config.merge_with_dotlist(list(overrides))
        except Exception as e:
            raise ValueError(f"{where}: cannot apply the overrides {' '.join(overrides)}: {one_line(e)}") from None
    return config, where


def _plain(node: Any) -> Any:
    """A config node as plain, resolved Python values."""
    from omegaconf import DictConfig, ListConfig, OmegaConf

    return OmegaConf.to_container(node, resolve=True) if isinstance(node, (DictConfig, ListConfig)) else node


def inference_dir_of(cfg: Any, where: str) -> Path:
    """The ``inference_dir`` the config names, which must be an existing directory.

    >>> inference_dir_of(load_config({})[0], "metrics.yaml")
    Traceback (most recent call last):
    ...
    ValueError: metrics.yaml: inference_dir is not set. Set `inference_dir: exp/decode` in the metrics YAML, ...
    """
    from omegaconf import OmegaConf

    value = OmegaConf.select(cfg, "inference_dir", default=None, throw_on_missing=False)
    if value in (None, ""):
        raise ValueError(
            f"{where}: inference_dir is not set. Set `inference_dir: exp/decode` in the metrics YAML, "
            "pass inference_config=..., or add the override inference_dir=exp/decode"
        )
    path = Path(str(value))
    if not path.is_dir():
        raise ValueError(
            f"{where}: inference_dir {str(path)!r} is not a directory; point it at the folder that holds "
            "one sub-folder of .scp files per test set"
        )
    return path


def scoreboard_of(cfg: Mapping[str, Any], where: str) -> bool:
    """The config's ``scoreboard`` key: a bool, False when absent.

    >>> scoreboard_of({"scoreboard": True}, "m.yaml"), scoreboard_of({}, "m.yaml")
    (True, False)
    """
    value = cfg.get("scoreboard", False)
    if not isinstance(value, bool):
        raise ValueError(f"{where}: scoreboard must be true or false, got {value!r}")
    return value


def find_test_sets(cfg: Any, inference_dir: Path, where: str) -> list[TestSet]:
    """The test sets of ``dataset.test``, else the sorted non-hidden sub-folders of ``inference_dir``."""
    dataset = _plain(cfg.get("dataset")) or {}
    if not isinstance(dataset, Mapping) or not isinstance(dataset.get("test", []), list):
        raise ValueError(f"{where}: dataset.test must be a list of {{name: ..., dataset: {{...}}}}, got {dataset!r}")
    if "test" not in dataset:
        # A folder whose name is not a plain token (`my dir`) fails its own pairs (resolve_inputs), not the run.
        names = sorted(p.name for p in _folders(inference_dir, where) if not p.name.startswith("."))
        tests = [TestSet(n) for n in names]
    else:
        idx_key = str(dataset.get("idx_key", "utt_id"))
        tests = [_listed_test(item, f"{where}: dataset.test[{i}]", idx_key) for i, item in enumerate(dataset["test"])]
    if not tests:
        raise ValueError(
            f"{where}: no test sets: list them under dataset.test ({{name: ..., dataset: {{...}}}}) "
            f"or give {inference_dir} one sub-folder per test set"
        )
    names = [t.name for t in tests]
    reserved = [n for n in names if n in RESERVED_NAMES]
    if reserved:
        raise ValueError(
            f"{where}: {', '.join(reserved)} cannot be a test set name: lightscore names its own results "
            f"{', '.join(RESERVED_NAMES)}"
        )
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ValueError(f"{where}: dataset.test lists the test set(s) {', '.join(repeated)} more than once")
    return tests


def _folders(inference_dir: Path, where: str) -> list[Path]:
    """The sub-folders of ``inference_dir``; one that vanishes while listed (``/proc``) is left out."""
    try:
        entries = list(inference_dir.iterdir())
    except OSError as e:
        raise ValueError(f"{where}: inference_dir {str(inference_dir)!r} cannot be listed: {e.strerror}") from None
    folders = []
    for path in entries:
        with contextlib.suppress(OSError):
            if path.is_dir():
                folders.append(path)
    return folders


def _listed_test(item: Any, where: str, idx_key: str) -> TestSet:
    if not isinstance(item, Mapping) or "name" not in item:
        raise ValueError(f"{where}: expected {{name: ..., dataset: {{_target_: ...}}}}, got {item!r}")
    if not isinstance(item["name"], str):
        raise ValueError(f"{where}.name must be a string (the test set's folder name), got {item['name']!r}")
    name = check_name(item["name"], "test set name", where)
    if not isinstance(item.get("dataset"), (Mapping, type(None))):
        raise ValueError(f"{where}.dataset: expected {{_target_: ..., ...}}, got {item['dataset']!r}")
    return TestSet(name, item.get("dataset"), str(item.get("idx_key", idx_key)))


def artifact_options_of(cfg: Any, where: str) -> dict[str, dict[str, Any]]:
    """``dataset_artifacts``: column -> checked audio options."""
    given = _plain(cfg.get("dataset_artifacts", {})) or {}
    if not isinstance(given, Mapping):
        raise ValueError(f"{where}: dataset_artifacts must map a column to its options, got {given!r}")
    return {str(c): audio_options(o, f"{where}: dataset_artifacts.{c}") for c, o in given.items()}


# -- entries -----------------------------------------------------------------------------


def build_entries(cfg: Any, tests: Sequence[TestSet], where: str) -> list[Entry]:
    """Build and check every ``metrics:`` entry, before anything is scored."""
    from omegaconf import ListConfig

    nodes = cfg.get("metrics")
    if not isinstance(nodes, ListConfig) or not nodes:
        raise ValueError(f"{where}: no metrics: add a list of {{metric: {{_target_: ...}}, inputs: ...}} entries")
    entries: list[Entry] = []
    for index, node in enumerate(nodes):
        entry = build_entry(node, tests, f"{where}: metrics[{index}]")
        for other_index, other in enumerate(entries):
            if other.key == entry.key:
                raise ValueError(
                    f"{where}: metrics[{index}] and metrics[{other_index}] both report under {entry.key!r}; "
                    "give one of them a distinct `name:`"
                )
        entries.append(entry)
    return entries


def build_entry(node: Any, tests: Sequence[TestSet], where: str) -> Entry:
    """Instantiate one entry's metric and check its inputs, sources, ``apply_to`` and ``name``."""
    from omegaconf import DictConfig

    if not isinstance(node, DictConfig) or "metric" not in node:
        raise ValueError(f"{where}: expected {{metric: {{_target_: ...}}, inputs: ...}}, got {_plain(node)!r}")
    unknown = [str(k) for k in node if k not in ENTRY_KEYS]
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {', '.join(unknown)} (known: {', '.join(ENTRY_KEYS)})")
    applied = _apply_to(_plain(node.get("apply_to")), tests, where)
    inputs = _plain(node.get("inputs"))
    _check_bindings(inputs, where)
    metric = build_metric(node.metric, where)
    try:
        sources = check_metric_inputs(metric, {"inputs": inputs})
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None
    sclite = sclite_binding(node, sources, where)
    if sclite is not None:
        metric = sclite_metric(sclite, {}, where)
    by_name = {t.name: t for t in tests}
    for source in sources.values():
        if _check_source(source, where) is None:
            continue
        lacking = [t for t in applied if by_name[t].dataset is None]
        if lacking:
            raise ValueError(
                f"{where}: source {source!r} needs a dataset config for test set(s) {', '.join(lacking)}: "
                "list them under dataset.test as {name: ..., dataset: {_target_: ...}}"
            )
    key = node.get("name", None)
    if key is None:
        key = metric_name(metric)
    if not isinstance(key, str):
        raise ValueError(f"{where}: name must be a string, got {key!r}")
    if not key.strip():
        raise ValueError(f"{where}: name must not be empty (leave it out to use {metric_name(metric)})")
    return Entry(key, metric, sources, applied, sclite)


def _check_bindings(inputs: Any, where: str) -> None:
    """Refuse an ``inputs:`` source or name that is not a string (``ref: null`` would read ``None.scp``)."""
    pairs = inputs.items() if isinstance(inputs, Mapping) else enumerate(inputs) if isinstance(inputs, list) else ()
    for key, source in pairs:
        if not isinstance(source, str):
            what = f"inputs.{key}" if isinstance(inputs, Mapping) else f"inputs[{key}]"
            shown = "null" if source is None else repr(source)
            raise ValueError(f"{where}: {what} must be a file stem (hyp) or dataset:<column>, got {shown}")


def _apply_to(apply_to: Any, tests: Sequence[TestSet], where: str) -> list[str]:
    names = [t.name for t in tests]
    if apply_to is None:
        return names
    if not isinstance(apply_to, list):
        raise ValueError(f"{where}: apply_to must be a list of test set names, got {apply_to!r}")
    if not apply_to:
        raise ValueError(
            f"{where}: apply_to is empty, so the entry would score nothing; leave it out for every test set"
        )
    unknown = [str(n) for n in apply_to if n not in names]
    if unknown:
        known = ", ".join(names)
        raise ValueError(f"{where}: apply_to names unknown test set(s) {', '.join(unknown)} (known: {known})")
    return [n for n in names if n in apply_to]


def _is_metric_class(target: Any) -> bool:
    return isinstance(target, type) and issubclass(target, BaseMetric)


def build_metric(node: Any, where: str) -> BaseMetric:
    """Build ``node`` with hydra; its ``_target_`` must be a `BaseMetric` subclass, checked before the call.

    Nested ``_target_`` configs (such as an embedder) are passed on as
    mappings; the metric builds them itself.

    Raises:
        TypeError: the target is not a BaseMetric subclass, or its contract is malformed.
        ValueError: the target cannot be imported or built.

    >>> build_metric({"_target_": "shutil.copyfile", "src": "a", "dst": "b"}, "metrics[0]")
    Traceback (most recent call last):
    ...
    TypeError: metrics[0].metric: _target_ shutil.copyfile is not a lightscore BaseMetric subclass; refused, not called
    """
    target = node.get("_target_") if hasattr(node, "get") else None
    metric = build_target(
        node, f"{where}.metric", allowed=_is_metric_class, what="a lightscore BaseMetric subclass", recursive=False
    )
    if not isinstance(metric, BaseMetric):
        raise TypeError(f"{where}.metric: {target} built a {metric_name(metric)}, which is not a lightscore BaseMetric")
    try:
        check_metric_contract(metric)
    except TypeError as e:
        raise TypeError(f"{where}.metric: {e}") from None
    return metric


def _check_source(source: str, where: str) -> str | None:
    """Check a source; return the column of a ``dataset:<column>`` source, else None."""
    if source.startswith(DATASET_PREFIX):
        return check_name(source[len(DATASET_PREFIX) :], "column name", f"{where}: source {source!r}")
    check_name(source, "file stem", f"{where}: source {source!r}")
    return None


def sclite_metric(sclite: ScliteBinding, options: dict[str, Any], where: str) -> BaseMetric:
    """The entry's metric built with the options that score its files as sclite, beneath the entry's own."""
    from omegaconf import OmegaConf

    own = (
        OmegaConf.to_container(sclite.metric_node, resolve=True)
        if OmegaConf.is_config(sclite.metric_node)
        else dict(sclite.metric_node)
    )
    return build_metric({**format_options(sclite.fmt), **options, **own}, where)


def with_inference(cfg: Any, inference: Any) -> Any:
    """Fill ``inference_dir`` and ``dataset`` from the inference config where the metrics config lacks them."""
    from omegaconf import OmegaConf

    for key in ("inference_dir", "dataset"):
        if OmegaConf.select(cfg, key, default=None, throw_on_missing=False) is None and key in inference:
            cfg = OmegaConf.merge(cfg, {key: inference[key]})
    return cfg
