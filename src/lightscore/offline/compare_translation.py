"""Scoring and comparing translations from SCP files: what ``lightscore score|compare --metric bleu`` run.

The metrics are `lightscore.metrics.BLEU`, `ChrF` (``chrf``, and ``chrf++`` with
``word_order=2``) and `TranslationEditRate` (``transter``); the comparison is
sacrebleu's paired bootstrap resampling and paired approximate randomization
(`lightscore.analysis.mt_significance`), with sacrebleu's seed and resamples.

Across test sets (`compare_translation_sets`, ``lightscore compare --metric bleu --set ...``), each set
is compared as alone, with sacrebleu's seed plus the set's index; the pooled score (the metric over
every set's segments) and the macro score (the mean over the sets) get their interval and p-value from
a stratified paired bootstrap that reuses each set's own draws (`lightscore.analysis.bootstrap`'s p).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from lightscore.text.choices import TRANSLATION_METRICS

if TYPE_CHECKING:
    from lightscore.offline.compare_sets import TestSet

__all__ = ["compare_translation_sets", "compare_translations", "score_translation", "translation_metric"]


def translation_metric(name: str, references: int = 1, **options: Any) -> Any:
    """The translation metric the command line calls ``name``, scoring ``references`` references per segment.

    Args:
        name: One of `lightscore.text.choices.TRANSLATION_METRICS`.
        references: References per segment (inputs ``ref``, ``ref2`` ...).
        **options: The metric's own options (``tokenize``, ``lowercase``...), None values left out.

    Returns:
        The metric.

    Raises:
        ValueError: an unknown name or option.

    >>> translation_metric("chrf++").signature()  # doctest: +ELLIPSIS
    'nrefs:1|case:mixed|eff:yes|nc:6|nw:2|space:no|version:2.6.0'
    """
    from lightscore.metrics.translation import BLEU, ChrF, TranslationEditRate

    if name not in TRANSLATION_METRICS:
        raise ValueError(f"unknown translation metric {name!r} (known: {', '.join(TRANSLATION_METRICS)})")
    options = {key: value for key, value in options.items() if value is not None}
    if name == "chrf++":
        options.setdefault("word_order", 2)
    builder = {"bleu": BLEU, "chrf": ChrF, "chrf++": ChrF, "transter": TranslationEditRate}[name]
    return builder(references=references, **options)


def _data(refs: Sequence[str | os.PathLike], hyp: str | os.PathLike) -> dict[str, Any]:
    return {"hyp": hyp, "ref": refs[0], **{f"ref{k}": path for k, path in enumerate(refs[1:], start=2)}}


def score_translation(name: str, refs: Sequence[str | os.PathLike], hyp: str | os.PathLike, **options: Any) -> tuple:
    """``(metric, result)`` of one system: ``hyp`` against the reference SCP files ``refs``.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "ref.scp").write_text("s1 the cat sat on the mat\\n")
    >>> _ = (d / "hyp.scp").write_text("s1 the cat sat on the mat\\n")
    >>> round(score_translation("bleu", [d / "ref.scp"], d / "hyp.scp")[1]["BLEU"], 6)
    100.0
    """
    metric = translation_metric(name, references=len(refs), **options)
    return metric, metric(_data(refs, hyp), "")


def compare_translations(
    name: str,
    refs: Sequence[str | os.PathLike],
    hyp_a: str | os.PathLike,
    hyp_b: str | os.PathLike,
    *,
    bootstrap: int = 1000,
    randomizations: int = 10000,
    seed: int | None = 12345,
    **options: Any,
) -> dict[str, Any]:
    """B against A (the baseline) with sacrebleu's paired bootstrap and paired approximate randomization.

    Args:
        name: ``bleu``, ``chrf``, ``chrf++`` or ``transter``.
        refs: The reference SCP files (the same ids in the same order as the systems).
        hyp_a, hyp_b: The baseline's and the system's SCP files.
        bootstrap: Bootstrap resamples (sacrebleu's ``--paired-bs-n``, default 1000).
        randomizations: Approximate-randomization trials (sacrebleu's ``--paired-ar-n``, default 10000).
        seed: sacrebleu's seed (12345).
        **options: The metric's options.

    Returns:
        ``metric``, ``signature``, ``A`` and ``B`` (scores), ``paired_bs`` and ``paired_ar`` (each with
        ``p_value``; the bootstrap also B's mean and 95% half-interval).

    Raises:
        ValueError: the files differ in ids, or an option is wrong.
    """
    scored = [score_translation(name, refs, hyp, per_utterance=True, **options) for hyp in (hyp_a, hyp_b)]
    return _paired_tests(scored, bootstrap, randomizations, seed)


def _paired_tests(scored: Sequence[tuple], bootstrap: int, randomizations: int, seed: int | None) -> dict[str, Any]:
    """`compare_translations`' result from both systems' ``(metric, result)``, scored with ``per_utterance``."""
    from lightscore.analysis.mt_significance import paired_ar_test, paired_bootstrap_test

    (a, result_a), (b, result_b) = scored
    rows_a, rows_b = a.sacrebleu_rows(), b.sacrebleu_rows()
    bs = paired_bootstrap_test(rows_a, rows_b, a.stats_score, n_samples=bootstrap, seed=seed)
    ar = paired_ar_test(rows_a, rows_b, a.stats_score, n_samples=randomizations, seed=seed)
    key = a.outputs[0].name
    return {
        "metric": key,
        "signature": a.signature(),
        "A": result_a[key],
        "B": result_b[key],
        "paired_bs": bs,
        "paired_ar": ar,
    }


def compare_translation_sets(
    name: str,
    sets: Sequence[TestSet | tuple],
    *,
    bootstrap: int = 1000,
    randomizations: int = 10000,
    seed: int = 12345,
    ci: float = 0.95,
    level: float = 0.05,
    **options: Any,
) -> dict[str, Any]:
    """B against A on two or more test sets: sacrebleu's paired tests per set, then pooled and macro.

    Set ``k`` (from 0) is `compare_translations` with the seed ``seed + k`` (sacrebleu's 12345 for the
    first set: its row is ``lightscore compare --metric <name>`` on that set alone). The rows' interval of
    B - A comes from the same draws as sacrebleu's bootstrap (``numpy``'s ``default_rng(seed + k).choice``);
    their ``p`` is sacrebleu's paired-bootstrap p-value. The pooled row scores every set's segments as one
    corpus, the macro row averages the sets' scores; both are resampled set by set with those draws
    (stratified), and their ``p`` is `lightscore.analysis.bootstrap.bootstrap_p_value`'s, two-sided.

    Args:
        name: ``bleu``, ``chrf``, ``chrf++`` or ``transter``.
        sets: `lightscore.offline.compare_sets.TestSet` (or ``(name, ref, hyp_a, hyp_b)``) per set; one
            reference SCP file per set.
        bootstrap: Resamples (sacrebleu's ``--paired-bs-n``).
        randomizations: Approximate-randomization trials per set (sacrebleu's ``--paired-ar-n``).
        seed: The first set's seed.
        ci, level: The intervals' coverage and the verdicts' level.
        **options: The metric's options (``tokenize``, ``lowercase``...).

    Returns:
        `lightscore.offline.compare_sets.sets_summary`'s shape; each set's entry also holds
        `compare_translations`' ``paired_bs`` and ``paired_ar``.

    Raises:
        ValueError: fewer than two sets, a bad or repeated name, or a set whose files disagree (named).
        OSError: a file that cannot be read (named with its set).
    """
    from lightscore.analysis.bootstrap import check_replicates
    from lightscore.offline.compare_sets import checked_sets, naming_set, sets_summary  # numpy: when sets are compared

    check_replicates(bootstrap, ci, level)
    sets = checked_sets(sets)
    per_set: dict[str, dict[str, Any]] = {}
    replicated = []
    every = []
    for k, test in enumerate(sets):
        with naming_set(test.name):
            scored = [score_translation(name, [test.ref], hyp, per_utterance=True, **options) for hyp in test[2:]]
            tests = _paired_tests(scored, bootstrap, randomizations, seed + k)
            replicated.append(_Replicates(scored, bootstrap, seed + k))
        per_set[test.name] = _set_entry(tests, scored, replicated[-1], ci, level)
        per_set[test.name]["files"] = {"ref": str(test.ref), "a": str(test.hyp_a), "b": str(test.hyp_b)}
        every.append(scored)
    key = per_set[sets[0].name]["metric"]
    combined = _combined(key, every, replicated, ci, level)
    about = {
        "replicates": bootstrap,
        "stratified": True,
        "block_bootstrap": False,
        "seeds": {test.name: seed + k for k, test in enumerate(sets)},
        "method": (
            "sacrebleu's paired bootstrap per set (its draws and p-value); pooled and macro resample "
            "every set on its own with those draws"
        ),
    }
    return sets_summary(key, per_set[sets[0].name]["settings"], ci, level, about, per_set, combined)


_BLOCK = 1 << 22  # resampled segment counts held at once (32 MB of float64)


class _Replicates:
    """Both systems' per-segment statistics of one set and their sums over sacrebleu's resamples.

    ``sums[s]`` is system s's ``(replicates, statistics)`` sums: row r sums the segments of
    sacrebleu's resample r (``default_rng(seed).choice(n, (replicates, n))``), exact in float64.
    """

    def __init__(self, scored: Sequence[tuple], replicates: int, seed: int) -> None:
        import numpy as np

        self.metric = scored[0][0]
        self.rows = [np.array(metric.sacrebleu_rows(), dtype=np.float64) for metric, _ in scored]
        n = len(self.rows[0])
        picks = np.random.default_rng(seed).choice(n, size=(replicates, n), replace=True)  # sacrebleu's call
        self.sums = [np.empty((replicates, rows.shape[1])) for rows in self.rows]
        step = max(1, _BLOCK // n)  # resamples counted at once: memory stays bounded on a large set
        for start in range(0, replicates, step):
            block = picks[start : start + step]
            # how often each segment is drawn in each resample: the sums are one product
            drawn = np.bincount((block + n * np.arange(len(block))[:, None]).ravel(), minlength=len(block) * n)
            drawn = drawn.reshape(len(block), n).astype(np.float64)
            for sums, rows in zip(self.sums, self.rows):
                sums[start : start + len(block)] = drawn @ rows

    def scores(self, sums) -> Any:
        """The metric's score of each row of summed statistics."""
        import numpy as np

        return np.array([self.metric.stats_score(row.tolist()) for row in sums])


def _higher_is_better(metric: Any) -> bool:
    return metric.name != "TransTER"  # BLEU and chrF count what matches, TER the edits


def _paired(
    scores: tuple[Any, Any], observed: tuple[float, float], higher: bool, ci: float, units: int, p: float | None
) -> dict[str, Any]:
    """A paired bootstrap result in `lightscore.analysis.bootstrap.paired_bootstrap`'s keys, from replicated scores.

    ``p`` None: `lightscore.analysis.bootstrap.bootstrap_p_value`'s; the ``reason`` (no spread) is always its.
    """
    import numpy as np

    from lightscore.analysis.bootstrap import bootstrap_p_value, percentile_interval, side_with_fewer

    diff = scores[1] - scores[0]
    difference = float(observed[1] - observed[0])
    own_p, reason = bootstrap_p_value(diff, difference, units, True)
    return {
        "rate_a": float(observed[0]),
        "rate_b": float(observed[1]),
        "difference": difference,
        "ci": percentile_interval(diff, ci),
        "ci_a": percentile_interval(scores[0], ci),
        "ci_b": percentile_interval(scores[1], ci),
        "p_b_better": float(np.mean(diff > 0 if higher else diff < 0)),
        "p": own_p if p is None or reason else float(p),
        "better": side_with_fewer("b", "a", -difference if higher else difference),
        "reason": reason,
        "replicates": len(diff),
        "resamples": len(diff),
    }


def _set_entry(tests: dict[str, Any], scored: Sequence[tuple], rep: _Replicates, ci: float, level: float) -> dict:
    """One set's entry: `compare_translations`' tests, both results and the bootstrap row with its verdict."""
    from lightscore.analysis.verdict import verdict

    key = tests["metric"]
    (metric, result_a), (_, result_b) = scored
    scores = (rep.scores(rep.sums[0]), rep.scores(rep.sums[1]))
    higher = _higher_is_better(metric)
    boot = _paired(scores, (result_a[key], result_b[key]), higher, ci, len(rep.rows[0]), tests["paired_bs"]["p_value"])
    boot["verdict"] = verdict(boot, level, test="sacrebleu paired bootstrap")
    entry = {"settings": metric.settings(), "utterances": len(rep.rows[0]), "a": result_a, "b": result_b}
    return {**tests, **entry, "bootstrap": boot, "verdict": boot["verdict"]}


def _combined(key: str, scored: list[Sequence[tuple]], replicated: list[_Replicates], ci: float, level: float) -> dict:
    """The pooled and macro entries: each system's result, and the stratified paired bootstrap."""
    import math

    import numpy as np

    from lightscore.analysis.verdict import verdict
    from lightscore.report.scoreboard import MACRO, POOLED

    first = replicated[0]
    higher = _higher_is_better(first.metric)
    units = sum(len(rep.rows[0]) for rep in replicated)
    pooled = [_merged([pair[side][0] for pair in scored]) for side in (0, 1)]
    macro = [math.fsum(pair[side][1][key] for pair in scored) / len(scored) for side in (0, 1)]
    scores = {
        POOLED: tuple(first.scores(sum(rep.sums[side] for rep in replicated)) for side in (0, 1)),
        MACRO: tuple(np.mean([rep.scores(rep.sums[side]) for rep in replicated], axis=0) for side in (0, 1)),
    }
    systems = {
        POOLED: {"utterances": units, "a": pooled[0], "b": pooled[1]},
        MACRO: {"a": {key: macro[0]}, "b": {key: macro[1]}},
    }
    entries = {}
    for row in (POOLED, MACRO):
        observed = (systems[row]["a"][key], systems[row]["b"][key])
        boot = {**_paired(scores[row], observed, higher, ci, units, None), "stratified": True, "block_bootstrap": False}
        boot["verdict"] = verdict(boot, level)
        entries[row] = {**systems[row], "bootstrap": boot}
    return entries


def _merged(metrics: Sequence[Any]) -> dict[str, Any]:
    """One system's result over every set's segments: the sets' states merged, computed by the first set's metric."""
    first = metrics[0]
    own = first.state()
    first.load_state(first.merge_states([metric.state() for metric in metrics]))
    try:
        return first.compute()
    finally:
        first.load_state(own)
