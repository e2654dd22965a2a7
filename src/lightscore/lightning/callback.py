"""`MetricCallback`: lightscore metrics in Lightning validation and test, exact on any number of devices.

Per batch, each rank feeds the rows its ``validation_step`` / ``test_step``
returned to the metrics (`lightscore.core.metric.feed`); each dataloader's state is
kept as a state dict, never as a copy of a metric. At the epoch end, one
gather hands every rank all ranks' states (and, with ``save_dir``, the rows to
save), or the error that stopped a rank; each rank merges them through
`lightscore.core.metric.merged_result`, and logs the same numbers, so
``ModelCheckpoint(monitor="val/WER")`` works on every rank.

Lightning's default ``DistributedSampler`` pads each rank's share by repeating
samples; the callback drops those repeats, so every utterance counts once (see
`rows_to_score` and docs/callback.md).

>>> import lightning.pytorch as pl
>>> from lightscore.metrics import CER, WER
>>> callback = MetricCallback([WER(), CER()])
>>> trainer = pl.Trainer(callbacks=[callback], logger=False, enable_progress_bar=False)
>>> callback.results
{}
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import lightning.pytorch as pl
from lightning.pytorch.callbacks import Callback
from lightning.pytorch.utilities import rank_zero_warn
from lightning.pytorch.utilities.warnings import PossibleUserWarning

from lightscore.core.batch import check_lengths, feed
from lightscore.core.distributed import gather_outcomes
from lightscore.core.merge import merged_result
from lightscore.core.metric import BaseMetric
from lightscore.io.atomic import check_writable
from lightscore.lightning.args import (
    STAGES,
    as_named,
    check_count,
    check_stages,
    check_test_names,
    input_keys,
    prefixes,
)
from lightscore.lightning.padding import eval_loaders, expected_rows, inexact_cause, rows_to_score
from lightscore.lightning.samples import Sample, WorstSamples, log_samples, worst
from lightscore.lightning.tally import Row, Tally, epoch_payload, merged_rows
from lightscore.scp.files import check_utt_id, write_scp

__all__ = ["MetricCallback", "inexact_cause", "rows_to_score"]

STEP = {"validate": "validation_step", "test": "test_step"}


# -- the callback --------------------------------------------------------------------


class MetricCallback(Callback):
    """Score the outputs of ``validation_step`` / ``test_step`` with lightscore metrics and log them.

    Args:
        metrics: One `BaseMetric`, a list of them, or a dict of name -> metric.
            Their output names must differ (give a second WER its own callback
            and ``prefix``).
        inputs: Declared input name -> key of the dict the step returns
            (default: the same name).
        prefix: Put before every logged name: one string for all stages, or a
            dict stage -> prefix (default ``val/`` and ``test/``).
        stages: Which of "validate" and "test" to score.
        save_dir: Rank 0 writes ``<save_dir>/<test_name>/<input>.scp`` (text
            inputs, sorted by utterance id) at each scored epoch end.
        save_stages: Which scored stages write to ``save_dir`` (default: all
            of ``stages``); ``("test",)`` keeps the per-epoch validation text out.
        utt_id_key: Key of the step's utterance ids, read when saving.
        test_names: Stage -> test name, or list of names by ``dataloader_idx``
            (default: the stage name; ``<stage>_dataloader_idx_<k>`` with
            several dataloaders).
        log_samples: At each epoch end, log the N utterances with the most
            errors of every error rate (reference, hypothesis, alignment) to
            every logger of the trainer (`lightscore.lightning.samples`); needs the
            step's utterance ids. 0 (default) logs none.

    ``results`` holds the last results of each stage by logged name, for
    example ``results["validate"]["val/WER"]``.

    >>> from lightscore.metrics import WER
    >>> MetricCallback(WER(), inputs={"hyp": "prediction"}).inputs
    {'ref': 'ref', 'hyp': 'prediction'}
    """

    def __init__(
        self,
        metrics: BaseMetric | Sequence[BaseMetric] | Mapping[str, BaseMetric],
        *,
        inputs: Mapping[str, str] | None = None,
        prefix: str | Mapping[str, str] | None = None,
        stages: Sequence[str] = STAGES,
        save_dir: str | Path | None = None,
        save_stages: Sequence[str] | None = None,
        utt_id_key: str = "utt_id",
        test_names: Mapping[str, str | Sequence[str]] | None = None,
        log_samples: int = 0,
    ) -> None:
        self.metrics = as_named(metrics)
        self.inputs = input_keys(self.metrics, inputs or {})
        self.stages = check_stages(stages)
        self.prefix = prefixes(prefix)
        self.save_dir = None if save_dir is None else Path(save_dir)
        self.save_stages = self.stages if save_stages is None else check_stages(save_stages)
        self.utt_id_key = utt_id_key
        self.test_names = check_test_names(test_names)
        self.log_samples = check_count(log_samples)
        self.results: dict[str, dict[str, float]] = {}
        self.samples: dict[str, list[Sample]] = {}  # the last worst-utterance rows, by logged tag
        self._warned_loggers: set[str] = set()
        self._tallies: dict[str, dict[int, Tally]] = {}
        self._loaders: dict[str, list[Any]] = {}
        self._warned: set[tuple[str, int]] = set()
        self._held: tuple[str, int] | None = None  # the (stage, dataloader) whose state the metrics hold

    # -- hooks -------------------------------------------------------------------------

    def setup(self, trainer: pl.Trainer, pl_module: pl.LightningModule, stage: str) -> None:
        """When fit, validate or test begins: prepare the run for the names logged here.

        Lightning's ``sync_dist`` advice is silenced for them (every rank logs the
        same, already merged numbers, so ``sync_dist=True`` would only add a
        collective), and each metric's settings (aligner, normalizer and its
        version, case: ``metric.settings()``) are logged as hyper-parameters
        ``lightscore/<metric>``, so numbers made with different settings are
        never taken for comparable.
        """
        names = "|".join(re.escape(p + f.name) for p in self.prefix.values() for f in self._outputs())
        pattern = rf"It is recommended to use `self\.log\('(?:{names})(?:/dataloader_idx_\d+)?'"
        warnings.filterwarnings("ignore", message=pattern, category=PossibleUserWarning)
        for logger in trainer.loggers:
            logger.log_hyperparams(self.settings)

    @property
    def settings(self) -> dict[str, str]:
        """``lightscore/<metric>`` -> the metric's settings line, for the metrics that have one (error rates).

        >>> from lightscore.metrics import WER
        >>> MetricCallback({"wer": WER(aligner="sclite", case="fold")}).settings
        {'lightscore/wer': 'WER case=fold aligner=sclite normalize=none'}
        """
        return {
            f"lightscore/{name}": metric.settings()
            for name, metric in self.metrics.items()
            if callable(getattr(metric, "settings", None))
        }

    def on_validation_epoch_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        """When a validation epoch begins (not the sanity check): start empty tallies."""
        self._start("validate", trainer)

    def on_test_epoch_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        """When a test epoch begins: start empty tallies."""
        self._start("test", trainer)

    def on_validation_batch_end(
        self,
        trainer: pl.Trainer,
        pl_module: pl.LightningModule,
        outputs: Any,
        batch: Any,
        batch_idx: int,
        dataloader_idx: int = 0,
    ) -> None:
        """After each validation batch (not the sanity check's): update the metrics with its real rows."""
        self._update("validate", trainer, outputs, batch_idx, dataloader_idx)

    def on_test_batch_end(
        self,
        trainer: pl.Trainer,
        pl_module: pl.LightningModule,
        outputs: Any,
        batch: Any,
        batch_idx: int,
        dataloader_idx: int = 0,
    ) -> None:
        """After each test batch: update the metrics with its real rows."""
        self._update("test", trainer, outputs, batch_idx, dataloader_idx)

    def on_validation_epoch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        """When a validation epoch ends, on every rank: gather once, merge, save, compute and log."""
        self._finish("validate", trainer, pl_module)

    def on_test_epoch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        """When a test epoch ends, on every rank: gather once, merge, save, compute and log."""
        self._finish("test", trainer, pl_module)

    # -- per stage ---------------------------------------------------------------------

    def _skips(self, stage: str, trainer: pl.Trainer) -> bool:
        return stage not in self.stages or trainer.sanity_checking

    def _saves(self, stage: str) -> bool:
        return self.save_dir is not None and stage in self.stages and stage in self.save_stages

    def _start(self, stage: str, trainer: pl.Trainer) -> None:
        if self._skips(stage, trainer):
            return
        self._tallies[stage] = {}
        if self._held is not None and self._held[0] == stage:
            self._held = None  # that state belonged to the last epoch; the first batch resets the metrics
        self._loaders[stage] = eval_loaders(trainer, stage)
        names = self.test_names.get(stage)
        if self._saves(stage) and names is not None and len(names) < len(self._loaders[stage]):
            raise ValueError(
                f"MetricCallback: test_names[{stage!r}] names {len(names)} dataloader(s), "
                f"but {stage} has {len(self._loaders[stage])}"
            )

    def _tally(self, stage: str, trainer: pl.Trainer, dataloader_idx: int) -> Tally:
        """This rank's tally of one dataloader, made at its first batch (warning once if it is not exact)."""
        tallies = self._tallies.setdefault(stage, {})
        if dataloader_idx not in tallies:
            loaders = self._loaders.get(stage, [])
            loader = loaders[dataloader_idx] if dataloader_idx < len(loaders) else None
            self._warn_inexact(stage, dataloader_idx, loader, trainer.world_size)
            tallies[dataloader_idx] = Tally(
                real_rows=rows_to_score(loader),
                rows=[] if self._saves(stage) else None,
                expected=expected_rows(loader),
                samples={k: WorstSamples(self.log_samples) for k in self._sampled()} if self.log_samples else None,
            )
        self._hold(stage, dataloader_idx)
        return tallies[dataloader_idx]

    def _hold(self, stage: str, dataloader_idx: int) -> None:
        """Make the metrics hold the state of (stage, dataloader), parking the state they held."""
        key = (stage, dataloader_idx)
        if self._held == key:
            return
        self._park()
        tally = self._tallies[stage][dataloader_idx]
        for name, metric in self.metrics.items():
            metric.reset() if tally.states is None else metric.load_state(tally.states[name])
        tally.states = None
        self._held = key

    def _park(self) -> None:
        """Move the held state out of the metrics into its tally."""
        if self._held is not None:
            stage, idx = self._held
            held = self._tallies.get(stage, {}).get(idx)
            if held is not None:
                held.states = {name: metric.state() for name, metric in self.metrics.items()}
            self._held = None

    def _warn_inexact(self, stage: str, dataloader_idx: int, loader: Any, world_size: int) -> None:
        cause = inexact_cause(loader, world_size)
        if cause is None or (stage, dataloader_idx) in self._warned:
            return
        self._warned.add((stage, dataloader_idx))
        rank_zero_warn(
            f"MetricCallback: the {stage} dataloader {dataloader_idx} may not score every utterance exactly once "
            f"on {world_size} devices: {cause}.",
            category=PossibleUserWarning,
        )

    def _update(self, stage: str, trainer: pl.Trainer, outputs: Any, batch_idx: int, dataloader_idx: int) -> None:
        if self._skips(stage, trainer):
            return
        tally = self._tally(stage, trainer, dataloader_idx)
        tally.batches += 1
        if tally.error is not None:
            return  # this dataloader already failed on this rank; the epoch end reports it
        try:
            self._feed(stage, tally, outputs)
        except Exception as e:
            where = f"rank {trainer.global_rank}, {stage} dataloader {dataloader_idx}, batch {batch_idx}"
            tally.error = _in_context(e, f"MetricCallback: {where}")
            if trainer.world_size == 1:
                raise tally.error from e
            # Several ranks: carry the error to the epoch-end gather, so every rank raises it (never a hang).

    def _feed(self, stage: str, tally: Tally, outputs: Any) -> None:
        """Update every metric with the real rows of one step's outputs (and keep them when saving)."""
        columns = self._columns(stage, outputs)
        # The rows are counted before update() sees them (to drop the sampler's padding), so their
        # lengths are checked here, with the one length check update() also runs.
        keep = tally.take(check_lengths({self.inputs[n]: v for n, v in columns.items()}, f"{STEP[stage]} columns"))
        if keep == 0:
            return
        ids = self._ids(stage, outputs, keep)
        where = f"{STEP[stage]} output"
        for metric_key, metric in self.metrics.items():
            names = [f.name for f in metric.inputs if f.name in columns]
            try:
                feed(metric, {name: columns[name][:keep] for name in names}, ids, where)
            except Exception as e:
                raise _in_context(e, f"metric {metric_key!r}") from e
        if tally.rows is not None:
            tally.rows.extend(self._rows(stage, ids, columns, keep))
        if tally.samples is not None:
            self._sample(stage, tally.samples, ids, columns, keep)

    def _sampled(self) -> list[str]:
        """The metrics whose worst utterances are logged: those that show a row (`BaseMetric.row_sample`)."""
        return [key for key, metric in self.metrics.items() if type(metric).row_sample is not BaseMetric.row_sample]

    def _sample(self, stage: str, keepers: dict[str, WorstSamples], ids: Any, columns: dict, keep: int) -> None:
        """Offer each real row to every sampled metric's keeper of worst utterances."""
        if ids is None:
            raise ValueError(
                f"MetricCallback: log_samples needs utterance ids, but {STEP[stage]} returned no {self.utt_id_key!r}"
            )
        for key, keeper in keepers.items():
            metric = self.metrics[key]
            names = [f.name for f in metric.inputs if f.name in columns]
            for i in range(keep):
                shown = metric.row_sample({name: columns[name][i] for name in names})
                if shown is not None:
                    keeper.add(Sample(ids[i], *shown))

    def _finish(self, stage: str, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
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
        results: dict[str, float] = {}
        problems: list[str] = []
        for idx in seen:
            payloads = [payload[idx] for payload in gathered if idx in payload]
            if self._saves(stage):  # checked on every rank, so every rank raises alike
                rows = merged_rows(payloads, f"the {stage} dataloader {idx}")
                if trainer.is_global_zero:
                    self._save(self._test_name(stage, idx, count), rows)
            suffix = f"/dataloader_idx_{idx}" if count > 1 else ""
            if self.log_samples:
                self._log_worst(stage, trainer, payloads, suffix)
            for name, metric in self.metrics.items():
                try:
                    values = merged_result(metric, [p["states"][name] for p in payloads])
                except ValueError as e:
                    problems.append(f"{name} on {stage} dataloader {idx}: {e}")
                    continue
                results.update({f"{self.prefix[stage]}{key}{suffix}": value for key, value in values.items()})
        self.results[stage] = results
        _log(pl_module, results)
        if problems:
            raise ValueError("MetricCallback: " + "; ".join(problems))

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

    # -- helpers -------------------------------------------------------------------------

    def _outputs(self) -> list[Any]:
        return [f for m in self.metrics.values() for f in m.outputs]

    def _columns(self, stage: str, outputs: Any) -> dict[str, Sequence[Any]]:
        """The step's values of every declared input it returned, each a list with one value per row."""
        step = STEP[stage]
        if not isinstance(outputs, Mapping):
            raise TypeError(
                f"MetricCallback: {step} must return a dict with the keys {_keys(self.inputs.values())}, "
                f"got {type(outputs).__name__}"
            )
        columns = {}
        for name, key in self.inputs.items():
            if key in outputs:
                columns[name] = outputs[key]
            elif self._required(name):
                raise ValueError(
                    f"MetricCallback: {step} returned no {key!r} (for input {name!r}); "
                    f"it returned the keys {_keys(outputs)}"
                )
        if not columns:
            raise ValueError(f"MetricCallback: {step} returned none of {_keys(self.inputs.values())}")
        return columns

    def _required(self, name: str) -> bool:
        return any(f.name == name and not f.optional for m in self.metrics.values() for f in m.inputs)

    def _ids(self, stage: str, outputs: Mapping, keep: int) -> list[str] | None:
        """The step's first ``keep`` utterance ids (None when it returns none and none are needed)."""
        if self.utt_id_key not in outputs:
            if self._saves(stage):
                raise ValueError(
                    f"MetricCallback: save_dir needs utterance ids, but {STEP[stage]} returned no "
                    f"{self.utt_id_key!r}; it returned the keys {_keys(outputs)}"
                )
            return None
        ids = _column(STEP[stage], self.utt_id_key, outputs[self.utt_id_key])
        where = f"{STEP[stage]} output {self.utt_id_key!r}"
        return [check_utt_id(str(utt_id), where) for utt_id in ids[:keep]]

    def _rows(self, stage: str, ids: list[str], columns: dict[str, Sequence[Any]], keep: int) -> list[Row]:
        """The first ``keep`` rows to save: utterance id and the text of each text input."""
        texts = [name for name in columns if name in self._text_inputs()]
        return [(ids[i], {n: columns[n][i] for n in texts}) for i in range(keep)]

    def _text_inputs(self) -> set[str]:
        return {f.name for m in self.metrics.values() for f in m.inputs if f.kind == "text"}

    def _test_name(self, stage: str, idx: int, count: int) -> str:
        names = self.test_names.get(stage)
        if names is not None and idx < len(names):
            return names[idx]
        return stage if count == 1 else f"{stage}_dataloader_idx_{idx}"

    def _save(self, test_name: str, rows: list[Row]) -> None:
        """Write one SCP file per saved input under ``save_dir / test_name``, atomically."""
        test_dir = self.save_dir / test_name
        for name in sorted({n for _, values in rows for n in values}):
            write_scp(test_dir / f"{name}.scp", ((utt_id, v[name]) for utt_id, v in rows if name in v))


def _column(step: str, key: str, values: Any) -> Sequence[Any]:
    if not isinstance(values, (list, tuple)):
        raise ValueError(
            f"MetricCallback: {step} returned {key!r} as {type(values).__name__}; "
            "return a list with one value per row of the batch"
        )
    return values


def _in_context(error: Exception, where: str) -> Exception:
    """A ValueError, TypeError or RuntimeError (as ``error`` was) whose text starts with ``where``."""
    kind = next((k for k in (ValueError, TypeError) if isinstance(error, k)), RuntimeError)
    return kind(f"{where}: {error}")


def _keys(keys: Any) -> str:
    return ", ".join(repr(k) for k in keys) or "(none)"


def _log(pl_module: pl.LightningModule, results: dict[str, float]) -> None:
    """Log each result on this rank; float64 keeps the exact value a float32 tensor would round."""
    import torch

    for name, value in results.items():
        value = torch.tensor(value, dtype=torch.float64)
        pl_module.log(name, value, sync_dist=False, batch_size=1, add_dataloader_idx=False)
