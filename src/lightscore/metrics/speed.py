"""`RTFx`: decoding speed as the Open ASR Leaderboard reports it, total audio seconds / total decoding seconds.

A ratio of sums, not a mean of ratios: each utterance's seconds are added as integer
microseconds ("sum" states), so any split into ranks or shards gives the same figure.
The step returns ``audio_seconds`` and ``decode_seconds`` per utterance (one batch's
decoding time may be shared out over its utterances), or ``measure()`` binds two
SCP files of them (``utt_id seconds``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from lightscore.core.batch import RowError
from lightscore.core.contract import Field
from lightscore.core.metric import BaseMetric

__all__ = ["RTFx"]

MICRO = 1_000_000


def _micros(value: Any, row: int, name: str) -> int:
    """One row's seconds as integer microseconds; a RowError for a value that is no finite number >= 0."""
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        raise RowError(row, f"{name} {value!r} is not a number of seconds") from None
    if not math.isfinite(seconds) or seconds < 0:
        raise RowError(row, f"{name} {value!r} is not a finite number of seconds >= 0")
    if not math.isfinite(seconds * MICRO):  # 1e308 s is finite, but not in microseconds
        raise RowError(row, f"{name} {value!r} is too large to count in microseconds (at most about 1.8e302 s)")
    return round(seconds * MICRO)


class RTFx(BaseMetric):
    """Inverse real-time factor: total audio seconds / total decoding seconds (higher is faster).

    Raises:
        ValueError: from ``compute``, when no decoding time was recorded.

    >>> m = RTFx()
    >>> m.update(audio_seconds=[10.0, 5.0], decode_seconds=["0.1", 0.2])
    >>> m.compute()
    {'RTFx': 50.0, 'audio_seconds': 15.0, 'decode_seconds': 0.3}
    >>> m.update(audio_seconds=[1], decode_seconds=["fast"])
    Traceback (most recent call last):
    ...
    lightscore.core.batch.RowError: row 0 of the batch: decode_seconds 'fast' is not a number of seconds
    """

    inputs = (Field("audio_seconds", "number"), Field("decode_seconds", "number"))
    outputs = (
        Field("RTFx", "number", label="RTFx (audio s / decoding s)"),
        Field("audio_seconds", "number"),
        Field("decode_seconds", "number"),
    )

    def __init__(self) -> None:
        self.add_state("audio_us", 0, "sum")
        self.add_state("decode_us", 0, "sum")
        super().__init__()

    def update(self, *, audio_seconds: Sequence[Any], decode_seconds: Sequence[Any]) -> None:
        """Add each utterance's audio and decoding seconds (numbers, numeric strings or 0-d tensors).

        Args:
            audio_seconds: The length of each utterance's audio.
            decode_seconds: The time spent decoding each utterance.

        Raises:
            RowError: a value that is not a finite number of seconds >= 0.
        """
        self.audio_us += sum(_micros(v, row, "audio_seconds") for row, v in enumerate(audio_seconds))
        self.decode_us += sum(_micros(v, row, "decode_seconds") for row, v in enumerate(decode_seconds))

    def compute(self) -> dict[str, float]:
        """``RTFx`` and the two totals in seconds.

        Raises:
            ValueError: the total decoding time is 0.
        """
        if self.decode_us == 0:
            raise ValueError("RTFx: no decoding time was recorded (decode_seconds sum to 0)")
        return {
            "RTFx": self.audio_us / self.decode_us,
            "audio_seconds": self.audio_us / MICRO,
            "decode_seconds": self.decode_us / MICRO,
        }
