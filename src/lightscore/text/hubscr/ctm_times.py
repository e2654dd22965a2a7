"""The times csrfilt prints for a ctm's filtered words, worked out for every line at once in numpy.

csrfilt gives a word the GLM splits into ``m`` words equal parts of its time and
prints each part ``%.3f``; sclite then reads the part back and takes its
midpoint. `lightscore.text.hubscr.ctm_words` needs only each item's start and
midpoint, which are ``round(x, 3)`` of a few sums (``%.3f`` prints the same
correctly rounded number). `round3` is Python's own ``round`` per value: a numpy
``rint`` with Python only near halves paid 1.3x on a whole ``hubscr()`` run, under
the 1.5x a fast path must pay (issue 37).
"""

from __future__ import annotations

import numpy as np

__all__ = ["alternation_times", "round3", "split_times"]


def round3(values: np.ndarray) -> np.ndarray:
    """``round(v, 3)`` of every value: the double nearest the decimal nearest ``v`` (ties to even), as ``%.3f``
    prints it and sclite reads it back.

    Args:
        values: float64 values.

    Returns:
        The rounded values.

    >>> round3(np.array([0.0005, 1.0015, 2.5, 0.1235])).tolist()
    [0.001, 1.002, 2.5, 0.123]
    """
    return np.array([round(v, 3) for v in values.tolist()], dtype=np.float64)


def split_times(
    begin: np.ndarray, duration: np.ndarray, parts: np.ndarray, index: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Start and midpoint of word ``index`` of a ctm word split into ``parts`` equal words, as csrfilt prints them.

    Args:
        begin: The ctm line's begin time, per word.
        duration: Its duration, per word.
        parts: How many words the line became (at least 1), per word.
        index: The word's place among them (from 0).

    Returns:
        ``(start, midpoint)`` per word.

    >>> split_times(np.array([1.0, 1.0]), np.array([0.25, 0.25]), np.array([2, 2]), np.array([0, 1]))
    (array([1.   , 1.125]), array([1.0625, 1.1875]))
    """
    step = duration / parts
    start = round3(begin + step * index)
    return start, start + round3(step) / 2


def alternation_times(
    begin: np.ndarray, duration: np.ndarray, lengths: np.ndarray, line: np.ndarray, lines: int
) -> tuple[np.ndarray, np.ndarray]:
    """An alternation's earliest start and latest midpoint, from the word counts of its alternatives.

    Every alternative starts at the line's begin and splits its time in equal words; its last
    word has its latest midpoint. An alternation of empty alternatives only is timed (0, 0).

    Args:
        begin: The line's begin time, per alternative.
        duration: Its duration, per alternative.
        lengths: The alternative's number of words, per alternative.
        line: Which alternation (0 to ``lines - 1``) each alternative belongs to; every one has one.
        lines: How many alternations.

    Returns:
        ``(start, midpoint)`` per alternation.

    >>> alternation_times(np.array([1.0, 1.0, 2.0]), np.array([0.5, 0.5, 1.0]), np.array([1, 2, 0]),
    ...                   np.array([0, 0, 1]), 2)
    (array([1., 0.]), array([1.375, 0.   ]))
    """
    worded = lengths > 0
    parts = np.where(worded, lengths, 1)
    _, latest = split_times(begin, duration, parts, parts - 1)
    midpoint = np.full(lines, -np.inf)
    np.maximum.at(midpoint, line[worded], latest[worded])
    start = np.empty(lines)
    start[line] = round3(begin)  # an alternation's alternatives share its line's begin
    empty = midpoint == -np.inf
    return np.where(empty, 0.0, start), np.where(empty, 0.0, midpoint)
