"""Alignment reports: a Kaldi-style summary line and sclite-style per-utterance blocks.

Alignments are computed only when a report is written; counting alone never
builds one. A space token (CER) is shown as ``<sp>``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import repeat

from rapidfuzz.distance import Levenshtein

__all__ = ["Pair", "align", "kaldi_summary", "pra_block", "pra_lines", "show_token"]

Pair = tuple[str | None, str | None, str]  # (ref token, hyp token, mark: C, S, D or I)


def align(ref: Sequence, hyp: Sequence) -> list[Pair]:
    """Align two token sequences (lists or strings) with rapidfuzz's unit-cost opcodes.

    >>> align("a b c".split(), "a x c d".split())
    [('a', 'a', 'C'), ('b', 'x', 'S'), ('c', 'c', 'C'), (None, 'd', 'I')]
    """
    pairs: list[Pair] = []
    # zip over slices builds each block's tuples in C: a report lists every token of every utterance.
    for tag, i1, i2, j1, j2 in Levenshtein.opcodes(ref, hyp):
        if tag == "equal":
            pairs.extend(zip(ref[i1:i2], hyp[j1:j2], repeat("C")))
        elif tag == "replace":
            pairs.extend(zip(ref[i1:i2], hyp[j1:j2], repeat("S")))
        elif tag == "delete":
            pairs.extend(zip(ref[i1:i2], repeat(None), repeat("D")))
        else:
            pairs.extend(zip(repeat(None), hyp[j1:j2], repeat("I")))
    return pairs


def kaldi_summary(name: str, result: Mapping[str, float]) -> str:
    """The ``compute-wer`` style summary line of an error-rate result.

    >>> r = {"WER": 12.03, "WER_sub": 1602, "WER_del": 379, "WER_ins": 388, "WER_ref_len": 19695}
    >>> kaldi_summary("WER", r)
    '%WER 12.03 [ 2369 / 19695, 388 ins, 379 del, 1602 sub ]'
    """
    errors = result[f"{name}_sub"] + result[f"{name}_del"] + result[f"{name}_ins"]
    return (
        f"%{name} {result[name]:.2f} [ {errors} / {result[f'{name}_ref_len']}, "
        f"{result[f'{name}_ins']} ins, {result[f'{name}_del']} del, {result[f'{name}_sub']} sub ]"
    )


def show_token(token: str | None) -> str:
    """A token as reports print it: ``***`` for a gap, ``<sp>`` for the space between words (CER).

    >>> show_token(None), show_token(" "), show_token("The")
    ('***', '<sp>', 'The')
    """
    if token is None:
        return "***"
    if token == " ":
        return "<sp>"  # a space between words, as CER counts it
    # Tokens as written, not sclite's upper-cased errors: a case-sensitive rate must show
    # "The" -> "the", and upper() changes some tokens ("ß" -> "SS"). The Eval line marks errors.
    return token


def pra_lines(pairs: Sequence[Pair]) -> tuple[str, str, str]:
    """The ``REF``, ``HYP`` and ``Eval`` rows of an alignment, columns padded to line up; gaps ``***``.

    >>> pra_lines(align("the cat sat".split(), "the bat sat down".split()))
    ('the cat sat ****', 'the bat sat down', '    S       I')
    """
    ref_cells, hyp_cells, eval_cells = [], [], []
    for ref, hyp, mark in pairs:
        if mark == "C" and ref == hyp:  # most cells: one token, shown once, no padding to compute
            cell = show_token(ref).ljust(1)
            ref_cells.append(cell)
            hyp_cells.append(cell)
            eval_cells.append(" " * len(cell))
            continue
        r, h = show_token(ref), show_token(hyp)
        width = max(len(r), len(h), 1)
        ref_cells.append((r if ref is not None else "*" * width).ljust(width))
        hyp_cells.append((h if hyp is not None else "*" * width).ljust(width))
        eval_cells.append(("" if mark == "C" else mark).ljust(width))
    return " ".join(ref_cells).rstrip(), " ".join(hyp_cells).rstrip(), " ".join(eval_cells).rstrip()


def pra_block(utt_id: str, pairs: Sequence[Pair]) -> str:
    """One utterance in the style of sclite's ``.pra`` report; gaps ``***``.

    >>> print(pra_block("utt1", align("the cat sat".split(), "the bat sat down".split())))
    id: utt1
    Scores: (#C #S #D #I) 2 1 0 1
    REF:  the cat sat ****
    HYP:  the bat sat down
    Eval:     S       I
    <BLANKLINE>
    """
    ref_line, hyp_line, eval_line = pra_lines(pairs)
    marks = [mark for _, _, mark in pairs]
    scores = " ".join(str(marks.count(mark)) for mark in "CSDI")
    return f"id: {utt_id}\nScores: (#C #S #D #I) {scores}\nREF:  {ref_line}\nHYP:  {hyp_line}\nEval: {eval_line}\n"


def alignment_text(pairs: Sequence[tuple[str | None, str | None, str]]) -> str:
    """One alignment on one line: ``word``, ``ref→hyp``, ``-ref`` or ``+hyp``.

    >>> alignment_text([("the", "the", "C"), ("cat", "bat", "S"), ("sat", None, "D"), (None, "down", "I")])
    'the cat→bat -sat +down'
    """
    shown = {"C": "{r}", "S": "{r}→{h}", "D": "-{r}", "I": "+{h}"}
    return " ".join(shown[mark].format(r=ref, h=hyp) for ref, hyp, mark in pairs)
