"""Each fast path of the sclite and hubscr families against its plain twin, on the families' benchmark workloads.

    python benchmarks/bench_sclite_fast_paths.py [--pairs 20000] [--segments 4000] [--repeats 3]

A fast path stays only where it pays at least 1.5x over its plain twin on the workload (issue 37). Each
row times the whole workload twice, side by side in one run (`common.time_side_by_side`): as shipped, and
with that one fast path swapped for its plain twin (the module attribute replaced for the call, then put
back). The workloads are the families' benchmarks':

- sclite: ``sum_sclite_edits`` over bench_sclite.py's corpus pairs (benchmarks/corpus.py, case-folded), and
  ``sclite_align`` of one long utterance (bench_sclite_memory.py's, ``--long-words`` words);
- hubscr: ``hubscr()`` in process on bench_hubscr.py's generated conversations (``--segments``, GLM
  en20030506); rfilter1's twin tries every rule at every character, so its row uses a tenth of them.

Both sides must give the same totals; a difference exits with status 1.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from bench_hubscr import GLM
from bench_hubscr import corpus as conversations
from common import header, load_average, time_side_by_side
from corpus import make_pairs

from lightscore.text.hubscr import glm, pipeline
from lightscore.text.hubscr import reference as hubscr_reference
from lightscore.text.sclite import align, batch, encode, markup
from lightscore.text.sclite import reference as sclite_reference

GAIN = 1.5  # what a fast path must pay over its plain twin to stay


@contextmanager
def swapped(module: object, name: str, plain: object) -> Iterator[None]:
    """``module.name`` is ``plain`` inside the block, then what it was."""
    fast = getattr(module, name)
    setattr(module, name, plain)
    try:
        yield
    finally:
        setattr(module, name, fast)


def compare(
    label: str, twin: str, workload: Callable[[], object], module: object, name: str, plain: object, repeats: int
) -> tuple[str, bool]:
    """One table row: the workload as shipped and with ``module.name`` swapped for ``plain``; and whether equal."""

    def with_twin() -> object:
        with swapped(module, name, plain):
            return workload()

    times = time_side_by_side({"fast": workload, "plain": with_twin}, repeats)
    fast, slow = float(np.median(times["fast"])), float(np.median(times["plain"]))
    same = _totals(workload()) == _totals(with_twin())
    gain = slow / fast
    verdict = "stays" if gain >= GAIN else "REMOVE (under 1.5x)"
    row = f"| {label} | {twin} | {fast:.3f} | {slow:.3f} | {gain:.2f}x | {verdict} | {'equal' if same else 'DIFFER'} |"
    print(row, flush=True)
    return row, same


def _totals(found: object) -> object:
    """What two runs of a workload must agree on: the sums of hubscr's counts, or the value itself."""
    if isinstance(found, list) and found and hasattr(found[0], "ref_len"):
        return tuple(sum(c[k] for c in found) for k in range(4, 8))
    return found


def plain_exact_counts(refs: list, hyps: list) -> list[tuple[int, int, int]]:
    """`lightscore.text.sclite.align._exact_counts`' plain twin: the textbook programme per pair."""
    return [sclite_reference.count_words(ref, hyp) for ref, hyp in zip(refs, hyps)]


def plain_batch_counts(pairs: list, vocabulary: encode.Vocabulary) -> list[tuple[int, int, int, int]]:
    """`lightscore.text.sclite.batch.batch_counts`' plain twin: `count_networks` per pair."""
    return [
        sclite_reference.count_networks(encode.network(ref, vocabulary), encode.network(hyp, vocabulary))
        for ref, hyp in pairs
    ]


def whole_column_programme(chunk: list, vocabulary, tables: tuple, by_columns: bool) -> list:
    """`lightscore.text.sclite.batch._align_chunk` with the column programme turned off (the float programme)."""
    return FLOAT_CHUNK(chunk, vocabulary, tables, False)


