"""Scale-out of the reference-free quality metrics: ``lightscore measure`` with 1 process and under torchrun.

    python benchmarks/bench_quality_scaleout.py [--files 48] [--ranks 2] [--repeats 1] [--no-intelligibility]

``--files`` espeak-ng sentences (16 kHz PCM_16 WAVs; each file its own sentence, speed and pitch) are
written once under ``$LIGHTSCORE_BENCH_DATA`` (see corpus.py), with ``test/hyp.scp`` (the WAVs),
``test/ref.scp`` (their texts) and a metrics YAML for

    DNSMOS()                         speechmos' ONNX models, one session per process
    Intelligibility(case="fold")     pocketsphinx, then WER against the text (unless --no-intelligibility)

Timed side by side, each a fresh process with one thread per rank (bench_audio_scaleout.py's
``command`` and ``run``: GNU time gives the CPU seconds of all processes):

- ``lightscore measure`` in one process (timed_measure.py also times the command inside);
- the same under ``torchrun --standalone --nproc_per_node=<ranks>``.

- the machine's bound: two independent ``lightscore measure`` processes at once, one per half of
  the files (no launcher, no group, no gather: what any sharding could at best do on this machine).

Goal: near-linear scale-out, a speed-up of at least 1.8x on 2 ranks (wall time), and both runs
write the same metrics.json. The bound shows how much of a shortfall is the machine's (two busy
cores each slower than one) and how much the 2-rank run's own. RTF is seconds of wall time per
second of audio. CPU / wall says how many cores a run actually got: on a busy machine two ranks get fewer than two.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import soundfile as sf
from bench_audio_scaleout import BIN, ONE_THREAD, RUN_HEADER, command, run, run_row, time_scaleout
from bench_mos import SENTENCES
from common import Row, header, python, table, verdict
from corpus import data_dir

TARGET = 1.8
ESPEAK = shutil.which("espeak-ng")
WORDS = " ".join(SENTENCES).split()


def sentence(k: int) -> str:
    """A different sentence per file: one of bench_mos' sentences, then a rotation of all their words."""
    if k < len(SENTENCES):
        return SENTENCES[k]
    start = (7 * k) % len(WORDS)
    return " ".join((WORDS[start:] + WORDS[:start])[: 8 + k % 9])


def speak(text: str, path: Path, k: int) -> None:
    """espeak-ng saying ``text`` (speed and pitch vary with ``k``), resampled to 16 kHz PCM_16."""
    import torch
    import torchaudio

    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "raw.wav"
        voice = ["-v", "en", "-s", str(130 + 7 * (k % 6)), "-p", str(35 + 5 * (k % 7))]
        subprocess.run([ESPEAK, *voice, "-w", str(raw), text], check=True, capture_output=True)
        wave, rate = sf.read(raw, dtype="float32")
    wave = torchaudio.functional.resample(torch.from_numpy(wave), rate, 16000).clamp(-0.99, 0.99).numpy()
    sf.write(path, wave, 16000, subtype="PCM_16")


def make_corpus(files: int, intelligibility: bool) -> tuple[Path, float]:
    """``<data>/quality-scaleout-<files>``: WAVs, SCPs (written once) and metrics.yaml; the seconds of audio."""
    root = data_dir() / f"quality-scaleout-{files}"
    test = root / "test"
    if not (test / "ref.scp").exists():
        (test / "wav").mkdir(parents=True, exist_ok=True)
        hyp_lines, ref_lines = [], []
        for k in range(files):
            path, text = test / "wav" / f"u{k:05d}.wav", sentence(k)
            speak(text, path, k)
            hyp_lines.append(f"u{k:05d} {path}\n")
            ref_lines.append(f"u{k:05d} {text}\n")
        (test / "hyp.scp").write_text("".join(hyp_lines))
        (test / "ref.scp").write_text("".join(ref_lines))
    entries = ["  - {metric: {_target_: lightscore.metrics.quality.DNSMOS}, inputs: [hyp], name: dnsmos}"]
    if intelligibility:
        entries.append(
            "  - {metric: {_target_: lightscore.metrics.intelligibility.Intelligibility, case: fold},"
            " inputs: [ref, hyp], name: intelligibility}"
        )
    (root / "metrics.yaml").write_text(f"inference_dir: {root}\nmetrics:\n" + "\n".join(entries) + "\n")
    seconds = sum(sf.info(line.split(maxsplit=1)[1].strip()).duration for line in (test / "hyp.scp").open())
    return root, seconds


