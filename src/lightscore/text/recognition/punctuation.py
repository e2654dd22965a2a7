"""The punctuation error rate (PER) of LibriSpeech-PC (arXiv 2310.02943), as NeMo's ``speech_to_text_eval`` counts it.

Each text is split into tokens: a word is a run of letters, digits, ``_`` and ``'`` (the regex ``[\\w']+``),
each mark of ``marks`` is a token of its own, and every other character only separates tokens (so with the
default marks ``.,?`` an ``!`` or a ``-`` is dropped). Every mark token is then replaced by one mask token,
and the masked lists are aligned by unit-cost Levenshtein (`edit_path`, NeMo's tie order). On the path:

- a reference mark paired with a hypothesis mark is **correct** when they are the same mark, else a
  **substitution** (counted for the reference mark, and in the ``(ref mark, hyp mark)`` cell);
- every other reference mark is a **deletion** and every other hypothesis mark an **insertion** (counted
  for the hypothesis mark).

Over a corpus the counts are summed, and ``PER = (S + D + I) / (C + S + D + I)``: NeMo's definition, whose
denominator is every operation on a mark (the reference marks plus the insertions), so it stays within
0..1. Per mark, the same ratio over that mark's own operations. A word may align with a mark (a
substitution of the masked lists) and then neither counts as a correct mark.

>>> counts = punctuation_counts("Hi, dear! Nice to see you. What's", "Hi dear! Nice to see you! What's?", ".,!?")
>>> counts.pairs, counts.deleted, counts.inserted
({('!', '!'): 1, ('.', '!'): 1}, {',': 1}, {'?': 1})
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache
from typing import NamedTuple

from lightscore.text.recognition.edit_path import edit_path

__all__ = ["NEMO_MARKS", "PunctuationCounts", "mark_name", "mark_tokens", "punctuation_counts"]

NEMO_MARKS = ".,?"
"""The marks NeMo's ``speech_to_text_eval`` scores by default."""

_NAMES = {
    ".": "period",
    ",": "comma",
    "?": "question",
    "!": "exclamation",
    ";": "semicolon",
    ":": "colon",
    "'": "apostrophe",
    '"': "quote",
    "-": "hyphen",
}


def mark_name(mark: str) -> str:
    """The name a mark's outputs carry (``PER_comma``): a word for the common marks, else its code point.

    >>> mark_name(","), mark_name("¿")
    ('comma', 'u00bf')
    """
    return _NAMES.get(mark, f"u{ord(mark):04x}")


@lru_cache(maxsize=16)
def _token_pattern(marks: str) -> re.Pattern[str]:
    return re.compile(rf"[\w']+|[{re.escape(marks)}]")


def mark_tokens(text: str, marks: str = NEMO_MARKS) -> list[str]:
    """The words and marks of ``text`` in order; any other character only separates tokens.

    >>> mark_tokens("Well, it's 3.5 - isn't it?")
    ['Well', ',', "it's", '3', '.', '5', "isn't", 'it', '?']
    """
    return _token_pattern(marks).findall(text)


class PunctuationCounts(NamedTuple):
    """One utterance's marks: ``pairs`` (ref mark, hyp mark) -> count (equal marks: correct), and the rest."""

    pairs: dict[tuple[str, str], int]
    deleted: dict[str, int]
    inserted: dict[str, int]


def punctuation_counts(ref: str, hyp: str, marks: str = NEMO_MARKS, fold: bool = False) -> PunctuationCounts:
    """The marks of one utterance, paired along the alignment of the words and masked marks.

    Args:
        ref: The reference text, as written.
        hyp: The hypothesis text, as written.
        marks: The marks scored, one character each.
        fold: Compare words case-insensitively (``str.casefold``) in the alignment; NeMo compares them as written.

    Returns:
        The paired, deleted and inserted marks.

    >>> punctuation_counts("a, b.", "a b?")
    PunctuationCounts(pairs={('.', '?'): 1}, deleted={',': 1}, inserted={})
    """
    ref_tokens, hyp_tokens = mark_tokens(ref, marks), mark_tokens(hyp, marks)
    is_mark = set(marks)

    def key(token: str) -> str:
        # One mask for every mark, so marks align with marks whichever they are; a word cannot equal it.
        return "\0" if token in is_mark else (token.casefold() if fold else token)

    ref_keys, hyp_keys = [key(t) for t in ref_tokens], [key(t) for t in hyp_tokens]
    pairs: Counter[tuple[str, str]] = Counter()
    deleted: Counter[str] = Counter(t for t in ref_tokens if t in is_mark)
    inserted: Counter[str] = Counter(t for t in hyp_tokens if t in is_mark)
    if deleted or inserted:
        for i, j in edit_path(len(ref_keys), len(hyp_keys), lambda i, j: int(ref_keys[i] != hyp_keys[j])):
            if i >= 0 and j >= 0 and ref_keys[i] == hyp_keys[j] == "\0":
                r, h = ref_tokens[i], hyp_tokens[j]
                pairs[r, h] += 1
                deleted[r] -= 1
                inserted[h] -= 1
    return PunctuationCounts(dict(pairs), dict(+deleted), dict(+inserted))
