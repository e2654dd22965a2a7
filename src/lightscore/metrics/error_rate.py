"""WER, CER and TER: the error rates, one tokenizer each, over the shared core `ErrorRate`.

The class paths here (``lightscore.metrics.error_rate.WER``...) name the results
in ``metrics.json``; `lightscore.metrics.error_rate_base.ErrorRate` holds the
options, the state and the counting they share.

>>> m = WER(); m.update(ref=["the cat sat"], hyp=["the cat sat down"]); m.compute()["WER"]
33.33333333333333
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Sequence
from operator import add
from pathlib import Path
from typing import Any

from lightscore._extras import require
from lightscore.metrics.error_rate_base import ErrorRate
from lightscore.metrics.error_rate_options import check_type, error_rate_outputs
from lightscore.text.alignment import Pair
from lightscore.text.counting import is_normalized, same_text

__all__ = ["CER", "TER", "WER", "MixedER", "SCLiteCER"]


class WER(ErrorRate):
    """Word error rate over whitespace-split words.

    Args:
        markup: Read each reference as sclite reads a trn reference (``aligner="sclite"`` only):
            alternations ``{ a / b c / @ }``, the null word ``@``, aligned as sclite's network
            (`lightscore.text.sclite.markup`). False (default): every word is literal.
        optional_deletable: sclite's ``-D``: ``(word)`` may be left out at no cost (needs ``markup``).
        fragments: sclite's ``-F``: ``wor-`` / ``-ord`` is correct against a word it begins / ends.
        **options: as `ErrorRate` (case, alignment, aligner, normalize, substitutions, fillers,
            per_utterance, ci, bootstrap, seed, block_bootstrap, utt2spk, reports, report_html).

    Raises:
        TypeError, ValueError: as `ErrorRate`.

    >>> m = WER(case="fold"); m.update(ref=["The cat"], hyp=["the cat"]); m.compute()["WER"]
    0.0
    >>> m = WER(normalize="whisper_english"); m.update(ref=["Mr. Smith"], hyp=["mister smith"]); m.compute()["WER"]
    0.0
    """

    name = "WER"
    outputs = error_rate_outputs("WER")

    def __init__(
        self, markup: bool = False, optional_deletable: bool = False, fragments: bool = False, **options: Any
    ) -> None:
        for flag, value in (("markup", markup), ("optional_deletable", optional_deletable), ("fragments", fragments)):
            check_type("WER", flag, value, (bool,), "a bool")
        if (optional_deletable or fragments) and not markup:
            raise ValueError("WER: optional_deletable and fragments are sclite reference markup: set markup=True")
        self.markup = markup
        self.optional_deletable = optional_deletable
        self.fragments = fragments
        super().__init__(**options)
        if markup and self.aligner != "sclite":
            raise ValueError("WER: markup is aligned as sclite aligns it (its network alignment): set aligner='sclite'")
        if markup and self.group_by is not None:
            raise ValueError("WER: group_by does not count sclite's markup yet: score the groups without markup")

    def tokenize(self, text: str) -> list[str]:
        """The words of ``text`` (``str.split``).

        >>> WER().tokenize(" the  cat ")
        ['the', 'cat']
        """
        return text.split()

    def _count_batch(
        self, ref: Sequence[str], hyp: Sequence[str], utt_ids: Sequence[str] | None
    ) -> tuple[int, int, int, int, int]:
        """As `ErrorRate._count_batch`; with ``markup`` each reference is read as sclite's network first.

        With markup the reference length is that of the path sclite took (an alternation's
        branch, ``@`` left out), so the counting is `lightscore.text.sclite.markup`'s.

        >>> m = WER(markup=True, aligner="sclite"); m.update(ref=["{ um / uh } yes"], hyp=["uh yes"])
        >>> m.compute()["WER"], m.compute()["WER_ref_len"]
        (0.0, 2)
        """
        if not self.markup:
            return super()._count_batch(ref, hyp, utt_ids)
        from lightscore.text.sclite.markup import count_markup_pairs

        found = count_markup_pairs(ref, hyp, self.optional_deletable, self.fragments)
        return self._recorded([(u, c.sub, c.dele, c.ins, c.ref_len) for u, c in zip(utt_ids or [""] * len(ref), found)])

    def add_counts(self, counts: Iterable[tuple[str, int, int, int, int]]) -> None:
        """Add counts made elsewhere, ``(utt_id, S, D, I, ref_len)`` per utterance, as `update` adds its own.

        `lightscore.text.hubscr.pipeline.hubscr` counts an stm/ctm pair's segments straight from the files;
        added here, they give the numbers of those segments' texts scored with ``markup=True``
        (`lightscore.offline.sclite_inputs.score_segments`).

        Args:
            counts: One ``(utt_id, sub, dele, ins, ref_len)`` per utterance.

        >>> m = WER(markup=True, aligner="sclite", per_utterance=True)
        >>> m.add_counts([("s-000", 1, 0, 1, 4), ("s-001", 0, 0, 0, 2)])
        >>> m.compute()["WER"], m.compute()["WER_utt_err"], m.utterance_counts[0]
        (33.33333333333333, 50.0, ('s-000', 1, 0, 1, 4))
        """
        records = list(counts)
        self._add_totals(self._recorded(records), len(records))

    def _recorded(self, records: list[tuple[str, int, int, int, int]]) -> tuple[int, int, int, int, int]:
        """Keep per-utterance ``records`` (with ``per_utterance``); their ``(S, D, I, ref_len, with an error)``."""
        if self.per_utterance:
            self.utterance_counts.extend(records)
        if not records:
            return 0, 0, 0, 0, 0
        _, sub, dele, ins, length = zip(*records)  # columns in C: a hubscr corpus adds 20,000 records at once
        edits = list(map(add, map(add, sub, dele), ins))  # counts are never negative: 0 only without an error
        return sum(sub), sum(dele), sum(ins), sum(length), len(edits) - edits.count(0)

    def align_tokens(self, ref: Sequence, hyp: Sequence) -> list[Pair]:
        """As `ErrorRate.align_tokens`; with ``markup`` the reference's words are read as sclite's network.

        >>> WER(aligner="sclite", markup=True).align_tokens("{ a / b } c".split(), ["b", "c"])[0]
        ('b', 'b', 'C')
        """
        if not self.markup:
            return super().align_tokens(ref, hyp)
        from lightscore.text.sclite.markup import markup_align, parse_reference

        flags = (self.optional_deletable, self.fragments)
        return markup_align(parse_reference(" ".join(ref), *flags), parse_reference(" ".join(hyp), *flags))

    def _tokenizer_settings(self) -> list[str]:
        if not self.markup:
            return []
        flags = [
            name for name, on in (("optional_deletable", self.optional_deletable), ("fragments", self.fragments)) if on
        ]
        return ["markup=sclite", *(f"{flag}=yes" for flag in flags)]

    def _sum_edits(self, ref: Sequence[str], hyp: Sequence[str]) -> tuple[int, int, int, int, int]:
        # str.split called directly saves a method call per text; a subclass's own tokenize still wins.
        return self._aligner.sum_edits(ref, hyp, str.split if type(self).tokenize is WER.tokenize else self.tokenize)


class CER(ErrorRate):
    """Character error rate over characters, including one space between words.

    Runs of whitespace count as one space and the ends are stripped, so
    ``"a  b"`` and ``"a b"`` are the same text. With ``aligner="sclite"`` the
    counts equal sclite's on ESPnet's char tokens (a space is ``<space>`` there).

    Args:
        **options: as `ErrorRate`.

    Raises:
        TypeError, ValueError: as `ErrorRate`.

    >>> m = CER(); m.update(ref=["ab c"], hyp=["ab"]); m.compute()["CER_del"]
    2
    """

    name = "CER"
    outputs = error_rate_outputs("CER")

    def tokenize(self, text: str) -> str:
        """The characters of ``text`` with whitespace runs as one space, ends stripped.

        >>> CER().tokenize(" a \\t b ")
        'a b'
        """
        return " ".join(text.split())

    def _sum_edits(self, ref: Sequence[str], hyp: Sequence[str]) -> tuple[int, int, int, int, int]:
        # Most text is already tokenized (single spaces, no other whitespace): checking a whole
        # batch at once is cheaper than re-joining every line, and such a text is its own tokens.
        if type(self).tokenize is CER.tokenize and is_normalized(ref) and is_normalized(hyp):
            return self._aligner.sum_edits(ref, hyp, same_text)
        return super()._sum_edits(ref, hyp)


class TER(ErrorRate):
    """Token error rate over SentencePiece pieces of the model at ``bpemodel``.

    SentencePiece is imported and the model loaded on first use, so a TER
    built but never fed costs nothing.

    Args:
        bpemodel: The SentencePiece model file.
        **options: as `ErrorRate`.

    Raises:
        TypeError: ``bpemodel`` is not a path, or an option as in `ErrorRate`.
        ValueError: ``bpemodel`` is not a file, or an option as in `ErrorRate`.

    >>> TER("no/such/bpe.model", case="fold")
    Traceback (most recent call last):
    ...
    ValueError: TER: bpemodel 'no/such/bpe.model' is not a file
    """

    name = "TER"
    outputs = error_rate_outputs("TER")

    def __init__(self, bpemodel: str | Path, **options: Any) -> None:
        check_type("TER", "bpemodel", bpemodel, (str, os.PathLike), "a path")
        if not Path(bpemodel).is_file():
            raise ValueError(f"TER: bpemodel {str(bpemodel)!r} is not a file")
        require(type(self).__name__, "ter")
        self.bpemodel = str(bpemodel)
        self._processor: Any = None
        super().__init__(**options)

    def tokenize(self, text: str) -> list[str]:
        """The SentencePiece pieces of ``text`` (tests/test_error_rate.py trains a model to show them)."""
        if self._processor is None:
            import sentencepiece

            self._processor = sentencepiece.SentencePieceProcessor(model_file=self.bpemodel)
        return self._processor.encode(text, out_type=str)

    def _tokenizer_settings(self) -> list[str]:
        sha1 = hashlib.sha1(Path(self.bpemodel).read_bytes()).hexdigest()[:8]
        return [f"bpemodel={Path(self.bpemodel).name} (sha1 {sha1})"]

    def __getstate__(self) -> dict:
        # The processor is rebuilt from the file, so a TER can be pickled (ddp_spawn, multiprocessing).
        return {**self.__dict__, "_processor": None}


class SCLiteCER(ErrorRate):
    """sclite's character error rate (``sclite -e utf-8 -c``): the characters of words, spaces not counted.

    Unlike `CER`, a space is no unit: ``ab cd`` against ``abcd`` is no error. The defaults are
    sclite's (``aligner="sclite"``, ``case="sclite"``: A-Z folded); ``noascii`` and
    ``delete_hyphens`` are ``-c NOASCII`` and ``-c DH`` (`lightscore.text.sclite.cjk.sclite_chars`).

    Args:
        noascii: Keep a run of ASCII characters inside a word as one unit.
        delete_hyphens: Delete ``-`` before splitting.
        **options: as `ErrorRate`.

    Raises:
        TypeError, ValueError: as `ErrorRate`, or a flag that is not a bool.

    >>> m = SCLiteCER(); m.update(ref=["ab cd", "我们"], hyp=["abcd", "我门"]); m.compute()["CER"]
    16.666666666666664
    >>> SCLiteCER(noascii=True).settings()
    'CER unit=sclite_chars noascii=yes case=sclite aligner=sclite normalize=none'
    """

    name = "CER"
    outputs = error_rate_outputs("CER")

    def __init__(self, noascii: bool = False, delete_hyphens: bool = False, **options: Any) -> None:
        for flag, value in (("noascii", noascii), ("delete_hyphens", delete_hyphens)):
            check_type("SCLiteCER", flag, value, (bool,), "a bool")
        self.noascii = noascii
        self.delete_hyphens = delete_hyphens
        super().__init__(**{"aligner": "sclite", "case": "sclite", **options})

    def tokenize(self, text: str) -> list[str]:
        """sclite's ``-c`` units of ``text``.

        >>> SCLiteCER(delete_hyphens=True).tokenize("a-b 中")
        ['a', 'b', '中']
        """
        from lightscore.text.sclite.cjk import sclite_chars

        return sclite_chars(text, self.noascii, self.delete_hyphens)

    def _tokenizer_settings(self) -> list[str]:
        flags = [name for name, on in (("noascii", self.noascii), ("delete_hyphens", self.delete_hyphens)) if on]
        return ["unit=sclite_chars", *(f"{flag}=yes" for flag in flags)]


class MixedER(ErrorRate):
    """Mixed error rate of code-switched speech: CJK characters and other words are the units.

    Each CJK character counts alone and every other run of characters as one word
    (`lightscore.text.sclite.cjk.mixed_units`), so Mandarin with English words is scored by
    character and by word at once. Not jiwer's match error rate (the ``mer`` extra).

    Args:
        **options: as `ErrorRate`.

    Raises:
        TypeError, ValueError: as `ErrorRate`.

    >>> m = MixedER(); m.update(ref=["我喜欢Python"], hyp=["我喜欢 python"]); m.compute()["MER_sub"]
    1
    """

    name = "MER"
    outputs = error_rate_outputs("MER")

    def tokenize(self, text: str) -> list[str]:
        """The mixed units of ``text``.

        >>> MixedER().tokenize("用Python写")
        ['用', 'Python', '写']
        """
        from lightscore.text.sclite.cjk import mixed_units

        return mixed_units(text)

    def _tokenizer_settings(self) -> list[str]:
        return ["unit=mixed"]