def halves(root: Path, parts: int) -> list[Path]:
    """``root``'s files in ``parts`` contiguous blocks (as the ranks shard them), each a measure() folder of its own."""
    lines = {name: (root / "test" / f"{name}.scp").read_text().splitlines(keepends=True) for name in ("hyp", "ref")}
    size = -(-len(lines["hyp"]) // parts)
    folders = []
    for k in range(parts):
        folder = root.parent / f"{root.name}-part{k}of{parts}"  # beside root: measure() reads every folder in it
        (folder / "test").mkdir(parents=True, exist_ok=True)
        for name, rows in lines.items():
            (folder / "test" / f"{name}.scp").write_text("".join(rows[k * size : (k + 1) * size]))
        config = (root / "metrics.yaml").read_text().replace(f"inference_dir: {root}", f"inference_dir: {folder}")
        (folder / "metrics.yaml").write_text(config)
        folders.append(folder)
    return folders


def at_once(folders: list[Path]) -> tuple[float, float, float]:
    """One 1-process measure per folder, all at once: wall seconds, the longest inside the command, CPU seconds."""

    def one(folder: Path) -> tuple[float, float]:
        seconds = folder / "seconds.txt"
        found = run(command(folder, 1, str(seconds)), str(seconds))
        (folder / "metrics.json").unlink()
        return found

    start = time.perf_counter()
    with ThreadPoolExecutor(len(folders)) as pool:
        done = list(pool.map(one, folders))
    return time.perf_counter() - start, max(inside for inside, _ in done), sum(used for _, used in done)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=48, help="WAV files (default: %(default)s)")
    parser.add_argument("--ranks", type=int, default=2, help="torchrun processes (default: %(default)s)")
    parser.add_argument("--repeats", type=int, default=1, help="runs per command (default: %(default)s)")
    parser.add_argument("--no-intelligibility", action="store_true", help="DNSMOS alone (no pocketsphinx)")
    args = parser.parse_args(argv)
    if ESPEAK is None:
        raise SystemExit("espeak-ng is not installed (apt-get install espeak-ng): this benchmark needs real speech")
    if shutil.which("torchrun", path=str(BIN)) is None:
        raise SystemExit(f"no torchrun next to {python()}")
    intelligibility = not args.no_intelligibility
    names = "DNSMOS" + (" + Intelligibility(pocketsphinx)" if intelligibility else "")
    header(f"{names} on {args.files:,} espeak-ng WAVs: lightscore measure, 1 process vs torchrun {args.ranks} ranks")
    os.environ.update(ONE_THREAD)
    root, audio_seconds = make_corpus(args.files, intelligibility)
    print(f"data: {root} ({audio_seconds / 60:.1f} min of audio)\n", flush=True)

    one, many = "measure, 1 process", f"measure, torchrun {args.ranks} ranks"
    times, inside, cpu, results = time_scaleout(root, one, many, args.ranks, args.repeats)
    rows = [Row(name, args.files, seconds, unit="files") for name, seconds in times.items()]
    print(table(rows, baseline=one))
    print(f"\n{RUN_HEADER}")
    for name in (one, many):
        medians = (statistics.median(runs[name]) for runs in (times, inside, cpu))
        print(run_row(name, *medians, audio_seconds))
    bound = f"{args.ranks} independent processes at once, 1/{args.ranks} of the files each"
    bound_wall, bound_inside, bound_cpu = at_once(halves(root, args.ranks))
    print(run_row(bound, bound_wall, bound_inside, bound_cpu, audio_seconds))
    speedup = statistics.median(times[one]) / statistics.median(times[many])
    speedup_inside = statistics.median(inside[one]) / statistics.median(inside[many])
    same = all(text == results[one][0] for text in results[one] + results[many])
    print("\n### Goal: near-linear scale-out\n")
    print(verdict(f"speed-up of {args.ranks} ranks, wall time", speedup, TARGET, True))
    print(verdict(f"speed-up of {args.ranks} ranks, inside the command", speedup_inside, TARGET, True))
    free_core = statistics.median(cpu[one]) / (statistics.median(cpu[many]) / args.ranks)
    print(verdict("speed-up with a free core per rank (1-process CPU / per-rank CPU)", free_core, TARGET, True))
    print(
        f"- the machine's bound ({bound}): {statistics.median(times[one]) / bound_wall:.2f}x wall, "
        f"{statistics.median(inside[one]) / bound_inside:.2f}x inside the command"
    )
    print(
        f"- the {args.ranks}-rank run against that bound: {bound_wall / statistics.median(times[many]):.2f} of its "
        f"speed (wall), {bound_inside / statistics.median(inside[many]):.2f} (inside the command)"
    )
    print(f"- {args.ranks} ranks write the one-process metrics.json exactly: {same}")
    print(f"- results: {json.dumps(json.loads(results[one][0]))}")
    print(f"- load average at the end: {os.getloadavg()[0]:.2f}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
