"""Corpus BLEU, chrF and TER: lightscore against sacrebleu 2.6, side by side, first on the callback's road.

    python benchmarks/bench_translation.py [--batched-segments 21000] [--batched-repeats 5]
        [--segments 100000] [--ter-segments 10000] [--repeats 1]

Synthetic segments of 5-40 words (a 20,000-word vocabulary with punctuation), one
reference each, as in issue 21. Both sides print their score, which must be equal.

- **The callback's road** (issue 41): BLEU and chrF over 21,000 segments fed to
  ``update`` in 1,000-segment batches, as `lightscore.lightning.MetricCallback` feeds
  them, beside the whole-corpus call (one ``update`` of every segment) and sacrebleu's
  ``corpus_score``, the three timed in turn. Each run builds new metrics, so the
  token caches (lightscore's and sacrebleu's) start empty, as in a training run's first validation.
- **Large corpora**: BLEU and chrF over 100,000 segments, TER over 10,000, fed in
  batches of 1,000 rows as `lightscore measure` feeds them.

The verdicts are on wall-clock medians; the CPU-time ratio beside them shows how much
busy neighbours on a shared machine moved the figure.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from common import Row, header, load_average, table, time_side_by_side, verdict
from sacrebleu.metrics import BLEU as SacreBLEU
from sacrebleu.metrics import CHRF as SacreCHRF
from sacrebleu.metrics import TER as SacreTER

from lightscore.metrics.translation import BLEU, ChrF, TranslationEditRate


def corpus(n: int, seed: int) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    vocab = [f"word{i}" for i in range(20000)] + [",", ".", "?", "'s", "(a)", "3.5"]
    common = vocab[:300]

    def sentence() -> str:
        return " ".join(rng.choice(common if rng.random() < 0.6 else vocab) for _ in range(rng.randint(5, 40)))

    refs = [sentence() for _ in range(n)]
    hyps = [" ".join(w for w in r.split() if rng.random() > 0.15) if rng.random() < 0.8 else sentence() for r in refs]
    return hyps, refs


def ours(metric, hyps: list[str], refs: list[str], batch: int = 1000) -> float:
    metric.reset()
    for i in range(0, len(hyps), batch):
        metric.update(hyp=hyps[i : i + batch], ref=refs[i : i + batch])
    return metric.compute()[metric.name]


def callback_road(name: str, make_sacre, make, hyps: list[str], refs: list[str], repeats: int) -> None:
    """sacrebleu, lightscore in 1,000-segment batches and in one call, timed in turn (new metrics each run).

    sacrebleu's 13a tokenizer caches up to 65,536 lines per tokenizer (an ``lru_cache``), which holds a
    21,000-segment corpus: a metric reused across runs would tokenize nothing after the first. Each run
    builds both sides' metrics anew, so each starts as a training run's first validation does.
    """
    scores: dict[str, float] = {}
    cpu: dict[str, list[float]] = {}

    def timed(label: str, run) -> None:
        start = time.process_time()
        scores[label] = run()
        cpu.setdefault(label, []).append(time.process_time() - start)

    runs = {
        "sacrebleu 2.6": lambda: make_sacre().corpus_score(hyps, [refs]).score,
        "lightscore, 1,000-segment batches": lambda: ours(make(), hyps, refs),
        "lightscore, whole corpus": lambda: ours(make(), hyps, refs, len(hyps)),
    }
    methods = {label: (lambda label=label, run=run: timed(label, run)) for label, run in runs.items()}
    times = time_side_by_side(methods, repeats=repeats, warmup=False)
    rows = [Row(method, len(hyps), seconds, unit="segments") for method, seconds in times.items()]
    print(f"#### {name}, {len(hyps):,} segments, {repeats} runs each (load average now {load_average()})\n")
    print(table(rows, baseline="sacrebleu 2.6", ratio_label="time / sacrebleu"))
    equal = len(set(scores.values())) == 1
    print(f"\n- scores: {', '.join(f'{k} {v!r}' for k, v in scores.items())}: {'EQUAL' if equal else 'DIFFERENT'}")
    base = statistics.median(cpu["sacrebleu 2.6"])
    for label in list(methods)[1:]:
        print(f"- CPU-time speed-up, {label}: {base / statistics.median(cpu[label]):.2f}x")
    print(verdict(f"{name} speed-up in 1,000-segment batches", rows[0].median / rows[1].median, 10, True))
    print(f"- {name} speed-up of the whole-corpus call: {rows[0].median / rows[2].median:.2f}x")
    # each run's own ratio (the three ran back to back): steadier than a ratio of medians when the load moves
    for label in list(methods)[1:]:
        paired = statistics.median(s / o for s, o in zip(times["sacrebleu 2.6"], times[label]))
        print(f"- median of the runs' own speed-ups, {label}: {paired:.2f}x")
    print()


def compare(name: str, sacre, mine, hyps: list[str], refs: list[str], repeats: int) -> None:
    scores: dict[str, float] = {}
    cpu: dict[str, list[float]] = {"sacrebleu 2.6": [], "lightscore": []}

    def timed(label: str, key: str, run) -> None:
        start = time.process_time()
        scores[key] = run()
        cpu[label].append(time.process_time() - start)

    methods = {
        "sacrebleu 2.6": lambda: timed("sacrebleu 2.6", "sacrebleu", lambda: sacre.corpus_score(hyps, [refs]).score),
        "lightscore": lambda: timed("lightscore", "lightscore", lambda: ours(mine, hyps, refs)),
    }
    times = time_side_by_side(methods, repeats=repeats, warmup=False)
    rows = [Row(method, len(hyps), seconds, unit="segments") for method, seconds in times.items()]
    print(f"#### {name}, {len(hyps):,} segments (load average now {load_average()})\n")
    print(table(rows, baseline="sacrebleu 2.6", ratio_label="time / sacrebleu"))
    print(
        f"\n- sacrebleu {scores['sacrebleu']!r}, lightscore {scores['lightscore']!r}: "
        f"{'EQUAL' if scores['sacrebleu'] == scores['lightscore'] else 'DIFFERENT'}"
    )
    cpu_ratio = statistics.median(cpu["sacrebleu 2.6"]) / statistics.median(cpu["lightscore"])
    print(f"- CPU-time speed-up (less sensitive to busy neighbours): {cpu_ratio:.2f}x")
    print(verdict(f"{name} speed-up over sacrebleu", rows[0].median / rows[1].median, 10, higher_is_better=True))
    print()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--batched-segments", type=int, default=21000, help="segments on the callback's road")
    parser.add_argument("--batched-repeats", type=int, default=5, help="timed runs of each side on the callback's road")
    parser.add_argument("--segments", type=int, default=100000)
    parser.add_argument("--ter-segments", type=int, default=10000)
    parser.add_argument("--repeats", type=int, default=1, help="timed runs of each side (medians are compared)")
    args = parser.parse_args()
    header("Translation metrics: BLEU, chrF, TER against sacrebleu")
    n = args.batched_segments
    print("### The callback's road: 1,000-segment batches beside the whole-corpus call (issue 41)\n")
    hyps, refs = corpus(n, seed=0)
    callback_road("BLEU", SacreBLEU, BLEU, hyps, refs, args.batched_repeats)
    callback_road("chrF", SacreCHRF, ChrF, hyps, refs, args.batched_repeats)
    if not args.segments:
        return
    print("### Large corpora, 1,000-row batches as `lightscore measure` feeds them\n")
    hyps, refs = corpus(args.segments, seed=0)
    compare("BLEU", SacreBLEU(), BLEU(), hyps, refs, args.repeats)
    compare("chrF", SacreCHRF(), ChrF(), hyps, refs, args.repeats)
    n = args.ter_segments
    compare("TER", SacreTER(), TranslationEditRate(), hyps[:n], refs[:n], args.repeats)
    print(f"load average at end: {load_average()}")


if __name__ == "__main__":
    main()
