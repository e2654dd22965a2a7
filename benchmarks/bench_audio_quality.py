"""Speed of the speech-quality measures (lightscore.audio.speech_quality) against plain library loops.

    python benchmarks/bench_audio_quality.py [--pairs 40] [--harvest-pairs 10] [--repeats 3]

``--pairs`` pairs of four-second 16 kHz PCM_16 WAVs (harmonic voices with
vibrato, pauses and noise; hyp and ref differ in pitch and length) are written
to a temporary folder and read once. Every row of a table scores the same
pairs, timed side by side in one run. Rows:

- each lightscore measure, against the same package called in a plain loop;
- F0, for each WORLD extractor: `world_f0_measures` (F0 RMSE, log-F0 RMSE,
  correlation and VDE from one extraction per signal), the floor of a plain
  ``pyworld`` F0 loop over both signals (target: within 1.3x), the plain loop
  of every step ESPnet's ``evaluate_f0.py`` takes (pyworld F0 + cheaptrick,
  pysptk.sp2mc, fastdtw), and the torchaudio F0 RMSE + correlation that
  `SignalMetrics` computes today. Harvest (ESPnet's extractor) is slow, so
  its table runs on the first ``--harvest-pairs`` pairs;
- lightscore's fast approximations (`lightscore.audio.signal`: snr,
  si_snr, sdr, lsd, mcd on torch tensors), for their RTF.

The real-time factor (RTF) is seconds of computing per second of hyp audio
(both signals of a pair are analysed); under 1 is faster than real time.
"""

from __future__ import annotations

import argparse
import functools
import tempfile
from pathlib import Path

import numpy as np
import pysptk
import pystoi
import pyworld
import soundfile as sf
import torch
from common import Row, header, table, time_side_by_side, verdict
from fastdtw import fastdtw
from pesq import pesq
from scipy import spatial

from lightscore.audio import signal
from lightscore.audio import speech_quality as sq
from lightscore.audio.mel_cepstrum import INT16_SCALE, N_FFT, N_SHIFT
from lightscore.audio.resample import resample
from lightscore.audio.signal import f0_corr, f0_rmse

RATE, SECONDS = 16000, 4.0
FLOOR_TARGET = 1.3


def voice(seconds: float, f0: float, vibrato_hz: float, seed: int) -> np.ndarray:
    """A harmonic voice with vibrato, pauses and noise."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * RATE)) / RATE
    pitch = f0 * (1 + 0.06 * np.sin(2 * np.pi * vibrato_hz * t + rng.uniform(0, 6)))
    phase = 2 * np.pi * np.cumsum(pitch) / RATE
    harmonics = sum(np.sin(k * phase) / k for k in range(1, 12))
    gate = (np.sin(2 * np.pi * t * rng.uniform(0.4, 0.8) + rng.uniform(0, 6)) > -0.5).astype(float)
    return 0.25 * harmonics * gate + 0.003 * rng.standard_normal(t.size)


def make_pairs(folder: Path, n: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Write n (hyp, ref) WAV pairs and read them back as float64, as a user's files would be."""
    pairs = []
    for i in range(n):
        f0 = 100.0 + 5 * (i % 20)
        hyp_path, ref_path = folder / f"hyp{i}.wav", folder / f"ref{i}.wav"
        sf.write(hyp_path, voice(SECONDS, f0 * 1.08, 5.0, seed=2 * i), RATE, subtype="PCM_16")
        sf.write(ref_path, voice(SECONDS * 0.95, f0, 4.0, seed=2 * i + 1), RATE, subtype="PCM_16")
        hyp, ref = sf.read(hyp_path)[0], sf.read(ref_path)[0]
        pairs.append((hyp, ref[: hyp.size] if ref.size >= hyp.size else np.pad(ref, (0, hyp.size - ref.size))))
    return pairs


# -- plain loops (the floors) ------------------------------------------------------


