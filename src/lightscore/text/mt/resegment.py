"""Re-segmentation of a talk's unsegmented output to its reference segments, as mweralign (mwerSegmenter) does it.

A long-form speech translation system writes a whole talk without the reference's segment breaks.
IWSLT re-segments it before scoring: the hypothesis's tokens are cut into as many segments as the
reference has, where the cuts give the fewest word errors over the whole talk (AS-WER, Matusov et
al. 2005). The search is one Levenshtein alignment of the hypothesis against the reference segments
laid end to end, each segment closed by a boundary row:

- a word row: the cell is the cheapest of a deletion (from the cell above), an insertion (from the
  cell to the left) and a substitution or match (diagonal); every edit costs 1. On a tie the
  deletion wins, then the insertion, then the diagonal (mweralign's order: it "does not appreciate
  substitutions"). Each cell carries where the path last crossed a boundary row (its back pointer).
- a boundary row: costs nothing and cannot take an insertion; crossing it in column ``j`` ends the
  segment at hypothesis token ``j`` and records, for that segment and ``j``, where the previous
  segment ended.
- the column before the first token counts a boundary row as a deletion (cost ``i`` at row ``i``),
  as mweralign initialises it; the other columns do not.
- with ``forbid`` (a SentencePiece model on a language written with spaces), ending a segment before
  the last one just before a word-internal piece costs 100,000.

Walking the recorded back pointers from the last token and the last segment gives each segment's end.
`segment_ends` is that loop compiled by numba (``@njit(cache=True)``, in the ``mt`` extra);
``segment_ends.py_func`` is the same code run by Python, its plain twin (tests/test_resegment.py).
mweralign is the oracle of the whole road (`resegment`) in the tests.

>>> resegment(["the cat sat", "on the mat"], "the cat sat on the mat")
['the cat sat', 'on the mat']
>>> resegment(["Hello there.", "How are you?"], "hello there how are you doing")
['hello there', 'how are you doing']
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from lightscore.text.mt.resegment_tokens import ResegTokenizer, match_key, starts_inside_word, tokenizer

__all__ = ["FORBID_COST", "encode_talk", "resegment", "resegment_tokens", "segment_ends"]

FORBID_COST = 100_000
"""The cost of ending a segment just before a word-internal piece (mweralign's MIDWORD_FORBID)."""

_BOUNDARY = 0  # the id of a boundary row; words get ids from 1


@njit(cache=True)
def segment_ends(ref: np.ndarray, hyp: np.ndarray, inside_word: np.ndarray, forbid: bool) -> np.ndarray:
    """Where each reference segment ends in the hypothesis: the minimum-error cut (the module's search).

    Plain twin: ``segment_ends.py_func``.

    Args:
        ref: int64 ids of the reference tokens, each segment followed by a boundary (0); ends with one.
        hyp: int64 ids of the hypothesis tokens (ids equal where the tokens match).
        inside_word: bool per hypothesis token: a segment may not start on it (read with ``forbid``).
        forbid: Make a cut before an ``inside_word`` token (but after the last segment) cost `FORBID_COST`.

    Returns:
        int64 ``ends`` with one entry per segment plus a leading 0: segment ``s`` (from 1) holds the
        hypothesis tokens ``ends[s - 1]`` to ``ends[s]`` (exclusive start, inclusive end, from 1).

    >>> segment_ends(np.array([1, 2, 0, 3, 0]), np.array([1, 2, 3]), np.zeros(3, np.bool_), False).tolist()
    [0, 2, 3]
    """
    rows = len(ref)
    tokens = len(hyp)
    segments = 0
    for i in range(rows):
        if ref[i] == 0:
            segments += 1
    ends = np.zeros(segments + 1, dtype=np.int64)
    ends[segments] = tokens
    if tokens == 0:
        return ends
    # back[j, s]: where segment s-1 ends on the best path that ends segment s at token j (row 0 stays 0)
    back = np.zeros((tokens + 1, segments + 1), dtype=np.int32)  # the one table of size tokens x segments
    prev_cost = np.arange(rows + 1, dtype=np.int64)  # the column before the first token
    prev_back = np.zeros(rows + 1, dtype=np.int64)
    cost = np.zeros(rows + 1, dtype=np.int64)
    came = np.zeros(rows + 1, dtype=np.int64)
    for j in range(1, tokens + 1):
        word = hyp[j - 1]
        cost[0] = j
        came[0] = 0
        s = 0
        for i in range(1, rows + 1):
            if ref[i - 1] == 0:
                s += 1
                back[j, s] = came[i - 1]
                penalty = 0
                if forbid and s < segments and j < tokens and inside_word[j]:
                    penalty = FORBID_COST
                cost[i] = cost[i - 1] + penalty
                came[i] = j
                continue
            deletion = cost[i - 1] + 1
            insertion = prev_cost[i] + 1
            diagonal = prev_cost[i - 1] + (0 if ref[i - 1] == word else 1)
            if deletion <= insertion and deletion <= diagonal:
                cost[i] = deletion
                came[i] = came[i - 1]
            elif insertion <= diagonal:
                cost[i] = insertion
                came[i] = prev_back[i]
            else:
                cost[i] = diagonal
                came[i] = prev_back[i - 1]
        prev_cost, cost = cost, prev_cost
        prev_back, came = came, prev_back
    end = tokens
    for s in range(segments, 0, -1):
        ends[s] = end
        end = np.int64(back[end, s])
    return ends


def encode_talk(
    ref_tokens: Sequence[Sequence[str]], hyp_tokens: Sequence[str], tok: ResegTokenizer
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The arrays `segment_ends` reads: reference ids with boundaries, hypothesis ids, inside-word flags.

    >>> ref, hyp, inside = encode_talk([["A", "b"], []], ["a", "c"], tokenizer("none"))
    >>> ref.tolist(), hyp.tolist(), inside.tolist()
    ([1, 2, 0, 0], [1, 3], [False, False])
    """
    ids: dict[str, int] = {}
    ref = []
    for segment in ref_tokens:
        ref.extend(ids.setdefault(match_key(t), len(ids) + 1) for t in segment)
        ref.append(_BOUNDARY)
    hyp = [ids.setdefault(match_key(t), len(ids) + 1) for t in hyp_tokens]
    inside = [tok.forbid_inside_word and starts_inside_word(match_key(t)) for t in hyp_tokens]
    return np.array(ref, dtype=np.int64), np.array(hyp, dtype=np.int64), np.array(inside, dtype=np.bool_)


def resegment_tokens(
    ref_tokens: Sequence[Sequence[str]], hyp_tokens: Sequence[str], tok: ResegTokenizer, plain: bool = False
) -> list[list[str]]:
    """The hypothesis tokens cut into one list per reference segment.

    Args:
        ref_tokens: Each reference segment's tokens (at least one segment).
        hyp_tokens: The talk's hypothesis tokens.
        tok: The tokenization (its ``forbid_inside_word``).
        plain: Run the plain twin (``segment_ends.py_func``) instead of the compiled search.

    Returns:
        As many token lists as reference segments, in order; together the hypothesis tokens.

    >>> resegment_tokens([["a"], ["b"]], ["a", "x", "b"], tokenizer("none"))
    [['a', 'x'], ['b']]
    """
    ref, hyp, inside = encode_talk(ref_tokens, hyp_tokens, tok)
    search = segment_ends.py_func if plain else segment_ends
    ends = search(ref, hyp, inside, tok.forbid_inside_word).tolist()
    return [list(hyp_tokens[ends[s] : ends[s + 1]]) for s in range(len(ref_tokens))]


def resegment(
    ref_segments: Sequence[str],
    hyp: str,
    tokenize: str | ResegTokenizer = "none",
    no_whitespace: bool = False,
    plain: bool = False,
) -> list[str]:
    """One talk's hypothesis re-segmented to its reference segments, as mweralign's output lines.

    Args:
        ref_segments: The talk's reference segments, in order (at least one; an empty one is a segment).
        hyp: The talk's whole hypothesis.
        tokenize: ``none``, ``cj``, a SentencePiece model file, or a `ResegTokenizer`.
        no_whitespace: With a model: the language is written without spaces (mweralign's ``-w``).
        plain: Run the plain twin of the search.

    Returns:
        One hypothesis segment per reference segment (``""`` where none of the hypothesis fell).

    Raises:
        ValueError: no reference segment.

    >>> resegment(["你好", "世界"], "你好世界和平", tokenize="cj")
    ['你好', '世界和平']
    >>> resegment(["a b", "c"], "")
    ['', '']
    """
    if not ref_segments:
        raise ValueError("re-segmentation needs at least one reference segment")
    tok = tokenize if isinstance(tokenize, ResegTokenizer) else tokenizer(tokenize, no_whitespace)
    pieces = resegment_tokens([tok.encode(r) for r in ref_segments], tok.encode(hyp), tok, plain)
    return [tok.decode(p) for p in pieces]