FLOAT_CHUNK = batch._align_chunk


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=20_000)
    parser.add_argument("--long-words", type=int, default=1_500)
    parser.add_argument("--segments", type=int, default=4_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", default="", help="run only the rows whose label holds this text (e.g. ctm)")
    args = parser.parse_args()
    header("fast paths of the sclite and hubscr families against their plain twins")
    print("| fast path | plain twin | fast s | plain s | gain | verdict | results |")
    print("|---|---|---:|---:|---:|---|---|")
    same = []
    refs, hyps = (list(map(str.lower, texts)) for texts in make_pairs(args.pairs))

    def corpus_sums() -> object:
        return align.sum_sclite_edits(refs, hyps, str.split)

    rows = [
        (
            "sclite shortcut: rapidfuzz counts, ties in numpy (`align._unique_counts`)",
            "`reference.count_words`",
            corpus_sums,
            align,
            "_unique_counts",
            sclite_reference.count_words,
        ),
        (
            "ties in numpy batches (`align._exact_counts`, `traceback.batch_backtrace`)",
            "`reference.count_words`",
            corpus_sums,
            align,
            "_exact_counts",
            plain_exact_counts,
        ),
    ]

    def character_sums() -> object:  # sclite -c: ties are common between characters
        return align.sum_sclite_edits(refs, hyps, _characters)

    rows.append(
        (
            "ties in numpy batches, characters (`align._exact_counts`)",
            "`reference.count_words`",
            character_sums,
            align,
            "_exact_counts",
            plain_exact_counts,
        )
    )
    long_ref, long_hyp = _long_pair(refs, hyps, args.long_words)
    rows.append(
        (
            f"one {args.long_words:,}-word pair: `traceback.bounded_backtrace` (numpy rows)",
            "`reference.align_words`",
            lambda: align.sclite_align(long_ref, long_hyp),
            align,
            "sclite_align",
            sclite_reference.align_words,
        )
    )
    with tempfile.TemporaryDirectory() as tmp:
        stm, ctm = conversations(args.segments, Path(tmp))
        small = Path(tmp) / "small"
        small.mkdir()
        small_stm, small_ctm = conversations(max(args.segments // 10, 100), small)

        def score() -> object:
            return pipeline.hubscr(stm, ctm, GLM)

        def score_small() -> object:
            return pipeline.hubscr(small_stm, small_ctm, GLM)

        rows += [
            (
                "markup read by one split (`encode.encode`)",
                "`encode.encode_parsed`",
                score,
                pipeline,
                "encode",
                encode.encode_parsed,
            ),
            (
                "networks aligned in numpy batches (`batch.batch_counts`)",
                "`reference.count_networks`",
                score,
                markup,
                "batch_counts",
                plain_batch_counts,
            ),
            (
                "lines by whole-number columns (`columns.ColumnCosts`)",
                "the float programme (`batch._programme`)",
                score,
                batch,
                "_align_chunk",
                whole_column_programme,
            ),
            (
                f"GLM cursor at the words rules may match (`glm_cursor.rewrite`, {max(args.segments // 10, 100):,} "
                "segments)",
                "`reference.rfilter1`",
                score_small,
                glm,
                "rewrite",
                hubscr_reference.rfilter1,
            ),
        ]
        for label, twin, workload, module, name, plain in rows:
            if args.only not in label:
                continue
            _, equal = compare(label, twin, workload, module, name, plain, args.repeats)
            same.append(equal)
    print(f"\nworkloads: {args.pairs:,} corpus pairs; {args.segments:,} segments of conversation (GLM {GLM})")
    print(f"load average at end: {load_average()}")
    return 0 if all(same) else 1


def _characters(text: str) -> str:
    """A text's characters without its spaces, as sclite -c scores them."""
    return text.replace(" ", "")


def _long_pair(refs: list[str], hyps: list[str], words: int) -> tuple[list[str], list[str]]:
    """One utterance of about ``words`` reference words: the corpus pairs joined, as bench_sclite_memory joins them."""
    ref: list[str] = []
    hyp: list[str] = []
    for r, h in zip(refs, hyps):
        if len(ref) >= words:
            break
        ref += r.split()
        hyp += h.split()
    return ref, hyp


if __name__ == "__main__":
    sys.exit(main())
