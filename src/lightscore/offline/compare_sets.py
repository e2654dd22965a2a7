"""Is system B better than A across several test sets? A row per set, then the pooled and macro rows, with intervals.

`compare_sets` is what ``lightscore compare --set NAME REF HYP_A HYP_B ...`` (or ``--dirs DIR_A DIR_B``)
runs. Each test set is compared as `lightscore.offline.compare.compare` compares one (the
same five paired tests, the same numbers: set ``k`` uses the seed ``seed + k``, so its row equals
``lightscore compare --seed <seed + k>`` on that set alone). Beside the sets:

- **pooled**: both systems' counts summed over every set (exactly the rate of the concatenated
  sets), and the difference B - A with its interval and p-value from a *stratified* paired
  bootstrap: each replicate resamples every set on its own, with the same draws as that set's row
  (`lightscore.analysis.stratified`);
- **macro**: the mean over the sets of each system's rate, its difference's interval and p-value
  from the same stratified replicates.

`comparison_rows` gives the table (one row per set, then pooled and macro) that
`lightscore.report.scoreboard.write_scoreboard` writes as Markdown, CSV and JSON.

The translation metrics (`lightscore.offline.compare_translation.compare_translation_sets`) and the
meeting metrics (`lightscore.offline.compare_meetings.compare_meeting_sets`) compare across sets in
the same shape, through `checked_sets`, `naming_set` and `sets_summary`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

from lightscore.analysis.verdict import verdict
from lightscore.offline.compare import (
    ScoredSystem,
    _plain,
    check_same_ids,
    check_test_options,
    compare_scored,
    score_pair,
)
from lightscore.report.scoreboard import MACRO, POOLED, RESERVED
from lightscore.scp.lines import check_name
from lightscore.text.counting import COUNTS

__all__ = [
    "SCORING_OPTIONS",
    "TestSet",
    "checked_sets",
    "compare_sets",
    "comparison_rows",
    "naming_set",
    "sets_from_dirs",
    "sets_summary",
]

SCORING_OPTIONS = ("metric", "bpemodel", "case", "aligner", "normalize", "substitutions", "fillers", "utt2spk")
"""The keywords of `compare_sets` that say how texts are scored (those of `lightscore.offline.compare.compare`)."""


class TestSet(NamedTuple):
    """One test set of a comparison: its name, the reference and both systems' hypothesis SCP files."""

    __test__ = False  # not a pytest test class, whatever its name

    name: str
    ref: str | os.PathLike
    hyp_a: str | os.PathLike
    hyp_b: str | os.PathLike


def sets_from_dirs(
    dir_a: str | os.PathLike, dir_b: str | os.PathLike, *, ref: str = "ref.scp", hyp: str = "hyp.scp"
) -> list[TestSet]:
    """The test sets of two ``measure()`` inference folders (``<dir>/<test set>/hyp.scp``), in sorted order.

    A test set is a sub-folder (not starting with ``.``) holding ``hyp``; the reference is
    ``<dir_a>/<test set>/<ref>``.

    Args:
        dir_a, dir_b: system A's and system B's folders.
        ref, hyp: the file names of the reference and of the hypothesis in each test set's folder.

    Returns:
        One `TestSet` per test set.

    Raises:
        NotADirectoryError: a folder that is not one.
        FileNotFoundError: a test set of one system missing in the other (naming the set and the
            file), a missing reference, or no test set at all.

    >>> import tempfile
    >>> a, b = Path(tempfile.mkdtemp()), Path(tempfile.mkdtemp())
    >>> for d in (a / "dev", a / "test", b / "dev"):
    ...     d.mkdir(); _ = (d / "hyp.scp").write_text("u1 a\\n"); _ = (d / "ref.scp").write_text("u1 a\\n")
    >>> sets_from_dirs(a, b)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    FileNotFoundError: test set 'test': .../hyp.scp: no such file (system B has no test set 'test'; system A has)
    """
    found = {}
    for label, folder in (("A", Path(dir_a)), ("B", Path(dir_b))):
        if not folder.is_dir():
            raise NotADirectoryError(f"system {label}: {folder} is not a directory (an inference folder)")
        found[label] = {d.name for d in folder.iterdir() if d.is_dir() and not d.name.startswith(".")}
        found[label] = {name for name in found[label] if (folder / name / hyp).is_file()}
    for label, other, folder in (("A", "B", Path(dir_a)), ("B", "A", Path(dir_b))):
        for name in sorted(found[other] - found[label]):
            missing = folder / name / hyp
            raise FileNotFoundError(
                f"test set {name!r}: {missing}: no such file (system {label} has no test set {name!r}; "
                f"system {other} has)"
            )
    if not found["A"]:
        raise FileNotFoundError(f"{dir_a}: no test set (no sub-folder holds {hyp})")
    sets = []
    for name in sorted(found["A"]):
        reference = Path(dir_a) / name / ref
        if not reference.is_file():
            raise FileNotFoundError(f"test set {name!r}: reference {reference}: no such file")
        sets.append(TestSet(name, reference, Path(dir_a) / name / hyp, Path(dir_b) / name / hyp))
    return sets


