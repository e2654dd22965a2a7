"""`lightscore.text.sclite_batch`'s programme for references that are lines and costs in whole numbers, by columns.

When no reference of a chunk forks and no ``@`` is on either side (every cost
0, 2, 3 or 4), the table fills one hypothesis arc (column) at a time for every
pair and reference arc at once: a cell's insertion and substitution come from
the columns of its hypothesis predecessors, and its deletion chains down the
column, ``D[a] = min(X[a], D[a - 1] + gap[a])``, a running minimum once the
gaps' prefix sums are taken off (exact in integers). Only the costs are kept;
the walk back reads sclite's choice at each cell of the path from them
(`ColumnCosts.step`), as `lightscore.text.sclite_batch`'s pointers would
have stored it: substitution if no dearer than deletion and insertion, else
deletion if cheaper than insertion, else insertion, each from the first of
equally cheap predecessors.
"""

from __future__ import annotations

import numpy as np

__all__ = ["ColumnCosts"]


class ColumnCosts:
    """The cost table ``cells[hyp arc, pair, ref arc]`` of a chunk, and the choices read back from it.

    Args:
        pair: ``(pair, ref arc, hyp arc)`` substitution costs (int32).
        ref_gap: ``(pair, ref arc)`` deletion costs.
        hyp_gap: ``(pair, hyp arc)`` insertion costs.
        hyp_preds: ``(pair, hyp arc, fan-in)`` predecessor arcs, padded with the first.

    >>> pair = np.array([[[4, 4], [4, 0]]], dtype=np.int32)  # ref "x" against hyp "x"
    >>> gaps = np.array([[3, 3]], dtype=np.int32)
    >>> costs = ColumnCosts(pair, gaps, gaps, np.array([[[0], [0]]]))
    >>> costs.cells[:, 0].tolist(), costs.step(np.array([1]), np.array([1]))
    ([[0, 3], [3, 0]], (array([0]), array([0])))
    """

    def __init__(self, pair: np.ndarray, ref_gap: np.ndarray, hyp_gap: np.ndarray, hyp_preds: np.ndarray) -> None:
        count, rows, width = pair.shape
        self.pair, self.ref_gap, self.hyp_gap, self.hyp_preds = pair, ref_gap, hyp_gap, hyp_preds
        self.every = np.arange(count)
        steps = np.cumsum(ref_gap, axis=1, dtype=np.int32)
        steps -= ref_gap[:, :1]  # the head arc has no gap
        cells = self.cells = np.empty((width, count, rows), dtype=np.int32)
        cells[0] = steps
        by_column = np.ascontiguousarray(pair.transpose(2, 0, 1))
        joins = (hyp_preds != hyp_preds[:, :, :1]).any(axis=(0, 2))
        # A predecessor's column of every pair is a block of the flat table: taking whole blocks by
        # number is several times faster than fancy indexing on (column, pair).
        blocks = cells.reshape(width * count, rows)
        starts = hyp_preds * count + self.every[:, None, None]  # (pair, hyp arc, fan-in) -> block
        for b in range(1, width):
            least = blocks.take(starts[:, b, 0], axis=0)
            if joins[b]:  # a padded slot repeats the first: taking it again changes nothing
                for slot in range(1, starts.shape[2]):
                    np.minimum(least, blocks.take(starts[:, b, slot], axis=0), out=least)
            column = least + hyp_gap[:, b, None]  # insertion
            np.minimum(column[:, 1:], least[:, :-1] + by_column[b, :, 1:], out=column[:, 1:])  # or substitution
            column -= steps
            np.minimum.accumulate(column, axis=1, out=column)  # or deletion
            column += steps
            cells[b] = column

    def _cheapest(self, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per pair, the least cost in row ``a`` at the predecessors of hyp arc ``b``, and the first such arc."""
        preds = self.hyp_preds[self.every, b]  # (pair, fan-in)
        rows = self.cells.shape[2]
        costs = self.cells.reshape(-1).take((preds * len(self.every) + self.every[:, None]) * rows + a[:, None])
        at = np.argmin(costs, axis=1)
        return costs[self.every, at], preds[self.every, at]

    def step(self, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every pair's predecessor of cell ``(a, b)``, as sclite's back pointer has it."""
        every, above = self.every, np.maximum(a - 1, 0)
        ins_cost, ins_arc = self._cheapest(a, b)
        ins_cost = ins_cost + self.hyp_gap[every, b]
        sub_cost, sub_arc = self._cheapest(above, b)
        sub_cost = sub_cost + self.pair[every, a, b]
        del_cost = self.cells[b, every, above] + self.ref_gap[every, a]
        take_sub = (sub_cost <= del_cost) & (sub_cost <= ins_cost)
        take_del = ~take_sub & (del_cost < ins_cost)
        first_row, first_column = a == 0, b == 0
        before_a = np.where(first_row, 0, np.where(first_column | take_sub | take_del, above, a))
        before_b = np.where(
            first_column, 0, np.where(first_row, ins_arc, np.where(take_sub, sub_arc, np.where(take_del, b, ins_arc)))
        )
        return before_a, before_b
