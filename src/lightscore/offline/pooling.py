"""Results across test sets in ``measure()``: the pooled result (merged states) and the macro average.

The runner hands every scored (metric, test set) job's states to a `Pool`
(``score_jobs(on_states=...)``); for a metric scored on two or more test sets the
pool merges all their states through `lightscore.core.merge.merged_result`, which is
exactly the result on the concatenated test sets, on any number of ranks. The
macro row is the mean over test sets (`lightscore.report.scoreboard.macro_average`).
Both go into metrics.json under the reserved names ``pooled`` and ``macro``.

A metric whose job failed on one of its test sets gets neither: its pooled and
macro rows are ``{"failed": [those test sets]}`` (docs/scoreboard.md), never a
number from the sets that happened to work.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lightscore.core.contract import StateValue
from lightscore.core.merge import merged_result
from lightscore.core.runner import Job
from lightscore.report.scoreboard import FAILED, MACRO, POOLED, failed_note, macro_average, write_scoreboard

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

    def combined(
        self, results: Mapping[str, Mapping[str, Mapping[str, float]]], failed: Mapping[str, Sequence[str]] = {}
    ) -> dict[str, dict[str, dict]]:
        """``{key: {"pooled": ..., "macro": ...}}`` for each metric this run scored on two or more test sets.

        Args:
            results: This run's ``{key: {test_name: result}}``.
            failed: key -> the test sets whose job failed in this run.

        Returns:
            The combined results by key; a metric whose pooled state does not compute is left out. A metric
            with a failed test set gets ``{"failed": [test sets]}`` as both rows: the rule is to fail them.

        >>> Pool().combined({}, failed={"wer": ["dev", "test"]})
        {'wer': {'pooled': {'failed': ['dev', 'test']}, 'macro': {'failed': ['dev', 'test']}}}
        """
        combined: dict[str, dict[str, dict]] = {}
        for key in dict.fromkeys([*self.tests, *failed]):
            tests = self.tests.get(key, [])
            lost = list(failed.get(key, ()))
            if len(tests) + len(lost) < 2:
                continue
            if lost:
                combined[key] = {POOLED: {FAILED: lost}, MACRO: {FAILED: lost}}
                continue
            per_test = {test: results[key][test] for test in tests if test in results.get(key, {})}
            entry: dict[str, dict] = {MACRO: macro_average(per_test)}
            try:
                entry[POOLED] = merged_result(self.metrics[key], self.states[key])
            except ValueError:
                pass  # e.g. a pooled state with nothing to score: the per-test errors already say so
            combined[key] = entry
        return combined


def write_measure_scoreboard(
    inference_dir: Path,
    results: Mapping[str, Mapping[str, Mapping[str, Any]]],
    failed: Mapping[str, Sequence[str]] = {},
) -> None:
    """Write ``<inference_dir>/scoreboard.{md,csv,json}``: a row per test set, then pooled and macro.

    Each row holds every metric's outputs for that test set (the metrics' output names differ:
    WER, CER, BLEU...). A test set whose job failed shows ``failed`` in its metric's columns, and a
    pooled or macro row that was not computed says which sets failed (`failed_note`).

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> write_measure_scoreboard(d, {"wer": {"a": {"WER": 10.0}, "b": {"WER": 20.0}, "macro": {"WER": 15.0}}})
    >>> print((d / "scoreboard.md").read_text().strip())
    | test | WER |
    |---|---|
    | a | 10 |
    | b | 20 |
    | macro | 15 |
    >>> write_measure_scoreboard(d, {"wer": {"a": {"WER": 10.0}, "macro": {"failed": ["b"]}}}, {"wer": ["b"]})
    >>> print((d / "scoreboard.md").read_text().strip())
    | test | WER |
    |---|---|
    | a | 10 |
    | b | failed |
    | macro | not computed: b failed |
    """
    rows: dict[str, dict[str, Any]] = {}
    for key in dict.fromkeys([*results, *failed]):
        per_test = results.get(key, {})
        outputs = list(dict.fromkeys(name for result in per_test.values() for name in result if name != FAILED))
        outputs = outputs or [key]  # every set failed: the key names the column
        for test, result in per_test.items():
            shown = {name: failed_note(result[FAILED]) for name in outputs} if FAILED in result else result
            rows.setdefault(test, {}).update(shown)
        for test in failed.get(key, ()):
            rows.setdefault(test, {}).update(dict.fromkeys(outputs, FAILED))
    order = [t for t in rows if t not in (POOLED, MACRO)] + [t for t in (POOLED, MACRO) if t in rows]
    write_scoreboard(inference_dir / "scoreboard", [{"test": test, **rows[test]} for test in order])
