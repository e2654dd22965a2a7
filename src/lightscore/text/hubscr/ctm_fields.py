"""A ctm's fields as byte ranges of its text, read in numpy: only the columns scoring needs become Python strings.

A ctm of a 20,000-segment test set has about a million fields, and most are
times, channels and file names repeated line after line; `str.split` would make
a string of each. `ctm_fields` finds where every field starts and ends in the
UTF-8 bytes (the ASCII whitespace `str.split` splits at; a text with any other
Unicode space is left to the line reader), `Fields.column` decodes one column,
`Fields.times` reads a column of plain decimal times from its digits and
`Fields.runs` numbers the conversations from where the file or channel changes.

Times and keys are read eight bytes at a time: a field's bytes as one 64-bit word
(`Fields._words`), tested and summed a byte lane at a time with integer arithmetic.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np

__all__ = ["Fields", "ctm_fields"]

# The characters str.split() splits at: these ASCII ones, and (tested on the text) the others.
_ASCII_SPACE = np.zeros(256, dtype=bool)
_ASCII_SPACE[[9, 10, 11, 12, 13, 28, 29, 30, 31, 32]] = True
_OTHER_SPACE = re.compile("[\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")
_POWERS = np.array([1.0, 10.0, 100.0, 1000.0])
_PAD = b" " * 16  # spaces around the text: the 8-byte words around any field stay inside the bytes
_WORD = np.dtype("<u8")  # byte 0 of a word is its lowest: the word's first character
_ALL = np.uint64(2**64 - 1)
_LANES = 0x0101010101010101  # times a byte: that byte in every lane
_TOPS = np.uint64(0x80 * _LANES)  # each lane's top bit: where the lane tests leave their answers
_FAR = np.uint64(0x80808080)  # the lanes four places or more from a field's end: no dot there


class Fields(NamedTuple):
    """Every kept line's fields: ``raw[starts[line, k]:ends[line, k]]`` is field ``k`` of ``line``."""

    raw: np.ndarray  # the text's UTF-8 bytes, between `_PAD` spaces
    starts: np.ndarray  # (lines, width)
    ends: np.ndarray

    @property
    def width(self) -> int:
        """Fields per line."""
        return self.starts.shape[1]

    def column(self, k: int) -> list[str]:
        """Field ``k`` of every line, decoded.

        Each field is gathered with the whitespace byte after it, and the whole split again.

        >>> ctm_fields("f A 1 2 wörd\\nf B 3 4 x\\n").column(4)
        ['wörd', 'x']
        """
        starts, _, lengths = self._column(k)
        taken = lengths + 1
        step = np.ones(int(taken.sum()), dtype=np.int64)  # the next byte's place, from the last one's
        step[np.cumsum(taken[:-1])] = starts[1:] - starts[:-1] - lengths[:-1]
        step[0] = starts[0]
        return self.raw[np.cumsum(step)].tobytes().decode("utf-8").split()

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
        starts, ends, lengths = self._column(k)
        if lengths.max() > 16:
            return None
        values, wrong, dots = _lanes(self._words(ends - 8), lengths, dotted=True)
        bad = wrong | (dots & _FAR) | (dots & (dots - 1))  # a lane neither digit nor dot; a far or second dot
        count = np.bitwise_count(dots)
        shift = count << 3  # the dot's lane taken out: the digits before it move up one
        before = (dots >> 7) - 1
        low = (values & ~before) | ((values & before) << shift)
        if lengths.max() > 8:
            high, wrong, _ = _lanes(self._words(ends - 16), lengths - 8, dotted=False)
            bad |= wrong
            whole = _number(low | high >> (64 - shift)) + _number(high << shift) * 100_000_000
        else:
            whole = _number(low)
        digits = lengths - count
        if bad.any() or digits.min() == 0 or digits.max() > 15:
            return None
        decimals = np.bitwise_count(~((dots << 1) - 1)) >> 3  # the lanes after the dot
        least = int(decimals.min())
        return whole / (_POWERS[least] if least == decimals.max() else _POWERS[decimals])

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
        """Per line after the first: whether field ``k`` differs from the line before's (eight bytes at a time)."""
        starts, _, lengths = self._column(k)
        changed = lengths[1:] != lengths[:-1]
        shortest = int(lengths.min())
        for place in range(0, int(lengths.max()), 8):
            # A field shorter than this place has its word read at its end (inside the bytes), and keeps none of it.
            at = starts + np.minimum(lengths, place) if place else starts
            word = self._words(at)
            if shortest < place + 8:  # some word goes past its field
                word &= _ALL >> _outside(lengths - place)
            changed |= word[1:] != word[:-1]
        return changed

    def _column(self, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Column ``k``'s starts, ends and lengths, each contiguous (arithmetic on a strided column costs more)."""
        starts, ends = np.ascontiguousarray(self.starts[:, k]), np.ascontiguousarray(self.ends[:, k])
        return starts, ends, ends - starts

    def _words(self, at: np.ndarray) -> np.ndarray:
        """The eight bytes from each place ``at`` as one word (`_WORD`)."""
        return np.ndarray((len(self.raw) - 7,), _WORD, buffer=self.raw, strides=(1,))[at]


def _outside(counts: np.ndarray) -> np.ndarray:
    """Bits to shift a word's mask by so that it keeps ``counts`` bytes (clipped to 0..8) of the eight."""
    return (64 - 8 * np.clip(counts, 0, 8)).astype(np.uint8)


def _at_least(words: np.ndarray, n: int, lanes: np.ndarray) -> np.ndarray:
    """The top bit of each of these byte ``lanes`` (top bits) that is ``n`` (at most 128) or more.

    Adding ``128 - n`` to a lane's low 7 bits sets its top bit when they are ``n`` or more, and never carries.
    """
    return (((words & np.uint64(0x7F * _LANES)) + np.uint64((128 - n) * _LANES)) | words) & lanes


def _lanes(words: np.ndarray, counts: np.ndarray, dotted: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The lanes of each word's last ``counts`` bytes (a field's end is a word's top byte), read as digits.

    Returns:
        The digits' values (other lanes zero), the flags of lanes neither digit nor (if ``dotted``) dot,
        and the dots' flags.
    """
    inside = _TOPS << _outside(counts)
    values = words ^ np.uint64(48 * _LANES)  # "0" to "9" become 0 to 9
    other = _at_least(values, 10, inside)
    dots = inside ^ _at_least(words ^ np.uint64(46 * _LANES), 1, inside) if dotted else np.zeros_like(words)
    return values & ((inside ^ other) >> 7) * 255, other ^ dots, dots


def _number(lanes: np.ndarray) -> np.ndarray:
    """The eight-digit numbers the words' lanes spell (first byte first): pairs, then fours, then eights.

    >>> _number(np.frombuffer(bytes([0, 0, 1, 2, 3, 4, 5, 6]), _WORD)).tolist()
    [123456]
    """
    lanes = (lanes * 10 + (lanes >> 8)) & np.uint64(0x00FF00FF00FF00FF)
    lanes = (lanes * 100 + (lanes >> 16)) & np.uint64(0x0000FFFF0000FFFF)
    return (lanes * 10000 + (lanes >> 32)) & np.uint64(0xFFFFFFFF)


def ctm_fields(text: str) -> Fields | None:
    """The text's fields, when every line that is not blank or a ``;;`` comment has as many (else None).

    Plain twin: `lightscore.text.hubscr.reference.plain_fields`.

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
    data = _PAD + text.encode("utf-8") + _PAD
    raw = np.frombuffer(data, dtype=np.uint8)
    edges = np.flatnonzero(np.diff(raw <= 32, prepend=True))  # where a field starts, then where it ends
    found = _even_lines(data, raw, edges) if len(edges) else None
    if found is None:
        if ((raw < 9) | ((raw > 13) & (raw < 28))).any():  # control characters str.split keeps inside a field
            edges = np.flatnonzero(np.diff(_ASCII_SPACE[raw], prepend=True))
        found = _kept_lines(raw, edges)
    return found


def _even_lines(data: bytes, raw: np.ndarray, edges: np.ndarray) -> Fields | None:
    """The fields of the usual ctm, or None for any other (`_kept_lines` reads it).

    Usual: a line break right after every ``width``-th field, no other byte below 28 (control
    characters, tabs, other line breaks) and no ``;;`` comment. Counting the bytes below 28
    proves it: there are no others than the line breaks seen at their places.
    """
    starts, ends = edges[0::2], edges[1::2]
    fields, first, last = len(starts), int(starts[0]), int(ends[-1])
    line_break = data.find(b"\n", first, last)
    width = fields if line_break < 0 else (int(np.searchsorted(edges, line_break)) + 1) // 2
    lines = fields // width
    if lines * width != fields or not (raw[ends[width - 1 : -1 : width]] == 10).all():
        return None
    if np.count_nonzero(raw < 28) != lines - 1 + data.count(b"\n", 0, first) + data.count(b"\n", last):
        return None
    opening = starts[::width]
    if b";" in data and ((raw[opening] == 59) & (raw[opening + 1] == 59)).any():
        return None
    return Fields(raw, starts.reshape(lines, width), ends.reshape(lines, width))


def _kept_lines(raw: np.ndarray, edges: np.ndarray) -> Fields | None:
    """The fields of the lines that are not ``;;`` comments, when all have as many (else None)."""
    starts, ends = edges[0::2], edges[1::2]
    if not len(starts):
        return None
    opens = np.zeros(len(starts), dtype=bool)  # a line's first field: the first after a line break
    after_break = np.searchsorted(starts, np.flatnonzero(raw == 10))
    opens[0], opens[after_break[after_break < len(starts)]] = True, True
    firsts = np.flatnonzero(opens)
    comment = (raw[starts[firsts]] == 59) & (raw[starts[firsts] + 1] == 59)
    counts = np.diff(np.append(firsts, len(starts)))
    kept = counts[~comment]
    if not len(kept) or (kept != kept[0]).any():
        return None
    if comment.any():
        keep = ~np.repeat(comment, counts)
        starts, ends = starts[keep], ends[keep]
    width = int(kept[0])
    return Fields(raw, starts.reshape(-1, width), ends.reshape(-1, width))
