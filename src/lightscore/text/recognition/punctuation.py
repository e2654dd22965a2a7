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
from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from lightscore.text.recognition.edit_path import edit_path, edit_paths

__all__ = [
    "NEMO_MARKS",
    "PunctuationCounts",
    "mark_name",
    "mark_tokens",
    "punctuation_counts",
    "punctuation_counts_batch",
]

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


def _keys(tokens: list[str], is_mark: set[str], fold: bool) -> list[str]:
    # One mask for every mark, so marks align with marks whichever they are; a word cannot equal it.
    return ["\0" if t in is_mark else (t.casefold() if fold else t) for t in tokens]


def _counted(
    ref: list[str], hyp: list[str], ref_keys: list[str], hyp_keys: list[str], path: list[tuple[int, int]]
) -> PunctuationCounts:
    """The marks paired along ``path``; every other mark deleted (reference) or inserted (hypothesis)."""
    pairs: Counter[tuple[str, str]] = Counter()
    deleted: Counter[str] = Counter(t for t, k in zip(ref, ref_keys) if k == "\0")
    inserted: Counter[str] = Counter(t for t, k in zip(hyp, hyp_keys) if k == "\0")
    for i, j in path:
        if i >= 0 and j >= 0 and ref_keys[i] == hyp_keys[j] == "\0":
            pairs[ref[i], hyp[j]] += 1
            deleted[ref[i]] -= 1
            inserted[hyp[j]] -= 1
    return PunctuationCounts(dict(pairs), dict(+deleted), dict(+inserted))


def punctuation_counts(ref: str, hyp: str, marks: str = NEMO_MARKS, fold: bool = False) -> PunctuationCounts:
    """The marks of one utterance, paired along the alignment of the words and masked marks.

    The plain twin of `punctuation_counts_batch`.

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
    is_mark = set(marks)
    ref_tokens, hyp_tokens = mark_tokens(ref, marks), mark_tokens(hyp, marks)
    ref_keys, hyp_keys = _keys(ref_tokens, is_mark, fold), _keys(hyp_tokens, is_mark, fold)
    path = []
    if "\0" in ref_keys or "\0" in hyp_keys:
        path = edit_path([[0 if r == h else 1 for h in hyp_keys] for r in ref_keys], len(hyp_keys))
    return _counted(ref_tokens, hyp_tokens, ref_keys, hyp_keys, path)


def punctuation_counts_batch(
    refs: Sequence[str], hyps: Sequence[str], marks: str = NEMO_MARKS, fold: bool = False
) -> list[PunctuationCounts]:
    """`punctuation_counts` of a batch, the alignments filled together (`edit_paths`).

    Fast path; plain twin: `punctuation_counts` (tests/test_punctuation_case.py holds them equal).

    >>> punctuation_counts_batch(["a, b.", "a b"], ["a b?", "a b"])[0].deleted
    {',': 1}
    """
    is_mark = set(marks)
    tokens = [(mark_tokens(r, marks), mark_tokens(h, marks)) for r, h in zip(refs, hyps)]
    keys = [(_keys(r, is_mark, fold), _keys(h, is_mark, fold)) for r, h in tokens]
    ids: dict[str, int] = {}
    scored = [k for k, (rk, hk) in enumerate(keys) if "\0" in rk or "\0" in hk]
    pairs = []
    for k in scored:
        ref_ids = np.array([ids.setdefault(t, len(ids)) for t in keys[k][0]], dtype=np.int64)
        hyp_ids = np.array([ids.setdefault(t, len(ids)) for t in keys[k][1]], dtype=np.int64)
        pairs.append((ref_ids[:, None] != hyp_ids[None, :]).astype(np.int64))
    paths: list[list[tuple[int, int]]] = [[] for _ in keys]
    for k, path in zip(scored, edit_paths(pairs)):
        paths[k] = path
    return [_counted(*tokens[k], *keys[k], paths[k]) for k in range(len(keys))]
