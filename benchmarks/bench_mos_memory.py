"""Peak memory of DNSMOS and PLCMOS on long clips: lightscore against speechmos, side by side (issue 38, items 7, 8).

    python benchmarks/bench_mos_memory.py [--seconds 10 60 600] [--out benchmarks/results/mos_memory.md]

One clip per length: espeak-ng's four sentences (bench_mos.py's corpus) joined and repeated to that many
seconds, 16 kHz 16-bit. Each method scores it in a fresh interpreter started by GNU time, which gives the
process's peak RSS: lightscore as a user runs it (``DNSMOS()`` / ``PLCMOS()`` on an SCP of the file),
speechmos as its README does (``speechmos.dnsmos.run(path, 16000)``, ``speechmos.plcmos.run`` after
``numpy.random.seed(0)``, the draws of lightscore's ``seed=0``). The two give the same numbers (within 1e-6),
else the exit status is 1.

Targets: lightscore's peak within 2x speechmos' on every clip, and DNSMOS' peak flat in the clip's length
(the 600 s clip's peak within 1.25x the 10 s clip's). PLCMOS' model reads the whole clip as one input, so
its memory grows with the clip in speechmos too: that growth is shown, not targeted. The old code (every
DNSMOS window, or all 15 PLCMOS raters, in one batch) took 5.5 GB and 3.9 GB on 60 s and was not run here:
on 600 s it passed 23 GB.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import soundfile as sf
from bench_measure import run_process
from common import header, python, verdict

MEASURES = ("dnsmos", "plcmos")
METHODS = ("lightscore", "speechmos")
TOLERANCE = 1e-6  # the tests' tolerance against speechmos
FLAT = 1.25  # DNSMOS: the longest clip's peak over the shortest's
WITHIN = 2.0  # lightscore's peak over speechmos'


def write_clip(folder: Path, seconds: int) -> Path:
    """espeak-ng speech repeated to ``seconds`` s at 16 kHz in ``folder/clip<seconds>.wav``, with its SCP beside it."""
    from bench_mos import corpus  # imports lightscore's metrics: never in a measured child

    _, _, paths, _ = corpus(folder, 4)
    speech = np.concatenate([sf.read(path, dtype="float32")[0] for path in paths])
    wave = np.tile(speech, -(-seconds * 16000 // speech.size))[: seconds * 16000]
    path = folder / f"clip{seconds}.wav"
    sf.write(path, wave, 16000, subtype="PCM_16")
    (folder / f"clip{seconds}.scp").write_text(f"clip{seconds} {path}\n")
    return path


def child(method: str, measure: str, wav: Path, out: Path) -> None:
    """One measured run: score ``wav`` with ``method``'s ``measure``; write the values as JSON to ``out``."""
    if method == "lightscore":
        from lightscore.metrics.quality import DNSMOS, PLCMOS

        metric = DNSMOS() if measure == "dnsmos" else PLCMOS()
        result = metric({"hyp": wav.with_suffix(".scp")}, "bench")
        values = {name.removeprefix("dnsmos_"): value for name, value in result.items()}
    elif measure == "dnsmos":
        from speechmos import dnsmos

        scores = dnsmos.run(str(wav), 16000)
        values = {key: float(scores[f"{key}_mos"]) for key in ("sig", "bak", "ovrl", "p808")}
    else:
        from speechmos import plcmos

        np.random.seed(0)  # speechmos draws its raters from numpy's global generator
        values = {"plcmos": float(plcmos.run(str(wav), 16000)["plcmos"])}
    out.write_text(json.dumps(values))


def measured(method: str, measure: str, wav: Path) -> tuple[float, int, dict[str, float]]:
    """Wall seconds, peak RSS in bytes and the values of one child run."""
    out = wav.with_name(f"{method}-{measure}-{wav.stem}.json")
    seconds, rss = run_process([python(), __file__, "--child", method, measure, str(wav), str(out)])
    return seconds, rss, json.loads(out.read_text())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, nargs="+", default=[10, 60, 600])
    parser.add_argument("--child", nargs=4, metavar=("METHOD", "MEASURE", "WAV", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        method, measure, wav, out = args.child
        child(method, measure, Path(wav), Path(out))
        return 0
    header(f"DNSMOS and PLCMOS peak memory: lightscore vs speechmos on {', '.join(map(str, args.seconds))} s clips")
    print(
        "| measure | clip s | lightscore peak MB | speechmos peak MB | lightscore / speechmos "
        "| lightscore s | speechmos s | largest difference |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    peaks: dict[tuple[str, str, int], int] = {}
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for seconds in args.seconds:
            wav = write_clip(Path(tmp), seconds)
            for measure in MEASURES:
                runs = {method: measured(method, measure, wav) for method in METHODS}
                ours = runs["lightscore"][2]
                theirs = runs["speechmos"][2]
                difference = max(abs(ours[key] - theirs[key]) for key in theirs)
                worst = max(worst, difference)
                for method, (_, rss, _) in runs.items():
                    peaks[method, measure, seconds] = rss
                ratio = runs["lightscore"][1] / runs["speechmos"][1]
                print(
                    f"| {measure.upper()} | {seconds} | {runs['lightscore'][1] / 1e6:,.0f} "
                    f"| {runs['speechmos'][1] / 1e6:,.0f} | {ratio:.2f} | {runs['lightscore'][0]:.1f} "
                    f"| {runs['speechmos'][0]:.1f} | {difference:.1e} |",
                    flush=True,
                )
    print()
    shortest = min(args.seconds)
    longest = max(args.seconds)
    for measure in MEASURES:
        ratio = max(peaks["lightscore", measure, s] / peaks["speechmos", measure, s] for s in args.seconds)
        print(verdict(f"{measure.upper()} peak / speechmos' peak, the largest over the clips", ratio, WITHIN, False))
    growth = {
        (method, measure): peaks[method, measure, longest] / peaks[method, measure, shortest]
        for method in METHODS
        for measure in MEASURES
    }
    label = f"DNSMOS peak on {longest} s / on {shortest} s (flat in length)"
    print(verdict(label, growth["lightscore", "dnsmos"], FLAT, False))
    print(f"- the same for speechmos' DNSMOS: {growth['speechmos', 'dnsmos']:.2f}x")
    print(
        f"- PLCMOS peak on {longest} s / on {shortest} s: lightscore {growth['lightscore', 'plcmos']:.2f}x, "
        f"speechmos {growth['speechmos', 'plcmos']:.2f}x (the model reads the whole clip as one input)"
    )
    print(f"- largest difference from speechmos' numbers: {worst:.1e} (tolerance {TOLERANCE:g})")
    return 0 if worst <= TOLERANCE else 1


if __name__ == "__main__":
    sys.exit(main())
