"""ORC-WER's search: the stream of each reference segment under the fewest total errors, one loop compiled by numba.

The search state is one cost per combination of positions in the hypothesis streams (stream 0
varies fastest, meeteval's layout). Reading a reference segment, every stream in turn runs the
segment's words along each line of the grid in that stream's direction (a Levenshtein row), and a
cell keeps the lowest cost, the first stream on a tie, and the cell it came from. Walking those
links back from the last cell names each segment's stream. The tie rules are meeteval's
``mimo_matching``, so the same assignment comes out:

- in a row, a matching word always takes the diagonal; otherwise the cell to the left wins a tie,
  then the one above, then the diagonal;
- across streams, the first stream keeps a tie;
- the first state (no reference word read) is built as meeteval builds it (`start_costs`), which
  after an empty stream exceeds the true insertion counts.

`search` is written as plain loops and compiled with numba (``@njit(cache=True)``, the
``meeting`` extra); ``search.py_func`` is the same code run by Python, its plain twin in the tests
(tests/test_meeting_twins.py, tests/test_meeting_orc.py). The cell-by-cell list version is
`lightscore.text.meeting.reference.orc_matching`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numba import njit

__all__ = [
    "MAX_CELLS",
    "flatten",
    "grid_strides",
    "list_positions",
    "orc_matching",
    "read_utterance",
    "search",
    "start_costs",
]

MAX_CELLS = 50_000_000
"""The largest search grid (product of the streams' lengths plus one) ORC-WER accepts."""


def flatten(lists: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
    """Integer lists as one array and the offsets of each list's start (and the end), for compiled code.

    >>> values, bounds = flatten([[1, 2], [], [3]])
    >>> values.tolist(), bounds.tolist()
    ([1, 2, 3], [0, 2, 2, 3])
    """
    bounds = np.zeros(len(lists) + 1, dtype=np.int64)
    bounds[1:] = np.cumsum([len(x) for x in lists])
    values = np.fromiter((v for x in lists for v in x), dtype=np.int64, count=int(bounds[-1]))
    return values, bounds


@njit(cache=True)
def list_positions(bounds: np.ndarray) -> np.ndarray:
    """The positions along each list given by its ``bounds`` (`flatten`'s): its length plus one.

    >>> list_positions(np.array([0, 2, 2, 3])).tolist()
    [3, 1, 2]
    """
    dims = np.empty(len(bounds) - 1, dtype=np.int64)
    for a in range(len(dims)):
        dims[a] = bounds[a + 1] - bounds[a] + 1
    return dims


@njit(cache=True)
def grid_strides(dims: np.ndarray) -> tuple[np.ndarray, int]:
    """The stride of each axis of a flat grid with ``dims`` positions per axis (axis 0 varying fastest), and
    its number of cells: the layout of every ORC, tcORC and MIMO search state.

    >>> strides, total = grid_strides(np.array([3, 1, 2]))
    >>> strides.tolist(), int(total)
    ([1, 3, 3], 6)
    """
    strides = np.empty(len(dims), dtype=np.int64)
    total = 1
    for a in range(len(dims)):
        strides[a] = total
        total *= dims[a]
    return strides, total


@njit(cache=True)
def start_costs(dims: np.ndarray) -> np.ndarray:
    """The search's first state, as meeteval builds it: each cell one more than the cell one stride below.

    The stride is that of the highest stream whose first cell has been reached; after an empty
    stream (two equal strides) the next stride is never reached, so the costs can exceed the true
    insertion counts. They are kept so that the search ties as meeteval's does.
    Plain twin: ``start_costs.py_func`` (and `lightscore.text.meeting.reference.orc_start_costs`).

    Args:
        dims: Each hypothesis stream's length plus one.

    Returns:
        The cost of every cell (stream 0 varying fastest).

    >>> start_costs(np.array([2, 3])).tolist()
    [0, 1, 1, 2, 2, 3]
    >>> start_costs(np.array([2, 1, 2])).tolist()  # the true counts are [0, 1, 1, 2]: the same here
    [0, 1, 1, 2]
    """
    strides, total = grid_strides(dims)
    cost = np.zeros(total, dtype=np.int64)
    level = 0
    for cell in range(1, total):
        if level + 1 < len(strides) and cell == strides[level + 1]:
            level += 1
        cost[cell] = cost[cell - strides[level]] + 1
    return cost


@njit(cache=True)
def read_utterance(
    row_cost: np.ndarray,
    row_origin: np.ndarray,
    words: np.ndarray,
    stream: np.ndarray,
) -> None:
    """Advance one Levenshtein row (``row_cost``, with each cell's origin) by ``words`` against ``stream``.

    The one row step of the ORC and MIMO searches, with meeteval's tie rules (a matching word takes the
    diagonal; else left, then up, then diagonal). Plain twin: ``read_utterance.py_func``.
    """
    dim = len(stream) + 1
    for word in words:
        diagonal_cost = row_cost[0]
        diagonal_origin = row_origin[0]
        row_cost[0] += 1
        left_cost = row_cost[0]
        left_origin = row_origin[0]
        for j in range(1, dim):
            up_cost = row_cost[j]
            up_origin = row_origin[j]
            if word == stream[j - 1]:
                left_cost = diagonal_cost
                left_origin = diagonal_origin
            else:
                if up_cost < left_cost:
                    left_cost = up_cost
                    left_origin = up_origin
                if diagonal_cost < left_cost:
                    left_cost = diagonal_cost
                    left_origin = diagonal_origin
                left_cost += 1
            row_cost[j] = left_cost
            row_origin[j] = left_origin
            diagonal_cost = up_cost
            diagonal_origin = up_origin


@njit(cache=True)
def search(
    words: np.ndarray, word_bounds: np.ndarray, hyp: np.ndarray, hyp_bounds: np.ndarray
) -> tuple[int, np.ndarray]:
    """The fewest errors and each utterance's stream: meeteval's ``mimo_matching`` with one reference stream.

    Plain twin: ``search.py_func`` (the same loops run by Python); also
    `lightscore.text.meeting.reference.orc_matching`.

    Args:
        words: The reference utterances' word ids, one after another.
        word_bounds: Where each utterance starts in ``words`` (and where the last ends).
        hyp: The hypothesis streams' word ids, one after another.
        hyp_bounds: Where each stream starts in ``hyp`` (and where the last ends); at least one stream.

    Returns:
        ``(errors, streams)``: the distance and the chosen stream of each utterance.

    >>> w, wb = flatten([[1], [2, 3], [4]]); h, hb = flatten([[1, 2], [3, 4]])
    >>> errors, chosen = search(w, wb, h, hb)
    >>> errors, chosen.tolist()
    (2, [0, 0, 1])
    """
    n_streams = len(hyp_bounds) - 1
    n_utterances = len(word_bounds) - 1
    dims = list_positions(hyp_bounds)
    strides, total = grid_strides(dims)
    cost = start_costs(dims)
    best = np.empty(total, dtype=np.int64)
    # Per utterance and cell: the cell it came from and its stream (the path back), in the narrowest
    # integers that hold them (cells < MAX_CELLS < 2**31; meeteval takes at most 10 streams).
    came_from = np.empty((n_utterances, total), dtype=np.int32)
    stream_of = np.empty((n_utterances, total), dtype=np.int8)
    row_cost = np.empty(dims.max(), dtype=np.int64)
    row_origin = np.empty(dims.max(), dtype=np.int64)
    for u in range(n_utterances):
        for a in range(n_streams):
            stride = strides[a]
            dim = dims[a]
            stream = hyp[hyp_bounds[a] : hyp_bounds[a + 1]]
            for block in range(0, total, stride * dim):
                for first in range(block, block + stride):
                    for j in range(dim):  # the grid line through `first` along stream a
                        row_cost[j] = cost[first + j * stride]
                        row_origin[j] = first + j * stride
                    read_utterance(row_cost, row_origin, words[word_bounds[u] : word_bounds[u + 1]], stream)
                    for j in range(dim):
                        cell = first + j * stride
                        if a == 0 or row_cost[j] < best[cell]:  # the first stream keeps a tie
                            best[cell] = row_cost[j]
                            came_from[u, cell] = row_origin[j]
                            stream_of[u, cell] = a
        cost, best = best, cost
    chosen = np.empty(n_utterances, dtype=np.int64)
    cell = total - 1
    for u in range(n_utterances - 1, -1, -1):
        chosen[u] = stream_of[u, cell]
        cell = came_from[u, cell]
    return cost[total - 1], chosen


def orc_matching(
    utterances: Sequence[Sequence[int]], streams: Sequence[Sequence[int]], compiled: bool = True
) -> tuple[int, list[int]]:
    """The fewest errors and the stream index of each utterance (in order): `search` on lists.

    Plain twin: ``compiled=False`` runs ``search.py_func``.

    Args:
        utterances: The reference segments' word ids, in order.
        streams: The hypothesis streams' word ids (at least one stream).
        compiled: False runs the same loops in Python (the plain twin).

    Returns:
        ``(errors, streams)``.

    Raises:
        ValueError: the grid is too large to search (more than `MAX_CELLS` cells), or more than 127 streams.

    >>> orc_matching([[1], [2, 3], [4]], [[1, 2], [3, 4]])
    (2, [0, 0, 1])
    >>> orc_matching([[1, 2], [3]], [[3], [1, 2]], compiled=False)
    (0, [1, 0])
    """
    dims = [len(s) + 1 for s in streams]
    total = math.prod(dims)
    if len(streams) > 127:  # the search keeps each cell's stream in one byte
        raise ValueError(f"ORC-WER takes at most 127 hypothesis streams, this session has {len(streams)}")
    if total > MAX_CELLS:
        raise ValueError(f"ORC-WER would search {total:,} states ({len(streams)} streams of {dims} positions)")
    run = search if compiled else search.py_func
    errors, chosen = run(*flatten(utterances), *flatten(streams))
    return int(errors), [int(c) for c in chosen]
