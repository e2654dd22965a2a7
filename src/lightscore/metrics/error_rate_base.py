"""`ErrorRate`, the class `WER`, `CER` and `TER` share, read top to bottom.

Every error rate keeps the same "sum" counts (substitutions, deletions,
insertions, hits, reference tokens, utterances, utterances with an error), so
merging ranks or shards is exact and the state never grows with the data. The
default aligner (``aligner="unit"``) runs the edit distance in C (rapidfuzz, as
in jiwer 4), with unit costs: the counts equal jiwer's ``process_words`` /
``process_characters`` on the same pairs. ``aligner="sclite"`` counts with NIST
sclite's weighted alignment and tie-breaking (`lightscore.text.sclite.align`).

The class, in order: its options and state (``__init__``); the text pipeline (normalizer, case
folding, the subclass's tokenizer); counting (``update``); the result (``compute``) and the
``settings()`` line naming everything that changes the number; per-utterance records (a "cat" state
kept with ``per_utterance``); the bootstrap interval; the extras (MER, WIL, WIP, macro); the rates by
group; the alignment of one pair; the artifacts. What other metrics share lives beside it as plain
functions: the option checks and declared outputs (`lightscore.metrics.error_rate_options`) and the
group labels and bins (`lightscore.metrics.error_rate_groups`). The subclasses, in
`lightscore.metrics.error_rate`, add the tokenizer.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from lightscore.analysis.breakdown import UttCounts, utterance_records
from lightscore.core.contract import Field
from lightscore.core.metric import BaseMetric
from lightscore.metrics.error_rate_groups import GROUP_COUNTS, check_groups, group_fields, label_of, output_label
from lightscore.metrics.error_rate_options import check_options, error_rate_outputs
from lightscore.text.aligners import aligner_functions
from lightscore.text.alignment import Pair, alignment_text
from lightscore.text.counting import count_utterances, information_measures

if TYPE_CHECKING:
    from lightscore.text.normalize import TextNormalizer

__all__ = ["STATES", "ErrorRate"]

STATES = ("substitutions", "deletions", "insertions", "hits", "ref_len", "utterances", "error_utterances")


class ErrorRate(BaseMetric):
    """The shared core of `WER`, `CER` and `TER`; a subclass sets ``name`` and ``tokenize``.

    Each text goes through the normalizer, then case folding, then the
    tokenizer, in ``update`` and in every alignment. An empty hypothesis counts
    its reference tokens as deletions, an empty reference its hypothesis tokens
    as insertions.

    Args:
        case: ``"sensitive"``, ``"fold"`` (``str.lower``: every cased letter), ``"sclite"`` (A-Z only, as
            sclite folds) or ``"sclite_<localization>"`` (`lightscore.text.sclite.case`). None (default):
            ``"sclite"`` with ``aligner="sclite"``, so the counts are those of ``sclite -i rm -o all`` as
            ESPnet runs it, else ``"sensitive"`` (jiwer's).
        alignment: Write ``<name>_alignment`` in `write_artifacts` (default True).
        aligner: ``"unit"`` (rapidfuzz unit costs, jiwer 4's counts; the default) or ``"sclite"``
            (NIST sclite's weighted alignment and tie-breaking, `lightscore.text.sclite.align`).
        normalize: A normalizer name of `lightscore.text.normalize.get_normalizer`: ``"none"`` (default),
            ``"whisper_english"`` or ``"whisper_basic"``.
        substitutions: Whole-word replacements after ``normalize``: a ``from<TAB>to`` file or a mapping.
        fillers: Words to drop after ``normalize``: a list or a file with one word per line.
        per_utterance: Keep ``(utt_id, S, D, I, ref_len)`` per utterance (a "cat" state, about
            150 bytes an utterance); the ids come with each fed batch (`lightscore.core.batch.feed`).
            Forced on by ``ci``, ``reports``, ``report_html`` and the ``macro`` extra.
        ci: Coverage of a bootstrap interval of the rate (e.g. 0.95): ``compute()`` adds
            ``<name>_ci_low`` and ``<name>_ci_high``. None (default) computes none.
        bootstrap: Bootstrap replicates for ``ci``.
        seed: Seed of the bootstrap.
        block_bootstrap: Resample whole speakers instead of utterances (needs ``ci``).
        utt2spk: A Kaldi ``utt2spk`` file naming each utterance's speaker; without one, the
            speaker is the utterance id up to its first ``-`` (sclite's ``-i rm``).
        reports: `write_artifacts` also writes ``<name>_speakers.tsv``, ``<name>_top_errors.tsv``
            and ``<name>_worst.tsv``.
        report_html: `write_artifacts` also writes ``<name>_report.html``.
        extras: Optional outputs (`lightscore.metrics.error_rate_options.EXTRAS`), each
            ``<name>_<extra>`` in percent: ``"mer"``, ``"wil"``, ``"wip"`` (jiwer 4's match error
            rate, word information lost and preserved, from the pooled counts) and ``"macro"``
            (the mean of the per-utterance rates; utterances with an empty reference left out).
        group_by: A further input holding each row's group (``"lang"``): one rate per label, keyed
            ``<name>_<group_by>_<label>`` (`lightscore.metrics.error_rate_groups`).
        groups: The labels of ``group_by``.
        bins: Instead of ``groups``, increasing finite edges for a numeric ``group_by`` (durations); the
            last bin is open, and a row's value must be a finite number at least the first edge.

    Raises:
        TypeError: an argument of the wrong type (``alignment="false"`` is not a bool).
        ValueError: an unknown case, aligner or normalizer name (the message lists the known
            ones), ``ci`` outside (0, 1), ``bootstrap`` < 1, ``block_bootstrap`` without ``ci``,
            an ``utt2spk`` that is not a file, or grouping options that do not fit together.
        lightscore.text.normalize.NormalizerError: a bad substitution or filler rule.

    >>> from lightscore.metrics import CER, WER
    >>> m = WER(case="fold", aligner="sclite")
    >>> m.update(ref=["x x x y"], hyp=["X y y"]); m.compute()["WER_del"], m.settings()
    (1, 'WER case=fold aligner=sclite normalize=none')
    >>> m = WER(group_by="lang", groups=["en", "de"])
    >>> m.update(ref=["a b", "c d"], hyp=["a b", "c"], lang=["en", "de"])
    >>> r = m.compute(); r["WER_lang_en"], r["WER_lang_de"], r["WER"]
    (0.0, 50.0, 25.0)
    >>> WER(aligner="kaldi")
    Traceback (most recent call last):
    ...
    ValueError: WER: aligner 'kaldi' is not one of unit, sclite
    >>> WER(alignment="false")
    Traceback (most recent call last):
    ...
    TypeError: WER: alignment must be a bool, got str 'false'
    """

    name: ClassVar[str] = "ER"
    # The seed's contract: ref and hyp. Utterance ids are the rows' keys; feed() passes them (batch_utt_ids).
    inputs = (Field("ref", "text"), Field("hyp", "text"))
    outputs = error_rate_outputs("ER")

    # -- options and state --------------------------------------------------------------

    def __init__(
        self,
        case: str | None = None,
        alignment: bool = True,
        aligner: str = "unit",
        normalize: str = "none",
        substitutions: str | os.PathLike | Mapping[str, str] | None = None,
        fillers: str | os.PathLike | Iterable[str] | None = None,
        per_utterance: bool = False,
        ci: float | None = None,
        bootstrap: int = 1000,
        seed: int = 0,
        block_bootstrap: bool = False,
        utt2spk: str | os.PathLike | None = None,
        reports: bool = False,
        report_html: bool = False,
        extras: Sequence[str] = (),
        group_by: str | None = None,
        groups: Sequence[str] | None = None,
        bins: Sequence[float] | None = None,
    ) -> None:
        from lightscore.text.normalize import get_normalizer  # importlib.metadata: imported when a rate is built

        check_options(
            type(self).__name__,
            case="sensitive" if case is None else case,
            alignment=alignment,
            aligner=aligner,
            normalize=normalize,
            substitutions=substitutions,
            fillers=fillers,
            per_utterance=per_utterance,
            ci=ci,
            bootstrap=bootstrap,
            seed=seed,
            block_bootstrap=block_bootstrap,
            utt2spk=utt2spk,
            reports=reports,
            report_html=report_html,
            extras=extras,
        )
        self.group_labels = check_groups(type(self).__name__, group_by, groups, bins)
        if case is None:  # sclite folds A-Z unless told otherwise; jiwer and the unit aligner compare as given
            case = "sclite" if aligner == "sclite" else "sensitive"
        self.case = case
        self.alignment = alignment
        self.aligner = aligner
        self._aligner = aligner_functions(aligner)
        self.normalize = normalize
        self.normalizer: TextNormalizer = get_normalizer(normalize, substitutions, fillers)
        self.extras = tuple(extras)
        self.ci = ci
        self.bootstrap = bootstrap
        self.seed = seed
        self.block_bootstrap = block_bootstrap
        self.utt2spk = None if utt2spk is None else str(utt2spk)
        self.reports = reports
        self.report_html = report_html
        self.per_utterance = per_utterance or ci is not None or reports or report_html or "macro" in self.extras
        self.group_by = group_by
        self.bins = None if bins is None else [float(edge) for edge in bins]
        self.top_error_rows: list[tuple[str, str, str, int]] = []  # set by write_artifacts with reports
        if ci is not None or self.extras:
            self.outputs = error_rate_outputs(self.name, ci=ci is not None, extras=self.extras)

        for state in STATES:
            self.add_state(state, 0, "sum")
        if self.per_utterance:
            # (utt_id, S, D, I, ref_len) per utterance: ranks' lists concatenate, and every
            # reader sorts them by utt_id, so any split of the rows gives the same records.
            self.add_state("utterance_counts", [], "cat")
        if group_by is not None:
            # Each label's counts are "sum" states of their own, so the rates by group merge as exactly as the rate.
            self.inputs = (*type(self).inputs, Field(group_by, "text"))
            self.outputs = (*self.outputs, *group_fields(self.name, group_by, self.group_labels, ci is not None))
            for j in range(len(self.group_labels)):
                for count in GROUP_COUNTS:
                    self.add_state(f"group{j}_{count}", 0, "sum")
            if ci is not None:
                self.add_state("utterance_groups", [], "cat")  # (utt_id, label index): the interval of each group
        super().__init__()

    # -- text: normalizer, case folding, tokenizer --------------------------------------

    def tokenize(self, text: str) -> Sequence:
        """Split one (normalized, case-folded) text into the tokens the rate counts; a subclass defines it.

        >>> from lightscore.metrics import CER, WER
        >>> WER().tokenize("the cat"), CER().tokenize("the cat")
        (['the', 'cat'], 'the cat')
        """
        raise NotImplementedError

    def _prepared(self, texts: Sequence[str]) -> Sequence[str]:
        """``texts`` normalized, then case-folded: what the tokenizer sees."""
        norm = self.normalizer
        if norm.name != "none" or norm.substitutions or norm.fillers:
            texts = [norm(text) for text in texts]
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

    # -- counting -----------------------------------------------------------------------

    def update(self, *, ref: Sequence[str], hyp: Sequence[str], **group: Sequence[str]) -> None:
        """Add the edit counts of each (ref, hyp) pair.

        With ``per_utterance`` (and ``ci``, ``reports``, ``report_html``) each row's
        utterance id is read from ``batch_utt_ids``: every road (the callback,
        ``__call__``, `lightscore.measure`) feeds batches with their ids
        (`lightscore.core.batch.feed`).

        Args:
            ref: Reference texts.
            hyp: Hypothesis texts, one per reference.
            **group: With ``group_by``, that input: each row's label (or number, with ``bins``).

        Raises:
            ValueError: a malformed batch (`lightscore.core.batch.check_batch`), or no
                utterance ids while per-utterance counts are kept.

        >>> from lightscore.metrics import CER, WER
        >>> m = WER(); m.update(ref=["the cat sat"], hyp=["the bat sat down"])
        >>> m.substitutions, m.deletions, m.insertions, m.hits, m.ref_len, m.error_utterances
        (1, 0, 1, 2, 3, 1)
        >>> from lightscore.core.batch import feed
        >>> m = WER(per_utterance=True); feed(m, {"ref": ["a b"], "hyp": ["a"]}, ["u1"]); m.utterance_counts
        [('u1', 0, 1, 0, 2)]
        >>> WER(per_utterance=True).update(ref=["a b"], hyp=["a"])
        Traceback (most recent call last):
        ...
        ValueError: WER: per-utterance counts need the utterance ids of every batch: feed(metric, batch, ids)
        """
        utt_id = self.batch_utt_ids
        if self.per_utterance and utt_id is None:
            raise ValueError(
                f"{self.name}: per-utterance counts need the utterance ids of every batch: feed(metric, batch, ids)"
            )
        ref = self._prepared(ref)
        hyp = self._prepared(hyp)
        totals = self._count_batch(ref, hyp, utt_id)
        if self.group_by is not None:
            self._count_groups(ref, hyp, group[self.group_by])
        self._add_totals(totals, len(ref))

    def _add_totals(self, totals: tuple[int, int, int, int, int], utterances: int) -> None:
        """Add ``(S, D, I, ref_len, utterances with an error)`` of ``utterances`` utterances to the state."""
        s, d, i, ref_len, errors = totals
        for state, added in zip(STATES, (s, d, i, ref_len - s - d, ref_len, utterances, errors)):
            setattr(self, state, getattr(self, state) + added)

    def _count_batch(
        self, ref: Sequence[str], hyp: Sequence[str], utt_ids: Sequence[str] | None
    ) -> tuple[int, int, int, int, int]:
        """``(S, D, I, ref_len, utterances with an error)`` of prepared texts; per-utterance records kept here.

        A subclass that counts otherwise (sclite's markup) overrides this, not `update`.
        """
        if self.per_utterance:
            records, totals = count_utterances(utt_ids, ref, hyp, self.tokenize, self._aligner.count)
            self.utterance_counts.extend(records)
            return totals
        return self._sum_edits(ref, hyp)

    def _sum_edits(self, ref: Sequence[str], hyp: Sequence[str]) -> tuple[int, int, int, int, int]:
        # A subclass with a cheaper way to the same tokens overrides this (WER, CER).
        return self._aligner.sum_edits(ref, hyp, self.tokenize)

    def _count_groups(self, ref: Sequence[str], hyp: Sequence[str], values: Sequence[Any]) -> None:
        """Add each label's counts from one batch of prepared texts and their group values."""
        index = [label_of(value, row, self.group_labels, self.bins) for row, value in enumerate(values)]
        for j in sorted(set(index)):
            rows = [row for row, k in enumerate(index) if k == j]
            s, d, i, ref_len, _ = self._sum_edits([ref[r] for r in rows], [hyp[r] for r in rows])
            for count, value in zip(GROUP_COUNTS, (s, d, i, ref_len, len(rows))):
                setattr(self, f"group{j}_{count}", getattr(self, f"group{j}_{count}") + value)
        if self.ci is not None:
            self.utterance_groups.extend(zip(self.batch_utt_ids, index))

    # -- the result ---------------------------------------------------------------------

    def compute(self) -> dict[str, float]:
        """The rate in percent, (S + D + I) / (H + S + D) * 100, with its counts.

        Returns:
            ``<name>``, ``_sub``, ``_del``, ``_ins``, ``_hit``, ``_ref_len``, ``_utts`` (utterances
            scored), ``_utt_err`` (percent of utterances with at least one error, sclite's
            S.Err: an empty reference with an empty hypothesis is not one), and with ``ci`` the
            bootstrap interval ``_ci_low``, ``_ci_high`` over the utterances sorted by id; then the
            extras, then the rates by group.

        Raises:
            ValueError: the references hold no tokens; with ``ci``, an utterance id scored twice.

        >>> from lightscore.metrics import CER, WER
        >>> m = WER(); m.update(ref=["the cat sat", "a dog"], hyp=["the bat sat down", "a dog"]); r = m.compute()
        >>> r["WER"], r["WER_utts"], r["WER_utt_err"]
        (40.0, 2, 50.0)
        >>> m = WER(ci=0.9, bootstrap=200)
        >>> from lightscore.core.batch import feed
        >>> feed(m, {"ref": ["a b", "c d", "e"], "hyp": ["a b", "c x", "f"]}, ["u1", "u2", "u3"])
        >>> r = m.compute(); r["WER_ci_low"] <= r["WER"] <= r["WER_ci_high"]
        True
        """
        result = self._counts()
        if self.ci is not None:
            result[f"{self.name}_ci_low"], result[f"{self.name}_ci_high"] = self._interval()
        if self.extras:
            result.update(self._extras())
        if self.group_by is not None:
            result.update(self._group_results())
        return result

    def _counts(self) -> dict[str, float]:
        """`compute` without the interval: what the alignment file and the TSV reports need."""
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
            f"{n}_utts": self.utterances,
            f"{n}_utt_err": self.error_utterances / self.utterances * 100,
        }

    def settings(self) -> str:
        """One line naming everything that changes the number: metric, case, aligner, normalizer (and CI).

        >>> from lightscore.metrics import CER, WER
        >>> CER(case="fold").settings()
        'CER case=fold aligner=unit normalize=none'
        >>> WER(ci=0.95, block_bootstrap=True).settings()
        'WER case=sensitive aligner=unit normalize=none ci=0.95 bootstrap=1000 seed=0 block_bootstrap=speaker'
        """
        parts = [self.name, *self._tokenizer_settings()]
        parts += [f"case={self.case}", f"aligner={self.aligner}", f"normalize={self.normalizer.describe()}"]
        if self.ci is not None:
            parts += [f"ci={self.ci}", f"bootstrap={self.bootstrap}", f"seed={self.seed}"]
            if self.block_bootstrap:
                parts.append("block_bootstrap=speaker")
        return " ".join(parts)

    def _tokenizer_settings(self) -> list[str]:
        return []  # TER names its model

    # -- per utterance ------------------------------------------------------------------

    def utterance_records(self) -> list[UttCounts]:
        """The per-utterance counts (merged, after ``load_state``), sorted by utterance id, with speakers.

        Returns:
            One `lightscore.analysis.breakdown.UttCounts` per utterance scored.

        Raises:
            ValueError: the metric keeps no per-utterance counts, an utterance id was scored
                twice, or ``utt2spk`` lacks a scored utterance.

        >>> from lightscore.metrics import CER, WER
        >>> m = WER(per_utterance=True)
        >>> from lightscore.core.batch import feed
        >>> feed(m, {"ref": ["a b", "c"], "hyp": ["a", "c"]}, ["spk2-u1", "spk1-u9"])
        >>> m.utterance_records()  # doctest: +NORMALIZE_WHITESPACE
        [UttCounts(utt_id='spk1-u9', speaker='spk1', sub=0, dele=0, ins=0, ref_len=1),
         UttCounts(utt_id='spk2-u1', speaker='spk2', sub=0, dele=1, ins=0, ref_len=2)]
        """
        if not self.per_utterance:
            raise ValueError(f"{self.name}: no per-utterance counts are kept; build it with per_utterance=True")
        try:
            return utterance_records(self.utterance_counts, self.utt2spk)
        except ValueError as e:
            raise ValueError(f"{self.name}: {e}") from None

    def speakers(self) -> dict[str, str]:
        """Each scored utterance's speaker: from ``utt2spk``, else the id up to its first ``-``.

        Returns:
            utterance id -> speaker id, sorted by utterance id.

        Raises:
            ValueError: as `utterance_records`.

        >>> from lightscore.metrics import CER, WER
        >>> from lightscore.core.batch import feed
        >>> m = CER(per_utterance=True); feed(m, {"ref": ["a"], "hyp": ["a"]}, ["spk3-u1"]); m.speakers()
        {'spk3-u1': 'spk3'}
        """
        return {record.utt_id: record.speaker for record in self.utterance_records()}

    # -- the interval, the extras, the rates by group -----------------------------------

    def _interval(self, records: Sequence[UttCounts] | None = None) -> tuple[float, float]:
        """The bootstrap interval over ``records`` (default: every utterance, sorted by id)."""
        from lightscore.analysis.bootstrap import bootstrap_ci  # numpy: imported when an interval is asked for

        if records is None:
            records = self.utterance_records()
        groups = [r.speaker for r in records] if self.block_bootstrap else None
        errors = [r.errors for r in records]
        ref_lens = [r.ref_len for r in records]
        return bootstrap_ci(errors, ref_lens, ci=self.ci, replicates=self.bootstrap, seed=self.seed, groups=groups)

    def _extras(self) -> dict[str, float]:
        """The `EXTRAS` asked for, in percent: jiwer 4's MER, WIL, WIP from the pooled counts, and the macro rate."""
        values = information_measures(self.substitutions, self.deletions, self.insertions, self.hits)
        if "macro" in self.extras:
            rates = [(r.sub + r.dele + r.ins) / r.ref_len for r in self.utterance_records() if r.ref_len]
            values["macro"] = sum(rates) / len(rates) if rates else math.nan
        return {f"{self.name}_{extra}": values[extra] * 100 for extra in self.extras}

    def _group_results(self) -> dict[str, float]:
        """Each label's rate and reference length; the interval under ``ci``; nothing for a label with no token."""
        result: dict[str, float] = {}
        by_label = dict(self.utterance_groups) if self.ci is not None else {}
        records = self.utterance_records() if self.ci is not None else []
        for j, label in enumerate(self.group_labels):
            ref_len = getattr(self, f"group{j}_ref_len")
            if ref_len == 0:
                continue
            key = f"{self.name}_{self.group_by}_{output_label(label)}"
            errors = sum(getattr(self, f"group{j}_{count}") for count in ("sub", "del", "ins"))
            result[key] = errors / ref_len * 100
            result[f"{key}_ref_len"] = ref_len
            if self.ci is not None:
                low, high = self._interval([r for r in records if by_label[r.utt_id] == j])
                result[f"{key}_ci_low"] = low
                result[f"{key}_ci_high"] = high
        return result

    # -- the alignment of one pair ------------------------------------------------------

    def align_tokens(self, ref: Sequence, hyp: Sequence) -> list[Pair]:
        """The alignment of two token sequences (from `tokens`) with this metric's aligner.

        >>> from lightscore.metrics import CER, WER
        >>> WER(aligner="sclite").align_tokens("x x x y".split(), "x y y".split())[0]
        ('x', None, 'D')
        """
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

    # -- artifacts ----------------------------------------------------------------------

    def writes_artifact_parts(self) -> bool:
        """True when only the alignment file is written: each rank writes the blocks of its rows."""
        return self.alignment and not self.reports and not self.report_html

    def join_artifact_parts(self, test_dir: Path, world: int) -> None:
        """Join the ranks' parts of ``<name>_alignment`` (`lightscore.metrics.error_reports.join_alignment_parts`)."""
        from lightscore.metrics.error_reports import join_alignment_parts

        join_alignment_parts(self, test_dir, world)

    def write_artifacts(self, test_dir: Path) -> None:
        """Write the alignment file and, when asked for, the breakdown reports in ``test_dir``.

        The files are those `lightscore.metrics.error_reports` lists: ``<name>_alignment``
        (unless ``alignment=False``), the TSV breakdowns with ``reports``, the HTML page with
        ``report_html``. The rows are re-read from ``self.artifact_inputs`` (set by the runner)
        and aligned with `align`. ``alignment=False`` without reports writes nothing: on a large
        corpus the alignment costs more than the scoring itself. With ``reports``,
        ``self.top_error_rows`` then holds the rows of the top-errors TSV (for the CLI to print).

        Args:
            test_dir: The test set's output folder, already created.

        Raises:
            ValueError: as `compute` and `utterance_records`.

        >>> import tempfile
        >>> from lightscore.core.runner import write_artifacts_of
        >>> d = Path(tempfile.mkdtemp())
        >>> _ = (d / "ref.scp").write_text("u1 the cat\\n"); _ = (d / "hyp.scp").write_text("u1 the bat\\n")
        >>> from lightscore.metrics import CER, WER
        >>> m = WER(); m.update(ref=["the cat"], hyp=["the bat"])
        >>> write_artifacts_of(m, {"ref": d / "ref.scp", "hyp": d / "hyp.scp"}, "dev", d)
        >>> print((d / "dev" / "wer_alignment").read_text().splitlines()[0])
        %WER 50.00 [ 1 / 2, 0 ins, 0 del, 1 sub ]
        """
        if not (self.alignment or self.reports or self.report_html):
            return
        from lightscore.metrics.error_reports import write_error_artifacts

        # Only the HTML page shows the interval: the bootstrap is not run again for the text files.
        result = self.compute() if self.report_html or self.group_by else self._counts()
        self.top_error_rows = write_error_artifacts(self, test_dir, result)
