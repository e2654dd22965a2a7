"""The one step every edit-distance row needs: closing a row under insertions, with a running minimum.

In a Levenshtein table a cell is ``row[c] = min(v[c], row[c - 1] + step[c])``, where ``v[c]`` is the best
of the cell's substitution and deletion (both read from the row above) and ``step[c]`` the cost of
inserting hypothesis word ``c``. The chain along the row looks sequential, but with ``steps`` the running
sum of the insertion costs it is ``min over k <= c of (v[k] - steps[k]) + steps[c]``: one
``np.minimum.accumulate``. Every family's aligner (sclite's tables, TER's beam, meetings' time-constrained
bands and stream assignment) closes its rows here. `close_row_plain` is the loop as written above, the
twin the property tests hold equal (tests/test_dp_rows.py).

>>> import numpy as np
>>> v = np.array([0, 5, 5, 1, 7])
>>> close_row(v, np.arange(5)).tolist()
[0, 1, 2, 1, 2]
>>> close_row_plain(v.tolist(), [1, 1, 1, 1])
[0, 1, 2, 1, 2]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["close_row", "close_row_plain"]


def close_row(v: np.ndarray, steps: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Close rows under insertions: ``row[..., c] = min(v[..., c], row[..., c - 1] + (steps[c] - steps[c - 1]))``.

    Plain twin: `close_row_plain`.

    Args:
        v: the rows before insertions (last axis: hypothesis positions); integer or float.
        steps: the running sum of insertion costs along the last axis (``steps[0]`` is any offset; only the
            differences matter), broadcastable to ``v``.
        out: where to write the rows (may be ``v`` itself).

    Returns:
        The closed rows (``out`` when given).

    >>> close_row(np.array([[3, 0, 9], [0, 9, 9]]), np.array([0, 2, 4])).tolist()
    [[3, 0, 2], [0, 2, 4]]
    """
    out = np.subtract(v, steps, out=out)
    np.minimum.accumulate(out, axis=-1, out=out)
    out += steps
    return out


def close_row_plain(v: Sequence[float], insert: Sequence[float]) -> list[float]:
    """`close_row` for one row, as the textbook loop: each cell may be reached from its left neighbour.

    Args:
        v: the row before insertions.
        insert: ``insert[c - 1]`` is the cost of reaching cell ``c`` from cell ``c - 1`` (``len(v) - 1`` costs).

    Returns:
        The closed row.

    >>> close_row_plain([3, 0, 9], [2, 2])
    [3, 0, 2]
    """
    row = list(v)
    for c in range(1, len(row)):
        row[c] = min(row[c], row[c - 1] + insert[c - 1])
    return row
