"""Peak memory and time of one long utterance with aligner="sclite" against the unit aligner (issue 19, item 5).

    python benchmarks/bench_sclite_memory.py [--words 1000 5000 20000] [--sclite-words 5000]

Each size is one utterance: the corpus pairs (benchmarks/corpus.py) joined
until the reference has that many words, case-folded. For each aligner a fresh
interpreter runs ``WER(aligner=...)``: ``update`` + ``compute`` (the counts),
then ``metric.align`` (the alignment a report, ``wer_alignment`` or
``log_samples`` writes); its peak RSS comes from ``getrusage``, the RSS after
the imports is shown beside it. ``sctk sclite -o sum rsum`` scores the same
utterance for sizes up to ``--sclite-words`` (its time and memory grow fast:
minutes and GBs at 20,000 words); its S/D/I must equal ours, else the exit
status is 1 (tests/test_sclite_align.py also checks the alignment, token by
token, at 20,000 words).
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import sys
import time
from pathlib import Path

from bench_sclite import run_sclite, timed_process
from common import header, python, verdict
from corpus import SEED, data_dir, make_pairs

LIMIT = 2**30  # the target: a 20,000-word utterance and its alignment under 1 GB


def write_utterance(words: int) -> Path:
    """Write (once) one utterance of ``words`` reference words as trn files and JSON; return its folder."""
    folder = data_dir() / f"sclite-long-{words}-{SEED}"
    if (folder / "done").is_file():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    ref: list[str] = []
    hyp: list[str] = []
    refs, hyps = make_pairs(max(1000, words // 10))
    while len(ref) < words:
        for r, h in zip(refs, hyps):
            ref += r.lower().split()
            hyp += h.lower().split()
            if len(ref) >= words:
                break
    for name, side in (("ref", ref), ("hyp", hyp)):
        (folder / f"{name}.trn").write_text(" ".join(side) + " (bench-utt1)\n")
    (folder / "pair.json").write_text(json.dumps([" ".join(ref), " ".join(hyp)]))
    (folder / "done").touch()
    return folder


def child(folder: Path, aligner: str) -> None:
    """One measured run: counts, then the alignment; print times, counts and RSS as JSON."""
    from lightscore.metrics import WER

    ref, hyp = json.loads((folder / "pair.json").read_text())
    imported = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    metric = WER(aligner=aligner)
    start = time.perf_counter()
    metric.update(ref=[ref], hyp=[hyp])
    result = metric.compute()
    counted = time.perf_counter()
    pairs = metric.align(ref, hyp)
    aligned = time.perf_counter()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    counts = [result["WER_sub"], result["WER_del"], result["WER_ins"]]
    report = {"count_s": counted - start, "align_s": aligned - counted, "imported": imported, "peak": peak}
    print(json.dumps({**report, "counts": counts, "positions": len(pairs)}))


def measure(folder: Path, aligner: str) -> dict:
    """Run `child` in a fresh interpreter; its report, with its wall time and ``wait4`` peak RSS."""
    seconds, rss, out = timed_process([python(), __file__, "--child", str(folder), aligner])
    return {**json.loads(out), "wall": seconds, "rss": rss}


def mib(size: float) -> str:
    return f"{size / 2**20:,.0f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--words", type=int, nargs="+", default=[1000, 5000, 20000])
    parser.add_argument("--sclite-words", type=int, default=5000, help="run sctk sclite up to this size")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(Path(args.child[0]), args.child[1])
        return 0
    header("sclite alignment of one long utterance: peak memory and time")
    lines = [
        "| words | method | counts s | alignment s | process s | peak RSS MiB | RSS after imports MiB | S/D/I |",
        "|---:|---|---:|---:|---:|---:|---:|---|",
    ]
    ok, targets = True, []
    for words in args.words:
        folder = write_utterance(words)
        runs = {aligner: measure(folder, aligner) for aligner in ("unit", "sclite")}
        for aligner, run in runs.items():
            lines.append(
                f"| {words:,} | WER(aligner={aligner!r}) | {run['count_s']:.2f} | {run['align_s']:.2f} "
                f"| {run['wall']:.2f} | {mib(run['rss'])} | {mib(run['imported'])} | {tuple(run['counts'])} |"
            )
        if shutil.which("sctk") and words <= args.sclite_words:
            seconds, rss, totals = run_sclite(folder)
            same = list(totals[:3]) == runs["sclite"]["counts"]
            ok &= same
            lines.append(
                f"| {words:,} | sctk sclite -o sum rsum | | | {seconds:.2f} | {mib(rss)} | | "
                f"{totals[:3]} {'EQUAL' if same else 'DIFFERENT'} |"
            )
        if words >= 20000:
            targets.append(verdict(f"{words:,} words, sclite peak RSS / 1 GB", runs["sclite"]["rss"] / LIMIT, 1, False))
    print("\n".join(lines) + "\n")
    print("- counts: `update` + `compute` of one utterance; alignment: `metric.align` of it (same process).")
    print("- sctk rows: the whole `sctk sclite` process on the same utterance (counts; the alignment is tested).\n")
    if targets:
        print("\n".join(targets) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
