"""Per-utterance values summed as integers: `FIXED_POINT` and `to_fixed`.

Every audio metric (signal, quality, separation) keeps its sums this way, so N
ranks or shards merged in any order give the single-run mean bit for bit. This
module imports nothing, so DNSMOS or PLCMOS never load the signal measures'
packages (torch, pysptk, pyworld) to keep a sum.
"""

from __future__ import annotations

__all__ = ["FIXED_POINT", "to_fixed"]

FIXED_POINT = 2**32
"""Per-utterance values are summed as ``round(value * FIXED_POINT)``: integer sums do not depend on order."""


def to_fixed(value: float) -> int:
    """``value`` as an integer count of 1 / `FIXED_POINT` (about 2.3e-10).

    Float addition depends on the order, integer addition does not: summed this
    way, shards merged in any order give exactly the single-run mean.

    Args:
        value: A finite float.

    Returns:
        ``round(value * FIXED_POINT)``.

    >>> to_fixed(0.5), to_fixed(-1.0) / FIXED_POINT
    (2147483648, -1.0)
    """
    return round(value * FIXED_POINT)
