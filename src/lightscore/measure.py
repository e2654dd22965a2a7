"""`measure()`: the offline stage, from a metrics config to ``<inference_dir>/metrics.json``.

It re-scores saved hypotheses with the metric classes that run in training:
every (metric, test set) pair is one call of the metric's own
``__call__(data, test_name, inference_dir)``, where ``data`` binds each
declared input to an SCP file. See ``docs/measure.md`` for the config keys.
Under ``torchrun`` the ranks share the rows of every pair and rank 0 writes
(``docs/scale-out.md``).

hydra and omegaconf are imported inside the functions that need them.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import json
import os
import pickle
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .contract import check_metric_contract, check_metric_inputs, metric_name
from .dataset_columns import audio_options, column_scp
from .metric import BaseMetric
from .scp import ScpShard, atomic_open, check_utt_id, count_scp_rows

DATASET_PREFIX = "dataset:"
ENTRY_KEYS = ("metric", "inputs", "apply_to", "name")
Progress = Callable[[str, str, int, int], None]  # (key, test_name, rows done, rows total)


class MeasureResults(dict):
    """``{key: {test_name: {output: value}}}`` of one run; ``path`` is the metrics.json written."""

    path: Path | None = None


class MeasureError(RuntimeError):
    """Some (metric, test set) pairs failed; the others' results are in ``results`` and on disk."""

    def __init__(self, failures: Sequence[tuple[str, str, BaseException]], results: MeasureResults) -> None:
        self.failures = list(failures)
        self.results = results
        lines = [f"{len(self.failures)} metric run(s) failed; the other results are in {results.path}:"]
        lines += [f"  {key} on {test}: {type(e).__name__}: {e}" for key, test, e in self.failures]
        super().__init__("\n".join(lines))


@dataclass(frozen=True)
class TestSet:
    """One test set: its directory name and, for ``dataset:`` sources, its dataset config."""

    __test__ = False  # not a pytest class
    name: str
    dataset: dict | None = None
    idx_key: str = "utt_id"


@dataclass
class Entry:
    """One checked ``metrics:`` entry: its key, its metric, input name -> source, test sets."""

    key: str
    metric: BaseMetric
    sources: dict[str, str]
    tests: list[str]


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
            raise ValueError(f"{where}: cannot apply the overrides {' '.join(overrides)}: {_reason(e)}") from None
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


def find_test_sets(cfg: Any, inference_dir: Path, where: str) -> list[TestSet]:
    """The test sets of ``dataset.test``, else the sorted non-hidden sub-folders of ``inference_dir``."""
    dataset = _plain(cfg.get("dataset")) or {}
    if not isinstance(dataset, Mapping) or not isinstance(dataset.get("test", []), list):
        raise ValueError(f"{where}: dataset.test must be a list of {{name: ..., dataset: {{...}}}}, got {dataset!r}")
    if "test" not in dataset:
        names = sorted(p.name for p in inference_dir.iterdir() if p.is_dir() and not p.name.startswith("."))
        tests = [TestSet(check_utt_id(n, f"{where}: {inference_dir}", what="test set name")) for n in names]
    else:
        idx_key = str(dataset.get("idx_key", "utt_id"))
        tests = [_listed_test(item, f"{where}: dataset.test[{i}]", idx_key) for i, item in enumerate(dataset["test"])]
    if not tests:
        raise ValueError(
            f"{where}: no test sets: list them under dataset.test ({{name: ..., dataset: {{...}}}}) "
            f"or give {inference_dir} one sub-folder per test set"
        )
    names = [t.name for t in tests]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ValueError(f"{where}: dataset.test lists the test set(s) {', '.join(repeated)} more than once")
    return tests


