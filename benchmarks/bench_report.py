"""The HTML error report at scale: file size and time to open 100,000 utterances in headless Chromium.

    python benchmarks/bench_report.py [--utterances 100000] [--repeats 3]

Writes three reports of the benchmark corpus (`corpus.make_pairs`): a tiny one
(5 utterances, the baseline: Chromium's own start-up), and 100,000 utterances
with one and with two systems. Each is opened with ``chromium --headless
--dump-dom``, interleaved with the others, which returns once the page's
script has drawn its first page; the page also records its own script time
(``data-render-ms``: JSON parse, per-utterance counts, sort, first page).
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import header, time_side_by_side
from corpus import make_pairs

from lightscore.metrics import WER
from lightscore.report.html import write_report
from lightscore.text.alignment import align

TARGET_SECONDS = 5.0  # "opens in a few seconds", Chromium's start included


def systems_for(n: int, count: int) -> list[tuple[str, dict, list]]:
    """One or two systems over ``n`` corpus pairs; B fixes every fourth utterance of A and drops a word of another."""
    refs, hyps_a = make_pairs(n)
    hyps_b = [ref if k % 4 == 0 else " ".join(hyp.split()[:-1]) if k % 4 == 1 else hyp
              for k, (ref, hyp) in enumerate(zip(refs, hyps_a))]  # fmt: skip
    out = []
    for name, hyps in (("A", hyps_a), ("B", hyps_b))[:count]:
        metric = WER()
        metric.update(ref=refs, hyp=hyps)
        utterances = [(f"utt{k:06d}", align(ref.split(), hyp.split())) for k, (ref, hyp) in enumerate(zip(refs, hyps))]
        out.append((name, metric.compute(), utterances))
    return out


def open_in_chromium(chromium: str, page: Path, profile: Path) -> str:
    """The rendered DOM of ``page``; fails unless the page's script reached its ready marker."""
    command = [
        chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        f"--user-data-dir={profile}", "--virtual-time-budget=5000", "--dump-dom", page.as_uri(),
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
    head = done.stdout[:2000]
    if 'data-ready="1"' not in head:
        raise SystemExit(f"{page}: the report's script did not finish in Chromium")
    return head


def render_ms(head: str) -> int:
    return int(re.search(r'data-render-ms="(\d+)"', head).group(1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--utterances", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    chromium = shutil.which("chromium")
    if chromium is None:
        print("chromium is not installed (apt-get install chromium): nothing measured")
        return 0
    header("HTML error report: file size and time to open in headless Chromium")
    work = Path(tempfile.mkdtemp(prefix="lightscore-report-"))
    cases = {"tiny, 1 system": (5, 1), "1 system": (args.utterances, 1), "2 systems": (args.utterances, 2)}
    pages, write_seconds = {}, {}
    for label, (n, count) in cases.items():
        systems = systems_for(n, count)
        pages[label] = work / f"{label.replace(' ', '_').replace(',', '')}.html"
        start = time.perf_counter()
        write_report(pages[label], systems, title=f"bench: {label}")
        write_seconds[label] = time.perf_counter() - start
    heads: dict[str, list[int]] = {label: [] for label in cases}

    def opener(label: str):
        return lambda: heads[label].append(render_ms(open_in_chromium(chromium, pages[label], work / "profile")))

    times = time_side_by_side({label: opener(label) for label in cases}, repeats=args.repeats)
    base = statistics.median(times["tiny, 1 system"])
    print(
        "| report | utterances | file MB | bytes / utterance | write s | open median s | min-max s "
        "| in-page script ms | open / tiny |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label, (n, _) in cases.items():
        size, t = pages[label].stat().st_size, times[label]
        print(f"| {label} | {n:,} | {size / 1e6:.1f} | {size / n:,.0f} | {write_seconds[label]:.2f} "
              f"| {statistics.median(t):.2f} | {min(t):.2f}-{max(t):.2f} | {statistics.median(heads[label]):.0f} "
              f"| {statistics.median(t) / base:.2f} |")  # fmt: skip
    worst = max(statistics.median(times[label]) for label in cases)
    met = "MET" if worst <= TARGET_SECONDS else "NOT MET"
    print(f"\nTargets\n- {args.utterances:,} utterances open in {worst:.2f} s (target <= {TARGET_SECONDS:g} s): {met}")
    shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
