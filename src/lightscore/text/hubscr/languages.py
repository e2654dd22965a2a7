"""What ``hubscr -l <language>`` changes in the scoring: csrfilt's case switches and sclite's case folding.

``hubscr.pl`` filters both sides with ``csrfilt.sh -dh <glm>`` plus, per language:

============  =================  ===============  ==========================================
language      csrfilt            sclite           here
============  =================  ===============  ==========================================
english       (upper-case A-Z)   (folds A-Z)      files read as UTF-8
spanish       ``-e``             (folds A-Z)      Latin-1: ``-e`` upper-cases its à-þ too
italian       ``-s -e``          (folds A-Z)      Latin-1, nothing upper-cased
arabic        ``-s``             ``-s``           UTF-8, case kept; as ``hubscr -l arabic -d``
============  =================  ===============  ==========================================

Spanish and Italian files are read as Latin-1, one character per byte, as the Perl
and C tools read them: a UTF-8 file comes out as those tools make it (``-e``
changes bytes, not letters). Arabic is scored without the definite-article
split, Hamza normalization and Tanween filter, which need an LDC lexicon (``-d``,
and hubscr's defaults for ``-H``, ``-T``). German needs that lexicon for its
compound splitting and Mandarin sclite's ``-c NOASCII DH -e gb`` with the
markup inside it: neither is scored here, and asking says so.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["LANGUAGES", "Language", "language"]


class Language(NamedTuple):
    """One language's switches: csrfilt upper-cases (not ``-s``), with Latin-1's letters (``-e``); sclite's case."""

    upcase: bool
    latin1: bool
    case: str  # sclite's folding: "generic" (A-Z) or "sensitive" (-s)
    encoding: str


LANGUAGES = {
    "english": Language(True, False, "generic", "utf-8"),
    "spanish": Language(True, True, "generic", "latin-1"),
    "italian": Language(False, True, "generic", "latin-1"),
    "arabic": Language(False, False, "sensitive", "utf-8"),
}
"""The languages scored as ``hubscr -l`` scores them."""

_NOT_SCORED = {
    "german": "its compound splitting (acomp.pl) needs an LDC lexicon",
    "mandarin": "sclite's -c NOASCII DH -e gb with markup inside the characters is not built yet",
}


def language(name: str) -> Language:
    """The switches of ``hubscr -l name``.

    Raises:
        ValueError: a language hubscr does not know, or one not scored here (German, Mandarin).

    >>> language("Spanish")
    Language(upcase=True, latin1=True, case='generic', encoding='latin-1')
    >>> language("german")
    Traceback (most recent call last):
    ...
    ValueError: hubscr -l german is not scored here: its compound splitting (acomp.pl) needs an LDC lexicon
    """
    key = name.lower()
    if key in _NOT_SCORED:
        raise ValueError(f"hubscr -l {key} is not scored here: {_NOT_SCORED[key]}")
    if key not in LANGUAGES:
        raise ValueError(f"hubscr -l {name!r}: not one of {', '.join([*LANGUAGES, *_NOT_SCORED])}")
    return LANGUAGES[key]
