"""Multi-speaker word error rates, equal to meeteval's: cpWER, ORC-WER and tcpWER, one session per row.

The state is each session's integer counts after its assignment, summed
("sum"), so any split of the sessions over ranks or shards gives the same
numbers, plus one record per session ("cat") with its counts and assignment
(`session_results`). The pure computations are `lightscore.text.meeting.assignment`
and `lightscore.text.meeting.time_constrained`. See docs/meetings.md.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from lightscore._extras import require
from lightscore.core.batch import RowError
from lightscore.core.contract import Field
from lightscore.metrics.meeting_base import MeetingMetric, check_number
from lightscore.segments import SegmentError, as_segments, read_uem
from lightscore.text.meeting.assignment import cp_counts, orc_counts
from lightscore.text.meeting.time_constrained import PSEUDO_WORD_TIMINGS, check_sort, tcp_counts
from lightscore.text.meeting.uem import in_regions

__all__ = ["CPWER", "ORCWER", "TCPWER"]

SPEAKER_COUNTS = (
    "errors",
    "length",
    "substitutions",
    "deletions",
    "insertions",
    "missed_speaker",
    "falarm_speaker",
    "scored_speaker",
)


def _outputs(prefix: str, counts: Sequence[str]) -> tuple[Field, ...]:
    return (
        Field(prefix, "number"),
        *(Field(f"{prefix}_{c}", "number") for c in counts),
        Field(f"{prefix}_sessions", "number"),
    )


class _WordErrors(MeetingMetric):
    """A word error rate over sessions: ``COUNTS`` summed, one record per session with its assignment.

    Args:
        format: The meeting files' format when their suffix does not tell.
        report_html: With an output dir (``measure()``), also write ``<name>_report.html``: per
            session, the speakers' streams side by side with errors marked (`write_artifacts`).
        uem: A UEM file (meeteval's ``uem=``): a listed session keeps only the segments that touch its
            scoring region (`lightscore.text.meeting.uem.in_regions`); other sessions are scored whole.
    """

    COUNTS: ClassVar[tuple[str, ...]] = SPEAKER_COUNTS

    def __init__(self, format: str | None = None, report_html: bool = False, uem: str | None = None) -> None:
        require(type(self).__name__, "meeting")
        for count in self.COUNTS:
            self.add_state(count, 0, "sum")
        self.report_html = bool(report_html)
        self.uem = None if uem is None else str(uem)
        try:
            self._uem = None if uem is None else read_uem(uem)
        except (OSError, SegmentError) as e:
            raise ValueError(f"{self.name}: uem: {e}") from None
        super().__init__(format)

    def _in_uem(self, session: str, segments: list) -> list:
        """The session's segments that touch its UEM region (all of them without a UEM or when it is not listed)."""
        return segments if self._uem is None else in_regions(segments, self._uem.get(session))

    def _uem_setting(self) -> str:
        """`settings`' words for the UEM: nothing without one."""
        return "" if self.uem is None else f" uem={self.uem}"

    def _counts(self, ref_segments: list, hyp_segments: list) -> Any:
        raise NotImplementedError

    def update(self, *, ref: Sequence[Any], hyp: Sequence[Any]) -> None:
        """Add each session's counts after its assignment.

        Raises:
            ValueError: a malformed batch; a bad session is named (`lightscore.core.batch.RowError`).
        """
        for row, session, ref_segments, hyp_segments in self._sessions(ref, hyp):
            try:
                counts = self._counts(self._in_uem(session, ref_segments), self._in_uem(session, hyp_segments))
            except ValueError as e:
                raise RowError(row, f"{self.name}: session {session!r}: {e}") from None
            for name in self.COUNTS:
                setattr(self, name, getattr(self, name) + getattr(counts, name))
            self.sessions += 1
            assignment = [list(a) if isinstance(a, tuple) else a for a in counts.assignment]
            self.session_records.append([session, *(getattr(counts, c) for c in self.COUNTS), assignment])

    def write_artifacts(self, test_dir: Path) -> None:
        """With ``report_html``: ``<name>_report.html``, each session's speakers side by side, errors marked.

        The sessions are re-read from ``self.artifact_inputs`` (set by the runner); the numbers are
        the merged state's records (`session_results`). The page is `lightscore.report.sessions`'.

        Args:
            test_dir: The test set's output folder, already created.
        """
        if not self.report_html:
            return
        segments = {
            session: (
                self._in_uem(session, as_segments(row["ref"], session, self.format, "ref")),
                self._in_uem(session, as_segments(row["hyp"], session, self.format, "hyp")),
            )
            for session, row in self.iter_inputs(self.artifact_inputs, "ref", "hyp")
        }
        views = []
        for record in self.session_results():
            ref, hyp = segments[record[0]]
            shown, hyp = self._shown(record[-1], ref, hyp)
            views.append((record[0], {**dict(zip(self.COUNTS, record[1:-1])), **shown}, ref, hyp))
        hyp = (self.artifact_inputs or {}).get("hyp")
        system = Path(hyp).name if isinstance(hyp, (str, os.PathLike)) else "hyp"
        self.write_page(
            test_dir / f"{self.name.lower()}_report.html",
            [(system, self.compute(), views)],
            view="sessions",
            title=f"{self.name} report",
            metric=self.name,
            details={"settings": self.settings()},
        )

    def _shown(self, assignment: Any, ref: list, hyp: list) -> tuple[dict[str, Any], list]:
        """The record's keys the session view reads besides the counts (``assignment``, optionally ``order``:
        `lightscore.report.sessions.SessionView`) and the hypothesis segments to show; a metric whose
        assignment has another shape converts it here."""
        return {"assignment": assignment}, hyp

    def compute(self) -> dict[str, float]:
        """The corpus rate (percent: errors / reference words * 100) and its counts, from the summed state.

        Raises:
            ValueError: the references hold no words.
        """
        if self.length == 0:
            raise ValueError(f"{self.name}: the references hold no words, so there is nothing to score")
        result: dict[str, float] = {self.name: self.errors / self.length * 100}
        result.update({f"{self.name}_{c}": getattr(self, c) for c in self.COUNTS})
        result[f"{self.name}_sessions"] = self.sessions
        return result


class CPWER(_WordErrors):
    """Concatenated minimum-permutation WER, equal to meeteval's ``cpwer`` per session and for the corpus.

    Returns ``cpWER`` (percent) with its counts: errors, length (reference words), substitutions,
    deletions, insertions, missed, false-alarm and scored speakers, sessions. `session_results`
    gives each session's counts and speaker assignment.

    >>> from lightscore.core.batch import feed
    >>> from lightscore.segments import Segment
    >>> ref = [Segment("A", 0, 1, "hello world"), Segment("B", 1, 2, "good morning")]
    >>> hyp = [Segment("spk1", 0, 1, "good morning"), Segment("spk2", 0, 1, "hello word")]
    >>> m = CPWER(); feed(m, {"ref": [ref], "hyp": [hyp]}, ["s1"]); r = m.compute()
    >>> r["cpWER"], r["cpWER_errors"], r["cpWER_length"]
    (25.0, 1, 4)
    >>> m.session_results()[0][-1]
    [['A', 'spk2'], ['B', 'spk1']]
    """

    name: ClassVar[str] = "cpWER"
    outputs = _outputs("cpWER", SPEAKER_COUNTS)

    def _counts(self, ref_segments: list, hyp_segments: list) -> Any:
        return cp_counts(ref_segments, hyp_segments)

    def settings(self) -> str:
        """One line naming what changes the number.

        >>> CPWER().settings()
        'cpWER meeteval-compatible (segments sorted by start, kaldi S/D/I breakdown)'
        """
        return "cpWER meeteval-compatible (segments sorted by start, kaldi S/D/I breakdown)" + self._uem_setting()


class ORCWER(_WordErrors):
    """Optimal reference combination WER, equal to meeteval's ``orcwer`` per session and for the corpus.

    Each reference segment goes to the hypothesis stream (speaker) that makes the fewest errors
    overall (`lightscore.text.meeting.assignment.orc_counts`). Returns ``orcWER`` (percent) with errors,
    length, substitutions, deletions, insertions and sessions; `session_results` lists each
    session's counts and the stream of each reference segment, in the session's input order.

    >>> from lightscore.core.batch import feed
    >>> from lightscore.segments import Segment
    >>> ref = [Segment("A", 0, 1, "a"), Segment("A", 1, 2, "c d"), Segment("B", 2, 3, "e")]
    >>> hyp = [Segment("x", 0, 2, "a c"), Segment("y", 1, 3, "d e")]
    >>> m = ORCWER(); feed(m, {"ref": [ref], "hyp": [hyp]}, ["s1"]); m.compute()["orcWER"]
    50.0
    >>> m.session_results()[0][-1]
    ['x', 'x', 'y']
    """

    name: ClassVar[str] = "orcWER"
    COUNTS: ClassVar[tuple[str, ...]] = SPEAKER_COUNTS[:5]
    outputs = _outputs("orcWER", SPEAKER_COUNTS[:5])

    def _counts(self, ref_segments: list, hyp_segments: list) -> Any:
        return orc_counts(ref_segments, hyp_segments)

    def settings(self) -> str:
        """One line naming what changes the number.

        >>> ORCWER().settings()
        'orcWER meeteval-compatible (segments sorted by start, kaldi S/D/I breakdown)'
        """
        return "orcWER meeteval-compatible (segments sorted by start, kaldi S/D/I breakdown)"


class _TimeConstrained(_WordErrors):
    """The time-constrained WERs' options, checked and shown in one place: tcpWER, tcORC-WER, DI-tcpWER.

    The collar, meeteval's pseudo-word timings and its sorts (`lightscore.text.meeting.time_constrained`);
    ``WORD_SORT`` names the sides on which meeteval allows the ``"word"`` sort for that metric. `_options`
    gives them in the argument order of the text layer's ``*_counts`` functions.
    """

    WORD_SORT: ClassVar[tuple[str, ...]] = ("reference_sort", "hypothesis_sort")

    def __init__(
        self,
        collar: float,
        reference_pseudo_word_level_timing: str = "character_based",
        hypothesis_pseudo_word_level_timing: str = "character_based_points",
        format: str | None = None,
        report_html: bool = False,
        reference_sort: str | bool = "segment",
        hypothesis_sort: str | bool = "segment",
        uem: str | None = None,
    ) -> None:
        self.collar = check_number(self.name, "collar", collar)
        try:
            self.reference_sort = check_sort("reference_sort", reference_sort)
            self.hypothesis_sort = check_sort("hypothesis_sort", hypothesis_sort)
        except ValueError as e:
            raise ValueError(f"{self.name}: {e}") from None
        for option in ("reference_sort", "hypothesis_sort"):
            if getattr(self, option) == "word" and option not in self.WORD_SORT:
                raise ValueError(f"{self.name}: {option} 'word' is not supported (meeteval's): segments stay whole")
        for option, value in (
            ("reference_pseudo_word_level_timing", reference_pseudo_word_level_timing),
            ("hypothesis_pseudo_word_level_timing", hypothesis_pseudo_word_level_timing),
        ):
            if value not in PSEUDO_WORD_TIMINGS:
                raise ValueError(f"{self.name}: {option} {value!r} is not one of {', '.join(PSEUDO_WORD_TIMINGS)}")
        self.reference_pseudo_word_level_timing = reference_pseudo_word_level_timing
        self.hypothesis_pseudo_word_level_timing = hypothesis_pseudo_word_level_timing
        super().__init__(format, report_html, uem)

    def _options(self) -> tuple[float, str, str, str | bool, str | bool]:
        """The collar, timings and sorts, in the argument order of `tcp_counts` and its siblings."""
        return (
            self.collar,
            self.reference_pseudo_word_level_timing,
            self.hypothesis_pseudo_word_level_timing,
            self.reference_sort,
            self.hypothesis_sort,
        )

    def settings(self) -> str:
        """One line naming what changes the number.

        >>> TCPWER(collar=5).settings()
        'tcpWER collar=5 reference_pseudo_word_level_timing=character_based \
hypothesis_pseudo_word_level_timing=character_based_points (meeteval-compatible)'
        """
        sorts = ""
        if (self.reference_sort, self.hypothesis_sort) != ("segment", "segment"):
            sorts = f" reference_sort={self.reference_sort} hypothesis_sort={self.hypothesis_sort}"
        return (
            f"{self.name} collar={self.collar:g} reference_pseudo_word_level_timing="
            f"{self.reference_pseudo_word_level_timing} hypothesis_pseudo_word_level_timing="
            f"{self.hypothesis_pseudo_word_level_timing}{sorts}{self._uem_setting()} (meeteval-compatible)"
        )


class TCPWER(_TimeConstrained):
    """Time-constrained cpWER, equal to meeteval's ``tcpwer`` (same option names and defaults).

    Args:
        collar: Seconds a hypothesis word may stray from the reference word it pairs with (required,
            as in meeteval; 5 is the CHiME-8 choice).
        reference_pseudo_word_level_timing: How a reference segment's time is split among its words
            (one of `lightscore.text.meeting.time_constrained.PSEUDO_WORD_TIMINGS`).
        hypothesis_pseudo_word_level_timing: The same for the hypothesis (points at the centres).
        format: The meeting files' format when the suffix does not tell.
        report_html: With an output dir, also write ``tcpwer_report.html`` (`_WordErrors.write_artifacts`).
        reference_sort: How the reference's words are ordered, meeteval's option: ``"segment"`` (default:
            segments by start time), ``"word"`` (every word by its start time), True (by segment, refusing
            word times that run backwards) or False (the input order)
            (`lightscore.text.meeting.time_constrained.SORTS`).
        hypothesis_sort: The same for the hypothesis.
        uem: A UEM file: the scoring region of the sessions it lists (`_WordErrors`).

    Returns ``tcpWER`` (percent) with cpWER's counts.

    >>> from lightscore.core.batch import feed
    >>> from lightscore.segments import Segment
    >>> ref = [Segment("A", 0, 2, "hello world")]
    >>> hyp = [Segment("x", 4, 6, "hello world")]
    >>> m = TCPWER(collar=1); feed(m, {"ref": [ref], "hyp": [hyp]}, ["s1"]); m.compute()["tcpWER"]
    200.0
    >>> TCPWER(collar=1, hypothesis_pseudo_word_level_timing="points")
    Traceback (most recent call last):
    ...
    ValueError: tcpWER: hypothesis_pseudo_word_level_timing 'points' is not one of character_based, \
character_based_points, equidistant_intervals, equidistant_points, full_segment, none
    """

    name: ClassVar[str] = "tcpWER"
    outputs = _outputs("tcpWER", SPEAKER_COUNTS)

    def _counts(self, ref_segments: list, hyp_segments: list) -> Any:
        return tcp_counts(ref_segments, hyp_segments, *self._options())
