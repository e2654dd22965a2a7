"""Scoring and comparing translations from SCP files: what ``lightscore score|compare --metric bleu`` run.

The metrics are `lightscore.metrics.BLEU`, `ChrF` (``chrf``, and ``chrf++`` with
``word_order=2``) and `TranslationEditRate` (``transter``); the comparison is
sacrebleu's paired bootstrap resampling and paired approximate randomization
(`lightscore.analysis.mt_significance`), with sacrebleu's seed and resamples.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from lightscore.text.choices import TRANSLATION_METRICS

__all__ = ["compare_translations", "score_translation", "translation_metric"]


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
    from lightscore.analysis.mt_significance import paired_ar_test, paired_bootstrap_test

    scored = [score_translation(name, refs, hyp, per_utterance=True, **options) for hyp in (hyp_a, hyp_b)]
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