def compare_sets(
    sets: Sequence[TestSet | tuple],
    *,
    ci: float = 0.95,
    bootstrap: int = 1000,
    seed: int = 0,
    block_bootstrap: bool = False,
    level: float = 0.05,
    **scoring: Any,
) -> dict[str, Any]:
    """Compare two systems on two or more test sets: per set, pooled and macro, with intervals and p-values.

    Args:
        sets: `TestSet` (or ``(name, ref, hyp_a, hyp_b)``) per test set, in the order rows are shown.
        ci, bootstrap, level: the intervals' coverage, the bootstrap replicates, the tests' level.
        seed: test set ``k`` (from 0) is resampled with ``seed + k``, in its row and in the
            stratified pooled and macro replicates.
        block_bootstrap: resample whole speakers within each test set.
        scoring: how texts are scored, as in `lightscore.offline.compare.compare`: ``metric``,
            ``bpemodel``, ``case``, ``aligner``, ``normalize``, ``substitutions``, ``fillers``,
            ``utt2spk`` (one file covering every set).

    Returns:
        Plain JSON: ``metric``, ``settings``, ``ci``, ``level``, ``bootstrap`` (how it resampled),
        ``sets`` (name -> what `lightscore.offline.compare.compare` returns for it), ``pooled``
        and ``macro`` (``a``, ``b``: the systems' results; ``bootstrap``: the stratified paired
        bootstrap with its ``verdict``), ``rows`` (`comparison_rows`) and ``verdict`` (the pooled one).

    Raises:
        ValueError: fewer than two sets, a bad or repeated set name (``pooled`` and ``macro`` are
            taken), bad options, or a set whose files disagree (the message names the set, the
            file, the line and the id).
        OSError: a file that cannot be read (named with its set).
        TypeError: an option that is not one of `SCORING_OPTIONS`.

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> for name, a, b in (("a", "s1-u1 the bat sat", "s1-u1 the cat sat"), ("b", "s2-u1 a dog", "s2-u1 a fog")):
    ...     for file, text in (("ref", "s1-u1 the cat sat" if name == "a" else "s2-u1 a dog"), ("A", a), ("B", b)):
    ...         _ = (d / f"{name}_{file}.scp").write_text(text + "\\n")
    >>> r = compare_sets([(n, d / f"{n}_ref.scp", d / f"{n}_A.scp", d / f"{n}_B.scp") for n in "ab"], bootstrap=100)
    >>> [(row["test"], round(row["WER_a"], 2), round(row["WER_b"], 2)) for row in r["rows"]]
    [('a', 33.33, 0.0), ('b', 0.0, 50.0), ('pooled', 20.0, 20.0), ('macro', 16.67, 25.0)]
    """
    check_test_options(ci, bootstrap, level)
    unknown = sorted(set(scoring) - set(SCORING_OPTIONS))
    if unknown:
        raise TypeError(
            f"compare_sets: unknown option {', '.join(unknown)} (scoring options: {', '.join(SCORING_OPTIONS)})"
        )
    sets = checked_sets(sets)
    options = {**scoring, "ci": ci, "bootstrap": bootstrap, "block_bootstrap": block_bootstrap}
    per_set: dict[str, dict[str, Any]] = {}
    scored: list[tuple[ScoredSystem, ScoredSystem]] = []
    for k, test in enumerate(sets):
        with naming_set(test.name):
            check_same_ids(test.ref, test.hyp_a, test.hyp_b)
            a, b = score_pair(test.ref, test.hyp_a, test.hyp_b, seed=seed + k, **options)
            tests = dict(ci=ci, bootstrap=bootstrap, seed=seed + k, block_bootstrap=block_bootstrap, level=level)
            per_set[test.name] = compare_scored(a, b, **tests)
        per_set[test.name]["files"] = {"ref": str(test.ref), "a": str(test.hyp_a), "b": str(test.hyp_b)}
        scored.append((a, b))
    combined = _combined(scored, ci, bootstrap, seed, block_bootstrap, level)
    first = next(iter(per_set.values()))
    about = {
        "replicates": bootstrap,
        "stratified": True,
        "block_bootstrap": block_bootstrap,
        "seeds": {test.name: seed + k for k, test in enumerate(sets)},
    }
    return sets_summary(first["metric"], first["settings"], ci, level, about, per_set, combined)


