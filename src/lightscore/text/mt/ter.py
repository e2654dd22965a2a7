"""Translation edit rate (sacrebleu's TER, Tercom's algorithm) per segment, and the corpus score.

The shifting edit distance is sacrebleu's algorithm (``sacrebleu.metrics.lib_ter``)
with every tie-break, run over the whole batch at once with numpy
(`lightscore.text.mt.ter_beam`, tested equal to sacrebleu's own function). A
segment's statistics are integers: the fewest edits over its references, the
sum of its references' lengths and their number, so merging is exact;
sacrebleu's average reference length is their quotient.
References are tokenized twice, as sacrebleu 2.6 does.

>>> ter_segment_stats(["a b c"], [["a c b"]], tokenizer=tercom_tokenizer(False, False, False, False)).tolist()
[[1, 3, 1]]
>>> ter_score(1, 3)
33.33333333333333
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction

import numpy as np

from lightscore.text.mt import reference
from lightscore.text.mt.ter_beam import edit_counts
from lightscore.text.mt.tokenizers import tercom_tokenizer

__all__ = ["ter_ref_length", "ter_score", "ter_segment_stats", "ter_signature", "tercom_tokenizer", "tercom_words"]


def ter_segment_stats(
    hyps: Sequence[str],
    refs: Sequence[Sequence[str]],
    present: np.ndarray | None = None,
    tokenizer: Callable[[str], str] | None = None,
) -> np.ndarray:
    """Edits, total reference words and reference count of each segment, as sacrebleu's TER counts them.

    Plain twin: `lightscore.text.mt.reference.ter_edits` per hypothesis and reference.

    Args:
        hyps: The hypotheses (raw: ``tokenizer`` prepares them as sacrebleu does, after ``rstrip``).
        refs: One sequence per reference stream.
        present: bool ``(len(refs), segments)``: False where a segment lacks that reference. None: all present.
        tokenizer: sacrebleu's ``TercomTokenizer`` (`tercom_tokenizer`).

    Returns:
        int64 ``(segments, 3)``: fewest edits, sum of reference lengths, references.

    >>> tok = tercom_tokenizer(False, False, False, True)
    >>> ter_segment_stats(["A b"], [["a b"], ["A b"]], tokenizer=tok).tolist()
    [[0, 4, 2]]
    """
    tokenizer = tokenizer or tercom_tokenizer(False, False, False, False)
    present = np.ones((len(refs), len(hyps)), bool) if present is None else np.asarray(present, bool)
    words_hyp = tercom_words(hyps, tokenizer)
    pairs = []
    owners = []
    for stream, here in zip(refs, present):
        kept = np.flatnonzero(here).tolist()
        # sacrebleu 2.6 tokenizes a reference twice (when it caches the references, then when it
        # extracts their words): with normalized=True "it's." has 3 words, not 2.
        words_ref = tercom_words([stream[s] for s in kept], tokenizer, times=2)
        pairs.extend(zip([words_hyp[s] for s in kept], words_ref))
        owners.extend(kept)
    stats = np.zeros((len(hyps), 3), np.int64)
    stats[:, 0] = int(1e16)
    if pairs:
        owner = np.array(owners, np.int64)
        np.minimum.at(stats[:, 0], owner, np.array(edit_counts(pairs), np.int64))
        np.add.at(stats[:, 1], owner, np.array([len(ref) for _, ref in pairs], np.int64))
        np.add.at(stats[:, 2], owner, 1)
    return stats


def tercom_words(lines: Sequence[str], tokenizer: Callable[[str], str], times: int = 1) -> list[list[str]]:
    """Each line's words as sacrebleu's TER reads them: `lightscore.text.mt.reference.tercom_words` per line.

    (A batch road that lower-cased all lines at once paid 1.1x: benchmarks/results/fast_paths_mt.md.)

    >>> tercom_words(["A  b ", "", "C"], tercom_tokenizer(False, False, False, False), times=2)
    [['a', 'b'], [], ['c']]
    """
    return [reference.tercom_words(line, tokenizer, times) for line in lines]


def ter_ref_length(ref_words_by_count: dict[int, int]) -> float:
    """sacrebleu's summed average reference length, from the reference words of the segments with k references.

    Exact as a fraction, then rounded once: with 1, 2 or 4 references this is sacrebleu's float
    exactly; with 3 sacrebleu's running float sum may differ in the last bits.

    >>> ter_ref_length({1: 10, 2: 7})
    13.5
    """
    return float(sum(Fraction(words, k) for k, words in ref_words_by_count.items() if k))


def ter_score(edits: float, ref_length: float) -> float:
    """TER in percent from summed edits and average reference lengths (sacrebleu's rules for empty references).

    >>> ter_score(2, 0), ter_score(0, 0)
    (100.0, 0.0)
    """
    if ref_length > 0:
        score = edits / ref_length
    elif edits > 0:
        score = 1.0
    else:
        score = 0.0
    return 100 * score


def ter_signature(nrefs: int | str, case_sensitive: bool, normalized: bool, no_punct: bool, asian_support: bool) -> str:
    """sacrebleu's TER signature string (built by sacrebleu's own ``TERSignature``).

    >>> ter_signature(1, False, False, False, False)
    'nrefs:1|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:2.6.0'
    """
    from sacrebleu.metrics.ter import TERSignature

    args = {"num_refs": -1 if nrefs == "var" else nrefs, "case_sensitive": case_sensitive, "normalized": normalized}
    args |= {"no_punct": no_punct, "asian_support": asian_support, "tokenizer_signature": "tercom"}
    return TERSignature(args).format()
