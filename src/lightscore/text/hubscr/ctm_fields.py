"""A ctm's lines split into fields, as `lightscore.text.hubscr.ctm_words` reads them line by line.

`ctm_rows` splits each line as ``str.split`` splits it, leaving out blank lines and ``;;``
comments. Two fast paths once stood here and in `ctm_words`: a byte-level reader (fields found in
the UTF-8 bytes, times read eight bytes at a time), then the lines read as numpy columns. Each paid
under the 1.5x a fast path must pay on a whole ``hubscr()`` run (1.45x, then 1.13x; issue 37) and
gave way to the line reader (benchmarks/results/fast_paths_sclite_hubscr.md has the figures).
"""

from __future__ import annotations

__all__ = ["ctm_rows"]


def ctm_rows(text: str) -> list[list[str]]:
    """The fields of the text's lines (``\\n``-separated, split as ``str.split`` splits), blank lines and ``;;``
    comments left out.

    >>> ctm_rows(";; c\\nf A 1 2 x\\n\\nf B 3 4 y 0.5\\n")
    [['f', 'A', '1', '2', 'x'], ['f', 'B', '3', '4', 'y', '0.5']]
    """
    return [fields for fields in map(str.split, text.split("\n")) if fields and not fields[0].startswith(";;")]
