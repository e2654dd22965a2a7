"""Audio metrics on torch and torchaudio: `SignalMetrics` (VERSA-style) and `SpeakerSimilarity`.

The audio inputs are SCP lines whose value is a WAV path. `read_audio` reads
one with soundfile, keeps the channels its `Field` asks for and resamples it
with torchaudio to the metric's ``sample_rate``. Every state is a "sum" of
fixed-point integers and a count per measure, so merging ranks or shards gives
the single-run result bit for bit. This module is the only one that imports
torch and torchaudio: ``import lightscore.metrics`` stays light.

>>> import pathlib, tempfile
>>> import numpy as np, soundfile as sf
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> t = np.arange(16000) / 16000
>>> clean = 0.5 * np.sin(2 * np.pi * 220 * t)
>>> sf.write(d / "ref.wav", clean, 16000, subtype="FLOAT")
>>> sf.write(d / "hyp.wav", clean + 0.05 * np.cos(2 * np.pi * 1000 * t), 16000, subtype="FLOAT")
>>> _ = (d / "ref.scp").write_text(f"utt1 {d / 'ref.wav'}\\n")
>>> _ = (d / "hyp.scp").write_text(f"utt1 {d / 'hyp.wav'}\\n")
>>> result = SignalMetrics(["snr", "si_snr"])({"hyp": d / "hyp.scp", "ref": d / "ref.scp"}, "test")
>>> {name: round(value, 2) for name, value in result.items()}
{'snr': 20.0, 'si_snr': 20.0}
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

import soundfile
import torch
import torchaudio

from ..contract import Field, metric_name
from ..metric import BaseMetric

MAX_DB = 100.0
"""Ratios in dB are clamped to [-MAX_DB, MAX_DB]: a perfect copy would otherwise score +inf."""
FIXED_POINT = 2**32
"""Per-utterance values are summed as ``round(value * FIXED_POINT)``: integer sums do not depend on order."""
LENGTH_TOLERANCE = 0.1
"""hyp and ref may differ by at most this fraction of the longer one; the longer is trimmed."""

SDR_FILTER_TAPS = 512
LSD_N_FFT, LSD_HOP, LSD_FLOOR = 2048, 512, 1e-8
MFCC_WINDOW_S, MFCC_HOP_S, MFCC_N_MELS, MFCC_N_MFCC = 0.025, 0.010, 40, 13
MCD_CONSTANT = 10.0 / math.log(10.0) * math.sqrt(2.0)
F0_MIN_HZ, F0_MAX_HZ, F0_FRAME_S, F0_MEDIAN_FRAMES = 60, 500, 0.01, 5
VOICING_PERIODICITY, VOICING_FLOOR_DB = 0.5, 30.0


# -- reading -----------------------------------------------------------------------


def read_audio(path: str, channels: int | None = 1, sample_rate: int = 16000, where: str = "") -> torch.Tensor:
    """Read a WAV file as float32 at ``sample_rate``, keeping the channels ``channels`` asks for.

    ``channels=1``: the first channel, 1-D ``(time,)``; ``None``: every channel,
    ``(channels, time)``; ``N``: exactly N channels ``(N, time)``, else a
    ValueError naming the file. Another rate is resampled with torchaudio.

    >>> import pathlib, tempfile
    >>> import numpy as np, soundfile as sf
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "stereo.wav"
    >>> sf.write(p, np.zeros((8000, 2)), 8000)
    >>> read_audio(p).shape, read_audio(p, None).shape, read_audio(p, 2, sample_rate=8000).shape
    (torch.Size([16000]), torch.Size([2, 16000]), torch.Size([2, 8000]))
    >>> read_audio(p, 3, where="utterance 'u1'")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: utterance 'u1': .../stereo.wav has 2 channel(s), but 3 are declared
    """
    prefix = f"{where}: " if where else ""
    if not str(path):
        raise ValueError(f"{prefix}the SCP value is empty, not a WAV path")
    try:
        data, rate = soundfile.read(str(path), dtype="float32", always_2d=True)
    except (RuntimeError, OSError) as e:
        raise ValueError(f"{prefix}cannot read {path}: {e}") from None
    found = data.shape[1]
    if channels is not None and channels > 1 and found != channels:
        raise ValueError(f"{prefix}{path} has {found} channel(s), but {channels} are declared")
    if data.shape[0] == 0:
        raise ValueError(f"{prefix}{path} holds no samples")
    wave = torch.from_numpy(data.T.copy())
    if channels == 1:
        wave = wave[0]
    if rate != sample_rate:
        wave = torchaudio.functional.resample(wave, rate, sample_rate)
    return wave


def trim_to_common_length(hyp: torch.Tensor, ref: torch.Tensor, where: str = "") -> tuple[torch.Tensor, torch.Tensor]:
    """Trim both signals to the shorter length; a mismatch over 10% of the longer is a ValueError.

    >>> h, r = trim_to_common_length(torch.zeros(100), torch.zeros(95))
    >>> h.shape, r.shape
    (torch.Size([95]), torch.Size([95]))
    >>> trim_to_common_length(torch.zeros(100), torch.zeros(80), "utterance 'u1'")
    Traceback (most recent call last):
    ...
    ValueError: utterance 'u1': hyp has 100 samples and ref 80; they differ by 20.0% of the longer, over the 10% allowed
    """
    n, m = hyp.shape[-1], ref.shape[-1]
    longer, shorter = max(n, m), min(n, m)
    if longer - shorter > LENGTH_TOLERANCE * longer:
        prefix = f"{where}: " if where else ""
        raise ValueError(
            f"{prefix}hyp has {n} samples and ref {m}; they differ by {(longer - shorter) / longer:.1%} "
            f"of the longer, over the {LENGTH_TOLERANCE:.0%} allowed"
        )
    return hyp[..., :shorter], ref[..., :shorter]


# -- measures on one channel -------------------------------------------------------


def db_ratio(signal_energy: float, error_energy: float) -> float:
    """``10 log10(signal / error)``, clamped to ±`MAX_DB`; no error at all is +`MAX_DB`.

    >>> db_ratio(100.0, 1.0), db_ratio(1.0, 0.0), db_ratio(0.0, 1.0)
    (20.0, 100.0, -100.0)
    """
    if error_energy <= 0:
        return MAX_DB
    if signal_energy <= 0:
        return -MAX_DB
    return max(-MAX_DB, min(MAX_DB, 10.0 * math.log10(signal_energy / error_energy)))


def snr(hyp: torch.Tensor, ref: torch.Tensor, sample_rate: int = 16000) -> float:
    """Signal-to-noise ratio in dB: ``10 log10(sum ref^2 / sum (hyp - ref)^2)``, no scaling.

    >>> snr(torch.tensor([1.0, -1.0, 1.0, -1.0]), torch.tensor([1.0, -1.0, 1.0, -1.0]) * 0.9)
    19.08...
    """
    hyp, ref = hyp.double(), ref.double()
    return db_ratio(ref.pow(2).sum().item(), (hyp - ref).pow(2).sum().item())


def si_snr(hyp: torch.Tensor, ref: torch.Tensor, sample_rate: int = 16000) -> float:
    """Scale-invariant SNR in dB: both signals made zero-mean, ref scaled to its best fit of hyp.

    ``target = (<hyp, ref> / <ref, ref>) ref``;
    ``si_snr = 10 log10(|target|^2 / |hyp - target|^2)``. Gain does not matter:

    >>> ref = torch.sin(torch.arange(1000) / 5.0)
    >>> round(si_snr(3 * ref + 0.01 * torch.cos(torch.arange(1000) / 3.0), ref), 1)
    49.5
    """
    hyp, ref = hyp.double() - hyp.double().mean(), ref.double() - ref.double().mean()
    ref_energy = ref.pow(2).sum()
    scale = (hyp @ ref) / ref_energy if ref_energy > 0 else 0.0
    target = scale * ref
    return db_ratio(target.pow(2).sum().item(), (hyp - target).pow(2).sum().item())


def sdr(hyp: torch.Tensor, ref: torch.Tensor, sample_rate: int = 16000) -> float:
    """Signal-to-distortion ratio in dB, BSS-eval style for one source (no SIR, SAR or permutation).

    The target is the projection of hyp onto ref filtered by any causal FIR
    filter of `SDR_FILTER_TAPS` taps (least squares, solved from the Toeplitz
    autocorrelation of ref): ``sdr = 10 log10(|target|^2 / |hyp - target|^2)``.
    This is ``torchmetrics.functional.signal_distortion_ratio`` (filter_length
    512, zero_mean False). A short delay costs little
    (here only the 3 samples pushed past the end), where `snr` collapses:

    >>> ref = torch.randn(4000, generator=torch.Generator().manual_seed(0))
    >>> delayed = torch.cat([torch.zeros(3), ref[:-3]])
    >>> round(snr(delayed, ref), 1), round(sdr(delayed, ref), 1)
    (-3.0, 38.2)
    """
    hyp, ref = hyp.double(), ref.double()
    taps = min(SDR_FILTER_TAPS, ref.shape[-1])
    size = 2 ** math.ceil(math.log2(2 * ref.shape[-1] - 1))
    ref_fft = torch.fft.rfft(ref, n=size)
    autocorr = torch.fft.irfft(ref_fft.abs().pow(2), n=size)[:taps]
    crosscorr = torch.fft.irfft(ref_fft.conj() * torch.fft.rfft(hyp, n=size), n=size)[:taps]
    if autocorr[0] <= 0:
        return db_ratio(0.0, hyp.pow(2).sum().item())
    lags = torch.arange(taps)
    toeplitz = autocorr[(lags[:, None] - lags[None, :]).abs()]
    # A pure tone's Toeplitz matrix is nearly singular; a tiny diagonal load keeps the solve stable.
    toeplitz += torch.eye(taps, dtype=toeplitz.dtype) * autocorr[0] * 1e-12
    target_energy = (crosscorr @ torch.linalg.solve(toeplitz, crosscorr)).item()
    return db_ratio(target_energy, hyp.pow(2).sum().item() - target_energy)


def lsd(hyp: torch.Tensor, ref: torch.Tensor, sample_rate: int = 16000) -> float:
    """Log-spectral distance: ``mean_t sqrt(mean_f (log10 P_ref - log10 P_hyp)^2)``.

    ``P = |STFT|^2 + 1e-8`` with a Hann window of `LSD_N_FFT` (2048) samples,
    hop `LSD_HOP` (512), zero-padded centred frames; log10 of power, not dB.

    >>> x = torch.randn(16000, generator=torch.Generator().manual_seed(0))
    >>> lsd(x, x), round(lsd(0.1 * x, x), 3)
    (0.0, 2.0)
    """
    both = torch.stack([ref, hyp]).float()
    spec = torch.stft(
        both, LSD_N_FFT, LSD_HOP, window=torch.hann_window(LSD_N_FFT), pad_mode="constant", return_complex=True
    )
    log_power = torch.log10(spec.abs().pow(2) + LSD_FLOOR)
    return (log_power[0] - log_power[1]).pow(2).mean(dim=0).sqrt().mean().item()


@functools.lru_cache(maxsize=8)
def mfcc_transform(sample_rate: int) -> torchaudio.transforms.MFCC:
    """The MFCC front end of `mcd` at ``sample_rate`` (see `mcd` for its constants)."""
    window = round(MFCC_WINDOW_S * sample_rate)
    melkwargs = {
        "n_fft": 2 ** math.ceil(math.log2(window)),
        "win_length": window,
        "hop_length": round(MFCC_HOP_S * sample_rate),
        "n_mels": MFCC_N_MELS,
        "power": 1.0,
        "pad_mode": "constant",
    }
    return torchaudio.transforms.MFCC(sample_rate, n_mfcc=MFCC_N_MFCC, norm="ortho", log_mels=True, melkwargs=melkwargs)


def mcd(hyp: torch.Tensor, ref: torch.Tensor, sample_rate: int = 16000) -> float:
    """Mel-cepstral distortion in dB between frames aligned one to one (no DTW).

    ``mcd = mean_t (10 / ln 10) sqrt(2 sum_{d=1}^{12} (c_ref[t, d] - c_hyp[t, d])^2)``,
    c0 (energy) left out. ``c`` are 13 MFCCs from ``torchaudio.transforms.MFCC``:
    an orthonormal DCT-II of the natural log of (40-band mel *magnitude*
    spectrum + 1e-6); Hann window 25 ms, hop 10 ms, FFT size the next power of
    two (512 at 16 kHz), mel bands 0 Hz to sample_rate/2, centred zero-padded
    frames. The 10 sqrt(2) / ln 10 constant is Kubichek's; the values compare
    between runs of this library, not with SPTK mel-cepstrum MCDs.

    >>> x = torch.randn(16000, generator=torch.Generator().manual_seed(0))
    >>> mcd(x, x), mcd(0.5 * x, x) > 0
    (0.0, True)
    """
    coefficients = mfcc_transform(sample_rate)(torch.stack([ref, hyp]).float())
    diff = coefficients[0, 1:] - coefficients[1, 1:]
    return (MCD_CONSTANT * diff.pow(2).sum(dim=0).sqrt()).mean().item()


def periodicity(frames: torch.Tensor, padded: torch.Tensor, index: torch.Tensor, lags: torch.Tensor) -> torch.Tensor:
    """Normalized correlation of each frame with the samples ``lags`` later; ``lags`` is ``(frames, k)``."""
    later = padded[index[:, None, :] + lags[..., None]]
    products = (frames[:, None, :] * later).sum(-1)
    return products / (frames.pow(2).sum(-1)[:, None] * later.pow(2).sum(-1)).sqrt().clamp_min(1e-30)


def pitch_track(wave: torch.Tensor, sample_rate: int = 16000) -> tuple[torch.Tensor, torch.Tensor]:
    """Return ``(f0, voiced)`` per 10 ms frame: f0 in Hz and a voicing decision.

    The period comes from ``torchaudio.functional.detect_pitch_frequency``
    (NCCF, 60-500 Hz, 5-frame median), then the shortest of it and its 1/2,
    1/3 and 1/4 whose periodicity is within 10% of the best is kept, because
    the NCCF peak at twice the period is as high as at the period itself. The
    periodicity of a frame is its normalized correlation with the samples one
    period later; a frame is voiced when that is at least 0.5 and its energy is
    within 30 dB of the loudest frame.

    >>> t = torch.arange(16000) / 16000
    >>> f0, voiced = pitch_track(torch.sin(2 * torch.pi * 250 * t) * (t > 0.5))
    >>> f0[voiced].unique().tolist(), voiced[:40].any().item()
    ([250.0], False)
    """
    frame = math.ceil(sample_rate * F0_FRAME_S)
    if wave.shape[-1] < frame * F0_MEDIAN_FRAMES:
        return torch.zeros(0, dtype=torch.float64), torch.zeros(0, dtype=torch.bool)
    f0 = torchaudio.functional.detect_pitch_frequency(
        wave.float(), sample_rate, F0_FRAME_S, F0_MEDIAN_FRAMES, F0_MIN_HZ, F0_MAX_HZ
    )
    lag = torch.round(sample_rate / f0.double()).long()
    candidates = torch.stack([torch.round(lag / k).long() for k in (1, 2, 3, 4)], dim=-1)
    index = (torch.arange(f0.shape[-1]) * frame)[:, None] + torch.arange(frame)[None, :]
    padded = torch.nn.functional.pad(wave.double(), (0, frame + int(lag.max())))
    frames = padded[index]
    scores = periodicity(frames, padded, index, candidates)
    scores[candidates < math.ceil(sample_rate / F0_MAX_HZ)] = -1.0
    good = scores >= 0.9 * scores.max(dim=-1, keepdim=True).values
    choice = (good * torch.arange(1, 5)).argmax(dim=-1, keepdim=True)
    energy = frames.pow(2).sum(-1)
    loud = (energy > 0) & (energy >= energy.max() * 10 ** (-VOICING_FLOOR_DB / 10))
    voiced = (scores.gather(-1, choice)[:, 0] >= VOICING_PERIODICITY) & loud
    return sample_rate / candidates.gather(-1, choice)[:, 0].double(), voiced


def voiced_f0_pairs(hyp: torch.Tensor, ref: torch.Tensor, sample_rate: int) -> tuple[torch.Tensor, torch.Tensor]:
    """F0 of hyp and of ref over the frames voiced in both."""
    f0_hyp, voiced_hyp = pitch_track(hyp, sample_rate)
    f0_ref, voiced_ref = pitch_track(ref, sample_rate)
    both = voiced_hyp & voiced_ref
    return f0_hyp[both], f0_ref[both]


def f0_rmse(hyp: torch.Tensor, ref: torch.Tensor, sample_rate: int = 16000) -> float | None:
    """RMS difference of F0 in Hz over frames voiced in both (see `pitch_track`); None when there are none.

    >>> t = torch.arange(16000) / 16000
    >>> f0_rmse(torch.sin(2 * torch.pi * 250 * t), torch.sin(2 * torch.pi * 200 * t))
    50.0
    """
    f0_hyp, f0_ref = voiced_f0_pairs(hyp, ref, sample_rate)
    if f0_hyp.numel() == 0:
        return None
    return (f0_hyp - f0_ref).pow(2).mean().sqrt().item()


def f0_corr(hyp: torch.Tensor, ref: torch.Tensor, sample_rate: int = 16000) -> float | None:
    """Pearson correlation of F0 over frames voiced in both; None unless both F0s vary there.

    >>> t = torch.arange(16000) / 16000
    >>> f0_corr(torch.sin(2 * torch.pi * 250 * t), torch.sin(2 * torch.pi * 200 * t)) is None
    True
    """
    f0_hyp, f0_ref = voiced_f0_pairs(hyp, ref, sample_rate)
    if f0_hyp.numel() < 2:
        return None
    f0_hyp, f0_ref = f0_hyp - f0_hyp.mean(), f0_ref - f0_ref.mean()
    norm = (f0_hyp.pow(2).sum() * f0_ref.pow(2).sum()).sqrt()
    return None if norm == 0 else ((f0_hyp @ f0_ref) / norm).item()


class Measure(NamedTuple):
    """One measure `SignalMetrics` can compute; ``undefined`` says when it has no value."""

    function: Callable[[torch.Tensor, torch.Tensor, int], float | None]
    needs_ref: bool
    label: str
    undefined: str = ""


MEASURES: dict[str, Measure] = {
    "si_snr": Measure(si_snr, True, "SI-SNR (dB)"),
    "snr": Measure(snr, True, "SNR (dB)"),
    "sdr": Measure(sdr, True, "SDR (dB)"),
    "lsd": Measure(lsd, True, "LSD"),
    "mcd": Measure(mcd, True, "MCD (dB)"),
    "f0_rmse": Measure(f0_rmse, True, "F0 RMSE (Hz)", "no frame is voiced in both hyp and ref"),
    "f0_corr": Measure(f0_corr, True, "F0 correlation", "F0 does not vary over two or more frames voiced in both"),
}


def check_score_config(score_config: Iterable[str]) -> list[str]:
    """Return the measure names of ``score_config``; an unknown or repeated one is a ValueError.

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