def _listed_test(item: Any, where: str, idx_key: str) -> TestSet:
    if not isinstance(item, Mapping) or "name" not in item:
        raise ValueError(f"{where}: expected {{name: ..., dataset: {{_target_: ...}}}}, got {item!r}")
    name = check_utt_id(str(item["name"]), where, what="test set name")
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
    metric = build_metric(node.metric, where)
    try:
        sources = check_metric_inputs(metric, {"inputs": _plain(node.get("inputs"))})
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None
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
    key = node.get("name") or metric_name(metric)
    if not isinstance(key, str):
        raise ValueError(f"{where}: name must be a string, got {key!r}")
    return Entry(key, metric, sources, applied)


def _apply_to(apply_to: Any, tests: Sequence[TestSet], where: str) -> list[str]:
    names = [t.name for t in tests]
    if apply_to is None:
        return names
    if not isinstance(apply_to, list):
        raise ValueError(f"{where}: apply_to must be a list of test set names, got {apply_to!r}")
    unknown = [str(n) for n in apply_to if n not in names]
    if unknown:
        known = ", ".join(names)
        raise ValueError(f"{where}: apply_to names unknown test set(s) {', '.join(unknown)} (known: {known})")
    return [n for n in names if n in apply_to]


def build_metric(node: Any, where: str) -> BaseMetric:
    """Instantiate ``node`` with hydra; it must be a `BaseMetric` with a well-formed contract."""
    from hydra.errors import InstantiationException
    from hydra.utils import instantiate

    target = node.get("_target_") if hasattr(node, "get") else None
    if not target:
        raise ValueError(f"{where}.metric: needs a _target_ (e.g. lightscore.metrics.WER)")
    try:
        metric = instantiate(node, _convert_="all")
    except InstantiationException as e:
        cause = e.__cause__ or e
        kind = TypeError if isinstance(cause, TypeError) else ValueError
        raise kind(f"{where}.metric: cannot build {target}: {_reason(cause)}") from cause
    if not isinstance(metric, BaseMetric):
        raise TypeError(f"{where}.metric: {target} built a {metric_name(metric)}, which is not a lightscore BaseMetric")
    try:
        check_metric_contract(metric)
    except TypeError as e:
        raise TypeError(f"{where}.metric: {e}") from None
    return metric


def _reason(cause: BaseException) -> str:
    """``Type: message`` on one line (hydra's import errors span several)."""
    return f"{type(cause).__name__}: " + " ".join(str(cause).split())


def _check_source(source: str, where: str) -> str | None:
    """Check a source; return the column of a ``dataset:<column>`` source, else None."""
    if source.startswith(DATASET_PREFIX):
        return check_utt_id(source[len(DATASET_PREFIX) :], f"{where}: source {source!r}", what="column name")
    check_utt_id(source, f"{where}: source {source!r}", what="file stem")
    return None


# -- scoring -------------------------------------------------------------------------------


def scp_file(test_dir: Path, stem: str) -> Path:
    """``<test_dir>/<stem>.scp``; when missing, the error lists the .scp files that are there."""
    path = test_dir / f"{stem}.scp"
    if path.is_file():
        return path
    if not test_dir.is_dir():
        raise FileNotFoundError(f"{path}: no such file ({test_dir} does not exist)")
    there = sorted(p.name for p in test_dir.glob("*.scp"))
    raise FileNotFoundError(f"{path}: no such file; {test_dir} holds {', '.join(there) or 'no .scp files'}")


class DatasetColumns:
    """Gives ``dataset:<column>`` SCP files, building each test set's dataset at most once per run."""

    def __init__(self, inference_dir: Path, tests: Sequence[TestSet], options: Mapping[str, Mapping]) -> None:
        self.inference_dir = inference_dir
        self.tests = {t.name: t for t in tests}
        self.options = options
        self.built: dict[str, Any] = {}

    def dataset(self, test_name: str) -> Any:
        if test_name not in self.built:
            self.built[test_name] = instantiate_dataset(self.tests[test_name])
        return self.built[test_name]

    def scp(self, test_name: str, column: str) -> Path:
        test = self.tests[test_name]
        return column_scp(
            self.inference_dir / test_name,
            column,
            test.dataset,
            lambda: self.dataset(test_name),
            idx_key=test.idx_key,
            options=self.options.get(column),
        )


