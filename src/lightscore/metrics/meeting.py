"""Meeting metrics: DER / JER (md-eval's or pyannote's) here; cpWER, ORC-WER, tcpWER (meeteval's) re-exported.

Each row is a session: ``ref`` and ``hyp`` hold its segments as a list (what a
Lightning ``validation_step`` returns), as a meeting file (STM, CTM, SegLST
JSON, RTTM) that contains it, as one line of SegLST JSON
(`lightscore.segments.dumps`), or ``""`` for an empty session; the row's id
is the session id (`lightscore.metrics.meeting_base`). The state is
integer counts per session summed ("sum"), so any split of the sessions over
ranks or shards gives the same numbers, plus one record per session ("cat")
for the per-session tables. See docs/meetings.md.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import ClassVar

from lightscore.analysis.diarization import CONVENTIONS, diarization_counts, overlap_choice
from lightscore.core.batch import RowError
from lightscore.core.contract import Field
from lightscore.metrics.meeting_base import MeetingMetric, check_number
from lightscore.metrics.meeting_wer import CPWER, ORCWER, TCPWER
from lightscore.segments import Segment, SegmentError, read_uem

__all__ = ["CPWER", "DER", "JER", "ORCWER", "TCPWER", "DiarizationMetric", "MeetingMetric"]


class DiarizationMetric(MeetingMetric):
    """DER, JER and PurityCoverage's options: the convention, collar, overlap (or skip_overlap), UEM, the time unit.

    Subclasses say what a session adds (`_counts`, ``update``) and name their integer sums
    (``SUM_STATES``). Each counts the turns merged into an overlapping turn of the same speaker, per
    side (``ref_self_overlaps``, ``hyp_self_overlaps``).
    """

    SUM_STATES: ClassVar[tuple[str, ...]] = ()

    def __init__(
        self,
        collar: float = 0.0,
        skip_overlap: bool = False,
        convention: str = "md-eval",
        uem: str | None = None,
        ticks_per_second: int = 1_000_000,
        format: str | None = None,
        overlap: str | None = None,
    ) -> None:
        if convention not in CONVENTIONS:
            raise ValueError(f"{self.name}: convention {convention!r} is not one of {', '.join(CONVENTIONS)}")
        if not isinstance(skip_overlap, bool):
            raise ValueError(f"{self.name}: skip_overlap must be a bool, got {skip_overlap!r}")
        try:
            self.overlap = overlap_choice(overlap, skip_overlap)
        except ValueError as e:
            raise ValueError(f"{self.name}: {e}") from None
        for count in (*self.SUM_STATES, "ref_self_overlaps", "hyp_self_overlaps"):
            self.add_state(count, 0, "sum")
        if isinstance(ticks_per_second, bool) or not isinstance(ticks_per_second, int) or ticks_per_second < 1:
            raise ValueError(f"{self.name}: ticks_per_second must be an int >= 1, got {ticks_per_second!r}")
        self.collar = check_number(self.name, "collar", collar)
        self.skip_overlap = self.overlap == "skip"
        self.convention = convention
        self.ticks_per_second = ticks_per_second
        self.uem = None if uem is None else str(uem)
        try:
            self._uem = None if uem is None else read_uem(uem)
        except (OSError, SegmentError) as e:
            raise ValueError(f"{self.name}: uem: {e}") from None
        super().__init__(format)

    def _counts(self, session: str, ref_segments: list[Segment], hyp_segments: list[Segment]):
        uem = None if self._uem is None else self._uem.get(session)
        return diarization_counts(
            ref_segments,
            hyp_segments,
            uem=uem,
            collar=self.collar,
            overlap=self.overlap,
            convention=self.convention,
            ticks_per_second=self.ticks_per_second,
        )

    def _scored(self, ref, hyp):
        for row, session, ref_segments, hyp_segments in self._sessions(ref, hyp):
            try:
                counts = self._counts(session, ref_segments, hyp_segments)
            except ValueError as e:
                raise RowError(row, f"{self.name}: session {session!r}: {e}") from None
            self.ref_self_overlaps += counts.ref_self_overlaps
            self.hyp_self_overlaps += counts.hyp_self_overlaps
            yield session, counts

    def _self_overlaps(self, prefix: str) -> dict[str, int]:
        return {
            f"{prefix}_ref_self_overlaps": self.ref_self_overlaps,
            f"{prefix}_hyp_self_overlaps": self.hyp_self_overlaps,
        }

    def settings(self) -> str:
        """One line naming what changes the number.

        >>> DER(collar=0.25).settings()
        'DER convention=md-eval collar=0.25 (each side) overlap=score uem=none'
        >>> JER(collar=0.5, convention="pyannote", overlap="skip").settings()
        'JER convention=pyannote collar=0.5 (total, centred) overlap=skip uem=none'
        """
        side = "each side" if self.convention == "md-eval" else "total, centred"
        parts = [self.name, f"convention={self.convention}", f"collar={self.collar:g} ({side})"]
        return " ".join([*parts, f"overlap={self.overlap}", f"uem={self.uem or 'none'}"])


class DER(DiarizationMetric):
    """Diarization error rate, equal to md-eval (default) or to pyannote.metrics (``convention="pyannote"``).

    Args:
        collar: Seconds not scored around each reference boundary: on each side with md-eval's
            convention (``md-eval -c``), the total width with pyannote's (``collar=``).
        skip_overlap: True is ``overlap="skip"`` (kept for older configs).
        convention: ``"md-eval"`` or ``"pyannote"``: the default UEM, the collar's meaning, where
            the speaker mapping is computed and what overlap is (`lightscore.analysis.diarization`).
        uem: A UEM file; sessions it does not list use the convention's default region.
        ticks_per_second: The integer time unit the sums are exact in (default microseconds).
        format: The meeting files' format when the suffix does not tell.
        overlap: ``"score"`` the time where reference speakers overlap (both tools' default) or
            ``"skip"`` it (``md-eval -1``, pyannote's ``skip_overlap=True``); None follows ``skip_overlap``.

    Returns ``DER`` (percent) and ``DER_missed``, ``DER_falarm``, ``DER_confusion``, ``DER_scored``
    (scored speaker time) in seconds, ``DER_sessions``, and ``DER_ref_self_overlaps``,
    ``DER_hyp_self_overlaps``: the turns merged into an overlapping turn of their own speaker.

    >>> from lightscore.core.batch import feed
    >>> from lightscore.segments import dumps
    >>> ref = dumps([Segment("A", 0, 10), Segment("B", 10, 20)])
    >>> hyp = dumps([Segment("x", 0, 12), Segment("y", 12, 20)])
    >>> m = DER(); feed(m, {"ref": [ref], "hyp": [hyp]}, ["s1"]); m.compute()["DER"]
    10.0
    >>> DER(convention="nist")
    Traceback (most recent call last):
    ...
    ValueError: DER: convention 'nist' is not one of md-eval, pyannote
    """

    name: ClassVar[str] = "DER"
    COUNTS: ClassVar[tuple[str, ...]] = ("scored", "missed", "falarm", "confusion")
    SUM_STATES = COUNTS
    outputs = (
        Field("DER", "number"),
        *(Field(f"DER_{c}", "number") for c in COUNTS),
        Field("DER_sessions", "number"),
        Field("DER_ref_self_overlaps", "number"),
        Field("DER_hyp_self_overlaps", "number"),
    )

    def update(self, *, ref: Sequence[str], hyp: Sequence[str]) -> None:
        """Add each session's missed, false-alarm and confusion time (ticks) under its optimal mapping.

        A session's record is ``[session, scored, missed, falarm, confusion, ref self-overlaps, hyp
        self-overlaps, mapping]`` (times in ticks).
        """
        for session, counts in self._scored(ref, hyp):
            for name in self.COUNTS:
                setattr(self, name, getattr(self, name) + getattr(counts, name))
            self.sessions += 1
            mapping = [list(pair) for pair in counts.mapping]
            merged = [counts.ref_self_overlaps, counts.hyp_self_overlaps]
            self.session_records.append([session, *(getattr(counts, c) for c in self.COUNTS), *merged, mapping])

    def compute(self) -> dict[str, float]:
        """DER = (missed + false alarm + confusion) / scored speaker time * 100; times in seconds.

        Raises:
            ValueError: no reference speech was scored.
        """
        if self.scored == 0:
            raise ValueError(f"{self.name}: no reference speech in the scored region, so there is nothing to score")
        result: dict[str, float] = {"DER": (self.missed + self.falarm + self.confusion) / self.scored * 100}
        result.update({f"DER_{c}": getattr(self, c) / self.ticks_per_second for c in self.COUNTS})
        result["DER_sessions"] = self.sessions
        result.update(self._self_overlaps("DER"))
        return result


class JER(DiarizationMetric):
    """Jaccard error rate (DIHARD II), equal to pyannote.metrics' ``JaccardErrorRate`` with its convention.

    Per reference speaker: (false alarm + miss) / union of its time and its mapped hypothesis
    speaker's time in the scored region (1 when unmapped); ``JER`` is the mean over the reference
    speakers of all sessions, in percent. The options are DER's.

    >>> from lightscore.core.batch import feed
    >>> from lightscore.segments import dumps
    >>> ref = dumps([Segment("A", 0, 10), Segment("B", 10, 20)])
    >>> hyp = dumps([Segment("x", 0, 12), Segment("y", 12, 20)])
    >>> m = JER(convention="pyannote"); feed(m, {"ref": [ref], "hyp": [hyp]}, ["s1"]); round(m.compute()["JER"], 4)
    18.3333
    """

    name: ClassVar[str] = "JER"
    SUM_STATES = ("speakers",)
    outputs = (
        Field("JER", "number"),
        Field("JER_speakers", "number"),
        Field("JER_sessions", "number"),
        Field("JER_ref_self_overlaps", "number"),
        Field("JER_hyp_self_overlaps", "number"),
    )

    def update(self, *, ref: Sequence[str], hyp: Sequence[str]) -> None:
        """Add each reference speaker's ``(error, union)`` in ticks (a "cat" record per session)."""
        for session, counts in self._scored(ref, hyp):
            self.speakers += len(counts.jer_speakers)
            self.sessions += 1
            self.session_records.append([session, [list(term) for term in counts.jer_speakers]])

    def compute(self) -> dict[str, float]:
        """The mean speaker JER in percent; fsum of exact integer ratios, so any rank order gives the same float.

        Raises:
            ValueError: no reference speaker talks in the scored region.
        """
        if self.speakers == 0:
            raise ValueError(
                f"{self.name}: no reference speaker talks in the scored region, so there is nothing to score"
            )
        ratios = [error / union for _, terms in self.session_records for _, error, union in terms]
        return {
            "JER": math.fsum(ratios) / self.speakers * 100,
            "JER_speakers": self.speakers,
            "JER_sessions": self.sessions,
            **self._self_overlaps("JER"),
        }
