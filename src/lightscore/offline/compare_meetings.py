"""Is system B better than A on meetings? A paired bootstrap over sessions per test set, then pooled and macro.

What ``lightscore compare --metric cpwer|orcwer|tcpwer|der|jer|... --set NAME REF HYP_A HYP_B ...`` runs.
A meeting metric's corpus value is a ratio of sums over sessions, so a session is the unit that is
resampled (its words are not independent: one speaker assignment covers the whole session):

- the meeting word error rates (cpWER, ORC-WER, tcpWER and the others whose counts hold ``errors`` and
  ``length``): errors / reference words;
- DER: missed + false alarm + confusion time / scored reference speech time;
- JER: the sum of each reference speaker's Jaccard error / reference speakers.

The denominator belongs to the reference, so both systems share it and
`lightscore.analysis.bootstrap.paired_bootstrap` (one set, seed ``seed + k``) and
`lightscore.analysis.stratified.stratified_paired_bootstrap` (pooled and macro) apply as they do to the
error rates' utterances, in the same output shape (`lightscore.offline.compare_sets.sets_summary`).
A metric whose result is not one such ratio (purity and coverage) is refused.
"""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Callable, Sequence
from typing import Any

from lightscore.core.batch import feed
from lightscore.core.merge import merged_result
from lightscore.offline.compare_sets import TestSet, checked_sets, naming_set, sets_summary
from lightscore.report.scoreboard import MACRO, POOLED
from lightscore.scp.files import read_scp
from lightscore.segments import write_session_scps

__all__ = ["compare_meeting_sets", "compare_meetings", "session_ratios"]


def session_ratios(metric: Any) -> tuple[list[str], list[float], list[float]]:
    """Each scored session's id, numerator and denominator of the metric's corpus ratio, sorted by session.

    Args:
        metric: A meeting metric holding its merged state (`lightscore.metrics.meeting_base.MeetingMetric`).

    Returns:
        ``(sessions, numerators, denominators)``; the corpus value is ``100 * sum(numerators) / sum(denominators)``.

    Raises:
        ValueError: a metric whose result is not one ratio of sums over sessions.

    >>> from lightscore.core.batch import feed
    >>> from lightscore.metrics import CPWER
    >>> ref = '[{"speaker": "A", "start_time": 0, "end_time": 1, "words": "a b"}]'
    >>> m = CPWER(); feed(m, {"ref": [ref], "hyp": [""]}, ["s1"])
    >>> session_ratios(m)
    (['s1'], [2], [2])
    """
    from lightscore.metrics.meeting import DER, JER

    records = metric.session_results()
    sessions = [record[0] for record in records]
    counts = tuple(getattr(metric, "COUNTS", ()))
    if isinstance(metric, JER):
        terms = [record[1] for record in records]
        return sessions, [math.fsum(error / union for _, error, union in t) for t in terms], [len(t) for t in terms]
    if isinstance(metric, DER):
        at = {name: 1 + counts.index(name) for name in ("scored", "missed", "falarm", "confusion")}
        numerators = [r[at["missed"]] + r[at["falarm"]] + r[at["confusion"]] for r in records]
        return sessions, numerators, [r[at["scored"]] for r in records]
    if "errors" in counts and "length" in counts:
        errors, length = 1 + counts.index("errors"), 1 + counts.index("length")
        return sessions, [r[errors] for r in records], [r[length] for r in records]
    raise ValueError(
        f"{metric.name}: comparing systems needs one rate per session (errors over a reference count); "
        f"{type(metric).__name__} reports more than one"
    )


def _scored(make_metric: Callable[[], Any], ref: str | os.PathLike, hyp: str | os.PathLike) -> tuple[Any, dict]:
    """``(metric, result)`` of one system's meeting file against the reference file, a row per reference session."""
    with tempfile.TemporaryDirectory() as tmp:
        scps = write_session_scps(ref, hyp, tmp)
        rows = {side: [(utt, value) for _, utt, value in read_scp(path)] for side, path in scps.items()}
    metric = make_metric()
    batch = {side: [value for _, value in rows[side]] for side in ("ref", "hyp")}
    feed(metric, batch, [utt for utt, _ in rows["ref"]], where=f"{ref}, {hyp}")
    return metric, merged_result(metric, [metric.state()])


def compare_meetings(
    make_metric: Callable[[], Any],
    ref: str | os.PathLike,
    hyp_a: str | os.PathLike,
    hyp_b: str | os.PathLike,
    *,
    ci: float = 0.95,
    bootstrap: int = 1000,
    seed: int = 0,
    level: float = 0.05,
) -> dict[str, Any]:
    """B against A on one set of meeting files: both results and the paired bootstrap over sessions.

    Args:
        make_metric: Builds the meeting metric (``CPWER``, ``DER``... with its options).
        ref, hyp_a, hyp_b: The reference and both systems' meeting files (STM, CTM, SegLST, RTTM).
        ci, bootstrap, seed, level: The interval's coverage, the replicates, the seed, the verdict's level.

    Returns:
        ``metric``, ``settings``, ``utterances`` (sessions), ``ref_tokens`` (reference words for the word
        error rates, else None), ``a`` and ``b`` (the results), ``bootstrap`` (that of
        `lightscore.analysis.bootstrap.paired_bootstrap`, with its ``verdict``) and ``verdict``.

    Raises:
        ValueError: a malformed file or session (named), or a metric without one rate per session.
    """
    return _compared(make_metric, ref, hyp_a, hyp_b, ci, bootstrap, seed, level)[0]


