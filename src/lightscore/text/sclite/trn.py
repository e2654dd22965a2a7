"""sclite's trn transcripts: one ``text (utt_id)`` per line, read into ``(utt_id, text)`` rows.

The id is the last parenthesized group of the line, as sclite reads it, so the
text may hold ``(word)`` markup and an empty text is just ``(utt_id)``. Lines
starting ``;;`` are comments and blank lines are skipped. A trn reference is
scored with its markup read (`lightscore.text.sclite.markup`), as sclite does.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

__all__ = ["SCLITE_FORMATS", "TrnError", "is_trn", "parse_trn_line", "read_trn"]

SCLITE_FORMATS = ("scp", "trn", "stm")
"""Input formats an error rate scores: SCP (literal text), sclite's trn, an stm reference with a ctm hypothesis."""

_LINE = re.compile(r"^(?P<text>.*?)\s*\((?P<id>[^()\s]+)\)\s*$")


class TrnError(ValueError):
    """A trn line without its ``(utt_id)``, or an id given twice; the message names the file and line."""


def parse_trn_line(line: str) -> tuple[str, str] | None:
    """Split one trn line into ``(utt_id, text)``; None for a blank line or a ``;;`` comment.

    Args:
        line: One line, with or without its line ending.

    Returns:
        The id inside the last parentheses and the text before it (whitespace-trimmed).

    Raises:
        TrnError: the line does not end with ``(utt_id)``.

    >>> parse_trn_line("{ um / uh } (yes) ok (spk1-utt2)\\n")
    ('spk1-utt2', '{ um / uh } (yes) ok')
    >>> parse_trn_line("(spk1-utt3)"), parse_trn_line(";; a comment")
    (('spk1-utt3', ''), None)
    >>> parse_trn_line("no id here")
    Traceback (most recent call last):
    ...
    lightscore.text.sclite.trn.TrnError: the line does not end with (utt_id): 'no id here'
    """
    stripped = line.strip()
    if not stripped or stripped.startswith(";;"):
        return None
    found = _LINE.match(stripped)
    if found is None:
        raise TrnError(f"the line does not end with (utt_id): {stripped[:80]!r}")
    return found["id"], found["text"].strip()


def read_trn(path: str | os.PathLike) -> Iterator[tuple[str, str]]:
    """The ``(utt_id, text)`` rows of a trn file, in file order.

    Args:
        path: A UTF-8 trn file.

    Yields:
        One ``(utt_id, text)`` per transcript line.

    Raises:
        TrnError: a line without ``(utt_id)``, or an id seen before (both name the file and line).

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "ref.trn"
    >>> _ = p.write_text("the cat (s1-u1)\\n(s1-u2)\\n")
    >>> list(read_trn(p))
    [('s1-u1', 'the cat'), ('s1-u2', '')]
    """
    seen: dict[str, int] = {}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            try:
                row = parse_trn_line(line)
            except TrnError as e:
                raise TrnError(f"{os.fspath(path)} line {number}: {e}") from None
            if row is None:
                continue
            if row[0] in seen:
                raise TrnError(f"{os.fspath(path)} line {number}: utterance {row[0]!r} is also on line {seen[row[0]]}")
            seen[row[0]] = number
            yield row


def is_trn(path: str | os.PathLike) -> bool:
    """True when ``path`` names a trn file by its suffix (``.trn``).

    >>> is_trn("dev/ref.trn"), is_trn("dev/ref.scp")
    (True, False)
    """
    return os.fspath(path).lower().endswith(".trn")
