"""The epoch end of `MetricCallback`: one gather, then merge, save, compute and log on every rank.

`EpochEnd` is the half of `lightscore.lightning.MetricCallback` that runs when
an evaluation epoch ends (and the checks that every rank gets there). Every
rank makes the same one collective (`lightscore.core.distributed.gather_outcomes`)
with its states, rows and worst utterances, or the error that stopped it, so
every rank logs the same numbers or raises the same error.
"""

from __future__ import annotations

from typing import Any

import lightning.pytorch as pl
from lightning.pytorch.utilities import rank_zero_warn

from lightscore.core.distributed import gather_objects, gather_outcomes
from lightscore.core.merge import merged_result
from lightscore.io.atomic import check_writable
from lightscore.lightning.padding import eval_batches
from lightscore.lightning.samples import log_samples, worst
from lightscore.lightning.tally import SavedRow, epoch_payload, merged_rows
from lightscore.report.scoreboard import MACRO, POOLED, macro_average, scoreboard_rows, write_scoreboard
from lightscore.scp.files import write_scp

__all__ = ["STEP", "EpochEnd", "no_batch_message"]

STEP = {"validate": "validation_step", "test": "test_step"}


def no_batch_message(stage: str, ranks: list[int], world: int) -> str:
    """Why nothing can be scored when the dataloaders of ``stage`` give ``ranks`` (of ``world``) no batch.

    >>> no_batch_message("validate", [0], 1)  # doctest: +ELLIPSIS
    "MetricCallback: the validate dataloader(s) have no batch (an empty dataset?): nothing is scored ... stages"
    """
    leave = f"leave {stage!r} out of the callback's stages"
    if len(ranks) == world:
        where = "have no batch" if world == 1 else f"have no batch on any of the {world} ranks"
        return (
            f"MetricCallback: the {stage} dataloader(s) {where} (an empty dataset?): nothing is scored or logged; "
            f"give them data, or {leave}"
        )
    return (
        f"MetricCallback: the {stage} dataloader(s) have no batch on rank(s) {', '.join(map(str, ranks))} of {world}: "
        "Lightning skips the whole evaluation loop on such a rank, hooks included, so the other ranks would wait "
        f"for it at the epoch end; give every rank at least one batch (a DistributedSampler does), or {leave}"
    )


