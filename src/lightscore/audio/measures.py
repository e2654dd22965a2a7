"""The measures `SignalMetrics` can compute, by name (`MEASURES`), and the checks and sums around them.

Each `Measure` names its function (in `lightscore.audio.signal`: torch,
lightscore's fast approximations; `lightscore.audio.mel_cepstrum`,
`lightscore.audio.world_pitch` and `lightscore.audio.pesq_stoi`: numpy,
equal to ESPnet2 and the PESQ and STOI packages), its label, its direction and
what it needs. Per-utterance values are summed as fixed-point integers
(`lightscore.audio.fixed_point.to_fixed`), so merging ranks or shards gives the single-run mean bit for bit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

import torch

from lightscore.audio import world_pitch
from lightscore.audio.checks import check_rate
from lightscore.audio.files import trim_to_common_length
from lightscore.audio.fixed_point import FIXED_POINT, to_fixed
from lightscore.audio.mel_cepstrum import ESPNET_MCEP_PARAMS, mcd_dtw
from lightscore.audio.pesq_stoi import STOI_MIN_FRAMES, estoi, pesq_nb, pesq_wb, stoi
from lightscore.audio.signal import f0_corr, f0_rmse, lsd, mcd, sdr, si_snr, snr
from lightscore.core.contract import Field

__all__ = [
    "FIXED_POINT",
    "MEASURES",
    "UNDEFINED_SUFFIX",
    "Measure",
    "check_rate",
    "check_score_config",
    "measure_calls",
    "to_fixed",
    "output_fields",
    "score_channel",
    "score_utterance",
    "world_f0_scores",
]


class Measure(NamedTuple):
    """How `SignalMetrics` computes one measure, and what its value means.

    ``function(hyp, ref, sample_rate, **options)`` gets one channel of each
    signal at the metric's rate: torch tensors, or float64 numpy arrays when
    ``numpy`` is true. It returns the value, or None where the measure is
    undefined (``undefined`` says when). Measures with ``shared=True`` and the
    same function come from ONE call, which returns all their values by name.
    ``aligned`` measures compare samples one to one, so hyp and ref are first
    trimmed to a common length (at most 10% apart); the others align frames by
    DTW and take any lengths. ``options`` are the `SignalMetrics` attributes
    passed as keywords; ``rates`` the sample rates the measure supports (empty:
    any).

    >>> MEASURES["vde"].label, MEASURES["vde"].higher_is_better, MEASURES["vde"].options
    ('VDE', False, ('f0_method',))
    """

    function: Callable[..., Any]
    label: str
    higher_is_better: bool
    undefined: str = ""
    numpy: bool = False
    aligned: bool = True
    shared: bool = False
    options: tuple[str, ...] = ()
    rates: tuple[int, ...] = ()


def world_f0_scores(hyp: Any, ref: Any, sample_rate: int, f0_method: str = "harvest") -> dict[str, float | None]:
    """`lightscore.audio.world_pitch.world_f0_measures` under the names of `MEASURES`.

    One WORLD extraction per signal and one DTW give all four values.

    Args:
        hyp, ref: 1-D float arrays at ``sample_rate`` (any lengths).
        sample_rate: One of ESPnet's mel-cepstrum rates (16000, 22050, 24000, 44100, 48000).
        f0_method: ``"harvest"`` (ESPnet's) or ``"dio"`` (dio + stonemask, over 20x faster).

    Returns:
        ``f0_rmse_dtw``, ``f0_corr_dtw``, ``log_f0_rmse_dtw`` (None where undefined) and ``vde``.

    Raises:
        ValueError: a silent or non-finite signal, an unknown method or rate.

    >>> import numpy as np
    >>> t = np.arange(16000) / 16000
    >>> scores = world_f0_scores(0.3 * np.sin(2 * np.pi * 220 * t), 0.3 * np.sin(2 * np.pi * 200 * t), 16000, "dio")
    >>> sorted(scores), round(scores["f0_rmse_dtw"]), scores["vde"]
    (['f0_corr_dtw', 'f0_rmse_dtw', 'log_f0_rmse_dtw', 'vde'], 20, 0.0)
    """
    values = world_pitch.world_f0_measures(hyp, ref, sample_rate, f0_method)
    return {
        "f0_rmse_dtw": values["f0_rmse"],
        "f0_corr_dtw": values["f0_corr"],
        "log_f0_rmse_dtw": values["log_f0_rmse"],
        "vde": values["vde"],
    }


_DTW = {"numpy": True, "aligned": False, "rates": tuple(ESPNET_MCEP_PARAMS)}
_WORLD = {**_DTW, "shared": True, "options": ("f0_method",)}
_NO_VOICED = world_pitch.UNDEFINED_F0["f0_rmse"]
_FLAT = world_pitch.UNDEFINED_F0["f0_corr"]
_SHORT = (
    f"fewer than {STOI_MIN_FRAMES} STFT frames (about 0.4 s of speech) are left after pystoi's silent-frame removal"
)

MEASURES: dict[str, Measure] = {
    # lightscore's fast approximations (torch; frames paired one to one)
    "si_snr": Measure(si_snr, "SI-SNR (dB)", True),
    "snr": Measure(snr, "SNR (dB)", True),
    "sdr": Measure(sdr, "SDR (dB)", True),
    "lsd": Measure(lsd, "LSD", False),
    "mcd": Measure(mcd, "MCD (dB)", False),
    "f0_rmse": Measure(f0_rmse, "F0 RMSE (Hz)", False, "no frame is voiced in both hyp and ref"),
    "f0_corr": Measure(f0_corr, "F0 correlation", True, "F0 does not vary over two or more frames voiced in both"),
    # equal to ESPnet2's evaluate_mcd.py / evaluate_f0.py (numpy, DTW)
    "mcd_dtw": Measure(mcd_dtw, "MCD, DTW (dB)", False, **_DTW),
    "f0_rmse_dtw": Measure(world_f0_scores, "F0 RMSE, DTW (Hz)", False, _NO_VOICED, **_WORLD),
    "f0_corr_dtw": Measure(world_f0_scores, "F0 correlation, DTW", True, _FLAT, **_WORLD),
    "log_f0_rmse_dtw": Measure(world_f0_scores, "log-F0 RMSE, DTW", False, _NO_VOICED, **_WORLD),
    "vde": Measure(world_f0_scores, "VDE", False, **_WORLD),
    # equal to the pesq and pystoi packages (numpy, sample-aligned)
    "pesq_wb": Measure(pesq_wb, "PESQ wide-band", True, numpy=True),
    "pesq_nb": Measure(pesq_nb, "PESQ narrow-band", True, numpy=True),
    "stoi": Measure(stoi, "STOI", True, _SHORT, numpy=True),
    "estoi": Measure(estoi, "ESTOI", True, _SHORT, numpy=True),
}

UNDEFINED_SUFFIX = "_undefined"
"""``<measure>_undefined``: the optional output counting the utterances left out of that measure's mean."""


def output_fields(score_config: Sequence[str]) -> tuple[Field, ...]:
    """The outputs of ``SignalMetrics(score_config)``: each measure, then a count per measure that can be undefined.

    The count ``<name>_undefined`` (optional: present when some utterance was
    left out of ``<name>``'s mean) says how many utterances did not define it.

    Args:
        score_config: Names of `MEASURES`.

    Returns:
        The declared outputs.

    >>> [(f.name, f.optional) for f in output_fields(["snr", "stoi"])]
    [('snr', False), ('stoi', False), ('stoi_undefined', True)]
    >>> output_fields(["f0_rmse_dtw"])[1].label
    'F0 RMSE, DTW (Hz): utterances left out'
    """
    values = [Field(name, "number", label=MEASURES[name].label) for name in score_config]
    counts = [
        Field(name + UNDEFINED_SUFFIX, "number", label=f"{MEASURES[name].label}: utterances left out", optional=True)
        for name in score_config
        if MEASURES[name].undefined
    ]
    return (*values, *counts)


def score_channel(
    calls: Sequence[tuple[Measure, list[str]]],
    hyp: torch.Tensor,
    ref: torch.Tensor,
    sample_rate: int,
    options: Mapping[str, Any],
    where: str,
) -> dict[str, float | None]:
    """Every measure of ``calls`` (`measure_calls`) on one channel pair, each function called once.

    Args:
        calls: What to compute.
        hyp, ref: One channel of each, ``(time,)``, at ``sample_rate``.
        sample_rate: Their rate.
        options: Where each measure's ``options`` are looked up by name (``f0_method``).
        where: The row's files, put before any error.

    Returns:
        Measure name -> value (None where undefined).

    Raises:
        ValueError: the measure refused the pair (silent audio, a length mismatch...), naming the files.

    >>> t = torch.arange(16000) / 16000
    >>> score_channel(measure_calls(["snr"]), torch.zeros(16000), torch.sin(2 * torch.pi * 200 * t), 16000, {}, "u1")
    {'snr': -100.0}
    """
    forms: dict[tuple[bool, bool], tuple[Any, Any]] = {}  # made once per channel, shared by the measures

    def form(measure: Measure) -> tuple[Any, Any]:
        key = (measure.aligned, measure.numpy)
        if key not in forms:
            pair = trim_to_common_length(hyp, ref, where) if measure.aligned else (hyp, ref)
            forms[key] = tuple(x.double().numpy() for x in pair) if measure.numpy else pair
        return forms[key]

    values: dict[str, float | None] = {}
    for measure, names in calls:
        try:
            value = measure.function(*form(measure), sample_rate, **{name: options[name] for name in measure.options})
        except ValueError as e:
            raise ValueError(f"{where}: {e}") from None
        values.update(value if measure.shared else {names[0]: value})
    return {name: values[name] for _, names in calls for name in names}


def score_utterance(
    calls: Sequence[tuple[Measure, list[str]]],
    hyp: torch.Tensor,
    ref: torch.Tensor,
    sample_rate: int,
    options: Mapping[str, Any],
    where: str,
) -> dict[str, float | None]:
    """Each measure of one utterance: the mean over its channels that define it (`score_channel` per channel).

    Args:
        calls, sample_rate, options, where: As `score_channel`.
        hyp, ref: ``(time,)`` or ``(channels, time)``, the same channel count.

    Returns:
        Measure name -> value (None where no channel defines it).

    Raises:
        ValueError: different channel counts, or a measure refused a channel.

    >>> t = torch.arange(16000) / 16000
    >>> tone = torch.sin(2 * torch.pi * 200 * t)
    >>> scores = score_utterance(measure_calls(["snr"]), torch.stack([tone, 0.9 * tone]), torch.stack([tone, tone]),
    ...                          16000, {}, "")
    >>> round(scores["snr"], 3)  # the mean of 100 (clamped) and 20 dB
    60.0
    """
    if hyp.shape[:-1] != ref.shape[:-1]:
        raise ValueError(f"{where}: hyp has {hyp.shape[0]} channel(s) and ref {ref.shape[0]}")
    pairs = zip(hyp.reshape(-1, hyp.shape[-1]), ref.reshape(-1, ref.shape[-1]))
    channels = [score_channel(calls, h, r, sample_rate, options, where) for h, r in pairs]
    scores = {}
    for name in channels[0]:
        defined = [channel[name] for channel in channels if channel[name] is not None]
        scores[name] = sum(defined) / len(defined) if defined else None
    return scores


def check_score_config(score_config: Iterable[str]) -> list[str]:
    """Return the measure names of ``score_config``, checked against `MEASURES`.

    Args:
        score_config: Measure names, each once.

    Returns:
        The names, as a list.

    Raises:
        TypeError: ``score_config`` is a string or not iterable.
        ValueError: an unknown or repeated name, or none at all.

    >>> check_score_config(["snr", "mcd"])
    ['snr', 'mcd']
    >>> check_score_config(["snr", "pesq"])
    Traceback (most recent call last):
    ...
    ValueError: SignalMetrics: unknown measure(s) 'pesq' in score_config; known: si_snr, snr, sdr, lsd, mcd, ...
    """
    if isinstance(score_config, (str, bytes)) or not isinstance(score_config, Iterable):
        raise TypeError(f"SignalMetrics: score_config must be a list of measure names, got {score_config!r}")
    names = [str(name) for name in score_config]
    unknown = [name for name in names if name not in MEASURES]
    if unknown:
        raise ValueError(
            f"SignalMetrics: unknown measure(s) {', '.join(map(repr, unknown))} in score_config; "
            f"known: {', '.join(MEASURES)}"
        )
    if not names or len(set(names)) != len(names):
        raise ValueError(f"SignalMetrics: score_config must name each measure once, at least one, got {names}")
    return names


def measure_calls(score_config: Sequence[str]) -> list[tuple[Measure, list[str]]]:
    """The function calls that compute ``score_config``: one per shared function, with the names it yields.

    Args:
        score_config: Names of `MEASURES`.

    Returns:
        ``(measure, names)`` in the order of first mention; ``names`` has one
        entry unless the measure is ``shared``.

    >>> [names for _, names in measure_calls(["vde", "snr", "f0_rmse_dtw"])]
    [['vde', 'f0_rmse_dtw'], ['snr']]
    """
    calls: dict[Any, tuple[Measure, list[str]]] = {}
    for name in score_config:
        measure = MEASURES[name]
        calls.setdefault(measure.function if measure.shared else name, (measure, []))[1].append(name)
    return list(calls.values())
