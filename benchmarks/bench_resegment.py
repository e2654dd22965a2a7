"""Re-segmentation (issue 41): lightscore's compiled search against its plain twin and against mweralign's C++.

    python benchmarks/bench_resegment.py [--talks 8] [--segments 120] [--repeats 3]

Generated IWSLT-like talks (``--segments`` reference segments of 5-25 words over a 2,000-word
vocabulary each; the hypothesis drops, swaps and adds words) are re-segmented three ways and the
cuts checked equal: `lightscore.text.mt.resegment.resegment` (the numba search), the same road with
its plain twin (``segment_ends.py_func``, one talk only: it is slow), and mweralign's ``align_texts``
(C++). The fast path stays where it pays at least 1.5x over its plain twin (issue 37).
"""

from __future__ import annotations

import argparse
import logging
import random

from common import Row, header, table, time_side_by_side, verdict

from lightscore.text.mt.resegment import resegment


def generated_talks(talks: int, segments: int, seed: int = 0) -> list[tuple[list[str], str]]:
    """``talks`` talks: reference segments, and a hypothesis with about 15% of its words edited."""
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(2000)]
    out = []
    for _ in range(talks):
        refs = [" ".join(rng.choice(vocab) for _ in range(rng.randint(5, 25))) for _ in range(segments)]
        hyp = []
        for word in " ".join(refs).split():
            edit = rng.random()
            if edit < 0.05:
                continue
            hyp.append(rng.choice(vocab) if edit < 0.10 else word)
            if edit > 0.95:
                hyp.append(rng.choice(vocab))
        out.append((refs, " ".join(hyp)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--talks", type=int, default=8)
    parser.add_argument("--segments", type=int, default=120)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    logging.disable(logging.CRITICAL)  # mweralign logs a line per talk
    from mweralign import align_texts

    header("Re-segmentation: lightscore (numba) vs its plain twin vs mweralign (C++)")
    talks = generated_talks(args.talks, args.segments)
    words = sum(len(hyp.split()) for _, hyp in talks)

    def ours(chosen=talks, plain=False):
        return [resegment(refs, hyp, plain=plain) for refs, hyp in chosen]

    def theirs(chosen=talks):
        out = [align_texts("\n".join(refs) + "\n", hyp) for refs, hyp in chosen]
        return [[line.strip() for line in text.split("\n")] for text in out]

    assert ours() == theirs(), "the cuts differ from mweralign's"
    one = talks[:1]
    assert ours(one, plain=True) == ours(one), "the compiled search differs from its plain twin"
    times = time_side_by_side({"lightscore": ours, "mweralign": theirs}, repeats=args.repeats)
    plain = time_side_by_side({"plain": lambda: ours(one, plain=True), "fast": lambda: ours(one)}, repeats=1)
    one_words = len(one[0][1].split())
    rows = [
        Row("lightscore (numba)", words, times["lightscore"], "words"),
        Row("mweralign (C++)", words, times["mweralign"], "words"),
        Row("lightscore, plain twin (1 talk)", one_words, plain["plain"], "words"),
    ]
    print(table(rows, baseline="lightscore (numba)"))
    print()
    fast_per_word = Row("", one_words, plain["fast"]).per_item
    print(verdict("compiled search over its plain twin", rows[2].per_item / fast_per_word, 1.5, True))
    print(f"- lightscore / mweralign time: {rows[0].median / rows[1].median:.2f}x (the same cuts)")


if __name__ == "__main__":
    main()
