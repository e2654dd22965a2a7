"""ORC-WER's further forms, equal to meeteval's: greedy ORC-WER, tcORC-WER and greedy tcORC-WER, a session per row.

Like `lightscore.metrics.meeting_wer.ORCWER`, each gives every reference segment to one hypothesis
stream (speaker) and counts the errors of each stream against the reference segments it holds:

- `GreedyORCWER` (meeteval's ``greedy_orcwer``): the segments are moved one at a time from cpWER's
  assignment while that lowers the errors; linear in the streams' lengths where ORC-WER's exact
  search grows with their product (`lightscore.text.meeting.greedy_orc`);
- `TCORCWER` (``tcorcwer``): ORC-WER under tcpWER's time constraint, exact
  (`lightscore.text.meeting.tc_orc`);
- `GreedyTCORCWER` (``greedy_tcorcwer``): the greedy search under the time constraint.

The state is each session's integer counts summed ("sum") plus one record per session ("cat") with
its counts and the stream of each reference segment, so any split of the sessions over ranks or
shards gives the same numbers. See docs/meetings.md.
"""

from __future__ import annotations

from typing import Any, ClassVar

from lightscore.metrics.meeting_wer import SPEAKER_COUNTS, _outputs, _TimeConstrained, _WordErrors

__all__ = ["GreedyORCWER", "GreedyTCORCWER", "TCORCWER"]

ORC_COUNTS = SPEAKER_COUNTS[:5]  # errors, length, substitutions, deletions, insertions


class GreedyORCWER(_WordErrors):
    """Greedy ORC-WER, equal to meeteval's ``greedy_orcwer`` per session and for the corpus.

    Starting from cpWER's speaker assignment, each reference segment moves to the stream where it
    lowers the errors most, sweep after sweep until nothing moves
    (`lightscore.text.meeting.greedy_orc.greedy_orc_counts`). It is at least ORC-WER, usually equal.
    Returns ``greedy_orcWER`` (percent) with errors, length, substitutions, deletions, insertions and
    sessions; `session_results` lists each session's counts and the stream of each reference segment,
    in the session's input order (None: the session has no hypothesis stream).

    Args:
        format: The meeting files' format when their suffix does not tell.
        report_html: With an output dir, also write ``greedy_orcwer_report.html`` (`_WordErrors.write_artifacts`).
        uem: A UEM file: the scoring region of the sessions it lists (meeteval's ``uem=``, `_WordErrors`).

    >>> from lightscore.core.batch import feed
    >>> from lightscore.segments import Segment
    >>> ref = [Segment("A", 0, 1, "a"), Segment("A", 1, 2, "c d e")]
    >>> hyp = [Segment("x", 0, 2, "a c"), Segment("y", 1, 3, "d e")]
    >>> m = GreedyORCWER(); feed(m, {"ref": [ref], "hyp": [hyp]}, ["s1"]); m.compute()["greedy_orcWER"]
    50.0
    >>> m.session_results()[0][-1]
    ['x', 'y']
    """

    name: ClassVar[str] = "greedy_orcWER"
    COUNTS: ClassVar[tuple[str, ...]] = ORC_COUNTS
    outputs = _outputs("greedy_orcWER", ORC_COUNTS)

    def _counts(self, ref_segments: list, hyp_segments: list) -> Any:
        from lightscore.text.meeting.greedy_orc import greedy_orc_counts  # numba loads with the first session

        return greedy_orc_counts(ref_segments, hyp_segments)

    def settings(self) -> str:
        """One line naming what changes the number.

        >>> GreedyORCWER().settings()
        'greedy_orcWER meeteval-compatible (greedy from cpWER, segments sorted by start, kaldi S/D/I breakdown)'
        """
        return (
            f"{self.name} meeteval-compatible (greedy from cpWER, segments sorted by start, kaldi S/D/I breakdown)"
            + self._uem_setting()
        )


