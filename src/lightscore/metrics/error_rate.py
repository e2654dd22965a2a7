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
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lightscore.metrics.error_rate_base import ErrorRate
from lightscore.metrics.error_rate_options import check_type, error_rate_outputs
from lightscore.text.counting import is_normalized, same_text

__all__ = ["CER", "TER", "WER"]


class WER(ErrorRate):
    """Word error rate over whitespace-split words.

    Args:
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

    def tokenize(self, text: str) -> list[str]:
        """The words of ``text`` (``str.split``).

        >>> WER().tokenize(" the  cat ")
        ['the', 'cat']
        """
        return text.split()

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
