"""texterrors' word alignment, standard and character-aware (``--use-chardiff``), as a plain loop.

Keyword hits, OOV errors and B-WER depend on *which* words the alignment pairs, not only on how many edits
there are, so the counts equal texterrors' only on its own path. Its dynamic programme:

- a deletion or an insertion costs 1;
- pairing reference word ``a`` with hypothesis word ``b`` costs 0 or 1 (standard), or with ``chardiff``
  ``1.5 * lev(a, b) / max(len(a), len(b))`` where ``lev`` is the unit-cost edit distance of the UTF-8 *bytes*
  (so similar words pair up and an unlike pair is cheaper as a deletion and an insertion);
- walking back from the end, a step is diagonal when that is optimal, else a deletion, else an insertion,
  "optimal" meaning within 0.01 of the cell's least cost: texterrors 1.1.9's one-pass aligner
  (``align_texts_words``) treats costs so close as equal (measured against it: with its older traceback's 1e-4,
  about one random utterance in 20,000 took another path), so its path may cost a little more than the
  least, and the cost it reports (what its oracle WER sums) is the cost of that path.

`lightscore.text.recognition.edit_path` walks back in another order (NeMo's: insertion before deletion) with
exact integer costs, so it cannot serve here. The tests hold this equal to ``texterrors.align_texts``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

__all__ = ["Aligned", "align_words", "char_cost", "char_cost_matrix", "path_cost"]

TOLERANCE = 1e-2  # texterrors 1.1.9 (align_texts_words) takes costs this close as one


class Aligned(NamedTuple):
    """One utterance aligned: ``(ref word | None, hyp word | None)`` pairs in reading order, and the path's cost
    (the sum of its steps' costs, as texterrors reports it)."""

    pairs: list[tuple[str | None, str | None]]
    cost: float


def char_cost(a: str, b: str) -> float:
    """The character-aware cost of pairing two words: 1.5 x byte edit distance / the longer byte length.

    >>> char_cost("sentence", "sentenc")
    0.1875
    >>> char_cost("héllo", "hello")  # é is two bytes: one substitution and one deletion over 6 bytes
    0.5
    """
    a_bytes, b_bytes = a.encode(), b.encode()
    return Levenshtein.distance(a_bytes, b_bytes) / max(len(a_bytes), len(b_bytes)) * 1.5


def char_cost_matrix(ref: Sequence[str], hyp: Sequence[str]) -> list[list[float]]:
    """``costs[i][j] = char_cost(ref[i], hyp[j])`` for every pair, the distances in one rapidfuzz call.

    The same float operations as `char_cost` (distance / longer length, times 1.5), so the same values.

    >>> char_cost_matrix(["ok", "now"], ["okay", "ok"])
    [[0.75, 0.0], [1.5, 1.0]]
    """
    if not ref or not hyp:
        return [[] for _ in ref]
    ref_bytes, hyp_bytes = [w.encode() for w in ref], [w.encode() for w in hyp]
    distances = process.cdist(ref_bytes, hyp_bytes, scorer=Levenshtein.distance, dtype=np.int32)
    ref_lengths = np.fromiter(map(len, ref_bytes), np.int32, len(ref_bytes))
    hyp_lengths = np.fromiter(map(len, hyp_bytes), np.int32, len(hyp_bytes))
    return (distances / np.maximum.outer(ref_lengths, hyp_lengths) * 1.5).tolist()


def _band(n_ref: int, n_hyp: int, limit: float) -> tuple[int, int]:
    """The least and the greatest ``j - i`` of a cell a path of cost <= ``limit`` can cross.

    Every path through ``(i, j)`` costs at least ``|i - j| + |(n_ref - i) - (n_hyp - j)|`` (each word left
    unpaired costs 1). With ``limit`` an upper bound on the cost of the path walked back (`align_words`), the
    cells it visits and compares lie in the band, and so do the cells of their least-cost paths from the start:
    a table filled in the band alone holds their exact values. ``limit=inf`` is the whole table.

    >>> _band(3, 5, 2), _band(3, 5, math.inf)
    ((0, 2), (-3, 5))
    """
    if math.isinf(limit):
        return -n_ref, n_hyp
    delta = n_hyp - n_ref
    return math.ceil((delta - limit) / 2), math.floor((delta + limit) / 2)


def _unit_table(ref: Sequence[str], hyp: Sequence[str], limit: float = math.inf) -> list[list[int]]:
    """The summed-cost table with unit costs (``table[i][j]``: the least cost of aligning ``ref[:i]`` with
    ``hyp[:j]``), filled in the band of ``limit`` (`_band`); the other cells hold a cost no path reaches.

    Integers throughout: the standard alignment's table is most of its time, and integer cells are about twice
    as fast as `_char_table`'s floats.

    >>> _unit_table(["a", "b"], ["b"])
    [[0, 1], [1, 1], [2, 1]]
    """
    n_ref, n_hyp = len(ref), len(hyp)
    low, high = _band(n_ref, n_hyp, limit)
    unreached = [n_ref + n_hyp + 1] * (n_hyp + 1)  # more than any path costs: never close to a cell's cost
    row = unreached[:]
    for j in range(0, min(n_hyp, high) + 1):
        row[j] = j
    table = [row]
    for i in range(1, n_ref + 1):
        above, row = row, unreached[:]
        j_low, j_high = i + low, min(n_hyp, i + high)
        if j_low <= 0:
            row[0] = i
            j_low = 1
        left = row[j_low - 1]
        word = ref[i - 1]
        for j in range(j_low, j_high + 1):
            best = above[j] + 1
            if left + 1 < best:
                best = left + 1
            diagonal = above[j - 1] + (word != hyp[j - 1])
            if diagonal < best:
                best = diagonal
            row[j] = left = best
        table.append(row)
    return table


def _char_table(costs: list[list[float]], n_hyp: int, limit: float = math.inf) -> list[list[float]]:
    """The summed-cost table with the pair costs ``costs`` (`char_cost_matrix`), filled in the band of ``limit``.

    The float sums are texterrors' own: up + 1, left + 1, diagonal + pair cost.

    >>> _char_table([[0.75], [1.5]], 1)
    [[0.0, 1.0], [1.0, 0.75], [2.0, 1.75]]
    """
    n_ref = len(costs)
    low, high = _band(n_ref, n_hyp, limit)
    unreached = [math.inf] * (n_hyp + 1)
    row = unreached[:]
    for j in range(0, min(n_hyp, high) + 1):
        row[j] = float(j)
    table = [row]
    for i in range(1, n_ref + 1):
        above, row = row, unreached[:]
        j_low, j_high = i + low, min(n_hyp, i + high)
        if j_low <= 0:
            row[0] = float(i)
            j_low = 1
        left = row[j_low - 1]
        steps = costs[i - 1]
        for j in range(j_low, j_high + 1):
            best = above[j] + 1.0
            if left + 1.0 < best:
                best = left + 1.0
            diagonal = above[j - 1] + steps[j - 1]
            if diagonal < best:
                best = diagonal
            row[j] = left = best
        table.append(row)
    return table


def path_cost(ref: Sequence[str], hyp: Sequence[str], chardiff: bool) -> float:
    """The cost of texterrors' path (its ``cost``: what its oracle WER sums).

    With unit costs the path is a least-cost one (ties are exact), so its cost is the edit distance, from
    rapidfuzz without a table; character-aware, the path is walked (`align_words`).

    >>> path_cost("test sentence okay words ending now".split(), "test a sentenc ok endin now".split(), True)
    3.1875
    >>> path_cost("a b c".split(), "a c d".split(), False)
    2.0
    """
    if not chardiff:
        return float(Levenshtein.distance(ref, hyp))
    return align_words(ref, hyp, chardiff).cost


def align_words(ref: Sequence[str], hyp: Sequence[str], chardiff: bool = False, *, whole: bool = False) -> Aligned:
    """Align two word lists as texterrors does (``texterrors.align_texts``).

    The fast path pairs a common suffix at once and fills the table only in the band of an upper bound on the
    path's cost (`_band`); ``whole=True`` is its plain twin, the whole table of the whole utterances, as
    texterrors fills it (tests/test_keywords.py holds them equal; 3.4x standard and 2.5x character-aware
    on the 5,000 first utterances of benchmarks/corpus.py).

    Args:
        ref: Reference words.
        hyp: Hypothesis words.
        chardiff: Character-aware pair costs (texterrors ``--use-chardiff``).
        whole: Fill the whole table (the plain twin).

    Returns:
        The pairs (None for the missing side of a deletion or an insertion) and the cost of their path.

    >>> align_words("test sentence okay words ending now".split(), "test a sentenc ok endin now".split(), True)
    ... # doctest: +NORMALIZE_WHITESPACE
    Aligned(pairs=[('test', 'test'), (None, 'a'), ('sentence', 'sentenc'), ('okay', 'ok'), ('words', None),
                   ('ending', 'endin'), ('now', 'now')], cost=3.1875)
    >>> align_words("a b".split(), "b c".split()).pairs  # a tie: two substitutions, as texterrors walks back
    [('a', 'b'), ('b', 'c')]
    """
    n, m = len(ref), len(hyp)
    suffix = 0  # a common suffix is paired word by word: the walk back takes those diagonal steps first
    while not whole and suffix < min(n, m) and ref[n - 1 - suffix] == hyp[m - 1 - suffix]:
        suffix += 1
    n, m = n - suffix, m - suffix
    # an upper bound on the walked path's cost: the unit-cost distance (each of its edits costs at most 1.5
    # character-aware), plus texterrors' tolerance on each step
    distance = math.inf if whole else Levenshtein.distance(ref[:n], hyp[:m])
    limit = distance + 1e-9 if not chardiff else 1.5 * distance + TOLERANCE * (n + m) + 1e-9
    if chardiff:
        char_costs = char_cost_matrix(ref[:n], hyp[:m])
        table: list[list[float]] | list[list[int]] = _char_table(char_costs, m, limit)
    else:
        table = _unit_table(ref[:n], hyp[:m], limit)
    pairs: list[tuple[str | None, str | None]] = [(ref[k], hyp[m + k - n]) for k in range(n + suffix - 1, n - 1, -1)]
    cost = 0.0
    i, j = n, m
    while i or j:
        if i and j:
            here = table[i][j]
            step = (char_costs[i - 1][j - 1] if chardiff else 1) if ref[i - 1] != hyp[j - 1] else 0
            if abs(table[i - 1][j - 1] + step - here) < TOLERANCE:
                i, j = i - 1, j - 1
                pairs.append((ref[i], hyp[j]))
                cost += step
                continue
            if abs(table[i - 1][j] + 1.0 - here) < TOLERANCE:
                i -= 1
                pairs.append((ref[i], None))
            else:
                j -= 1
                pairs.append((None, hyp[j]))
        elif i:
            i -= 1
            pairs.append((ref[i], None))
        else:
            j -= 1
            pairs.append((None, hyp[j]))
        cost += 1.0
    pairs.reverse()
    return Aligned(pairs, cost)
