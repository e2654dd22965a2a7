"""WER, CER and TER: one counting core, three tokenizers.

Every error rate keeps the same "sum" counts (substitutions, deletions,
insertions, hits, reference tokens, utterances, utterances with an error), so
merging ranks or shards is exact and the state never grows with the data. The
edit distance runs in C (rapidfuzz, as in jiwer 4), with unit costs; the counts
equal jiwer's ``process_words`` / ``process_characters`` on the same pairs.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from rapidfuzz.distance import Levenshtein

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
    if not hyp:
        return 0, len(ref), 0
    if not ref:
        return 0, 0, len(hyp)
    deletions = insertions = substitutions = 0
    for tag, _, _ in Levenshtein.editops(ref, hyp):
        if tag == "replace":
            substitutions += 1
        elif tag == "delete":
            deletions += 1
        else:
            insertions += 1
    return substitutions, deletions, insertions


class ErrorRate(BaseMetric):
    """The shared core of `WER`, `CER` and `TER`; a subclass sets ``name`` and ``tokenize``.

    ``case="fold"`` lower-cases both sides before tokenizing. An empty
    hypothesis counts its reference tokens as deletions, an empty reference its
    hypothesis tokens as insertions.
    """

    name: ClassVar[str] = "ER"
    inputs = (Field("ref", "text"), Field("hyp", "text"))
    outputs = error_rate_outputs("ER")

    def __init__(self, case: str = "sensitive") -> None:
        if case not in CASES:
            raise ValueError(f"{type(self).__name__}: case {case!r} is not one of {', '.join(CASES)}")
        self.case = case
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
        for r, h in zip(ref, hyp):
            ref_tokens, hyp_tokens = self._tokens(r), self._tokens(h)
            s, d, i = count_edits(ref_tokens, hyp_tokens)
            self.substitutions += s
            self.deletions += d
            self.insertions += i
            self.hits += len(ref_tokens) - s - d
            self.ref_len += len(ref_tokens)
            self.utterances += 1
            self.error_utterances += s + d + i > 0

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
        """Write ``<name>_alignment``: a Kaldi summary line, then an sclite-style block per erroneous utterance."""
        result = self.compute()
        path = Path(test_dir) / f"{self.name.lower()}_alignment"
        with atomic_open(path) as f:
            f.write(kaldi_summary(self.name, result) + "\n")
            for utt_id, row in self.iter_inputs(self.artifact_inputs, "ref", "hyp"):
                pairs = align(self._tokens(row["ref"]), self._tokens(row["hyp"]))
                if any(mark != "C" for _, _, mark in pairs):
                    f.write("\n" + pra_block(utt_id, pairs))


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


class TER(ErrorRate):
    """Token error rate over SentencePiece pieces of the model at ``bpemodel``.

    SentencePiece is imported and the model loaded on first use, so a TER
    built but never fed costs nothing.
    """

    name = "TER"
    outputs = error_rate_outputs("TER")

    def __init__(self, bpemodel: str | Path, case: str = "sensitive") -> None:
        if not Path(bpemodel).is_file():
            raise ValueError(f"TER: bpemodel {str(bpemodel)!r} is not a file")
        self.bpemodel = str(bpemodel)
        self._processor: Any = None
        super().__init__(case=case)

    def tokenize(self, text: str) -> list[str]:
        if self._processor is None:
            import sentencepiece

            self._processor = sentencepiece.SentencePieceProcessor(model_file=self.bpemodel)
        return self._processor.encode(text, out_type=str)

    def __getstate__(self) -> dict:
        # The processor is rebuilt from the file, so a TER can be pickled (ddp_spawn, multiprocessing).
        return {**self.__dict__, "_processor": None}
