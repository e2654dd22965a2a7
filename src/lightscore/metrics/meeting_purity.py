"""Diarization purity and coverage (pyannote.metrics), summed over sessions as exact integer ticks.

Each row is a session, read as DER's are (`lightscore.metrics.meeting`). The
state is four sums of ticks (`lightscore.analysis.purity`), so any split of the
sessions over ranks or shards gives the same numbers, plus one record per
session for the per-session table. See docs/meetings.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from lightscore.analysis.purity import f_measure, purity_coverage_counts
from lightscore.core.contract import Field
from lightscore.metrics.meeting import DiarizationMetric
from lightscore.metrics.meeting_base import check_number
from lightscore.segments import Segment

__all__ = ["PurityCoverage"]


class PurityCoverage(DiarizationMetric):
    """Diarization purity, coverage and their F-measure, equal to pyannote.metrics' ``DiarizationPurity`` and
    ``DiarizationCoverage``.

    Purity: of each hypothesis speaker's time, the part its most frequent reference speaker fills;
    coverage: the same from each reference speaker's side (`lightscore.analysis.purity`). Both are
    summed over the sessions first (pyannote's ``abs(metric)``); an empty side scores 100, as in
    pyannote.

    Args:
        collar: Seconds, the total width centred on each reference boundary, not scored (pyannote's ``collar``).
        skip_overlap: True is ``overlap="skip"``.
        convention: Only ``"pyannote"`` (purity and coverage are pyannote's measures).
        uem: A UEM file; sessions it does not list are scored over the span of both sides.
        ticks_per_second: The integer time unit the sums are exact in (default microseconds).
        format: The meeting files' format when the suffix does not tell.
        overlap: ``"score"`` (default) or ``"skip"`` the time two reference speakers or more talk.
        beta: The F-measure's weight: above 1 favours coverage, below 1 purity (pyannote's ``beta``).

    Returns ``purity``, ``coverage``, ``purity_coverage_F`` (percent), their terms ``purity_correct``,
    ``purity_total``, ``coverage_correct``, ``coverage_total`` (seconds), ``purity_coverage_sessions``,
    and the turns merged into an overlapping turn of their own speaker per side.

    >>> from lightscore.core.batch import feed
    >>> from lightscore.segments import dumps
    >>> ref = dumps([Segment("A", 0, 10), Segment("B", 10, 20)])
    >>> hyp = dumps([Segment("x", 0, 15), Segment("y", 15, 20)])
    >>> m = PurityCoverage(); feed(m, {"ref": [ref], "hyp": [hyp]}, ["s1"]); r = m.compute()
    >>> r["purity"], r["coverage"], r["purity_coverage_F"]
    (75.0, 75.0, 75.0)
    >>> PurityCoverage(convention="md-eval")
    Traceback (most recent call last):
    ...
    ValueError: PurityCoverage: convention 'md-eval' is not pyannote (purity and coverage are pyannote's measures)
    """

    name: ClassVar[str] = "PurityCoverage"
    COUNTS: ClassVar[tuple[str, ...]] = ("purity_correct", "purity_total", "coverage_correct", "coverage_total")
    SUM_STATES = COUNTS
    outputs = (
        Field("purity", "number"),
        Field("coverage", "number"),
        Field("purity_coverage_F", "number"),
        *(Field(c, "number") for c in COUNTS),
        Field("purity_coverage_sessions", "number"),
        Field("purity_coverage_ref_self_overlaps", "number"),
        Field("purity_coverage_hyp_self_overlaps", "number"),
    )

    def __init__(
        self,
        collar: float = 0.0,
        skip_overlap: bool = False,
        convention: str = "pyannote",
        uem: str | None = None,
        ticks_per_second: int = 1_000_000,
        format: str | None = None,
        overlap: str | None = None,
        beta: float = 1.0,
    ) -> None:
        if convention != "pyannote":
            raise ValueError(
                f"{self.name}: convention {convention!r} is not pyannote (purity and coverage are pyannote's measures)"
            )
        self.beta = check_number(self.name, "beta", beta)
        super().__init__(collar, skip_overlap, convention, uem, ticks_per_second, format, overlap)

    def _counts(self, session: str, ref_segments: list[Segment], hyp_segments: list[Segment]):
        uem = None if self._uem is None else self._uem.get(session)
        return purity_coverage_counts(
            ref_segments,
            hyp_segments,
            uem=uem,
            collar=self.collar,
            overlap=self.overlap,
            ticks_per_second=self.ticks_per_second,
        )

    def update(self, *, ref: Sequence[Any], hyp: Sequence[Any]) -> None:
        """Add each session's purity and coverage terms (ticks).

        A session's record is ``[session, purity_correct, purity_total, coverage_correct,
        coverage_total, ref self-overlaps, hyp self-overlaps]`` (times in ticks).
        """
        for session, counts in self._scored(ref, hyp):
            for name in self.COUNTS:
                setattr(self, name, getattr(self, name) + getattr(counts, name))
            self.sessions += 1
            self.session_records.append([session, *counts])

    def compute(self) -> dict[str, float]:
        """Purity, coverage and F-measure in percent from the summed ticks (100 when a side never talks)."""
        purity = self.purity_correct / self.purity_total if self.purity_total else 1.0
        coverage = self.coverage_correct / self.coverage_total if self.coverage_total else 1.0
        result: dict[str, float] = {
            "purity": purity * 100,
            "coverage": coverage * 100,
            "purity_coverage_F": f_measure(purity, coverage, self.beta) * 100,
        }
        result.update({c: getattr(self, c) / self.ticks_per_second for c in self.COUNTS})
        result["purity_coverage_sessions"] = self.sessions
        result.update(self._self_overlaps("purity_coverage"))
        return result

    def settings(self) -> str:
        """One line naming what changes the number.

        >>> PurityCoverage(collar=0.5, overlap="skip").settings()
        'PurityCoverage collar=0.5 (total, centred) overlap=skip uem=none beta=1'
        """
        parts = [self.name, f"collar={self.collar:g} (total, centred)", f"overlap={self.overlap}"]
        return " ".join([*parts, f"uem={self.uem or 'none'}", f"beta={self.beta:g}"])
