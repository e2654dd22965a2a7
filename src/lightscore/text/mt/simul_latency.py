"""Simultaneous translation latency of one instance, as SimulEval 1.1.4 defines it.

An instance is one source (a sentence of text, or an utterance of speech) and the
translation a simultaneous system wrote while reading it. Its **delays** say, for
each target token, how much source had been read when the token was written:
words for a text source, milliseconds for a speech source. Its **elapsed** times
(computation aware) add the system's own computing time to each delay.

The measures, each a function of one instance (SimulEval's ``latency_scorer``):

- ``AL``, average lagging (Ma et al. 2019), over the tokens up to the first one
  written with the whole source read;
- ``LAAL``, length-adaptive average lagging (Papi et al. 2022): AL whose target
  length is the longer of hypothesis and reference;
- ``AP``, average proportion (Cho and Esipova 2016);
- ``DAL``, differentiable average lagging (Cherry and Foster 2019);
- ``ATD``, average token delay (Kano et al. 2023), which counts a speech source's
  words as 300 ms each and a text token as 1;
- ``StartOffset`` and ``EndOffset``: the first delay, and the last delay minus the
  source length.

SimulEval's choices kept here, so the numbers equal its numbers: the target length
of AL and AP is the reference's (``len(reference.split(" "))`` words or
``len(reference.strip())`` characters) when there is a reference, the hypothesis'
otherwise; DAL always uses the hypothesis' length; an instance with no delays (an
empty translation) has no latency and is left out of the corpus mean.

This module is pure Python (no sacrebleu, no numpy), so the latency metric works
on the core install.

>>> delays = [1, 1, 2, 3, 5, 7, 7, 9]  # SimulEval's own test: a source of 9 words
>>> average_lagging(delays, 9, None)
0.4375
>>> sentence_latency([5, 7, 9], 9, reference_length=2, measures=("AL", "LAAL", "StartOffset"))
{'AL': 2.5, 'LAAL': 4.0, 'StartOffset': 5}
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from itertools import accumulate, groupby
from statistics import mean
from typing import Any

__all__ = [
    "MEASURES",
    "SOURCES",
    "Number",
    "UNITS",
    "average_lagging",
    "average_proportion",
    "average_token_delay",
    "differentiable_average_lagging",
    "end_offset",
    "length_adaptive_average_lagging",
    "parse_times",
    "reference_length",
    "sentence_latency",
    "start_offset",
]

MEASURES = ("AL", "LAAL", "AP", "DAL", "ATD", "StartOffset", "EndOffset")
"""The measures, by SimulEval's names; a computation-aware one adds ``_CA`` (``AL_CA``)."""
SOURCES = ("text", "speech")
"""A text source's delays count words; a speech source's count milliseconds."""
UNITS = ("word", "char")
"""How a reference's length is counted (SimulEval's ``--eval-latency-unit``)."""
ATD_WORD_MS = 300.0
"""ATD's length of one source word of speech, in milliseconds (SimulEval's constant)."""

Number = int | float


def parse_times(value: Any, name: str = "delays") -> list[Number]:
    """One instance's delays (or elapsed times) as a list of numbers, checked.

    Args:
        value: A string of numbers separated by whitespace (an SCP value), or a
            sequence of numbers (a list, a numpy array or a 1-D torch tensor, as a
            step returns it).
        name: What the values are, for the error.

    Returns:
        The numbers, each an ``int`` when written as one, else a ``float``.

    Raises:
        ValueError: a value that is no finite number >= 0, or a value smaller than
            the one before it (a token cannot be written having read less source
            than the token before it).

    >>> parse_times("0 320 320.5")
    [0, 320, 320.5]
    >>> parse_times([3, 2])
    Traceback (most recent call last):
    ...
    ValueError: delays must not decrease: 2 follows 3 (token 2)
    """
    if isinstance(value, str):
        values: Iterable[Any] = value.split()
    elif hasattr(value, "tolist"):  # numpy arrays and torch tensors
        values = value.tolist()
        if not isinstance(values, list):
            raise ValueError(f"{name} must be a sequence of numbers, got a single number {values!r}")
    elif isinstance(value, Sequence):
        values = value
    else:
        raise ValueError(f"{name} must be a sequence of numbers or a string of them, got {type(value).__name__}")
    times = [_number(v, name) for v in values]
    for token, (before, after) in enumerate(zip(times, times[1:]), 2):
        if after < before:
            raise ValueError(f"{name} must not decrease: {after} follows {before} (token {token})")
    return times


def _number(value: Any, name: str) -> Number:
    """``value`` as a finite int or float >= 0 (a numeric string too), else a ValueError naming ``name``."""
    if isinstance(value, str):
        try:
            number: Number = int(value)
        except ValueError:
            try:
                number = float(value)
            except ValueError:
                raise ValueError(f"{name}: {value!r} is not a number") from None
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        number = value
    elif hasattr(value, "__float__") and not isinstance(value, bool):  # numpy scalars, 0-d tensors
        number = float(value)
    else:
        raise ValueError(f"{name}: {value!r} is not a number")
    if not math.isfinite(number) or number < 0:
        raise ValueError(f"{name}: {value!r} is not a finite number >= 0")
    return number


