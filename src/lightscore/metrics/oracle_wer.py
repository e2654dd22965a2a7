"""`OracleWER`: the WER of the best hypothesis of each utterance's n-best list, and which rank it was.

As texterrors ``--oracle-wer``: per utterance the least alignment cost among its hypotheses, summed, over the
reference words (texterrors prints the fraction; here it is a percentage, as WER). The pick is the first
hypothesis of least cost (`lightscore.text.recognition.oracle.oracle_pick`); ``picked_rank<k>`` counts the
utterances whose pick was rank k, and ``WER_rank1`` is the first hypotheses' WER beside it.

The n-best list arrives as one input per rank, ``hyp1`` (the best-ranked) to ``hyp<nbest>``, the seeds' BLEU-style
contract: ESPnet writes ``1best_recog/text`` .. ``<N>best_recog/text``, one SCP file per rank, and measure()
binds each to its input. A rank left unbound is no hypothesis; an utterance with fewer hypotheses than the others
repeats its last one (the pick is the first of the least cost, so a repeat is never picked). Costs are kept as
integer pico-units (the character-aware costs are fractions), so every split over ranks sums the same.
"""

from __future__ import annotations

from collections.abc import Sequence

from lightscore.core.contract import Field
from lightscore.core.metric import BaseMetric
from lightscore.metrics.error_rate_options import check_type
from lightscore.text.recognition.oracle import oracle_pick

__all__ = ["OracleWER"]

NANO = 10**12  # costs in pico-units: fine enough that the rounding is far below any printed digit


class OracleWER(BaseMetric):
    """Oracle WER over n-best lists (texterrors ``--oracle-wer``), with the per-rank pick histogram.

    Args:
        nbest: How many ranks the inputs may hold: ``hyp1`` (required) to ``hyp<nbest>`` (optional).
        chardiff: texterrors' character-aware costs (``--use-chardiff``: fractional costs).

    Raises:
        TypeError, ValueError: a bad option, naming it.

    >>> m = OracleWER(nbest=3)
    >>> m.update(ref=["the cat sat", "a dog"], hyp1=["the cat sad", "a dog"], hyp2=["the cat sat", "a frog"])
    >>> r = m.compute()
    >>> r["oracle_WER"], r["WER_rank1"], r["picked_rank1"], r["picked_rank2"], r["picked_rank3"]
    (0.0, 20.0, 1, 1, 0)
    """

    name = "oracle_wer"

    def __init__(self, nbest: int = 10, chardiff: bool = False) -> None:
        check_type(self.name, "nbest", nbest, (int,), "an int")
        check_type(self.name, "chardiff", chardiff, (bool,), "a bool")
        if nbest < 1:
            raise ValueError(f"{self.name}: nbest must be >= 1, got {nbest}")
        self.nbest = nbest
        self.chardiff = chardiff
        self.hyp_names = tuple(f"hyp{k}" for k in range(1, nbest + 1))
        self.inputs = (
            Field("ref", "text"),
            Field("hyp1", "text"),
            *(Field(name, "text", optional=True) for name in self.hyp_names[1:]),
        )
        self.outputs = (
            Field("oracle_WER", "number"),
            Field("WER_rank1", "number"),
            Field("oracle_errors", "number"),
            Field("oracle_ref_words", "number"),
            Field("oracle_utterances", "number"),
            *(Field(f"picked_rank{k}", "number") for k in range(1, nbest + 1)),
        )
        self.add_state("cost_nano", 0, "sum")
        self.add_state("rank1_cost_nano", 0, "sum")
        self.add_state("ref_words", 0, "sum")
        self.add_state("utterances", 0, "sum")
        for k in range(1, nbest + 1):
            self.add_state(f"picked_rank{k}", 0, "sum")
        super().__init__()

    def update(self, *, ref: Sequence[str], hyp1: Sequence[str], **more: Sequence[str]) -> None:
        """Add each utterance's best hypothesis.

        Args:
            ref: Reference texts.
            hyp1: The best-ranked hypotheses.
            **more: ``hyp2`` .. ``hyp<nbest>``: the lower ranks (any left out are no hypotheses).
        """
        ranks = [hyp1, *(more[name] for name in self.hyp_names[1:] if name in more)]
        picked = [0] * self.nbest
        cost_nano = rank1_nano = words = 0
        for row, r in enumerate(ref):
            ref_words = r.split()
            pick = oracle_pick(ref_words, [hyps[row].split() for hyps in ranks], self.chardiff)
            picked[pick.rank] += 1
            cost_nano += round(pick.cost * NANO)
            rank1_nano += round(pick.first_cost * NANO)
            words += len(ref_words)
        self.cost_nano += cost_nano
        self.rank1_cost_nano += rank1_nano
        self.ref_words += words
        self.utterances += len(ref)
        for k, count in enumerate(picked, start=1):
            setattr(self, f"picked_rank{k}", getattr(self, f"picked_rank{k}") + count)

    def compute(self) -> dict[str, float]:
        """``oracle_WER`` and ``WER_rank1`` (percent), the oracle's errors, the words, the utterances and picks.

        Raises:
            ValueError: no reference word was scored.
        """
        if self.ref_words == 0:
            raise ValueError(f"{self.name}: no reference word was scored")
        errors = self.cost_nano / NANO  # WER_rank1 takes the same steps: equal costs give equal rates
        result = {
            "oracle_WER": 100.0 * errors / self.ref_words,
            "WER_rank1": 100.0 * (self.rank1_cost_nano / NANO) / self.ref_words,
            "oracle_errors": int(errors) if self.cost_nano % NANO == 0 else errors,
            "oracle_ref_words": self.ref_words,
            "oracle_utterances": self.utterances,
        }
        result.update({f"picked_rank{k}": getattr(self, f"picked_rank{k}") for k in range(1, self.nbest + 1)})
        return result

    def settings(self) -> str:
        """The options as one line.

        >>> OracleWER(nbest=5).settings()
        'oracle_wer nbest=5 chardiff=False'
        """
        return f"{self.name} nbest={self.nbest} chardiff={self.chardiff}"