def pyworld_f0_loop(pairs, method: str) -> None:
    """The floor: only the pyworld F0 extraction ESPnet's script runs, on both signals of every pair."""
    period = N_SHIFT / RATE * 1000
    for pair in pairs:
        for wave in pair:
            x = wave * INT16_SCALE
            if method == "harvest":
                pyworld.harvest(x, RATE, f0_floor=40, f0_ceil=800, frame_period=period)
            else:
                f0, times = pyworld.dio(x, RATE, f0_floor=40, f0_ceil=800, frame_period=period)
                pyworld.stonemask(x, f0, times, RATE)


def espnet_f0_loop(pairs, method: str) -> None:
    """Every step of ESPnet's evaluate_f0.py, called directly: F0, cheaptrick, sp2mc, fastdtw, log-F0 RMSE."""
    period = N_SHIFT / RATE * 1000
    for pair in pairs:
        features = []
        for wave in pair:
            x = wave * INT16_SCALE
            if method == "harvest":
                f0, times = pyworld.harvest(x, RATE, f0_floor=40, f0_ceil=800, frame_period=period)
            else:
                f0, times = pyworld.dio(x, RATE, f0_floor=40, f0_ceil=800, frame_period=period)
                f0 = pyworld.stonemask(x, f0, times, RATE)
            sp = pyworld.cheaptrick(x, f0, times, RATE, fft_size=N_FFT)
            features.append((pysptk.sp2mc(sp, 23, 0.42), f0))
        (gen_mcep, gen_f0), (gt_mcep, gt_f0) = features
        _, path = fastdtw(gen_mcep, gt_mcep, dist=spatial.distance.euclidean)
        twf = np.array(path).T
        gen, gt = gen_f0[twf[0]], gt_f0[twf[1]]
        both = (gen != 0) & (gt != 0)
        np.sqrt(np.mean((np.log(gen[both]) - np.log(gt[both])) ** 2))


def espnet_mcd_loop(pairs) -> None:
    """ESPnet's evaluate_mcd.py steps called directly: per-frame pysptk.mcep, fastdtw, MCD."""
    window = pysptk.sptk.hamming(N_FFT)
    for pair in pairs:
        mceps = []
        for wave in pair:
            x = wave * INT16_SCALE
            n = (len(x) - N_FFT) // N_SHIFT + 1
            frames = [x[N_SHIFT * i : N_SHIFT * i + N_FFT] * window for i in range(n)]
            mceps.append(np.stack([pysptk.mcep(f, 23, 0.42, eps=1e-6, etype=1) for f in frames]))
        _, path = fastdtw(mceps[0], mceps[1], dist=spatial.distance.euclidean)
        twf = np.array(path).T
        np.mean(10 / np.log(10) * np.sqrt(2 * np.sum((mceps[0][twf[0]] - mceps[1][twf[1]]) ** 2, 1)))


def torchaudio_f0(tensor_pairs) -> None:
    for hyp, ref in tensor_pairs:
        f0_rmse(hyp, ref, RATE)
        f0_corr(hyp, ref, RATE)


def each(measure, pairs, **kwargs) -> None:
    for hyp, ref in pairs:
        measure(hyp, ref, RATE, **kwargs)


# -- report ------------------------------------------------------------------------


def report(title: str, methods: dict, n: int, baseline: str, repeats: int) -> dict[str, Row]:
    """Time ``methods`` side by side on n pairs and print the table with each row's RTF."""
    times = time_side_by_side(methods, repeats, warmup=False)
    rows = [Row(name, n, seconds) for name, seconds in times.items()]
    print(f"### {title}\n")
    print(table(rows, baseline=baseline, ratio_label=f"time / {baseline}") + "\n")
    for row in rows:
        print(f"- {row.method}: RTF {row.per_item / SECONDS:.4f} ({SECONDS / row.per_item:,.0f}x real time)")
    print()
    return {row.method: row for row in rows}


