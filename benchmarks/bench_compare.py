"""Comparing two systems: bootstrap intervals and sc_stats' four tests on 100,000 utterances.

    python benchmarks/bench_compare.py [--utterances 100000] [--replicates 1000] [--repeats 3]

A generated corpus (200 speakers, 5-60 words per utterance, system B slightly
better than A) is aligned once with `lightscore.text.alignment.align`, before
any clock starts. Rows:

- ``bootstrap_ci`` of each system and ``paired_bootstrap`` (all with ``--replicates``);
- the four tests of `lightscore.analysis.significance` (MAPSSWE, McNemar, sign, Wilcoxon), as
  ``sc_stats -t std4`` runs them;
- where Debian's ``sctk`` is installed, ``sctk sc_stats -p -t std4 -u`` on sclite's SGML
  of the same texts (sclite's own alignment, run once beforehand, is not timed), the
  time of the whole command.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
from common import Row, header, table, time_side_by_side

from lightscore.analysis.bootstrap import bootstrap_ci, paired_bootstrap
from lightscore.analysis.breakdown import speaker_table, utt_counts
from lightscore.analysis.significance import mapsswe, mcnemar, sign_test, verdict, wilcoxon_test
from lightscore.text.alignment import align

SPEAKERS = 200
VOCAB = [f"w{i}" for i in range(2000)]


def make_corpus(n: int, seed: int = 7) -> tuple[list[str], list[list[str]], list[list[str]], list[list[str]]]:
    """Ids, references and two systems' hypotheses; B's error rates are 0.9 times A's."""
    rng = np.random.default_rng(seed)
    weights = 1 / np.arange(1, len(VOCAB) + 1)
    weights /= weights.sum()
    ids = sorted(f"spk{rng.integers(SPEAKERS):03d}-utt{i:06d}" for i in range(n))
    refs, hyps = [], {"a": [], "b": []}
    for _ in range(n):
        ref = list(rng.choice(VOCAB, size=int(rng.integers(5, 61)), p=weights))
        refs.append(ref)
        for system, scale in (("a", 1.0), ("b", 0.9)):
            hyp = []
            for word, roll, extra in zip(ref, rng.random(len(ref)), rng.random(len(ref))):
                if roll < 0.08 * scale:
                    hyp.append(VOCAB[int(rng.integers(len(VOCAB)))])
                elif roll >= 0.10 * scale:  # 2% deletions
                    hyp.append(word)
                if extra < 0.02 * scale:
                    hyp.append(VOCAB[int(rng.integers(len(VOCAB)))])
            hyps[system].append(hyp)
    return ids, refs, hyps["a"], hyps["b"]


def four_tests(al_a, al_b, rates_a, rates_b) -> list[dict]:
    correct_a = [all(m == "C" for _, _, m in pairs) for pairs in al_a.values()]
    correct_b = [all(m == "C" for _, _, m in pairs) for pairs in al_b.values()]
    return [
        mapsswe(al_a, al_b),
        mcnemar(correct_a, correct_b),
        sign_test(rates_a, rates_b),
        wilcoxon_test(rates_a, rates_b),
    ]


def interval(ci: tuple[float, float]) -> str:
    return f"[{ci[0]:.2f}, {ci[1]:.2f}]"


def write_trn(path: Path, ids: list[str], texts: list[list[str]]) -> None:
    with open(path, "w") as f:
        for utt_id, words in zip(ids, texts):
            f.write(f"{' '.join(words)} ({utt_id})\n")


