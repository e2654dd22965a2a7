"""hubscr's whole workloads with this tree's lightscore against an earlier commit's, side by side in one run.

    python benchmarks/bench_hubscr_before_after.py --before <commit> [--segments 4000] [--repeats 5]

When a fast path gives way to its plain twin (issue 37), the figure that matters is the user's whole run.
The earlier commit's ``src/`` is extracted with ``git archive`` into a temporary folder and put first on
``PYTHONPATH``; every repeat then times, for each tree in a rotated order: ``hubscr()`` called in an
interpreter that has imported lightscore (its seconds measured inside), and the command
``lightscore score ref.stm hyp.ctm --glm`` as a whole process, on bench_hubscr.py's corpus. Both trees
must print the same totals; a difference exits with status 1.
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

from bench_hubscr import GLM, corpus
from common import header, load_average, python

ROOT = Path(__file__).resolve().parents[1]
IN_PROCESS = (
    "import sys, time\nfrom lightscore.text.hubscr.pipeline import hubscr\n"
    "start = time.perf_counter()\ncounts = hubscr(sys.argv[1], sys.argv[2], sys.argv[3])\n"
    "seconds = time.perf_counter() - start\n"
    "print(seconds, *(sum(c[k] for c in counts) for k in range(4, 8)))\n"
)


def extract(commit: str, folder: Path) -> Path:
    """The commit's ``src/`` under ``folder``, compiled to bytecode as an installed package is."""
    archive = subprocess.run(["git", "archive", commit, "src"], cwd=ROOT, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    compileall.compile_dir(folder / "src", quiet=1)
    return folder / "src"


def in_process(src: Path, stm: Path, ctm: Path) -> tuple[float, tuple[str, ...]]:
    """``hubscr()``'s seconds in an interpreter that has imported lightscore from ``src``, and its totals."""
    done = subprocess.run(
        [python(), "-c", IN_PROCESS, str(stm), str(ctm), GLM],
        env={**os.environ, "PYTHONPATH": str(src)},
        capture_output=True,
        text=True,
        check=True,
    )
    seconds, *totals = done.stdout.split()
    return float(seconds), tuple(totals)


def command(src: Path, stm: Path, ctm: Path) -> tuple[float, str]:
    """``lightscore score ref.stm hyp.ctm --glm``'s wall-clock seconds with lightscore from ``src``, and its output."""
    start = time.perf_counter()
    done = subprocess.run(
        [python(), str(Path(python()).with_name("lightscore")), "score", str(stm), str(ctm), "--glm", GLM],
        env={**os.environ, "PYTHONPATH": str(src)},
        capture_output=True,
        text=True,
        check=True,
    )
    return time.perf_counter() - start, done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="the earlier commit")
    parser.add_argument("--segments", type=int, default=4_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    header(f"hubscr's whole workloads: this tree against {args.before}")
    compileall.compile_dir(ROOT / "src", quiet=1)
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"before": extract(args.before, Path(tmp)), "after": ROOT / "src"}
        stm, ctm = corpus(args.segments, Path(tmp))
        inside: dict[str, list[float]] = {name: [] for name in trees}
        whole: dict[str, list[float]] = {name: [] for name in trees}
        results: dict[str, set] = {name: set() for name in trees}
        names = list(trees)
        for rep in range(args.repeats + 1):  # the first round warms the caches and is not counted
            for name in names[rep % 2 :] + names[: rep % 2]:
                seconds, totals = in_process(trees[name], stm, ctm)
                elapsed, output = command(trees[name], stm, ctm)
                results[name].add((totals, output))
                if rep:
                    inside[name].append(seconds)
                    whole[name].append(elapsed)
    print("| workload | before s | after s | after / before |")
    print("|---|---:|---:|---:|")
    for label, times in (
        (f"`hubscr()` in a running interpreter, {args.segments:,} segments", inside),
        (f"`lightscore score ref.stm hyp.ctm --glm {GLM}` (whole process)", whole),
    ):
        before, after = statistics.median(times["before"]), statistics.median(times["after"])
        print(f"| {label} | {before:.3f} | {after:.3f} | {after / before:.2f} |")
    same = len(results["before"]) == 1 and results["before"] == results["after"]
    print(f"\ntotals and printed results: {'identical' if same else 'DIFFER'}; load average at end: {load_average()}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
