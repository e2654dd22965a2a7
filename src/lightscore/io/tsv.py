"""The one TSV writer: a header and rows as tab-separated UTF-8, written atomically, read back equal by `csv`.

A cell holding a tab, a carriage return, a line feed or a double quote is quoted
as spreadsheets and Python's ``csv`` expect (``"..."``, an inner ``"`` doubled),
so no value can break a row: ``csv.reader(open(path, newline=""), delimiter="\\t")``
gives back every cell as its ``str``. ``pandas.read_csv(path, sep="\\t")`` reads it too.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from lightscore.io.atomic import atomic_open

__all__ = ["tsv_cell", "write_tsv"]

# Python's csv quotes a CR only when it is in the line terminator: a CR in a cell would end the row.
_NEEDS_QUOTES = re.compile('[\t\r\n"]')


def tsv_cell(value: Any) -> str:
    """One cell as written: None empty, anything else its ``str``, quoted when it holds a tab, CR, LF or ``"``.

    Args:
        value: The cell's value.

    Returns:
        The cell's text in the file.

    >>> tsv_cell(None), tsv_cell(2.5), tsv_cell("here\\rx"), tsv_cell('x"y')
    ('', '2.5', '"here\\rx"', '"x""y"')
    """
    text = "" if value is None else str(value)
    if _NEEDS_QUOTES.search(text):
        return '"' + text.replace('"', '""') + '"'
    return text


def write_tsv(path: str | os.PathLike, header: Sequence[str], rows: Iterable[Sequence[Any]]) -> Path:
    """Write ``header`` and ``rows`` as tab-separated text with ``\\n`` line ends, atomically; return the path.

    Args:
        path: The file to write (its folder is created if missing).
        header: The column names.
        rows: One sequence of cells per row, as long as the header; cells as in `tsv_cell`.

    Returns:
        ``path`` as a `pathlib.Path`.

    Raises:
        ValueError: a row whose length differs from the header's, or a cell that is not valid
            Unicode (a lone surrogate); the message names the file and the row, and the old
            file, if any, is left as it was.
        OSError: the file cannot be written.

    >>> import csv, tempfile, pathlib
    >>> rows = [("u1", "a\\rb\\tc"), ("u2", 3)]
    >>> p = write_tsv(pathlib.Path(tempfile.mkdtemp()) / "worst.tsv", ["utt_id", "hyp"], rows)
    >>> p.read_bytes()
    b'utt_id\\thyp\\nu1\\t"a\\rb\\tc"\\nu2\\t3\\n'
    >>> with open(p, newline="") as f:
    ...     list(csv.reader(f, delimiter="\\t"))
    [['utt_id', 'hyp'], ['u1', 'a\\rb\\tc'], ['u2', '3']]
    """
    # Bytes, not text mode: a line feed inside a quoted cell must not become os.linesep.
    with atomic_open(path, "wb") as f:
        f.write(_line(path, 0, header, len(header)))
        for number, row in enumerate(rows, 1):
            f.write(_line(path, number, row, len(header)))
    return Path(path)


def _line(path: str | os.PathLike, number: int, row: Sequence[Any], width: int) -> bytes:
    """One row as UTF-8 bytes; ``number`` 0 is the header."""
    where = "the header" if number == 0 else f"row {number}"
    if len(row) != width:
        raise ValueError(f"{path}: {where} has {len(row)} cells, the header {width}")
    # A lone empty cell is quoted: an empty line would read back as a row of no cells.
    text = '""' if width == 1 and tsv_cell(row[0]) == "" else "\t".join(map(tsv_cell, row))
    try:
        return (text + "\n").encode("utf-8")
    except UnicodeEncodeError as e:
        raise ValueError(f"{path}: {where} holds text that is not valid Unicode ({e.reason}): {row!r}") from None
