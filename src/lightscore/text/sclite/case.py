"""Case folding exactly as NIST sclite does it: A-Z only, plus the ``-e utf-8`` localizations it knows.

sclite (SCTK 2.10) lower-cases with C's ``tolower`` one byte at a time, so
without ``-e`` (8-bit ASCII) and with ``-e utf-8`` or ``-e utf-8 generic`` only
``A``-``Z`` fold: ``Я`` and ``я`` stay different words. A localization
(``-e utf-8 babel_turkish``...) adds a fixed table of upper -> lower code
points, tried before ``tolower``; in Turkish ``I`` becomes dotless ``ı`` and
``İ`` becomes ``i``. Python's ``str.lower`` (lightscore's ``case="fold"``)
folds every cased letter instead, which is not what sclite scores.

`CASE_PROFILES` names the modes an error rate's ``case`` option takes:
``"sclite"`` (sclite's default) and ``"sclite_<localization>"``.
"""

from __future__ import annotations

__all__ = ["CASE_PROFILES", "LOCALIZATIONS", "sclite_fold", "sclite_folder"]

_ASCII = {code: code + 32 for code in range(ord("A"), ord("Z") + 1)}

# The upper -> lower tables of SCTK's text.c (sclite 2.10), as code points.
_CYRILLIC_BASE = {0x0401: 0x0451, **{upper: upper + 32 for upper in range(0x0410, 0x0430)}}
# SCTK's Vietnamese upper-case letters, in its table's order (precomposed code points, as text.c lists them).
_VIETNAMESE_UPPER = "ĐÁÀẢÃẠĂẮẰẲẴẶÂẤẦẨẪẬÉÈẺẼẸÊẾỀỂỄỆÍÌỈĨỊÓÒỎÕỌƠỚỜỞỠỢÔỐỒỔỖỘÚÙỦŨỤƯỨỪỬỮỰÝỲỶỸỴ"


def _lower_of(upper: int) -> int:
    """The lower-case partner SCTK's Vietnamese table gives ``upper`` (Latin-1 +32, the others +1)."""
    return upper + 32 if upper < 0x100 else upper + 1


LOCALIZATIONS: dict[str, dict[int, int]] = {
    "generic": {},
    "babel_turkish": {0xC7: 0xE7, 0xD6: 0xF6, 0xDC: 0xFC, 0x130: 0x69, 0x49: 0x131, 0x11E: 0x11F, 0x15E: 0x15F},
    "babel_vietnamese": {ord(upper): _lower_of(ord(upper)) for upper in _VIETNAMESE_UPPER},
    "babel_lithuanian": {u: u + 1 for u in (0x104, 0x10C, 0x118, 0x116, 0x12E, 0x160, 0x172, 0x16A, 0x17D)},
    "babel_kurmanji": {0xC7: 0xE7, 0xCA: 0xEA, 0xCE: 0xEE, 0xDB: 0xFB, 0x15E: 0x15F},
    "babel_cebuano": {0xD1: 0xF1},
    "babel_kazakh": {
        **_CYRILLIC_BASE,
        0x04D8: 0x04D9,
        0x0492: 0x0493,
        0x049A: 0x049B,
        0x04A2: 0x04A3,
        0x04E8: 0x04E9,
        0x04B0: 0x04B1,
        0x04AE: 0x04AF,
        0x04BA: 0x04BB,
        0x0406: 0x0456,
    },
    "babel_mongolian": {**_CYRILLIC_BASE, 0x04AE: 0x04AF, 0x04E8: 0x04E9},
    "babel_guarani": {
        0xC3: 0xE3,
        0xC1: 0xE1,
        0x1EBC: 0x1EBD,
        0xC9: 0xE9,
        0x128: 0x129,
        0xCD: 0xED,
        0xD5: 0xF5,
        0xD3: 0xF3,
        0x168: 0x169,
        0xDA: 0xFA,
        0x1EF8: 0x1EF9,
        0xDD: 0xFD,
        0xD1: 0xF1,
    },
}
"""sclite's ``-e utf-8 <localization>`` tables, upper -> lower code point (``generic`` adds nothing)."""

CASE_PROFILES: dict[str, str] = {
    "sclite": "generic",
    **{f"sclite_{name}": name for name in LOCALIZATIONS if name != "generic"},
}
"""An error rate's ``case`` value -> sclite localization: ``"sclite"`` is sclite's default (A-Z only)."""

# str.translate tables, built once: the localization's entries win over A-Z (Turkish I -> ı).
_TABLES = {name: {**_ASCII, **table} for name, table in LOCALIZATIONS.items()}


def sclite_folder(case: str) -> dict[int, int]:
    """The ``str.translate`` table of an error rate's ``case`` value from `CASE_PROFILES`.

    Args:
        case: ``"sclite"`` or ``"sclite_<localization>"`` (e.g. ``"sclite_babel_turkish"``).

    Returns:
        Code point -> lower-case code point, for ``text.translate``.

    Raises:
        ValueError: ``case`` is not in `CASE_PROFILES`.

    >>> "İSTANBUL Irmak".translate(sclite_folder("sclite_babel_turkish"))
    'istanbul ırmak'
    >>> sclite_folder("sclite_klingon")
    Traceback (most recent call last):
    ...
    ValueError: case 'sclite_klingon' is not one of sclite, sclite_babel_turkish, sclite_babel_vietnamese, \
sclite_babel_lithuanian, sclite_babel_kurmanji, sclite_babel_cebuano, sclite_babel_kazakh, sclite_babel_mongolian, \
sclite_babel_guarani
    """
    if case not in CASE_PROFILES:
        raise ValueError(f"case {case!r} is not one of {', '.join(CASE_PROFILES)}")
    return _TABLES[CASE_PROFILES[case]]


def sclite_fold(text: str, localization: str = "generic") -> str:
    """``text`` lower-cased as sclite compares it: A-Z, plus the table of ``localization``.

    Args:
        text: Any text.
        localization: ``"generic"`` (sclite without ``-e`` or with ``-e utf-8``) or a key of
            `LOCALIZATIONS` (``-e utf-8 babel_turkish``...).

    Returns:
        The folded text; every other character is unchanged.

    Raises:
        ValueError: an unknown localization.

    >>> sclite_fold("Я Відповідаю ÀB")
    'Я Відповідаю Àb'
    >>> sclite_fold("Ạ Đi", "babel_vietnamese")
    'ạ đi'
    """
    if localization not in _TABLES:
        raise ValueError(f"sclite localization {localization!r} is not one of {', '.join(LOCALIZATIONS)}")
    return text.translate(_TABLES[localization])
