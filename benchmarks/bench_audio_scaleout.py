"""Scale-out of the paper-grade audio measures: ``lightscore measure`` with 1 process and under torchrun.

    python benchmarks/bench_audio_scaleout.py [--pairs 2000] [--ranks 2] [--repeats 1]

``--pairs`` pairs of four-second 16 kHz PCM_16 WAVs (harmonic voices with
vibrato, pauses and noise; hyp 8% higher and 5% shorter than ref, as free-
running TTS would be) are written once under ``$LIGHTSCORE_BENCH_DATA`` (see
corpus.py), with ``test/hyp.scp``, ``test/ref.scp`` and a metrics YAML for

    SignalMetrics(["mcd_dtw", "f0_rmse_dtw", "f0_corr_dtw", "vde"], f0_method="dio")

Timed side by side, each a fresh process with OMP/MKL/OpenBLAS at one thread
per rank (torchrun also sets OMP_NUM_THREADS=1 itself):

- floor: the same measures called in a plain loop in this process, on the
  first ``--floor-pairs`` pairs read into memory, scaled to ``--pairs``;
- ``lightscore measure`` in one process (through timed_measure.py, which
  also times the command inside, without start-up and imports);
- the same under ``torchrun --standalone --nproc_per_node=<ranks>``.

Targets: the speed-up of the ranks over one process is at least 1.8x (wall
time), and both runs write the same metrics.json. RTF is seconds of wall time
per second of hyp audio. Each command also reports its CPU seconds (user +
sys of every process, from GNU time) and CPU / wall: the cores it actually
got. Two ranks that burn no more CPU than one process but get fewer than two
cores are slowed by the machine's other load, not by lightscore.
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
from pathlib import Path

import soundfile as sf
from bench_audio_quality import voice
from common import Row, header, python, table, time_side_by_side, verdict
from corpus import data_dir

BENCH_DIR = Path(__file__).resolve().parent
BIN = Path(python()).parent
TIME = "/usr/bin/time"  # GNU time: CPU seconds of a command and all its children (torchrun's ranks)
RATE, SECONDS = 16000, 4.0
MEASURES = ["mcd_dtw", "f0_rmse_dtw", "f0_corr_dtw", "vde"]
F0_METHOD = "dio"
TARGET = 1.8
ONE_THREAD = {name: "1" for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")}


def make_corpus(pairs: int) -> Path:
    """``<data>/audio-scaleout-<pairs>``: WAV pairs, SCP files and metrics.yaml, written once and reused."""
    root = data_dir() / f"audio-scaleout-{pairs}"
    test = root / "test"
    if (root / "metrics.yaml").exists():
        return root
    (test / "wav").mkdir(parents=True, exist_ok=True)
    hyp_lines, ref_lines = [], []
    for i in range(pairs):
        f0 = 100.0 + 5 * (i % 20)
        hyp, ref = test / "wav" / f"hyp{i:05d}.wav", test / "wav" / f"ref{i:05d}.wav"
        sf.write(hyp, voice(SECONDS, f0 * 1.08, 5.0, seed=2 * i), RATE, subtype="PCM_16")
        sf.write(ref, voice(SECONDS * 0.95, f0, 4.0, seed=2 * i + 1), RATE, subtype="PCM_16")
        hyp_lines.append(f"utt{i:05d} {hyp}\n")
        ref_lines.append(f"utt{i:05d} {ref}\n")
    (test / "hyp.scp").write_text("".join(hyp_lines))
    (test / "ref.scp").write_text("".join(ref_lines))
    metric = f"{{_target_: lightscore.metrics.audio.SignalMetrics, score_config: {MEASURES}, f0_method: {F0_METHOD}}}"
    (root / "metrics.yaml").write_text(
        f"inference_dir: {root}\nmetrics:\n  - {{metric: {metric}, inputs: [hyp, ref], name: signal}}\n"
    )
    return root


def command(root: Path, ranks: int, seconds_file: str) -> list[str]:
    """``lightscore measure`` through timed_measure.py, alone or under torchrun."""
    timed = [str(BENCH_DIR / "timed_measure.py"), seconds_file, "measure", str(root / "metrics.yaml")]
    if ranks == 1:
        return [python(), *timed]
    return [str(BIN / "torchrun"), "--standalone", f"--nproc_per_node={ranks}", *timed]


def run(cmd: list[str], seconds_file: str) -> tuple[float, float]:
    """Run ``cmd`` with one thread per process: the seconds timed inside it and its CPU seconds (all processes)."""
    env = {**os.environ, **ONE_THREAD}
    env["PYTHONPATH"] = os.pathsep.join([str(BENCH_DIR), env.get("PYTHONPATH", "")])
    with tempfile.NamedTemporaryFile("r", suffix=".cpu") as cpu:
        done = subprocess.run(
            [TIME, "-f", "%U %S", "-o", cpu.name, *cmd], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env
        )
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr.decode()[-3000:]}")
        user, system = map(float, cpu.read().split()[-2:])
    return float(Path(seconds_file).read_text()), user + system


def floor_seconds(root: Path, pairs: int, floor_pairs: int) -> float:
    """The measures in a plain loop over the first ``floor_pairs`` pairs (read beforehand), scaled to ``pairs``."""
    from lightscore.audio import speech_quality as sq

    lines = zip((root / "test" / "hyp.scp").open(), (root / "test" / "ref.scp").open())
    waves = [(sf.read(h.split()[1])[0], sf.read(r.split()[1])[0]) for (h, r), _ in zip(lines, range(floor_pairs))]
    sq.mcd_dtw(*waves[0], RATE)  # imports and caches out of the timing
    start = time.perf_counter()
    for hyp, ref in waves:
        sq.mcd_dtw(hyp, ref, RATE)
        sq.world_f0_measures(hyp, ref, RATE, F0_METHOD)
    return (time.perf_counter() - start) / len(waves) * pairs


def time_scaleout(root: Path, one: str, many: str, ranks: int, repeats: int) -> tuple[dict, dict, dict, dict]:
    """``lightscore measure`` of ``root`` on 1 process (``one``) and torchrun ``ranks`` (``many``), side by side.

    Returns:
        ``(times, inside, cpu, results)``, each method name -> one value per run: wall seconds, seconds
        inside the command, CPU seconds of all processes, and the metrics.json text it wrote.
    """
    inside: dict[str, list[float]] = {one: [], many: []}
    cpu: dict[str, list[float]] = {one: [], many: []}
    results: dict[str, list[str]] = {one: [], many: []}

    def launcher(name: str, ranks: int):
        def launch() -> None:
            with tempfile.NamedTemporaryFile("r", suffix=".seconds") as seconds:
                seconds_inside, cpu_seconds = run(command(root, ranks, seconds.name), seconds.name)
            inside[name].append(seconds_inside)
            cpu[name].append(cpu_seconds)
            metrics = root / "metrics.json"
            results[name].append(metrics.read_text())
            metrics.unlink()

        return launch

    times = time_side_by_side({one: launcher(one, 1), many: launcher(many, ranks)}, repeats, warmup=False)
    return times, inside, cpu, results


RUN_HEADER = (
    "| run | wall s | inside the command s | CPU s (all processes) | CPU / wall | RTF (wall) | x real time |"
    "\n|---|---:|---:|---:|---:|---:|---:|"
)


def run_row(name: str, wall: float, inside: float, used: float, audio_seconds: float) -> str:
    """One line of `RUN_HEADER`'s table: a run's wall, inside and CPU seconds and its real-time factor."""
    return (
        f"| {name} | {wall:.1f} | {inside:.1f} | {used:.1f} | {used / wall:.2f} "
        f"| {wall / audio_seconds:.4f} | {audio_seconds / wall:.1f} |"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=2000, help="WAV pairs (default: %(default)s)")
    parser.add_argument("--floor-pairs", type=int, default=40, help="pairs the plain loop runs (%(default)s)")
    parser.add_argument("--ranks", type=int, default=2, help="torchrun processes (default: %(default)s)")
    parser.add_argument("--repeats", type=int, default=1, help="runs per command (default: %(default)s)")
    args = parser.parse_args(argv)
    header(f"SignalMetrics({MEASURES}, f0_method={F0_METHOD!r}) on {args.pairs:,} pairs of {SECONDS:g} s")
    if shutil.which("torchrun", path=str(BIN)) is None:
        raise SystemExit(f"no torchrun next to {python()}")
    for name, value in ONE_THREAD.items():
        os.environ[name] = value  # the plain loop too
    root = make_corpus(args.pairs)
    audio_seconds = args.pairs * SECONDS
    print(f"data: {root} ({audio_seconds / 3600:.2f} h of hyp audio)\n", flush=True)

    one, many = "measure, 1 process", f"measure, torchrun {args.ranks} ranks"
    times, inside, cpu, texts = time_scaleout(root, one, many, args.ranks, args.repeats)
    results = {name: [json.loads(text) for text in runs] for name, runs in texts.items()}
    floor = floor_seconds(root, args.pairs, args.floor_pairs)
    rows = [Row("floor: plain loop of the measures (scaled)", args.pairs, [floor])]
    rows += [Row(name, args.pairs, seconds) for name, seconds in times.items()]
    print(table(rows, baseline=rows[0].method, ratio_label="time / floor"))
    print(f"\n{RUN_HEADER}")
    for name in (one, many):
        medians = (statistics.median(runs[name]) for runs in (times, inside, cpu))
        print(run_row(name, *medians, audio_seconds))
    rtf = f"{floor / audio_seconds:.4f} | {audio_seconds / floor:.1f}"
    print(f"| floor (plain loop, no I/O) | {floor:.1f} | | | | {rtf} |")
    speedup = statistics.median(times[one]) / statistics.median(times[many])
    speedup_inside = statistics.median(inside[one]) / statistics.median(inside[many])
    same = all(r == results[one][0] for r in results[one] + results[many])
    print("\n### Targets\n")
    print(verdict(f"speed-up of {args.ranks} ranks, wall time", speedup, TARGET, True))
    print(verdict(f"speed-up of {args.ranks} ranks, inside the command", speedup_inside, TARGET, True))
    cpu_one, cpu_many = statistics.median(cpu[one]), statistics.median(cpu[many])
    print(f"- CPU seconds, {args.ranks} ranks / 1 process: {cpu_many / cpu_one:.2f}x (imports, gloo and torchrun)")
    bound = cpu_one / (cpu_many / args.ranks)
    print(verdict("speed-up with a free core per rank (1-process CPU / per-rank CPU)", bound, TARGET, True))
    print(f"- {args.ranks} ranks write the one-process metrics.json exactly: {same}")
    print(f"- results: {json.dumps(results[one][0])}")
    print(f"- load average at the end: {os.getloadavg()[0]:.2f}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
