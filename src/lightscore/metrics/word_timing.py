"""`WordTiming`: how close hypothesis word times are to the reference's, and how late a streaming model emits words.

Each utterance gives its reference and hypothesis words with start and end times. The words are matched
by aligning their texts (`lightscore.text.recognition.timing.matched_pairs`); on each matched pair the
start and end offsets (hypothesis - reference) are kept as whole microseconds in "cat" states, so the
merged list on N ranks holds the same numbers as one process's and every statistic (mean, median, 90th
percentile, share within a tolerance) is the same. With ``emission=True`` the metric also reads each
hypothesis word's emission time and reports the latency: emission time - the matched reference word's end.

A row's words, in a training step: a list of ``(word, start, end)`` tuples, or of dicts with ``word``,
``start`` and ``end`` (NeMo's word timestamps), times in seconds. In an SCP file (``measure()``): a ctm file
holding the utterance (its lines whose first field is the utterance id: ``utt 1 0.50 0.25 hello``) or one
line of SegLST JSON with one word per entry (`lightscore.segments`), its words taken in time order.
Emission times: a list of seconds per utterance, or in an SCP file ``utt 0.62 1.10 ...``, one per
hypothesis word in the order the words are taken.

>>> m = WordTiming(tolerances=(50,))
>>> m.update(ref=[[("a", 0.0, 0.4), ("b", 0.5, 0.9)]], hyp=[[("a", 0.03, 0.45), ("b", 0.5, 1.0)]])
>>> r = m.compute()
>>> r["timing_matched_words"], r["start_offset_mean_ms"], r["end_offset_p90_ms"], r["end_within_50ms"]
(2, 15.0, 95.0, 50.0)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from lightscore.core.batch import RowError
from lightscore.core.contract import Field
from lightscore.core.metric import BaseMetric
from lightscore.metrics.error_rate_options import check_choice, check_type
from lightscore.segments import SegmentError, as_segments
from lightscore.text.recognition.timing import TimedWord, count_within, matched_pairs, summary_ms, to_micros

__all__ = ["WordTiming"]

TOLERANCES_MS = (50, 100, 200)


def _timed(item: Any, number: int, side: str) -> TimedWord | None:
    """One ``(word, start, end)`` tuple or ``{word, start, end}`` dict as a `TimedWord`; None for another shape."""
    if isinstance(item, (tuple, list)) and len(item) == 3 and isinstance(item[0], str):
        word, start, end = item
    elif isinstance(item, Mapping) and "word" in item:
        word, start, end = item["word"], item.get("start"), item.get("end")
    else:
        return None
    # The messages are built only on an error: this runs for every word of every utterance.
    if not isinstance(word, str) or word.split() != [word]:
        raise ValueError(f"{side} word {number}: the word must be one word of text, got {word!r}")
    try:
        begin, stop = to_micros(start, "start"), to_micros(end, "end")
    except ValueError as e:
        raise ValueError(f"{side} word {number}: {e}") from None
    if stop < begin:
        raise ValueError(f"{side} word {number} ({word!r}): end {end} is before start {start}")
    return TimedWord(word, begin, stop)


def timed_words(value: Any, utt_id: str | None, side: str) -> list[TimedWord]:
    """A row's words with their times, from a step's list or an SCP value (ctm path, SegLST JSON).

    Raises:
        ValueError: a malformed word, a segment holding more than one word, or a file without the id.

    >>> timed_words([{"word": "hi", "start": 0.5, "end": 0.75}], None, "hyp")
    [TimedWord(word='hi', start=500000, end=750000)]
    >>> timed_words([("hi", 0.5, "soon")], None, "hyp")
    Traceback (most recent call last):
    ...
    ValueError: hyp word 1: end 'soon' is not a number of seconds
    """
    if isinstance(value, (list, tuple)):
        words = [_timed(item, k, side) for k, item in enumerate(value, 1)]
        if all(w is not None for w in words):
            return words  # type: ignore[return-value]
    elif isinstance(value, str) and utt_id is None and value.strip() and not value.lstrip().startswith("["):
        raise ValueError(f"{side} {value!r}: a file needs the utterance id: feed the batch with its ids")
    segments = as_segments(value, utt_id or "row", side=side)
    result = []
    # A file's words in time order, as hubscr sorts a ctm before scoring it (stable: ties keep file order).
    for segment in sorted(segments, key=lambda s: s.start):
        if len(segment.words.split()) != 1:
            raise ValueError(f"{side} line {segment.line}: a timed word holds one word, got {segment.words!r}")
        result.append(TimedWord(segment.words, round(segment.start * 1e6), round(segment.end * 1e6)))
    return result


def _emission(value: Any, count: int) -> list[int]:
    """A row's emission times (a list, or a string of seconds) as microseconds, one per hypothesis word."""
    times = value.split() if isinstance(value, str) else list(value)
    if len(times) != count:
        raise ValueError(f"emit: {len(times)} emission times for {count} hypothesis words")
    return [to_micros(t, f"emit time {k}") for k, t in enumerate(times, 1)]


