"""A ctm's fields as byte ranges of its text, read in numpy: only the columns scoring needs become Python strings.

A ctm of a 20,000-segment test set has about a million fields, and most are
times, channels and file names repeated line after line; `str.split` would make
a string of each. `ctm_fields` finds where every field starts and ends in the
UTF-8 bytes (the ASCII whitespace `str.split` splits at; a text with any other
Unicode space is left to the line reader), `Fields.column` decodes one column,
`Fields.times` reads a column of plain decimal times from its digits and
`Fields.runs` numbers the conversations from where the file or channel changes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

import numpy as np

__all__ = ["Fields", "ctm_fields"]

# The characters str.split() splits at: these ASCII ones, and (tested on the text) the others.
_ASCII_SPACE = np.zeros(256, dtype=bool)
_ASCII_SPACE[[9, 10, 11, 12, 13, 28, 29, 30, 31, 32]] = True
_OTHER_SPACE = re.compile("[\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")
_POWERS = np.array([1.0, 10.0, 100.0, 1000.0])


class Fields(NamedTuple):
    """Every kept line's fields: ``raw[starts[line, k]:ends[line, k]]`` is field ``k`` of ``line``."""

    raw: np.ndarray  # the text's UTF-8 bytes
    starts: np.ndarray  # (lines, width)
    ends: np.ndarray

    @property
    def width(self) -> int:
        """Fields per line."""
        return self.starts.shape[1]

    def column(self, k: int) -> list[str]:
        """Field ``k`` of every line, decoded.

        >>> ctm_fields("f A 1 2 wörd\\nf B 3 4 x\\n").column(4)
        ['wörd', 'x']
        """
        starts, lengths = self.starts[:, k], self._lengths(k)
        total = int(lengths.sum())
        source = np.repeat(starts - (np.cumsum(lengths) - lengths), lengths) + np.arange(total)
        joined = np.full(total + len(lengths), 10, dtype=np.uint8)  # each field, then a line break
        joined[np.arange(total) + np.repeat(np.arange(len(lengths)), lengths)] = self.raw[source]
        return joined.tobytes().decode("utf-8").split("\n")[:-1]

    def times(self, k: int) -> np.ndarray | None:
        """Column ``k`` as float64, when every field is a plain number of at most three decimals (else None).

        A sign, an exponent, a word, a fourth decimal, a second dot or a lone dot leaves the ctm
        to the line reader. ``n / 10**d`` of the digits ``n`` (at most 15: exact) and decimals ``d``
        is the double nearest the decimal (IEEE division rounds correctly), ``float``'s own, and
        ``round(t, 3)`` is ``t`` itself, as csrfilt reprints it.

        >>> ctm_fields("f A 1 2.5 x\\nf A .25 3. y\\n").times(3).tolist()
        [2.5, 3.0]
        >>> [ctm_fields(f"f A {t} 1 x\\n").times(2) for t in ("1.0005", "-1", "1e3", ".", "1.2.3", "٣")]
        [None, None, None, None, None, None]
        """
        if self._lengths(k).max() > 16:
            return None
        whole = np.zeros(len(self.starts), dtype=np.int64)
        digits, decimals = np.zeros_like(whole), np.zeros_like(whole)
        dotted, bad = np.zeros(len(whole), dtype=bool), np.zeros(len(whole), dtype=bool)
        for char, inside in self._places(k):
            value = char - np.uint8(48)  # a digit's value; a byte below "0" wraps above 9
            digit, dot = inside & (value < 10), inside & (char == 46)
            bad |= (inside & ~digit & ~dot) | (dot & dotted)
            whole = np.where(digit, whole * 10 + value, whole)
            digits += digit
            decimals += digit & dotted
            dotted |= dot
        if bad.any() or digits.min() == 0 or digits.max() > 15 or decimals.max() > 3:
            return None
        return whole / _POWERS[decimals]

    def runs(self, *columns: int) -> tuple[dict[tuple[str, ...], int], np.ndarray]:
        """Each distinct tuple of these columns numbered in order of appearance, and every line's number.

        A ctm keeps a conversation's lines together: only where a field changes from the line
        before is a key decoded.

        >>> ctm_fields("a 1 0 1 x\\na 1 1 1 y\\nb 1 0 1 z\\na 1 2 1 w\\n").runs(0, 1)
        ({('a', '1'): 0, ('b', '1'): 1}, array([0, 0, 1, 0]))
        """
        changed = np.zeros(max(len(self.starts) - 1, 0), dtype=bool)
        for k in columns:
            changed |= self._changed(k)
        first = [0, *(np.flatnonzero(changed) + 1).tolist()]
        starts, ends = self.starts[first][:, columns].tolist(), self.ends[first][:, columns].tolist()
        raw = self.raw
        found = [tuple(bytes(raw[a:b]).decode("utf-8") for a, b in zip(s, e)) for s, e in zip(starts, ends)]
        keys = {key: k for k, key in enumerate(dict.fromkeys(found))}
        lengths = np.diff([*first, len(self.starts)])
        return keys, np.repeat(np.array([keys[key] for key in found], dtype=np.int64), lengths)

    def _changed(self, k: int) -> np.ndarray:
        """Per line after the first: whether field ``k`` differs from the line before's."""
        lengths = self._lengths(k)
        changed = lengths[1:] != lengths[:-1]
        for char, inside in self._places(k):
            char = np.where(inside, char, 0)
            changed |= char[1:] != char[:-1]
        return changed

    def _lengths(self, k: int) -> np.ndarray:
        return self.ends[:, k] - self.starts[:, k]

    def _places(self, k: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Column ``k`` one character place at a time: every line's byte there, and whether its field reaches it."""
        starts, lengths = self.starts[:, k], self._lengths(k)
        for place in range(int(lengths.max())):
            yield self.raw[np.minimum(starts + place, len(self.raw) - 1)], place < lengths


def ctm_fields(text: str) -> Fields | None:
    """The text's fields, when every line that is not blank or a ``;;`` comment has as many (else None).

    The lines and fields `str.split` gives, found in the bytes: a field starts after whitespace,
    a line's first field is the first after a line break. A text with whitespace other than
    ASCII's gives None too (the line reader splits it).

    >>> fields = ctm_fields(";; c\\nf A 1 2 x\\n\\nf B 3 4 y\\n")
    >>> [fields.column(k) for k in range(fields.width)]
    [['f', 'f'], ['A', 'B'], ['1', '3'], ['2', '4'], ['x', 'y']]
    >>> ctm_fields("f A 1 2 x\\nf B 3 4 y 0.5\\n") is None
    True
    """
    if not text.isascii() and _OTHER_SPACE.search(text):
        return None
    raw = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    space = raw <= 32
    if ((raw < 9) | ((raw > 13) & (raw < 28))).any():  # control characters str.split keeps inside a field
        space = _ASCII_SPACE[raw]
    edges = np.flatnonzero(np.diff(space, prepend=True, append=True))  # where a field starts, then where it ends
    starts, ends = edges[0::2], edges[1::2]
    if not len(starts):
        return None
    opens = np.zeros(len(starts), dtype=bool)  # a line's first field: the first after a line break
    after_break = np.searchsorted(starts, np.flatnonzero(raw == 10))
    opens[0], opens[after_break[after_break < len(starts)]] = True, True
    comment = opens & (raw[starts] == 59) & (raw[np.minimum(starts + 1, len(raw) - 1)] == 59) & (starts + 1 < len(raw))
    counts = np.diff(np.flatnonzero(np.concatenate((opens, [True]))))
    kept = counts[~comment[opens]]
    if not len(kept) or (kept != kept[0]).any():
        return None
    if comment.any():
        keep = ~np.repeat(comment[opens], counts)
        starts, ends = starts[keep], ends[keep]
    width = int(kept[0])
    return Fields(raw, starts.reshape(-1, width), ends.reshape(-1, width))
