"""The aligners an error rate can use, by name: ``"unit"`` (rapidfuzz) and ``"sclite"`` (NIST's weights).

`aligner_functions` is the one registry; `ALIGNERS` its names (the CLI's choices read them).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from lightscore.text.alignment import Pair, align
from lightscore.text.counting import Counts, count_edits, sum_edits

__all__ = ["ALIGNERS", "AlignerFunctions", "aligner_functions"]

ALIGNERS = ("unit", "sclite")


class AlignerFunctions(NamedTuple):
    """What an error rate calls for one aligner: batch totals, one pair's counts, one pair's alignment."""

    sum_edits: Callable[..., tuple[int, int, int, int, int]]
    count: Callable[[Sequence, Sequence], Counts]
    align: Callable[[Sequence, Sequence], list[Pair]]


def aligner_functions(aligner: str) -> AlignerFunctions:
    """The functions of ``aligner``: ``"unit"`` (rapidfuzz, unit costs) or ``"sclite"`` (NIST sclite's weights).

    `lightscore.text.sclite.align` is imported on first use: it needs numpy,
    which ``import lightscore`` avoids.

    Args:
        aligner: ``"unit"`` or ``"sclite"`` (checked by `lightscore.metrics.error_rate_options.check_options`).

    Returns:
        ``(sum_edits, count, align)``: as `sum_edits`, `count_edits` and `lightscore.text.alignment.align`.

    >>> [f.__name__ for f in aligner_functions("sclite")]
    ['sum_sclite_edits', 'sclite_counts', 'sclite_align']
    >>> aligner_functions("unit").count("the cat".split(), "the bat sat".split())
    (1, 0, 1)
    """
    if aligner not in ALIGNERS:
        raise ValueError(f"aligner {aligner!r} is not one of {', '.join(ALIGNERS)}")
    if aligner == "unit":
        return AlignerFunctions(sum_edits, count_edits, align)
    from lightscore.text.sclite import align as sclite_align

    return AlignerFunctions(sclite_align.sum_sclite_edits, sclite_align.sclite_counts, sclite_align.sclite_align)
