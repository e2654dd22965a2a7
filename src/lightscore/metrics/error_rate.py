"""WER, CER and TER: one counting core, three tokenizers.

Every error rate keeps the same "sum" counts (substitutions, deletions,
insertions, hits, reference tokens, utterances, utterances with an error), so
merging ranks or shards is exact and the state never grows with the data. The
edit distance runs in C (rapidfuzz, as in jiwer 4), with unit costs; the counts
equal jiwer's ``process_words`` / ``process_characters`` on the same pairs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from operator import attrgetter
from pathlib import Path
from typing import Any, ClassVar

from rapidfuzz.distance import Editops, Levenshtein

from ..contract import Field
from ..metric import BaseMetric
from ..scp import atomic_open
from .alignment import align, kaldi_summary, pra_block

COUNTS = ("sub", "del", "ins", "hit", "ref_len")
CASES = ("sensitive", "fold")
STATES = ("substitutions", "deletions", "insertions", "hits", "ref_len", "utterances", "error_utterances")


def error_rate_outputs(name: str) -> tuple[Field, ...]:
    """The declared outputs of an error rate called ``name``: the rate, then its counts.

    >>> [f.name for f in error_rate_outputs("WER")]
    ['WER', 'WER_sub', 'WER_del', 'WER_ins', 'WER_hit', 'WER_ref_len']
    """
    return (Field(name, "number", label=f"{name} (%)"),) + tuple(Field(f"{name}_{count}", "number") for count in COUNTS)


def count_edits(ref: Sequence, hyp: Sequence) -> tuple[int, int, int]:
    """Return ``(substitutions, deletions, insertions)`` of a unit-cost alignment of ``ref`` to ``hyp``.

    Strings compare characters, lists of strings compare tokens; the alignment
    is rapidfuzz's, the one jiwer 4 reports.

    >>> count_edits("the cat".split(), "the bat sat".split())
    (1, 0, 1)
    >>> count_edits("abc", "")
    (0, 3, 0)
    """
    if ref == hyp:
        return 0, 0, 0
    return _edit_counts(Levenshtein.editops(ref, hyp))


_block_size = attrgetter("size")


def _edit_counts(editops: Editops) -> tuple[int, int, int]:
    """``(substitutions, deletions, insertions)`` in rapidfuzz ``editops``, read without a Python loop over them.

    With n reference and m hypothesis tokens, H hits and d edits: S + D = n - H,
    D - I = n - m and S + D + I = d. When d is the length difference alone
    there are no substitutions; otherwise H is summed from the matching blocks,
    a handful of C objects instead of one per edit.

    >>> from rapidfuzz.distance import Editops, Levenshtein
    >>> _edit_counts(Levenshtein.editops("kitten", "sitting"))
    (2, 0, 1)
    """
    distance, length_difference = len(editops), editops.src_len - editops.dest_len
    if distance == abs(length_difference):
        non_hits = distance if length_difference > 0 else 0
    else:
        non_hits = editops.src_len - sum(map(_block_size, editops.as_matching_blocks()))
    insertions = distance - non_hits
    deletions = length_difference + insertions
    return non_hits - deletions, deletions, insertions


def sum_edits(
    refs: Iterable[str], hyps: Iterable[str], tokenize: Callable[[str], Sequence]
) -> tuple[int, int, int, int, int]:
    """Sum ``(substitutions, deletions, insertions, reference tokens, pairs with an error)`` over text pairs.

    The hot loop of every error rate: per pair, ``tokenize`` and one rapidfuzz
    call in C; identical texts skip both the hypothesis and the alignment.

    >>> sum_edits(["the cat sat", "a dog"], ["the bat sat down", "a dog"], str.split)
    (1, 0, 1, 5, 1)
    """
    editops = Levenshtein.editops
    substitutions = deletions = insertions = ref_len = errors = 0
    for ref, hyp in zip(refs, hyps):
        ref_tokens = tokenize(ref)
        ref_len += len(ref_tokens)
        if ref == hyp:
            continue
        hyp_tokens = tokenize(hyp)
        ops = editops(ref_tokens, hyp_tokens)
        if ops:
            s, d, i = _edit_counts(ops)
            substitutions += s
            deletions += d
            insertions += i
            errors += 1
    return substitutions, deletions, insertions, ref_len, errors


# Every character str.split() splits on except the space itself (none lies above U+3000).
_OTHER_WHITESPACE = tuple(c for c in map(chr, range(0x3001)) if c.isspace() and c != " ")


def is_normalized(texts: Iterable[str]) -> bool:
    """True when every text equals ``" ".join(text.split())``: words separated by single spaces.

    One scan of the joined batch per pattern, cheaper than re-joining every
    text: joined by a space, a text's leading or trailing space shows as a
    double space (empty texts are left out, they are normalized already).

    >>> is_normalized(["the cat", "", "a"]), is_normalized(["the  cat"]), is_normalized(["a\\tb", "c"])
    (True, False, False)
    >>> is_normalized(["a ", "b"]), is_normalized(["a", " b"]), is_normalized([" "])
    (False, False, False)
    """
    joined = " ".join(filter(None, texts))
    if joined.startswith(" ") or joined.endswith(" ") or "  " in joined:
        return False
    return not any(space in joined for space in _OTHER_WHITESPACE)


def _same_text(text: str) -> str:
    return text


class ErrorRate(BaseMetric):
    """The shared core of `WER`, `CER` and `TER`; a subclass sets ``name`` and ``tokenize``.

    ``case="fold"`` lower-cases both sides before tokenizing. An empty
    hypothesis counts its reference tokens as deletions, an empty reference its
    hypothesis tokens as insertions.
    """

    name: ClassVar[str] = "ER"
    inputs = (Field("ref", "text"), Field("hyp", "text"))
    outputs = error_rate_outputs("ER")

    def __init__(self, case: str = "sensitive", alignment: bool = True) -> None:
        if case not in CASES:
            raise ValueError(f"{type(self).__name__}: case {case!r} is not one of {', '.join(CASES)}")
        self.case = case
        self.alignment = alignment
        for state in STATES:
            self.add_state(state, 0, "sum")
        super().__init__()

    def tokenize(self, text: str) -> Sequence:
        """Split one text into the tokens the rate counts."""
        raise NotImplementedError

    def _tokens(self, text: str) -> Sequence:
        return self.tokenize(text.lower() if self.case == "fold" else text)

    def update(self, *, ref: Sequence[str], hyp: Sequence[str]) -> None:
        """Add the edit counts of each (ref, hyp) pair.

        >>> m = WER(); m.update(ref=["the cat sat"], hyp=["the bat sat down"])
        >>> m.substitutions, m.deletions, m.insertions, m.hits, m.ref_len, m.error_utterances
        (1, 0, 1, 2, 3, 1)
        """
        if self.case == "fold":
            ref, hyp = [text.lower() for text in ref], [text.lower() for text in hyp]
        s, d, i, ref_len, errors = self._sum_edits(ref, hyp)
        self.substitutions += s
        self.deletions += d
        self.insertions += i
        self.hits += ref_len - s - d
        self.ref_len += ref_len
        self.utterances += len(ref)
        self.error_utterances += errors

    def _sum_edits(self, ref: Sequence[str], hyp: Sequence[str]) -> tuple[int, int, int, int, int]:
        # A subclass with a cheaper way to the same tokens overrides this (WER, CER).
        return sum_edits(ref, hyp, self.tokenize)

    def compute(self) -> dict[str, float]:
        """The rate in percent, (S + D + I) / (H + S + D) * 100, and the counts.

        >>> m = WER(); m.update(ref=["the cat sat"], hyp=["the bat sat down"]); m.compute()["WER"]
        66.66666666666666
        """
        if self.ref_len == 0:
            raise ValueError(f"{self.name}: the references hold no tokens, so there is nothing to score")
        n = self.name
        return {
            n: (self.substitutions + self.deletions + self.insertions) / self.ref_len * 100,
            f"{n}_sub": self.substitutions,
            f"{n}_del": self.deletions,
            f"{n}_ins": self.insertions,
            f"{n}_hit": self.hits,
            f"{n}_ref_len": self.ref_len,
        }

    def write_artifacts(self, test_dir: Path) -> None:
        """Write ``<name>_alignment``: a Kaldi summary line, then an sclite-style block per erroneous utterance.

        ``alignment=False`` skips the file: on a large corpus it costs more than the scoring itself.
        """
        if not self.alignment:
            return
        result = self.compute()
        path = Path(test_dir) / f"{self.name.lower()}_alignment"
        with atomic_open(path) as f:
            f.write(kaldi_summary(self.name, result) + "\n")
            for utt_id, row in self.iter_inputs(self.artifact_inputs, "ref", "hyp"):
                ref_tokens, hyp_tokens = self._tokens(row["ref"]), self._tokens(row["hyp"])
                if ref_tokens != hyp_tokens:  # only erroneous utterances get a block
                    f.write("\n" + pra_block(utt_id, align(ref_tokens, hyp_tokens)))


class WER(ErrorRate):
    """Word error rate over whitespace-split words.

    >>> WER()  # doctest: +ELLIPSIS
    <lightscore.metrics.error_rate.WER object at ...>
    >>> m = WER(case="fold"); m.update(ref=["The cat"], hyp=["the cat"]); m.compute()["WER"]
    0.0
    """

    name = "WER"
    outputs = error_rate_outputs("WER")

    def tokenize(self, text: str) -> list[str]:
        return text.split()

    def _sum_edits(self, ref: Sequence[str], hyp: Sequence[str]) -> tuple[int, int, int, int, int]:
        # str.split called directly saves a method call per text; a subclass's own tokenize still wins.
        return sum_edits(ref, hyp, str.split if type(self).tokenize is WER.tokenize else self.tokenize)


class CER(ErrorRate):
    """Character error rate over characters, including one space between words.

    Runs of whitespace count as one space and the ends are stripped, so
    ``"a  b"`` and ``"a b"`` are the same text.

    >>> m = CER(); m.update(ref=["ab c"], hyp=["ab"]); m.compute()["CER_del"]
    2
    """

    name = "CER"
    outputs = error_rate_outputs("CER")

    def tokenize(self, text: str) -> str:
        return " ".join(text.split())

    def _sum_edits(self, ref: Sequence[str], hyp: Sequence[str]) -> tuple[int, int, int, int, int]:
        # Most text is already tokenized (single spaces, no other whitespace): checking a whole
        # batch at once is cheaper than re-joining every line, and such a text is its own tokens.
        if type(self).tokenize is CER.tokenize and is_normalized(ref) and is_normalized(hyp):
            return sum_edits(ref, hyp, _same_text)
        return super()._sum_edits(ref, hyp)


class TER(ErrorRate):
    """Token error rate over SentencePiece pieces of the model at ``bpemodel``.

    SentencePiece is imported and the model loaded on first use, so a TER
    built but never fed costs nothing.
    """

    name = "TER"
    outputs = error_rate_outputs("TER")

    def __init__(self, bpemodel: str | Path, case: str = "sensitive", alignment: bool = True) -> None:
        if not Path(bpemodel).is_file():
            raise ValueError(f"TER: bpemodel {str(bpemodel)!r} is not a file")
        self.bpemodel = str(bpemodel)
        self._processor: Any = None
        super().__init__(case=case, alignment=alignment)

    def tokenize(self, text: str) -> list[str]:
        if self._processor is None:
            import sentencepiece

            self._processor = sentencepiece.SentencePieceProcessor(model_file=self.bpemodel)
        return self._processor.encode(text, out_type=str)

    def __getstate__(self) -> dict:
        # The processor is rebuilt from the file, so a TER can be pickled (ddp_spawn, multiprocessing).
        return {**self.__dict__, "_processor": None}
