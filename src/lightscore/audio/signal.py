"""lightscore's fast audio measures on one channel: SNR, SI-SNR, SDR, LSD, MFCC-MCD and torchaudio F0.

Plain functions of torch tensors (one channel, ``(time,)``, at one rate); the
metric classes in `lightscore.metrics.audio` pick them by name (files are read
by `lightscore.audio.files`). Every ratio in dB is clamped to
±`MAX_DB`, and a silent or non-finite signal never scores the best value:
non-finite samples are refused when a file is read, a silent (all-zero) hyp or
ref gives the ratios their worst value, -`MAX_DB`, and the other measures
(`lsd`, `mcd`, `f0_rmse`, `f0_corr`), which have no worst value, raise a
ValueError naming the silent signal (`check_audible`).

These are lightscore's fast approximations (torchaudio MFCCs and NCCF pitch,
frames paired one to one): their numbers compare between lightscore runs, not
with papers. `lightscore.audio.speech_quality` holds the ESPnet-equal ones.
"""

from __future__ import annotations

import functools
import math

import torch
import torchaudio

__all__ = [
    "F0_MAX_HZ",
    "F0_MIN_HZ",
    "MAX_DB",
    "check_audible",
    "db_ratio",
    "f0_corr",
    "f0_rmse",
    "lsd",
    "mcd",
    "mfcc_transform",
    "pitch_track",
    "sdr",
    "si_snr",
    "snr",
    "voiced_f0_pairs",
]

MAX_DB = 100.0
"""Ratios in dB are clamped to [-MAX_DB, MAX_DB]: a perfect copy would otherwise score +inf."""

SDR_FILTER_TAPS = 512
LSD_N_FFT = 2048
LSD_HOP = 512
LSD_FLOOR = 1e-8
MFCC_WINDOW_S = 0.025
MFCC_HOP_S = 0.010
MFCC_N_MELS = 40
MFCC_N_MFCC = 13
MCD_CONSTANT = 10.0 / math.log(10.0) * math.sqrt(2.0)
F0_MIN_HZ = 60
F0_MAX_HZ = 500
F0_FRAME_S = 0.01
F0_MEDIAN_FRAMES = 5
VOICING_PERIODICITY = 0.5
VOICING_FLOOR_DB = 30.0


def check_audible(hyp: torch.Tensor, ref: torch.Tensor, measure: str) -> None:
    """Raise ValueError when hyp or ref is all zeros: ``measure`` has no worst value to give silence.

    Args:
        hyp, ref: One channel of each signal.
        measure: The measure's name, for the message.

    Raises:
        ValueError: naming the measure and the silent signal.

    >>> check_audible(torch.ones(4), torch.zeros(4), "lsd")
    Traceback (most recent call last):
    ...
    ValueError: lsd: ref is silent (all 4 samples are zero); the measure is undefined for silence
    """
    for name, wave in (("hyp", hyp), ("ref", ref)):
        if not wave.any():
            raise ValueError(
                f"{measure}: {name} is silent (all {wave.shape[-1]} samples are zero); "
                "the measure is undefined for silence"
            )


def db_ratio(signal_energy: float, error_energy: float) -> float:
    """``10 log10(signal / error)``, clamped to ±`MAX_DB`; no error at all is +`MAX_DB`.

    No signal is the worst value, also when there is no error either: a silent
    hypothesis must never score better than a noisy one.

    Args:
        signal_energy: The target's energy.
        error_energy: The error's energy.

    Returns:
        The ratio in dB.

    >>> db_ratio(100.0, 1.0), db_ratio(1.0, 0.0), db_ratio(0.0, 1.0), db_ratio(0.0, 0.0)
    (20.0, 100.0, -100.0, -100.0)
    """
    if signal_energy <= 0:
        return -MAX_DB
    if error_energy <= 0:
        return MAX_DB
    return max(-MAX_DB, min(MAX_DB, 10.0 * math.log10(signal_energy / error_energy)))


