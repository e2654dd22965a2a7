"""Small metrics the tests share (not part of the package)."""

from __future__ import annotations

from collections.abc import Sequence

from lightscore import BaseMetric, Field


class WordCount(BaseMetric):
    """Counts hypothesis words: the smallest metric with one "sum" state.

    >>> m = WordCount(); m.update(hyp=["a b c"]); m.compute()
    {'words': 3}
    """

    inputs = (Field("hyp", "text"),)
    outputs = (Field("words", "number"),)

    def __init__(self) -> None:
        self.add_state("words", 0, "sum")
        super().__init__()

    def update(self, *, hyp: Sequence[str]) -> None:
        self.words += sum(len(text.split()) for text in hyp)

    def compute(self) -> dict[str, int]:
        return {"words": self.words}