def sctk_command(folder: Path, ids, refs, hyps_a, hyps_b) -> list[str] | None:
    """Write trn files, run sclite once for each system's SGML; the sc_stats command line to time."""
    if shutil.which("sctk") is None:
        return None
    write_trn(folder / "ref.trn", ids, refs)
    for name, hyps in (("a", hyps_a), ("b", hyps_b)):
        write_trn(folder / f"hyp_{name}.trn", ids, hyps)
        subprocess.run(
            ["sctk", "sclite", "-r", "ref.trn", "trn", "-h", f"hyp_{name}.trn", "trn", "-i", "rm", "-o", "sgml",
             "-O", str(folder), "-n", name],
            cwd=folder, check=True, capture_output=True,
        )  # fmt: skip
    (folder / "both.sgml").write_bytes((folder / "a.sgml").read_bytes() + (folder / "b.sgml").read_bytes())
    (folder / "stats").mkdir(exist_ok=True)
    return ["sctk", "sc_stats", "-p", "-t", "std4", "-u", "-O", str(folder / "stats"), "-n", "unified"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--utterances", type=int, default=100_000)
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    n, reps = args.utterances, args.replicates
    header(f"Comparing two systems: {n:,} utterances, {reps:,} bootstrap replicates")

    ids, refs, hyps_a, hyps_b = make_corpus(n)
    al_a = {u: align(r, h) for u, r, h in zip(ids, refs, hyps_a)}
    al_b = {u: align(r, h) for u, r, h in zip(ids, refs, hyps_b)}
    rec_a = [utt_counts(u, p) for u, p in al_a.items()]
    rec_b = [utt_counts(u, p) for u, p in al_b.items()]
    errors_a = np.array([r.errors for r in rec_a])
    errors_b = np.array([r.errors for r in rec_b])
    ref_lens = np.array([r.ref_len for r in rec_a])
    speakers = [r.speaker for r in rec_a]
    rates_a = [row.rate for row in sorted(speaker_table(rec_a))]
    rates_b = [row.rate for row in sorted(speaker_table(rec_b))]

    methods = {
        "bootstrap_ci A + bootstrap_ci B": lambda: (
            bootstrap_ci(errors_a, ref_lens, replicates=reps),
            bootstrap_ci(errors_b, ref_lens, replicates=reps),
        ),
        "paired_bootstrap": lambda: paired_bootstrap(errors_a, errors_b, ref_lens, replicates=reps),
        "paired_bootstrap, speakers as blocks": lambda: paired_bootstrap(
            errors_a, errors_b, ref_lens, replicates=reps, groups=speakers
        ),
        "lightscore 4 tests (MAPSSWE, McNemar, sign, Wilcoxon)": lambda: four_tests(al_a, al_b, rates_a, rates_b),
    }
    with tempfile.TemporaryDirectory() as tmp:
        command = sctk_command(Path(tmp), ids, refs, hyps_a, hyps_b)
        if command is not None:
            sgml = Path(tmp) / "both.sgml"

            def sc_stats() -> None:
                with open(sgml, "rb") as stdin:
                    subprocess.run(command, stdin=stdin, check=True, capture_output=True)

            methods["sctk sc_stats -t std4 -u"] = sc_stats
        times = time_side_by_side(methods, repeats=args.repeats)
    rows = [Row(name, n, seconds, unit="utterances") for name, seconds in times.items()]
    print(table(rows, baseline="lightscore 4 tests (MAPSSWE, McNemar, sign, Wilcoxon)"))
    if command is None:
        print("\n`sctk` is not installed (Debian package sctk): sc_stats not timed.")

    print("\nResults:\n")
    r = paired_bootstrap(errors_a, errors_b, ref_lens, replicates=reps)
    print(f"- A {r['rate_a']:.2f}% {interval(r['ci_a'])}, B {r['rate_b']:.2f}% {interval(r['ci_b'])}")
    print(f"- B - A {r['difference']:+.3f} points {interval(r['ci'])}, P(B better) {r['p_b_better']:.3f}")
    for result in four_tests(al_a, al_b, rates_a, rates_b):
        print(f"- {result['test']}: {verdict(result)}; sc_stats would say: {verdict(result, p_key='p_sctk')}")


if __name__ == "__main__":
    main()
