"""Targets 4 and 6: ``lightscore measure`` over a 1,000,000-line SCP pair, in one process and under torchrun.

    python benchmarks/bench_measure.py [--lines 1000000] [--small 100000] [--repeats 3]

The SCP pair repeats the 20,000 corpus pairs (benchmarks/corpus.py) and is
cached under ``$LIGHTSCORE_BENCH_DATA`` (default: a folder in the temp dir).
Each command is a fresh process, timed wall-clock with its peak RSS (wait4);
the runs of all commands are interleaved.

- floor: reading and splitting both files in a plain loop (measured here),
  plus the target-1 floor (rapidfuzz opcodes over pre-split tokens, measured
  on the 20,000 pairs and scaled to the line count);
- ``lightscore measure`` with a plain WER entry, as a user writes it: it also
  writes ``wer_alignment``, an sclite-style block for every erroneous
  utterance (350 MB for 1M lines), from a second pass over the files;
- the same with ``WER(alignment=False)`` (no wer_alignment file): the
  streaming and scoring path alone;
- both under ``torchrun --standalone --nproc_per_node=2``; their metrics.json
  (and alignment file) must equal the one-process ones exactly.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import Row, header, python, table, time_side_by_side, verdict
from corpus import PAIRS, data_dir, make_pairs, scp_pair

BENCH_DIR = Path(__file__).resolve().parent
BIN = Path(python()).parent
TIME = "/usr/bin/time"  # GNU time, for the peak RSS of a command


def inference_dir(lines: int) -> Path:
    """``<data>/measure-<lines>/test/{ref,hyp}.scp`` (links to the cached pair) and a metrics YAML per variant."""
    ref, hyp = scp_pair(lines)
    root = data_dir() / f"measure-{lines}"
    test = root / "test"
    test.mkdir(parents=True, exist_ok=True)
    for name, target in (("ref.scp", ref), ("hyp.scp", hyp)):
        link = test / name
        if not link.exists():
            link.symlink_to(target)
    for variant, alignment in (("wer", "true"), ("score_only", "false")):
        metric = f"{{_target_: lightscore.metrics.WER, alignment: {alignment}}}"
        (root.parent / f"measure-{lines}-{variant}.yaml").write_text(
            f"inference_dir: {root}\nmetrics:\n  - {{metric: {metric}, inputs: [ref, hyp], name: wer}}\n"
        )
    return root


def config(lines: int, variant: str) -> str:
    return str(data_dir() / f"measure-{lines}-{variant}.yaml")


def run_process(command: list[str]) -> tuple[float, int]:
    """Wall seconds and peak RSS in bytes of ``command`` (its largest process), measured by GNU time.

    GNU time starts the command from a small process: the rusage of a child
    forked from this (large) benchmark process would report this process's
    pages as the child's peak.
    """
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(BENCH_DIR), os.environ.get("PYTHONPATH", "")])}
    env["OMP_NUM_THREADS"] = "1"
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
        start = time.perf_counter()
        done = subprocess.run(
            [TIME, "-f", "%M", "-o", rss.name, *command], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env
        )
        seconds = time.perf_counter() - start
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr.decode()[-3000:]}")
        return seconds, int(rss.read().split()[-1]) * 1024


def measure_command(lines: int, variant: str, ranks: int, seconds_file: str) -> list[str]:
    """``lightscore measure`` through `timed_measure.py`, alone or under torchrun."""
    command = [str(BENCH_DIR / "timed_measure.py"), seconds_file, "measure", config(lines, variant)]
    if ranks == 1:
        return [python(), *command]
    return [str(BIN / "torchrun"), "--standalone", f"--nproc_per_node={ranks}", *command]


def read_and_split(ref: Path, hyp: Path) -> None:
    """The reading half of the floor: both files, line by line, decoded and split into words."""
    with open(ref, "rb") as r, open(hyp, "rb") as h:
        for ref_line, hyp_line in zip(r, h):
            ref_line.decode().split()
            hyp_line.decode().split()


def opcodes_floor_per_pair(repeats: int) -> float:
    """Seconds per pair of the target-1 floor: rapidfuzz opcodes over pre-split token lists."""
    from rapidfuzz.distance import Levenshtein

    refs, hyps = make_pairs(PAIRS)
    ref_tokens, hyp_tokens = [r.split() for r in refs], [h.split() for h in hyps]

    def floor() -> None:
        for ref, hyp in zip(ref_tokens, hyp_tokens):
            Levenshtein.opcodes(ref, hyp)

    return statistics.median(time_side_by_side({"floor": floor}, max(7, repeats))["floor"]) / PAIRS


def snapshot(root: Path) -> tuple[dict, str | None]:
    """metrics.json's ``wer`` results and a hash of wer_alignment (None when there is none), then both removed."""
    results = json.loads((root / "metrics.json").read_text())["wer"]
    alignment = root / "test" / "wer_alignment"
    digest = None
    if alignment.exists():
        digest = hashlib.sha256(alignment.read_bytes()).hexdigest()
        alignment.unlink()
    (root / "metrics.json").unlink()
    return results, digest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=1_000_000, help="lines of the large pair (%(default)s)")
    parser.add_argument("--small", type=int, default=100_000, help="lines of the small pair (%(default)s)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per command (default: %(default)s)")
    parser.add_argument("--ranks", type=int, default=2, help="torchrun processes (default: %(default)s)")
    args = parser.parse_args(argv)
    header(f"lightscore measure over {args.lines:,} lines, one process and {args.ranks} ranks (targets 4 and 6)")
    if shutil.which("torchrun", path=str(BIN)) is None:
        raise SystemExit(f"no torchrun next to {python()}")
    big, small = inference_dir(args.lines), inference_dir(args.small)
    ref, hyp = scp_pair(args.lines)
    print(f"data: {ref.parent}, {ref.stat().st_size / 1e6:.0f} MB + {hyp.stat().st_size / 1e6:.0f} MB\n")
    read_and_split(ref, hyp)  # warm the page cache: every method reads from memory

    commands = {
        "measure, WER (+ wer_alignment), 1 process": (args.lines, "wer", 1),
        f"measure, WER (+ wer_alignment), torchrun {args.ranks} ranks": (args.lines, "wer", args.ranks),
        "measure, WER(alignment=False), 1 process": (args.lines, "score_only", 1),
        f"measure, WER(alignment=False), torchrun {args.ranks} ranks": (args.lines, "score_only", args.ranks),
        f"measure, WER (+ wer_alignment), 1 process, {args.small:,} lines": (args.small, "wer", 1),
        f"measure, WER(alignment=False), 1 process, {args.small:,} lines": (args.small, "score_only", 1),
    }
    peak: dict[str, list[int]] = {name: [] for name in commands}
    inside: dict[str, list[float]] = {name: [] for name in commands}
    snapshots: dict[str, list] = {name: [] for name in commands}

    def launcher(name: str):
        lines, variant, ranks = commands[name]
        root = big if lines == args.lines else small

        def launch() -> None:
            with tempfile.NamedTemporaryFile("r", suffix=".seconds") as seconds:
                _, rss = run_process(measure_command(lines, variant, ranks, seconds.name))
                inside[name].append(float(seconds.read()))
            peak[name].append(rss)
            snapshots[name].append(snapshot(root))

        return launch

    methods = {"floor: read + split both files": lambda: read_and_split(ref, hyp)}
    methods |= {name: launcher(name) for name in commands}
    times = time_side_by_side(methods, args.repeats, warmup=False)
    floor_pair = opcodes_floor_per_pair(args.repeats)
    read_split = statistics.median(times["floor: read + split both files"])
    floor = read_split + floor_pair * args.lines
    print(
        f"floor for {args.lines:,} lines: read + split {read_split:.2f} s + opcodes {floor_pair * 1e6:.2f} us/pair "
        f"x {args.lines:,} = {floor:.2f} s\n"
    )
    rows = [Row("floor (read + split + opcodes)", args.lines, [floor], unit="lines")]
    for name, seconds in times.items():
        lines = commands[name][0] if name in commands else args.lines
        rows.append(Row(name, lines, seconds, unit="lines"))
    print(table(rows, baseline="floor (read + split + opcodes)", ratio_label="time per line / floor"))
    inner = [Row("floor (read + split + opcodes)", args.lines, [floor], unit="lines")]
    inner += [Row(name, commands[name][0], seconds, unit="lines") for name, seconds in inside.items()]
    print("\nThe same runs, timed inside the command (lightscore.cli.parser, between barriers under torchrun):")
    print("without process start-up, imports (torch: about 1.5 s per rank) and the torchrun launcher.\n")
    print(table(inner, baseline="floor (read + split + opcodes)", ratio_label="time per line / floor"))
    print("\n| command | peak RSS, MB (median) |\n|---|---:|")
    for name in commands:
        print(f"| {name} | {statistics.median(peak[name]) / 1e6:.0f} |")

    wall = {name: statistics.median(seconds) for name, seconds in times.items()}
    run = {name: statistics.median(seconds) for name, seconds in inside.items()}
    one, sharded, one_so, sharded_so, small_wer, small_so = commands
    same_wer = all(s == snapshots[one][0] for s in snapshots[one] + snapshots[sharded])
    same_so = all(s[0] == snapshots[one][0][0] for s in snapshots[one_so] + snapshots[sharded_so])
    print("\n### Targets\n")
    for big_name, small_name in ((one, small_wer), (one_so, small_so)):
        ratio = statistics.median(peak[big_name]) / statistics.median(peak[small_name])
        print(verdict(f"peak RSS {args.lines:,} / {args.small:,} lines, {big_name}", ratio, 1.10, False))
    for name in (one, one_so):
        print(verdict(f"wall time / floor, {name}", wall[name] / floor, 2, False))
    for label, a, b in (("WER (+ wer_alignment)", one, sharded), ("WER(alignment=False)", one_so, sharded_so)):
        print(verdict(f"speed-up of {args.ranks} ranks, {label}, wall time", wall[a] / wall[b], 1.6, True))
        print(verdict(f"speed-up of {args.ranks} ranks, {label}, inside the command", run[a] / run[b], 1.6, True))
    print(f"- {args.ranks} ranks write the one-process metrics.json and wer_alignment exactly: {same_wer}")
    print(f"- {args.ranks} ranks, WER(alignment=False), the one-process results exactly: {same_so}")
    return 0 if same_wer and same_so else 1


if __name__ == "__main__":
    sys.exit(main())
