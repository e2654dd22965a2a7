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

from collections.abc import Sequence
from typing import NamedTuple

from rapidfuzz.distance import Levenshtein

__all__ = ["Aligned", "align_words", "char_cost", "pair_costs", "path_cost"]

TOLERANCE = 1e-2  # texterrors 1.1.9 (align_texts_words): costs this close are one cost


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


def pair_costs(ref: Sequence[str], hyp: Sequence[str], chardiff: bool) -> list[list[float]]:
    """``costs[i][j]``: the cost of pairing ``ref[i]`` with ``hyp[j]`` (0 for equal words in both modes).

    >>> pair_costs(["ok", "now"], ["okay"], chardiff=True)
    [[0.75], [1.5]]
    >>> pair_costs(["ok", "now"], ["now"], chardiff=False)
    [[1], [0]]
    """
    if not chardiff:
        return [[0 if r == h else 1 for h in hyp] for r in ref]
    cache: dict[tuple[str, str], float] = {}
    costs = []
    for r in ref:
        row = []
        for h in hyp:
            if r == h:
                row.append(0.0)
                continue
            cost = cache.get((r, h))
            if cost is None:
                cost = cache[(r, h)] = char_cost(r, h)
            row.append(cost)
        costs.append(row)
    return costs


def _cost_table(costs: list[list[float]], n_hyp: int) -> list[list[float]]:
    """The summed-cost table: ``table[i][j]`` is the least cost of aligning ``ref[:i]`` with ``hyp[:j]``."""
    table = [[float(j) for j in range(n_hyp + 1)]]
    for i, row_costs in enumerate(costs, start=1):
        above = table[-1]
        left = float(i)
        row = [left]
        for j in range(1, n_hyp + 1):
            # as texterrors adds: up + 1, left + 1, diagonal + pair cost (the float sums must be the same)
            best = above[j] + 1.0
            if left + 1.0 < best:
                best = left + 1.0
            diagonal = above[j - 1] + row_costs[j - 1]
            if diagonal < best:
                best = diagonal
            row.append(best)
            left = best
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


def align_words(ref: Sequence[str], hyp: Sequence[str], chardiff: bool = False) -> Aligned:
    """Align two word lists as texterrors does (``texterrors.align_texts``).

    Args:
        ref: Reference words.
        hyp: Hypothesis words.
        chardiff: Character-aware pair costs (texterrors ``--use-chardiff``).

    Returns:
        The pairs (None for the missing side of a deletion or an insertion) and the cost of their path.

    >>> align_words("test sentence okay words ending now".split(), "test a sentenc ok endin now".split(), True)
    ... # doctest: +NORMALIZE_WHITESPACE
    Aligned(pairs=[('test', 'test'), (None, 'a'), ('sentence', 'sentenc'), ('okay', 'ok'), ('words', None),
                   ('ending', 'endin'), ('now', 'now')], cost=3.1875)
    >>> align_words("a b".split(), "b c".split()).pairs  # a tie: two substitutions, as texterrors walks back
    [('a', 'b'), ('b', 'c')]
    """
    costs = pair_costs(ref, hyp, chardiff)
    table = _cost_table(costs, len(hyp))
    pairs: list[tuple[str | None, str | None]] = []
    cost = 0.0
    i, j = len(ref), len(hyp)
    while i or j:
        if i and j:
            here = table[i][j]
            step = costs[i - 1][j - 1]
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
