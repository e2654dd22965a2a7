"""Results across test sets in ``measure()``: the pooled result (merged states) and the macro average.

The runner hands every scored (metric, test set) job's states to a `Pool`
(``score_jobs(on_states=...)``); for a metric scored on two or more test sets the
pool merges all their states through `lightscore.core.merge.merged_result`, which is
exactly the result on the concatenated test sets, on any number of ranks. The
macro row is the mean over test sets (`lightscore.report.scoreboard.macro_average`).
Both go into metrics.json under the reserved names ``pooled`` and ``macro``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lightscore.core.contract import StateValue
from lightscore.core.merge import merged_result
from lightscore.core.runner import Job
from lightscore.report.scoreboard import MACRO, POOLED, macro_average, write_scoreboard

__all__ = ["Pool", "write_measure_scoreboard"]


class Pool:
    """Collects the states of each metric's test sets while the runner scores them.

    >>> from lightscore.metrics import WER
    >>> a, b = WER(), WER()
    >>> a.update(ref=["a b"], hyp=["a"]); b.update(ref=["c d e f"], hyp=["c d e f"])
    >>> pool = Pool()
    >>> pool(Job("wer", a, "dev", {}), [a.state()]); pool(Job("wer", a, "test", {}), [b.state()])
    >>> pool.combined({"wer": {"dev": a.compute(), "test": b.compute()}})["wer"][POOLED]["WER"]
    16.666666666666664
    """

    def __init__(self) -> None:
        self.states: dict[str, list[dict[str, StateValue]]] = {}
        self.tests: dict[str, list[str]] = {}
        self.metrics: dict[str, Any] = {}

    def __call__(self, job: Job, states: list[dict[str, StateValue]]) -> None:
        """Keep one scored job's states (all ranks'), as ``score_jobs(on_states=...)`` calls it."""
        self.states.setdefault(job.key, []).extend(states)
        self.tests.setdefault(job.key, []).append(job.test_name)
        self.metrics[job.key] = job.metric

    def combined(self, results: Mapping[str, Mapping[str, Mapping[str, float]]]) -> dict[str, dict[str, dict]]:
        """``{key: {"pooled": ..., "macro": ...}}`` for each metric this run scored on two or more test sets.

        Args:
            results: This run's ``{key: {test_name: result}}``.

        Returns:
            The combined results by key; a metric whose pooled state does not compute is left out.
        """
        combined: dict[str, dict[str, dict]] = {}
        for key, tests in self.tests.items():
            if len(tests) < 2:
                continue
            per_test = {test: results[key][test] for test in tests if test in results.get(key, {})}
            entry: dict[str, dict] = {MACRO: macro_average(per_test)}
            try:
                entry[POOLED] = merged_result(self.metrics[key], self.states[key])
            except ValueError:
                pass  # e.g. a pooled state with nothing to score: the per-test errors already say so
            combined[key] = entry
        return combined


def write_measure_scoreboard(inference_dir: Path, results: Mapping[str, Mapping[str, Mapping[str, float]]]) -> None:
    """Write ``<inference_dir>/scoreboard.{md,csv,json}``: a row per test set, then pooled and macro.

    Each row holds every metric's outputs for that test set (the metrics' output names differ:
    WER, CER, BLEU...).

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> write_measure_scoreboard(d, {"wer": {"a": {"WER": 10.0}, "b": {"WER": 20.0}, "macro": {"WER": 15.0}}})
    >>> print((d / "scoreboard.md").read_text().strip())
    | test | WER |
    |---|---|
    | a | 10 |
    | b | 20 |
    | macro | 15 |
    """
    rows: dict[str, dict[str, Any]] = {}
    for per_test in results.values():
        for test, result in per_test.items():
            rows.setdefault(test, {}).update(result)
    order = [t for t in rows if t not in (POOLED, MACRO)] + [t for t in (POOLED, MACRO) if t in rows]
    write_scoreboard(inference_dir / "scoreboard", [{"test": test, **rows[test]} for test in order])