def check_rate(sample_rate: Any) -> int:
    """Return ``sample_rate`` if it is a positive int, else raise ValueError.

    >>> check_rate(16000)
    16000
    """
    if isinstance(sample_rate, bool) or not isinstance(sample_rate, int) or sample_rate <= 0:
        raise ValueError(f"sample_rate must be a positive int (Hz), got {sample_rate!r}")
    return sample_rate


def to_fixed(value: float) -> int:
    """``value`` as an integer count of 1 / `FIXED_POINT` (about 2.3e-10).

    Float addition depends on the order, integer addition does not: summed this
    way, shards merged in any order give exactly the single-run mean.

    >>> to_fixed(0.5), to_fixed(-1.0) / FIXED_POINT
    (2147483648, -1.0)
    """
    return round(value * FIXED_POINT)


# -- metrics -----------------------------------------------------------------------


class AudioMetric(BaseMetric):
    """What both audio metrics share: reading declared inputs and naming utterances in errors."""

    sample_rate: int = 16000
    _batch: tuple[list[str], Mapping[str, Any]] | None = None

    def iter_batches(self, data: Mapping[str, Any]) -> Iterator[tuple[list[str], dict[str, list[str]]]]:
        """`BaseMetric.iter_batches`, remembering each batch's ids so that errors in `update` can name them."""
        for ids, batch in super().iter_batches(data):
            self._batch = (ids, batch)
            yield ids, batch
        self._batch = None

    def describe(self, values: Mapping[str, Sequence[str]], row: int) -> str:
        """Name one row of a batch for an error: its utterance id when known, and its files."""
        files = ", ".join(f"{key} {paths[row]}" for key, paths in values.items())
        ids = None
        if self._batch is not None:
            # update() gets values only: the ids are known when these are the very lists iter_batches made.
            batch_ids, batch = self._batch
            ids = batch_ids if all(batch.get(key) is paths for key, paths in values.items()) else None
        who = f"utterance {ids[row]!r}" if ids else f"row {row} of the batch"
        return f"{metric_name(self)}: {who} ({files})"

    def read(self, name: str, path: str, where: str) -> torch.Tensor:
        """Read input ``name``'s WAV at ``path`` as its Field's ``channels`` say, at ``self.sample_rate``."""
        channels = next(field.channels for field in self.inputs if field.name == name)
        return read_audio(path, channels, self.sample_rate, where)