def sets_summary(
    metric: str,
    settings: str,
    ci: float,
    level: float,
    about: Mapping[str, Any],
    per_set: Mapping[str, Any],
    combined: Mapping[str, Any],
) -> dict[str, Any]:
    """The result of a comparison across test sets, every family's the same shape (plain JSON).

    Args:
        metric: The result's name (``WER``, ``BLEU``, ``cpWER``...).
        settings: The metric's settings (or signature).
        ci, level: The intervals' coverage and the tests' level.
        about: How it resampled: ``replicates``, ``stratified``, ``block_bootstrap``, ``seeds`` (set -> seed),
            and optionally ``method`` (one line saying which tests, printed by ``lightscore compare``).
        per_set: Set name -> its comparison (``utterances``, ``a``, ``b``, ``bootstrap``...).
        combined: ``pooled`` and ``macro``: ``a``, ``b`` and ``bootstrap`` with its ``verdict``.

    Returns:
        ``metric``, ``settings``, ``ci``, ``level``, ``bootstrap`` (``about``), ``sets``, ``pooled``, ``macro``,
        ``rows`` (`comparison_rows`) and ``verdict`` (the pooled one).
    """
    summary = {
        "metric": metric,
        "settings": settings,
        "ci": ci,
        "level": level,
        "bootstrap": dict(about),
        "sets": dict(per_set),
        **combined,
    }
    summary["rows"] = comparison_rows(summary)
    summary["verdict"] = combined[POOLED]["bootstrap"]["verdict"]
    return _plain(summary)


def checked_sets(sets: Sequence[TestSet | tuple]) -> list[TestSet]:
    """The sets as `TestSet`, refusing fewer than two, bad names and repeated names.

    >>> checked_sets([("dev", "r", "a", "b"), ("dev", "r", "a", "b")])
    Traceback (most recent call last):
    ...
    ValueError: test set 'dev' is given twice
    """
    sets = [TestSet(*test) for test in sets]
    if len(sets) < 2:
        raise ValueError(
            f"comparing across test sets needs two or more, got {len(sets)}: "
            "for one, run lightscore compare REF HYP_A HYP_B"
        )
    seen = set()
    for test in sets:
        check_name(test.name, "test set name")
        if test.name in RESERVED:
            raise ValueError(f"test set {test.name!r}: {', '.join(RESERVED)} name the combined rows; rename the set")
        if test.name in seen:
            raise ValueError(f"test set {test.name!r} is given twice")
        seen.add(test.name)
    return sets


@contextmanager
def naming_set(name: str) -> Iterator[None]:
    """Put ``test set '<name>': `` before the message of a ValueError or OSError raised inside.

    >>> with naming_set("dev"):
    ...     raise ValueError("ref.scp:3: no id")
    Traceback (most recent call last):
    ...
    ValueError: test set 'dev': ref.scp:3: no id
    """
    try:
        yield
    except (ValueError, OSError) as e:
        message = f"test set {name!r}: {e}"
        try:
            renamed = type(e)(message)
        except TypeError:  # an error type whose constructor takes more (UnicodeDecodeError)
            renamed = ValueError(message)
        raise renamed from e


