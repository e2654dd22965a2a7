"""Words with their case and punctuation kept, aligned once, each error put in one class: word, case or punctuation.

After "Beyond Levenshtein" (Kuhn et al., arXiv 2408.15616): the text is never normalized destructively;
the alignment is on normalized words, and each aligned pair whose written forms differ is then classed.
The exact counting here:

1. **Words.** A text is split at whitespace. From each word its leading and trailing marks are peeled off
   (the characters of ``marks``; by default every Unicode punctuation character, category ``P*``); what is
   left is the word's *core*, case kept (``"Hello,"`` -> core ``Hello``, trailing ``,``). Marks inside a
   core stay (``don't``, ``3.5``). A word that is all marks (a lone ``-``) joins the trailing marks of the
   word before it (or the leading marks of the next word, at the start of a text).
2. **Alignment.** Reference and hypothesis words are aligned on their cores folded (``str.casefold``): the
   fewest word errors first; among those paths, the fewest *matched pairs* whose written forms differ. A
   matched pair has equal folded cores.
3. **Classes.** Every substitution, deletion and insertion of that path is a **word** error. A matched pair
   is a **case** error when its cores differ (they differ only in case), a **punctuation** error when its
   leading or trailing marks differ, and a **case and punctuation** error when both. Each pair is in one
   class at most, so the classes add up to the PnC errors.
4. **Rates** (over reference words N): normalized WER = word errors / N; PnC-WER = (word errors + case +
   punctuation + case-and-punctuation errors) / N; case error rate = (case + case-and-punctuation errors) /
   matched pairs.

>>> c = pnc_counts("Hello, world.", "hello world. Bye")
>>> c.ref_words, c.substitutions, c.deletions, c.insertions, c.matched, c.case, c.punct, c.case_punct
(2, 0, 0, 1, 2, 0, 0, 1)
"""

from __future__ import annotations

import sys
import unicodedata
from collections.abc import Iterable
from functools import lru_cache
from typing import NamedTuple

from lightscore.text.recognition.edit_path import edit_path

__all__ = ["ALL_PUNCTUATION", "PnCCounts", "PnCWord", "pnc_alignment", "pnc_counts", "pnc_words"]

ALL_PUNCTUATION = None
"""``marks=None``: every Unicode punctuation character (category ``P*``) is a mark."""

WORD, CASE, PUNCT, CASE_PUNCT = "word", "case", "punct", "case_punct"


class PnCWord(NamedTuple):
    """A word as written: its leading marks, its core (case kept) and its trailing marks."""

    lead: str
    core: str
    trail: str

    def __str__(self) -> str:
        return f"{self.lead}{self.core}{self.trail}"


@lru_cache(maxsize=1)
def _unicode_punctuation() -> str:
    """Every Unicode punctuation character (category ``P*``), found once (a fraction of a second)."""
    return "".join(chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c))[0] == "P")


def pnc_words(text: str, marks: str | None = ALL_PUNCTUATION) -> list[PnCWord]:
    """The words of ``text``, marks peeled off each end.

    Args:
        text: The text as written.
        marks: The mark characters, or None for every Unicode punctuation character.

    >>> pnc_words('"Yes," she said - twice.')
    [PnCWord(lead='"', core='Yes', trail=',"'), PnCWord(lead='', core='she', trail=''), \
PnCWord(lead='', core='said', trail='-'), PnCWord(lead='', core='twice', trail='.')]
    """
    chars = _unicode_punctuation() if marks is None else marks
    # Most words start and end with a letter or digit, which no punctuation mark is: nothing to peel.
    plain_ends = marks is None or not any(c.isalnum() for c in marks)
    words: list[PnCWord] = []
    pending = ""  # marks-only words before the first word: they lead it
    for raw in text.split():
        if plain_ends and raw[0].isalnum() and raw[-1].isalnum():
            words.append(PnCWord(pending, raw, ""))
            pending = ""
            continue
        core = raw.strip(chars)
        if not core:
            if words:
                last = words[-1]
                words[-1] = last._replace(trail=last.trail + raw)
            else:
                pending += raw
            continue
        start = len(raw) - len(raw.lstrip(chars))
        words.append(PnCWord(pending + raw[:start], core, raw[start + len(core) :]))
        pending = ""
    return words


