"""The house move (issue 18) costs nothing: the same work on the code before it and on this tree, side by side.

    python benchmarks/bench_house.py [--before 41d33b6] [--pairs 20000] [--repeats 5]

``--before`` is checked out into a temporary git worktree; each workload then runs
in a fresh interpreter on one tree and the other in turn (A B A B ...), with the
same venv, so the ratio "now / before" pairs runs taken at the same machine load.
A ratio above 1 is slower now. The workloads: ``import lightscore.metrics``; WER and
CER ``update`` + ``compute`` over the corpus pairs; ``measure()`` of WER with its
alignment file; the results must be equal on both trees (else exit 1).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from common import header, load_average, machine

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent

WORKLOADS = {
    "import lightscore.metrics": (
        "t0 = time.perf_counter(); import lightscore.metrics; t = time.perf_counter() - t0; r = 0"
    ),
    "WER update+compute": (
        "from lightscore.metrics import WER; m = WER(); t0 = time.perf_counter(); "
        "m.update(ref=refs, hyp=hyps); r = m.compute()['WER']; t = time.perf_counter() - t0"
    ),
    "CER update+compute": (
        "from lightscore.metrics import CER; m = CER(); t0 = time.perf_counter(); "
        "m.update(ref=refs, hyp=hyps); r = m.compute()['CER']; t = time.perf_counter() - t0"
    ),
    "measure() WER + alignment": (
        "import lightscore; cfg = {'inference_dir': str(root), 'metrics': ["
        "{'metric': {'_target_': 'lightscore.metrics.WER'}, 'inputs': ['ref', 'hyp']}]}; "
        "t0 = time.perf_counter(); res = lightscore.measure(cfg); t = time.perf_counter() - t0; "
        "r = res['lightscore.metrics.error_rate.WER']['dev']['WER']"
    ),
}

PROLOGUE = """
import json, sys, time
from pathlib import Path
sys.path.insert(0, {here!r})
from corpus import make_pairs
refs, hyps = make_pairs({pairs})
root = Path({root!r})
"""


def run_once(src: Path, code: str, pairs: int, root: Path) -> tuple[float, float]:
    """(seconds, result) of one workload in a fresh interpreter importing lightscore from ``src``."""
    script = PROLOGUE.format(here=str(HERE), pairs=pairs, root=str(root)) + code + "\nprint(json.dumps([t, r]))"
    env = {"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    seconds, result = json.loads(out.stdout.strip().splitlines()[-1])
    return seconds, result


def write_decode(root: Path, pairs: int) -> None:
    sys.path.insert(0, str(HERE))
    from corpus import make_pairs

    refs, hyps = make_pairs(pairs)
    (root / "dev").mkdir(parents=True)
    for name, texts in (("ref", refs), ("hyp", hyps)):
        lines = (f"utt{k:06d} {text}\n" for k, text in enumerate(texts))
        (root / "dev" / f"{name}.scp").write_text("".join(lines))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="41d33b6", help="the commit before the move")
    parser.add_argument("--pairs", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    header(f"The house move: this tree against {args.before}, {args.pairs:,} pairs, {args.repeats} runs each")
    print(f"machine: {machine()}; load average before: {load_average()}")
    with tempfile.TemporaryDirectory() as tmp:
        before = Path(tmp) / "before"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(before), args.before],
                       check=True, capture_output=True)  # fmt: skip
        try:
            return compare(before / "src", ROOT / "src", Path(tmp), args)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(before)], check=False)


def compare(before: Path, now: Path, tmp: Path, args: argparse.Namespace) -> int:
    status = 0
    print("\n| workload | before (s, median) | now (s, median) | now / before (median of pairs) | same result |")
    print("|---|---:|---:|---:|---|")
    for k, (label, code) in enumerate(WORKLOADS.items()):
        roots = {}
        for name in ("before", "now"):
            roots[name] = tmp / f"{name}-{k}"
            write_decode(roots[name], args.pairs)
        times: dict[str, list[float]] = {"before": [], "now": []}
        results: dict[str, set] = {"before": set(), "now": set()}
        for _ in range(args.repeats):
            for name, src in (("before", before), ("now", now)):
                seconds, result = run_once(src, code, args.pairs, roots[name])
                times[name].append(seconds)
                results[name].add(result)
        ratios = [n / b for n, b in zip(times["now"], times["before"])]
        same = results["before"] == results["now"] and len(results["now"]) == 1
        status |= not same
        b, n = statistics.median(times["before"]), statistics.median(times["now"])
        print(f"| {label} | {b:.3f} | {n:.3f} | {statistics.median(ratios):.2f} | {'yes' if same else 'NO'} |")
    print(f"\nload average after: {load_average()}")
    return status


if __name__ == "__main__":
    sys.exit(main())
