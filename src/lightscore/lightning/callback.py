"""`MetricCallback`: lightscore metrics in Lightning validation and test, exact on any number of devices.

Per batch, each rank feeds the rows its ``validation_step`` / ``test_step``
returned to the metrics (`lightscore.core.batch.feed`); each dataloader's state is
kept as a state dict, never as a copy of a metric. At the epoch end, one
gather hands every rank all ranks' states (and, with ``save_dir``, the rows to
save), or the error that stopped a rank; each rank merges them through
`lightscore.core.merge.merged_result`, and logs the same numbers, so
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
from lightscore.core.metric import BaseMetric
from lightscore.lightning.args import (
    STAGES,
    as_named,
    check_count,
    check_stages,
    check_test_names,
    input_keys,
    prefixes,
)
from lightscore.lightning.columns import step_columns, step_ids
from lightscore.lightning.epoch_end import STEP, EpochEnd
from lightscore.lightning.padding import eval_loaders, expected_rows, inexact_cause, rows_to_score
from lightscore.lightning.samples import Sample, WorstSamples
from lightscore.lightning.tally import SavedRow, Tally
from lightscore.segments import as_segments, dumps

__all__ = ["MetricCallback", "inexact_cause", "rows_to_score"]


class MetricCallback(EpochEnd, Callback):
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
            inputs, and segments inputs as SegLST JSON lines, sorted by utterance id) at each scored epoch end.
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
    example ``results["validate"]["val/WER"]`` (in the processes that ran the
    loop: under ``ddp_spawn`` the main process's callback is a copy that never
    ran; read ``trainer.callback_metrics`` there). The epoch end itself (gather,
    merge, save, log) is `lightscore.lightning.epoch_end.EpochEnd`.

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
        self._ran: set[str] = set()  # the stages whose evaluation loop ran on this rank in this trainer call

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
        self._ran = set()
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

    def on_train_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        """When training starts, every rank in step: refuse validation dataloaders that give some rank no batch.

        Lightning skips validation on such a rank, hooks included, and the
        other ranks would wait for it at the epoch end; this way every rank
        raises the same error at once (`EpochEnd.check_every_rank_validates`).
        """
        self.check_every_rank_validates(trainer)

    def teardown(self, trainer: pl.Trainer, pl_module: pl.LightningModule, stage: str) -> None:
        """When ``validate()`` or ``test()`` ends: a rank Lightning skipped (no batch) tells the others why.

        The ranks that ran wait for it in their epoch-end gather; it joins that
        gather with its error, so every rank raises the same error instead of
        waiting (`EpochEnd.join_if_skipped`). An empty dataset on one device is
        an error too, not a silently missing result.
        """
        stage = getattr(stage, "value", stage)  # Lightning passes its TrainerFn enum
        if stage in STEP:
            self.join_if_skipped(stage, trainer)

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
        self._ran.add(stage)
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

    # -- helpers -------------------------------------------------------------------------

    def _outputs(self) -> list[Any]:
        return [f for m in self.metrics.values() for f in m.outputs]

    def _columns(self, stage: str, outputs: Any) -> dict[str, Sequence[Any]]:
        """The step's values of every declared input it returned, each a list with one value per row."""
        return step_columns(STEP[stage], self.inputs, outputs, self._required)

    def _required(self, name: str) -> bool:
        return any(f.name == name and not f.optional for m in self.metrics.values() for f in m.inputs)

    def _ids(self, stage: str, outputs: Mapping, keep: int) -> list[str] | None:
        """The step's first ``keep`` utterance ids (None when it returns none and none are needed)."""
        return step_ids(STEP[stage], self.utt_id_key, outputs, keep, "save_dir" if self._saves(stage) else None)

    def _rows(self, stage: str, ids: list[str], columns: dict[str, Sequence[Any]], keep: int) -> list[SavedRow]:
        """The first ``keep`` rows to save: utterance id and the SCP value of each text, segments or number input."""
        kinds = self._saved_inputs()
        saved = [name for name in columns if name in kinds]
        return [(ids[i], {n: _scp_value(kinds[n], columns[n][i], ids[i], n) for n in saved}) for i in range(keep)]

    def _saved_inputs(self) -> dict[str, str]:
        """Input name -> kind, for the inputs ``save_dir`` writes (all but audio: text, segments, numbers)."""
        return {f.name: f.kind for m in self.metrics.values() for f in m.inputs if f.kind != "audio"}


def _scp_value(kind: str, value: Any, utt_id: str, name: str) -> Any:
    """The value an SCP row holds: text as it is; a session's segments as one line of SegLST JSON; numbers
    (one, or a list, array or tensor of them: a row's durations, delays, emission times) separated by spaces.

    A session given as a list (or inline JSON) is checked and written with `dumps`, so ``measure()``
    reads back the very segments the metric scored; a path to a meeting file is kept as it is. A
    number input a row left out (None) is an empty value.

    >>> _scp_value("segments", [("A", 0, 1.5, "hi")], "s1", "ref")
    '[{"speaker": "A", "start_time": 0.0, "end_time": 1.5, "words": "hi"}]'
    >>> _scp_value("number", [640.0, 1280.5], "u1", "delays"), _scp_value("number", 3, "u1", "ref_length")
    ('640.0 1280.5', '3')
    """
    if kind == "number":
        if value is None or isinstance(value, str):
            return value or ""
        import numpy as np

        return " ".join(repr(v) for v in np.asarray(value).ravel().tolist())
    if kind != "segments" or (isinstance(value, str) and not value.lstrip().startswith("[")):
        return value
    return dumps(as_segments(value, utt_id, side=name))


def _in_context(error: Exception, where: str) -> Exception:
    """A ValueError, TypeError or RuntimeError (as ``error`` was) whose text starts with ``where``."""
    kind = next((k for k in (ValueError, TypeError) if isinstance(error, k)), RuntimeError)
    return kind(f"{where}: {error}")