class SignalMetrics(AudioMetric):
    """Signal measures of ``hyp`` against ``ref``, chosen by ``score_config`` (VERSA-style).

    The declared outputs are exactly the configured names, each the mean over
    utterances of the per-utterance value (f0 measures: over the utterances
    where they are defined). ``channels`` applies to both inputs (see
    `read_audio`); a multichannel utterance scores each channel on its own and
    takes the mean.

    >>> m = SignalMetrics(["mcd", "snr"])
    >>> [f.name for f in m.outputs], [(f.name, f.optional) for f in m.inputs]
    (['mcd', 'snr'], [('hyp', False), ('ref', False)])
    >>> SignalMetrics(["pesq"])
    Traceback (most recent call last):
    ...
    ValueError: SignalMetrics: unknown measure(s) 'pesq' in score_config; known: si_snr, snr, sdr, lsd, mcd, ...
    """

    def __init__(self, score_config: Sequence[str], sample_rate: int = 16000, channels: int | None = 1) -> None:
        self.score_config = check_score_config(score_config)
        self.sample_rate = check_rate(sample_rate)
        needs_ref = any(MEASURES[name].needs_ref for name in self.score_config)
        self.inputs = (
            Field("hyp", "audio", channels=channels),
            Field("ref", "audio", optional=not needs_ref, channels=channels),
        )
        self.outputs = tuple(Field(name, "number", label=MEASURES[name].label) for name in self.score_config)
        self.add_state("utterances", 0, "sum")
        for name in self.score_config:
            self.add_state(f"{name}_sum", 0, "sum")
            self.add_state(f"{name}_count", 0, "sum")
        super().__init__()

    def score(self, hyp: torch.Tensor, ref: torch.Tensor | None, where: str) -> dict[str, float | None]:
        """Each configured measure of one utterance: the mean over its channels where defined."""
        if ref is not None:
            if hyp.shape[:-1] != ref.shape[:-1]:
                raise ValueError(f"{where}: hyp has {hyp.shape[0]} channel(s) and ref {ref.shape[0]}")
            hyp, ref = trim_to_common_length(hyp, ref, where)
        hyp_channels = hyp.reshape(-1, hyp.shape[-1])
        ref_channels = ref.reshape(-1, ref.shape[-1]) if ref is not None else [None] * len(hyp_channels)
        scores = {}
        for name in self.score_config:
            values = [MEASURES[name].function(h, r, self.sample_rate) for h, r in zip(hyp_channels, ref_channels)]
            defined = [v for v in values if v is not None]
            scores[name] = sum(defined) / len(defined) if defined else None
        return scores

    def update(self, *, hyp: Sequence[str], ref: Sequence[str] | None = None) -> None:
        """Read each (hyp, ref) pair of WAV paths and add its measures to the sums and counts."""
        values = {"hyp": hyp} if ref is None else {"hyp": hyp, "ref": ref}
        for row in range(len(hyp)):
            where = self.describe(values, row)
            ref_wave = self.read("ref", ref[row], where) if ref is not None else None
            scores = self.score(self.read("hyp", hyp[row], where), ref_wave, where)
            self.utterances += 1
            for name, value in scores.items():
                if value is not None:
                    setattr(self, f"{name}_sum", getattr(self, f"{name}_sum") + to_fixed(value))
                    setattr(self, f"{name}_count", getattr(self, f"{name}_count") + 1)

    def compute(self) -> dict[str, float]:
        """The mean of each configured measure over the utterances where it is defined."""
        if self.utterances == 0:
            raise ValueError(f"{metric_name(self)}: no utterance was scored, so there is nothing to compute")
        result = {}
        for name in self.score_config:
            count = getattr(self, f"{name}_count")
            if count == 0:
                raise ValueError(
                    f"{metric_name(self)}: {name} is undefined in all {self.utterances} utterance(s): "
                    f"{MEASURES[name].undefined}"
                )
            result[name] = getattr(self, f"{name}_sum") / (FIXED_POINT * count)
        return result


