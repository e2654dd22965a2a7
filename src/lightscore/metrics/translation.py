"""Speech-translation metrics equal to sacrebleu 2.6: `BLEU`, `ChrF` (chrF, chrF++) and `TranslationEditRate`.

Each keeps sacrebleu's sufficient statistics as integer sums, so one process,
N ranks and a sharded `measure()` give the same number to the last digit, and
``settings()`` carries sacrebleu's signature. The translation edit rate is
`TranslationEditRate` with outputs ``TransTER...``: lightscore's `TER` is the
token error rate of recognition.

>>> m = BLEU(); m.update(hyp=["the cat sat on the mat"], ref=["the cat sat on a mat"]); round(m.compute()["BLEU"], 2)
53.73
>>> m.settings()
'BLEU nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0'
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from lightscore._extras import require
from lightscore.core.contract import Field
from lightscore.metrics.error_rate_options import check_choice, check_type
from lightscore.metrics.translation_base import TranslationMetric, check_unknown
from lightscore.text.mt.bleu import SMOOTH_DEFAULTS, bleu_score, bleu_side_stats, bleu_signature
from lightscore.text.mt.chrf import chrf_score, chrf_segment_stats, chrf_signature
from lightscore.text.mt.sacrebleu_api import language_tokenizer, language_tokenizers
from lightscore.text.mt.ter import ter_ref_length, ter_score, ter_segment_stats, ter_signature, tercom_tokenizer
from lightscore.text.mt.token_ids import TokenIds
from lightscore.text.mt.tokenizers import bleu_tokenizer, preprocess_bleu

__all__ = ["BLEU", "ChrF", "TranslationEditRate"]

_COMMON = ("references", "per_utterance", "ci", "bootstrap", "seed")


def _check_options(metric: TranslationMetric, options: dict[str, Any], known: Sequence[str]) -> None:
    """What every translation metric checks first: that the ``mt`` extra is installed, then that it knows each option.

    Args:
        metric: The metric being built (its class and ``name`` go in the errors).
        options: Its ``**options``; those of `TranslationMetric` (``_COMMON``) are checked there.
        known: Every option the metric takes, listed in the error.

    Raises:
        lightscore._extras.MissingExtraError: sacrebleu is not installed.
        TypeError: an option the metric does not know.
    """
    require(type(metric).__name__, "mt")
    check_unknown(metric.name, {k: v for k, v in options.items() if k not in _COMMON}, known)


def _check_int(owner: str, name: str, value: Any, low: int) -> None:
    check_type(owner, name, value, (int,), "an int")
    if value < low:
        raise ValueError(f"{owner}: {name} must be >= {low}, got {value}")


def _check_flags(owner: str, **flags: Any) -> None:
    for name, value in flags.items():
        check_type(owner, name, value, (bool,), "a bool")


class BLEU(TranslationMetric):
    """Corpus BLEU, sacrebleu's ``BLEU`` with its options, names and defaults.

    Args:
        tokenize: ``13a``, ``intl``, ``zh``, ``char``, ``none``, ``ja-mecab``, ``ko-mecab``; None (the
            default, as sacrebleu's) picks sacrebleu's tokenizer for ``trg_lang``: ``zh`` for Chinese,
            ``ja-mecab`` for Japanese, ``ko-mecab`` for Korean, ``13a`` otherwise.
        lowercase: Lower-case hypotheses and references.
        smooth_method: ``exp`` (default), ``floor``, ``add-k`` or ``none``.
        smooth_value: For ``floor`` (default 0.1) and ``add-k`` (default 1).
        max_ngram_order: N (default 4).
        effective_order: Leave out the orders without n-grams (for sentence BLEU).
        trg_lang: Target language code; with ``tokenize=None`` it picks the tokenizer, as in sacrebleu.
            With a ``tokenize`` that is not the language's, a warning says so (sacrebleu logs the same).
        **options: ``references``, ``per_utterance``, ``ci``, ``bootstrap``, ``seed`` (`TranslationMetric`).

    Raises:
        TypeError: an unknown option, or one of the wrong type.
        ValueError: an option out of range (the message names it).

    >>> BLEU(trg_lang="zh").settings()
    'BLEU nrefs:1|case:mixed|eff:no|tok:zh|smooth:exp|version:2.6.0'
    >>> BLEU(smooth_method="laplace")
    Traceback (most recent call last):
    ...
    ValueError: BLEU: smooth_method 'laplace' is not one of none, floor, add-k, exp
    """

    name = "BLEU"

    def __init__(
        self,
        tokenize: str | None = None,
        lowercase: bool = False,
        smooth_method: str = "exp",
        smooth_value: float | None = None,
        max_ngram_order: int = 4,
        effective_order: bool = False,
        trg_lang: str = "",
        **options: Any,
    ) -> None:
        _check_options(self, options, _KNOWN["BLEU"])
        check_type(self.name, "tokenize", tokenize, (str, type(None)), "a tokenizer name")
        check_type(self.name, "trg_lang", trg_lang, (str,), "a language code")
        if tokenize is None:
            tokenize = language_tokenizer(trg_lang)
        elif language_tokenizers().get(trg_lang, tokenize) != tokenize:
            wanted = language_tokenizers()[trg_lang]
            warnings.warn(
                f"{self.name}: tokenize {tokenize!r} for trg_lang {trg_lang!r}; sacrebleu would pick "
                f"{wanted!r} (leave tokenize unset)",
                UserWarning,
                stacklevel=2,
            )
        check_choice(self.name, "smooth_method", smooth_method, tuple(SMOOTH_DEFAULTS))
        check_type(self.name, "smooth_value", smooth_value, (int, float, type(None)), "a number or None")
        if smooth_value is not None and smooth_value < 0:
            raise ValueError(f"{self.name}: smooth_value must be >= 0, got {smooth_value}")
        _check_int(self.name, "max_ngram_order", max_ngram_order, 1)
        _check_flags(self.name, lowercase=lowercase, effective_order=effective_order)
        self.tokenize = tokenize
        self.lowercase = lowercase
        self.max_ngram_order = max_ngram_order
        self.smooth_method = smooth_method
        self.smooth_value = smooth_value
        self.effective_order = effective_order
        self.trg_lang = trg_lang
        self.tokenizer = bleu_tokenizer(tokenize, owner=self.name)
        self.token_ids = TokenIds(self.tokenizer)  # a cache of each word's tokens: not state
        orders = range(1, max_ngram_order + 1)
        self.stat_names = ("hyp_len", "ref_len", *(f"match_{i}" for i in orders), *(f"total_{i}" for i in orders))
        super().__init__(**options)

    def _outputs(self) -> tuple[Field, ...]:
        n = self.name
        fields = [Field(n, "number"), Field(f"{n}_bp", "number"), Field(f"{n}_ratio", "number")]
        fields += [Field(f"{n}_hyp_len", "number"), Field(f"{n}_ref_len", "number")]
        fields += [
            Field(f"{n}_p{i}", "number", label=f"{i}-gram precision") for i in range(1, self.max_ngram_order + 1)
        ]
        return (*fields, Field(f"{n}_segments", "number"))

    def _segment_stats(self, hyp: list[str], refs: list[list[str]], present: np.ndarray) -> np.ndarray:
        sides = self.token_ids.encode([preprocess_bleu(side, self.lowercase) for side in (hyp, *refs)])
        return bleu_side_stats(sides, present, self.max_ngram_order)

    def _score(self, stats: Sequence[Any], effective_order: bool | None = None) -> dict[str, float]:
        eff = self.effective_order if effective_order is None else effective_order
        r = bleu_score(stats, self.max_ngram_order, self.smooth_method, self.smooth_value, eff)
        n = self.name
        result = {n: r["score"], f"{n}_bp": r["bp"], f"{n}_ratio": r["ratio"]}
        result |= {f"{n}_hyp_len": r["sys_len"], f"{n}_ref_len": r["ref_len"]}
        return result | {f"{n}_p{i}": p for i, p in enumerate(r["precisions"], 1)}

    def sentence_score(self, stats: Sequence[int]) -> float:
        """Sentence BLEU as sacrebleu's ``sentence_bleu``: these settings with ``effective_order=True``."""
        return self._score(list(stats), effective_order=True)[self.name]

    def signature(self) -> str:
        """sacrebleu's BLEU signature, e.g. ``nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0``."""
        args = (self.lowercase, self.tokenizer.signature(), self.smooth_method, self.smooth_value, self.effective_order)
        return bleu_signature(self.nrefs(), *args)


class ChrF(TranslationMetric):
    """Corpus chrF (chrF++ with ``word_order=2``), sacrebleu's ``CHRF`` with its options, names and defaults.

    Args:
        char_order: Character n-gram order (default 6).
        word_order: Word n-gram order (default 0; 2 is chrF++).
        beta: Weight of recall (default 2).
        lowercase: Lower-case hypotheses and references.
        whitespace: Keep whitespace in the character n-grams.
        eps_smoothing: chrF++.py's epsilon smoothing instead of sacrebleu's effective order.
        **options: As `BLEU`.

    Raises:
        TypeError, ValueError: as `BLEU`.

    >>> m = ChrF(word_order=2); m.update(hyp=["the cat"], ref=["the cat"]); m.compute()["chrF"], m.sacrebleu_name
    (100.0, 'chrF2++')
    """

    name = "chrF"

    def __init__(
        self,
        char_order: int = 6,
        word_order: int = 0,
        beta: int = 2,
        lowercase: bool = False,
        whitespace: bool = False,
        eps_smoothing: bool = False,
        **options: Any,
    ) -> None:
        _check_options(self, options, _KNOWN["chrF"])
        _check_int(self.name, "char_order", char_order, 0)
        _check_int(self.name, "word_order", word_order, 0)
        _check_int(self.name, "beta", beta, 0)
        if char_order + word_order < 1:
            raise ValueError(f"{self.name}: char_order + word_order must be >= 1, got {char_order} + {word_order}")
        _check_flags(self.name, lowercase=lowercase, whitespace=whitespace, eps_smoothing=eps_smoothing)
        self.char_order = char_order
        self.word_order = word_order
        self.beta = beta
        self.lowercase = lowercase
        self.whitespace = whitespace
        self.eps_smoothing = eps_smoothing
        self.sacrebleu_name = f"chrF{beta}" + "+" * word_order
        orders = [f"c{i}" for i in range(1, char_order + 1)] + [f"w{i}" for i in range(1, word_order + 1)]
        self.stat_names = tuple(f"{o}_{part}" for o in orders for part in ("hyp", "ref", "match"))
        super().__init__(**options)

    def _outputs(self) -> tuple[Field, ...]:
        return Field(self.name, "number", label=self.sacrebleu_name), Field(f"{self.name}_segments", "number")

    def _segment_stats(self, hyp: list[str], refs: list[list[str]], present: np.ndarray) -> np.ndarray:
        sides = [[line.lower() for line in side] if self.lowercase else side for side in (hyp, *refs)]
        options = (self.char_order, self.word_order, self.beta, self.whitespace, self.eps_smoothing)
        return chrf_segment_stats(sides[0], sides[1:], present, *options)

    def _score(self, stats: Sequence[Any]) -> dict[str, float]:
        return {self.name: chrf_score(stats, self.char_order, self.word_order, self.beta, self.eps_smoothing)}

    def signature(self) -> str:
        """sacrebleu's chrF signature, e.g. ``nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.6.0``."""
        args = (self.lowercase, self.char_order, self.word_order, self.whitespace, self.eps_smoothing)
        return chrf_signature(self.nrefs(), *args)


class TranslationEditRate(TranslationMetric):
    """Corpus translation edit rate (sacrebleu's ``TER``, Tercom's shifts), outputs ``TransTER``...

    Not lightscore's `TER` (token error rate, recognition). sacrebleu's default is case-insensitive.

    Args:
        normalized: Tercom's normalization (punctuation, XML entities; CJK with ``asian_support``).
        no_punct: Remove punctuation.
        asian_support: CJK handling for ``normalized`` / ``no_punct``.
        case_sensitive: Keep case (default False: lower-cased).
        **options: As `BLEU`.

    Raises:
        TypeError, ValueError: as `BLEU`.

    >>> m = TranslationEditRate(); m.update(hyp=["a b c"], ref=["a c b"]); r = m.compute()
    >>> round(r["TransTER"], 2), r["TransTER_edits"], r["TransTER_ref_len"]
    (33.33, 1, 3.0)
    """

    name = "TransTER"
    stat_names = ("edits", "ref_words", "ref_count")

    def __init__(
        self,
        normalized: bool = False,
        no_punct: bool = False,
        asian_support: bool = False,
        case_sensitive: bool = False,
        **options: Any,
    ) -> None:
        _check_options(self, options, _KNOWN["TransTER"])
        flags = {"normalized": normalized, "no_punct": no_punct, "asian_support": asian_support}
        _check_flags(self.name, **flags, case_sensitive=case_sensitive)
        self.normalized = normalized
        self.no_punct = no_punct
        self.asian_support = asian_support
        self.case_sensitive = case_sensitive
        self.tokenizer = tercom_tokenizer(normalized, no_punct, asian_support, case_sensitive)
        super().__init__(**options)
        # sacrebleu averages each segment's reference lengths: the words are kept apart by reference count.
        for k in range(1, self.references + 1):
            self.add_state(f"ref_words_{k}ref", 0, "sum")

    def _outputs(self) -> tuple[Field, ...]:
        n = self.name
        return (
            Field(n, "number", label="TER (translation edit rate, %)"),
            Field(f"{n}_edits", "number"),
            Field(f"{n}_ref_len", "number"),
            Field(f"{n}_segments", "number"),
        )

    def _segment_stats(self, hyp: list[str], refs: list[list[str]], present: np.ndarray) -> np.ndarray:
        return ter_segment_stats(hyp, refs, present, self.tokenizer)

    def _accumulate(self, stats: np.ndarray) -> None:
        super()._accumulate(stats)
        for k in range(1, self.references + 1):
            name = f"ref_words_{k}ref"
            setattr(self, name, getattr(self, name) + int(stats[stats[:, 2] == k, 1].sum()))

    def _score(self, stats: Sequence[Any]) -> dict[str, float]:
        ref_length = ter_ref_length({k: getattr(self, f"ref_words_{k}ref") for k in range(1, self.references + 1)})
        n = self.name
        return {n: ter_score(stats[0], ref_length), f"{n}_edits": int(stats[0]), f"{n}_ref_len": ref_length}

    def sentence_score(self, stats: Sequence[int]) -> float:
        """One segment's TER: its edits over its references' average length."""
        return ter_score(stats[0], stats[1] / stats[2])

    def sacrebleu_rows(self) -> list[list]:
        """sacrebleu's TER rows: fewest edits, average reference length (a float)."""
        return [[row[1], row[2] / row[3]] for row in self._rows()]

    def stats_score(self, stats: Sequence[Any]) -> float:
        """TER of summed `sacrebleu_rows`."""
        return ter_score(stats[0], stats[1])

    def _interval(self) -> tuple[float, float]:
        from lightscore.analysis.bootstrap import percentile_interval, resampled_sums

        rows = np.array([row[1:] for row in self._rows()], dtype=np.float64)
        sums = resampled_sums(np.stack([rows[:, 0], rows[:, 1] / rows[:, 2]]), None, self.ci, self.bootstrap, self.seed)
        return percentile_interval(np.array([ter_score(e, length) for e, length in sums.T]), self.ci)

    def _badness(self, score: float, stats: np.ndarray) -> int:
        return int(stats[0])

    def signature(self) -> str:
        """sacrebleu's TER signature, e.g. ``nrefs:1|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:2.6.0``."""
        return ter_signature(self.nrefs(), self.case_sensitive, self.normalized, self.no_punct, self.asian_support)


_BLEU_OPTIONS = ("tokenize", "lowercase", "smooth_method", "smooth_value", "max_ngram_order", "effective_order")
_KNOWN = {
    "BLEU": (*_BLEU_OPTIONS, "trg_lang", *_COMMON),
    "chrF": ("char_order", "word_order", "beta", "lowercase", "whitespace", "eps_smoothing", *_COMMON),
    "TransTER": ("normalized", "no_punct", "asian_support", "case_sensitive", *_COMMON),
}
