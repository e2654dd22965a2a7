"""Metrics a user writes to the seeds (``000``, ``001``): they must keep working on every road."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from lightscore.metrics import WER


class MyWER(WER):
    """The seed's subclass: ``update(self, *, ref, hyp)``, no utterance ids in its signature."""

    def update(self, *, ref: Sequence[str], hyp: Sequence[str]) -> None:
        super().update(ref=ref, hyp=hyp)


class SeesCollect(WER):
    """Records ``collect_artifacts`` as update and write_artifacts see it."""

    def __init__(self, **options) -> None:
        super().__init__(**options)
        self.seen: list[tuple[str, bool]] = []

    def update(self, *, ref: Sequence[str], hyp: Sequence[str]) -> None:
        self.seen.append(("update", self.collect_artifacts))
        super().update(ref=ref, hyp=hyp)

    def write_artifacts(self, test_dir: Path) -> None:
        self.seen.append(("write_artifacts", self.collect_artifacts))
        super().write_artifacts(test_dir)
