"""Character units for Chinese, Japanese and code-switched text: sclite's ``-c`` and a mixed unit.

`sclite_chars` is sclite's ``-e utf-8 -c`` (SCTK ``TEXT_separate_chars``): every
character of every word is a unit and the spaces between words are not units at
all, so ``ab cd`` and ``abcd`` are the same four units. ``NOASCII`` keeps a run
of ASCII characters inside a word together (``-c NOASCII``), ``DH`` deletes
hyphens first (``-c DH``). `mixed_units` is the unit of code-switched speech:
each CJK character alone, every other run of characters whole, so an English
(or any Latin, Cyrillic...) word inside Mandarin stays one word, ``café``
included, where ``NOASCII`` would split off its ``é``.
"""

from __future__ import annotations

import re

__all__ = ["CJK_RANGES", "is_cjk", "mixed_units", "sclite_chars"]

CJK_RANGES = (
    (0x2E80, 0x2FDF),  # CJK radicals, Kangxi radicals
    (0x3000, 0x303F),  # CJK symbols and punctuation
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x3100, 0x312F),  # Bopomofo
    (0x31F0, 0x31FF),  # Katakana phonetic extensions
    (0x3400, 0x4DBF),  # CJK unified ideographs extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF00, 0xFFEF),  # half- and full-width forms
    (0x20000, 0x3FFFF),  # CJK unified ideographs extensions B onwards
)
"""The code points `mixed_units` splits one by one (Hangul is left whole: Korean is written with spaces)."""

_CJK_CLASS = "".join(f"\\U{low:08x}-\\U{high:08x}" for low, high in CJK_RANGES)
_MIXED = re.compile(f"[{_CJK_CLASS}]|[^{_CJK_CLASS}\\s]+")
_ASCII_RUNS = re.compile(r"[\x00-\x7f]+|[^\x00-\x7f]")


def is_cjk(char: str) -> bool:
    """True for a character of `CJK_RANGES`.

    >>> is_cjk("中"), is_cjk("カ"), is_cjk("a"), is_cjk("한")
    (True, True, False, False)
    """
    code = ord(char)
    return any(low <= code <= high for low, high in CJK_RANGES)


def sclite_chars(text: str, noascii: bool = False, delete_hyphens: bool = False) -> list[str]:
    """The units ``sclite -e utf-8 -c`` aligns: the characters of each word, spaces not counted.

    Args:
        text: A transcript (already case-folded and normalized, as sclite sees it).
        noascii: ``-c NOASCII``: a run of ASCII characters inside a word stays one unit.
        delete_hyphens: ``-c DH``: ``-`` is deleted from every word first (a word that is one ``-``
            stays, as in sclite; one of several hyphens, on which sclite crashes, is left out).

    Returns:
        The units in order.

    >>> sclite_chars("我们 ok-1")
    ['我', '们', 'o', 'k', '-', '1']
    >>> sclite_chars("我们ok-1 好", noascii=True), sclite_chars("ok-1", noascii=True, delete_hyphens=True)
    (['我', '们', 'ok-1', '好'], ['ok1'])
    """
    units: list[str] = []
    for word in text.split():
        if delete_hyphens and word != "-":  # sclite keeps a lone hyphen (and crashes on a word of hyphens)
            word = word.replace("-", "")
        units += _ASCII_RUNS.findall(word) if noascii else list(word)
    return units


def mixed_units(text: str) -> list[str]:
    """Code-switched units: every CJK character alone, every other run of non-space characters whole.

    Args:
        text: A transcript.

    Returns:
        The units in order.

    >>> mixed_units("我喜欢Python编程 café 很好")
    ['我', '喜', '欢', 'Python', '编', '程', 'café', '很', '好']
    """
    return _MIXED.findall(text)
