"""`TranslationMetric`, what `BLEU`, `ChrF` and `TranslationEditRate` share: references, state, CI, records.

The inputs are ``hyp``, ``ref`` and, with ``references=N``, the optional
``ref2`` .. ``refN`` (the seeds' BLEU-style contract). An optional reference
left unbound is no reference (sacrebleu's None); an empty value is an empty
reference, as sacrebleu reads an empty line of a reference file. The state is sacrebleu's sufficient statistics as
integer "sum" states plus the number of segments with k references (for the
signature's ``nrefs``), so every merge is exact. ``per_utterance`` keeps each
segment's statistics (a "cat" state) for sentence scores, the worst segments
and the bootstrap interval (``ci``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from lightscore._extras import require
from lightscore.core.contract import Field
from lightscore.core.metric import BaseMetric
from lightscore.metrics.error_rate_options import check_type

__all__ = ["TranslationMetric", "check_unknown"]


def check_unknown(owner: str, unknown: dict[str, Any], known: Sequence[str]) -> None:
    """Raise TypeError naming the metric and the first option it does not know.

    >>> check_unknown("BLEU", {"smoothing": "exp"}, ["smooth_method"])
    Traceback (most recent call last):
    ...
    TypeError: BLEU: unknown option 'smoothing' (known: smooth_method)
    """
    if unknown:
        raise TypeError(f"{owner}: unknown option {next(iter(unknown))!r} (known: {', '.join(known)})")


class TranslationMetric(BaseMetric):
    """The shared core; a subclass sets ``name``, `stat_names`, `_segment_stats`, `_score` and `signature`.

    Args:
        references: How many references each segment may have: inputs ``ref`` then optional
            ``ref2`` .. ``ref<N>`` (default 1).
        per_utterance: Keep every segment's statistics (needs utterance ids, which every road feeds).
        ci: Coverage of a percentile bootstrap interval of the corpus score (e.g. 0.95), over the
            segments sorted by utterance id: ``<name>_ci_low``, ``<name>_ci_high``. Forces ``per_utterance``.
        bootstrap: Bootstrap replicates for ``ci``.
        seed: Seed of the bootstrap.

    Raises:
        TypeError, ValueError: an option of the wrong type or out of range, naming metric and option.
    """

    name: ClassVar[str] = "MT"
    stat_names: tuple[str, ...] = ()

    def __init__(
        self,
        references: int = 1,
        per_utterance: bool = False,
        ci: float | None = None,
        bootstrap: int = 1000,
        seed: int = 0,
    ) -> None:
        require(type(self).__name__, "mt")
        check_type(self.name, "references", references, (int,), "an int")
        if references < 1:
            raise ValueError(f"{self.name}: references must be >= 1, got {references}")
        check_type(self.name, "per_utterance", per_utterance, (bool,), "a bool")
        check_type(self.name, "ci", ci, (float, type(None)), "a float such as 0.95, or None")
        if ci is not None and not 0 < ci < 1:
            raise ValueError(f"{self.name}: ci {ci!r} is not between 0 and 1 (e.g. 0.95)")
        check_type(self.name, "bootstrap", bootstrap, (int,), "an int")
        check_type(self.name, "seed", seed, (int,), "an int")
        if bootstrap < 1 or seed < 0:
            raise ValueError(f"{self.name}: bootstrap must be >= 1 and seed >= 0, got {bootstrap} and {seed}")
        self.references = references
        self.ci = ci
        self.bootstrap = bootstrap
        self.seed = seed
        self.per_utterance = per_utterance or ci is not None
        self.ref_names = ("ref", *(f"ref{k}" for k in range(2, references + 1)))
        self.inputs = (
            Field("hyp", "text"),
            Field("ref", "text"),
            *(Field(n, "text", optional=True) for n in self.ref_names[1:]),
        )
        self.outputs = self._outputs()
        if ci is not None:
            self.outputs += (Field(f"{self.name}_ci_low", "number"), Field(f"{self.name}_ci_high", "number"))
        for stat in self.stat_names:
            self.add_state(stat, 0, "sum")
        for k in range(1, references + 1):
            self.add_state(f"segments_{k}ref", 0, "sum")
        if self.per_utterance:
            self.add_state("segment_stats", [], "cat")
        super().__init__()

    # -- what a subclass implements ------------------------------------------------

    def _outputs(self) -> tuple[Field, ...]:
        raise NotImplementedError

    def _segment_stats(self, hyp: list[str], refs: list[list[str]], present: np.ndarray) -> np.ndarray:
        """int64 ``(segments, len(stat_names))`` for one batch."""
        raise NotImplementedError

    def _score(self, stats: Sequence[Any]) -> dict[str, float]:
        """The result from summed statistics (`stat_names` order)."""
        raise NotImplementedError

    def signature(self) -> str:
        """sacrebleu's signature string of this metric's settings."""
        raise NotImplementedError

    # -- the road ------------------------------------------------------------------

    def update(self, *, hyp: Sequence[str], ref: Sequence[str], **more_refs: Sequence[str | None]) -> None:
        """Add the statistics of each segment: hypothesis ``hyp`` against ``ref`` (and ``ref2`` ..).

        Raises:
            ValueError: ``per_utterance`` without the batch's utterance ids.
        """
        # an unbound optional reference is no reference at all: it is left out, not counted as empty
        refs = [list(s) for s in (ref, *(more_refs.get(name) for name in self.ref_names[1:])) if s is not None]
        present = np.ones((len(refs), len(hyp)), dtype=bool)
        stats = self._segment_stats(list(hyp), refs, present)
        self._accumulate(stats)
        counts = np.bincount(present.sum(axis=0), minlength=self.references + 1)
        for k in range(1, self.references + 1):
            setattr(self, f"segments_{k}ref", getattr(self, f"segments_{k}ref") + int(counts[k]))
        if self.per_utterance:
            ids = self.batch_utt_ids
            if ids is None:
                raise ValueError(f"{self.name}: per-utterance statistics need the utterance ids of every batch")
            self.segment_stats.extend([utt, *row] for utt, row in zip(ids, stats.tolist()))

    def _accumulate(self, stats: np.ndarray) -> None:
        """Add a batch's segment statistics to the sum states."""
        for stat, total in zip(self.stat_names, stats.sum(axis=0).tolist()):
            setattr(self, stat, getattr(self, stat) + total)

    def compute(self) -> dict[str, float]:
        """The corpus score from the summed statistics (and the bootstrap interval with ``ci``).

        Raises:
            ValueError: nothing was scored.
        """
        if self.segments == 0:
            raise ValueError(f"{self.name}: no segment was scored")
        result = self._score([getattr(self, stat) for stat in self.stat_names])
        result[f"{self.name}_segments"] = self.segments
        if self.ci is not None:
            result[f"{self.name}_ci_low"], result[f"{self.name}_ci_high"] = self._interval()
        return result

    @property
    def segments(self) -> int:
        """Segments scored (the sum over reference counts)."""
        return sum(getattr(self, f"segments_{k}ref") for k in range(1, self.references + 1))

    def nrefs(self) -> int | str:
        """The signature's ``nrefs``: references per segment, ``"var"`` when it varies (before any data: as declared).

        >>> from lightscore.metrics.translation import BLEU
        >>> m = BLEU(references=2); m.nrefs()
        2
        >>> m.update(hyp=["a"], ref=["a"], ref2=["a"]); m.update(hyp=["b"], ref=["b"]); m.nrefs()
        'var'
        """
        seen = [k for k in range(1, self.references + 1) if getattr(self, f"segments_{k}ref")]
        if not seen:
            return self.references
        return seen[0] if len(seen) == 1 else "var"

    def settings(self) -> str:
        """The metric's name and sacrebleu's signature (and the interval's settings with ``ci``)."""
        parts = [self.name, self.signature()]
        if self.ci is not None:
            parts.append(f"ci={self.ci} bootstrap={self.bootstrap} seed={self.seed}")
        return " ".join(parts)

    # -- per segment ---------------------------------------------------------------

    def _rows(self) -> list[list]:
        if not self.per_utterance:
            raise ValueError(f"{self.name}: no per-segment statistics are kept; build it with per_utterance=True")
        rows = sorted(self.segment_stats, key=lambda row: row[0])
        for a, b in zip(rows, rows[1:]):
            if a[0] == b[0]:
                raise ValueError(f"{self.name}: utterance {a[0]!r} was scored twice")
        return rows

    def sentence_score(self, stats: Sequence[int]) -> float:
        """One segment's score from its statistics (BLEU overrides it: sentence BLEU uses effective order)."""
        return self._score(list(stats))[self.name]

    def sacrebleu_rows(self) -> list[list]:
        """Each segment's statistics as sacrebleu's significance tests take them, sorted by utterance id."""
        return [row[1:] for row in self._rows()]

    def stats_score(self, stats: Sequence[Any]) -> float:
        """The corpus score of summed `sacrebleu_rows` (the ``score`` of `lightscore.analysis.mt_significance`)."""
        return self._score(stats)[self.name]

    def utterance_scores(self) -> dict[str, float]:
        """Each scored utterance's sentence score, sorted by utterance id (needs ``per_utterance``)."""
        return {row[0]: self.sentence_score(row[1:]) for row in self._rows()}

    def _interval(self) -> tuple[float, float]:
        from lightscore.analysis.bootstrap import percentile_interval, resampled_sums

        columns = np.array([row[1:] for row in self._rows()], dtype=np.float64).T
        sums = resampled_sums(columns, None, self.ci, self.bootstrap, self.seed)
        scores = np.array([self._score([int(v) for v in sums[:, i]])[self.name] for i in range(self.bootstrap)])
        return percentile_interval(scores, self.ci)

    def row_sample(self, row: dict[str, Any]) -> tuple[int, str, str, str] | None:
        """The worst-segment log's row: points lost (100 - sentence score; TER: edits), ref, hyp, the score."""
        refs = [row.get(name) for name in self.ref_names]
        present = np.array([[r is not None] for r in refs], dtype=bool)
        stats = self._segment_stats([row["hyp"]], [[r or ""] for r in refs], present)[0]
        score = self.sentence_score(stats.tolist())
        return self._badness(score, stats), row["ref"], row["hyp"], f"{self.name} {score:.2f}"

    def _badness(self, score: float, stats: np.ndarray) -> int:
        return round(100 - score)
