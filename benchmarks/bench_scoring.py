"""Targets 1-3: WER and CER ``update`` + ``compute`` against jiwer, torchmetrics and the rapidfuzz floor.

    python benchmarks/bench_scoring.py [--pairs 20000] [--repeats 7]

Every method scores the same generated pairs (benchmarks/corpus.py), timed side
by side in one run. The floor is rapidfuzz ``Levenshtein.opcodes`` over token
lists split before the clock starts, in a plain loop; the row "floor + split"
adds the ``str.split`` of both texts that any scorer of raw text must pay.
torchmetrics' pure-Python edit distance is slow on characters, so its CER runs
on the first pairs only and is compared per pair, with lightscore on the same
subset beside it. The totals are checked against jiwer (target 3); a mismatch
exits with status 1.
"""

from __future__ import annotations

import argparse
import sys

import jiwer
from common import Row, header, table, time_side_by_side, verdict
from corpus import PAIRS, make_pairs
from rapidfuzz.distance import Levenshtein
from torchmetrics.text import CharErrorRate, WordErrorRate

from lightscore.metrics import CER, WER

CHUNK = 1000  # rows per update, as measure() feeds them


def lightscore_counts(cls: type, refs: list[str], hyps: list[str]) -> dict[str, float]:
    metric = cls()
    for start in range(0, len(refs), CHUNK):
        metric.update(ref=refs[start : start + CHUNK], hyp=hyps[start : start + CHUNK])
    return metric.compute()


def torchmetrics_rate(cls: type, refs: list[str], hyps: list[str]) -> float:
    metric = cls()
    metric.update(hyps, refs)  # torchmetrics takes (preds, target)
    return float(metric.compute())


def opcodes_floor(ref_tokens: list[list[str]], hyp_tokens: list[list[str]]) -> None:
    opcodes = Levenshtein.opcodes
    for ref, hyp in zip(ref_tokens, hyp_tokens):
        opcodes(ref, hyp)


def opcodes_with_split(refs: list[str], hyps: list[str]) -> None:
    opcodes = Levenshtein.opcodes
    for ref, hyp in zip(refs, hyps):
        opcodes(ref.split(), hyp.split())


def check_totals(name: str, ours: dict[str, float], theirs: jiwer.WordOutput | jiwer.CharacterOutput) -> bool:
    """Print lightscore's and jiwer's S/D/I/H side by side; True when they are equal."""
    mine = tuple(ours[f"{name}_{count}"] for count in ("sub", "del", "ins", "hit"))
    jw = (theirs.substitutions, theirs.deletions, theirs.insertions, theirs.hits)
    same = mine == jw
    print(f"- {name} totals S/D/I/H: lightscore {mine}, jiwer {jw}: {'EQUAL' if same else 'DIFFERENT'}")
    return same


def wer_section(refs: list[str], hyps: list[str], repeats: int) -> tuple[list[str], bool]:
    ref_tokens, hyp_tokens = [r.split() for r in refs], [h.split() for h in hyps]
    n = len(refs)
    times = time_side_by_side(
        {
            "lightscore WER": lambda: lightscore_counts(WER, refs, hyps),
            "jiwer.process_words": lambda: jiwer.process_words(refs, hyps),
            "torchmetrics WordErrorRate": lambda: torchmetrics_rate(WordErrorRate, refs, hyps),
            "floor: rapidfuzz opcodes, pre-split": lambda: opcodes_floor(ref_tokens, hyp_tokens),
            "floor + split: opcodes(r.split(), h.split())": lambda: opcodes_with_split(refs, hyps),
        },
        repeats,
    )
    rows = [Row(name, n, seconds) for name, seconds in times.items()]
    print("### WER (targets 1 and 3)\n")
    print(table(rows, baseline="lightscore WER", ratio_label="time / lightscore") + "\n")
    per = {row.method: row.per_item for row in rows}
    ours = per["lightscore WER"]
    lines = [
        verdict("lightscore WER speed-up over jiwer.process_words", per["jiwer.process_words"] / ours, 5, True),
        verdict(
            "lightscore WER speed-up over torchmetrics WordErrorRate",
            per["torchmetrics WordErrorRate"] / ours,
            20,
            True,
        ),
        verdict("lightscore WER time / floor", ours / per["floor: rapidfuzz opcodes, pre-split"], 2.5, False),
        f"- (for reference) lightscore WER time / (floor + split): "
        f"{ours / per['floor + split: opcodes(r.split(), h.split())']:.2f}x",
    ]
    ours_result = lightscore_counts(WER, refs, hyps)
    same = check_totals("WER", ours_result, jiwer.process_words(refs, hyps))
    tm = torchmetrics_rate(WordErrorRate, refs, hyps) * 100
    print(f"- WER: lightscore {ours_result['WER']:.4f}%, torchmetrics {tm:.4f}%")
    return lines, same


