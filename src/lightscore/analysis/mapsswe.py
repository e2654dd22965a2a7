"""sc_stats' Matched Pair Sentence Segment Word Error test (``MP``), over two systems' alignments.

Part of NIST sc_stats' four tests (the others are in `lightscore.analysis.sc_stats`);
`lightscore.analysis.verdict.verdict` turns the result into a sentence.

>>> a = [[("x", "x", "C"), ("y", "z", "S"), ("w", "w", "C"), ("v", "v", "C")]] * 2
>>> b = [[("x", "x", "C"), ("y", "y", "C"), ("w", "w", "C"), ("v", "v", "C")]] * 2
>>> r = mapsswe(a, b)
>>> r["segments"], r["z"], r["p"], r["reason"]
(2, None, 1.0, 'all 2 segments differ by the same +1 errors: no spread to test')
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy import stats

from lightscore.analysis.bootstrap import side_with_fewer
from lightscore.analysis.sc_stats import p_sctk_normal

if TYPE_CHECKING:
    from lightscore.text.alignment import Pair

__all__ = ["mapsswe"]


def mapsswe(
    alignments_a: Sequence[Sequence[Pair]] | Mapping[str, Sequence[Pair]],
    alignments_b: Sequence[Sequence[Pair]] | Mapping[str, Sequence[Pair]],
    *,
    min_correct: int = 2,
) -> dict[str, Any]:
    """sc_stats' Matched Pair Sentence Segment Word Error test (``MP``).

    Both systems' alignments of an utterance are walked along the reference; a segment
    ends where ``min_correct`` consecutive reference tokens are correct in both (with no
    insertion between them), and takes those boundary tokens in. Segments where both
    systems are right are dropped, so an utterance both got right adds none. Per segment
    d = errors of A - errors of B; Z = mean(d) / (s / sqrt(n)), s the sample standard
    deviation. Every error of either system falls in exactly one segment.

    Args:
        alignments_a, alignments_b: per utterance, a list of ``(ref, hyp, mark)`` pairs
            (marks C, S, D, I) in reference order, as `lightscore.text.alignment.align`
            gives; either two sequences in the same utterance order or two mappings
            ``utt_id -> pairs`` with the same keys.
        min_correct: correct tokens that close a segment (sc_stats: 2).

    Returns:
        ``segments``, ``errors_a``, ``errors_b`` (errors in the segments: every error),
        ``ref_tokens`` (sc_stats' "# Ref wrds": per segment the mean of both systems'
        reference tokens, rounded down), ``mean``, ``sd``, ``z``, ``p`` (two-sided, exact
        normal tail), ``p_sctk``, ``better`` and ``reason``. With fewer than 2 segments or
        no spread in the differences the test is undefined: ``p`` and ``p_sctk`` are 1, ``z``
        is 0 when the errors are equal, else None, and ``reason`` says why.

    Raises:
        ValueError: different utterances, a mark outside C/S/D/I, or an utterance whose two
            alignments hold different numbers of reference tokens (named by id or index).

    >>> a = [[("x", "x", "C"), ("y", "z", "S"), ("w", "w", "C"), ("v", "v", "C")]]
    >>> b = [[("x", "x", "C"), ("y", "y", "C"), ("w", "w", "C"), ("v", "v", "C")]]
    >>> r = mapsswe(a, b)
    >>> r["segments"], r["errors_a"], r["errors_b"], r["better"]
    (1, 1, 0, 'b')
    """
    diffs = []
    ref_tokens = 0
    errors_a = 0
    errors_b = 0
    for _where, marks_a, marks_b in _paired_marks(alignments_a, alignments_b):
        for ref, err_a, err_b in _segments(marks_a, marks_b, min_correct):
            diffs.append(err_a - err_b)
            ref_tokens += ref
            errors_a += err_a
            errors_b += err_b
    d = np.asarray(diffs, dtype=np.float64)
    mean = float(d.mean()) if len(d) else 0.0
    sd = float(d.std(ddof=1)) if len(d) > 1 else 0.0
    reason = _undefined(len(d), mean, sd)
    z = mean / (sd / math.sqrt(len(d))) if sd > 0 else 0.0 if mean == 0 else None
    return {
        "test": "MAPSSWE",
        "segments": len(d),
        "errors_a": errors_a,
        "errors_b": errors_b,
        "ref_tokens": ref_tokens,
        "mean": mean,
        "sd": sd,
        "z": z,
        "p": 1.0 if z is None else float(2 * stats.norm.sf(abs(z))),
        "p_sctk": 1.0 if z is None else p_sctk_normal(z),
        "better": side_with_fewer("a", "b", mean),
        "reason": reason,
    }


def _undefined(segments: int, mean: float, sd: float) -> str | None:
    """Why Z = mean / (sd / sqrt(n)) cannot be formed though the errors differ; None when it can (or they don't)."""
    if sd > 0 or mean == 0:
        return None
    if segments == 1:
        return "1 segment where the systems differ: too few to measure the spread of the differences"
    return f"all {segments} segments differ by the same {mean:+g} errors: no spread to test"


def _paired_marks(alignments_a, alignments_b):
    """Yield ``(where, marks_a, marks_b)`` per utterance, checking both alignments share the reference."""
    if isinstance(alignments_a, Mapping) != isinstance(alignments_b, Mapping):
        raise ValueError("give both alignments as mappings utt_id -> pairs, or both as sequences")
    if isinstance(alignments_a, Mapping):
        if alignments_a.keys() != alignments_b.keys():
            only = sorted(alignments_a.keys() ^ alignments_b.keys())[:3]
            raise ValueError(f"the systems' utterances differ, e.g. {only}")
        items = [(f"utterance {key!r}", alignments_a[key], alignments_b[key]) for key in alignments_a]
    else:
        if len(alignments_a) != len(alignments_b):
            raise ValueError(f"{len(alignments_a)} alignments for system a, {len(alignments_b)} for b")
        items = [(f"utterance #{i}", a, b) for i, (a, b) in enumerate(zip(alignments_a, alignments_b))]
    for where, pairs_a, pairs_b in items:
        marks_a, marks_b = _marks(pairs_a, where), _marks(pairs_b, where)
        ref_a, ref_b = len(marks_a) - marks_a.count("I"), len(marks_b) - marks_b.count("I")
        if ref_a != ref_b:
            raise ValueError(f"{where}: system a aligns {ref_a} reference tokens, system b {ref_b}")
        yield where, marks_a, marks_b


def _marks(pairs: Sequence[Pair], where: str) -> str:
    marks = "".join(pair[2] for pair in pairs)
    if marks.strip("CSDI"):
        bad = next(m for m in marks if m not in "CSDI")
        raise ValueError(f"{where}: alignment mark {bad!r} is not one of C, S, D, I")
    return marks


def _segments(a: str, b: str, min_correct: int):
    """Yield ``(ref_tokens, errors_a, errors_b)`` per segment of one utterance (sc_stats' state machine).

    ``i`` and ``j`` walk the two mark strings in step over reference tokens;
    insertions are stepped over and put the walk in the error state. ``clean``: no
    error since the last boundary, ``start_*`` follows the last correct token;
    ``error``: inside a segment; ``good``: counting correct tokens towards a boundary.
    """

    def segment(lo_a: int, hi_a: int, lo_b: int, hi_b: int):
        part_a, part_b = a[max(lo_a, 0) : hi_a + 1], b[max(lo_b, 0) : hi_b + 1]
        ref = (len(part_a) - part_a.count("I") + len(part_b) - part_b.count("I")) // 2
        return ref, len(part_a) - part_a.count("C"), len(part_b) - part_b.count("C")

    i = j = start_a = start_b = run = 0
    state = "clean"
    back = min_correct - 1  # a segment starts this many tokens before the last boundary token
    found = []
    while i < len(a):
        while i < len(a) and a[i] == "I":
            i += 1
            state = "error"
        while j < len(b) and b[j] == "I":
            j += 1
            state = "error"
        both_correct = i < len(a) and a[i] == "C" and j < len(b) and b[j] == "C"
        if state == "clean":
            if both_correct:
                start_a, start_b = i, j
            else:
                state = "error"
        elif both_correct:
            run = 1 if state == "error" else run + 1
            if run == min_correct:
                found.append(segment(start_a - back, i, start_b - back, j))
                start_a, start_b = i, j
                state = "clean"
            else:
                state = "good"
        else:
            state = "error"
        i, j = min(i + 1, len(a)), min(j + 1, len(b))
    # The last segment runs to the end of both alignments, taking B's trailing insertions too.
    if state != "clean" or j < len(b):
        found.append(segment(start_a - back, len(a) - 1, start_b - back, len(b) - 1))
    return [s for s in found if s[1] or s[2]]
