"""Keywords, OOVs and oracle WER: lightscore against texterrors 1.1.9 (C++ core), side by side, same numbers.

    python benchmarks/bench_keywords.py [--utterances 20000] [--repeats 5] [--nbest 4]

The corpus is benchmarks/corpus.py's (20,000 utterances of 5-60 words, Zipf words, 8% substitutions, 2% deletions
and insertions). The keyword list is every 10th word of frequency ranks 100-2,000 (190 words: about half the
utterances hold one), the OOV list every 10th word from rank 3,000 (200 rare words). Each side computes WER,
keyword recall and precision, OOV-WER and OOV-CER, in the standard and the character-aware alignment:

- **Python API**: texterrors' ``process_lines`` (what its command runs, here from the texts in memory: building
  its ``Utt``/``StringVector`` inputs is part of its time) against ``KeywordErrorRate.update`` in 1,000-row
  batches, as the Lightning callback feeds it.
- **Command line**: ``texterrors --isark -s --keywords-f K --oov-list-f O ref hyp`` against
  ``lightscore score ref hyp --metric keywords --keywords K --oov O``, on the same files (start-up included).
- **Oracle WER** (Python API): 4-best lists (the reference's hypothesis and three noisier ones), texterrors'
  ``process_lines(oracle_wer=True)`` against ``OracleWER.update``.

- **The fast path** of texterrors' alignment (a common suffix paired at once, the table filled in a band)
  against its plain twin, the whole table (`align_words(whole=True)`), on the first 5,000 utterances.

Every row prints both sides' numbers, which must be equal (the script stops otherwise).
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from common import Row, header, python, table, time_side_by_side, verdict
from corpus import make_pairs, vocabulary
from loguru import logger
from texterrors import process_lines
from texterrors.texterrors import Utt
from texterrors_align import StringVector

from lightscore.metrics.keywords import KeywordErrorRate
from lightscore.metrics.oracle_wer import OracleWER
from lightscore.text.recognition.chardiff import align_words

logger.remove()  # texterrors logs every utterance at DEBUG


def texterrors_stats(refs, hyps, keywords, oov, chardiff, oracle=False):
    """texterrors' ErrorStats, its inputs built from the texts as its file reader builds them."""
    ref_utts = {str(i): Utt(str(i), StringVector(r.split())) for i, r in enumerate(refs)}
    if oracle:
        hyp_utts = {str(i): [Utt(str(i), StringVector(h.split())) for h in nbest] for i, nbest in enumerate(hyps)}
    else:
        hyp_utts = {str(i): Utt(str(i), StringVector(h.split())) for i, h in enumerate(hyps)}
    _, stats = process_lines(
        ref_utts, hyp_utts, False, chardiff, False, True, 120, oracle, keywords, oov, False, {}, {}, True, "<eps>"
    )
    return stats


def texterrors_numbers(stats) -> tuple:
    errors = sum(stats.ins.values()) + sum(stats.dels.values()) + sum(stats.subs.values())
    return (
        round(100 * errors / stats.total_count, 6),
        round(stats.keywords_predicted / stats.keywords_count, 6),
        round(stats.keywords_predicted / stats.keywords_output, 6),
        round(100 * stats.oov_word_error / stats.oov_word_count, 6),
        round(100 * stats.oov_count_error / stats.oov_count_denom, 6),
    )


def lightscore_numbers(result) -> tuple:
    keys = ("keywords_WER", "keyword_recall", "keyword_precision", "OOV_WER", "OOV_CER")
    return tuple(round(result[key], 6) for key in keys)


def lightscore_keywords(refs, hyps, keywords, oov, chardiff):
    metric = KeywordErrorRate(keywords=keywords, oov=oov, chardiff=chardiff)
    for start in range(0, len(refs), 1000):
        metric.update(ref=refs[start : start + 1000], hyp=hyps[start : start + 1000])
    return metric.compute()