def reference_length(reference: str, unit: str = "word") -> int:
    """The reference's length as SimulEval counts it: words split at single spaces, or characters.

    ``len(reference.split(" "))``: two spaces in a row count an empty word, as in
    SimulEval; characters are those of the stripped text, spaces between words included.

    >>> reference_length("the cat  sat"), reference_length(" a b ", "char")
    (4, 3)
    """
    if unit == "word":
        return len(reference.split(" "))
    if unit == "char":
        return len(reference.strip())
    raise ValueError(f"unit must be one of {', '.join(UNITS)}, got {unit!r}")


def _lagging(delays: Sequence[Number], source_length: Number, gamma: float) -> Number:
    """AL's sum, over the tokens up to the first written with the whole source read, of delay minus ideal delay."""
    if delays[0] > source_length:
        return delays[0]
    total: Number = 0
    tau = 0
    for t, delay in enumerate(delays):
        total += delay - t / gamma  # t / gamma: the source the ideal translator had read at token t + 1
        tau = t + 1
        if delay >= source_length:
            break
    return total / tau


def average_lagging(delays: Sequence[Number], source_length: Number, target_length: int | None) -> Number:
    """AL: the mean lag behind an ideal translator, up to the first token written with the whole source read.

    Args:
        delays: One delay per target token (not empty).
        source_length: The source's length, in the delays' unit (> 0).
        target_length: The reference's length; None: the hypothesis' (``len(delays)``).

    Returns:
        AL; the first delay itself when it is past the source's end (SimulEval's rule).

    >>> average_lagging([2, 3, 4], 4, None)
    1.6666666666666667
    """
    target = len(delays) if target_length is None else target_length
    return _lagging(delays, source_length, target / source_length)


def length_adaptive_average_lagging(
    delays: Sequence[Number], source_length: Number, target_length: int | None
) -> Number:
    """LAAL: AL whose target length is the longer of hypothesis and reference, so over-generation earns nothing.

    >>> length_adaptive_average_lagging([5, 7, 9], 9, 5)
    5.2
    """
    target = len(delays) if target_length is None else max(len(delays), target_length)
    return _lagging(delays, source_length, target / source_length)


def average_proportion(delays: Sequence[Number], source_length: Number, target_length: int | None) -> float:
    """AP: the delays' sum over source length times target length (the reference's, when given).

    >>> average_proportion([1, 1, 2, 3, 5, 7, 7, 9], 9, None)
    0.4861111111111111
    """
    target = len(delays) if target_length is None else target_length
    return sum(delays) / (source_length * target)


def differentiable_average_lagging(delays: Sequence[Number], source_length: Number) -> float:
    """DAL: AL over every token, each delay at least the one before plus one ideal step (the hypothesis' length).

    >>> differentiable_average_lagging([1, 1, 2, 3, 5, 7, 7, 9], 9)
    1.140625
    """
    gamma = len(delays) / source_length
    total: Number = 0
    previous: Number = 0
    for t, delay in enumerate(delays):
        lagged = delay if t == 0 else max(delay, previous + 1 / gamma)
        total += lagged - t / gamma
        previous = lagged
    return total / len(delays)


def start_offset(delays: Sequence[Number]) -> Number:
    """The first token's delay.

    >>> start_offset([320, 640])
    320
    """
    return delays[0]


def end_offset(delays: Sequence[Number], source_length: Number) -> Number:
    """The last token's delay minus the source's length (negative: finished before the source ended).

    >>> end_offset([320, 640], 1000)
    -360
    """
    return delays[-1] - source_length


def average_token_delay(
    delays: Sequence[Number],
    source: str = "speech",
    elapsed: Sequence[Number] | None = None,
    word_ms: float = ATD_WORD_MS,
) -> float:
    """ATD: the mean time from each target token's matching source token to the token's end, for a text output.

    Tokens written at the same delay form a chunk, and so do the source tokens read
    between two chunks. Each target token is matched to a source token: the one with
    its own index, moved back by how far the target ran ahead of the source before
    its chunk, and no further than its chunk's source. A text source's tokens take 1
    each (so does a text target's); a speech source is cut into words of ``word_ms``
    (the last piece of a chunk shorter) and a text target from speech takes no time.
    With ``elapsed``, each token's share of the computing time is added to its end.

    Args:
        delays: One delay per target token, not decreasing (not empty).
        source: "text" or "speech".
        elapsed: The computation-aware times, one per token; None or all zeros: none.
        word_ms: A word of a speech source, in the delays' unit.

    Returns:
        ATD.

    >>> average_token_delay([2, 2, 4], "text")
    2.0
    >>> average_token_delay([400, 400, 1000], "speech")
    133.33333333333334
    """
    token_time, source_token_time = (1, 1) if source == "text" else (0, word_ms)
    compute = _compute_times(delays, elapsed)
    chunk_delays = [delay for delay, _ in groupby(delays)]
    target_sizes = [len(list(run)) for _, run in groupby(delays)]
    # Each chunk's source: the source read since the chunk before, cut into tokens.
    source_sizes: list[int] = []
    source_ends: list[Number] = [0]  # source_ends[s]: when source token s ended (0 for "no token yet")
    for read in (after - before for before, after in zip([0, *chunk_delays], chunk_delays)):
        pieces = _pieces(read, source_token_time)
        source_sizes.append(len(pieces))
        for piece in pieces:
            source_ends.append(source_ends[-1] + piece)
    # A target token starts when its delay is reached and the token before it has ended.
    target_ends: list[Number] = [0]
    for delay, extra in zip(delays, compute):
        target_ends.append(max(delay, target_ends[-1]) + token_time + extra)
    source_before = [0, *accumulate(source_sizes)]  # source tokens before chunk c (0-based)
    target_before = [0, *accumulate(target_sizes)]
    gaps = []
    t = 0
    for chunk, size in enumerate(target_sizes):
        ahead = max(0, target_before[chunk] - source_before[chunk])
        for _ in range(size):
            t += 1
            matched = min(t - ahead, source_before[chunk + 1])
            gaps.append(target_ends[t] - source_ends[matched])
    return float(mean(gaps))


