"""The offline runner: drives metrics over SCP files, one process or many, through one loop.

For every job (a metric on one test set) each rank feeds its share of the rows
to ``update`` in ``chunk_size`` batches (`update_from_files`), exports
``state()``, and ONE gather hands every rank all ranks' states or errors
(`lightscore.core.distributed.gather_outcomes`). Each job's states then go through
`lightscore.core.merge.merged_result`, and rank 0 writes the artifacts. A single
process is the same loop with a world size of 1: its one state is merged too,
so a metric whose ``merge_states`` is wrong fails on one machine, not only on
eight. `BaseMetric.__call__` and `lightscore.measure` both run `score_jobs`.

>>> import tempfile
>>> from pathlib import Path
>>> from lightscore.metrics import WER
>>> d = Path(tempfile.mkdtemp())
>>> _ = (d / "ref.scp").write_text("u1 the cat sat\\n")
>>> _ = (d / "hyp.scp").write_text("u1 the cat\\n")
>>> [outcome] = score_jobs([Job("wer", WER(), "dev", {"ref": d / "ref.scp", "hyp": d / "hyp.scp"})])
>>> outcome["WER"]
33.33333333333333
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lightscore.core.batch import feed
from lightscore.core.contract import Progress, StateValue, metric_name
from lightscore.core.distributed import gather_outcomes
from lightscore.core.merge import merged_result
from lightscore.core.state import MetricState  # annotations only: every metric is one
from lightscore.scp.files import ScpShard, count_scp_rows

__all__ = ["ArtifactError", "Job", "count_rows", "score_jobs", "score_one", "update_from_files", "write_artifacts_of"]


class ArtifactError(RuntimeError):
    """A job scored, but writing its artifacts failed: ``result`` holds the result, ``__cause__`` the failure.

    >>> e = ArtifactError({"WER": 1.0}, OSError("disk full"))
    >>> e.result, str(e)
    ({'WER': 1.0}, 'scored, but its artifacts could not be written: OSError: disk full')
    """

    def __init__(self, result: dict, error: BaseException) -> None:
        super().__init__(f"scored, but its artifacts could not be written: {type(error).__name__}: {error}")
        self.result = result
        self.__cause__ = error


@dataclass
class Job:
    """One metric on one test set: its result key, the metric, the test set and its bound SCP files.

    ``data`` is an exception instead when binding the files failed; the job then
    fails with it, and the other jobs go on.
    """

    key: str
    metric: MetricState
    test_name: str
    data: Mapping[str, Any] | BaseException


def count_rows(metric: MetricState, data: Mapping[str, Any]) -> int:
    """Rows in the first bound input file: the total a progress bar counts to.

    >>> import tempfile
    >>> from lightscore.metrics import WER
    >>> p = Path(tempfile.mkdtemp()) / "hyp.scp"
    >>> _ = p.write_text("u1 a\\nu2 b\\n")
    >>> count_rows(WER(), {"hyp": p})
    2
    """
    first = next(f.name for f in metric.inputs if f.name in data)
    return count_scp_rows(data[first])


def update_from_files(
    metric: MetricState,
    data: Mapping[str, Any],
    *,
    rank: int = 0,
    world: int = 1,
    report: Any = None,
) -> dict[str, StateValue]:
    """Reset ``metric``, feed it this rank's rows of the SCP files in ``data``; return its ``state()``.

    Rows ``i`` with ``i % world == rank`` are this rank's (`lightscore.scp.files.ScpShard`).
    An error in ``update`` names the utterance and the files.

    Args:
        metric: The metric to feed.
        data: Input name -> SCP path.
        rank: This process's rank.
        world: How many ranks share the rows.
        report: Called with the rows done and the total after each batch (or None).

    Returns:
        The metric's state after the last batch.

    >>> import tempfile
    >>> from lightscore.metrics import WER
    >>> d = Path(tempfile.mkdtemp())
    >>> _ = (d / "ref.scp").write_text("u1 a b\\nu2 c\\nu3 d\\n")
    >>> update_from_files(WER(), {"ref": d / "ref.scp", "hyp": d / "ref.scp"}, rank=1, world=2)["ref_len"]
    1
    """
    files = {name: (ScpShard(path, rank, world) if world > 1 else path) for name, path in data.items()}
    where = ", ".join(str(Path(path)) for path in data.values())
    metric.reset()
    total = count_rows(metric, files) if report is not None else 0
    done = 0
    if report is not None:
        report(done, total)
    for ids, batch in metric.iter_batches(files):
        feed(metric, batch, ids, where)
        done += len(ids)
        if report is not None:
            report(done, total)
    return metric.state()


def write_artifacts_of(
    metric: MetricState,
    data: Mapping[str, Any],
    test_name: str,
    output_dir: str | Path,
    part: tuple[int, int] | None = None,
) -> None:
    """Run ``metric.write_artifacts(output_dir / test_name)`` inside ``metric.scoring_files(data, part)``.

    While it runs, ``metric.artifact_inputs`` is ``data`` and ``collect_artifacts``
    is True. With ``part=(rank, world)``, ``artifact_inputs`` holds this rank's
    contiguous block of rows and ``metric.artifact_part`` is ``part``: the metric
    writes its part (see `BaseMetric.writes_artifact_parts`).

    >>> import tempfile
    >>> from lightscore.metrics import WER
    >>> d = Path(tempfile.mkdtemp())
    >>> _ = (d / "ref.scp").write_text("u1 the cat\\n")
    >>> m = WER(); m.update(ref=["the cat"], hyp=["the cat"])
    >>> write_artifacts_of(m, {"ref": d / "ref.scp", "hyp": d / "ref.scp"}, "dev", d)
    >>> (d / "dev" / "wer_alignment").read_text().split("\\n")[0]
    '%WER 0.00 [ 0 / 2, 0 ins, 0 del, 0 sub ]'
    """
    test_dir = Path(output_dir) / test_name
    test_dir.mkdir(parents=True, exist_ok=True)
    if part is not None:
        rank, world = part
        data = {name: ScpShard(path, rank, world, rows=count_scp_rows(path)) for name, path in data.items()}
    with metric.scoring_files(data, part):
        metric.write_artifacts(test_dir)


def _update_job(job: Job, rank: int, world: int, collect: bool, progress: Progress | None) -> Any:
    """This rank's state of one job, or the exception that stopped it."""
    if isinstance(job.data, BaseException):
        return job.data
    report = None
    if progress is not None and rank == 0:

        def report(done: int, total: int) -> None:
            progress(job.key, job.test_name, done, total)

    try:
        with job.metric.scoring_files(job.data if collect else None):
            return update_from_files(job.metric, job.data, rank=rank, world=world, report=report)
    except Exception as e:
        return e