def build_embedder(embedder: Any) -> Callable[[torch.Tensor, int], Any]:
    """Return ``embedder`` if callable; a mapping with ``_target_`` is built with hydra first.

    A ``_target_`` naming a function needs ``_partial_: true``, or hydra would
    call it with no arguments.

    >>> build_embedder({"_target_": "math.hypot", "_partial_": True})(3.0, 4)
    5.0
    >>> build_embedder("ecapa")
    Traceback (most recent call last):
    ...
    TypeError: embedder must be a callable (waveform, sample_rate) -> 1-D embedding or a _target_ config; got 'ecapa'
    """
    if isinstance(embedder, Mapping):
        if "_target_" not in embedder:
            raise TypeError(f"embedder config {dict(embedder)!r} has no _target_")
        from hydra.utils import instantiate

        embedder = instantiate(embedder)
    if not callable(embedder):
        raise TypeError(
            "embedder must be a callable (waveform, sample_rate) -> 1-D embedding "
            f"or a _target_ config; got {embedder!r}"
        )
    return embedder


def cosine_similarity(a: torch.Tensor, b: torch.Tensor, where: str = "") -> float:
    """Cosine similarity of two 1-D embeddings; a zero or mismatched one is a ValueError.

    >>> cosine_similarity(torch.tensor([1.0, 0.0]), torch.tensor([1.0, 1.0]))
    0.70710...
    """
    if a.shape != b.shape:
        raise ValueError(f"{where}: embeddings have different shapes {tuple(a.shape)} and {tuple(b.shape)}")
    norms = a.norm() * b.norm()
    if norms == 0:
        raise ValueError(f"{where}: the embedder returned an all-zero embedding")
    return ((a @ b) / norms).item()


