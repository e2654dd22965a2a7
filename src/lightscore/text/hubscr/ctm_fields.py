"""A ctm's lines split into fields, as the columns `lightscore.text.hubscr.ctm_words` reads in numpy.

`ctm_rows` splits each line as ``str.split`` splits it, leaving out blank lines and ``;;``
comments; `ctm_fields` keeps them as columns when every line has as many fields. A byte-level
reader (fields found in the UTF-8 bytes, times read eight bytes at a time) once stood here: it paid
1.4x on a whole ``hubscr()`` run, under the 1.5x a fast path must pay (issue 37), and gave way to
this one (benchmarks/results/fast_paths_sclite_hubscr.md has the figures).
"""

from __future__ import annotations

import re

import numpy as np

__all__ = ["Fields", "ctm_fields", "ctm_rows"]

# A time `Fields.times` reads: digits (15 at most), and at most one dot followed by at most three.
_PLAIN_TIME = re.compile(r"(?=\.?[0-9])[0-9]*(?:\.[0-9]{0,3})?")
# Unicode whitespace beyond ASCII's: such a ctm is left to the line reader, as it always was (identical numbers).
_OTHER_SPACE = re.compile("[\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")


class Fields:
    """A ctm's lines split into fields, every line as wide.

    Args:
        rows: The fields of each line that is not blank or a ``;;`` comment (`ctm_rows`).
    """

    def __init__(self, rows: list[list[str]]) -> None:
        self.rows = rows

    @property
    def width(self) -> int:
        """Fields per line."""
        return len(self.rows[0])

    def column(self, k: int) -> list[str]:
        """Field ``k`` of every line.

        >>> ctm_fields("f A 1 2 wörd\\nf B 3 4 x\\n").column(4)
        ['wörd', 'x']
        """
        return [row[k] for row in self.rows]

    def times(self, k: int) -> np.ndarray | None:
        """Column ``k`` as float64 when every field is a plain number of at most 3 decimals and 15 digits, else None.

        A sign, an exponent, a word, a fourth decimal, a second dot or a lone dot leaves the ctm to the
        line reader. Such a time is exact to the millisecond in its double, so ``round(t, 3)`` is ``t``
        itself, as csrfilt reprints it.

        >>> ctm_fields("f A 1 2.5 x\\nf A .25 3. y\\n").times(3).tolist()
        [2.5, 3.0]
        >>> [ctm_fields(f"f A {t} 1 x\\n").times(2) for t in ("1.0005", "-1", "1e3", ".", "1.2.3", "٣")]
        [None, None, None, None, None, None]
        """
        column = self.column(k)
        if not all(map(_PLAIN_TIME.fullmatch, column)):
            return None
        # 15 digits at most (exact in a double); only a field of 16 characters or more may have more.
        if max(map(len, column)) > 15 and any(len(field) - field.count(".") > 15 for field in column):
            return None
        return np.array(column, dtype=np.float64)  # numpy's own reading of each string, float()'s double

    def runs(self, *columns: int) -> tuple[dict[tuple[str, ...], int], np.ndarray]:
        """Each distinct tuple of these columns numbered in order of appearance, and every line's number.

        >>> ctm_fields("a 1 0 1 x\\na 1 1 1 y\\nb 1 0 1 z\\na 1 2 1 w\\n").runs(0, 1)
        ({('a', '1'): 0, ('b', '1'): 1}, array([0, 0, 1, 0]))
        """
        keys: dict[tuple[str, ...], int] = {}
        numbers = [keys.setdefault(key, len(keys)) for key in zip(*map(self.column, columns))]
        return keys, np.array(numbers, dtype=np.int64)


def ctm_rows(text: str) -> list[list[str]]:
    """The fields of the text's lines (``\\n``-separated, split as ``str.split`` splits), blank lines and ``;;``
    comments left out.

    >>> ctm_rows(";; c\\nf A 1 2 x\\n\\nf B 3 4 y 0.5\\n")
    [['f', 'A', '1', '2', 'x'], ['f', 'B', '3', '4', 'y', '0.5']]
    """
    return [fields for fields in map(str.split, text.split("\n")) if fields and not fields[0].startswith(";;")]


def ctm_fields(text: str) -> Fields | None:
    """The text's `ctm_rows` as columns when every line has as many fields; else None, and None for a text
    holding whitespace other than ASCII's.

    Args:
        text: A ctm file's text.

    Returns:
        Its `Fields`, or None.

    >>> fields = ctm_fields(";; c\\nf A 1 2 x\\n\\nf B 3 4 y\\n")
    >>> [fields.column(k) for k in range(fields.width)]
    [['f', 'f'], ['A', 'B'], ['1', '3'], ['2', '4'], ['x', 'y']]
    >>> ctm_fields("f A 1 2 x\\nf B 3 4 y 0.5\\n") is None
    True
    """
    if not text.isascii() and _OTHER_SPACE.search(text):
        return None
    rows = ctm_rows(text)
    if not rows or any(len(fields) != len(rows[0]) for fields in rows):
        return None
    return Fields(rows)
