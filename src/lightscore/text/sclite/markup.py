"""sclite's reference markup inside the alignment: ``{ a / b c / @ }``, the null word ``@``, ``(word)`` and ``wor-``.

sclite reads a reference, and a trn hypothesis too, as a network
(`lightscore.text.sclite.network`): an alternation ``{ ... / ... }`` is a fork
whose branches join before the next word, and ``@`` is the null word. It aligns
the two networks at once (SCTK ``net_dp.c``): one cell per pair of arcs, each
cell's cheapest predecessor (the first of equals, branches in the order
written), then substitution if no dearer than deletion and insertion, else
deletion if cheaper than insertion, else insertion; the back pointers are the
path. Costs are ``wwd_WORD``'s, in single precision as sclite adds them:
correct 0, substitution 4, insertion or deletion 3, an optionally deletable
word inserted or deleted 2 (``-D``), ``@`` inserted or deleted 0.001, ``@``
against ``@`` 1. On the path, ``@`` leaves no trace, an optionally deletable
word left out counts as correct, and with ``-F`` a fragment (``wor-``,
``-ord``) is correct against any word it begins (ends).

Without markup in a pair this is `lightscore.text.sclite.align` (same costs and
tie-breaking), which counts faster: `markup_counts` hands such pairs to it. Two
lines without alternations or ``@`` (optional words, fragments) are aligned in
numpy; only networks with forks take the cell-by-cell programme. Counting many
pairs (`count_markup_pairs`, `count_encoded`) aligns them all at once instead
(`lightscore.text.sclite.batch`, the same programme over arrays), tested equal
to the cell-by-cell one and to ``sctk sclite``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from lightscore.text.dp_rows import close_row
from lightscore.text.sclite.align import sclite_align, sclite_counts
from lightscore.text.sclite.batch import CHUNK_CELLS, batch_counts
from lightscore.text.sclite.encode import Encoded, Vocabulary, encode, network
from lightscore.text.sclite.network import (
    GAP_COST,
    NULL_COST,
    OPTIONAL_COST,
    SUB_COST,
    MarkupError,
    Network,
    Word,
    equal_words,
    f32,
    gap_cost,
    pair_cost,
    parse_reference,
    path_pairs,
    read_words,
    walk_back,
)

if TYPE_CHECKING:  # rapidfuzz, which alignment loads, is not needed to align networks
    from lightscore.text.alignment import Pair

__all__ = [
    "MarkupCounts",
    "MarkupError",
    "Word",
    "count_encoded",
    "count_markup_pairs",
    "markup_align",
    "markup_counts",
    "parse_reference",
    "read_words",
]


class MarkupCounts(NamedTuple):
    """One pair's sclite counts; ``ref_len`` is the words of the reference path taken (C + S + D)."""

    sub: int
    dele: int
    ins: int
    ref_len: int


_NULL, _OPTIONAL, _GAP, _SUB = NULL_COST, OPTIONAL_COST, GAP_COST, SUB_COST
_f32, _equal, _gap_cost = f32, equal_words, gap_cost


def _cheapest(cells: list[list[float]], preds: list[int], b: int) -> tuple[float, int]:
    """The first predecessor arc with the least cost in column ``b`` (sclite keeps the first of equals)."""
    best, arc = cells[preds[0]][b], preds[0]
    for pred in preds[1:]:
        if cells[pred][b] < best:
            best, arc = cells[pred][b], pred
    return best, arc


def _cheapest_pair(cells: list[list[float]], ref_preds: list[int], hyp_preds: list[int]) -> tuple[float, int, int]:
    """The first (reference, hypothesis) predecessor pair with the least cost, reference arcs outermost."""
    best, at_a, at_b = cells[ref_preds[0]][hyp_preds[0]], ref_preds[0], hyp_preds[0]
    for a in ref_preds:
        row = cells[a]
        for b in hyp_preds:
            if row[b] < best:
                best, at_a, at_b = row[b], a, b
    return best, at_a, at_b


