"""`SimulLatency`: simultaneous translation latency (AL, LAAL, AP, DAL, ATD, StartOffset, EndOffset) as SimulEval.

Each row is one instance: the delay of each target token (words of a text source
read, or milliseconds of a speech source), the source's length in the same unit,
and the reference (its text or its length) where AL, LAAL and AP need the target
length. The corpus value of a measure is the mean of its sentence values, as
SimulEval reports it; rows with no delays (an empty translation) are left out and
counted. Each sentence value is summed exactly (every finite float is a whole
number of 2**-1074, so the sums are integers): N ranks merged in any order give
the one-process mean bit for bit, and that mean is SimulEval's ``statistics.mean``.

The measures themselves are `lightscore.text.mt.simul_latency` (pure Python: the
metric needs no extra). SimulEval's ``instances.log`` is read by
`lightscore.text.mt.instance_log` (``lightscore score --metric simul_latency``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lightscore.core.batch import RowError
from lightscore.core.contract import Field
from lightscore.core.metric import BaseMetric
from lightscore.metrics.error_rate_options import check_choice, check_type
from lightscore.text.mt.simul_latency import (
    ATD_WORD_MS,
    MEASURES,
    SOURCES,
    UNITS,
    Number,
    parse_times,
    reference_length,
    sentence_latency,
)

__all__ = ["SimulLatency"]

EXACT = 2**1074
"""Every finite float is a whole multiple of 1 / EXACT, so ``value * EXACT`` sums exactly as an int."""
TIME_UNITS = ("ms", "s")


def _exact(value: Number) -> int:
    """``value`` as a whole number of 1 / `EXACT`, with no rounding.

    >>> _exact(0.5) == EXACT // 2, _exact(3) == 3 * EXACT
    (True, True)
    """
    numerator, denominator = value.as_integer_ratio()  # the denominator is a power of two <= EXACT
    return numerator * (EXACT // denominator)


class SimulLatency(BaseMetric):
    """Simultaneous translation latency, each measure the mean of its sentence values, equal to SimulEval 1.1.4.

    Args:
        source: "speech" (delays and source lengths in milliseconds, or seconds with
            ``time_unit="s"``) or "text" (in source words). Only ATD depends on it:
            a speech word counts 300 ms, a text token 1.
        measures: Which of AL, LAAL, AP, DAL, ATD, StartOffset, EndOffset (default: all).
        computation_aware: Also the ``_CA`` measures from each row's ``elapsed``
            times (the delays plus the system's computing time; a speech source only,
            as in SimulEval). ``elapsed`` is then a required input.
        unit: How a reference text's length is counted: "word" (SimulEval's
            ``len(ref.split(" "))``) or "char" (``len(ref.strip())``).
        use_ref_len: False: the target length is always the hypothesis' (SimulEval's
            ``--no-use-ref-len``).
        time_unit: A speech source's unit: "ms" (SimulEval's) or "s" (ATD's word is then 0.3).

    Inputs (one value per row): ``delays`` (a list, array or tensor of numbers, or a
    string of them as in an SCP file), ``source_length`` (a number), ``elapsed``
    (with ``computation_aware``), and optionally ``ref`` (the reference text) or
    ``ref_length`` (its length, None for "no reference"). Without either, the
    target length is the hypothesis' length, as SimulEval's without a reference.

    Raises:
        ValueError: from ``compute``, when no row had delays.

    >>> m = SimulLatency(source="text", measures=("AL", "LAAL", "DAL", "StartOffset"))
    >>> m.update(delays=[[1, 1, 2, 3, 5, 7, 7, 9], "5 7 9"], source_length=[9, 9], ref=["a b c d e"] * 2)
    >>> result = m.compute()
    >>> result["AL"], result["LAAL"], result["DAL"], result["StartOffset"], result["latency_instances"]
    (1.6375000000000002, 2.81875, 3.0703125, 3.0, 2)
    """

    def __init__(
        self,
        source: str = "speech",
        measures: Sequence[str] = MEASURES,
        computation_aware: bool = False,
        unit: str = "word",
        use_ref_len: bool = True,
        time_unit: str = "ms",
    ) -> None:
        name = type(self).__name__
        check_choice(name, "source", source, SOURCES)
        check_choice(name, "unit", unit, UNITS)
        check_choice(name, "time_unit", time_unit, TIME_UNITS)
        check_type(name, "computation_aware", computation_aware, (bool,), "a bool")
        check_type(name, "use_ref_len", use_ref_len, (bool,), "a bool")
        if isinstance(measures, str) or not measures:
            raise ValueError(f"{name}: measures must be a non-empty list of {', '.join(MEASURES)}, got {measures!r}")
        for measure in measures:
            check_choice(name, "measures", measure, MEASURES)
        if computation_aware and source == "text":
            raise ValueError(f"{name}: computation-aware latency needs a speech source (SimulEval refuses it on text)")
        if time_unit == "s" and source == "text":
            raise ValueError(f"{name}: time_unit is a speech source's; a text source's delays count words")
        self.source, self.unit, self.use_ref_len, self.time_unit = source, unit, use_ref_len, time_unit
        self.measures = tuple(dict.fromkeys(measures))
        self.computation_aware = computation_aware
        self.word_ms = ATD_WORD_MS if time_unit == "ms" else ATD_WORD_MS / 1000
        self.keys = self.measures + (tuple(f"{m}_CA" for m in self.measures) if computation_aware else ())
        self.inputs = (
            Field("delays", "number", label="Delays"),
            Field("source_length", "number", label="Source length"),
            *((Field("elapsed", "number", label="Elapsed (computation aware)"),) if computation_aware else ()),
            Field("ref", "text", optional=True),
            Field("ref_length", "number", label="Reference length", optional=True),
        )
        counts = ("latency_instances", "latency_empty") + (("latency_instances_CA",) if computation_aware else ())
        self.outputs = tuple(Field(key, "number") for key in self.keys + counts)
        for key in self.keys:
            self.add_state(f"{key}_sum", 0, "sum")
        self.add_state("instances", 0, "sum")
        self.add_state("empty", 0, "sum")
        self.add_state("instances_ca", 0, "sum")
        super().__init__()

    def settings(self) -> str:
        """The options that change the numbers, in one line.

        >>> SimulLatency().settings()
        'SimulLatency source=speech time_unit=ms unit=word use_ref_len=True computation_aware=False'
        """
        time_unit = f" time_unit={self.time_unit}" if self.source == "speech" else ""
        return (
            f"SimulLatency source={self.source}{time_unit} unit={self.unit} use_ref_len={self.use_ref_len} "
            f"computation_aware={self.computation_aware}"
        )

    def update(
        self,
        *,
        delays: Sequence[Any],
        source_length: Sequence[Any],
        elapsed: Sequence[Any] | None = None,
        ref: Sequence[str] | None = None,
        ref_length: Sequence[Any] | None = None,
    ) -> None:
        """Add each row's sentence values to the sums.

        Args:
            delays: Per row, one delay per target token (empty: no translation).
            source_length: Per row, the source's length in the delays' unit.
            elapsed: Per row, the computation-aware times (``computation_aware`` only);
                an empty row has no ``_CA`` values (SimulEval skips it).
            ref: Per row, the reference text.
            ref_length: Per row, the reference's length, or None for none.

        Raises:
            ValueError: ``ref`` and ``ref_length`` both given.
            RowError: a row's values are malformed (the road names its utterance).
        """
        if ref is not None and ref_length is not None:
            raise ValueError("SimulLatency.update(): give ref or ref_length, not both")
        for row in range(len(delays)):
            try:
                values = self._sentence(row, delays, source_length, elapsed, ref, ref_length)
            except ValueError as e:
                raise RowError(row, str(e)) from None
            if not values:
                self.empty += 1
                continue
            self.instances += 1
            self.instances_ca += int(f"{self.measures[0]}_CA" in values)
            for key, value in values.items():
                setattr(self, f"{key}_sum", getattr(self, f"{key}_sum") + _exact(value))

    def _sentence(
        self,
        row: int,
        delays: Sequence[Any],
        source_length: Sequence[Any],
        elapsed: Sequence[Any] | None,
        ref: Sequence[str] | None,
        ref_length: Sequence[Any] | None,
    ) -> dict[str, Number]:
        """One row's sentence values (empty for a row with no delays)."""
        row_delays = parse_times(delays[row], "delays")
        length = parse_times([source_length[row]], "source_length")[0]
        row_elapsed = None if elapsed is None else parse_times(elapsed[row], "elapsed")
        target: int | None = None
        if self.use_ref_len and ref is not None:
            target = reference_length(ref[row], self.unit)
        elif self.use_ref_len and ref_length is not None and ref_length[row] is not None:
            target = _whole(ref_length[row])
        return sentence_latency(
            row_delays,
            length,
            target,
            elapsed=row_elapsed,
            source=self.source,
            measures=self.measures,
            word_ms=self.word_ms,
        )

    def compute(self) -> dict[str, float]:
        """Each measure's mean over the rows with delays, and the counts.

        Raises:
            ValueError: no row had delays, or (computation aware) no row had elapsed times.
        """
        if self.instances == 0:
            raise ValueError(f"SimulLatency: no instance has delays ({self.empty} empty): nothing to average")
        if self.computation_aware and self.instances_ca == 0:
            raise ValueError("SimulLatency: computation_aware, but no instance has elapsed times")
        result: dict[str, float] = {}
        for key in self.keys:
            count = self.instances_ca if key.endswith("_CA") else self.instances
            result[key] = getattr(self, f"{key}_sum") / (EXACT * count)  # int / int: the correctly rounded mean
        result["latency_instances"] = self.instances
        result["latency_empty"] = self.empty
        if self.computation_aware:
            result["latency_instances_CA"] = self.instances_ca
        return result


def _whole(value: Any) -> int:
    """A reference length: a whole number >= 0 (an int, a numeric string, a 0-d tensor)."""
    number = parse_times([value], "ref_length")[0]
    if number != int(number):
        raise ValueError(f"ref_length {value!r} is not a whole number")
    return int(number)
