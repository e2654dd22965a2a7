"""The counting core of every error rate: edit counts of one pair, their sum over many, per-utterance records.

`sum_edits` is the hot loop of `lightscore.metrics.error_rate`: per pair one
tokenize and one count in C (rapidfuzz's unit-cost edit distance, the one
jiwer 4 reports). The same loop serves sclite's weighted alignment
(`lightscore.text.sclite.align.sum_sclite_edits`), whose count may put a
pair aside for one exact pass at the end. `count_utterances` keeps each pair's
counts too, for the per-utterance state; `aligner_functions` gives each aligner's
functions. Nothing here imports numpy.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from operator import attrgetter

from rapidfuzz.distance import Editops, Levenshtein

__all__ = [
    "COUNTS",
    "Counts",
    "UttRecord",
    "count_edits",
    "count_utterances",
    "information_measures",
    "is_normalized",
    "same_text",
    "sum_edits",
]

COUNTS = ("sub", "del", "ins", "hit", "ref_len")
"""The counts an error rate reports beside its rate (``WER_sub``...), in this order."""

Counts = tuple[int, int, int]  # (substitutions, deletions, insertions)
UttRecord = tuple[str, int, int, int, int]  # (utt_id, substitutions, deletions, insertions, reference tokens)


def count_edits(ref: Sequence, hyp: Sequence) -> Counts:
    """Return ``(substitutions, deletions, insertions)`` of a unit-cost alignment of ``ref`` to ``hyp``.

    Strings compare characters, lists of strings compare tokens; the alignment
    is rapidfuzz's, the one jiwer 4 reports.

    Args:
        ref: Reference tokens (a list of words, or a string of characters).
        hyp: Hypothesis tokens.

    Returns:
        ``(S, D, I)``.

    >>> count_edits("the cat".split(), "the bat sat".split())
    (1, 0, 1)
    >>> count_edits("abc", "")
    (0, 3, 0)
    """
    return _edit_counts(Levenshtein.editops(ref, hyp))  # no edit gives (0, 0, 0)


_block_size = attrgetter("size")


def _edit_counts(editops: Editops) -> Counts:
    """``(substitutions, deletions, insertions)`` in rapidfuzz ``editops``, read without a Python loop over them.

    With n reference and m hypothesis tokens, H hits and d edits: S + D = n - H,
    D - I = n - m and S + D + I = d. When d is the length difference alone
    there are no substitutions; otherwise H is summed from the matching blocks,
    a handful of C objects instead of one per edit.

    >>> from rapidfuzz.distance import Editops, Levenshtein
    >>> _edit_counts(Levenshtein.editops("kitten", "sitting"))
    (2, 0, 1)
    """
    distance = len(editops)
    length_difference = editops.src_len - editops.dest_len
    if distance == abs(length_difference):
        non_hits = distance if length_difference > 0 else 0
    else:
        non_hits = editops.src_len - sum(map(_block_size, editops.as_matching_blocks()))
    insertions = distance - non_hits
    deletions = length_difference + insertions
    return non_hits - deletions, deletions, insertions


def sum_edits(
    refs: Iterable[str],
    hyps: Iterable[str],
    tokenize: Callable[[str], Sequence],
    count: Callable[[Sequence, Sequence], Counts | None] = count_edits,
    settle: Callable[[list[Sequence], list[Sequence]], Iterable[Counts]] | None = None,
) -> tuple[int, int, int, int, int]:
    """Sum ``(substitutions, deletions, insertions, reference tokens, pairs with an error)`` over text pairs.

    Per pair: ``tokenize`` the reference, and unless the texts are identical,
    the hypothesis, then ``count`` the two token sequences. A ``count`` that
    returns None puts the pair aside; ``settle`` then counts all of those at
    once, at the end (sclite's ties, aligned exactly in numpy batches).

    Args:
        refs: Reference texts.
        hyps: Hypothesis texts, one per reference.
        tokenize: Turns a text into its tokens (a list of words, or a string of characters).
        count: ``(S, D, I)`` of one pair of token sequences, or None to leave it to ``settle``
            (default: `count_edits`, unit costs).
        settle: Counts the pairs ``count`` left, given their reference and hypothesis tokens
            (needed only by a ``count`` that can return None).

    Returns:
        ``(S, D, I, reference tokens, pairs with at least one error)``.

    Raises:
        ValueError: ``count`` left pairs and no ``settle`` was given.

    >>> sum_edits(["the cat sat", "a dog"], ["the bat sat down", "a dog"], str.split)
    (1, 0, 1, 5, 1)
    """
    substitutions = deletions = insertions = ref_len = errors = 0
    left_refs: list[Sequence] = []
    left_hyps: list[Sequence] = []
    for ref, hyp in zip(refs, hyps):
        ref_tokens = tokenize(ref)
        ref_len += len(ref_tokens)
        if ref == hyp:
            continue
        hyp_tokens = tokenize(hyp)
        counts = count(ref_tokens, hyp_tokens)
        if counts is None:
            left_refs.append(ref_tokens)
            left_hyps.append(hyp_tokens)
            continue
        s, d, i = counts
        if s or d or i:
            substitutions += s
            deletions += d
            insertions += i
            errors += 1
    if left_refs:
        if settle is None:
            raise ValueError(f"sum_edits: count left {len(left_refs)} pairs uncounted and no settle was given")
        for s, d, i in settle(left_refs, left_hyps):
            substitutions += s
            deletions += d
            insertions += i
            errors += s + d + i > 0
    return substitutions, deletions, insertions, ref_len, errors


def count_utterances(
    utt_ids: Iterable[str],
    refs: Iterable[str],
    hyps: Iterable[str],
    tokenize: Callable[[str], Sequence],
    count: Callable[[Sequence, Sequence], Counts] = count_edits,
) -> tuple[list[UttRecord], tuple[int, int, int, int, int]]:
    """Each pair's `UttRecord`, and their totals as `sum_edits` returns them.

    Args:
        utt_ids: Utterance ids, one per reference.
        refs: Reference texts.
        hyps: Hypothesis texts, one per reference.
        tokenize: Turns a text into its tokens.
        count: ``(S, D, I)`` of one pair of token sequences (default: `count_edits`, unit costs).

    Returns:
        ``(records, totals)``: ``(utt_id, S, D, I, reference tokens)`` per pair, and
        ``(S, D, I, reference tokens, pairs with at least one error)``.

    >>> count_utterances(["u1", "u2"], ["the cat sat", "a dog"], ["the bat sat down", "a dog"], str.split)
    ([('u1', 1, 0, 1, 3), ('u2', 0, 0, 0, 2)], (1, 0, 1, 5, 1))
    """
    records = []
    for utt_id, ref, hyp in zip(utt_ids, refs, hyps):
        ref_tokens = tokenize(ref)
        s, d, i = (0, 0, 0) if ref == hyp else count(ref_tokens, tokenize(hyp))
        records.append((utt_id, s, d, i, len(ref_tokens)))
    totals = [sum(column) for column in zip(*[record[1:] for record in records])] or [0, 0, 0, 0]
    errors = sum(1 for record in records if record[1] or record[2] or record[3])
    return records, (totals[0], totals[1], totals[2], totals[3], errors)


# Every character str.split() splits on except the space itself (none lies above U+3000).
_OTHER_WHITESPACE = tuple(c for c in map(chr, range(0x3001)) if c.isspace() and c != " ")


def is_normalized(texts: Iterable[str]) -> bool:
    """True when every text equals ``" ".join(text.split())``: words separated by single spaces.

    One scan of the joined batch per pattern, cheaper than re-joining every
    text: joined by a space, a text's leading or trailing space shows as a
    double space (empty texts are left out, they are normalized already).

    Args:
        texts: The texts to check.

    Returns:
        Whether every text is already its own CER tokens.

    >>> is_normalized(["the cat", "", "a"]), is_normalized(["the  cat"]), is_normalized(["a\\tb", "c"])
    (True, False, False)
    >>> is_normalized(["a ", "b"]), is_normalized(["a", " b"]), is_normalized([" "])
    (False, False, False)
    """
    joined = " ".join(filter(None, texts))
    if joined.startswith(" ") or joined.endswith(" ") or "  " in joined:
        return False
    return not any(space in joined for space in _OTHER_WHITESPACE)


def same_text(text: str) -> str:
    """The text itself: the tokenizer of texts `is_normalized` has passed (CER's fast path).

    Args:
        text: A text.

    Returns:
        ``text``.

    >>> same_text("a b")
    'a b'
    """
    return text


def information_measures(sub: int, dele: int, ins: int, hits: int) -> dict[str, float]:
    """jiwer 4's match error rate, word information preserved and lost (fractions) from pooled counts.

    Args:
        sub, dele, ins, hits: The corpus counts (some reference token assumed).

    Returns:
        ``{"mer": ..., "wip": ..., "wil": ...}``; WIP is 0 for an empty hypothesis, as jiwer's.

    >>> information_measures(1, 0, 1, 2)
    {'mer': 0.5, 'wip': 0.3333333333333333, 'wil': 0.6666666666666667}
    """
    ref_len, hyp_len = hits + sub + dele, hits + sub + ins
    wip = (hits / ref_len) * (hits / hyp_len) if hyp_len and ref_len else 0.0
    return {"mer": (sub + dele + ins) / (hits + sub + dele + ins), "wip": wip, "wil": 1 - wip}