def _network_path(ref: Network, hyp: Network) -> list[tuple[int, int, str]]:
    """sclite's path through two networks (``net_dp.c``): ``(ref arc, hyp arc, move)`` from the start, moves S/D/I."""
    (ref_arcs, ref_ends), (hyp_arcs, hyp_ends) = ref, hyp
    width = len(hyp_arcs)
    cells = [[0.0] * width for _ in ref_arcs]
    back: list[list[tuple[int, int]]] = [[(-1, -1)] * width for _ in ref_arcs]
    hyp_words: list[Word] = [hyp_arcs[1][0] if width > 1 else Word("", b"", False, False, False)]  # type: ignore[list-item]
    hyp_words += [word for word, _ in hyp_arcs[1:]]  # type: ignore[misc]
    hyp_gaps = [_gap_cost(word) for word in hyp_words]
    hyp_preds = [preds for _, preds in hyp_arcs]
    hyp_one = [preds[0] if len(preds) == 1 else -1 for preds in hyp_preds]  # most arcs have one predecessor
    hyp_keys = [None if (w.null or w.fragment) else w.key for w in hyp_words]  # None: compare with pair_cost
    # Without "@" every cost is a small whole number, exact in single precision: no rounding to emulate.
    exact = not (any(w.null for w in hyp_words[1:]) or any(w is not None and w.null for w, _ in ref_arcs))
    for b in range(1, width):
        cost, pred = _cheapest_row(cells[0], hyp_preds[b])
        cells[0][b], back[0][b] = _sum(cost, hyp_gaps[b], exact), (0, pred)
    for a in range(1, len(ref_arcs)):
        word, preds = ref_arcs[a]
        assert word is not None
        deletion = _gap_cost(word)
        cost, pred = _cheapest(cells, preds, 0)
        cells[a][0], back[a][0] = _sum(cost, deletion, exact), (pred, 0)
        row, row_back = cells[a], back[a]
        one = preds[0] if len(preds) == 1 else -1
        above = cells[one] if one >= 0 else None
        key = None if (word.null or word.fragment) else word.key
        for b in range(1, width):
            pb = hyp_one[b]
            if pb >= 0:
                ins_cost, ins_arc = row[pb], pb
            else:
                ins_cost, ins_arc = _cheapest_row(row, hyp_preds[b])
            if above is not None:
                del_cost, del_arc = above[b], one
                if pb >= 0:
                    sub_cost, sub_a, sub_b = above[pb], one, pb
                else:
                    sub_cost, sub_b = _cheapest_row(above, hyp_preds[b])
                    sub_a = one
            else:
                del_cost, del_arc = _cheapest(cells, preds, b)
                sub_cost, sub_a, sub_b = _cheapest_pair(cells, preds, hyp_preds[b])
            hyp_key = hyp_keys[b]
            if key is not None and hyp_key is not None:
                pair = 0.0 if key == hyp_key else _SUB
            else:
                pair = pair_cost(word, hyp_words[b])
            if exact:
                ins_cost += hyp_gaps[b]
                del_cost += deletion
                sub_cost += pair
            else:
                ins_cost, del_cost, sub_cost = (
                    _f32(ins_cost + hyp_gaps[b]),
                    _f32(del_cost + deletion),
                    _f32(sub_cost + pair),
                )
            if sub_cost <= del_cost and sub_cost <= ins_cost:
                row[b], row_back[b] = sub_cost, (sub_a, sub_b)
            elif del_cost < ins_cost:
                row[b], row_back[b] = del_cost, (del_arc, b)
            else:
                row[b], row_back[b] = ins_cost, (a, ins_arc)
    _, a, b = _cheapest_pair(cells, ref_ends, hyp_ends)
    return walk_back(back, a, b)


def _sum(cost: float, step: float, exact: bool) -> float:
    return cost + step if exact else _f32(cost + step)


