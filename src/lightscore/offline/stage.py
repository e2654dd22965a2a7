"""`measure()`: the offline stage, from a metrics config to ``<inference_dir>/metrics.json``.

It re-scores saved hypotheses with the metric classes that run in training:
the config is checked (`lightscore.offline.config`), every (metric, test set) pair
becomes a `lightscore.core.runner.Job`, the runner scores them all in one loop, and
the results are merged into metrics.json (`lightscore.offline.results`). One process is
a world of one; under ``torchrun`` the ranks share the rows of every pair and
rank 0 writes (``docs/scale-out.md``).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from lightscore.core.metric import Progress
from lightscore.core.runner import ArtifactError, Job, score_jobs
from lightscore.io.atomic import check_writable
from lightscore.offline.config import (
    Entry,
    artifact_options_of,
    build_entries,
    find_test_sets,
    inference_dir_of,
    load_config,
    resolve_inputs,
    with_inference,
)
from lightscore.offline.dataset_columns import DatasetColumns
from lightscore.offline.results import MeasureError, MeasureResults, read_metrics_json, save_results

__all__ = ["measure", "process_group"]


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


def _barrier(world: int) -> None:
    if world > 1:
        import torch.distributed as dist

        dist.barrier()


def _jobs(entries: Sequence[Entry], inference_dir: Path, columns: DatasetColumns, rank: int, world: int) -> list[Job]:
    """Every (entry, test set) job with its files bound; rank 0 writes any dataset column files first."""
    if rank > 0:
        _barrier(world)  # the other ranks then find rank 0's column files ready
    jobs = []
    for entry in entries:
        for test_name in entry.tests:
            try:
                data: Any = resolve_inputs(entry, test_name, inference_dir, columns)
            except Exception as e:
                data = e
            jobs.append(Job(entry.key, entry.metric, test_name, data))
    if rank == 0:
        _barrier(world)
    return jobs


def measure(
    metrics_config: Any,
    inference_config: Any = None,
    *,
    overrides: Sequence[str] = (),
    progress: Progress | None = None,
) -> MeasureResults:
    """Score every metric entry on its test sets; write and return ``{key: {test_name: {output: value}}}``.

    Started by torchrun (or inside a process group), every rank scores only its
    rows and gets the merged results; rank 0 alone writes.

    Args:
        metrics_config: A mapping, a DictConfig or a YAML path (``docs/measure.md``).
        inference_config: Same forms; supplies ``inference_dir`` and ``dataset``
            where the metrics config does not set them.
        overrides: OmegaConf dot-list items, e.g. ``inference_dir=exp/decode``.
        progress: ``progress(key, test_name, rows_done, rows_total)`` as rows are scored.

    Returns:
        The results of this run; ``.path`` is the metrics.json written.

    Raises:
        MeasureError: some pairs failed; metrics.json holds the others' results
            and the error lists every failure. Also when metrics.json could not
            be written at the end: ``written`` is False and ``results`` holds
            everything that was scored.
        ValueError, TypeError, FileNotFoundError: the config is wrong; nothing is scored.

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> (d / "dev").mkdir()
    >>> _ = (d / "dev" / "ref.scp").write_text("u1 the cat sat\\n")
    >>> _ = (d / "dev" / "hyp.scp").write_text("u1 the cat\\n")
    >>> config = {"inference_dir": str(d), "metrics": [{"metric": {"_target_": "lightscore.metrics.WER"},
    ...                                                   "inputs": ["ref", "hyp"], "name": "wer"}]}
    >>> measure(config)["wer"]["dev"]["WER"]
    33.33333333333333
    >>> sorted(p.name for p in d.iterdir())  # the lock file lets concurrent runs take turns
    ['.metrics.json.lock', 'dev', 'metrics.json']
    """
    cfg, where = load_config(metrics_config, overrides)
    if inference_config is not None:
        cfg = with_inference(cfg, load_config(inference_config)[0])
    inference_dir = inference_dir_of(cfg, where)
    tests = find_test_sets(cfg, inference_dir, where)
    entries = build_entries(cfg, tests, where)
    columns = DatasetColumns(inference_dir, tests, artifact_options_of(cfg, where))
    json_path = inference_dir / "metrics.json"
    read_metrics_json(json_path)  # a malformed file stops the run before anything is scored
    check_writable(inference_dir)  # so does a folder the results could not be written into
    with process_group() as (rank, world):
        jobs = _jobs(entries, inference_dir, columns, rank, world)
        outcomes = score_jobs(jobs, inference_dir, rank=rank, world=world, progress=progress)
    results, failures = MeasureResults(), []
    results.path = json_path
    for job, outcome in zip(jobs, outcomes):
        if isinstance(outcome, ArtifactError):  # scored: the result is kept, the missing files reported
            results.setdefault(job.key, {})[job.test_name] = outcome.result
        if isinstance(outcome, BaseException):  # one failing pair must not lose the others' results
            failures.append((job.key, job.test_name, outcome))
        else:
            results.setdefault(job.key, {})[job.test_name] = outcome
    written = True
    if rank == 0:
        try:
            save_results(json_path, results)
        except (OSError, ValueError) as e:
            failures.append(("metrics.json", str(inference_dir), OSError(f"cannot write {json_path}: {e}")))
            written = False
    if failures:
        raise MeasureError(failures, results, written)
    return results