def _pieces(duration: Number, size: Number) -> list[Number]:
    """``duration`` cut into tokens of ``size``, the remainder (if any) last: ``divmod`` as SimulEval cuts."""
    whole, rest = divmod(duration, size)
    return [size] * int(whole) + ([rest] if rest != 0 else [])


def _compute_times(delays: Sequence[Number], elapsed: Sequence[Number] | None) -> list[Number]:
    """Each token's own computing time: the growth of elapsed minus delay since the token before."""
    if elapsed is None or all(e == 0 for e in elapsed):
        return [0] * len(delays)
    waited = [e - d for e, d in zip(elapsed, delays)]
    return [after - before for before, after in zip([0, *waited], waited)]


def sentence_latency(
    delays: Sequence[Number],
    source_length: Number,
    reference_length: int | None = None,
    *,
    elapsed: Sequence[Number] | None = None,
    source: str = "speech",
    measures: Sequence[str] = MEASURES,
    word_ms: float = ATD_WORD_MS,
) -> dict[str, Number]:
    """Every asked-for measure of one instance; with ``elapsed``, each one's computation-aware ``_CA`` twin too.

    Args:
        delays: One delay per target token; empty: the instance has no latency ({}).
        source_length: The source's length in the delays' unit (> 0).
        reference_length: The reference's length (`reference_length`); None: the hypothesis'.
        elapsed: The computation-aware times, one per token; None or empty: no ``_CA`` values.
        source: "text" or "speech" (ATD's token lengths).
        measures: Which of `MEASURES`.
        word_ms: ATD's word of a speech source, in the delays' unit.

    Returns:
        Measure name -> value.

    Raises:
        ValueError: ``source_length`` is not > 0, a reference length of 0 where AL,
            LAAL or AP divides by it, or ``elapsed`` and ``delays`` differ in length.

    >>> sentence_latency([320, 320, 960], 1000, 3, elapsed=[400, 410, 1100], measures=("AL", "StartOffset"))
    {'AL': 200.0, 'StartOffset': 320, 'AL_CA': 303.3333333333333, 'StartOffset_CA': 400}
    """
    if not source_length > 0:
        raise ValueError(f"the source length must be > 0, got {source_length!r}")
    if elapsed is not None and len(elapsed) not in (0, len(delays)):
        raise ValueError(f"elapsed has {len(elapsed)} times for {len(delays)} delays")
    if reference_length == 0 and {"AL", "LAAL", "AP"} & set(measures):
        raise ValueError("the reference length is 0: AL and AP divide by it (an empty reference)")
    if not delays:
        return {}
    values = {m: _measure(m, delays, source_length, reference_length, None, source, word_ms) for m in measures}
    if elapsed:
        for m in measures:
            values[f"{m}_CA"] = _measure(m, elapsed, source_length, reference_length, delays, source, word_ms)
    return values


def _measure(
    name: str,
    times: Sequence[Number],
    source_length: Number,
    target_length: int | None,
    delays: Sequence[Number] | None,
    source: str,
    word_ms: float,
) -> Number:
    """One measure of ``times``; computation aware when ``delays`` is given (``times`` are then the elapsed times)."""
    if name == "AL":
        return average_lagging(times, source_length, target_length)
    if name == "LAAL":
        return length_adaptive_average_lagging(times, source_length, target_length)
    if name == "AP":
        return average_proportion(times, source_length, target_length)
    if name == "DAL":
        return differentiable_average_lagging(times, source_length)
    if name == "ATD":  # chunks follow the delays; elapsed only adds the computing time
        return average_token_delay(delays or times, source, times if delays else None, word_ms)
    if name == "StartOffset":
        return start_offset(times)
    if name == "EndOffset":
        return end_offset(times, source_length)
    raise ValueError(f"unknown latency measure {name!r}: one of {', '.join(MEASURES)}")
