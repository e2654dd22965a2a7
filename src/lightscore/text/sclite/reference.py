"""sclite's alignments written to be read: the textbook dynamic programmes the family's fast paths must equal.

Nothing here is fast. Each function fills a whole cost table with plain loops and walks it back, so that a
reader can check it against SCTK line by line; the fast modules name the function here they compute
(``Plain twin:`` in their docstrings), and tests/test_sclite_twins.py holds them equal on generated input.

- `align_words`: sclite's weighted Levenshtein (SCTK ``wwd_WORD``: correct 0, substitution 4, insertion 3,
  deletion 3) of two token lists, with its tie-breaking. The twin of `lightscore.text.sclite.align` and
  `lightscore.text.sclite.traceback`.
- `align_networks`: sclite's alignment of two networks (SCTK ``net_dp.c``: alternations, ``@``, optionally
  deletable words, fragments). The twin of `lightscore.text.sclite.markup`'s programmes and of
  `lightscore.text.sclite.batch` (with `lightscore.text.sclite.columns`).

>>> align_words("x x x y".split(), "x y y".split())
[('x', None, 'D'), ('x', 'x', 'C'), ('x', 'y', 'S'), ('y', 'y', 'C')]
"""

from __future__ import annotations

from collections.abc import Sequence

from lightscore.text.alignment import Pair
from lightscore.text.sclite.network import Network, f32, gap_cost, pair_cost, path_pairs, walk_back

__all__ = ["align_networks", "align_words", "count_networks", "count_words", "word_costs"]

SUB, INS, DEL = 4, 3, 3  # wwd_WORD's costs; a correct token costs 0


def word_costs(ref: Sequence, hyp: Sequence) -> list[list[int]]:
    """sclite's cost table: ``cost[a][b]`` is the least cost of aligning ``ref[:a]`` to ``hyp[:b]``.

    Args:
        ref: reference tokens (compared with ``==``).
        hyp: hypothesis tokens.

    Returns:
        ``len(ref) + 1`` rows of ``len(hyp) + 1`` costs.

    >>> word_costs(["a", "b"], ["b"])
    [[0, 3], [3, 4], [6, 3]]
    """
    cost = [[0] * (len(hyp) + 1) for _ in range(len(ref) + 1)]
    for b in range(1, len(hyp) + 1):
        cost[0][b] = cost[0][b - 1] + INS
    for a in range(1, len(ref) + 1):
        cost[a][0] = cost[a - 1][0] + DEL
        for b in range(1, len(hyp) + 1):
            diagonal = cost[a - 1][b - 1] + (0 if ref[a - 1] == hyp[b - 1] else SUB)
            cost[a][b] = min(diagonal, cost[a - 1][b] + DEL, cost[a][b - 1] + INS)
    return cost


def align_words(ref: Sequence, hyp: Sequence) -> list[Pair]:
    """sclite's alignment of two token lists: ``(ref token | None, hyp token | None, mark)`` in reference order.

    Walking back from the last cell, sclite takes the first move, in the order diagonal, insertion, deletion,
    that reaches the cell at its cost (what its forward pass stores: a deletion as cheap as an insertion loses).

    Args:
        ref: reference tokens (a list of words, or a string of characters).
        hyp: hypothesis tokens.

    Returns:
        One pair per aligned position, mark C, S, D or I.

    >>> align_words("ab", "b")
    [('a', None, 'D'), ('b', 'b', 'C')]
    """
    cost = word_costs(ref, hyp)
    pairs: list[Pair] = []
    a, b = len(ref), len(hyp)
    while a > 0 or b > 0:
        same = a > 0 and b > 0 and ref[a - 1] == hyp[b - 1]
        if a > 0 and b > 0 and cost[a - 1][b - 1] + (0 if same else SUB) == cost[a][b]:
            pairs.append((ref[a - 1], hyp[b - 1], "C" if same else "S"))
            a, b = a - 1, b - 1
        elif b > 0 and cost[a][b - 1] + INS == cost[a][b]:
            pairs.append((None, hyp[b - 1], "I"))
            b -= 1
        else:
            pairs.append((ref[a - 1], None, "D"))
            a -= 1
    pairs.reverse()
    return pairs


def count_words(ref: Sequence, hyp: Sequence) -> tuple[int, int, int]:
    """``(substitutions, deletions, insertions)`` of `align_words`.

    >>> count_words("x y x y".split(), "y x y x".split())
    (0, 1, 1)
    """
    marks = [mark for _, _, mark in align_words(ref, hyp)]
    return marks.count("S"), marks.count("D"), marks.count("I")


