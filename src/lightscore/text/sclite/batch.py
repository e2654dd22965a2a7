"""sclite's network alignment (SCTK ``net_dp.c``) for many pairs at once, in numpy: sclite's counts per pair.

The same programme as `lightscore.text.sclite.markup`'s cell-by-cell one, with
every pair of a chunk in one array: cells ``(pair, ref arc, hyp arc)`` in
float32 (sclite's C floats, so ``@``'s 0.001 rounds as there), each cell's
cheapest predecessor the first of equals (``argmin``), then substitution if no
dearer than deletion and insertion, else deletion if cheaper than insertion,
else insertion. A reference arc's row takes its deletions and substitutions
from the rows before it in a few whole-array steps; only the insertion chain
along the hypothesis goes arc by arc, every pair of the chunk together. The
back pointers are kept and walked back for all pairs at once, counting as
`lightscore.text.sclite.markup.markup_align` marks: ``@`` leaves no trace, an
optionally deletable word left out or put in is correct.

Pairs are sorted by size and cut into chunks, so padding (arcs past a pair's own, never read) stays small.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from itertools import chain

import numpy as np

from lightscore.text.sclite.columns import ColumnCosts
from lightscore.text.sclite.encode import Encoded, Vocabulary
from lightscore.text.sclite.network import equal_words

__all__ = ["CHUNK_CELLS", "batch_counts"]

CHUNK_CELLS = 1_000_000
"""Cells (pairs x reference arcs x hypothesis arcs) of one chunk, about 12 MB of costs and pointers: a pair
with more is one chunk alone, so callers send long pairs elsewhere (`lightscore.text.sclite.markup.count_encoded`)."""


def batch_counts(pairs: Sequence[tuple[Encoded, Encoded]], vocabulary: Vocabulary) -> list[tuple[int, int, int, int]]:
    """``(S, D, I, reference words of the path)`` of sclite's alignment of each (reference, hypothesis) network.

    Plain twin: `lightscore.text.sclite.reference.count_networks`.

    Args:
        pairs: Networks from `lightscore.text.sclite.encode.encode`, over ``vocabulary``.
        vocabulary: Their words.

    Returns:
        One ``(sub, dele, ins, ref_len)`` per pair, as `lightscore.text.sclite.markup.markup_counts` gives.

    >>> from lightscore.text.sclite.encode import encode
    >>> v = Vocabulary(optional=True, fragments=True)
    >>> pairs = [("{ um / uh } yes", "uh yes"), ("(a) wor- b", "word c")]
    >>> batch_counts([(encode(ref, v), encode(hyp, v)) for ref, hyp in pairs], v)
    [(0, 0, 0, 2), (1, 0, 0, 3)]
    """
    found: list[tuple[int, int, int, int]] = [(0, 0, 0, 0)] * len(pairs)
    if not pairs:
        return found
    tables = vocabulary.arrays()
    nulls = set(np.flatnonzero(tables[2]).tolist())
    # A line of a reference without "@" on either side: the column programme in whole numbers.
    by_columns = [
        ref.jumps is None and not (nulls and (nulls.intersection(ref.words) or nulls.intersection(hyp.words)))
        for ref, hyp in pairs
    ]
    for chunk in _chunks(pairs, by_columns):
        counts = _align_chunk([pairs[k] for k in chunk], vocabulary, tables, by_columns[chunk[0]])
        for k, row in zip(chunk, counts):
            found[k] = row
    return found


ROW_BAND = 8
"""References whose lengths differ by less share a chunk (in bands of this many words)."""


def _chunks(pairs: Sequence[tuple[Encoded, Encoded]], kinds: list[bool]) -> list[list[int]]:
    """The pairs in runs of one kind and one band of reference lengths, by hypothesis length, padded tables small.

    A chunk's table is as tall as its longest reference and as wide as its longest hypothesis, so
    a run also ends before `CHUNK_CELLS` and before its width passes twice its first one (plus 8):
    padding stays a fraction of the cells, while chunks stay few (each costs a few array
    operations per hypothesis arc, whatever its size).
    """
    heights = np.fromiter((len(ref.words) + 1 for ref, _ in pairs), dtype=np.int64, count=len(pairs))
    widths = np.fromiter((len(hyp.words) + 1 for _, hyp in pairs), dtype=np.int64, count=len(pairs))
    band_of = (heights - 1) // ROW_BAND
    order = np.lexsort((heights, widths, band_of, np.array(kinds, dtype=bool)))  # stable, as sorted() is
    bands = band_of.tolist()
    chunks: list[list[int]] = []
    current: list[int] = []
    kind = band = rows = first = -1
    for k, height, wide in zip(order.tolist(), heights[order].tolist(), widths[order].tolist()):
        tall = rows if rows > height else height  # within a run widths only grow
        if current and (
            kinds[k] != kind
            or bands[k] != band
            or wide > 2 * first + 8
            or (len(current) + 1) * tall * wide > CHUNK_CELLS
        ):
            chunks.append(current)
            current = []
        if not current:
            kind, band, first, tall = kinds[k], bands[k], wide, height
        current.append(k)
        rows = tall
    if current:
        chunks.append(current)
    return chunks


def _ints(values: list[int]) -> np.ndarray:
    """``values`` as int64: `struct` packs a list in C for about half of what ``np.fromiter`` spends per item.

    >>> _ints([3, 1, 2]).tolist()
    [3, 1, 2]
    """
    return np.frombuffer(struct.pack(f"{len(values)}q", *values), dtype=np.int64)


def _words(words: Sequence[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    """``(padded words, lengths)``: vocabulary index per arc, 0 for the head arc and past a network's own arcs."""
    lengths = _ints(list(map(len, words)))
    size = int(lengths.max()) + 1
    table = np.zeros((len(words), size), dtype=np.int64)
    if size > 1:  # row by row, each network's words after its head arc
        table[:, 1:][np.arange(size - 1) < lengths[:, None]] = _ints(list(chain.from_iterable(words)))
    return table, lengths