def snr(hyp: torch.Tensor, ref: torch.Tensor, sample_rate: int = 16000) -> float:
    """Signal-to-noise ratio in dB: ``10 log10(sum ref^2 / sum (hyp - ref)^2)``, no scaling.

    A silent hyp is -`MAX_DB`, not the 0 dB the formula gives, which would beat
    a hyp noisier than its ref.

    Args:
        hyp, ref: One channel of each, equal lengths.
        sample_rate: Unused; every measure takes it.

    Returns:
        The ratio in dB, clamped to ±`MAX_DB`.

    >>> snr(torch.tensor([1.0, -1.0, 1.0, -1.0]), torch.tensor([1.0, -1.0, 1.0, -1.0]) * 0.9)
    19.08...
    >>> snr(torch.zeros(4), torch.ones(4))
    -100.0
    """
    hyp = hyp.double()
    ref = ref.double()
    if not hyp.any():
        return -MAX_DB
    return db_ratio(ref.pow(2).sum().item(), (hyp - ref).pow(2).sum().item())


def si_snr(hyp: torch.Tensor, ref: torch.Tensor, sample_rate: int = 16000) -> float:
    """Scale-invariant SNR in dB: both signals made zero-mean, ref scaled to its best fit of hyp.

    ``target = (<hyp, ref> / <ref, ref>) ref``;
    ``si_snr = 10 log10(|target|^2 / |hyp - target|^2)``. A silent hyp or ref
    is -`MAX_DB`. Gain does not matter:

    Args:
        hyp, ref: One channel of each, equal lengths.
        sample_rate: Unused; every measure takes it.

    Returns:
        The ratio in dB, clamped to ±`MAX_DB`.

    >>> ref = torch.sin(torch.arange(1000) / 5.0)
    >>> round(si_snr(3 * ref + 0.01 * torch.cos(torch.arange(1000) / 3.0), ref), 1)
    49.5
    """
    hyp = hyp.double() - hyp.double().mean()
    ref = ref.double() - ref.double().mean()
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
    (here only the 3 samples pushed past the end), where `snr` collapses.
    A silent hyp or ref is -`MAX_DB`.

    Args:
        hyp, ref: One channel of each, equal lengths.
        sample_rate: Unused; every measure takes it.

    Returns:
        The ratio in dB, clamped to ±`MAX_DB`.

    >>> ref = torch.randn(4000, generator=torch.Generator().manual_seed(0))
    >>> delayed = torch.cat([torch.zeros(3), ref[:-3]])
    >>> round(snr(delayed, ref), 1), round(sdr(delayed, ref), 1)
    (-3.0, 38.2)
    """
    hyp = hyp.double()
    ref = ref.double()
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

    Args:
        hyp, ref: One channel of each, equal lengths.
        sample_rate: Unused; every measure takes it.

    Returns:
        The distance (0 for identical signals).

    Raises:
        ValueError: hyp or ref is silent (`check_audible`).

    >>> x = torch.randn(16000, generator=torch.Generator().manual_seed(0))
    >>> lsd(x, x), round(lsd(0.1 * x, x), 3)
    (0.0, 2.0)
    """
    check_audible(hyp, ref, "lsd")
    both = torch.stack([ref, hyp]).float()
    spec = torch.stft(
        both, LSD_N_FFT, LSD_HOP, window=torch.hann_window(LSD_N_FFT), pad_mode="constant", return_complex=True
    )
    log_power = torch.log10(spec.abs().pow(2) + LSD_FLOOR)
    return (log_power[0] - log_power[1]).pow(2).mean(dim=0).sqrt().mean().item()


