"""lightscore's sclite aligner against the NIST ``sctk sclite`` binary and the unit-cost aligner.

    python benchmarks/bench_sclite.py [--pairs 100000] [--repeats 3]

Every method scores the same generated pairs (benchmarks/corpus.py), case-folded
as sclite does by default. Two comparisons:

- whole process, wall time and peak RSS: ``sctk sclite -i rm -o sum rsum`` on
  trn files against a fresh interpreter that reads the same pairs from SCP
  files and sums them with ``sum_sclite_edits`` (targets: at least 10x faster,
  at most 1/10 of sclite's peak memory);
- in process, timed side by side: ``sum_sclite_edits`` and the unit-cost
  ``counting.sum_edits`` on texts already in memory.

sclite's totals (the ``Sum`` row of its ``.raw`` report) must equal
``sum_sclite_edits``'; a mismatch exits with status 1. Without ``sctk`` on PATH
the binary's rows are left out.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import Row, header, python, table, time_side_by_side, verdict
from corpus import SEED, data_dir, make_pairs

from lightscore.text.counting import sum_edits
from lightscore.text.sclite.align import sum_sclite_edits


def write_inputs(n: int) -> Path:
    """Write (once) the pairs as sclite trn files and as SCP files; return their folder."""
    folder = data_dir() / f"sclite-{n}-{SEED}"
    if (folder / "done").is_file():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    refs, hyps = make_pairs(n)
    ids = [f"bench-utt{k:08d}" for k in range(n)]  # -i rm: the speaker is "bench"
    for name, texts in (("ref", refs), ("hyp", hyps)):
        (folder / f"{name}.trn").write_text("".join(f"{t} ({u})\n".lstrip() for u, t in zip(ids, texts)))
        (folder / f"{name}.scp").write_text("".join(f"{u} {t}\n" for u, t in zip(ids, texts)))
    (folder / "done").touch()
    return folder


def timed_process(command: list[str]) -> tuple[float, int, str]:
    """Run ``command``; its wall seconds, its own peak RSS in bytes (``wait4``), and its stdout."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert process.stdout is not None
    out = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise RuntimeError(f"{command[0]} exited with status {process.returncode}")
    return seconds, usage.ru_maxrss * 1024, out


def run_sclite(folder: Path) -> tuple[float, int, tuple[int, ...]]:
    """Time ``sctk sclite``; return seconds, peak RSS and (S, D, I, N, sentence errors) from its ``.raw`` Sum row."""
    with tempfile.TemporaryDirectory() as out:
        command = ["sctk", "sclite", "-r", str(folder / "ref.trn"), "trn", "-h", str(folder / "hyp.trn"), "trn"]
        seconds, rss, _ = timed_process(command + ["-i", "rm", "-o", "sum", "rsum", "-O", out, "-n", "bench"])
        raw = (Path(out) / "bench.raw").read_text()
    row = re.search(r"\| Sum\s+\|\s+(\d+)\s+(\d+)\s+\|\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)", raw)
    if row is None:
        raise RuntimeError("no Sum row in sclite's .raw report")
    _, words, _, sub, dele, ins, _, sentence_errors = map(int, row.groups())
    return seconds, rss, (sub, dele, ins, words, sentence_errors)


def child(folder: Path) -> None:
    """The whole-process lightscore run: read both SCP files, fold case, sum; print totals and peak RSS."""

    def texts(path: Path) -> list[str]:
        with open(path, encoding="utf-8") as f:
            return [line.rstrip("\n").partition(" ")[2].lower() for line in f]

    totals = sum_sclite_edits(texts(folder / "ref.scp"), texts(folder / "hyp.scp"), str.split)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({"totals": totals, "peak": peak}))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child)
        return 0
    header(f"sclite alignment: {args.pairs:,} pairs")
    folder = write_inputs(args.pairs)
    ok = True

    print("### Whole process (wall time, peak RSS)\n")
    ours_s, _, out = timed_process([python(), __file__, "--child", str(folder)])
    ours = json.loads(out)
    rows, memory = [Row("lightscore aligner=sclite (python, read SCP, sum)", args.pairs, [ours_s])], []
    if shutil.which("sctk"):
        sclite_s, sclite_rss, sclite_totals = run_sclite(folder)
        rows.insert(0, Row("sctk sclite -o sum rsum", args.pairs, [sclite_s]))
        same = tuple(ours["totals"]) == sclite_totals
        ok &= same
        print(table(rows, baseline="sctk sclite -o sum rsum", ratio_label="time / sclite") + "\n")
        print(f"- peak RSS: sclite {sclite_rss / 2**20:,.0f} MiB, lightscore {ours['peak'] / 2**20:,.0f} MiB")
        print(
            f"- totals S/D/I/N/utterances with errors: sclite {sclite_totals}, lightscore {tuple(ours['totals'])}: "
            f"{'EQUAL' if same else 'DIFFERENT'}"
        )
        memory = [verdict("memory / sclite's", ours["peak"] / sclite_rss, 0.1, higher_is_better=False)]
        print(verdict("speed-up over sclite", sclite_s / ours_s, 10, higher_is_better=True))
        print("\n".join(memory) + "\n")
    else:
        print("sctk is not on PATH: the binary's rows are left out.\n")
        print(table(rows, baseline=rows[0].method) + "\n")

    print("### In process, side by side\n")
    refs, hyps = make_pairs(args.pairs)
    times = time_side_by_side(
        {
            "sum_sclite_edits (aligner=sclite)": lambda: sum_sclite_edits(
                [r.lower() for r in refs], [h.lower() for h in hyps], str.split
            ),
            "sum_edits (unit costs, rapidfuzz)": lambda: sum_edits(
                [r.lower() for r in refs], [h.lower() for h in hyps], str.split
            ),
        },
        args.repeats,
    )
    rows = [Row(name, args.pairs, seconds) for name, seconds in times.items()]
    print(table(rows, baseline="sum_edits (unit costs, rapidfuzz)", ratio_label="time / unit") + "\n")
    in_process = sum_sclite_edits([r.lower() for r in refs], [h.lower() for h in hyps], str.split)
    same = in_process == tuple(ours["totals"])
    ok &= same
    print(f"- in-process totals equal the whole-process run's: {'EQUAL' if same else 'DIFFERENT'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
