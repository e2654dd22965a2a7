"""`lightscore.text.sclite.batch`'s programme for references that are lines and costs in whole numbers, by columns.

When no reference of a chunk forks and no ``@`` is on either side (every cost
0, 2, 3 or 4), the table fills one hypothesis arc (column) at a time for every
pair and reference arc at once: a cell's insertion and substitution come from
the columns of its hypothesis predecessors, and its deletion chains down the
column, ``D[a] = min(X[a], D[a - 1] + gap[a])``. Each row is kept less its
deletion prefix sum (``steps``, exact in integers), so that chain is a plain
running minimum, and a column is ``(ref arc, pair)``: four whole contiguous
array operations per column. Only the costs are kept; the walk back reads
sclite's choice at each cell of the path from them (`ColumnCosts.step`), as
`lightscore.text.sclite.batch`'s pointers would have stored it: substitution
if no dearer than deletion and insertion, else deletion if cheaper than
insertion, else insertion, each from the first of equally cheap predecessors.
Comparing the three in one row, the row's prefix sum cancels out.
"""

from __future__ import annotations

import numpy as np

__all__ = ["ColumnCosts"]


class ColumnCosts:
    """The cost table of a chunk, ``cells[hyp arc, ref arc, pair]`` less ``steps``, and the choices read back from it.

    Plain twin: `lightscore.text.sclite.reference.count_networks` (through `lightscore.text.sclite.batch`).

    Args:
        equal: ``(hyp arc, ref arc, pair)``: whether the words match (substitution 0, else 4).
        ref_gap: ``(ref arc, pair)`` deletion costs (int32).
        hyp_gap: ``(hyp arc, pair)`` insertion costs (int32).
        hyp_preds: ``(pair, hyp arc, fan-in)`` predecessor arcs, padded with the first.

    >>> equal = np.array([[[0], [0]], [[0], [1]]], dtype=bool)  # ref "x" against hyp "x"
    >>> gaps = np.array([[3], [3]], dtype=np.int32)
    >>> costs = ColumnCosts(equal, gaps, gaps, np.array([[[0], [0]]]))
    >>> costs.cost(np.array([[0], [1]]), np.array([[1], [1]])).tolist(), costs.step(np.array([1]), np.array([1]))
    ([[3], [0]], (array([0]), array([0])))
    """

    def __init__(self, equal: np.ndarray, ref_gap: np.ndarray, hyp_gap: np.ndarray, hyp_preds: np.ndarray) -> None:
        width, rows, count = equal.shape
        self.rows, self.count, self.every = rows, count, np.arange(count)
        steps = self.steps = np.cumsum(ref_gap, axis=0, dtype=np.int32)
        steps -= ref_gap[:1]  # the head arc has no gap
        # A substitution into row a from row a - 1, less the deletion a's step adds.
        self.sub = sub = equal.astype(np.int32)  # cheaper than np.where: a cast and two whole-array steps
        sub *= -4
        sub += 4 - ref_gap
        self.hyp_gap = hyp_gap
        self.preds = np.ascontiguousarray(hyp_preds.transpose(2, 1, 0))  # (fan-in, hyp arc, pair)
        cells = self.cells = np.empty((width, rows, count), dtype=np.int32)
        cells[0] = 0
        spare = np.empty((rows - 1, count), dtype=np.int32)
        for b, least in enumerate(self._predecessors(), 1):
            column = cells[b]
            np.add(least, hyp_gap[b], out=column)  # insertion
            np.add(least[:-1], sub[b, 1:], out=spare)
            np.minimum(column[1:], spare, out=column[1:])  # or substitution
            # Or deletion: row by row, as ``minimum.accumulate`` down axis 0 steps along it pair by pair.
            below = column[0]
            for row in column[1:]:
                below = np.minimum(row, below, out=row)

    def _predecessors(self):  # noqa: ANN202 (a generator of arrays)
        """Per hyp arc from 1 on, the least of its predecessors' columns, once those are filled.

        Most arcs follow the arc before in every pair: its column as it is. Only the pairs where an
        arc jumps or joins gather other columns' cells (`_gathers`).
        """
        cells = self.cells
        flat = cells.reshape(-1)
        gathers = self._gathers()
        for b in range(1, len(cells)):
            least = cells[b - 1]
            for slot, (source, into, cut) in enumerate(gathers):
                start, stop = cut[b], cut[b + 1]
                if start == stop:
                    continue
                if least.base is cells:  # still the column before itself: the first gather copies it
                    least = least.copy()
                line, at = least.reshape(-1), into[start:stop]
                taken = flat.take(source[start:stop], mode="clip")
                line[at] = taken if slot == 0 else np.minimum(taken, line.take(at, mode="clip"), out=taken)
            yield least

    def _gathers(self) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Per predecessor slot, ``(source cells, target cells, cuts)``: the flat cells to take, where they go in the
        column being filled, and where each hyp arc's share begins (``cuts[b]:cuts[b + 1]``).

        The first slot replaces the column before where the arc before is no predecessor; every other
        gather joins the least. Which predecessor comes first does not change the least, so the arc
        before, when one of them, is never gathered, nor a padded slot (it repeats the first).
        """
        cells, preds = self.cells, self.preds
        width, rows, count = cells.shape
        down = np.arange(rows) * count
        before = (np.arange(width) - 1)[:, None]
        follows = (preds == before).any(axis=0)  # (hyp arc, pair): the arc before is a predecessor
        first = preds[0] != before
        groups = [first & ~follows, first & follows]
        groups += [(slot != before) & (slot != preds[0]) for slot in preds[1:]]
        gathers = []
        for group, arcs in zip(groups, [preds[0], *preds]):
            b, pair = np.nonzero(group)
            into = down + pair[:, None]  # (gather, ref arc): the cells of the pair's column
            source = arcs[b, pair][:, None] * (rows * count) + into
            gathers.append((source, into, np.searchsorted(b, np.arange(width + 1))))
        return gathers

    def cost(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """The cost of cell ``(a[k, ...], b[k, ...])`` of pair ``k``."""
        at = (b * self.rows + a) * self.count + self.every.reshape(-1, *[1] * (a.ndim - 1))
        return self.cells.reshape(-1).take(at) + self.steps.reshape(-1).take(a * self.count + at % self.count)

    def _cheapest(self, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per pair, the least stored cost in row ``a`` at the predecessors of hyp arc ``b``, and the first such arc."""
        arcs = self.preds.reshape(len(self.preds), -1).take(b * self.count + self.every, axis=1)  # (fan-in, pair)
        rows, count, flat = self.rows, self.count, self.cells.reshape(-1)
        least, arc = flat.take((arcs[0] * rows + a) * count + self.every), arcs[0]
        for slot in arcs[1:]:
            costs = flat.take((slot * rows + a) * count + self.every)
            cheaper = costs < least  # a padded slot repeats the first: never cheaper
            arc = np.where(cheaper, slot, arc)
            np.minimum(least, costs, out=least)
        return least, arc

    def step(self, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every pair's predecessor of cell ``(a, b)``, as sclite's back pointer has it."""
        above = np.maximum(a - 1, 0)
        ins_cost, ins_arc = self._cheapest(a, b)
        ins_cost += self.hyp_gap.reshape(-1).take(b * self.count + self.every)
        sub_cost, sub_arc = self._cheapest(above, b)
        at = (b * self.rows + a) * self.count + self.every
        sub_cost += self.sub.reshape(-1).take(at)
        del_cost = self.cells.reshape(-1).take(np.where(a > 0, at - self.count, at))
        # In row a every cost above is less the same step: comparing them is comparing the costs.
        inside = a > 0
        take_sub = (sub_cost <= del_cost) & (sub_cost <= ins_cost) & inside
        take_del = ~take_sub & (del_cost < ins_cost) & inside
        # In the first column every predecessor arc is 0: the deletion's.
        before_a = np.where(take_sub | take_del | (b == 0), above, a)
        before_b = np.where(take_sub, sub_arc, np.where(take_del, b, ins_arc))
        return before_a, before_b