class TCORCWER(_TimeConstrained):
    """Time-constrained ORC-WER, equal to meeteval's ``tcorcwer`` (the same option names and defaults).

    ORC-WER where a reference word may pair (correct or substituted) only with a hypothesis word
    whose time, widened by the collar, overlaps its own; words get pseudo word times as in tcpWER
    (`lightscore.text.meeting.tc_orc.tc_orc_counts`). Returns ``tcorcWER`` (percent) with errors,
    length, substitutions, deletions, insertions and sessions; `session_results` lists the stream of
    each reference segment in input order (a segment without words: the first hypothesis speaker by
    name, as meeteval; None: the session has no hypothesis word).

    Args:
        collar: Seconds a hypothesis word may stray from the reference word it pairs with (required,
            as in meeteval; 5 is the CHiME-8 choice).
        reference_pseudo_word_level_timing: How a reference segment's time is split among its words
            (one of `lightscore.text.meeting.time_constrained.PSEUDO_WORD_TIMINGS`).
        hypothesis_pseudo_word_level_timing: The same for the hypothesis (points at the centres).
        format: The meeting files' format when the suffix does not tell.
        report_html: With an output dir, also write ``<name>_report.html`` (`_WordErrors.write_artifacts`).
        reference_sort: meeteval's: ``"segment"`` (default: segments by start time), True (the same, and an
            error naming the session when a speaker's word times then run backwards) or False (as given).
            ``"word"`` is refused, as meeteval refuses it: ORC keeps each reference segment whole.
        hypothesis_sort: The same for the hypothesis, where ``"word"`` (every word by its start time) is allowed.
        uem: A UEM file: the scoring region of the sessions it lists (meeteval's ``uem=``, `_WordErrors`).

    Raises:
        ValueError: a negative collar, a timing that is not one of ``PSEUDO_WORD_TIMINGS``, a sort that is not
            one of ``lightscore.text.meeting.time_constrained.SORTS`` or one meeteval refuses here.

    >>> from lightscore.core.batch import feed
    >>> from lightscore.segments import Segment
    >>> ref = [Segment("A", 0, 2, "hello world"), Segment("A", 10, 12, "good morning")]
    >>> hyp = [Segment("x", 10, 12, "good morning"), Segment("y", 0, 2, "hello world")]
    >>> m = TCORCWER(collar=1); feed(m, {"ref": [ref], "hyp": [hyp]}, ["s1"]); m.compute()["tcorcWER"]
    0.0
    >>> m.session_results()[0][-1]
    ['y', 'x']
    """

    name: ClassVar[str] = "tcorcWER"
    COUNTS: ClassVar[tuple[str, ...]] = ORC_COUNTS
    outputs = _outputs("tcorcWER", ORC_COUNTS)
    WORD_SORT: ClassVar[tuple[str, ...]] = ("hypothesis_sort",)  # the sides meeteval lets sort word by word

    def _counts(self, ref_segments: list, hyp_segments: list) -> Any:
        from lightscore.text.meeting.tc_orc import tc_orc_counts  # numba loads with the first session

        return tc_orc_counts(ref_segments, hyp_segments, *self._options())


class GreedyTCORCWER(TCORCWER):
    """Greedy time-constrained ORC-WER, equal to meeteval's ``greedy_tcorcwer`` (`TCORCWER`'s options).

    The greedy sweeps of `GreedyORCWER` under tcORC-WER's time constraint, started from each
    reference speaker's tcpWER stream (`lightscore.text.meeting.tc_orc.greedy_tc_orc_counts`).
    Returns ``greedy_tcorcWER`` (percent) with `TCORCWER`'s counts; a segment without words keeps
    the stream the sweeps give it (meeteval's). meeteval refuses a sort of ``"word"`` on either side.

    >>> from lightscore.core.batch import feed
    >>> from lightscore.segments import Segment
    >>> ref = [Segment("A", 0, 2, "hello world"), Segment("A", 10, 12, "good morning")]
    >>> hyp = [Segment("x", 10, 12, "good morning"), Segment("y", 0, 2, "hello world")]
    >>> m = GreedyTCORCWER(collar=1); feed(m, {"ref": [ref], "hyp": [hyp]}, ["s1"]); m.compute()["greedy_tcorcWER"]
    0.0
    """

    name: ClassVar[str] = "greedy_tcorcWER"
    outputs = _outputs("greedy_tcorcWER", ORC_COUNTS)
    WORD_SORT: ClassVar[tuple[str, ...]] = ()  # meeteval keeps segments whole on both sides here

    def _counts(self, ref_segments: list, hyp_segments: list) -> Any:
        from lightscore.text.meeting.tc_orc import greedy_tc_orc_counts  # numba loads with the first session

        return greedy_tc_orc_counts(ref_segments, hyp_segments, *self._options())