@functools.lru_cache(maxsize=8)
def mfcc_transform(sample_rate: int) -> torchaudio.transforms.MFCC:
    """The MFCC front end of `mcd` at ``sample_rate`` (see `mcd` for its constants), built once per rate.

    Args:
        sample_rate: The rate in Hz.

    Returns:
        A ``torchaudio.transforms.MFCC`` of 13 coefficients.

    >>> mfcc_transform(16000)(torch.zeros(16000)).shape
    torch.Size([13, 101])
    """
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
    between runs of this library, not with SPTK mel-cepstrum MCDs (that is
    `lightscore.audio.speech_quality.mcd_dtw`).

    Args:
        hyp, ref: One channel of each, equal lengths.
        sample_rate: Their rate, which sets the MFCC frames.

    Returns:
        MCD in dB (0 for identical signals).

    Raises:
        ValueError: hyp or ref is silent (`check_audible`).

    >>> x = torch.randn(16000, generator=torch.Generator().manual_seed(0))
    >>> mcd(x, x), mcd(0.5 * x, x) > 0
    (0.0, True)
    """
    check_audible(hyp, ref, "mcd")
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

    Args:
        wave: One channel.
        sample_rate: Its rate.

    Returns:
        ``(f0, voiced)``: float64 Hz and bool, one per frame (empty for a
        signal shorter than five frames).

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


def voiced_f0_pairs(
    hyp: torch.Tensor, ref: torch.Tensor, sample_rate: int, measure: str = "f0"
) -> tuple[torch.Tensor, torch.Tensor]:
    """F0 of hyp and of ref (`pitch_track`) over the frames voiced in both.

    Args:
        hyp, ref: One channel of each, equal lengths.
        sample_rate: Their rate.
        measure: The measure asking, for the error message.

    Returns:
        ``(f0_hyp, f0_ref)`` in Hz, one value per frame voiced in both.

    Raises:
        ValueError: hyp or ref is silent (`check_audible`).

    >>> t = torch.arange(8000) / 16000
    >>> f0_hyp, f0_ref = voiced_f0_pairs(torch.sin(2 * torch.pi * 200 * t), torch.sin(2 * torch.pi * 250 * t), 16000)
    >>> f0_hyp.unique().tolist(), f0_ref.unique().tolist()
    ([200.0], [250.0])
    """
    check_audible(hyp, ref, measure)
    f0_hyp, voiced_hyp = pitch_track(hyp, sample_rate)
    f0_ref, voiced_ref = pitch_track(ref, sample_rate)
    both = voiced_hyp & voiced_ref
    return f0_hyp[both], f0_ref[both]


def f0_rmse(hyp: torch.Tensor, ref: torch.Tensor, sample_rate: int = 16000) -> float | None:
    """RMS difference of F0 in Hz over frames voiced in both (see `pitch_track`); None when there are none.

    Args:
        hyp, ref: One channel of each, equal lengths.
        sample_rate: Their rate.

    Returns:
        The RMSE in Hz, or None when no frame is voiced in both.

    Raises:
        ValueError: hyp or ref is silent (`check_audible`).

    >>> t = torch.arange(16000) / 16000
    >>> f0_rmse(torch.sin(2 * torch.pi * 250 * t), torch.sin(2 * torch.pi * 200 * t))
    50.0
    """
    f0_hyp, f0_ref = voiced_f0_pairs(hyp, ref, sample_rate, "f0_rmse")
    if f0_hyp.numel() == 0:
        return None
    return (f0_hyp - f0_ref).pow(2).mean().sqrt().item()


def f0_corr(hyp: torch.Tensor, ref: torch.Tensor, sample_rate: int = 16000) -> float | None:
    """Pearson correlation of F0 over frames voiced in both; None unless both F0s vary there.

    Args:
        hyp, ref: One channel of each, equal lengths.
        sample_rate: Their rate.

    Returns:
        The correlation, or None with fewer than two frames voiced in both or a constant F0 there.

    Raises:
        ValueError: hyp or ref is silent (`check_audible`).

    >>> t = torch.arange(16000) / 16000
    >>> f0_corr(torch.sin(2 * torch.pi * 250 * t), torch.sin(2 * torch.pi * 200 * t)) is None
    True
    """
    f0_hyp, f0_ref = voiced_f0_pairs(hyp, ref, sample_rate, "f0_corr")
    if f0_hyp.numel() < 2:
        return None
    f0_hyp = f0_hyp - f0_hyp.mean()
    f0_ref = f0_ref - f0_ref.mean()
    norm = (f0_hyp.pow(2).sum() * f0_ref.pow(2).sum()).sqrt()
    return None if norm == 0 else ((f0_hyp @ f0_ref) / norm).item()
