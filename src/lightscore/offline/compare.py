"""Is system B better than system A? Both scored on one reference, then five paired tests and a verdict.

`compare` is what ``lightscore compare`` runs: it checks that the reference and
both hypothesis files hold the same utterance ids in the same order, scores
each system with the error-rate classes (through ``metric(...)``, the runner's
road), aligns every utterance with the metric's own aligner and normaliser
(``metric.align``), and runs the tests of `lightscore.analysis.bootstrap` and `lightscore.analysis.significance`:

- the paired bootstrap of the difference in corpus error rate (its interval and
  P(B better)), by utterance or, with ``block_bootstrap``, by speaker;
- MAPSSWE over the two systems' alignments;
- McNemar over utterances right or wrong (exact binomial p);
- the sign and Wilcoxon tests over per-speaker error rates.

The headline verdict is the paired bootstrap's: it tests the number being
reported (the corpus error rate) without a model of how errors are spread. The
other tests' verdicts are listed beside it; ``docs/comparing-systems.md`` says
what each assumes. Everything returned is plain JSON (no tuples, no infinities).

`score_system` and `compare_scored` are the two halves, for callers (such as
``lightscore report``) that also want the alignments.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from lightscore.analysis.breakdown import UttCounts, speaker_table
from lightscore.analysis.verdict import significant, verdict
from lightscore.metrics import CER, TER, WER, ErrorRate, MixedER, SCLiteCER
from lightscore.scp.files import iter_rows
from lightscore.text.alignment import Pair
from lightscore.text.choices import ERROR_RATES

__all__ = [
    "METRICS",
    "TESTS",
    "TEST_NAMES",
    "ScoredSystem",
    "check_same_ids",
    "check_test_options",
    "compare",
    "compare_scored",
    "metric_by_name",
    "score_pair",
    "score_system",
]

METRICS = ERROR_RATES
TESTS = ("bootstrap", "mapsswe", "mcnemar", "sign", "wilcoxon")
TEST_NAMES = {
    "bootstrap": "paired bootstrap",
    "mapsswe": "MAPSSWE",
    "mcnemar": "McNemar",
    "sign": "sign",
    "wilcoxon": "Wilcoxon",
}


class ScoredSystem(NamedTuple):
    """One system scored on a reference: its metric (holding the merged state), result, utterances and alignments.

    ``records`` are sorted by utterance id (as the metric's state keeps them);
    ``alignments`` maps each utterance id to its ``(ref, hyp, mark)`` pairs, in file order.
    """

    name: str
    metric: ErrorRate
    result: dict[str, Any]
    records: list[UttCounts]
    alignments: dict[str, list[Pair]]


def metric_by_name(metric: str = "wer", bpemodel: str | os.PathLike | None = None, **options: Any) -> ErrorRate:
    """The error rate called ``metric`` (one of `lightscore.text.choices.ERROR_RATES`), built with ``options``.

    Args:
        metric: "wer", "cer", "ter", "sclite_cer" (sclite's ``-c``) or "mer" (CJK characters and other words).
        bpemodel: the SentencePiece model TER counts the pieces of; only for "ter".
        options: keyword arguments of `lightscore.metrics.WER` (case, aligner, normalize, ci...).

    Returns:
        The metric.

    Raises:
        ValueError: an unknown metric, "ter" without ``bpemodel`` or another metric with one.

    >>> metric_by_name("cer", case="fold").name
    'CER'
    >>> metric_by_name("bleu")
    Traceback (most recent call last):
    ...
    ValueError: metric 'bleu' is not one of wer, cer, ter, sclite_cer, mer
    """
    if metric not in METRICS:
        raise ValueError(f"metric {metric!r} is not one of {', '.join(METRICS)}")
    if metric == "ter":
        if bpemodel is None:
            raise ValueError("metric 'ter' needs bpemodel, the SentencePiece model whose pieces it counts")
        return TER(bpemodel, **options)
    if bpemodel is not None:
        raise ValueError(f"bpemodel is used only by metric 'ter', not {metric!r}")
    return {"wer": WER, "cer": CER, "sclite_cer": SCLiteCER, "mer": MixedER}[metric](**options)


def score_system(
    ref: str | os.PathLike,
    hyp: str | os.PathLike,
    name: str = "A",
    *,
    metric: str = "wer",
    bpemodel: str | os.PathLike | None = None,
    **options: Any,
) -> ScoredSystem:
    """Score ``hyp`` against ``ref`` with per-utterance records, and align every utterance.

    Args:
        ref, hyp: SCP files (``utt_id text`` per line, same ids in the same order).
        name: what to call the system.
        metric, bpemodel: as `metric_by_name`.
        options: the metric's keyword arguments (case, aligner, normalize, substitutions,
            fillers, ci, bootstrap, seed, block_bootstrap, utt2spk).

    Returns:
        The `ScoredSystem`.

    Raises:
        ValueError: bad options, or files whose ids differ (naming the file, line and id).

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "ref.scp").write_text("s1-u1 the cat sat\\ns2-u2 a dog\\n")
    >>> _ = (d / "hyp.scp").write_text("s1-u1 the bat sat\\ns2-u2 a dog\\n")
    >>> s = score_system(d / "ref.scp", d / "hyp.scp")
    >>> s.result["WER"], [r.errors for r in s.records], s.alignments["s1-u1"][1]
    (20.0, [1, 0], ('cat', 'bat', 'S'))
    """
    m = metric_by_name(metric, bpemodel, per_utterance=True, alignment=False, **options)
    result = m({"ref": ref, "hyp": hyp}, name)
    alignments = {utt_id: m.align(row["ref"], row["hyp"]) for utt_id, row in iter_rows({"ref": ref, "hyp": hyp})}
    return ScoredSystem(name, m, result, m.utterance_records(), alignments)


def check_same_ids(ref: str | os.PathLike, hyp_a: str | os.PathLike, hyp_b: str | os.PathLike) -> int:
    """Read the three files in lockstep; return their rows, or raise naming the file, line and id that differ.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "ref.scp").write_text("u1 a\\nu2 b\\n"); _ = (d / "b.scp").write_text("u1 a\\nu3 b\\n")
    >>> check_same_ids(d / "ref.scp", d / "ref.scp", d / "b.scp")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    lightscore.scp.lines.ScpMismatchError: utterance ids differ: .../ref.scp:2 has 'u2', .../b.scp:2 has 'u3'
    """
    return sum(1 for _ in iter_rows({"ref": ref, "hyp_a": hyp_a, "hyp_b": hyp_b}))


def compare(
    ref: str | os.PathLike,
    hyp_a: str | os.PathLike,
    hyp_b: str | os.PathLike,
    *,
    metric: str = "wer",
    bpemodel: str | os.PathLike | None = None,
    case: str = "sensitive",
    aligner: str = "unit",
    normalize: str = "none",
    substitutions: str | os.PathLike | None = None,
    fillers: str | os.PathLike | None = None,
    ci: float = 0.95,
    bootstrap: int = 1000,
    seed: int = 0,
    block_bootstrap: bool = False,
    utt2spk: str | os.PathLike | None = None,
    level: float = 0.05,
) -> dict[str, Any]:
    """Compare two systems on one reference: both results, five paired tests and a verdict.

    Args:
        ref, hyp_a, hyp_b: SCP files with the same utterance ids in the same order.
        metric, bpemodel: "wer", "cer" or "ter" (with its SentencePiece model).
        case, aligner, normalize, substitutions, fillers: how texts are compared, as in
            `lightscore.metrics.WER`.
        ci: coverage of the bootstrap intervals.
        bootstrap: bootstrap replicates.
        seed: the bootstrap's seed.
        block_bootstrap: resample whole speakers instead of utterances.
        utt2spk: a Kaldi ``utt2spk`` file; without it, the speaker is the utterance id
            up to its first ``-`` (sclite ``-i rm``).
        level: the significance level of the verdicts.

    Returns:
        A JSON-serialisable dict: ``metric``, ``settings``, ``files``, ``utterances``,
        ``speakers``, ``a`` and ``b`` (each system's result), one entry per test in `TESTS`
        (its statistics, ``p`` and ``verdict``), and ``verdict``, one line.

    Raises:
        lightscore.scp.files.ScpMismatchError: the files' ids differ (naming the file, the line and the id).
        ValueError: bad options or bad lines.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "ref.scp").write_text("s1-u1 the cat sat\\ns2-u2 a dog ran\\n")
    >>> _ = (d / "a.scp").write_text("s1-u1 the bat sat\\ns2-u2 a dog ran\\n")
    >>> _ = (d / "b.scp").write_text("s1-u1 the cat sat\\ns2-u2 a fog ran\\n")
    >>> r = compare(d / "ref.scp", d / "a.scp", d / "b.scp", bootstrap=200)
    >>> r["a"]["WER"], r["b"]["WER"], r["mcnemar"]["b_only"], r["mcnemar"]["a_only"]
    (16.666666666666664, 16.666666666666664, 1, 1)
    >>> r["verdict"]
    'no significant difference (paired bootstrap p = 1.000 >= 0.05; no other test differs)'
    """
    check_test_options(ci, bootstrap, level)
    check_same_ids(ref, hyp_a, hyp_b)
    options = dict(
        case=case,
        aligner=aligner,
        normalize=normalize,
        substitutions=substitutions,
        fillers=fillers,
        ci=ci,
        bootstrap=bootstrap,
        seed=seed,
        block_bootstrap=block_bootstrap,
        utt2spk=utt2spk,
    )
    a, b = score_pair(ref, hyp_a, hyp_b, metric=metric, bpemodel=bpemodel, **options)
    summary = compare_scored(a, b, ci=ci, bootstrap=bootstrap, seed=seed, block_bootstrap=block_bootstrap, level=level)
    summary["files"] = {"ref": str(ref), "a": str(hyp_a), "b": str(hyp_b)}
    return summary


def score_pair(
    ref: str | os.PathLike, hyp_a: str | os.PathLike, hyp_b: str | os.PathLike, **options: Any
) -> tuple[ScoredSystem, ScoredSystem]:
    """Systems A and B scored on ``ref`` with the same ``options`` (those of `score_system`), as `compare` does."""
    return score_system(ref, hyp_a, "A", **options), score_system(ref, hyp_b, "B", **options)


def compare_scored(
    a: ScoredSystem,
    b: ScoredSystem,
    *,
    ci: float = 0.95,
    bootstrap: int = 1000,
    seed: int = 0,
    block_bootstrap: bool = False,
    level: float = 0.05,
) -> dict[str, Any]:
    """The paired tests of two systems scored on the same utterances (see `compare`).

    Raises:
        ValueError: the systems' utterances or reference lengths differ.
    """
    # numpy and scipy: only when a comparison runs
    from lightscore.analysis import significance as sig
    from lightscore.analysis.bootstrap import paired_bootstrap

    check_test_options(ci, bootstrap, level)

    ids_a, ids_b = [r.utt_id for r in a.records], [r.utt_id for r in b.records]
    if ids_a != ids_b:
        raise ValueError(f"systems {a.name} and {b.name} were scored on different utterances")
    lengths = [r.ref_len for r in a.records]
    if lengths != [r.ref_len for r in b.records]:
        raise ValueError(f"systems {a.name} and {b.name} count different reference tokens: not the same reference")
    groups = [r.speaker for r in a.records] if block_bootstrap else None
    errors_a, errors_b = [r.errors for r in a.records], [r.errors for r in b.records]
    rates_a, rates_b, speakers = _speaker_rates(a.records, b.records)
    tests = {
        "bootstrap": paired_bootstrap(
            errors_a, errors_b, lengths, ci=ci, replicates=bootstrap, seed=seed, groups=groups
        ),
        "mapsswe": sig.mapsswe(a.alignments, b.alignments),
        "mcnemar": sig.mcnemar([e == 0 for e in errors_a], [e == 0 for e in errors_b]),
        "sign": sig.sign_test(rates_a, rates_b),
        "wilcoxon": sig.wilcoxon_test(rates_a, rates_b),
    }
    names = (a.name, b.name)
    for result in tests.values():
        result["verdict"] = verdict(result, level, names)
    tests["bootstrap"]["block_bootstrap"] = block_bootstrap
    summary = {
        "metric": a.metric.name,
        "settings": a.metric.settings(),
        "level": level,
        "ci": ci,
        "utterances": len(a.records),
        "speakers": speakers,
        "a": a.result,
        "b": b.result,
        **tests,
        "verdict": _headline(tests, level, names),
    }
    return _plain(summary)


def _speaker_rates(records_a: Sequence[UttCounts], records_b: Sequence[UttCounts]) -> tuple[list, list, list]:
    """Per-speaker error rates of both systems, speakers in sorted order (sclite's, which the tests' ties follow)."""
    table_a = {row.speaker: row.rate for row in speaker_table(records_a)}
    table_b = {row.speaker: row.rate for row in speaker_table(records_b)}
    speakers = sorted(table_a)
    return [table_a[s] for s in speakers], [table_b[s] for s in speakers], speakers


def _headline(tests: Mapping[str, Mapping[str, Any]], level: float, names: tuple[str, str]) -> str:
    """The paired bootstrap's verdict, then which other tests reach a difference at ``level``."""
    differing = [
        f"{TEST_NAMES[key]} says {names[0] if t['better'] == 'a' else names[1]}"
        for key, t in tests.items()
        if key != "bootstrap" and significant(t, level)
    ]
    notes = differing or ["no other test differs"]
    return verdict(tests["bootstrap"], level, names, test=TEST_NAMES["bootstrap"], notes=notes)


def check_test_options(ci: float, bootstrap: int, level: float) -> None:
    """Raise ValueError unless ``ci`` and ``level`` are in (0, 1) and ``bootstrap`` replicates suffice for both.

    Args:
        ci: The intervals' coverage.
        bootstrap: The bootstrap replicates.
        level: The tests' significance level.

    Raises:
        ValueError: naming the option: ``level`` 0, 1.5 or NaN, or fewer replicates than
            `lightscore.analysis.bootstrap.min_replicates` asks for.

    >>> check_test_options(0.95, 1000, 1.5)
    Traceback (most recent call last):
    ...
    ValueError: level must be between 0 and 1 (e.g. 0.05), got 1.5
    """
    from lightscore.analysis.bootstrap import check_fraction, check_replicates

    check_fraction("ci", ci, "0.95")
    check_fraction("level", level, "0.05")
    check_replicates(bootstrap, ci, level)


def _plain(value: Any) -> Any:
    """``value`` with tuples as lists, numpy numbers as Python ones and non-finite floats as None: strict JSON."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "item") and callable(value.item):  # numpy scalar
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