def cer_section(refs: list[str], hyps: list[str], repeats: int, torchmetrics_pairs: int) -> tuple[list[str], bool]:
    n, small = len(refs), min(torchmetrics_pairs, len(refs))
    sub_refs, sub_hyps = refs[:small], hyps[:small]
    times = time_side_by_side(
        {
            "lightscore CER": lambda: lightscore_counts(CER, refs, hyps),
            "jiwer.cer": lambda: jiwer.cer(refs, hyps),
            f"lightscore CER, first {small:,}": lambda: lightscore_counts(CER, sub_refs, sub_hyps),
            f"torchmetrics CharErrorRate, first {small:,}": lambda: torchmetrics_rate(
                CharErrorRate, sub_refs, sub_hyps
            ),
        },
        repeats=max(3, repeats // 2),
        warmup=False,  # torchmetrics CER takes seconds; its first run is as warm as the rest
    )
    sizes = {name: (small if "first" in name else n) for name in times}
    rows = [Row(name, sizes[name], seconds) for name, seconds in times.items()]
    print("\n### CER (targets 2 and 3)\n")
    print(table(rows, baseline="lightscore CER", ratio_label="time per pair / lightscore") + "\n")
    per = {row.method: row.per_item for row in rows}
    lines = [
        verdict("lightscore CER speed-up over jiwer.cer", per["jiwer.cer"] / per["lightscore CER"], 10, True),
        verdict(
            f"lightscore CER speed-up over torchmetrics CharErrorRate (same {small:,} pairs)",
            per[f"torchmetrics CharErrorRate, first {small:,}"] / per[f"lightscore CER, first {small:,}"],
            100,
            True,
        ),
    ]
    ours_result = lightscore_counts(CER, refs, hyps)
    same = check_totals("CER", ours_result, jiwer.process_characters(refs, hyps))
    print(f"- CER: lightscore {ours_result['CER']:.4f}%, jiwer.cer {jiwer.cer(refs, hyps) * 100:.4f}%")
    return lines, same


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=PAIRS, help="pairs to score (default: %(default)s)")
    parser.add_argument("--repeats", type=int, default=7, help="timed runs per method (default: %(default)s)")
    parser.add_argument(
        "--torchmetrics-cer-pairs", type=int, default=2000, help="pairs for torchmetrics CharErrorRate (%(default)s)"
    )
    args = parser.parse_args(argv)
    header("Scoring core: WER and CER update + compute (targets 1, 2, 3)")
    refs, hyps = make_pairs(args.pairs)
    words = sum(len(r.split()) for r in refs)
    print(
        f"corpus: {len(refs):,} pairs, {words:,} reference words ({words / len(refs):.1f} per pair), "
        f"update in chunks of {CHUNK}\n"
    )
    wer_lines, wer_same = wer_section(refs, hyps, args.repeats)
    cer_lines, cer_same = cer_section(refs, hyps, args.repeats, args.torchmetrics_cer_pairs)
    print("\n### Targets\n")
    print("\n".join(wer_lines + cer_lines))
    print(f"- totals equal jiwer's, WER and CER (target 3): {'MET' if wer_same and cer_same else 'NOT MET'}")
    return 0 if wer_same and cer_same else 1


if __name__ == "__main__":
    sys.exit(main())
