"""The measures `SignalMetrics` can compute, by name (`MEASURES`), and the checks and sums around them.

Each `Measure` names its function (in `lightscore.audio.signal`: torch,
lightscore's fast approximations; `lightscore.audio.mel_cepstrum`,
`lightscore.audio.world_pitch` and `lightscore.audio.pesq_stoi`: numpy,
equal to ESPnet2 and the PESQ and STOI packages), its label, its direction and
what it needs. Per-utterance values are summed as fixed-point integers
(`to_fixed`), so merging ranks or shards gives the single-run mean bit for bit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

from lightscore.audio import world_pitch
from lightscore.audio.mel_cepstrum import ESPNET_MCEP_PARAMS, mcd_dtw
from lightscore.audio.pesq_stoi import estoi, pesq_nb, pesq_wb, stoi
from lightscore.audio.signal import f0_corr, f0_rmse, lsd, mcd, sdr, si_snr, snr

__all__ = [
    "FIXED_POINT",
    "MEASURES",
    "Measure",
    "check_rate",
    "check_score_config",
    "measure_calls",
    "to_fixed",
    "world_f0_scores",
]

FIXED_POINT = 2**32
"""Per-utterance values are summed as ``round(value * FIXED_POINT)``: integer sums do not depend on order."""


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
_NO_VOICED, _FLAT = world_pitch.UNDEFINED_F0["f0_rmse"], world_pitch.UNDEFINED_F0["f0_corr"]

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
    "stoi": Measure(stoi, "STOI", True, numpy=True),
    "estoi": Measure(estoi, "ESTOI", True, numpy=True),
}


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


def check_rate(sample_rate: Any) -> int:
    """Return ``sample_rate`` if it is a positive int, else raise ValueError.

    Args:
        sample_rate: A rate in Hz.

    Returns:
        The rate.

    Raises:
        ValueError: not a positive int.

    >>> check_rate(16000)
    16000
    >>> check_rate(16000.0)
    Traceback (most recent call last):
    ...
    ValueError: sample_rate must be a positive int (Hz), got 16000.0
    """
    if isinstance(sample_rate, bool) or not isinstance(sample_rate, int) or sample_rate <= 0:
        raise ValueError(f"sample_rate must be a positive int (Hz), got {sample_rate!r}")
    return sample_rate


def to_fixed(value: float) -> int:
    """``value`` as an integer count of 1 / `FIXED_POINT` (about 2.3e-10).

    Float addition depends on the order, integer addition does not: summed this
    way, shards merged in any order give exactly the single-run mean.

    Args:
        value: A finite float.

    Returns:
        ``round(value * FIXED_POINT)``.

    >>> to_fixed(0.5), to_fixed(-1.0) / FIXED_POINT
    (2147483648, -1.0)
    """
    return round(value * FIXED_POINT)
