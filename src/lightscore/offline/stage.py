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
import errno
import os
import signal
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from lightscore.core.metric import Progress
from lightscore.core.runner import ArtifactError, Job, score_jobs
from lightscore.io.atomic import check_writable
from lightscore.offline.bindings import resolve_inputs, resolve_sclite
from lightscore.offline.config import (
    Entry,
    artifact_options_of,
    build_entries,
    find_test_sets,
    inference_dir_of,
    load_config,
    scoreboard_of,
    with_inference,
)
from lightscore.offline.dataset_columns import DatasetColumns
from lightscore.offline.interrupts import MeasureInterrupted, signals_stop_scoring
from lightscore.offline.launcher import exit_when_orphaned, launched_by_torchrun
from lightscore.offline.pooling import Pool, write_measure_scoreboard
from lightscore.offline.results import MeasureError, MeasureResults, read_metrics_json, save_results
from lightscore.report.scoreboard import RESERVED

__all__ = ["RENDEZVOUS_TIMEOUT", "RENDEZVOUS_TIMEOUT_VAR", "measure", "process_group", "rendezvous_timeout"]

RENDEZVOUS_TIMEOUT_VAR = "LIGHTSCORE_RENDEZVOUS_TIMEOUT"
RENDEZVOUS_TIMEOUT = 300.0
"""Seconds a rank waits for the others to join the process group ``measure()`` starts (docs/scale-out.md)."""


def rendezvous_timeout() -> float:
    """Seconds to wait for every rank at the rendezvous: ``$LIGHTSCORE_RENDEZVOUS_TIMEOUT``, else 300.

    Raises:
        ValueError: the variable is not a positive number of seconds.

    >>> rendezvous_timeout()
    300.0
    """
    given = os.environ.get(RENDEZVOUS_TIMEOUT_VAR, "").strip()
    if not given:
        return RENDEZVOUS_TIMEOUT
    try:
        seconds = float(given)
    except ValueError:
        seconds = float("nan")
    if not seconds > 0 or seconds == float("inf"):
        raise ValueError(f"{RENDEZVOUS_TIMEOUT_VAR}={given!r} is not a positive number of seconds")
    return seconds


def _start_group() -> None:
    """Start the gloo group from torchrun's environment, waiting at most `rendezvous_timeout` for the ranks.

    Only the rendezvous is bounded this way: once the group is up, its collectives keep torch's own
    timeout, so a rank may wait long for one that is still writing artifacts.
    """
    import datetime

    import torch.distributed as dist
    from torch.distributed.rendezvous import rendezvous

    seconds = rendezvous_timeout()
    world = os.environ.get("WORLD_SIZE")
    where = f"{os.environ.get('MASTER_ADDR', '?')}:{os.environ.get('MASTER_PORT', '?')}"
    try:
        store, rank, size = next(rendezvous("env://", timeout=datetime.timedelta(seconds=seconds)))
    except Exception as e:
        raise RuntimeError(
            f"rank {os.environ.get('RANK', '?')} of {world}: the other ranks did not all join the process group "
            f"at {where} (MASTER_ADDR:MASTER_PORT, world size {world}) within {seconds:g} s "
            f"({RENDEZVOUS_TIMEOUT_VAR}): a rank never started, or its launcher (torchrun) died. "
            f"Cause: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
        ) from None
    store.set_timeout(datetime.timedelta(seconds=seconds))  # the group's own set-up waits no longer either
    dist.init_process_group("gloo", store=store, rank=rank, world_size=size)


@contextlib.contextmanager
def process_group() -> Iterator[tuple[int, int]]:
    """``(rank, world_size)`` of this process: ``(0, 1)`` alone, the group's under torchrun.

    When ``WORLD_SIZE`` (set by torchrun) is above 1 and no process group is up,
    a gloo group is started from torchrun's environment for the block and
    destroyed after it; a group the caller started is used as it is. torch is
    imported only then. A rank waits at most `rendezvous_timeout` seconds
    (``$LIGHTSCORE_RENDEZVOUS_TIMEOUT``, default 300) for the others to join. A rank torchrun started
    exits (status 129) within a second once torchrun's agent is gone (`exit_when_orphaned`).

    Raises:
        RuntimeError: the ranks did not all join in time; the message names
            ``MASTER_ADDR:MASTER_PORT`` and the world size.

    >>> with process_group() as (rank, world):
    ...     rank, world
    (0, 1)
    """
    if "torch.distributed" not in sys.modules and int(os.environ.get("WORLD_SIZE", "1")) <= 1:
        yield 0, 1
        return
    import torch.distributed as dist

    started = not dist.is_initialized() and int(os.environ.get("WORLD_SIZE", "1")) > 1
    with exit_when_orphaned(started and launched_by_torchrun()):
        if started:
            _start_group()
        try:
            yield (dist.get_rank(), dist.get_world_size()) if dist.is_initialized() else (0, 1)
        finally:
            if started:
                dist.destroy_process_group()