def nbest_lists(refs, hyps, nbest, seed):
    """Each utterance's n-best list: its hypothesis, then noisier ones (a word dropped or swapped)."""
    rng = random.Random(seed)
    lists = []
    for ref, hyp in zip(refs, hyps):
        entries = [hyp]
        for _ in range(nbest - 1):
            words = ref.split()
            for _ in range(rng.randint(0, 3)):
                k = rng.randrange(len(words))
                if rng.random() < 0.5:
                    del words[k]
                else:
                    words[k] = rng.choice(hyp.split() or ["x"])
                if not words:
                    break
            entries.append(" ".join(words))
        lists.append(entries)
    return lists


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--utterances", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--nbest", type=int, default=4)
    args = parser.parse_args()
    header("Keywords, OOVs and oracle WER against texterrors 1.1.9")
    refs, hyps = make_pairs(args.utterances)
    words = vocabulary()
    keywords, oov = set(words[100:2000:10]), set(words[3000::10])
    n = len(refs)
    words_count = sum(len(r.split()) for r in refs)
    print(f"{n:,} utterances, {words_count:,} reference words, {len(keywords)} keywords, {len(oov)} OOV words;")
    print(f"median of {args.repeats} side-by-side runs; 1 CPU thread each (texterrors' core is C++)\n")

    verdicts = []
    for chardiff in (False, True):
        mode = "character-aware (--use-chardiff)" if chardiff else "standard"
        theirs = texterrors_numbers(texterrors_stats(refs, hyps, keywords, oov, chardiff))
        ours = lightscore_numbers(lightscore_keywords(refs, hyps, keywords, oov, chardiff))
        print(f"### Python API, {mode} alignment\n")
        print("numbers (WER %, keyword recall, keyword precision, OOV-WER %, OOV-CER %):")
        print(f"- texterrors: {theirs}\n- lightscore: {ours}\n")
        if theirs != ours:
            sys.exit("the numbers differ")
        times = time_side_by_side(
            {
                "texterrors process_lines": lambda cd=chardiff: texterrors_stats(refs, hyps, keywords, oov, cd),
                "lightscore KeywordErrorRate": lambda cd=chardiff: lightscore_keywords(refs, hyps, keywords, oov, cd),
            },
            repeats=args.repeats,
        )
        rows = [Row(name, n, seconds, "utts") for name, seconds in times.items()]
        print(table(rows, baseline="texterrors process_lines") + "\n")
        ratio = rows[0].median / rows[1].median
        verdicts.append(verdict(f"speed-up over texterrors' Python API, {mode}", ratio, 1.0, higher_is_better=True))

    with tempfile.TemporaryDirectory() as folder:
        folder_path = Path(folder)
        ref_file, hyp_file = folder_path / "ref.txt", folder_path / "hyp.txt"
        ref_file.write_text("".join(f"u{i:06d} {r}\n" for i, r in enumerate(refs)))
        hyp_file.write_text("".join(f"u{i:06d} {h}\n" for i, h in enumerate(hyps)))
        kw_file, oov_file = folder_path / "keywords.txt", folder_path / "oov.txt"
        kw_file.write_text("".join(f"{w}\n" for w in sorted(keywords)))
        oov_file.write_text("".join(f"{w}\n" for w in sorted(oov)))
        bin_dir = Path(python()).parent
        texterrors_cmd = [str(bin_dir / "texterrors"), "--isark", "-s", "--keywords-f", str(kw_file)]
        texterrors_cmd += ["--oov-list-f", str(oov_file), str(ref_file), str(hyp_file)]
        lightscore_cmd = [str(bin_dir / "lightscore"), "score", str(ref_file), str(hyp_file), "--metric", "keywords"]
        lightscore_cmd += ["--keywords", str(kw_file), "--oov", str(oov_file)]
        shown = {
            "texterrors": subprocess.run(texterrors_cmd, capture_output=True, text=True, check=True).stdout,
            "lightscore": subprocess.run(lightscore_cmd, capture_output=True, text=True, check=True).stdout,
        }
        print("### Command line, standard alignment\n")
        for name, out in shown.items():
            lines = [line for line in out.splitlines() if line.split(":")[0] in ("WER", "OOV CER", "OOV_CER")]
            print(f"- {name}: " + "; ".join(lines))
        print()
        times = time_side_by_side(
            {
                "texterrors command": lambda: subprocess.run(texterrors_cmd, capture_output=True, check=True),
                "lightscore score": lambda: subprocess.run(lightscore_cmd, capture_output=True, check=True),
            },
            repeats=args.repeats,
        )
        rows = [Row(name, n, seconds, "utts") for name, seconds in times.items()]
        print(table(rows, baseline="texterrors command") + "\n")
        ratio = rows[0].median / rows[1].median
        verdicts.append(verdict("speed-up over texterrors' command, standard", ratio, 1.0, higher_is_better=True))

    lists = nbest_lists(refs, hyps, args.nbest, seed=7)
    for chardiff in (False, True):
        mode = "character-aware" if chardiff else "standard"

        def theirs(chardiff=chardiff):
            stats = texterrors_stats(refs, lists, set(), set(), chardiff, oracle=True)
            return 100 * stats.total_cost / stats.total_count

        def ours(chardiff=chardiff):
            metric = OracleWER(nbest=args.nbest, chardiff=chardiff)
            for start in range(0, n, 1000):
                chunk = lists[start : start + 1000]
                ranks = {f"hyp{k + 1}": [entries[k] for entries in chunk] for k in range(args.nbest)}
                metric.update(ref=refs[start : start + 1000], **ranks)
            return metric.compute()["oracle_WER"]

        print(f"### Oracle WER over {args.nbest}-best lists, {mode} alignment\n")
        print(f"- texterrors: {theirs():.6f}\n- lightscore: {ours():.6f}\n")
        if abs(theirs() - ours()) > 1e-9:
            sys.exit("the oracle WERs differ")
        times = time_side_by_side({"texterrors oracle": theirs, "lightscore OracleWER": ours}, repeats=args.repeats)
        rows = [Row(name, n, seconds, "utts") for name, seconds in times.items()]
        print(table(rows, baseline="texterrors oracle") + "\n")
        ratio = rows[0].median / rows[1].median
        verdicts.append(verdict(f"oracle WER speed-up over texterrors, {mode}", ratio, 1.0, higher_is_better=True))

    twin_n = min(n, 5000)
    word_pairs = [(r.split(), h.split()) for r, h in zip(refs[:twin_n], hyps[:twin_n])]
    for chardiff in (False, True):
        mode = "character-aware" if chardiff else "standard"
        print(
            f"### The alignment's fast path against its plain twin (the whole table), {mode}, {twin_n:,} utterances\n"
        )
        methods = {
            "align_words(whole=True)": lambda cd=chardiff: [align_words(r, h, cd, whole=True) for r, h in word_pairs],
            "align_words": lambda cd=chardiff: [align_words(r, h, cd) for r, h in word_pairs],
        }
        if [a.pairs for a in methods["align_words"]()] != [a.pairs for a in methods["align_words(whole=True)"]()]:
            sys.exit("the fast path and its plain twin differ")
        times = time_side_by_side(methods, repeats=args.repeats)
        rows = [Row(name, twin_n, seconds, "utts") for name, seconds in times.items()]
        print(table(rows, baseline="align_words(whole=True)") + "\n")
        ratio = rows[0].median / rows[1].median
        verdicts.append(verdict(f"band over the whole table, {mode}", ratio, 1.5, higher_is_better=True))

    print("### Targets (at least as fast as texterrors, same numbers; a fast path 1.5x its plain twin)\n")
    print("\n".join(verdicts))


if __name__ == "__main__":
    main()
