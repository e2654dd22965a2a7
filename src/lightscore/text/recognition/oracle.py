"""Oracle WER's pick: of one utterance's n-best hypotheses, the first with the lowest alignment cost.

texterrors ``--oracle-wer`` sums, over the utterances, the least cost among each one's hypotheses (its
alignment's cost: the edit distance, or with ``--use-chardiff`` the character-aware path's cost, a fraction),
over the reference words. It does not say which hypothesis it took; here it is the first of the lowest, so a
hypothesis repeated lower in the list is never the one picked.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from lightscore.text.recognition.chardiff import path_cost

__all__ = ["Pick", "oracle_pick"]


class Pick(NamedTuple):
    """One utterance's pick: its 0-based rank, its cost, and the first hypothesis's cost (the 1-best's)."""

    rank: int
    cost: float
    first_cost: float


def oracle_pick(ref: Sequence[str], hyps: Sequence[Sequence[str]], chardiff: bool = False) -> Pick:
    """The 0-based rank of the first hypothesis of least cost, its cost, and the first hypothesis's cost.

    Args:
        ref: Reference words.
        hyps: The hypotheses' words, best-ranked first.
        chardiff: Character-aware costs (texterrors ``--use-chardiff``).

    Returns:
        A `Pick`.

    Raises:
        ValueError: ``hyps`` is empty.

    >>> oracle_pick("the cat sat".split(), ["the cat sad".split(), "the cat sat".split(), "the cat sat".split()])
    Pick(rank=1, cost=0.0, first_cost=1.0)
    >>> oracle_pick("ok now".split(), ["okay now".split(), "ok".split()], chardiff=True)
    Pick(rank=0, cost=0.75, first_cost=0.75)
    """
    if not hyps:
        raise ValueError("an n-best list needs one hypothesis at least")
    first_cost = path_cost(ref, hyps[0], chardiff)
    best_rank, best_cost = 0, first_cost
    for rank in range(1, len(hyps)):
        if best_cost == 0:
            break  # nothing is lower than a perfect hypothesis
        cost = path_cost(ref, hyps[rank], chardiff)
        if cost < best_cost:
            best_rank, best_cost = rank, cost
    return Pick(best_rank, best_cost, first_cost)
