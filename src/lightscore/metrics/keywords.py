"""`KeywordErrorRate`: B-WER/U-WER, keyword recall/precision/F1 and OOV-WER/CER, counted as texterrors counts them.

One metric holds every count of `lightscore.text.recognition.keywords` (its docstring defines each one) as
integer "sum" states, so any split over ranks or shards gives the same numbers; and, per keyword, its hits,
misses and false alarms (a "cat" state of ``[keyword, hits, misses, false alarms]`` rows, folded per rank) for
the report. The alignment is texterrors' (``chardiff=True``: its ``--use-chardiff``), so the counts equal its
``--keywords-f`` and ``--oov-list-f`` output. The keyword list is a file, a list of words, or per utterance the
optional ``keywords`` input (a biasing list; its words are added to the file's for that utterance).

Rates are percentages (keywords_WER, B_WER, U_WER, OOV_WER, OOV_CER); recall, precision and F1 fractions, as
texterrors prints them. A rate whose denominator is 0 is left out of the result (texterrors prints -1 or nothing).
The WER and the two word counts every error rate has are named ``keywords_WER``, ``keywords_ref_words`` and
``keywords_errors``, so the metric shares a callback with `lightscore.metrics.WER`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from lightscore.core.contract import Field
from lightscore.core.metric import BaseMetric
from lightscore.metrics.error_rate_options import check_type
from lightscore.text.recognition.keywords import KEYWORD_COUNTS, WordLists, keyword_counts, read_word_list

__all__ = ["KeywordErrorRate"]

# The counts whose plain names another metric's outputs use too: their output names (the states keep the plain ones).
_OUTPUT_NAMES = {"ref_words": "keywords_ref_words", "errors": "keywords_errors"}

WordList = str | os.PathLike | Iterable[str] | None


def _word_set(owner: str, name: str, words: WordList, first_field: bool) -> tuple[frozenset[str], str]:
    """A list option as ``(words, how it is shown in settings())``: a file's words, or the words given."""
    if words is None:
        return frozenset(), "none"
    if isinstance(words, (str, os.PathLike)):
        return read_word_list(words, first_field=first_field), Path(words).name
    words = list(words)
    for word in words:
        if not isinstance(word, str) or len(word.split()) != 1:
            raise ValueError(f"{owner}: {name} holds {word!r}, not one word")
    return frozenset(words), f"{len(set(words))} words"


def _fraction(part: int, whole: int) -> float | None:
    return part / whole if whole else None


