"""Diarization-invariant cpWER and tcpWER, equal to meeteval's ``greedy_dicpwer`` and ``greedy_ditcpwer``.

The state is each session's integer counts summed ("sum") plus one record per session
("cat") with its counts and assignment, as cpWER's (`lightscore.metrics.meeting_wer`), so
any split of the sessions over ranks or shards gives the same numbers. The computations are
`lightscore.text.meeting.di_assignment`. See docs/meetings.md.
"""

from __future__ import annotations

from typing import Any, ClassVar

from lightscore.metrics.meeting_wer import SPEAKER_COUNTS, _outputs, _TimeConstrained, _WordErrors

__all__ = ["DICPWER", "DITCPWER"]


class DICPWER(_WordErrors):
    """Diarization-invariant cpWER, equal to meeteval's ``greedy_dicpwer`` per session and for the corpus.

    Each hypothesis segment may go to any reference speaker, whatever stream it sits in; the greedy
    assignment with the fewest errors is scored, so only recognition errors count, not speaker
    confusions (`lightscore.text.meeting.di_assignment.dicp_counts`). Returns ``dicpWER`` (percent) with
    errors, length (reference words), substitutions, deletions, insertions and sessions;
    `session_results` gives each session's counts and the reference speaker of each hypothesis
    segment, in the session's input order.

    Args:
        format: The meeting files' format when their suffix does not tell.
        report_html: With an output dir, also write ``dicpwer_report.html`` (`_WordErrors.write_artifacts`).
        uem: A UEM file: the scoring region of the sessions it lists (meeteval's ``uem=``).

    >>> from lightscore.core.batch import feed
    >>> from lightscore.segments import Segment
    >>> ref = [Segment("A", 0, 1, "a"), Segment("A", 1, 2, "b"), Segment("B", 2, 3, "c"), Segment("B", 3, 4, "d")]
    >>> hyp = [Segment("x", 0, 1, "a"), Segment("y", 1, 2, "b"), Segment("x", 2, 3, "c"), Segment("y", 3, 4, "d")]
    >>> m = DICPWER(); feed(m, {"ref": [ref], "hyp": [hyp]}, ["s1"]); m.compute()["dicpWER"]
    0.0
    >>> m.session_results()[0][-1]
    ['A', 'A', 'B', 'B']
    """

    name: ClassVar[str] = "dicpWER"
    COUNTS: ClassVar[tuple[str, ...]] = SPEAKER_COUNTS[:5]
    outputs = _outputs("dicpWER", SPEAKER_COUNTS[:5])

    def _counts(self, ref_segments: list, hyp_segments: list) -> Any:
        from lightscore.text.meeting.di_assignment import dicp_counts  # numba loads with the first session

        return dicp_counts(ref_segments, hyp_segments)

    def _shown(self, assignment: Any, ref: list, hyp: list) -> tuple[dict[str, Any], list]:
        return _moved_to_speakers(assignment, ref, hyp)

    def settings(self) -> str:
        """One line naming what changes the number.

        >>> DICPWER().settings()
        'dicpWER meeteval-compatible (greedy, segments sorted by start, kaldi S/D/I breakdown)'
        """
        return "dicpWER meeteval-compatible (greedy, segments sorted by start, kaldi S/D/I breakdown)" + (
            self._uem_setting()
        )


class DITCPWER(_TimeConstrained):
    """Diarization-invariant tcpWER, equal to meeteval's ``greedy_ditcpwer`` (tcpWER's options and defaults).

    DI-cpWER (`DICPWER`) under tcpWER's time constraint: a hypothesis word may only pair with a
    reference word its time (widened by the collar) overlaps
    (`lightscore.text.meeting.di_assignment.ditcp_counts`). Returns ``ditcpWER`` (percent) with DICPWER's
    counts.

    Args:
        collar: Seconds a hypothesis word may stray from the reference word it pairs with (required).
        reference_pseudo_word_level_timing: How a reference segment's time is split among its words.
        hypothesis_pseudo_word_level_timing: The same for the hypothesis.
        format: The meeting files' format when the suffix does not tell.
        report_html: With an output dir, also write ``ditcpwer_report.html``.
        reference_sort: ``"segment"`` (default: by start time), True (the same, and an error when a speaker's
            word times then run backwards) or False (as given); ``"word"`` is refused, as meeteval refuses it.
        hypothesis_sort: The same for the hypothesis.
        uem: A UEM file: the scoring region of the sessions it lists (meeteval's ``uem=``).

    >>> from lightscore.core.batch import feed
    >>> from lightscore.segments import Segment
    >>> ref = [Segment("A", 0, 1, "a"), Segment("A", 1, 2, "b"), Segment("B", 2, 3, "c"), Segment("B", 3, 4, "d")]
    >>> hyp = [Segment("x", 0, 2, "a b"), Segment("x", 1, 4, "b c d")]
    >>> m = DITCPWER(collar=0); feed(m, {"ref": [ref], "hyp": [hyp]}, ["s1"]); m.compute()["ditcpWER"]
    25.0
    """

    name: ClassVar[str] = "ditcpWER"
    COUNTS: ClassVar[tuple[str, ...]] = SPEAKER_COUNTS[:5]
    outputs = _outputs("ditcpWER", SPEAKER_COUNTS[:5])
    WORD_SORT: ClassVar[tuple[str, ...]] = ()  # meeteval's greedy search keeps every segment whole

    def _shown(self, assignment: Any, ref: list, hyp: list) -> tuple[dict[str, Any], list]:
        return _moved_to_speakers(assignment, ref, hyp)

    def _counts(self, ref_segments: list, hyp_segments: list) -> Any:
        from lightscore.text.meeting.di_assignment import ditcp_counts  # numba loads with the first session

        return ditcp_counts(ref_segments, hyp_segments, *self._options())


def _moved_to_speakers(assignment: Any, ref: list, hyp: list) -> tuple[dict[str, Any], list]:
    """The session view of a DI assignment: each hypothesis segment under the reference speaker it went to.

    The view (`lightscore.report.sessions`) then aligns each reference speaker with the hypothesis words
    moved to it, which is what DI-cpWER scores; a segment with no speaker to go to keeps its own.

    >>> from lightscore.segments import Segment
    >>> pairs, hyp = _moved_to_speakers(["B", "A"], [Segment("A", 0, 1), Segment("B", 1, 2)],
    ...                                 [Segment("x", 0, 1, "b"), Segment("x", 1, 2, "a")])
    >>> pairs, [s.speaker for s in hyp]
    ({'assignment': [['A', 'A'], ['B', 'B']]}, ['B', 'A'])
    """
    moved = [seg if to is None else seg._replace(speaker=to) for seg, to in zip(hyp, assignment)]
    received = {seg.speaker for seg in moved}
    speakers = dict.fromkeys(seg.speaker for seg in ref)
    return {"assignment": [[speaker, speaker if speaker in received else None] for speaker in speakers]}, moved