def _pair_class(ref: PnCWord, hyp: PnCWord) -> str | None:
    """The class of a matched pair (equal folded cores): None when written alike."""
    case = ref.core != hyp.core
    punct = (ref.lead, ref.trail) != (hyp.lead, hyp.trail)
    if case and punct:
        return CASE_PUNCT
    return CASE if case else PUNCT if punct else None


def _pair_costs(ref: list[PnCWord], hyp: list[PnCWord], big: int) -> list[list[int]]:
    """Pair costs: ``big`` for a word error, else 1 when written differently, 0 when alike."""
    ref_keys = [w.core.casefold() for w in ref]
    hyp_keys = [w.core.casefold() for w in hyp]
    return [[big if rk != hk else int(r != h) for h, hk in zip(hyp, hyp_keys)] for r, rk in zip(ref, ref_keys)]


def _triples(
    ref: list[PnCWord], hyp: list[PnCWord], pair: list[list[int]], big: int, path: list[tuple[int, int]]
) -> list[tuple[PnCWord | None, PnCWord | None, str | None]]:
    triples: list[tuple[PnCWord | None, PnCWord | None, str | None]] = []
    for i, j in path:
        r = ref[i] if i >= 0 else None
        h = hyp[j] if j >= 0 else None
        if r is None or h is None or pair[i][j] >= big:
            triples.append((r, h, WORD))
        else:
            triples.append((r, h, _pair_class(r, h)))
    return triples


def pnc_alignment(ref: list[PnCWord], hyp: list[PnCWord]) -> list[tuple[PnCWord | None, PnCWord | None, str | None]]:
    """The aligned ``(ref word, hyp word, class)`` triples; a gap is None, a correct pair's class None.

    >>> [(str(r), str(h), c) for r, h, c in pnc_alignment(pnc_words("a a."), pnc_words("a."))]
    [('a', 'None', 'word'), ('a.', 'a.', None)]
    """
    # Word errors first, written differences second: one word error outweighs every difference of the text
    # (at most min(n_ref, n_hyp) pairs differ, fewer than big).
    big = len(ref) + len(hyp) + 1
    pair = _pair_costs(ref, hyp, big)
    return _triples(ref, hyp, pair, big, edit_path(pair, len(hyp), gap=big))


class PnCCounts(NamedTuple):
    """One utterance's (or a corpus's) counts; ``case``, ``punct``, ``case_punct`` are matched pairs' classes."""

    ref_words: int
    substitutions: int
    deletions: int
    insertions: int
    matched: int
    case: int
    punct: int
    case_punct: int


def _count(triples: Iterable[tuple[PnCWord | None, PnCWord | None, str | None]]) -> PnCCounts:
    ref_words = sub = dele = ins = matched = case = punct = both = 0
    for r, h, kind in triples:
        ref_words += r is not None
        if kind == WORD:
            if r is None:
                ins += 1
            elif h is None:
                dele += 1
            else:
                sub += 1
            continue
        matched += 1
        case += kind == CASE
        punct += kind == PUNCT
        both += kind == CASE_PUNCT
    return PnCCounts(ref_words, sub, dele, ins, matched, case, punct, both)


def pnc_counts(ref: str, hyp: str, marks: str | None = ALL_PUNCTUATION) -> PnCCounts:
    """The word, case and punctuation counts of one utterance (the module's steps 1-3).

    Args:
        ref: The reference text, as written.
        hyp: The hypothesis text, as written.
        marks: The mark characters, or None for every Unicode punctuation character.

    >>> pnc_counts("The cat sat.", "the bat sat")
    PnCCounts(ref_words=3, substitutions=1, deletions=0, insertions=0, matched=2, case=1, punct=1, case_punct=0)
    """
    return _count(pnc_alignment(pnc_words(ref, marks), pnc_words(hyp, marks)))