class KeywordErrorRate(BaseMetric):
    """WER with B-WER/U-WER, keyword recall/precision/F1 and OOV-WER/CER on texterrors' alignment.

    Args:
        keywords: The keyword (biasing) list: a file with one word per line, or the words; None for none.
        oov: The OOV list: a file (each line's first field, as texterrors reads ``--oov-list-f``), or the words.
        chardiff: texterrors' character-aware alignment (``--use-chardiff``) instead of the standard one.

    Raises:
        TypeError, ValueError: a bad option (naming it); FileNotFoundError: a list file that does not exist.

    >>> m = KeywordErrorRate(keywords=["anna", "paris"], oov=["anna"])
    >>> m.update(ref=["call anna in paris"], hyp=["call ana in paris now"])
    >>> r = m.compute()
    >>> r["keywords_WER"], r["B_WER"], r["U_WER"], r["keyword_recall"], r["keyword_precision"], r["OOV_CER"]
    (50.0, 50.0, 50.0, 0.5, 1.0, 25.0)
    >>> m.keyword_table()
    [('anna', 0, 1, 0), ('paris', 1, 0, 0)]
    """

    name = "keywords"
    inputs = (Field("ref", "text"), Field("hyp", "text"), Field("keywords", "text", optional=True))
    outputs = (
        Field("keywords_WER", "number"),
        Field("B_WER", "number", label="B-WER (biasing-list words)", optional=True),
        Field("U_WER", "number", label="U-WER (other words)", optional=True),
        Field("keyword_recall", "number", optional=True),
        Field("keyword_precision", "number", optional=True),
        Field("keyword_f1", "number", optional=True),
        Field("OOV_WER", "number", optional=True),
        Field("OOV_CER", "number", optional=True),
        *(Field(_OUTPUT_NAMES.get(count, count), "number") for count in KEYWORD_COUNTS),
    )

    def __init__(self, keywords: WordList = None, oov: WordList = None, chardiff: bool = False) -> None:
        check_type(self.name, "chardiff", chardiff, (bool,), "a bool")
        self.keywords, self.keywords_label = _word_set(self.name, "keywords", keywords, first_field=False)
        self.oov, self.oov_label = _word_set(self.name, "oov", oov, first_field=True)
        self.chardiff = chardiff
        for count in KEYWORD_COUNTS:
            self.add_state(count, 0, "sum")
        self.add_state("keyword_hits", [], "cat")
        super().__init__()

    def update(self, *, ref: Sequence[str], hyp: Sequence[str], keywords: Sequence[str] | None = None) -> None:
        """Add each utterance's counts.

        Args:
            ref: Reference texts (words split on whitespace).
            hyp: Hypothesis texts.
            keywords: Optional per-utterance biasing lists, words separated by spaces (added to the file's).
        """
        totals = [0] * len(KEYWORD_COUNTS)
        # this rank's rows stay one per keyword: folded here, concatenated by a merge, summed by keyword_table
        hits = {word: [h, m, fa] for word, h, m, fa in self.keyword_table()}
        for row, (r, h) in enumerate(zip(ref, hyp)):
            own = frozenset(keywords[row].split()) if keywords is not None else frozenset()
            # the file's list is not copied per utterance: it may hold thousands of words
            listed = WordLists(self.keywords, own) if own and self.keywords else own or self.keywords
            for k, value in enumerate(keyword_counts(r.split(), h.split(), listed, self.oov, self.chardiff, hits)):
                totals[k] += value
        for name, value in zip(KEYWORD_COUNTS, totals):
            setattr(self, name, getattr(self, name) + value)
        self.keyword_hits = [[word, *counts] for word, counts in sorted(hits.items())]

    def keyword_table(self) -> list[tuple[str, int, int, int]]:
        """``(keyword, hits, misses, false alarms)`` per keyword seen, summed over the merged rows, by keyword.

        A hit is a keyword paired with itself; a miss a reference keyword that is not; a false alarm a
        hypothesis keyword that is not.
        """
        table: dict[str, list[int]] = {}
        for word, *counts in self.keyword_hits:
            row = table.setdefault(word, [0, 0, 0])
            for k, value in enumerate(counts):
                row[k] += value
        return [(word, *counts) for word, counts in sorted(table.items())]  # type: ignore[misc]

    def compute(self) -> dict[str, float]:
        """The rates and every count (see the module docstring).

        Raises:
            ValueError: no reference word was scored.
        """
        if self.ref_words == 0:
            raise ValueError(f"{self.name}: no reference word was scored")
        result: dict[str, float] = {"keywords_WER": 100.0 * self.errors / self.ref_words}
        rates = {
            "B_WER": (self.biased_errors, self.biased_ref),
            "U_WER": (self.unbiased_errors, self.unbiased_ref),
            "OOV_WER": (self.oov_word_errors, self.oov_words),
            "OOV_CER": (self.oov_char_errors, self.oov_chars),
        }
        for key, (part, whole) in rates.items():
            if whole:
                result[key] = 100.0 * part / whole
        recall = _fraction(self.keywords_predicted, self.keywords_count)
        precision = _fraction(self.keywords_predicted, self.keywords_output)
        if recall is not None:
            result["keyword_recall"] = recall
        if precision is not None:
            result["keyword_precision"] = precision
        if recall is not None and precision is not None:
            result["keyword_f1"] = 2 * recall * precision / (recall + precision) if recall + precision else 0.0
        result.update({_OUTPUT_NAMES.get(count, count): getattr(self, count) for count in KEYWORD_COUNTS})
        return result

    def settings(self) -> str:
        """The options as one line.

        >>> KeywordErrorRate(keywords=["anna"], chardiff=True).settings()
        'keywords keywords=1 words oov=none chardiff=True'
        """
        return f"{self.name} keywords={self.keywords_label} oov={self.oov_label} chardiff={self.chardiff}"

    def write_artifacts(self, test_dir: Path) -> None:
        """Write ``keywords.tsv``: each keyword's hits, misses and false alarms (`keyword_table`)."""
        from lightscore.io.tsv import write_tsv

        write_tsv(Path(test_dir) / "keywords.tsv", ["keyword", "hits", "misses", "false_alarms"], self.keyword_table())
