"""Word timing: which hypothesis words match reference words, their start and end offsets, emission latency.

Times are whole microseconds (`to_micros`), so an offset is an exact integer: summed, compared with a
tolerance, or merged from several ranks, it is the same number whatever the order. The words are matched
by the unit-cost Levenshtein alignment of their texts (rapidfuzz's path, as `lightscore.text.alignment.align`
takes it); only the pairs it marks correct have offsets.

- start offset = hypothesis start - reference start; end offset = hypothesis end - reference end;
- emission latency = the hypothesis word's emission time - the reference word's end (a streaming
  recognizer's delay; negative when a word is emitted before it ends in the reference).

>>> ref = [TimedWord("a", 0, 400_000), TimedWord("b", 500_000, 900_000)]
>>> hyp = [TimedWord("a", 20_000, 380_000), TimedWord("c", 500_000, 900_000)]
>>> matched_pairs([w.word for w in ref], [w.word for w in hyp])
[(0, 0)]
>>> summary_ms([30_000, -10_000, 20_000])
{'mean': 13.333333333333334, 'median': 20.0, 'p90': 28.0}
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from rapidfuzz.distance import Levenshtein

__all__ = ["MICROS", "TimedWord", "count_within", "matched_pairs", "summary_ms", "to_micros"]

MICROS = 1_000_000


class TimedWord(NamedTuple):
    """A word and its start and end in whole microseconds."""

    word: str
    start: int
    end: int


def to_micros(seconds: float, what: str) -> int:
    """Seconds as whole microseconds (rounded half to even).

    Raises:
        ValueError: not a finite number >= 0, named by ``what``.

    >>> to_micros(1.25, "start"), to_micros("0.0000005", "end")
    (1250000, 0)
    >>> to_micros(-1, "start of word 2")
    Traceback (most recent call last):
    ...
    ValueError: start of word 2 -1 is not a finite time >= 0 (seconds)
    """
    try:
        value = float(seconds)
    except (TypeError, ValueError):
        raise ValueError(f"{what} {seconds!r} is not a number of seconds") from None
    if not math.isfinite(value) or value < 0 or not math.isfinite(value * MICROS):
        raise ValueError(f"{what} {seconds!r} is not a finite time >= 0 (seconds)")
    return round(value * MICROS)


def matched_pairs(ref: Sequence[str], hyp: Sequence[str]) -> list[tuple[int, int]]:
    """The ``(ref index, hyp index)`` pairs the unit-cost alignment of the words marks correct.

    >>> matched_pairs("a b c d".split(), "a x c d e".split())
    [(0, 0), (2, 2), (3, 3)]
    """
    pairs: list[tuple[int, int]] = []
    for tag, i1, i2, j1, _ in Levenshtein.opcodes(list(ref), list(hyp)):
        if tag == "equal":
            pairs.extend((i1 + k, j1 + k) for k in range(i2 - i1))
    return pairs


def summary_ms(values_us: Sequence[int]) -> dict[str, float]:
    """Mean, median and 90th percentile (numpy's linear interpolation) of microseconds, in milliseconds.

    The mean is the exact integer sum over the count; the percentiles sort the values first,
    so neither depends on the order the values came in.

    >>> summary_ms([1000, 3000])
    {'mean': 2.0, 'median': 2.0, 'p90': 2.8}
    """
    if not values_us:
        nan = float("nan")
        return {"mean": nan, "median": nan, "p90": nan}
    values = np.sort(np.asarray(values_us, dtype=np.int64))
    median, p90 = np.percentile(values, [50, 90])
    return {"mean": sum(values_us) / len(values_us) / 1000, "median": float(median) / 1000, "p90": float(p90) / 1000}


def count_within(values_us: Sequence[int], tolerance_ms: int) -> int:
    """How many values are at most ``tolerance_ms`` in size (a value on the boundary is within).

    >>> count_within([0, 50_000, -50_001, 120_000], 50)
    2
    """
    limit = tolerance_ms * 1000
    return sum(abs(v) <= limit for v in values_us)
