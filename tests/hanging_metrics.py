"""A metric that never finishes, as a stuck decoder would (not part of the package).

``Hang.update`` creates ``$LIGHTSCORE_TEST_HANG_MARK/<pid>`` (so a test knows the earlier entries
are done, this one is running, and in which process), then sleeps until a signal stops it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path

from lightscore import BaseMetric, Field


class Hang(BaseMetric):
    """Counts hypothesis words, but its ``update`` never returns."""

    inputs = (Field("hyp", "text"),)
    outputs = (Field("words", "number"),)

    def __init__(self) -> None:
        self.add_state("words", 0, "sum")
        super().__init__()

    def update(self, *, hyp: Sequence[str]) -> None:
        (Path(os.environ["LIGHTSCORE_TEST_HANG_MARK"]) / str(os.getpid())).touch()
        time.sleep(3600)

    def compute(self) -> dict[str, int]:
        return {"words": self.words}
