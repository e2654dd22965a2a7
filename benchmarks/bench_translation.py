"""Corpus BLEU and chrF over 100,000 segments and TER over 10,000: lightscore against sacrebleu 2.6, side by side.

    python benchmarks/bench_translation.py [--segments 100000] [--ter-segments 10000] [--repeats 1]

Synthetic segments of 5-40 words (a 20,000-word vocabulary with punctuation), one
reference each, as in issue 21. lightscore is fed in batches of 1,000 rows, as
`lightscore measure` feeds it; both sides print their score, which must be equal.
The verdict is on wall-clock medians; the CPU-time ratio beside it shows how much
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


def ours(metric, hyps: list[str], refs: list[str]) -> float:
    metric.reset()
    for i in range(0, len(hyps), 1000):
        metric.update(hyp=hyps[i : i + 1000], ref=refs[i : i + 1000])
    return metric.compute()[metric.name]


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
    print(f"### {name}, {len(hyps):,} segments (load average now {load_average()})\n")
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
    parser.add_argument("--segments", type=int, default=100000)
    parser.add_argument("--ter-segments", type=int, default=10000)
    parser.add_argument("--repeats", type=int, default=1, help="timed runs of each side (medians are compared)")
    args = parser.parse_args()
    header("Translation metrics: BLEU, chrF, TER against sacrebleu")
    hyps, refs = corpus(args.segments, seed=0)
    compare("BLEU", SacreBLEU(), BLEU(), hyps, refs, args.repeats)
    compare("chrF", SacreCHRF(), ChrF(), hyps, refs, args.repeats)
    n = args.ter_segments
    compare("TER", SacreTER(), TranslationEditRate(), hyps[:n], refs[:n], args.repeats)
    print(f"load average at end: {load_average()}")


if __name__ == "__main__":
    main()