class EpochEnd:
    """What `MetricCallback` does at an evaluation epoch's end, and the checks that every rank gets there.

    A mix-in: it reads the callback's options (``metrics``, ``prefix``,
    ``save_dir``, ``log_samples``, ...) and its per-epoch tallies.
    """

    def check_every_rank_validates(self, trainer: pl.Trainer) -> None:
        """When training starts (every rank, in step): refuse validation dataloaders some rank has no batch of.

        Such a rank skips validation (Lightning skips the loop), and the others
        would wait for it in the epoch-end gather; one small gather here makes
        every rank raise the same error instead.
        """
        batches = eval_batches(trainer, "validate") if "validate" in self.stages else None
        if batches is None:
            return  # no validation set up yet (or none at all): nothing to check
        counts = gather_objects(sum(batches))
        empty = [rank for rank, n in enumerate(counts) if n == 0]
        if empty:
            raise ValueError(no_batch_message("validate", empty, len(counts)))

    def join_if_skipped(self, stage: str, trainer: pl.Trainer) -> None:
        """When ``validate()`` / ``test()`` ends on a rank Lightning skipped (no batch): join the gather with an error.

        The other ranks wait in their epoch-end gather; this rank's error then
        reaches them, and every rank raises it (on one device it is raised at once).
        """
        if self._skips(stage, trainer) or stage in self._ran:
            return
        batches = eval_batches(trainer, stage)
        if batches is None or sum(batches) > 0:
            return
        [gathered] = gather_outcomes([ValueError(no_batch_message(stage, [trainer.global_rank], trainer.world_size))])
        if all(isinstance(p, BaseException) for p in gathered):  # every rank skipped: the dataset is empty
            raise ValueError(no_batch_message(stage, list(range(len(gathered))), len(gathered)))
        raise next(p for p in gathered if isinstance(p, BaseException))

    def _finish(self, stage: str, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        """On every rank: gather once, then save, log the worst utterances, merge, compute and log."""
        if self._skips(stage, trainer):
            return
        self._park()
        tallies = self._tallies.pop(stage, {})
        for tally in tallies.values():
            tally.check_rows(STEP[stage])
        failed = next((t.error for t in tallies.values() if t.error is not None), None)
        if failed is None and self._saves(stage) and trainer.is_global_zero:
            failed = self._unwritable_save_dir()  # found before the gather, so every rank raises it
        mine = failed or {idx: epoch_payload(t) for idx, t in tallies.items()}
        # The epoch's only collective, also on a rank with no batch: every rank's states and rows, or its error.
        [gathered] = gather_outcomes([mine])
        for payload in gathered:
            if isinstance(payload, BaseException):
                raise payload
        seen = sorted({idx for payload in gathered for idx in payload})
        count = max(len(self._loaders.get(stage, [])), seen[-1] + 1 if seen else 0)
        # The same on every rank: a dataloader no rank got a batch of has nothing to log.
        problems = [
            f"the {stage} dataloader {idx} gave no batch on any rank (an empty dataset?), so it has no result"
            for idx in range(count)
            if idx not in seen
        ]
        results: dict[str, float] = {}
        per_loader: dict[str, dict[str, dict[str, float]]] = {name: {} for name in self.metrics}
        for idx in seen:
            payloads = [payload[idx] for payload in gathered if idx in payload]
            suffix = f"/dataloader_idx_{idx}" if count > 1 else ""
            self._save_rows(stage, trainer, idx, count, payloads)
            if self.log_samples:
                self._log_worst(stage, trainer, payloads, suffix)
            for name, metric in self.metrics.items():
                try:
                    values = merged_result(metric, [p["states"][name] for p in payloads])
                except ValueError as e:
                    problems.append(f"{name} on {stage} dataloader {idx}: {e}")
                    continue
                per_loader[name][self._test_name(stage, idx, count)] = values
                results.update({f"{self.prefix[stage]}{key}{suffix}": value for key, value in values.items()})
        if len(seen) > 1:
            results.update(self._combined(stage, trainer, gathered, seen, per_loader, problems))
        self.results[stage] = results
        log_results(pl_module, results)
        if problems:
            raise ValueError("MetricCallback: " + "; ".join(problems))

    def _combined(
        self,
        stage: str,
        trainer: pl.Trainer,
        gathered: list[dict],
        seen: list[int],
        per_loader: dict[str, dict[str, dict[str, float]]],
        problems: list[str],
    ) -> dict[str, float]:
        """With several dataloaders: each metric pooled over all of them (merged states) and their macro average.

        Logged as ``<prefix><output>/pooled`` and ``<prefix><output>/macro``; with ``save_dir``
        rank 0 also writes ``<save_dir>/<stage>_scoreboard.{md,csv,json}`` (docs/scoreboard.md).
        """
        combined: dict[str, float] = {}
        pooled_by_metric: dict[str, dict[str, float]] = {}
        for name, metric in self.metrics.items():
            states = [payload[idx]["states"][name] for idx in seen for payload in gathered if idx in payload]
            try:
                pooled_by_metric[name] = merged_result(metric, states)
            except ValueError as e:
                problems.append(f"{name} pooled over the {stage} dataloaders: {e}")
                continue
            rows = {POOLED: pooled_by_metric[name], MACRO: macro_average(per_loader[name])}
            for row, values in rows.items():
                combined.update({f"{self.prefix[stage]}{key}/{row}": value for key, value in values.items()})
        if self._saves(stage) and trainer.is_global_zero:
            tests: dict[str, dict[str, Any]] = {}  # test set -> every metric's results on it
            for results in per_loader.values():
                for test, values in results.items():
                    tests.setdefault(test, {}).update(values)
            pooled = {k: v for values in pooled_by_metric.values() for k, v in values.items()}
            write_scoreboard(self.save_dir / f"{stage}_scoreboard", scoreboard_rows(tests, pooled))
        return combined

    def _save_rows(self, stage: str, trainer: pl.Trainer, idx: int, count: int, payloads: list[dict]) -> None:
        """With ``save_dir``: merge every rank's rows (checked on every rank, so all raise alike); rank 0 writes."""
        if not self._saves(stage):
            return
        rows = merged_rows(payloads, f"the {stage} dataloader {idx}")
        if trainer.is_global_zero:
            self._save(self._test_name(stage, idx, count), rows)

    def _unwritable_save_dir(self) -> Exception | None:
        """An OSError naming ``save_dir`` when rank 0 cannot write into it, else None."""
        try:
            self.save_dir.mkdir(parents=True, exist_ok=True)
            check_writable(self.save_dir)
        except OSError as e:
            return OSError(f"MetricCallback: rank 0 cannot write the scored rows into save_dir {self.save_dir}: {e}")
        return None

    def _log_worst(self, stage: str, trainer: pl.Trainer, payloads: list[dict[str, Any]], suffix: str) -> None:
        """Log each sampled metric's worst utterances of all ranks, once, from rank 0."""
        for key in self._sampled():
            rows = worst((p["samples"][key] for p in payloads), self.log_samples)
            name = getattr(self.metrics[key], "name", key)
            tag = f"{self.prefix[stage]}{name}_worst{suffix}"
            self.samples[tag] = rows
            if trainer.is_global_zero:
                unknown = log_samples(trainer.loggers, tag, rows, trainer.current_epoch, trainer.global_step)
                names = sorted({type(logger).__name__ for logger in unknown} - self._warned_loggers)
                if names:
                    self._warned_loggers.update(names)
                    rank_zero_warn(f"MetricCallback: log_samples does not know the logger(s) {', '.join(names)}")

    def _test_name(self, stage: str, idx: int, count: int) -> str:
        names = self.test_names.get(stage)
        if names is not None and idx < len(names):
            return names[idx]
        return stage if count == 1 else f"{stage}_dataloader_idx_{idx}"

    def _save(self, test_name: str, rows: list[SavedRow]) -> None:
        """Write one SCP file per saved input under ``save_dir / test_name``, atomically."""
        test_dir = self.save_dir / test_name
        for name in sorted({n for _, values in rows for n in values}):
            write_scp(test_dir / f"{name}.scp", ((utt_id, v[name]) for utt_id, v in rows if name in v))


def log_results(pl_module: pl.LightningModule, results: dict[str, float]) -> None:
    """Log each result on this rank; float64 keeps the exact value a float32 tensor would round."""
    import torch

    for name, value in results.items():
        value = torch.tensor(value, dtype=torch.float64)
        pl_module.log(name, value, sync_dist=False, batch_size=1, add_dataloader_idx=False)