def _check_inference_dir_writable(inference_dir: Path, where: str) -> None:
    """Raise OSError naming ``inference_dir`` and why unless metrics.json could be created in it."""
    try:
        check_writable(inference_dir)
    except OSError as e:
        # An existing folder that answers "no such file" to a new file is a virtual file system (/proc, /sys).
        why = (
            "the file system says 'No such file or directory' for a folder that exists, as /proc and /sys do"
            if e.errno == errno.ENOENT
            else os.strerror(e.errno or 0)
        )
        raise OSError(
            f"{where}: cannot write results into {inference_dir}: a new file cannot be created there ({why}); "
            "point inference_dir at a folder you can write (metrics.json goes there)"
        ) from None


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
            metric = entry.metric
            try:
                if entry.sclite is None:
                    data: Any = resolve_inputs(entry, test_name, inference_dir, columns)
                else:
                    data, metric = resolve_sclite(entry, test_name, inference_dir, columns, write=rank == 0)
            except Exception as e:
                data = e
            jobs.append(Job(entry.key, metric, test_name, data))
    if rank == 0:
        _barrier(world)
    return jobs


def measure(
    metrics_config: Any,
    inference_config: Any = None,
    *,
    overrides: Sequence[str] = (),
    progress: Progress | None = None,
    scoreboard: bool = False,
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
        scoreboard: Also score each metric across its test sets: ``pooled`` (its merged states) and
            ``macro`` (the mean over test sets) in metrics.json under those reserved names, and
            ``<inference_dir>/scoreboard.md``, ``.csv`` and ``.json`` (a row per test set, then
            pooled and macro; docs/scoreboard.md). The config key ``scoreboard: true`` does the same.

    Returns:
        The results of this run; ``.path`` is the metrics.json written.

    Raises:
        MeasureInterrupted: SIGINT (Ctrl-C) or SIGTERM arrived while scoring; the results of the pairs that
            finished were written first (a `KeyboardInterrupt`; ``exit_status`` is 128 + the signal).
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
    _check_inference_dir_writable(inference_dir, where)  # so does a folder the results could not be written into
    stopped: KeyboardInterrupt | None = None
    with process_group() as (rank, world), signals_stop_scoring():
        jobs = _jobs(entries, inference_dir, columns, rank, world)
        pool = Pool()  # every scored pair's states: a metric on several test sets gets pooled and macro results
        outcomes: list[Any] = []
        try:
            for job in jobs:  # one job at a time: Ctrl-C or SIGTERM keeps the result of every finished job
                outcomes += score_jobs([job], inference_dir, rank=rank, world=world, progress=progress, on_states=pool)
        except KeyboardInterrupt as e:
            stopped = e
    scoreboard = stopped is None and (scoreboard or scoreboard_of(cfg, where))
    results, failures, written = _write_results(jobs, outcomes, pool, json_path, rank, scoreboard)
    if stopped is not None:
        signum = getattr(stopped, "signum", signal.SIGINT)
        raise MeasureInterrupted(signum, results, len(outcomes), len(jobs), written) from None
    if failures:
        raise MeasureError(failures, results, written)
    return results


def _write_results(
    jobs: Sequence[Job], outcomes: Sequence[Any], pool: Pool, json_path: Path, rank: int, scoreboard: bool
) -> tuple[MeasureResults, list[tuple[str, str, BaseException]], bool]:
    """This run's results, failures and whether metrics.json was written; rank 0 writes them (and the scoreboard).

    ``outcomes`` may be shorter than ``jobs`` (an interrupted run): the jobs without one are left out.
    """
    inference_dir = json_path.parent
    results, failures = MeasureResults(), []
    results.path = json_path
    for job, outcome in zip(jobs, outcomes):
        if isinstance(outcome, ArtifactError):  # scored: the result is kept, the missing files reported
            results.setdefault(job.key, {})[job.test_name] = outcome.result
        if isinstance(outcome, BaseException):  # one failing pair must not lose the others' results
            failures.append((job.key, job.test_name, outcome))
        else:
            results.setdefault(job.key, {})[job.test_name] = outcome
    failed: dict[str, list[str]] = {}
    for key, test_name, _ in failures:
        failed.setdefault(key, []).append(test_name)
    for key, combined in (pool.combined(results, failed) if scoreboard else {}).items():
        results.setdefault(key, {}).update(combined)
    # No stale row survives: a pair that failed loses its old result, and a metric scored in this run loses
    # old pooled and macro rows this run does not replace (they were made from other per-set results).
    drop = [(key, test) for key, tests in failed.items() for test in tests]
    drop += [(key, row) for key in {*results, *failed} for row in RESERVED]
    written = True
    if rank == 0:
        try:
            save_results(json_path, results, drop)
        except (OSError, ValueError) as e:
            failures.append(("metrics.json", str(inference_dir), OSError(f"cannot write {json_path}: {e}")))
            written = False
        if scoreboard:
            try:
                write_measure_scoreboard(inference_dir, results, failed)
            except OSError as e:
                failures.append(("scoreboard", str(inference_dir), e))
    return results, failures, written