def _combined(
    scored: Sequence[tuple[ScoredSystem, ScoredSystem]],
    ci: float,
    bootstrap: int,
    seed: int,
    block_bootstrap: bool,
    level: float,
) -> dict[str, dict[str, Any]]:
    """The pooled and macro entries: both systems' results and the stratified paired bootstrap."""
    from lightscore.analysis.stratified import stratified_paired_bootstrap  # numpy: when a comparison runs

    strata = [
        ([r.errors for r in a.records], [r.errors for r in b.records], [r.ref_len for r in a.records])
        for a, b in scored
    ]
    groups = [[r.speaker for r in a.records] for a, _ in scored] if block_bootstrap else None
    boot = stratified_paired_bootstrap(strata, ci=ci, replicates=bootstrap, seed=seed, groups=groups)
    name = scored[0][0].metric.name
    entries = {}
    for row, systems in ((POOLED, _pooled(scored, name)), (MACRO, _macro(scored, name))):
        result = {**boot[row], "block_bootstrap": block_bootstrap}
        result["verdict"] = verdict(result, level)
        entries[row] = {**systems, "bootstrap": result}
    return entries


def _pooled(scored: Sequence[tuple[ScoredSystem, ScoredSystem]], name: str) -> dict[str, Any]:
    """Each system's counts summed over the sets, and its rate from them, as the metric computes it."""
    systems: dict[str, Any] = {"utterances": sum(len(a.records) for a, _ in scored)}
    for side in (0, 1):
        counts = {f"{name}_{c}": sum(pair[side].result[f"{name}_{c}"] for pair in scored) for c in COUNTS}
        errors = sum(counts[f"{name}_{c}"] for c in ("sub", "del", "ins"))
        systems["ab"[side]] = {name: errors / counts[f"{name}_ref_len"] * 100, **counts}
    return systems


def _macro(scored: Sequence[tuple[ScoredSystem, ScoredSystem]], name: str) -> dict[str, Any]:
    """Each system's mean over the sets of its rate (`lightscore.report.scoreboard.macro_average`'s mean)."""
    return {"ab"[side]: {name: math.fsum(pair[side].result[name] for pair in scored) / len(scored)} for side in (0, 1)}


def comparison_rows(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The table of a `compare_sets` result: a row per test set, then ``pooled`` and ``macro``.

    Columns: ``test``, ``utterances``, ``ref_tokens``, ``<rate>_a``, ``<rate>_b``, ``difference``
    (B - A, points), ``ci_low``, ``ci_high`` (its interval), ``p`` (the paired bootstrap's,
    two-sided), ``p_b_better`` and ``verdict``. The macro row has no counts. ``utterances`` counts
    segments for translation and sessions for meetings; ``ref_tokens`` is an entry's own
    ``ref_tokens`` when it has one (None where the metric has no token count, as chrF).

    Args:
        summary: What `compare_sets` returned (before or after its ``rows`` were added).

    Returns:
        The rows, plain dicts.
    """
    name = summary["metric"]
    rows = []
    for test, entry in summary["sets"].items():
        counts = {"utterances": entry["utterances"], "ref_tokens": _ref_tokens(entry, name)}
        rows.append(_row(test, counts, entry["a"][name], entry["b"][name], entry["bootstrap"], name))
    pooled = summary[POOLED]
    counts = {"utterances": pooled["utterances"], "ref_tokens": _ref_tokens(pooled, name)}
    rows.append(_row(POOLED, counts, pooled["a"][name], pooled["b"][name], pooled["bootstrap"], name))
    macro = summary[MACRO]
    no_counts = {"utterances": None, "ref_tokens": None}
    rows.append(_row(MACRO, no_counts, macro["a"][name], macro["b"][name], macro["bootstrap"], name))
    return rows


def _ref_tokens(entry: Mapping[str, Any], name: str) -> Any:
    """An entry's reference tokens: its own ``ref_tokens``, else system A's ``<name>_ref_len`` (None without)."""
    return entry["ref_tokens"] if "ref_tokens" in entry else entry["a"].get(f"{name}_ref_len")


def _row(test: str, counts: Mapping[str, Any], a: float, b: float, boot: Mapping[str, Any], name: str) -> dict:
    low, high = boot["ci"]
    return {
        "test": test,
        **counts,
        f"{name}_a": a,
        f"{name}_b": b,
        "difference": boot["difference"],
        "ci_low": low,
        "ci_high": high,
        "p": boot["p"],
        "p_b_better": boot["p_b_better"],
        "verdict": boot["verdict"],
    }