def f0_section(pairs, method: str, repeats: int) -> None:
    tensors = [(torch.from_numpy(h).float(), torch.from_numpy(r).float()) for h, r in pairs]
    ours = f"world_f0_measures ({method})"
    floor = f"floor: pyworld {method} F0 loop"
    rows = report(
        f"F0 with {method}, {len(pairs)} pairs",
        {
            ours: lambda: each(sq.world_f0_measures, pairs, method=method),
            floor: lambda: pyworld_f0_loop(pairs, method),
            f"ESPnet steps, plain loop ({method})": lambda: espnet_f0_loop(pairs, method),
            "torchaudio f0_rmse + f0_corr (SignalMetrics today)": lambda: torchaudio_f0(tensors),
        },
        len(pairs),
        baseline=floor,
        repeats=repeats,
    )
    espnet = rows[f"ESPnet steps, plain loop ({method})"].median
    print(verdict(f"{ours} time / pyworld F0 floor", rows[ours].median / rows[floor].median, FLOOR_TARGET, False))
    print(f"- {ours} time / ESPnet's steps in a plain loop: {rows[ours].median / espnet:.2f}x\n")


def fast_section(pairs, repeats: int) -> None:
    tensors = [(torch.from_numpy(h).float(), torch.from_numpy(r).float()) for h, r in pairs]
    measures = {f.__name__: f for f in (signal.snr, signal.si_snr, signal.sdr, signal.lsd, signal.mcd)}
    methods = {name: functools.partial(each, f, tensors) for name, f in measures.items()}
    report(f"lightscore's fast approximations, {len(pairs)} pairs", methods, len(pairs), "snr", repeats)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=40)
    parser.add_argument("--harvest-pairs", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    header(f"Speech-quality measures on {args.pairs} pairs of {SECONDS:g} s at {RATE} Hz")
    with tempfile.TemporaryDirectory() as folder:
        pairs = make_pairs(Path(folder), args.pairs)
    for measure in (sq.pesq_wb, sq.stoi, sq.mcd_dtw, sq.world_f0_measures):
        measure(*pairs[0], RATE)  # first calls import packages and build caches: keep that out of the timings
    torch.set_num_threads(1)  # as in a torchrun rank: the comparison is per core
    fast_section(pairs, args.repeats)
    f0_section(pairs, "dio", args.repeats)
    f0_section(pairs[: args.harvest_pairs], "harvest", args.repeats)
    report(
        f"MCD, {len(pairs)} pairs",
        {"mcd_dtw": lambda: each(sq.mcd_dtw, pairs), "ESPnet steps, plain loop": lambda: espnet_mcd_loop(pairs)},
        len(pairs),
        baseline="ESPnet steps, plain loop",
        repeats=args.repeats,
    )
    down = [(resample(h, RATE, 8000), resample(r, RATE, 8000)) for h, r in pairs]
    report(
        f"PESQ, STOI and ESTOI, {len(pairs)} pairs",
        {
            "pesq_wb": lambda: each(sq.pesq_wb, pairs),
            "pesq.pesq wb, plain loop": lambda: [pesq(RATE, r, h, "wb") for h, r in pairs],
            "pesq_nb (resamples to 8 kHz)": lambda: each(sq.pesq_nb, pairs),
            "pesq.pesq nb on 8 kHz copies, plain loop": lambda: [pesq(8000, r, h, "nb") for h, r in down],
            "stoi": lambda: each(sq.stoi, pairs),
            "pystoi.stoi, plain loop": lambda: [pystoi.stoi(r, h, RATE) for h, r in pairs],
            "estoi": lambda: each(sq.estoi, pairs),
            "pystoi.stoi extended, plain loop": lambda: [pystoi.stoi(r, h, RATE, extended=True) for h, r in pairs],
        },
        len(pairs),
        baseline="pesq.pesq wb, plain loop",
        repeats=args.repeats,
    )


if __name__ == "__main__":
    main()
