"""Each fast path of the translation family against its plain twin (`lightscore.text.mt.reference`), side by side.

    python benchmarks/bench_mt_fast_paths.py [--segments 20000] [--ter-segments 1000] [--repeats 3]

The workload is bench_translation.py's corpus (5-40 words, a 20,000-word vocabulary with
punctuation, one reference), fed in batches of 1,000 segments as the metrics get them. Both sides
of a row compute the same thing and the script checks their outputs are equal before it times
them. A fast path stays only where it pays at least 1.5x (issue 37); the verdict line says so.
"""

from __future__ import annotations

import argparse
import statistics

import numpy as np
from bench_translation import corpus
from common import header, load_average, time_side_by_side

from lightscore.text.mt import reference
from lightscore.text.mt.bleu import bleu_side_stats
from lightscore.text.mt.chrf import chrf_segment_stats
from lightscore.text.mt.ngram_counts import word_ids
from lightscore.text.mt.ter import tercom_words
from lightscore.text.mt.ter_beam import edit_counts
from lightscore.text.mt.token_ids import TokenIds
from lightscore.text.mt.tokenizers import (
    SEPARATOR,
    bleu_tokenizer,
    tercom_tokenizer,
    tokenize_13a_batch,
)

KEEP = 1.5  # the gain a fast path must show to stay


def batches(items: list, size: int = 1000) -> list[list]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def partition(ids: np.ndarray, lengths: np.ndarray) -> list[list[int]]:
    """Token ids per segment renumbered by first occurrence (two encodings agree when these are equal)."""
    seen: dict[int, int] = {}
    flat = [seen.setdefault(i, len(seen)) for i in ids.tolist()]
    cuts = np.cumsum(lengths).tolist()
    return [flat[a:b] for a, b in zip([0, *cuts[:-1]], cuts)]


def row(name: str, twin: str, fast, plain, repeats: int, same=lambda out: out) -> tuple[str, str, float]:
    """Time ``fast`` and ``plain`` side by side after checking ``same`` of their outputs is equal."""
    assert same(fast()) == same(plain()), f"{name} and {twin} disagree"
    times = time_side_by_side({"fast": fast, "plain": plain}, repeats=repeats, warmup=False)
    fast_s, plain_s = statistics.median(times["fast"]), statistics.median(times["plain"])
    gain = plain_s / fast_s
    verdict = "keep" if gain >= KEEP else "REPLACE by the plain twin"
    print(f"| `{name}` | `{twin}` | {fast_s:.3f} | {plain_s:.3f} | {gain:.2f}x | {verdict} |", flush=True)
    return name, twin, gain


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--segments", type=int, default=20000)
    parser.add_argument("--ter-segments", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    header("Translation fast paths against their plain twins (lightscore.text.mt.reference)")
    hyps, refs = corpus(args.segments, seed=0)
    hyp_batches, ref_batches = batches(hyps), batches(refs)
    print(f"{args.segments:,} segments in batches of 1,000; TER on the first {args.ter_segments:,}\n")
    print("| fast path | plain twin | fast s | plain s | gain | verdict |")
    print("|---|---|---:|---:|---:|---|")
    r = args.repeats

    # -- BLEU's 13a token ids: the per-word cache, the batched regular expressions (the numpy road for ASCII text paid
    # 1.17x over the per-word cache on a quiet machine and gave way to it, issue 37)
    tok = bleu_tokenizer("13a")
    fresh = TokenIds(tok)

    def per_word_road():
        out = []
        for b in hyp_batches:
            stream = fresh._piece_ids(b, fresh._prepared(b))
            cuts = np.flatnonzero(stream == 0)
            lengths = np.diff(np.concatenate(([-1], cuts, [len(stream)]))) - 1
            kept = stream[stream != 0]
            present = np.zeros(len(fresh.pieces), bool)
            present[kept] = True
            rank = np.cumsum(present, dtype=np.int64).astype(np.uint64) - np.uint64(1)
            out.append(([rank[kept]], [lengths]))
        return out

    def plain_ids():
        out = []
        for b in hyp_batches:
            tokens = [reference.tokenize_13a(line) for line in b]
            out.append(word_ids([[t for ts in tokens for t in (*ts, SEPARATOR)][:-1]], SEPARATOR))
        return out

    def partitions(encoded):
        return [partition(ids[0], lengths[0]) for ids, lengths in encoded]

    name = "TokenIds per-word road (token_ids)"
    row(name, "reference.tokenize_13a per line", per_word_road, plain_ids, r, partitions)
    row(
        "tokenizers.tokenize_13a_batch",
        "reference.tokenize_13a per line",
        lambda: [tokenize_13a_batch(b) for b in hyp_batches],
        lambda: [[reference.tokenize_13a(line) for line in b] for b in hyp_batches],
        r,
    )

    # -- BLEU's clipped n-gram matches, from the same token ids
    encoded = [fresh.encode([h, f]) for h, f in zip(hyp_batches, ref_batches)]
    token_lists = [
        [[reference.tokenize_13a(line) for line in h], [reference.tokenize_13a(line) for line in f]]
        for h, f in zip(hyp_batches, ref_batches)
    ]
    row(
        "bleu.bleu_side_stats (ngram_match)",
        "reference.bleu_stats per segment",
        lambda: [bleu_side_stats(sides).tolist() for sides in encoded],
        lambda: [[reference.bleu_stats(h, [f]) for h, f in zip(*pair)] for pair in token_lists],
        r,
    )

    # -- chrF and chrF++'s words
    row(
        "chrf.chrf_segment_stats (ngram_counts)",
        "reference.chrf_stats per segment",
        lambda: [chrf_segment_stats(h, [f]).tolist() for h, f in zip(hyp_batches, ref_batches)],
        lambda: [[reference.chrf_stats(h, [f]) for h, f in zip(hb, fb)] for hb, fb in zip(hyp_batches, ref_batches)],
        r,
    )

    # chrF++'s words: the stream-wide split (chrf.remove_punctuation over tokenizers.split_stream) paid 1.45x over
    # reference.chrf_words per line on 2026-12-06 and was replaced by it (issue 37's rule: a fast path earns 1.5x).

    # -- TER
    n = args.ter_segments
    ter_tok = tercom_tokenizer(False, False, False, False)
    pairs = list(zip(tercom_words(hyps[:n], ter_tok), tercom_words(refs[:n], ter_tok, times=2)))
    row(
        "ter_beam.edit_counts (batched beam, ter_bounds)",
        "reference.ter_edits per pair",
        lambda: edit_counts(pairs),
        lambda: [reference.ter_edits(h, f) for h, f in pairs],
        max(1, r - 2),
    )
    print(f"\nload average at end: {load_average()}")


if __name__ == "__main__":
    main()