def instantiate_dataset(test: TestSet) -> Any:
    """Build a test set's dataset from its ``_target_`` config."""
    from hydra.errors import InstantiationException
    from hydra.utils import instantiate

    try:
        return instantiate(test.dataset, _convert_="all")
    except InstantiationException as e:
        cause = e.__cause__ or e
        target = (test.dataset or {}).get("_target_")
        raise ValueError(f"dataset of test set {test.name}: cannot build {target}: {_reason(cause)}") from cause


def resolve_inputs(entry: Entry, test_name: str, inference_dir: Path, columns: DatasetColumns) -> dict[str, Path]:
    """``data`` for one test set: each declared input name -> its SCP file."""
    data = {}
    for name, source in entry.sources.items():
        if source.startswith(DATASET_PREFIX):
            data[name] = columns.scp(test_name, source[len(DATASET_PREFIX) :])
        else:
            data[name] = scp_file(inference_dir / test_name, source)
    return data


def count_rows(metric: BaseMetric, data: Mapping[str, Any]) -> int:
    """Rows in the first bound input file: the total a progress bar counts to."""
    first = next(f.name for f in metric.inputs if f.name in data)
    return count_scp_rows(data[first])


def score_test_set(
    metric: BaseMetric,
    data: Mapping[str, Any],
    test_name: str,
    output_dir: Path,
    progress: Callable[[int, int], None] | None = None,
) -> dict:
    """Score one (metric, test set) with the metric's own ``__call__``; ``progress(done, total)`` per chunk.

    >>> import tempfile
    >>> from lightscore.metrics import WER
    >>> d = Path(tempfile.mkdtemp())
    >>> _ = (d / "ref.scp").write_text("u1 the cat sat\\n")
    >>> _ = (d / "hyp.scp").write_text("u1 the cat\\n")
    >>> score_test_set(WER(), {"ref": d / "ref.scp", "hyp": d / "hyp.scp"}, "dev", d, print)["WER"]
    0 1
    1 1
    33.33333333333333
    """
    return metric(data, test_name, output_dir, progress=row_counter(metric, data, progress))


def row_counter(
    metric: BaseMetric, data: Mapping[str, Any], progress: Callable[[int, int], None] | None
) -> Callable[[int], None] | None:
    """Report ``progress(0, total)`` now and return the per-chunk callback that reports the rows done."""
    if progress is None:
        return None
    total = count_rows(metric, data)
    done = 0
    progress(done, total)

    def advance(rows: int) -> None:
        nonlocal done
        done += rows
        progress(done, total)

    return advance


# -- several processes (torchrun) ----------------------------------------------------------


@contextlib.contextmanager
def process_group() -> Iterator[tuple[int, int]]:
    """``(rank, world_size)`` of this process: ``(0, 1)`` alone, the group's under torchrun.

    When ``WORLD_SIZE`` (set by torchrun) is above 1 and no process group is up,
    a gloo group is started from torchrun's environment for the block and
    destroyed after it; a group the caller started is used as it is. torch is
    imported only then.

    >>> with process_group() as (rank, world):
    ...     rank, world
    (0, 1)
    """
    if "torch.distributed" not in sys.modules and int(os.environ.get("WORLD_SIZE", "1")) <= 1:
        yield 0, 1
        return
    import torch.distributed as dist

    started = not dist.is_initialized() and int(os.environ.get("WORLD_SIZE", "1")) > 1
    if started:
        dist.init_process_group("gloo")
    try:
        yield (dist.get_rank(), dist.get_world_size()) if dist.is_initialized() else (0, 1)
    finally:
        if started:
            dist.destroy_process_group()


