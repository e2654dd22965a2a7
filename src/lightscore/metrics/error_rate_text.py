"""How an error rate turns a raw text into tokens and an alignment: `TextPipeline`.

normalizer, then case folding, then the tokenizer (a subclass's ``tokenize``), then
the aligner; `lightscore.metrics.error_rate_base.ErrorRate` counts what comes out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from lightscore.text.alignment import Pair, alignment_text

if TYPE_CHECKING:
    from lightscore.text.normalize import TextNormalizer

__all__ = ["TextPipeline"]


class TextPipeline:
    """The text side of an error rate; `ErrorRate` sets ``normalizer``, ``case`` and the aligner.

    >>> from lightscore.metrics import WER
    >>> WER(case="fold").tokens("The  Cat")
    ['the', 'cat']
    """

    normalizer: TextNormalizer
    case: str
    _aligner: Any

    def tokenize(self, text: str) -> Sequence:
        """Split one (normalized, case-folded) text into the tokens the rate counts; a subclass defines it.

        >>> from lightscore.metrics import CER, WER
        >>> WER().tokenize("the cat"), CER().tokenize("the cat")
        (['the', 'cat'], 'the cat')
        """
        raise NotImplementedError

    def _normalizes(self) -> bool:
        norm = self.normalizer
        return norm.name != "none" or bool(norm.substitutions or norm.fillers)

    def _prepared(self, texts: Sequence[str]) -> Sequence[str]:
        """``texts`` normalized, then case-folded: what the tokenizer sees."""
        if self._normalizes():
            texts = [self.normalizer(text) for text in texts]
        if self.case == "fold":
            texts = [text.lower() for text in texts]
        elif self.case != "sensitive":  # sclite's folding: A-Z, plus a localization's table
            from lightscore.text.sclite.case import sclite_folder

            table = sclite_folder(self.case)
            texts = [text.translate(table) for text in texts]
        return texts

    def tokens(self, text: str) -> Sequence:
        """The tokens this rate counts in one raw text: normalized, case-folded, then tokenized.

        >>> from lightscore.metrics import CER, WER
        >>> WER(case="fold").tokens("The  Cat"), CER().tokens(" a  b")
        (['the', 'cat'], 'a b')
        """
        return self.tokenize(self._prepared([text])[0])

    def align_tokens(self, ref: Sequence, hyp: Sequence) -> list[Pair]:
        """The alignment of two token sequences (from `tokens`) with this metric's aligner.

        >>> from lightscore.metrics import CER, WER
        >>> WER(aligner="sclite").align_tokens("x x x y".split(), "x y y".split())[0]
        ('x', None, 'D')
        >>> WER(aligner="sclite", markup=True).align_tokens("{ a / b } c".split(), ["b", "c"])[0]
        ('b', 'b', 'C')
        """
        if getattr(self, "markup", False):  # WER(markup=True): the reference's words hold sclite's markup
            from lightscore.text.sclite.markup import markup_align, parse_reference

            flags = self.optional_deletable, self.fragments  # type: ignore[attr-defined]
            return markup_align(parse_reference(" ".join(ref), *flags), parse_reference(" ".join(hyp), *flags))
        return self._aligner.align(ref, hyp)

    def align(self, ref_text: str, hyp_text: str) -> list[Pair]:
        """The alignment of one raw pair under this metric's normalizer, case, tokenizer and aligner.

        Args:
            ref_text: The reference, as given to ``update``.
            hyp_text: The hypothesis.

        Returns:
            ``(ref token | None, hyp token | None, mark)`` per position, mark C, S, D or I; CER's
            tokens are characters, a space between words included (reports show it as ``<sp>``).

        >>> from lightscore.metrics import CER, WER
        >>> WER(case="fold").align("The cat sat", "the bat")
        [('the', 'the', 'C'), ('cat', 'bat', 'S'), ('sat', None, 'D')]
        >>> CER(aligner="sclite").align("a b", "ab")
        [('a', 'a', 'C'), (' ', None, 'D'), ('b', 'b', 'C')]
        """
        return self.align_tokens(self.tokens(ref_text), self.tokens(hyp_text))

    def row_sample(self, row: Mapping[str, str]) -> tuple[int, str, str, str]:
        """``(errors, ref, hyp, alignment)`` of one row, for ``MetricCallback(log_samples=N)``.

        >>> from lightscore.metrics import WER
        >>> WER().row_sample({"ref": "a b", "hyp": "a"})
        (1, 'a b', 'a', 'a -b')
        """
        pairs = self.align(row["ref"], row["hyp"])
        return sum(mark != "C" for *_, mark in pairs), row["ref"], row["hyp"], alignment_text(pairs)
