"""Which rows of a rank's evaluation dataloader are real and which are the sampler's padding.

Lightning's default ``DistributedSampler`` pads each rank's share by repeating
samples, so every rank has the same number of batches. `rows_to_score` says
how many leading rows of a rank are real; `inexact_cause` says why a loader's
rows might not be scored exactly once; `eval_loaders` and `eval_batches` find the
loaders of the running evaluation loop and how many batches each gives this rank.
"""

from __future__ import annotations

from typing import Any

from lightning.pytorch.trainer.states import TrainerFn
from torch.utils.data import BatchSampler, DataLoader, DistributedSampler, IterableDataset

__all__ = ["eval_batches", "eval_loaders", "eval_loop", "expected_rows", "inexact_cause", "rows_to_score"]


def _index_sampler(loader: Any) -> Any:
    """The sampler whose order the batches follow, or None when a custom batch sampler decides it."""
    batch_sampler = getattr(loader, "batch_sampler", None)
    if batch_sampler is None:
        return getattr(loader, "sampler", None)
    return batch_sampler.sampler if type(batch_sampler) is BatchSampler else None


def rows_to_score(loader: Any) -> int | None:
    """How many leading rows of this rank's share of ``loader`` are real, or None for all of them.

    A ``DistributedSampler`` without ``drop_last`` pads the index list to a
    multiple of ``num_replicas`` by repeating its head, then deals position
    ``rank + k * num_replicas`` to this rank: positions past the dataset's
    length are the repeats, and they come last.

    >>> from torch.utils.data import DataLoader, DistributedSampler
    >>> data = list(range(101))
    >>> [rows_to_score(DataLoader(data, sampler=DistributedSampler(data, num_replicas=2, rank=r))) for r in (0, 1)]
    [51, 50]
    >>> rows_to_score(DataLoader(data)) is None
    True
    """
    sampler = _index_sampler(loader)
    if not isinstance(sampler, DistributedSampler) or sampler.drop_last:
        return None
    return len(range(sampler.rank, len(sampler.dataset), sampler.num_replicas))


def inexact_cause(loader: Any, world_size: int) -> str | None:
    """Why the rows of ``loader`` may not be scored exactly once over ``world_size`` ranks, or None.

    Covered: a torch ``DataLoader`` over a map-style dataset whose batches
    follow a ``DistributedSampler`` (Lightning's default) with nothing dropped.

    >>> from torch.utils.data import DataLoader, DistributedSampler
    >>> data = list(range(5))
    >>> inexact_cause(DataLoader(data, sampler=DistributedSampler(data, num_replicas=2, rank=0)), 2) is None
    True
    >>> inexact_cause(DataLoader(data), 2)
    'its sampler SequentialSampler is not a DistributedSampler, so ranks may score the same rows'
    """
    if world_size <= 1:
        return None
    if not isinstance(loader, DataLoader):
        return f"it is a {type(loader).__name__}, not a torch DataLoader, so its padding cannot be found"
    if isinstance(loader.dataset, IterableDataset):
        return "its dataset is an IterableDataset, which no sampler splits between ranks"
    sampler = _index_sampler(loader)
    if sampler is None:
        name = type(loader.batch_sampler).__name__
        return f"it uses the custom batch sampler {name}, whose batches need not follow the sampler's order"
    if not isinstance(sampler, DistributedSampler):
        return f"its sampler {type(sampler).__name__} is not a DistributedSampler, so ranks may score the same rows"
    if sampler.drop_last or getattr(loader.batch_sampler, "drop_last", False):
        return "it drops rows (drop_last=True), which are then never scored"
    return None


def eval_loop(trainer: Any, stage: str) -> Any:
    """The evaluation loop that runs ``stage`` now (``trainer.validate()``'s, fit's validation, or test's)."""
    # trainer.val_dataloaders still returns fit()'s loaders inside a later trainer.validate(),
    # so ask the loop that runs now.
    if stage == "test":
        return trainer.test_loop
    if trainer.state.fn == TrainerFn.VALIDATING:
        return trainer.validate_loop
    return trainer.fit_loop.epoch_loop.val_loop


def eval_loaders(trainer: Any, stage: str) -> list[Any]:
    """The running evaluation loop's dataloaders, as Lightning prepared them (its sampler injected)."""
    combined = getattr(eval_loop(trainer, stage), "_combined_loader", None)
    return list(combined.flattened) if combined is not None else []


def eval_batches(trainer: Any, stage: str) -> list[float] | None:
    """Batches this rank gets from each dataloader of ``stage``'s loop, or None before its data is set up.

    Lightning skips an evaluation loop whose batches sum to 0 on a rank, hooks included.
    """
    loop = eval_loop(trainer, stage)
    if getattr(loop, "_combined_loader", None) is None:
        return None
    return [float(n) for n in loop.max_batches]


def expected_rows(loader: Any) -> tuple[int, int] | None:
    """``(samples, batches)`` this rank's share of ``loader`` delivers in a full epoch, or None when unknown.

    The callback checks that a step returned one row per sample: a step that
    returns more or fewer rows would give different numbers on 1 and N devices.

    >>> from torch.utils.data import DataLoader, DistributedSampler
    >>> data = list(range(101))
    >>> expected_rows(DataLoader(data, batch_size=4, sampler=DistributedSampler(data, num_replicas=2, rank=1)))
    (51, 13)
    >>> expected_rows(DataLoader(data, batch_size=4, drop_last=True)) is None
    True
    """
    sampler = _index_sampler(loader)
    if sampler is None or not isinstance(loader, DataLoader) or isinstance(loader.dataset, IterableDataset):
        return None
    if getattr(loader.batch_sampler, "drop_last", False):
        return None
    try:
        return len(sampler), len(loader)
    except TypeError:
        return None
