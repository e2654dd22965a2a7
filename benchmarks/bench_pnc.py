"""Punctuation, case and word timing (issue 40, part E): PER's batched alignment against its plain twin; the metrics.

    python benchmarks/bench_pnc.py [--utterances 20000] [--repeats 3]

A corpus of cased words with marks attached (10-30 words, ``, . ?`` after about a third of them), its
hypothesis with about one word in ten replaced, lower-cased or stripped of its mark. PER's fast path
(`punctuation_counts_batch`: the cost tables filled a row at a time for 256 utterances at once) and its
plain twin (`punctuation_counts`: one table cell by cell) are checked equal, then timed side by side in
batches of 1,000 (as the metrics get them); a fast path stays only where it pays at least 1.5x (issue 37).
PnC-WER's alignment had a batched twin too; it paid 0.95x-1.02x (its time is in splitting the words) and
was removed. Then each metric on the whole corpus, with WER (rapidfuzz) for scale; WordTiming on the
same number of utterances of 20 timed words.
"""

from __future__ import annotations

import argparse
import random
import statistics

from common import header, load_average, time_side_by_side

from lightscore.metrics import WER, CaseErrorRate, PnCWER, PunctuationErrorRate, WordTiming
from lightscore.text.recognition.punctuation import punctuation_counts, punctuation_counts_batch

KEEP = 1.5


def corpus(n: int, seed: int = 0) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    vocabulary = [f"{w}{k}" for w in ("the", "cat", "Sat", "on", "Mat", "dog", "Ran", "far") for k in range(50)]
    refs, hyps = [], []
    for _ in range(n):
        words = [rng.choice(vocabulary) + rng.choice(("", "", "", ",", ".", "?")) for _ in range(rng.randint(10, 30))]
        refs.append(" ".join(words))
        hyp = []
        for w in words:
            roll = rng.random()
            hyp.append(
                rng.choice(vocabulary)
                if roll < 0.04
                else w.lower()
                if roll < 0.07
                else w.rstrip(",.?")
                if roll < 0.1
                else w
            )
        hyps.append(" ".join(hyp))
    return refs, hyps


def batches(items: list, size: int = 1000) -> list[list]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--utterances", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    header("Punctuation and case: batched alignments against their plain twins")
    refs, hyps = corpus(args.utterances)
    pairs = list(zip(batches(refs), batches(hyps)))
    print(f"{args.utterances:,} utterances in batches of 1,000; load {load_average()}\n")
    print("| fast path | plain twin | fast s | plain s | gain | verdict |")
    print("|---|---|---:|---:|---:|---|")
    rows = [
        (
            "punctuation.punctuation_counts_batch",
            "punctuation.punctuation_counts",
            lambda: [punctuation_counts_batch(r, h) for r, h in pairs],
            lambda: [[punctuation_counts(a, b) for a, b in zip(r, h)] for r, h in pairs],
        ),
    ]
    for name, twin, fast, plain in rows:
        assert fast() == plain(), f"{name} and {twin} disagree"
        times = time_side_by_side({"fast": fast, "plain": plain}, repeats=args.repeats, warmup=False)
        fast_s, plain_s = statistics.median(times["fast"]), statistics.median(times["plain"])
        verdict = "keep" if plain_s / fast_s >= KEEP else "REPLACE by the plain twin"
        print(f"| `{name}` | `{twin}` | {fast_s:.3f} | {plain_s:.3f} | {plain_s / fast_s:.2f}x | {verdict} |")

    def metric(cls, ref, hyp):
        def run():
            m = cls()
            for r, h in zip(batches(ref), batches(hyp)):
                m.update(ref=r, hyp=h)
            return m.compute()

        return run

    timed = [[(f"w{k}", k * 0.5, k * 0.5 + 0.4) for k in range(20)]] * args.utterances
    shifted = [[(f"w{k}", k * 0.5 + 0.03, k * 0.5 + 0.45) for k in range(20)]] * args.utterances
    runs = {cls.__name__: metric(cls, refs, hyps) for cls in (WER, PunctuationErrorRate, CaseErrorRate, PnCWER)}
    runs["WordTiming"] = metric(WordTiming, timed, shifted)
    times = time_side_by_side(runs, repeats=args.repeats, warmup=False)
    print(f"\n| metric ({args.utterances:,} utterances) | s | utterances / s |")
    print("|---|---:|---:|")
    for name, seconds in times.items():
        median = statistics.median(seconds)
        print(f"| {name} | {median:.3f} | {args.utterances / median:,.0f} |")


if __name__ == "__main__":
    main()
