"""sclite's trn transcripts: one ``text (utt_id)`` per line, read into ``(utt_id, text)`` rows.

The id is the last parenthesized group of the line, as sclite reads it, so the
text may hold ``(word)`` markup and an empty text is just ``(utt_id)``. Lines
starting ``;;`` are comments and blank lines are skipped. A trn reference is
scored with its markup read (`lightscore.text.sclite.markup`), as sclite does,
so an alternation that cannot be read is refused where the file is read.

sclite folds the case of the ids as it folds the words (``(4T0C0204)`` is the
utterance ``(4t0c0204)``, and two ids that differ only in case are one id
given twice); with ``-s`` it keeps them apart. `read_trn`'s ``case`` says which.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

from lightscore.text.sclite.case import CASE_PROFILES, sclite_folder
from lightscore.text.sclite.network import MarkupError, parse_reference

__all__ = ["SCLITE_FORMATS", "TrnError", "is_trn", "parse_trn_line", "read_trn", "trn_id_folder"]

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


def trn_id_folder(case: str) -> dict[int, int] | None:
    """The ``str.translate`` table sclite folds trn ids with under an error rate's ``case``; None keeps them.

    ``sensitive`` is sclite's ``-s``: ids compared as written. Every other value folds them as
    sclite without ``-s`` does: A-Z, plus the table of a ``sclite_<localization>`` (``fold``, which
    sclite has no switch for, folds ids as ``sclite`` does).

    Args:
        case: An error rate's ``case`` (`lightscore.text.choices.CASES`).

    Returns:
        A table for ``str.translate``, or None for ``sensitive``.

    >>> "4T0C0204".translate(trn_id_folder("sclite")), trn_id_folder("sensitive")
    ('4t0c0204', None)
    """
    if case == "sensitive":
        return None
    return sclite_folder(case if case in CASE_PROFILES else "sclite")


def read_trn(path: str | os.PathLike, case: str = "sensitive") -> Iterator[tuple[str, str]]:
    """The ``(utt_id, text)`` rows of a trn file, in file order.

    Args:
        path: A UTF-8 trn file.
        case: How ids compare (`trn_id_folder`): ``sensitive`` (sclite ``-s``) keeps each id as written;
            ``sclite`` (sclite's default) and the other values yield every id folded as sclite folds it,
            as sclite's reports name them.

    Yields:
        One ``(utt_id, text)`` per transcript line.

    Raises:
        TrnError: a line without ``(utt_id)``, an id seen before (after folding), or an alternation
            that is never closed or holds no alternative (each names the file, the line and the utterance).

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "ref.trn"
    >>> _ = p.write_text("the cat (S1-U1)\\n(s1-u2)\\n")
    >>> list(read_trn(p)), list(read_trn(p, "sclite"))
    ([('S1-U1', 'the cat'), ('s1-u2', '')], [('s1-u1', 'the cat'), ('s1-u2', '')])
    """
    where, fold = os.fspath(path), trn_id_folder(case)
    seen: dict[str, tuple[int, str]] = {}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            try:
                row = parse_trn_line(line)
            except TrnError as e:
                raise TrnError(f"{where} line {number}: {e}") from None
            if row is None:
                continue
            written, text = row
            utt_id = written if fold is None else written.translate(fold)
            if utt_id in seen:
                first, as_written = seen[utt_id]
                folded = f" as {as_written!r} (sclite folds the ids' case; -s, case='sensitive', keeps them apart)"
                again = folded if as_written != written else ""
                raise TrnError(f"{where} line {number}: utterance {written!r} is also on line {first}{again}")
            seen[utt_id] = (number, written)
            if "{" in text:
                _check_markup(text, where, number, written)
            yield utt_id, text


def _check_markup(text: str, where: str, number: int, utt_id: str) -> None:
    """Raise TrnError naming the file, line and utterance when sclite's markup reader cannot read ``text``."""
    try:
        parse_reference(text)
    except MarkupError as e:
        raise TrnError(f"{where} line {number}: utterance {utt_id!r}: {e}") from None


def is_trn(path: str | os.PathLike) -> bool:
    """True when ``path`` names a trn file by its suffix (``.trn``).

    >>> is_trn("dev/ref.trn"), is_trn("dev/ref.scp")
    (True, False)
    """
    return os.fspath(path).lower().endswith(".trn")
