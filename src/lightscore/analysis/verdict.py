"""The one wording of a paired test's outcome: its p-value as text, whether it is significant, and the verdict.

Every test of `lightscore.analysis.sc_stats`, `lightscore.analysis.mapsswe` and
`lightscore.analysis.bootstrap.paired_bootstrap` returns ``p``, ``better`` and
``reason``; `significant` decides and `verdict` says it, for one test or, with
``test`` and ``notes``, as the headline of ``lightscore compare``.

>>> verdict({"p": 0.0031, "better": "b"})
'B is better (p = 0.003 < 0.05)'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["p_text", "significant", "verdict"]


def p_text(p: float, digits: int = 3) -> str:
    """A p-value as printed everywhere: ``digits`` decimals, or two significant digits below 0.001.

    Args:
        p: The p-value.
        digits: Decimals above 0.001.

    Returns:
        e.g. ``"0.057"``, ``"0.0567"`` (``digits=4``) or ``"1.7e-04"``.

    >>> p_text(0.0567), p_text(0.0567, 4), p_text(1.7e-4), p_text(1.0)
    ('0.057', '0.0567', '1.7e-04', '1.000')
    """
    return f"{p:.{digits}f}" if p >= 0.001 else f"{p:.1e}"


def significant(result: Mapping[str, Any], level: float = 0.05, p_key: str = "p") -> bool:
    """Whether a test's result shows a difference at ``level``.

    Only when the test could be made (no ``reason``), ``p`` is below ``level``, one side
    has fewer errors, and, for a result with an interval (``ci``), the interval holds no 0.

    Args:
        result: A test's result (see the module docstring).
        level: The significance level.
        p_key: ``"p"`` (exact) or ``"p_sctk"`` (what sc_stats would decide).

    Returns:
        True when the difference is significant.

    >>> significant({"p": 0.01, "better": "b", "ci": (-1.0, 0.0)})
    False
    """
    if result.get("reason") or result["better"] not in ("a", "b") or not float(result[p_key]) < level:
        return False
    return not _holds_zero(result.get("ci", (-1.0, -1.0)))


def verdict(
    result: Mapping[str, Any],
    level: float = 0.05,
    names: tuple[str, str] = ("A", "B"),
    p_key: str = "p",
    test: str = "",
    notes: Sequence[str] = (),
) -> str:
    """One line saying whether a test found a difference at ``level``, and why not when it did not.

    Args:
        result: What `lightscore.analysis.mapsswe.mapsswe`, `lightscore.analysis.sc_stats.mcnemar`,
            ``sign_test``, ``wilcoxon_test`` or `lightscore.analysis.bootstrap.paired_bootstrap` returned.
        level: The significance level.
        names: How to call systems a and b.
        p_key: ``"p"`` (exact) or ``"p_sctk"`` (what sc_stats would decide).
        test: The test's name, shown before its p (a headline names it).
        notes: More to say inside the parentheses (``"MAPSSWE says B"``).

    Returns:
        e.g. ``"B is better (p = 0.003 < 0.05)"`` or ``"no significant difference (p = 0.109 >= 0.05)"``.

    >>> verdict({"p": 1.7e-4, "better": "a"}, names=("hyp_a", "hyp_b"))
    'hyp_a is better (p = 1.7e-04 < 0.05)'
    >>> verdict({"p": 0.002, "better": "b", "ci": (-0.03, 0.0)}, test="paired bootstrap")
    'no significant difference (paired bootstrap p = 0.002 < 0.05, but its interval [-0.03, +0.00] holds 0)'
    >>> verdict({"p": 1.0, "better": "b", "reason": "1 segment"}, test="MAPSSWE", notes=["no other test differs"])
    'no significant difference (MAPSSWE: 1 segment; no other test differs)'
    """
    p = float(result[p_key])
    shown = f"{test} p = {p_text(p)}" if test else f"p = {p_text(p)}"
    if result.get("reason"):
        why = f"{test}: {result['reason']}" if test else result["reason"]
    elif p >= level:
        why = f"{shown} >= {level:g}"
    elif result["better"] not in ("a", "b"):
        why = f"{shown} < {level:g}, but neither system has fewer errors"
    elif _holds_zero(result.get("ci", (-1.0, -1.0))):
        low, high = result["ci"]
        interval = "undefined" if low is None or high is None else f"[{low:+.2f}, {high:+.2f}]"
        why = f"{shown} < {level:g}, but its interval {interval} holds 0"
    else:
        winner = names[0] if result["better"] == "a" else names[1]
        return f"{winner} is better ({'; '.join([f'{shown} < {level:g}', *notes])})"
    return f"no significant difference ({'; '.join([why, *notes])})"


def _holds_zero(interval: Sequence[float | None]) -> bool:
    """Whether an interval holds 0; an undefined one (None bounds, as strict JSON stores them) counts as holding it."""
    low, high = interval
    return low is None or high is None or low <= 0 <= high