def score_sharded(
    pairs: Sequence[tuple[Entry, str]],
    inputs: Callable[[Entry, str], dict[str, Path]],
    output_dir: Path,
    rank: int,
    world: int,
    progress: Progress | None = None,
) -> list[dict | BaseException]:
    """Score every (entry, test set) pair across the ranks; the result or the error of each, on every rank.

    Each rank updates the metric with its rows only (`ScpShard`: rows ``i`` with
    ``i % world == rank``), then ONE ``gather_objects`` hands every rank all
    ranks' states (or errors), merged as the callback merges them. Rank 0 alone
    writes the artifacts, from every row; a pair that failed on any rank fails.
    """
    import torch.distributed as dist

    from .distributed import gather_objects

    datas: list[dict[str, Path] | BaseException] = []
    if rank > 0:
        dist.barrier()  # rank 0 writes any dataset column files first; the others then find them ready
    for entry, test_name in pairs:
        try:
            datas.append(inputs(entry, test_name))
        except Exception as e:
            datas.append(e)
    if rank == 0:
        dist.barrier()
    local = [
        _update_shard(entry, test_name, data, rank, world, progress) for (entry, test_name), data in zip(pairs, datas)
    ]
    gathered = gather_objects(local)
    outcomes: list[dict | BaseException] = []
    for k, ((entry, test_name), data) in enumerate(zip(pairs, datas)):
        states = [g[k] for g in gathered]
        error = next((s for s in states if isinstance(s, BaseException)), None)
        if error is not None:
            outcomes.append(error)
            continue
        try:
            entry.metric.load_state(entry.metric.merge_states(states))
            outcomes.append(entry.metric.finish(data, test_name, output_dir if rank == 0 else None))
        except Exception as e:
            outcomes.append(e)
    return outcomes


def _update_shard(
    entry: Entry,
    test_name: str,
    data: dict[str, Path] | BaseException,
    rank: int,
    world: int,
    progress: Progress | None,
) -> dict | BaseException:
    """This rank's state of one pair after updating with its rows, or the (picklable) error that stopped it."""
    if isinstance(data, BaseException):
        return _portable(data)
    metric = entry.metric
    shard = {name: ScpShard(path, rank, world) for name, path in data.items()}
    report = functools.partial(progress, entry.key, test_name) if progress and rank == 0 else None
    metric.collect_artifacts = True
    try:
        metric.update_rows(shard, progress=row_counter(metric, shard, report))
        return metric.state()
    except Exception as e:
        return _portable(e)
    finally:
        metric.collect_artifacts = False


def _portable(error: BaseException) -> BaseException:
    """``error`` if it survives pickling (it travels to the other ranks), else a RuntimeError with its text."""
    try:
        pickle.loads(pickle.dumps(error))
    except Exception:
        return RuntimeError(f"{type(error).__name__}: {error}")
    return error


# -- metrics.json ------------------------------------------------------------------------------


def read_metrics_json(path: Path) -> dict[str, dict]:
    """The results already in ``path`` ({} when there is none); a malformed file is an error, not overwritten."""
    if not path.exists():
        return {}
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        raise ValueError(f"{path}: not valid JSON ({e}); fix or remove it, it would be overwritten") from None
    if not isinstance(old, dict) or not all(isinstance(v, dict) for v in old.values()):
        raise ValueError(f"{path}: expected {{key: {{test_name: {{output: value}}}}}}; fix or remove it")
    return old


def merge_results(old: Mapping[str, Mapping], new: Mapping[str, Mapping]) -> dict[str, dict]:
    """Keys and test sets of ``old`` that ``new`` did not score are kept.

    >>> merge_results({"WER": {"a": {"WER": 1}, "b": {"WER": 2}}}, {"WER": {"b": {"WER": 3}}, "CER": {"a": {"CER": 4}}})
    {'WER': {'a': {'WER': 1}, 'b': {'WER': 3}}, 'CER': {'a': {'CER': 4}}}
    """
    merged = {key: dict(tests) for key, tests in old.items()}
    for key, tests in new.items():
        merged.setdefault(key, {}).update(tests)
    return merged


def write_metrics_json(path: Path, results: Mapping[str, Any]) -> None:
    """Write ``results`` to ``path`` atomically, indent 2."""
    with atomic_open(path) as f:
        json.dump(results, f, indent=2)
        f.write("\n")