def _linear_path(ref: list[Word], hyp: list[Word]) -> list[tuple[int, int, str]]:
    """`_network_path` of two lines of words without ``@``, in numpy: every cost a whole number, so no rounding.

    One row of the table per reference word; the insertion chain along a row is a running
    minimum once each cell's insertion prefix sum is taken off. The path is read back from the
    costs as sclite's pointers would give it: substitution when it reaches a cell at its cost,
    else insertion, else deletion (a deletion as cheap as an insertion loses, as in ``net_dp.c``).
    """
    deletion = np.array([_gap_cost(word) for word in ref], dtype=np.int64)
    insertion = np.array([_gap_cost(word) for word in hyp], dtype=np.int64)
    if any(word.fragment for word in (*ref, *hyp)):
        sub = np.array([[0 if _equal(r, h) else _SUB for h in hyp] for r in ref], dtype=np.int64)
    else:
        ids: dict[bytes, int] = {}
        ref_ids = np.array([ids.setdefault(w.key, len(ids)) for w in ref], dtype=np.int64)
        hyp_ids = np.array([ids.setdefault(w.key, len(ids)) for w in hyp], dtype=np.int64)
        sub = np.where(ref_ids[:, None] == hyp_ids[None, :], 0, int(_SUB))
    steps = np.concatenate([[0], np.cumsum(insertion)])
    table = np.empty((len(ref) + 1, len(hyp) + 1), dtype=np.int64)
    table[0] = steps
    for a in range(1, len(ref) + 1):
        above = table[a - 1]
        row = table[a]
        row[0] = above[0] + deletion[a - 1]
        row[1:] = np.minimum(above[:-1] + sub[a - 1], above[1:] + deletion[a - 1])
        close_row(row, steps, out=row)
    cost, path = table.tolist(), []
    a, b = len(ref), len(hyp)
    while a > 0 or b > 0:
        here = cost[a][b]
        if a > 0 and b > 0 and cost[a - 1][b - 1] + sub[a - 1][b - 1] == here:
            path.append((a, b, "S"))
            a, b = a - 1, b - 1
        elif b > 0 and cost[a][b - 1] + insertion[b - 1] == here:
            path.append((a, b, "I"))
            b -= 1
        else:
            path.append((a, b, "D"))
            a -= 1
    path.reverse()
    return path


def _cheapest_row(row: list[float], preds: list[int]) -> tuple[float, int]:
    """`_cheapest` along one row: the first of the hypothesis predecessors with the least cost."""
    best, arc = row[preds[0]], preds[0]
    for pred in preds[1:]:
        if row[pred] < best:
            best, arc = row[pred], pred
    return best, arc


def _is_plain(word: Word) -> bool:
    return not (word.null or word.optional or word.fragment)


def _line(network: Network) -> list[Word] | None:
    """The network's words when it has no alternation (each arc follows the one before)."""
    arcs, _ = network
    if any(preds != [k] for k, (_, preds) in enumerate(arcs[1:])):
        return None
    return [word for word, _ in arcs[1:] if word is not None]


def _linear_words(network: Network) -> list[Word] | None:
    """The network's words when it is one plain line (no alternation, ``@``, optional word or fragment)."""
    words = _line(network)
    return words if words is not None and all(map(_is_plain, words)) else None


def markup_align(ref: Network, hyp: Network) -> list[Pair]:
    """sclite's alignment of two networks (a trn hypothesis is read as one too), as ``(ref, hyp, mark)`` pairs.

    Plain twin: `lightscore.text.sclite.reference.align_networks`.

    ``@`` leaves no pair; an optionally deletable word left out is ``(word, None, "C")`` (an
    inserted one ``(None, word, "C")``), as sclite counts them correct.

    Args:
        ref: The reference, from `parse_reference`.
        hyp: The hypothesis, from `parse_reference` too.

    Returns:
        ``(ref text | None, hyp text | None, mark)`` per position, mark C, S, D or I.

    >>> markup_align(parse_reference("{ um / uh } yes"), parse_reference("uh yes"))
    [('uh', 'uh', 'C'), ('yes', 'yes', 'C')]
    >>> markup_align(parse_reference("(uh) yes", optional=True), parse_reference("yes"))
    [('(uh)', None, 'C'), ('yes', 'yes', 'C')]
    """
    ref_words, hyp_words = _linear_words(ref), _linear_words(hyp)
    if ref_words is not None and hyp_words is not None:
        return sclite_align([w.text for w in ref_words], [w.text for w in hyp_words])
    ref_line, hyp_line = _line(ref), _line(hyp)
    if ref_line and hyp_line and not any(w.null for w in (*ref_line, *hyp_line)):
        return path_pairs(ref, hyp, _linear_path(ref_line, hyp_line))
    return path_pairs(ref, hyp, _network_path(ref, hyp))


