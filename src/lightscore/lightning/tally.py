"""One rank's tally of one evaluation dataloader in `MetricCallback`, and what it sends at the epoch end.

Per (stage, dataloader) a rank counts the rows it has seen (to drop the
sampler's padding and to check the step returned one row per sample), keeps
the metrics' state while another dataloader is scored, the rows to save and
the worst utterances to log, or the error that stopped it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lightscore.lightning.samples import WorstSamples
from lightscore.scp.lines import check_name

__all__ = ["SavedRow", "Tally", "check_test_name", "epoch_payload", "merged_rows"]

SavedRow = tuple[str, dict[str, str]]  # (utterance id, column -> text) of a row save_dir writes


@dataclass
class Tally:
    """What this rank has scored of one dataloader in the current epoch.

    The metric instances hold the state of the dataloader being scored now;
    the others' states wait in ``states`` (dataloaders run one after another,
    so states move at most once per dataloader, and no metric is ever copied).
    """

    real_rows: int | None
    rows: list[SavedRow] | None
    expected: tuple[int, int] | None = None  # (samples, batches) of a full epoch on this rank, when known
    seen: int = 0
    batches: int = 0
    states: dict[str, dict[str, Any]] | None = None
    error: BaseException | None = None
    samples: dict[str, WorstSamples] | None = None

    def check_rows(self, step: str) -> None:
        """Fail when a full epoch's steps returned more or fewer rows than the sampler delivered."""
        if self.error is None and self.expected is not None and self.batches == self.expected[1]:
            if self.seen != self.expected[0]:
                self.error = ValueError(
                    f"{step} returned {self.seen} rows over the epoch, but the sampler delivered "
                    f"{self.expected[0]} samples to this rank: return exactly one row per sample of the batch "
                    "(rows past a rank's share are taken for padding, so the counts would differ between devices)"
                )

    def take(self, n: int) -> int:
        """Count ``n`` more rows; return how many of them are real (the rest is padding)."""
        keep = n if self.real_rows is None else max(0, min(n, self.real_rows - self.seen))
        self.seen += n
        return keep


def epoch_payload(tally: Tally) -> dict[str, Any]:
    """What a rank sends at the epoch end for one dataloader."""
    samples = {key: keeper.samples() for key, keeper in (tally.samples or {}).items()}
    return {"states": tally.states, "rows": tally.rows, "samples": samples}


def merged_rows(payloads: list[dict[str, Any]], where: str) -> list[SavedRow]:
    """All ranks' saved rows, sorted by utterance id; an id seen twice is a ValueError (measure() would refuse it)."""
    rows = sorted((row for p in payloads for row in p["rows"] or ()), key=lambda row: row[0])
    twice = next((a[0] for a, b in zip(rows, rows[1:]) if a[0] == b[0]), None)
    if twice is not None:
        raise ValueError(
            f"MetricCallback: {where} returned the utterance id {twice!r} more than once, so its rows cannot be "
            "saved (the SCP files would score it twice); ids must be unique across ranks and batches"
        )
    return rows


def check_test_name(name: str) -> str:
    # The same rule as measure()'s test sets: the saved folder must be one measure() can read.
    if not isinstance(name, str):
        raise ValueError(f"MetricCallback: test name {name!r} is not a plain token")
    return check_name(name, "test name", "MetricCallback")