class WordTiming(BaseMetric):
    """Start and end offsets of matched words, the share within tolerances, and emission latency.

    Outputs (times in milliseconds): ``timing_matched_words``, ``timing_ref_words``, ``timing_hyp_words``
    (named apart from other metrics' word counts, so one callback can hold them all); for ``start`` and
    ``end``: ``<side>_offset_mean_ms``, ``_median_ms``, ``_p90_ms`` (of the absolute offsets),
    ``<side>_bias_ms`` (mean signed offset, hypothesis - reference) and ``<side>_within_<t>ms`` (percentage
    of matched words whose absolute offset is at most t ms), ``<side>_precision_<t>ms`` and ``_recall_<t>ms``
    (those words over the hypothesis words, and over the reference words: Canary's timestamp precision
    and recall); with ``emission``: ``latency_mean_ms``,
    ``latency_median_ms``, ``latency_p90_ms`` (emission time - reference end, signed). Percentiles are
    numpy's (linear interpolation).

    Args:
        tolerances: The tolerances in whole milliseconds (default 50, 100, 200).
        emission: Read an ``emit`` input (each hypothesis word's emission time) and report latency.
        case: ``"sensitive"`` or ``"fold"``: how word texts are compared when matching.

    Raises:
        TypeError, ValueError: a bad option.
    """

    name: ClassVar[str] = "WordTiming"

    def __init__(
        self, tolerances: Sequence[int] = TOLERANCES_MS, emission: bool = False, case: str = "sensitive"
    ) -> None:
        check_type("WordTiming", "tolerances", tolerances, (list, tuple), "a list of milliseconds")
        for t in tolerances:
            # Whole milliseconds: each names an output (start_within_50ms), and a name holds no decimal point.
            check_type("WordTiming", "tolerances", t, (int,), "a list of whole milliseconds")
            if t <= 0:
                raise ValueError(f"WordTiming: tolerance {t!r} is not a number of milliseconds > 0")
        if not tolerances or len(set(tolerances)) != len(tolerances):
            raise ValueError(f"WordTiming: tolerances {list(tolerances)} must be distinct, at least one")
        check_type("WordTiming", "emission", emission, (bool,), "True or False")
        check_choice("WordTiming", "case", case, ("sensitive", "fold"))
        self.tolerances, self.emission, self.case = tuple(tolerances), emission, case
        self.inputs = (Field("ref", "segments"), Field("hyp", "segments"))
        if emission:
            self.inputs += (Field("emit", "number"),)  # a list of seconds per row, not one number
        outputs = [Field(name, "number") for name in ("timing_matched_words", "timing_ref_words", "timing_hyp_words")]
        for side in ("start", "end"):
            outputs += [Field(f"{side}_offset_{s}_ms", "number") for s in ("mean", "median", "p90")]
            outputs += [Field(f"{side}_bias_ms", "number")]
            for t in self.tolerances:
                outputs += [Field(f"{side}_{kind}_{t}ms", "number") for kind in ("within", "precision", "recall")]
        if emission:
            outputs += [Field(f"latency_{s}_ms", "number") for s in ("mean", "median", "p90")]
        self.outputs = tuple(outputs)
        for state in ("ref_words", "hyp_words", "matched"):
            self.add_state(state, 0, "sum")
        for state in ("start_offsets", "end_offsets", "latencies"):
            self.add_state(state, [], "cat")
        super().__init__()

    def settings(self) -> str:
        """The options that change the numbers, in one line.

        >>> WordTiming().settings()
        'WordTiming tolerances=50,100,200ms emission=False case=sensitive'
        """
        tolerances = ",".join(f"{t}" for t in self.tolerances)
        return f"WordTiming tolerances={tolerances}ms emission={self.emission} case={self.case}"

    def update(self, *, ref: Sequence[Any], hyp: Sequence[Any], emit: Sequence[Any] | None = None) -> None:
        """Add each utterance's matched words' offsets (and latencies).

        Args:
            ref: Per utterance, the reference words with times (see the module).
            hyp: Per utterance, the hypothesis words with times.
            emit: With ``emission``: per utterance, each hypothesis word's emission time in seconds.

        Raises:
            RowError: a malformed row, named by its utterance when the batch was fed with ids.
        """
        ids = self.batch_utt_ids
        for row, (ref_value, hyp_value) in enumerate(zip(ref, hyp)):
            utt_id = ids[row] if ids is not None else None
            try:
                ref_words = timed_words(ref_value, utt_id, "ref")
                hyp_words = timed_words(hyp_value, utt_id, "hyp")
                emitted = _emission(emit[row], len(hyp_words)) if self.emission and emit is not None else None
            except (SegmentError, ValueError) as e:
                raise RowError(row, f"WordTiming: {e}") from None
            if self.emission and emitted is None:
                raise RowError(row, "WordTiming: emission=True needs the emit input (emission times)")
            fold = self.case == "fold"
            texts = [[w.word.casefold() if fold else w.word for w in words] for words in (ref_words, hyp_words)]
            pairs = matched_pairs(*texts)
            self.ref_words += len(ref_words)
            self.hyp_words += len(hyp_words)
            self.matched += len(pairs)
            self.start_offsets.extend(hyp_words[j].start - ref_words[i].start for i, j in pairs)
            self.end_offsets.extend(hyp_words[j].end - ref_words[i].end for i, j in pairs)
            if emitted is not None:
                self.latencies.extend(emitted[j] - ref_words[i].end for i, j in pairs)

    def compute(self) -> dict[str, float]:
        """The counts, the offsets' statistics and shares, and the latency's statistics.

        Raises:
            ValueError: no hypothesis word matched a reference word.
        """
        if self.matched == 0:
            raise ValueError("WordTiming: no hypothesis word matched a reference word")
        result: dict[str, float] = {"timing_matched_words": self.matched, "timing_ref_words": self.ref_words}
        result["timing_hyp_words"] = self.hyp_words
        for side, offsets in (("start", self.start_offsets), ("end", self.end_offsets)):
            stats = summary_ms([abs(v) for v in offsets])
            result.update({f"{side}_offset_{s}_ms": v for s, v in stats.items()})
            result[f"{side}_bias_ms"] = sum(offsets) / len(offsets) / 1000
            for t in self.tolerances:
                hits = count_within(offsets, t)
                result[f"{side}_within_{t}ms"] = 100.0 * hits / self.matched
                # Canary's timestamp precision and recall: a word counts when it matches and is on time.
                result[f"{side}_precision_{t}ms"] = 100.0 * hits / self.hyp_words
                result[f"{side}_recall_{t}ms"] = 100.0 * hits / self.ref_words
        if self.emission:
            result.update({f"latency_{s}_ms": v for s, v in summary_ms(self.latencies).items()})
        return result