def _compared(
    make_metric: Callable[[], Any], ref: Any, hyp_a: Any, hyp_b: Any, ci: float, bootstrap: int, seed: int, level: float
) -> tuple[dict[str, Any], list[tuple[Any, dict]], tuple]:
    """`compare_meetings`' entry, both ``(metric, result)`` and the set's stratum for the stratified bootstrap."""
    from lightscore.analysis.bootstrap import paired_bootstrap
    from lightscore.analysis.verdict import verdict

    scored = [_scored(make_metric, ref, hyp) for hyp in (hyp_a, hyp_b)]
    (metric, result_a), (_, result_b) = scored
    sessions, errors_a, lengths = session_ratios(metric)
    _, errors_b, lengths_b = session_ratios(scored[1][0])
    if lengths != lengths_b:  # the reference alone sets them: a difference is a bug, not a user's error
        raise RuntimeError(f"{metric.name}: the systems' reference counts differ ({ref})")
    boot = paired_bootstrap(errors_a, errors_b, lengths, ci=ci, replicates=bootstrap, seed=seed)
    boot = {**boot, "block_bootstrap": False, "verdict": verdict(boot, level)}
    name = metric.outputs[0].name
    words = "errors" in getattr(metric, "COUNTS", ())
    entry = {
        "metric": name,
        "settings": metric.settings(),
        "utterances": len(sessions),
        "ref_tokens": sum(lengths) if words else None,
        "a": result_a,
        "b": result_b,
        "bootstrap": boot,
        "verdict": boot["verdict"],
    }
    return entry, scored, (errors_a, errors_b, lengths)


def compare_meeting_sets(
    sets: Sequence[TestSet | tuple],
    make_metric: Callable[[], Any],
    *,
    ci: float = 0.95,
    bootstrap: int = 1000,
    seed: int = 0,
    level: float = 0.05,
) -> dict[str, Any]:
    """B against A on two or more sets of meeting files: per set, pooled and macro, with intervals and p-values.

    Set ``k`` (from 0) is `compare_meetings` with the seed ``seed + k``; pooled (every set's sessions
    as one corpus) and macro (the mean of the sets' values) come from
    `lightscore.analysis.stratified.stratified_paired_bootstrap` over the same draws.

    Args:
        sets: `lightscore.offline.compare_sets.TestSet` (or ``(name, ref, hyp_a, hyp_b)``) per set: meeting files.
        make_metric: Builds the meeting metric with its options.
        ci, bootstrap, seed, level: As `compare_meetings`.

    Returns:
        `lightscore.offline.compare_sets.sets_summary`'s shape (``utterances`` counts sessions).

    Raises:
        ValueError: fewer than two sets, a bad or repeated name, a malformed file (named with its set).
        OSError: a file that cannot be read (named with its set).

    >>> import tempfile, pathlib
    >>> from lightscore.metrics import CPWER
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> for name, hyp_a in (("dev", "a b x"), ("eval", "c")):
    ...     _ = (d / f"{name}.stm").write_text(f"{name}1 1 A 0 1 a b c\\n")
    ...     _ = (d / f"{name}_a.stm").write_text(f"{name}1 1 X 0 1 {hyp_a}\\n")
    ...     _ = (d / f"{name}_b.stm").write_text(f"{name}1 1 X 0 1 a b c\\n")
    >>> sets = [(n, d / f"{n}.stm", d / f"{n}_a.stm", d / f"{n}_b.stm") for n in ("dev", "eval")]
    >>> r = compare_meeting_sets(sets, CPWER, bootstrap=100)
    >>> [(row["test"], round(row["cpWER_a"], 2), row["cpWER_b"]) for row in r["rows"]]
    [('dev', 33.33, 0.0), ('eval', 66.67, 0.0), ('pooled', 50.0, 0.0), ('macro', 50.0, 0.0)]
    """
    from lightscore.analysis.bootstrap import check_replicates
    from lightscore.analysis.stratified import stratified_paired_bootstrap
    from lightscore.analysis.verdict import verdict

    check_replicates(bootstrap, ci, level)
    sets = checked_sets(sets)
    per_set: dict[str, dict[str, Any]] = {}
    every = []
    strata = []
    for k, test in enumerate(sets):
        with naming_set(test.name):
            entry, scored, stratum = _compared(make_metric, *test[1:], ci, bootstrap, seed + k, level)
        per_set[test.name] = {**entry, "files": {"ref": str(test.ref), "a": str(test.hyp_a), "b": str(test.hyp_b)}}
        every.append(scored)
        strata.append(stratum)
    first = per_set[sets[0].name]
    name = first["metric"]
    boot = stratified_paired_bootstrap(strata, ci=ci, replicates=bootstrap, seed=seed)
    pooled = [merged_result(make_metric(), [pair[side][0].state() for pair in every]) for side in (0, 1)]
    macro = [math.fsum(pair[side][1][name] for pair in every) / len(every) for side in (0, 1)]
    words = first["ref_tokens"] is not None
    systems = {
        POOLED: {
            "utterances": sum(e["utterances"] for e in per_set.values()),
            "ref_tokens": sum(e["ref_tokens"] for e in per_set.values()) if words else None,
            "a": pooled[0],
            "b": pooled[1],
        },
        MACRO: {"a": {name: macro[0]}, "b": {name: macro[1]}},
    }
    combined = {}
    for row in (POOLED, MACRO):
        result = {**boot[row], "block_bootstrap": False}
        result["verdict"] = verdict(result, level)
        combined[row] = {**systems[row], "bootstrap": result}
    about = {
        "replicates": bootstrap,
        "stratified": True,
        "block_bootstrap": False,
        "seeds": {test.name: seed + k for k, test in enumerate(sets)},
        "method": "paired bootstrap over sessions per set; pooled and macro resample every set's sessions on their own",
    }
    return sets_summary(name, first["settings"], ci, level, about, per_set, combined)