# -- the stage -------------------------------------------------------------------------------


def measure(
    metrics_config: Any,
    inference_config: Any = None,
    *,
    overrides: Sequence[str] = (),
    progress: Progress | None = None,
) -> MeasureResults:
    """Score every metric entry on its test sets; write and return ``{key: {test_name: {output: value}}}``.

    ``metrics_config`` is a mapping, a DictConfig or a YAML path; ``overrides``
    are OmegaConf dot-list items (``inference_dir=exp/decode``).
    ``inference_config`` (same forms) supplies ``inference_dir`` and ``dataset``
    when the metrics config does not set them. ``progress(key, test_name, done,
    total)`` is called as rows are scored. A failing pair does not stop the
    others: metrics.json is written, then `MeasureError` names every failure.
    Started by torchrun (or inside a process group), every rank scores only its
    rows and gets the merged results; rank 0 alone writes (`score_sharded`).

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> (d / "dev").mkdir()
    >>> _ = (d / "dev" / "ref.scp").write_text("u1 the cat sat\\n")
    >>> _ = (d / "dev" / "hyp.scp").write_text("u1 the cat\\n")
    >>> config = {"inference_dir": str(d), "metrics": [{"metric": {"_target_": "lightscore.metrics.WER"},
    ...                                                   "inputs": ["ref", "hyp"], "name": "wer"}]}
    >>> measure(config)["wer"]["dev"]["WER"]
    33.33333333333333
    >>> sorted(p.name for p in d.iterdir())
    ['dev', 'metrics.json']
    """
    cfg, where = load_config(metrics_config, overrides)
    if inference_config is not None:
        cfg = _with_inference(cfg, load_config(inference_config)[0])
    inference_dir = inference_dir_of(cfg, where)
    tests = find_test_sets(cfg, inference_dir, where)
    entries = build_entries(cfg, tests, where)
    columns = DatasetColumns(inference_dir, tests, artifact_options_of(cfg, where))
    json_path = inference_dir / "metrics.json"
    previous = read_metrics_json(json_path)
    results, failures = MeasureResults(), []
    pairs = [(entry, test_name) for entry in entries for test_name in entry.tests]
    with process_group() as (rank, world):
        if world > 1:
            inputs = functools.partial(resolve_inputs, inference_dir=inference_dir, columns=columns)
            outcomes = score_sharded(pairs, inputs, inference_dir, rank, world, progress)
        else:
            outcomes = [_score_one(entry, test_name, inference_dir, columns, progress) for entry, test_name in pairs]
    for (entry, test_name), outcome in zip(pairs, outcomes):
        if isinstance(outcome, BaseException):  # one failing pair must not lose the others' results
            failures.append((entry.key, test_name, outcome))
        else:
            results.setdefault(entry.key, {})[test_name] = outcome
    if rank == 0:
        write_metrics_json(json_path, merge_results(previous, results))
    results.path = json_path
    if failures:
        raise MeasureError(failures, results)
    return results


def _score_one(
    entry: Entry, test_name: str, inference_dir: Path, columns: DatasetColumns, progress: Progress | None
) -> dict | BaseException:
    """One (metric, test set) pair in this process: its result, or the error that stopped it."""
    report = functools.partial(progress, entry.key, test_name) if progress else None
    try:
        data = resolve_inputs(entry, test_name, inference_dir, columns)
        return score_test_set(entry.metric, data, test_name, inference_dir, report)
    except Exception as e:
        return e


def _with_inference(cfg: Any, inference: Any) -> Any:
    """Fill ``inference_dir`` and ``dataset`` from the inference config where the metrics config lacks them."""
    from omegaconf import OmegaConf

    for key in ("inference_dir", "dataset"):
        if OmegaConf.select(cfg, key, default=None, throw_on_missing=False) is None and key in inference:
            cfg = OmegaConf.merge(cfg, {key: inference[key]})
    return cfg