def markup_counts(ref: Network, hyp: Network) -> MarkupCounts:
    """sclite's ``(S, D, I, reference words)`` of two networks.

    Plain twin: `lightscore.text.sclite.reference.count_networks`.

    Args:
        ref: The reference, from `parse_reference`.
        hyp: The hypothesis, from `parse_reference`.

    Returns:
        `MarkupCounts`; its ``ref_len`` counts the words of the path sclite took (C + S + D).

    >>> markup_counts(parse_reference("email me @ home"), parse_reference("email me home"))
    MarkupCounts(sub=0, dele=0, ins=0, ref_len=3)
    >>> markup_counts(parse_reference("{ a b / c } d"), parse_reference("x d"))
    MarkupCounts(sub=1, dele=0, ins=0, ref_len=2)
    """
    ref_words, hyp_words = _linear_words(ref), _linear_words(hyp)
    if ref_words is not None and hyp_words is not None:
        s, d, i = sclite_counts([w.text for w in ref_words], [w.text for w in hyp_words])
        return MarkupCounts(s, d, i, len(ref_words))
    tally = {"C": 0, "S": 0, "D": 0, "I": 0}
    for *_, mark in markup_align(ref, hyp):
        tally[mark] += 1
    return MarkupCounts(tally["S"], tally["D"], tally["I"], tally["C"] + tally["S"] + tally["D"])


def count_markup_pairs(
    refs: Iterable[str], hyps: Iterable[str], optional: bool = False, fragments: bool = False
) -> list[MarkupCounts]:
    """`markup_counts` of every (reference, hypothesis) text pair, both read as sclite reads trn texts.

    Args:
        refs: References with sclite's markup.
        hyps: Hypotheses (markup read too, as sclite does).
        optional: ``-D``.
        fragments: ``-F``.

    Returns:
        One `MarkupCounts` per pair.

    Raises:
        MarkupError: a text the markup cannot read.

    >>> count_markup_pairs(["{ um / uh } yes"], ["uh yes"])
    [MarkupCounts(sub=0, dele=0, ins=0, ref_len=2)]
    """
    vocabulary = Vocabulary(optional, fragments)
    return count_encoded(
        [(encode(ref, vocabulary), encode(hyp, vocabulary)) for ref, hyp in zip(refs, hyps)], vocabulary
    )


def count_encoded(pairs: Sequence[tuple[Encoded, Encoded]], vocabulary: Vocabulary) -> list[MarkupCounts]:
    """`markup_counts` of networks read by `lightscore.text.sclite.encode.encode`, each pair where it counts fastest.

    Plain twin: `lightscore.text.sclite.reference.count_networks`.

    Two plain lines (no alternation, ``@``, optional word or fragment) go to `sclite_counts`; a pair
    too long for a batch chunk to `markup_counts`; every other pair is aligned with the rest at once
    (`lightscore.text.sclite.batch.batch_counts`). The counts are the same either way.

    Args:
        pairs: ``(reference, hypothesis)`` networks over ``vocabulary``.
        vocabulary: Their words.

    Returns:
        One `MarkupCounts` per pair.

    >>> v = Vocabulary(optional=True, fragments=False)
    >>> count_encoded([(encode("(uh) a b", v), encode("a c", v)), (encode("a b", v), encode("a", v))], v)
    [MarkupCounts(sub=1, dele=0, ins=0, ref_len=3), MarkupCounts(sub=0, dele=1, ins=0, ref_len=2)]
    """
    found: list[MarkupCounts | None] = [None] * len(pairs)
    new = tuple.__new__  # MarkupCounts' own __new__ is a Python function: one call per pair saved
    together = []
    marked = {k for k, word in enumerate(vocabulary.words) if not _is_plain(word)}
    for k, (ref, hyp) in enumerate(pairs):
        if ref.jumps is None and hyp.jumps is None and marked.isdisjoint(ref.words) and marked.isdisjoint(hyp.words):
            # A plain word's index stands for its key one to one (its text decides both), so the indices align.
            s, d, i = (0, 0, 0) if ref.words == hyp.words else sclite_counts(ref.words, hyp.words)
            found[k] = new(MarkupCounts, (s, d, i, len(ref.words)))
        elif (len(ref.words) + 1) * (len(hyp.words) + 1) > CHUNK_CELLS:
            found[k] = markup_counts(network(ref, vocabulary), network(hyp, vocabulary))
        else:
            together.append(k)
    for k, counts in zip(together, batch_counts([pairs[k] for k in together], vocabulary)):
        found[k] = new(MarkupCounts, counts)
    return found  # type: ignore[return-value]