def _arcs(networks: Sequence[Encoded]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Padded ``(words, preds, ends, joins)``: words (`_words`), predecessor arcs, final arcs, arcs that merge.

    A short predecessor list is padded with its own first arc: a repeat never wins a first-of-equals choice.
    ``joins[arc]``: some network has several predecessors at ``arc``.
    """
    words, jumps, merges, ends = zip(*networks)
    table, lengths = _words(words)
    count, size = table.shape
    merge_rows = [len(m) for m in merges]
    merged = list(chain.from_iterable(merges))
    arcs_in, befores = zip(*merged) if merged else ((), ())
    fan_in = max(map(len, befores), default=1)
    preds = np.empty((count, size, fan_in), dtype=np.int64)
    preds[:] = np.maximum(np.arange(size) - 1, 0)[None, :, None]
    jump_rows = [len(j) >> 1 if j else 0 for j in jumps]
    if any(jump_rows):
        flat = _ints(list(chain.from_iterable(filter(None, jumps)))).reshape(-1, 2)
        preds[np.repeat(np.arange(count), jump_rows), flat[:, 0]] = flat[:, 1:]
    joins = np.zeros(size, dtype=bool)
    if merged:
        at = _ints(list(arcs_in))
        preds[np.repeat(np.arange(count), merge_rows), at] = _padded(befores, fan_in)
        joins[at] = True
    if not any(map(_is_list, ends)):
        return table, preds, lengths[:, None], joins
    last = [e if e is not None else [n] for e, n in zip(ends, lengths.tolist())]
    return table, preds, _padded(last, max(map(len, last))), joins


_is_list = list.__instancecheck__


def _padded(lists: Sequence[list[int]], width: int) -> np.ndarray:
    """``lists`` (none empty) as rows of ``width``, each padded with its own first element.

    >>> _padded([[3, 1], [2], [5, 6, 7]], 3).tolist()
    [[3, 1, 3], [2, 2, 2], [5, 6, 7]]
    """
    sizes = _ints(list(map(len, lists)))
    flat = _ints(list(chain.from_iterable(lists)))
    starts = np.cumsum(sizes) - sizes
    rows = np.repeat(flat[starts][:, None], width, axis=1)
    rows[np.repeat(np.arange(len(lists)), sizes), np.arange(len(flat)) - np.repeat(starts, sizes)] = flat
    return rows


def _align_chunk(
    chunk: list[tuple[Encoded, Encoded]], vocabulary: Vocabulary, tables: tuple[np.ndarray, ...], by_columns: bool
) -> list[tuple[int, int, int, int]]:
    keys, gaps, null, optional, fragment = tables
    refs, hyps = zip(*chunk)
    hyp_words, hyp_preds, hyp_ends, _ = _arcs(hyps)
    if by_columns:  # lines without "@": every substitution costs 0 or 4
        ref_words, ref_ends = _words([ref.words for ref in refs])
        ref_ends = ref_ends[:, None]
        equal = _equal_words(ref_words, hyp_words, vocabulary, keys, fragment)
        whole = gaps.astype(np.int32)
        columns = ColumnCosts(equal, whole[ref_words].T.copy(), whole[hyp_words].T.copy(), hyp_preds)
        cost, step = columns.cost, columns.step
    else:
        ref_words, ref_preds, ref_ends, _ = _arcs(refs)
        equal = _equal_words(ref_words, hyp_words, vocabulary, keys, fragment)
        both_null = null[ref_words][:, :, None] & null[hyp_words][:, None, :]
        pair = np.where(both_null, np.float32(1), np.where(equal.transpose(2, 1, 0), np.float32(0), np.float32(4)))
        cells, back_a, back_b = _programme(pair, gaps[ref_words], gaps[hyp_words], ref_preds, hyp_preds)
        _, rows, width = pair.shape
        flat_a, flat_b, flat_cells = back_a.reshape(-1), back_b.reshape(-1), cells.reshape(-1)
        origin = np.arange(len(chunk)) * (rows * width)

        def cost(a: np.ndarray, b: np.ndarray) -> np.ndarray:
            return flat_cells.take(origin.reshape(-1, *[1] * (a.ndim - 1)) + a * width + b)

        def step(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            at = origin + a * width + b
            return flat_a.take(at), flat_b.take(at)

    a, b = _best_end(cost, ref_ends, hyp_ends)
    return _walk_back(step, a, b, equal, ref_words, hyp_words, null, optional)


def _equal_words(
    ref_words: np.ndarray, hyp_words: np.ndarray, vocabulary: Vocabulary, keys: np.ndarray, fragment: np.ndarray
) -> np.ndarray:
    """Per ``(hyp arc, ref arc, pair)``: whether the words match (``-F``: a fragment, what it may complete).

    The substitution cost is 0 where they match, 1 for ``@`` against ``@``, else 4. A fragment's
    row (or column) is compared word by word (`_fragment_matches`).
    """
    ref_t, hyp_t = np.ascontiguousarray(ref_words.T), np.ascontiguousarray(hyp_words.T)
    equal = keys[hyp_t][:, None, :] == keys[ref_t][None, :, :]
    at_a, at_i = np.nonzero(fragment[ref_t])  # a fragment's row: against every hyp arc of its pair
    at_b, at_j = np.nonzero(fragment[hyp_t])  # and a column
    if len(at_a) or len(at_b):
        rows, columns = _fragment_matches(
            ref_t[at_a, at_i], hyp_words[at_i], hyp_t[at_b, at_j], ref_words[at_j], vocabulary
        )
        equal[:, at_a, at_i] = rows.T
        equal[at_b, :, at_j] = columns
    return equal


_MARKED_CODES = 1 << 22
"""`_fragment_matches` marks a table of every code up to this many (4 MB); beyond, it sorts the codes."""


def _fragment_matches(
    ref_fragments: np.ndarray,
    hyp_rows: np.ndarray,
    hyp_fragments: np.ndarray,
    ref_rows: np.ndarray,
    vocabulary: Vocabulary,
) -> tuple[np.ndarray, np.ndarray]:
    """Whether each reference fragment matches each word of its row, and each hypothesis fragment each of its column.

    Each distinct (fragment, word) pair is compared once: numbered densely by the chunk's own fragments
    (so a table of them is small), found by marking a table rather than by sorting.

    >>> v = Vocabulary(optional=False, fragments=True)
    >>> ids = v.ids("wor- word wo x".split())
    >>> no_rows = np.zeros((0, 2), int)
    >>> rows, columns = _fragment_matches(np.array([1]), np.array([[0, 2, 3, 4]]), np.array([], int), no_rows, v)
    >>> rows.tolist(), columns.shape
    ([[False, True, False, False]], (0, 2))
    """
    size, words = len(vocabulary.words), vocabulary.words
    fragments, inverse = np.unique(np.concatenate([ref_fragments, hyp_fragments]), return_inverse=True)
    side = len(fragments)  # a hypothesis fragment's codes come after every reference one's
    codes = np.concatenate(
        [
            (inverse[: len(ref_fragments), None] * size + hyp_rows).reshape(-1),
            ((inverse[len(ref_fragments) :, None] + side) * size + ref_rows).reshape(-1),
        ]
    )
    sorting = 2 * side * size > _MARKED_CODES
    if sorting:
        found, back = np.unique(codes, return_inverse=True)
    else:
        seen = np.zeros(2 * side * size, dtype=bool)
        seen[codes] = True
        found = np.flatnonzero(seen)
    pairs = [(int(fragments[c // size % side]), c % size, c // size < side) for c in found.tolist()]
    matches = [equal_words(words[f], words[w]) if first else equal_words(words[w], words[f]) for f, w, first in pairs]
    if sorting:
        same = np.array(matches, dtype=bool)[back]
    else:
        seen[found] = matches
        same = seen[codes]
    return same[: hyp_rows.size].reshape(hyp_rows.shape), same[hyp_rows.size :].reshape(ref_rows.shape)


def _first_min(values: np.ndarray, axis: int) -> tuple[np.ndarray, np.ndarray]:
    """The least value along ``axis`` and the position of its first occurrence."""
    at = np.argmin(values, axis=axis)
    return np.take_along_axis(values, np.expand_dims(at, axis), axis).squeeze(axis), at


def _programme(
    pair: np.ndarray, ref_gap: np.ndarray, hyp_gap: np.ndarray, ref_preds: np.ndarray, hyp_preds: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The cost table and back pointers ``(ref arc, hyp arc)`` of every cell of every pair."""
    count, rows, width = pair.shape
    fan_in = hyp_preds.shape[2]
    cells = np.zeros((count, rows, width), dtype=np.float32)
    back_a = np.zeros((count, rows, width), dtype=np.int32)
    back_b = np.zeros((count, rows, width), dtype=np.int32)
    every = np.arange(count)
    for b in range(1, width):  # the first row only inserts
        cost, at = _first_min(cells[every[:, None], 0, hyp_preds[:, b]], 1)
        cells[:, 0, b] = cost + hyp_gap[:, b]
        back_b[:, 0, b] = hyp_preds[every, b, at]
    # Substitution predecessors of each hyp arc, flattened reference-arc-major as sclite tries them.
    hyp_flat = hyp_preds[:, 1:].reshape(count, 1, -1)
    for a in range(1, rows):
        preds = ref_preds[:, a]
        above = cells[every[:, None], preds]  # (pair, ref pred, hyp arc)
        deletion, at = _first_min(above, 1)
        deletion += ref_gap[:, a, None]
        del_arc = np.take_along_axis(preds, at, 1)
        row = cells[:, a]
        row[:, 0] = deletion[:, 0]
        back_a[:, a, 0] = del_arc[:, 0]
        if width == 1:
            continue
        candidates = np.take_along_axis(above, np.broadcast_to(hyp_flat, (count, preds.shape[1], hyp_flat.shape[2])), 2)
        candidates = candidates.reshape(count, preds.shape[1], width - 1, fan_in).transpose(0, 2, 1, 3)
        substitution, at = _first_min(candidates.reshape(count, width - 1, -1), 2)
        substitution += pair[:, a, 1:]
        sub_a = np.take_along_axis(preds, at // fan_in, 1)
        sub_b = np.take_along_axis(hyp_preds[:, 1:].reshape(count, -1), np.arange(width - 1) * fan_in + at % fan_in, 1)
        # sub if no dearer than del (then it also needs to be no dearer than ins), else del if cheaper than ins.
        prefer_sub = substitution <= deletion[:, 1:]
        best = np.where(prefer_sub, substitution, deletion[:, 1:])
        ins_arc = np.empty((count, width - 1), dtype=np.int64)
        took = np.empty((count, width - 1), dtype=bool)
        for b in range(1, width):
            insertion, at = _first_min(row[every[:, None], hyp_preds[:, b]], 1)
            insertion += hyp_gap[:, b]
            keep = np.where(prefer_sub[:, b - 1], best[:, b - 1] <= insertion, best[:, b - 1] < insertion)
            row[:, b] = np.where(keep, best[:, b - 1], insertion)
            ins_arc[:, b - 1] = hyp_preds[every, b, at]
            took[:, b - 1] = keep
        back_a[:, a, 1:] = np.where(took, np.where(prefer_sub, sub_a, del_arc[:, 1:]), a)
        back_b[:, a, 1:] = np.where(took, np.where(prefer_sub, sub_b, np.arange(1, width)), ins_arc)
    return cells, back_a, back_b


def _best_end(
    cost: Callable[[np.ndarray, np.ndarray], np.ndarray], ref_ends: np.ndarray, hyp_ends: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The first (reference end, hypothesis end) pair with the least cost, reference arcs outermost.

    ``cost(a, b)`` gives pair ``k``'s cost of cell ``(a[k, ...], b[k, ...])``.
    """
    fan = hyp_ends.shape[1]
    a, b = np.repeat(ref_ends, fan, axis=1), np.tile(hyp_ends, (1, ref_ends.shape[1]))
    ends = cost(a, b)
    best, at_a, at_b = ends[:, 0], a[:, 0], b[:, 0]
    for k in range(1, ends.shape[1]):  # a strict comparison keeps the first of equals
        cheaper = ends[:, k] < best
        best = np.where(cheaper, ends[:, k], best)
        at_a, at_b = np.where(cheaper, a[:, k], at_a), np.where(cheaper, b[:, k], at_b)
    return at_a, at_b


def _walk_back(
    step: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]],
    a: np.ndarray,
    b: np.ndarray,
    equal: np.ndarray,
    ref_words: np.ndarray,
    hyp_words: np.ndarray,
    null: np.ndarray,
    optional: np.ndarray,
) -> list[tuple[int, int, int, int]]:
    """Every pair's path from its end cell to the origin, counted as sclite marks it.

    ``step(a, b)`` gives every pair's predecessor cell (the back pointers, or the choice read from the costs).
    ``equal`` is `_equal_words`' table.
    """
    path_a, path_b, before_a, before_b = [], [], [], []  # every pair's cells, one step at a time
    while True:
        live = (a > 0) | (b > 0)
        if not live.any():
            break
        step_a, step_b = step(a, b)
        step_a, step_b = np.where(live, step_a, a), np.where(live, step_b, b)  # a finished pair stays at (0, 0)
        path_a.append(a)
        path_b.append(b)
        before_a.append(step_a)
        before_b.append(step_b)
        a, b = step_a, step_b
    if not path_a:
        return [(0, 0, 0, 0)] * len(a)
    a, b, before_a, before_b = map(np.stack, (path_a, path_b, before_a, before_b))  # (step, pair)
    every = np.arange(a.shape[1])
    live = (a > 0) | (b > 0)
    inserted = live & (before_a == a)
    deleted = live & ~inserted & (before_b == b)
    diagonal = live & ~inserted & ~deleted
    ref_ids = ref_words.reshape(-1).take(every * ref_words.shape[1] + a)
    hyp_ids = hyp_words.reshape(-1).take(every * hyp_words.shape[1] + b)
    ref_null, hyp_null = null.take(ref_ids), null.take(hyp_ids)
    ref_optional, hyp_optional = optional.take(ref_ids), optional.take(hyp_ids)
    word_in = inserted & ~hyp_null
    word_out = deleted & ~ref_null
    matched = diagonal & ~(ref_null & hyp_null)
    same = matched & equal.reshape(-1).take((b * equal.shape[1] + a) * equal.shape[2] + every)
    correct = (word_in & hyp_optional).sum(0) + (word_out & ref_optional).sum(0) + same.sum(0)
    ins = (word_in & ~hyp_optional).sum(0)
    dele = (word_out & ~ref_optional).sum(0)
    sub = (matched & ~same).sum(0)
    return list(zip(sub.tolist(), dele.tolist(), ins.tolist(), (correct + sub + dele).tolist()))
