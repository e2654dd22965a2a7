"""Punctuation and case: `PunctuationErrorRate` (LibriSpeech-PC's PER, as NeMo counts it), `CaseErrorRate`, `PnCWER`.

Each keeps whole-number "sum" states, so any split of the utterances into batches, ranks or shards
gives the same result. The counting rules are in `lightscore.text.recognition.punctuation` (PER) and
`lightscore.text.recognition.pnc_words` (the word, case and punctuation classes); docs/recognition-practice.md
works examples through. Rates are percentages, as lightscore's WER.

>>> m = PnCWER()
>>> m.update(ref=["Hello, world."], hyp=["hello world."])
>>> r = m.compute()
>>> r["PnC_WER"], r["PnC_normalized_WER"], r["PnC_case_punct_errors"]
(50.0, 0.0, 1)
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from lightscore.core.contract import Field
from lightscore.core.metric import BaseMetric
from lightscore.metrics.error_rate_options import check_choice, check_type
from lightscore.text.recognition.pnc_words import (
    ALL_PUNCTUATION,
    CASE,
    CASE_PUNCT,
    PUNCT,
    WORD,
    PnCCounts,
    pnc_alignment,
    pnc_counts,
    pnc_words,
)
from lightscore.text.recognition.punctuation import NEMO_MARKS, mark_name, punctuation_counts_batch

__all__ = ["CaseErrorRate", "PnCWER", "PunctuationErrorRate"]


def _check_marks(owner: str, marks: Any, allow_none: bool) -> None:
    """Marks are distinct non-space characters; PER's cannot be word characters (its tokens are ``[\\w']+``)."""
    if marks is None and allow_none:
        return
    check_type(owner, "marks", marks, (str,), "a string of mark characters" + (" or None" if allow_none else ""))
    if not marks:
        raise ValueError(f"{owner}: marks is empty: give the mark characters, e.g. '.,?'")
    if len(set(marks)) != len(marks) or any(c.isspace() for c in marks):
        raise ValueError(f"{owner}: marks {marks!r} must be distinct characters, none of them a space")
    if not allow_none and any(re.fullmatch(r"[\w']", c) for c in marks):
        raise ValueError(f"{owner}: marks {marks!r} holds a word character (letters, digits, _ and ' make words)")


def _pct(part: int, whole: int) -> float:
    return 100.0 * part / whole


def _rates(pairs: dict[str, tuple[int, int]]) -> dict[str, float]:
    """``name: part / whole`` as percentages, leaving out each whose whole is 0 (its output is optional: undefined)."""
    return {name: 100.0 * part / whole for name, (part, whole) in pairs.items() if whole}


class PunctuationErrorRate(BaseMetric):
    """The punctuation error rate of LibriSpeech-PC, with NeMo's counts per mark.

    ``PER = (S + D + I) / (C + S + D + I)`` over the marks (NeMo's ``punct_er``, as a percentage);
    ``PER_over_ref = (S + D + I) / (C + S + D)`` divides by the reference marks instead. A rate whose
    denominator is 0 is left out of the result (its output is optional). Per mark
    (``PER_comma``...), the same ratio over that mark's operations, and its counts; ``PER_<a>_to_<b>``
    counts reference mark a written as b.

    Args:
        marks: The marks scored, one character each (NeMo's default ``.,?``); any other character
            that is not part of a word (``[\\w']``) only separates tokens.
        case: ``"sensitive"`` (NeMo: words compared as written) or ``"fold"`` (``str.casefold``) when
            aligning the words around the marks.

    Raises:
        TypeError, ValueError: a bad option.

    >>> m = PunctuationErrorRate(marks=".,!?")
    >>> m.update(ref=["Hi, dear! Nice to see you. What's"], hyp=["Hi dear! Nice to see you! What's?"])
    >>> r = m.compute()
    >>> r["PER"], r["PER_cor"], r["PER_sub"], r["PER_del"], r["PER_ins"], r["PER_period_to_exclamation"]
    (75.0, 1, 1, 1, 1, 1)
    """

    name: ClassVar[str] = "PER"
    inputs = (Field("ref", "text"), Field("hyp", "text"))

    def __init__(self, marks: str = NEMO_MARKS, case: str = "sensitive") -> None:
        _check_marks("PunctuationErrorRate", marks, allow_none=False)
        check_choice("PunctuationErrorRate", "case", case, ("sensitive", "fold"))
        self.marks, self.case = marks, case
        self._index = {m: k for k, m in enumerate(marks)}
        for a in range(len(marks)):
            self.add_state(f"deleted_{a}", 0, "sum")
            self.add_state(f"inserted_{a}", 0, "sum")
            for b in range(len(marks)):
                self.add_state(f"pair_{a}_{b}", 0, "sum")
        names = [mark_name(m) for m in marks]
        # A rate over nothing (no reference mark, a mark never seen) is left out: those outputs are optional.
        outputs = [Field("PER", "number", label="PER (%)"), Field("PER_over_ref", "number", optional=True)]
        outputs += [Field(f"PER_{c}", "number") for c in ("cor", "sub", "del", "ins", "ref_len")]
        for a in names:
            outputs += [Field(f"PER_{a}", "number", optional=True)]
            outputs += [Field(f"PER_{a}_{c}", "number") for c in ("cor", "sub", "del", "ins")]
        outputs += [Field(f"PER_{a}_to_{b}", "number") for a in names for b in names if a != b]
        self.outputs = tuple(outputs)
        super().__init__()

    def settings(self) -> str:
        """The options that change the numbers, in one line.

        >>> PunctuationErrorRate().settings()
        "PER marks='.,?' case=sensitive"
        """
        return f"PER marks={self.marks!r} case={self.case}"

    def update(self, *, ref: Sequence[str], hyp: Sequence[str]) -> None:
        """Add each utterance's paired, deleted and inserted marks.

        Args:
            ref: Reference texts, as written.
            hyp: Hypothesis texts, as written.
        """
        for counts in punctuation_counts_batch(ref, hyp, self.marks, fold=self.case == "fold"):
            for (a, b), n in counts.pairs.items():
                name = f"pair_{self._index[a]}_{self._index[b]}"
                setattr(self, name, getattr(self, name) + n)
            for mark, n in counts.deleted.items():
                name = f"deleted_{self._index[mark]}"
                setattr(self, name, getattr(self, name) + n)
            for mark, n in counts.inserted.items():
                name = f"inserted_{self._index[mark]}"
                setattr(self, name, getattr(self, name) + n)

    def compute(self) -> dict[str, float]:
        """PER, its counts, and each mark's rate and counts.

        Raises:
            ValueError: no mark in any reference or hypothesis.
        """
        k = range(len(self.marks))
        pair = [[getattr(self, f"pair_{a}_{b}") for b in k] for a in k]
        cor = [pair[a][a] for a in k]
        sub = [sum(pair[a]) - pair[a][a] for a in k]
        dele = [getattr(self, f"deleted_{a}") for a in k]
        ins = [getattr(self, f"inserted_{a}") for a in k]
        c, s, d, i = sum(cor), sum(sub), sum(dele), sum(ins)
        if c + s + d + i == 0:
            raise ValueError(f"PER: no mark of {self.marks!r} in any reference or hypothesis")
        result: dict[str, float] = {"PER": _pct(s + d + i, c + s + d + i)}
        result.update(_rates({"PER_over_ref": (s + d + i, c + s + d)}))
        result.update({"PER_cor": c, "PER_sub": s, "PER_del": d, "PER_ins": i, "PER_ref_len": c + s + d})
        names = [mark_name(m) for m in self.marks]
        for a in k:
            # NeMo's per-mark denominator: this mark's operations (a substitution counts for the reference mark).
            ops = cor[a] + sub[a] + dele[a] + ins[a]
            result.update(_rates({f"PER_{names[a]}": (sub[a] + dele[a] + ins[a], ops)}))
            counts = {"cor": cor[a], "sub": sub[a], "del": dele[a], "ins": ins[a]}
            result.update({f"PER_{names[a]}_{c}": n for c, n in counts.items()})
        for a in k:
            for b in k:
                if a != b:
                    result[f"PER_{names[a]}_to_{names[b]}"] = pair[a][b]
        return result


class _PnCCounting(BaseMetric):
    """The word, case and punctuation counts of `pnc_counts`, summed: the state `CaseErrorRate` and `PnCWER` share."""

    name: ClassVar[str] = "PnC"
    inputs = (Field("ref", "text"), Field("hyp", "text"))
    _STATES: ClassVar[tuple[str, ...]] = PnCCounts._fields

    def __init__(self, marks: str | None = ALL_PUNCTUATION) -> None:
        _check_marks(type(self).__name__, marks, allow_none=True)
        self.marks = marks
        for state in self._STATES:
            self.add_state(state, 0, "sum")
        super().__init__()

    def settings(self) -> str:
        """The options that change the numbers, in one line.

        >>> PnCWER().settings(), CaseErrorRate(marks=".,").settings()
        ('PnCWER marks=unicode-punctuation', "CaseErrorRate marks='.,'")
        """
        marks = "unicode-punctuation" if self.marks is None else repr(self.marks)
        return f"{type(self).__name__} marks={marks}"

    def update(self, *, ref: Sequence[str], hyp: Sequence[str]) -> None:
        """Add each utterance's word errors and its matched words' case and punctuation differences.

        Args:
            ref: Reference texts, as written.
            hyp: Hypothesis texts, as written.
        """
        for counts in map(pnc_counts, ref, hyp, [self.marks] * len(ref)):
            for state, n in zip(self._STATES, counts):
                setattr(self, state, getattr(self, state) + n)


class CaseErrorRate(_PnCCounting):
    """The share of matched words written in another case: ``CaseER = case errors / matched words``.

    A matched word pair has equal cores once folded (``str.casefold``), on the alignment that makes the
    fewest word errors (`lightscore.text.recognition.pnc_words`); it is a case error when the cores as
    written differ (whatever the punctuation around them). Substituted, deleted and inserted words are
    not in the rate: they are word errors.

    Args:
        marks: The characters peeled off the ends of each word; None (default) for every Unicode
            punctuation character.

    >>> m = CaseErrorRate()
    >>> m.update(ref=["The cat sat on the Mat."], hyp=["the cat sat on a mat"])
    >>> m.compute()
    {'CaseER': 40.0, 'CaseER_errors': 2, 'CaseER_matched_words': 5}
    """

    name: ClassVar[str] = "CaseER"
    outputs = (
        Field("CaseER", "number", label="Case error rate (%)"),
        Field("CaseER_errors", "number"),
        Field("CaseER_matched_words", "number"),
    )

    def compute(self) -> dict[str, float]:
        """The case error rate and its two counts.

        Raises:
            ValueError: no reference word matched a hypothesis word.
        """
        if self.matched == 0:
            raise ValueError("CaseER: no reference word matched a hypothesis word (case-insensitively)")
        errors = self.case + self.case_punct
        return {"CaseER": _pct(errors, self.matched), "CaseER_errors": errors, "CaseER_matched_words": self.matched}


class PnCWER(_PnCCounting):
    """WER with punctuation and case kept, beside the normalized WER, and its errors split into classes.

    On the alignment of `lightscore.text.recognition.pnc_words` (words folded, marks peeled off):
    ``PnC_normalized_WER`` counts the word errors only; ``PnC_WER`` counts each matched word written differently
    (case, punctuation, or both) as one more substitution. The classes ``PnC_word_errors``, ``PnC_case_errors``,
    ``PnC_punct_errors`` and ``PnC_case_punct_errors`` add up to PnC_WER's errors; ``PnC_*_share`` is each
    class's percentage of them. (Every output starts with ``PnC_``, so PnCWER shares a callback with WER.)

    Args:
        marks: The characters peeled off the ends of each word; None (default) for every Unicode
            punctuation character.
        report_html: With an output directory, write ``pnc_wer_report.html``: the alignment, the classes
            and the most frequent case and punctuation differences.

    >>> m = PnCWER()
    >>> m.update(ref=["The cat sat.", "Yes, it did!"], hyp=["the bat sat.", "Yes it did!"])
    >>> r = m.compute()
    >>> r["PnC_WER"], r["PnC_normalized_WER"], r["PnC_word_errors"], r["PnC_case_errors"], r["PnC_punct_errors"]
    (50.0, 16.666666666666668, 1, 1, 1)
    """

    name: ClassVar[str] = "PnC_WER"
    outputs = (
        Field("PnC_WER", "number", label="PnC-WER (%)"),
        Field("PnC_WER_sub", "number"),
        Field("PnC_WER_del", "number"),
        Field("PnC_WER_ins", "number"),
        Field("PnC_WER_hit", "number"),
        Field("PnC_WER_ref_len", "number"),
        Field("PnC_normalized_WER", "number", label="WER, normalized (%)"),
        Field("PnC_word_errors", "number"),
        Field("PnC_case_errors", "number"),
        Field("PnC_punct_errors", "number"),
        Field("PnC_case_punct_errors", "number"),
        Field("PnC_word_share", "number", optional=True),  # the shares: absent when there is no error
        Field("PnC_case_share", "number", optional=True),
        Field("PnC_punct_share", "number", optional=True),
        Field("PnC_case_punct_share", "number", optional=True),
    )

    def __init__(self, marks: str | None = ALL_PUNCTUATION, report_html: bool = False) -> None:
        check_type("PnCWER", "report_html", report_html, (bool,), "True or False")
        self.report_html = report_html
        super().__init__(marks)

    def compute(self) -> dict[str, float]:
        """PnC_WER with its counts, the normalized WER, and the four classes.

        Raises:
            ValueError: no reference word.
        """
        n = self.ref_words
        if n == 0:
            raise ValueError("PnC_WER: the references hold no word")
        word = self.substitutions + self.deletions + self.insertions
        classes = {"word": word, "case": self.case, "punct": self.punct, "case_punct": self.case_punct}
        errors = sum(classes.values())
        differ = self.case + self.punct + self.case_punct
        result: dict[str, float] = {
            "PnC_WER": _pct(errors, n),
            "PnC_WER_sub": self.substitutions + differ,
            "PnC_WER_del": self.deletions,
            "PnC_WER_ins": self.insertions,
            "PnC_WER_hit": self.matched - differ,
            "PnC_WER_ref_len": n,
            "PnC_normalized_WER": _pct(word, n),
        }
        result.update({f"PnC_{k}_errors": v for k, v in classes.items()})
        result.update(_rates({f"PnC_{k}_share": (v, errors) for k, v in classes.items()}))
        return result

    def write_artifacts(self, test_dir: Path) -> None:
        """With ``report_html``: ``pnc_wer_report.html`` (`write_report_page`).

        Raises:
            OSError: the page cannot be written.
        """
        if self.report_html and self.artifact_inputs is not None:
            self.write_report_page(test_dir / "pnc_wer_report.html")

    def write_report_page(self, path: str | Path, title: str = "PnC-WER report", **options: Any) -> None:
        """The HTML page: the summary, the error classes, the most frequent case and punctuation differences,
        every utterance's alignment (a pair written differently shown as a substitution).

        The utterances are re-read from ``artifact_inputs`` (inside `scoring_files`), after the state
        is loaded; ``options`` go to the page writer (``max_utterances``...).

        Raises:
            OSError: the page cannot be written.
        """
        assert self.artifact_inputs is not None, "write_report_page runs inside scoring_files(data)"
        utterances, differences = [], Counter()
        for utt_id, row in self.iter_inputs(self.artifact_inputs, "ref", "hyp"):
            pairs = []
            for r, h, kind in pnc_alignment(pnc_words(row["ref"], self.marks), pnc_words(row["hyp"], self.marks)):
                ref_text, hyp_text = (None if w is None else str(w) for w in (r, h))
                if kind == WORD:
                    mark = "I" if r is None else "D" if h is None else "S"
                elif kind is None:
                    mark = "C"
                else:
                    mark = "S"
                    differences[kind, ref_text, hyp_text] += 1
                pairs.append((ref_text, hyp_text, mark))
            utterances.append((utt_id, pairs))
        result = self.compute()
        labels = {WORD: "word", CASE: "case", PUNCT: "punctuation", CASE_PUNCT: "case and punctuation"}
        classes = [
            {
                "class": labels[k],
                "errors": result[f"PnC_{k}_errors"],
                "share %": round(result.get(f"PnC_{k}_share", 0.0), 2),
            }
            for k in (WORD, CASE, PUNCT, CASE_PUNCT)
        ]
        top = [{"class": labels[k], "ref": r, "hyp": h, "count": n} for (k, r, h), n in differences.most_common(20)]
        hyp = self.artifact_inputs.get("hyp")
        system = Path(hyp).name if isinstance(hyp, (str, os.PathLike)) else "hyp"
        self.write_page(
            path,
            [(system, result, utterances)],
            title=title,
            metric="PnC_WER",
            details={"settings": self.settings(), "normalized WER": round(result["PnC_normalized_WER"], 2)},
            top_errors={"Error classes": classes, "Case and punctuation differences": top},
            **options,
        )
