"""What the meeting metrics share: one session per row, its value read into segments, errors naming the session.

A row's ``ref`` and ``hyp`` (Field kind ``"segments"``) hold one session: a list of
segments (`lightscore.segments.Segment`, SegLST dicts or ``(speaker, start, end,
words)`` tuples, what a Lightning ``validation_step`` returns), a line of SegLST
JSON, a path to a meeting file holding the session, or ``""`` (an empty
session). The row's id is the session id. See docs/meetings.md.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar

from lightscore.core.batch import RowError
from lightscore.core.contract import Field
from lightscore.core.metric import BaseMetric
from lightscore.segments import FORMATS, SegmentError, as_segments

__all__ = ["MeetingMetric", "check_number"]


class MeetingMetric(BaseMetric):
    """One session per row, read into segments; a bad session raises an error naming it.

    Args:
        format: The meeting files' format (one of stm, ctm, seglst, rttm) when their suffix does not tell.
    """

    name: ClassVar[str] = "meeting"
    # A row's id is its session id: feed() passes the ids as batch_utt_ids (the SCP keys, the step's utt_id).
    inputs = (Field("ref", "segments"), Field("hyp", "segments"))

    def __init__(self, format: str | None = None) -> None:
        if format is not None and format not in FORMATS:
            raise ValueError(f"{self.name}: format {format!r} is not one of {', '.join(FORMATS)}")
        self.format = format
        self.add_state("sessions", 0, "sum")
        self.add_state("session_records", [], "cat")
        super().__init__()

    def _sessions(self, ref: Sequence[Any], hyp: Sequence[Any]) -> Iterator[tuple[int, str, list, list]]:
        """Yield ``(row, session id, ref segments, hyp segments)``; a bad row raises `RowError`."""
        utt_id = self.batch_utt_ids
        for row, (ref_value, hyp_value) in enumerate(zip(ref, hyp)):
            session = utt_id[row] if utt_id is not None else f"row{row}"
            try:
                if utt_id is None and any(_names_a_file(v) for v in (ref_value, hyp_value)):
                    raise ValueError(
                        "a meeting file needs the session id: feed the batch with its ids (lightscore.core.batch.feed)"
                    )
                yield (
                    row,
                    session,
                    as_segments(ref_value, session, self.format, "ref"),
                    as_segments(hyp_value, session, self.format, "hyp"),
                )
            except (SegmentError, ValueError) as e:
                raise RowError(row, f"{self.name}: {e}") from None

    def session_results(self) -> list[list[Any]]:
        """The per-session records (merged, after ``load_state``), sorted by session id.

        Raises:
            ValueError: a session scored twice (it came in two rows, or from two ranks).
        """
        records = sorted(self.session_records, key=lambda r: r[0])
        for a, b in zip(records, records[1:]):
            if a[0] == b[0]:
                raise ValueError(f"{self.name}: session {a[0]!r} was scored twice")
        return records


def _names_a_file(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip()) and not value.lstrip().startswith("[")


def check_number(name: str, option: str, value: Any, low: float = 0.0) -> float:
    """``value`` as a float when it is a finite number >= ``low``, else a ValueError naming metric and option.

    >>> check_number("tcpWER", "collar", -1)
    Traceback (most recent call last):
    ...
    ValueError: tcpWER: collar must be a number >= 0, got -1
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < low:
        raise ValueError(f"{name}: {option} must be a number >= {low:g}, got {value!r}")
    return float(value)
