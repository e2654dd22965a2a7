"""lightscore's stm/ctm/GLM scoring (`lightscore.text.hubscr.hubscr`) against ``sctk hubscr`` on the same triple.

    python benchmarks/bench_hubscr.py [--segments 4000] [--repeats 3] [--everyday 0 0.9] [--sweep 11]

A generated conversation corpus (several files, two channels, ignored regions,
words NIST's GLM rewrites and words it turns into alternations; with
``--everyday S`` that share of the words from a 5,000-word Zipf vocabulary no
GLM rule touches, closer to real conversations; several shares, one corpus
each) is scored
whole-process: ``sctk hubscr -V -l english -h hub5`` (csrfilt on both sides,
then ``sclite -F -D``; ``-V`` because hubscr's transcript validators refuse some
of the GLM's own outputs), a fresh interpreter calling ``hubscr``, and the
command ``lightscore score ref.stm hyp.ctm --glm``, and ``hubscr``'s first call in an interpreter
that has already imported lightscore (as a training run or ``measure()`` calls it); then Kaldi's
sweep, ``--sweep K`` decodings of the same audio (the ctm with 0%, 1%, ... of its words
dropped, as LM weights trade deletions for insertions): ``sctk hubscr`` once per ctm, in
turn, against one ``lightscore score ref.stm hyp00.ctm ... --glm``. The totals (every segment's
C, S, D, I from sclite's ``.pra``, summed) must be identical (in the sweep, per ctm); a mismatch exits
with status 1. Target: 10x faster. lightscore's modules are compiled to bytecode
first, as an installed package's are.
The four are timed in turn, ``--repeats`` times, and compared by their medians; the
load average is printed before and after (the ratio means little on a busy machine).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from itertools import accumulate
from pathlib import Path

from common import Row, compile_bytecode, header, python, table, verdict
from corpus import vocabulary as everyday_words

from lightscore.text.hubscr.glm import glm_path, read_glm

GLM = "en20030506"


def corpus(segments: int, folder: Path, seed: int = 0, everyday: float = 0.0) -> tuple[Path, Path]:
    """Write ``ref.stm`` and ``hyp.ctm`` with about ``segments`` reference segments.

    ``everyday``: the share of words drawn instead from `corpus.vocabulary` (5,000 words, Zipf
    frequencies), words no GLM rule touches; 0 leaves every word one NIST's GLM rewrites, a
    hesitation, a fragment or an optional word (a stress test of the GLM and the networks).
    """
    rng = random.Random(seed)
    # hubscr's validators take letters, apostrophes and inner hyphens only.
    rules = read_glm(glm_path(GLM)).rules
    rule_words = sorted({w for r in rules for w in r.source.split() if re.fullmatch(r"[A-Za-z']+", w)})
    vocabulary = rng.sample(rule_words, 200) + ["uh-huh", "e-mail", "wor-", "(um)", "yes", "the", "a", "and"] * 20
    common = everyday_words()
    weights = list(accumulate(1 / rank for rank in range(1, len(common) + 1)))

    def pick() -> str:
        if everyday and rng.random() < everyday:
            return rng.choices(common, cum_weights=weights)[0]
        return rng.choice(vocabulary)

    def picks(k: int) -> list[str]:  # without everyday words: distinct GLM words, as this corpus always drew them
        return [pick() for _ in range(k)] if everyday else rng.sample(vocabulary, k)

    stm, ctm = [";; generated"], []
    per_channel = 50
    for index in range(max(1, segments // (2 * per_channel))):
        for channel in ("A", "B"):
            time_ = 0.0
            for _ in range(per_channel):
                begin, end = time_, time_ + rng.uniform(1.0, 6.0)
                text = " ".join(pick() for _ in range(rng.randint(3, 14)))
                if rng.random() < 0.03:
                    text = "IGNORE_TIME_SEGMENT_IN_SCORING"
                stm.append(f"file{index:04d} {channel} spk{index:04d}{channel} {begin:.2f} {end:.2f} {text}")
                said = text.split() if not text.startswith("IGNORE") else picks(3)
                words = [w.strip("()") for w in said if rng.random() < 0.85] + picks(1)
                step = (end - begin) / len(words)
                ctm += [
                    f"file{index:04d} {channel} {begin + k * step:.2f} {step * 0.9:.2f} {w} 0.9"
                    for k, w in enumerate(words)
                ]
                time_ = end + rng.uniform(0.0, 0.5)
    (folder / "ref.stm").write_text("\n".join(stm) + "\n", encoding="utf-8")
    (folder / "hyp.ctm").write_text("\n".join(ctm) + "\n", encoding="utf-8")
    return folder / "ref.stm", folder / "hyp.ctm"


def run_sctk(stm: Path, ctm: Path) -> tuple[float, tuple[int, int, int, int]]:
    command = [
        "sctk",
        "hubscr",
        "-V",
        "-g",
        str(glm_path(GLM)),
        "-l",
        "english",
        "-h",
        "hub5",
        "-r",
        stm.name,
        ctm.name,
    ]
    start = time.perf_counter()
    subprocess.run(command, cwd=stm.parent, check=True, capture_output=True)
    seconds = time.perf_counter() - start
    pra = (ctm.parent / f"{ctm.name}.filt.pra").read_text(encoding="utf-8")
    scores = re.findall(r"^Scores: \(#C #S #D #I\) (\d+) (\d+) (\d+) (\d+)", pra, flags=re.M)
    totals = [sum(int(row[k]) for row in scores) for k in range(4)]
    return seconds, (totals[0], totals[1], totals[2], totals[3])


def run_lightscore(stm: Path, ctm: Path) -> tuple[float, tuple[int, int, int, int]]:
    code = (
        "import sys; from lightscore.text.hubscr.pipeline import hubscr\n"
        f"found = hubscr({str(stm)!r}, {str(ctm)!r}, {GLM!r})\n"
        "print(sum(c.ref_len - c.sub - c.dele for c in found), sum(c.sub for c in found), "
        "sum(c.dele for c in found), sum(c.ins for c in found))\n"
    )
    start = time.perf_counter()
    done = subprocess.run([python(), "-c", code], check=True, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    c, s, d, i = map(int, done.stdout.split())
    return seconds, (c, s, d, i)


def run_in_process(stm: Path, ctm: Path) -> tuple[float, tuple[int, int, int, int]]:
    """``hubscr``'s first call in an interpreter that has imported lightscore (a Lightning run, a notebook,
    ``measure()``): the call alone is timed, the GLM read and every cold cache included."""
    code = (
        "import time; from lightscore.text.hubscr.pipeline import hubscr\n"
        f"start = time.perf_counter(); found = hubscr({str(stm)!r}, {str(ctm)!r}, {GLM!r})\n"
        "print(time.perf_counter() - start, sum(c.ref_len - c.sub - c.dele for c in found), "
        "sum(c.sub for c in found), sum(c.dele for c in found), sum(c.ins for c in found))\n"
    )
    done = subprocess.run([python(), "-c", code], check=True, capture_output=True, text=True)
    seconds, *counts = done.stdout.split()
    c, s, d, i = map(int, counts)
    return float(seconds), (c, s, d, i)


def run_command(stm: Path, ctms: list[Path]) -> tuple[float, list[tuple[int, int, int, int]]]:
    """``lightscore score ref.stm hyp.ctm ... --glm``, the command a user runs: its time and each ctm's totals,
    read from its Kaldi lines (one per ctm; the ``best:`` line of a sweep left out)."""
    command = [python(), str(Path(python()).with_name("lightscore")), "score", str(stm), *map(str, ctms), "--glm", GLM]
    start = time.perf_counter()
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    totals = []
    for found in re.finditer(r"^%WER \S+ \[ \d+ / (\d+), (\d+) ins, (\d+) del, (\d+) sub \]", done.stdout, re.M):
        words, i, d, s = map(int, found.groups())
        totals.append((words - s - d, s, d, i))
    assert len(totals) == len(ctms), done.stdout
    return seconds, totals


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--segments", type=int, default=4000)
    parser.add_argument("--repeats", type=int, default=3)
    everyday = "shares of words no GLM rule touches, one corpus each (default 0: every word a GLM word)"
    parser.add_argument("--everyday", type=float, nargs="+", default=[0.0], help=everyday)
    parser.add_argument("--sweep", type=int, default=11, help="ctm decodings in the sweep (0: no sweep)")
    args = parser.parse_args()
    if shutil.which("sctk") is None:
        header(f"stm/ctm/GLM scoring against sctk hubscr ({args.segments:,} segments, GLM {GLM})")
        print("sctk is not on PATH: nothing to compare\n")
        return 0
    compile_bytecode()
    return max(compare(args.segments, args.repeats, share, args.sweep) for share in args.everyday)


def compare(segments: int, repeats: int, everyday: float, sweep: int = 0) -> int:
    """One corpus scored by the four, side by side, then its sweep: 0 when their totals are identical, else 1."""
    words = f", {everyday:.0%} everyday words" if everyday else ", every word a GLM word"
    header(f"stm/ctm/GLM scoring against sctk hubscr ({segments:,} segments{words}, GLM {GLM})")
    with tempfile.TemporaryDirectory() as tmp:
        stm, ctm = corpus(segments, Path(tmp), everyday=everyday)
        ours, theirs, commands, inside = [], [], [], []
        for _ in range(repeats):
            seconds, expected = run_sctk(stm, ctm)
            theirs.append(seconds)
            seconds, got = run_lightscore(stm, ctm)
            ours.append(seconds)
            seconds, (printed,) = run_command(stm, [ctm])
            commands.append(seconds)
            seconds, called = run_in_process(stm, ctm)
            inside.append(seconds)
    rows = [Row("sctk hubscr (csrfilt x2 + sclite -F -D)", segments, theirs, unit="segments")]
    rows.append(Row("lightscore text.hubscr.hubscr (fresh interpreter)", segments, ours, unit="segments"))
    rows.append(Row(f"lightscore score ref.stm hyp.ctm --glm {GLM}", segments, commands, unit="segments"))
    rows.append(Row("hubscr() called in a running interpreter (imports done)", segments, inside, unit="segments"))
    print(table(rows, baseline=rows[0].method))
    same = got == expected == printed == called
    outcome = "identical" if same else "DIFFER"
    print(f"\ntotals (C, S, D, I): sctk {expected}, lightscore {got}, ", end="")
    print(f"the command {printed}, in process {called}: {outcome}")
    print(verdict("speed-up over sctk hubscr", rows[0].median / rows[1].median, 10, higher_is_better=True))
    print(verdict("the command's speed-up", rows[0].median / rows[2].median, 10, higher_is_better=True))
    print(verdict("in a running interpreter", rows[0].median / rows[3].median, 10, higher_is_better=True))
    print(f"- load average at the end: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print()
    return max(0 if same else 1, compare_sweep(segments, repeats, everyday, sweep) if sweep else 0)


def decodings(ctm: Path, count: int) -> list[Path]:
    """``count`` decodings of the audio ``ctm`` decodes: the k-th drops each word with probability k%."""
    lines = ctm.read_text(encoding="utf-8").splitlines()
    paths = []
    for k in range(count):
        rng = random.Random(k)
        paths.append(ctm.with_name(f"hyp{k:02d}.ctm"))
        paths[-1].write_text("\n".join(line for line in lines if rng.random() >= 0.01 * k) + "\n", encoding="utf-8")
    return paths


def compare_sweep(segments: int, repeats: int, everyday: float, count: int) -> int:
    """Kaldi's sweep of ``count`` decodings: sctk hubscr once per ctm against one command; 0 when identical."""
    words = f", {everyday:.0%} everyday words" if everyday else ", every word a GLM word"
    header(f"a sweep of {count} decodings against sctk hubscr per decoding ({segments:,} segments{words})")
    with tempfile.TemporaryDirectory() as tmp:
        stm, ctm = corpus(segments, Path(tmp), everyday=everyday)
        ctms = decodings(ctm, count)
        theirs, ours = [], []
        for _ in range(repeats):
            runs = [run_sctk(stm, path) for path in ctms]
            theirs.append(sum(seconds for seconds, _ in runs))
            seconds, got = run_command(stm, ctms)
            ours.append(seconds)
    expected = [totals for _, totals in runs]
    rows = [Row(f"sctk hubscr, once per ctm ({count} runs in turn)", segments * count, theirs, unit="segments")]
    rows.append(
        Row(f"lightscore score ref.stm + {count} ctm files --glm {GLM}", segments * count, ours, unit="segments")
    )
    print(table(rows, baseline=rows[0].method))
    same = got == expected
    first, last = (got[0], got[-1]) if got else (None, None)
    outcome = "identical for every ctm" if same else "DIFFER"
    print(f"\nper-ctm totals (C, S, D, I), first and last: sctk {expected[0]} ... {expected[-1]}, ", end="")
    print(f"lightscore {first} ... {last}: {outcome}")
    print(verdict(f"a sweep of {count} decodings", rows[0].median / rows[1].median, 10, higher_is_better=True))
    print(f"- load average at the end: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print()
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
