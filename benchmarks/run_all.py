"""Run every benchmark script, print their output, and put it in benchmarks/README.md.

    python benchmarks/run_all.py            # the full run (make bench); about 30 minutes on 2 cores
    python benchmarks/run_all.py --quick    # smaller sizes, a smoke test; README.md is left alone

Each script runs in its own interpreter, one after the other, so no benchmark
shares the machine with another. The README section between the
``<!-- results -->`` markers is replaced by the machine description and every
script's output; the exit status is 1 when a script failed (a target missed is
not a failure: the scripts print MET / NOT MET).
"""

from __future__ import annotations

import argparse
import datetime
import os
import subprocess
import sys
from pathlib import Path

from common import load_average, machine, python

HERE = Path(__file__).resolve().parent
README = HERE / "README.md"
BEGIN, END = "<!-- results -->", "<!-- /results -->"

SCRIPTS = {
    "bench_startup.py": ([], ["--repeats", "5"]),
    "bench_scoring.py": ([], ["--pairs", "4000", "--repeats", "3", "--torchmetrics-cer-pairs", "200"]),
    "bench_gather.py": ([], ["--iterations", "50"]),
    "bench_measure.py": ([], ["--lines", "100000", "--small", "20000", "--repeats", "1"]),
    "bench_sclite.py": ([], ["--pairs", "5000", "--repeats", "1"]),
    # One utterance of 1k/5k/20k words per aligner; sctk sclite up to 5k (20k words take it minutes and GBs).
    "bench_sclite_memory.py": ([], ["--words", "1000", "2000", "--sclite-words", "1000"]),
    "bench_compare.py": (["--repeats", "1"], ["--utterances", "5000", "--replicates", "200", "--repeats", "1"]),
    "bench_report.py": (["--repeats", "1"], ["--utterances", "10000", "--repeats", "1"]),
    # 20 pairs (5 for harvest, ~2x real time) keep the full run near 5 minutes; the script defaults are larger.
    "bench_audio_quality.py": (
        ["--pairs", "20", "--harvest-pairs", "5", "--repeats", "1"],
        ["--pairs", "4", "--harvest-pairs", "2", "--repeats", "1"],
    ),
    # 240 four-second pairs: about 3 minutes on 1 process plus 1.5 on 2 ranks (2,000 would take 40).
    "bench_audio_scaleout.py": (["--pairs", "240", "--floor-pairs", "30"], ["--pairs", "8", "--floor-pairs", "4"]),
    "bench_translation.py": ([], ["--segments", "5000", "--ter-segments", "500"]),
    "bench_meeting.py": ([], ["--sessions", "20", "--repeats", "1"]),
    "bench_hubscr.py": (["--segments", "4000", "--everyday", "0", "0.9"], ["--segments", "400"]),  # vs sctk hubscr
    "bench_mos.py": (["--files", "8", "--repeats", "1"], ["--files", "2", "--repeats", "1"]),
    # 48 sentences: pocketsphinx takes ~5 CPU s a file, so about 4 minutes on 1 process plus 2 on 2 ranks.
    "bench_quality_scaleout.py": (["--files", "48"], ["--files", "6"]),
    "bench_house.py": ([], ["--pairs", "2000", "--repeats", "2"]),  # the house move: 41d33b6 against this tree
    # Issue 37: each family's fast paths against their plain twins, on the family's workload (the plain twins are
    # slow by design, so one repeat).
    "bench_sclite_fast_paths.py": (["--repeats", "1"], ["--pairs", "500", "--segments", "100", "--repeats", "1"]),
    "bench_mt_fast_paths.py": (["--repeats", "1"], ["--segments", "2000", "--ter-segments", "200", "--repeats", "1"]),
    "bench_meeting_fast_paths.py": ([], ["--sessions", "20"]),
    # Issue 41: re-segmentation against mweralign's C++ and its plain twin (one talk, about 6 s).
    "bench_resegment.py": ([], ["--talks", "2", "--segments", "30", "--repeats", "1"]),
    # Issue 40: keywords, OOVs and oracle WER against texterrors 1.1.9 on 20,000 utterances (about 2 minutes).
    "bench_keywords.py": ([], ["--utterances", "1000", "--repeats", "1"]),
    # Issue 40: PER's batched alignment against its plain twin; PER, CaseER, PnC-WER, WordTiming (about 2 minutes).
    "bench_pnc.py": ([], ["--utterances", "1000", "--repeats", "1"]),
    # Issue 38: DNSMOS/PLCMOS peak memory against speechmos (600 s clips take ~20 minutes: results/mos_memory.md).
    "bench_mos_memory.py": (["--seconds", "10", "60"], ["--seconds", "10"]),
}


def run(script: str, args: list[str]) -> tuple[int, str]:
    """Run one script, echoing its output as it comes; return its status and output."""
    process = subprocess.Popen(
        [python(), str(HERE / script), *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=HERE
    )
    lines = []
    assert process.stdout is not None
    for line in process.stdout:
        if line.startswith("[Gloo]"):  # gloo's connection chatter
            continue
        print(line, end="", flush=True)
        lines.append(line)
    return process.wait(), "".join(lines)


def git_commit() -> str:
    try:
        root = HERE.parent
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=root)
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "src"], capture_output=True, text=True, cwd=root)
    except OSError:
        return "unknown"
    return commit.stdout.strip() + (" + uncommitted changes in src/" if dirty.stdout.strip() else "")


def lscpu_head() -> list[str]:
    try:
        return subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines()[:12]
    except OSError:
        return []


def write_readme(sections: list[str]) -> None:
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    head = [
        f"Run {now} on commit {git_commit()}, with `python benchmarks/run_all.py`.",
        "",
        machine(),
        "",
        "```",
        "$ nproc",
        str(os.cpu_count()),
        "$ lscpu | head -12",
        *lscpu_head(),
        "```",
    ]
    block = "\n".join([BEGIN, "", *head, "", *sections, END])
    text = README.read_text()
    start, stop = text.index(BEGIN), text.index(END) + len(END)
    README.write_text(text[:start] + block + text[stop:])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes; README.md is not written")
    parser.add_argument("--only", nargs="*", choices=sorted(SCRIPTS), help="run these scripts only (README untouched)")
    args = parser.parse_args(argv)
    failed, sections = [], []
    for script, (full, quick) in SCRIPTS.items():
        if args.only and script not in args.only:
            continue
        print(f"\n=== {script} (load average {load_average()}) ===\n", flush=True)
        status, output = run(script, quick if args.quick else full)
        if status != 0:
            failed.append(script)
        command = f"python benchmarks/{script}"
        body = [("##" + line if line.startswith("#") else line) for line in output.strip().splitlines()]
        sections += [f"### `{command}`", "", *body, ""]
    if not args.quick and not args.only:
        write_readme(sections)
        print(f"\nwrote {README}")
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