def score_jobs(
    jobs: Sequence[Job],
    output_dir: str | Path | None = None,
    *,
    rank: int = 0,
    world: int = 1,
    progress: Progress | None = None,
    on_states: Callable[[Job, list[dict[str, StateValue]]], None] | None = None,
) -> list[dict | BaseException]:
    """Score every job across the ranks: each job's checked result or the error that stopped it, on every rank.

    Every rank of the process group must call it with the same jobs. A job that
    failed on any rank fails everywhere with that rank's error; the others go on.

    Args:
        jobs: The (metric, test set) jobs, in the same order on every rank.
        output_dir: Where rank 0 writes artifacts (``output_dir / test_name``); None writes none.
        rank: This process's rank.
        world: The number of ranks.
        progress: ``progress(key, test_name, done, total)``, called on rank 0.
        on_states: Called on every rank with each job that scored and all ranks' states of it
            (what `lightscore.measure` pools across test sets).

    Returns:
        One result dict or exception per job, in order; an `ArtifactError`
        (which carries the result) when only writing the artifacts failed.
    """
    collect = output_dir is not None
    local = [_update_job(job, rank, world, collect, progress) for job in jobs]
    outcomes: list[dict | BaseException] = []
    for job, states in zip(jobs, gather_outcomes(local)):
        error = next((s for s in states if isinstance(s, BaseException)), None)
        if error is not None:
            outcomes.append(error)
            continue
        try:
            result = merged_result(job.metric, states)
        except Exception as e:
            outcomes.append(e)
            continue
        if on_states is not None:
            on_states(job, states)
        error = _write_artifacts(job, output_dir, rank, world) if collect else None
        # The result stands when only its files are missing.
        outcomes.append(result if error is None else ArtifactError(result, error))
    return outcomes


def _write_artifacts(job: Job, output_dir: str | Path, rank: int, world: int) -> BaseException | None:
    """Write one job's artifacts: each rank its part when the metric can, else rank 0 alone; the error, if any."""
    parts = world > 1 and job.metric.writes_artifact_parts()  # the same answer on every rank
    error = None
    if parts or rank == 0:
        try:
            write_artifacts_of(job.metric, job.data, job.test_name, output_dir, part=(rank, world) if parts else None)
        except Exception as e:
            error = e
    if not parts:
        return error
    # Every rank's part is on disk (or its error is known) before rank 0 joins them.
    errors = [e for e in gather_outcomes([error])[0] if isinstance(e, BaseException)]
    if errors:
        return errors[0]
    if rank == 0:
        try:
            job.metric.join_artifact_parts(Path(output_dir) / job.test_name, world)
        except Exception as e:
            return e
    return None


def score_one(
    metric: MetricState,
    data: Mapping[str, Any],
    test_name: str,
    output_dir: str | Path | None = None,
    *,
    progress: Progress | None = None,
) -> dict:
    """Score one metric on one test set in this process (`BaseMetric.__call__`); raise its error if it failed.

    >>> import tempfile
    >>> from lightscore.metrics import CER
    >>> d = Path(tempfile.mkdtemp())
    >>> _ = (d / "ref.scp").write_text("u1 abc\\n")
    >>> _ = (d / "hyp.scp").write_text("u1 abd\\n")
    >>> score_one(CER(), {"ref": d / "ref.scp", "hyp": d / "hyp.scp"}, "dev", progress=print)["CER_sub"]
    lightscore.metrics.error_rate.CER dev 0 1
    lightscore.metrics.error_rate.CER dev 1 1
    1
    """
    [outcome] = score_jobs([Job(metric_name(metric), metric, test_name, data)], output_dir, progress=progress)
    if isinstance(outcome, BaseException):
        raise outcome
    return outcome