def _first_cheapest(costs: list[float], arcs: list[int]) -> tuple[float, int]:
    """The least of ``costs[arc]`` over ``arcs`` and the first arc that has it (sclite keeps the first of equals)."""
    best_arc = arcs[0]
    for arc in arcs[1:]:
        if costs[arc] < costs[best_arc]:
            best_arc = arc
    return costs[best_arc], best_arc


def _network_path(ref: Network, hyp: Network) -> list[tuple[int, int, str]]:
    """sclite's path through two networks: ``(ref arc, hyp arc, move)`` from the start, moves S (diagonal), D, I.

    One cell per (reference arc, hypothesis arc), arc 0 of each the head. A cell is reached by a
    substitution from the first cheapest pair of predecessor arcs (reference arcs outermost), by a deletion
    from the first cheapest reference predecessor, or by an insertion from the first cheapest hypothesis
    predecessor; it takes the substitution if it is no dearer than both others, else the deletion if it is
    cheaper than the insertion, else the insertion. Every sum is rounded to a C float, as sclite adds them.
    The path starts at the first cheapest pair of final arcs.
    """
    (ref_arcs, ref_ends), (hyp_arcs, hyp_ends) = ref, hyp
    cells = [[0.0] * len(hyp_arcs) for _ in ref_arcs]
    back = [[(0, 0)] * len(hyp_arcs) for _ in ref_arcs]
    for a in range(len(ref_arcs)):
        for b in range(len(hyp_arcs)):
            if a == 0 and b == 0:
                continue
            ref_word, ref_preds = ref_arcs[a]
            hyp_word, hyp_preds = hyp_arcs[b]
            moves = []  # (cost, predecessor cell), in sclite's order of preference
            if a > 0 and b > 0:
                best = None
                for pa in ref_preds:
                    cost, pb = _first_cheapest(cells[pa], hyp_preds)
                    if best is None or cost < best[0]:
                        best = (cost, pa, pb)
                assert best is not None and ref_word is not None and hyp_word is not None
                moves.append((f32(best[0] + pair_cost(ref_word, hyp_word)), (best[1], best[2])))
            if a > 0:
                assert ref_word is not None
                cost, pa = _first_cheapest([row[b] for row in cells], ref_preds)
                moves.append((f32(cost + gap_cost(ref_word)), (pa, b)))
            if b > 0:
                assert hyp_word is not None
                cost, pb = _first_cheapest(cells[a], hyp_preds)
                moves.append((f32(cost + gap_cost(hyp_word)), (a, pb)))
            cells[a][b], back[a][b] = _choose(moves, a > 0 and b > 0)
    best_end = None
    for a in ref_ends:
        cost, b = _first_cheapest(cells[a], hyp_ends)
        if best_end is None or cost < best_end[0]:
            best_end = (cost, a, b)
    assert best_end is not None
    _, a, b = best_end
    return walk_back(back, a, b)


def _choose(moves: list[tuple[float, tuple[int, int]]], inner: bool) -> tuple[float, tuple[int, int]]:
    """net_dp's choice: substitution if no dearer than deletion and insertion, else deletion if cheaper, else
    insertion; on the first row or column the one move there is."""
    if not inner:
        return moves[0]
    substitution, deletion, insertion = moves
    if substitution[0] <= deletion[0] and substitution[0] <= insertion[0]:
        return substitution
    return deletion if deletion[0] < insertion[0] else insertion


def align_networks(ref: Network, hyp: Network) -> list[Pair]:
    """sclite's alignment of two networks as ``(ref text | None, hyp text | None, mark)`` pairs.

    ``@`` leaves no pair; an optionally deletable word left out (or put in) counts as correct; with
    fragments read, a fragment is correct against a word it begins (ends).

    Args:
        ref: The reference, from `lightscore.text.sclite.network.parse_reference`.
        hyp: The hypothesis, read the same way.

    Returns:
        One pair per position, mark C, S, D or I.

    >>> from lightscore.text.sclite.network import parse_reference
    >>> align_networks(parse_reference("{ um / uh } yes"), parse_reference("uh yes"))
    [('uh', 'uh', 'C'), ('yes', 'yes', 'C')]
    """
    return path_pairs(ref, hyp, _network_path(ref, hyp))


def count_networks(ref: Network, hyp: Network) -> tuple[int, int, int, int]:
    """``(S, D, I, reference words of the path)`` of `align_networks` (the reference words are C + S + D).

    >>> from lightscore.text.sclite.network import parse_reference
    >>> count_networks(parse_reference("{ a b / c } d"), parse_reference("x d"))
    (1, 0, 0, 2)
    """
    marks = [mark for _, _, mark in align_networks(ref, hyp)]
    sub, dele, ins = marks.count("S"), marks.count("D"), marks.count("I")
    return sub, dele, ins, len(marks) - ins
