"""MIMO-WER, equal to meeteval's ``mimower``, one session per row.

The state is each session's integer counts summed ("sum") plus one record per session
("cat") with its counts and assignment, as cpWER's (`lightscore.metrics.meeting_wer`), so
any split of the sessions over ranks or shards gives the same numbers. The search is
`lightscore.text.meeting.mimo`. See docs/meetings.md.
"""

from __future__ import annotations

from typing import Any, ClassVar

from lightscore.metrics.meeting_wer import SPEAKER_COUNTS, _outputs, _WordErrors

__all__ = ["MIMOWER"]


class MIMOWER(_WordErrors):
    """Multiple-input multiple-output WER, equal to meeteval's ``mimower`` per session and for the corpus.

    Every reference utterance (segment) may go to any hypothesis stream (speaker), each reference
    speaker's utterances keeping their order; the assignment with the fewest errors is scored
    (`lightscore.text.meeting.mimo.mimo_counts`). Returns ``mimoWER`` (percent) with errors, length,
    substitutions, deletions, insertions and sessions; `session_results` gives each session's counts
    and meeteval's assignment: ``[reference speaker, hypothesis speaker]`` per utterance, in the order
    the search read them.

    Args:
        format: The meeting files' format when their suffix does not tell.
        report_html: With an output dir, also write ``mimower_report.html`` (`_WordErrors.write_artifacts`).
        uem: A UEM file: the scoring region of the sessions it lists (meeteval's ``uem=``).

    Raises:
        ValueError: (in ``update``) a session with more than 10 speakers on a side, meeteval's limit.

    >>> from lightscore.core.batch import feed
    >>> from lightscore.segments import Segment
    >>> ref = [Segment("A", 0, 1, "a b"), Segment("A", 1, 2, "c d"), Segment("B", 0, 2, "e f")]
    >>> hyp = [Segment("1", 0, 2, "c d"), Segment("0", 0, 2, "a b e f")]
    >>> m = MIMOWER(); feed(m, {"ref": [ref], "hyp": [hyp]}, ["s1"]); m.compute()["mimoWER"]
    0.0
    >>> m.session_results()[0][-1]
    [['A', '0'], ['B', '0'], ['A', '1']]
    """

    name: ClassVar[str] = "mimoWER"
    COUNTS: ClassVar[tuple[str, ...]] = SPEAKER_COUNTS[:5]
    outputs = _outputs("mimoWER", SPEAKER_COUNTS[:5])

    def _counts(self, ref_segments: list, hyp_segments: list) -> Any:
        from lightscore.text.meeting.mimo import mimo_counts  # numba loads with the first session, not on import

        return mimo_counts(ref_segments, hyp_segments)

    def _shown(self, assignment: Any, ref: list, hyp: list) -> tuple[dict[str, Any], list]:
        """meeteval's path as the session view reads it: each reference segment's stream (in input order), and
        the order the search read the segments in, so that each stream is aligned as it was scored.

        >>> from lightscore.segments import Segment
        >>> ref = [Segment("A", 1, 2, "c d"), Segment("A", 0, 1, "a b"), Segment("B", 0, 2, "e f")]
        >>> MIMOWER()._shown([["A", "0"], ["B", "0"], ["A", "1"]], ref, [])[0]
        {'assignment': ['1', '0', '0'], 'order': [1, 2, 0]}
        """
        waiting: dict[str, list[int]] = {}  # each speaker's segments in the order the search reads them
        for i in sorted(range(len(ref)), key=lambda i: ref[i].start):
            waiting.setdefault(ref[i].speaker, []).append(i)
        streams: list[Any] = [None] * len(ref)
        order = []
        for speaker, stream in assignment:
            order.append(waiting[speaker].pop(0))
            streams[order[-1]] = stream
        return {"assignment": streams, "order": order}, hyp

    def settings(self) -> str:
        """One line naming what changes the number.

        >>> MIMOWER().settings()
        'mimoWER meeteval-compatible (segments sorted by start, kaldi S/D/I breakdown)'
        """
        return "mimoWER meeteval-compatible (segments sorted by start, kaldi S/D/I breakdown)" + self._uem_setting()