class SpeakerSimilarity(AudioMetric):
    """Cosine similarity of speaker embeddings: ``spk_sim`` of hyp to target, ``spk_sim_ref`` of hyp to ref.

    ``embedder`` maps a float32 waveform ``(time,)`` at ``sample_rate`` and the
    rate to a 1-D embedding (a tensor, array or list; singleton dimensions are
    squeezed), or is a ``_target_`` config for one. It runs under
    ``torch.no_grad()``. ``spk_sim_ref`` is returned only when ``ref`` was given.

    >>> m = SpeakerSimilarity(lambda wave, rate: torch.stack([wave.abs().mean(), wave.std()]))
    >>> [f.name for f in m.inputs], [f.name for f in m.outputs]
    (['target', 'hyp', 'ref'], ['spk_sim', 'spk_sim_ref'])
    """

    inputs = (Field("target", "audio"), Field("hyp", "audio"), Field("ref", "audio", optional=True))
    outputs = (
        Field("spk_sim", "number", label="Speaker similarity"),
        Field("spk_sim_ref", "number", label="Speaker similarity to ref", optional=True),
    )

    def __init__(self, embedder: Any, sample_rate: int = 16000) -> None:
        self.embedder = build_embedder(embedder)
        self.sample_rate = check_rate(sample_rate)
        for name in ("spk_sim_sum", "spk_sim_count", "spk_sim_ref_sum", "spk_sim_ref_count"):
            self.add_state(name, 0, "sum")
        super().__init__()

    def embed(self, name: str, path: str, where: str) -> torch.Tensor:
        """The embedding of input ``name``'s WAV at ``path``, as a 1-D float64 tensor."""
        wave = self.read(name, path, where)
        with torch.no_grad():
            out = self.embedder(wave, self.sample_rate)
        embedding = torch.as_tensor(out.detach() if isinstance(out, torch.Tensor) else out).double().squeeze()
        if embedding.ndim != 1 or not torch.isfinite(embedding).all():
            raise ValueError(
                f"{where}: the embedder returned {tuple(embedding.shape)} for {name}; "
                "it must return one finite 1-D embedding"
            )
        return embedding

    def update(self, *, target: Sequence[str], hyp: Sequence[str], ref: Sequence[str] | None = None) -> None:
        """Embed each row's target, hyp (and ref) and add the cosine similarities."""
        values = {"target": target, "hyp": hyp} if ref is None else {"target": target, "hyp": hyp, "ref": ref}
        for row in range(len(hyp)):
            where = self.describe(values, row)
            embeddings = {name: self.embed(name, paths[row], where) for name, paths in values.items()}
            self.spk_sim_sum += to_fixed(cosine_similarity(embeddings["hyp"], embeddings["target"], where))
            self.spk_sim_count += 1
            if "ref" in embeddings:
                self.spk_sim_ref_sum += to_fixed(cosine_similarity(embeddings["hyp"], embeddings["ref"], where))
                self.spk_sim_ref_count += 1

    def compute(self) -> dict[str, float]:
        """Mean similarities; ``spk_sim_ref`` only when some utterance had a ref."""
        if self.spk_sim_count == 0:
            raise ValueError(f"{metric_name(self)}: no utterance was scored, so there is nothing to compute")
        result = {"spk_sim": self.spk_sim_sum / (FIXED_POINT * self.spk_sim_count)}
        if self.spk_sim_ref_count:
            result["spk_sim_ref"] = self.spk_sim_ref_sum / (FIXED_POINT * self.spk_sim_ref_count)
        return result
