"""A toy "ASR" LightningModule whose hypotheses are fixed per utterance and epoch, and its data.

No learning is needed to test the callback: ``hypothesis(ref, index, epoch)``
corrupts every ``ERROR_EVERY[epoch]``-th utterance (a substitution, a
deletion or an insertion, in turn), so each epoch has a known WER and epoch 1
has the lowest. Utterance 0 always has an error: DistributedSampler repeats it
as padding, so counting the padding would change the counts.
"""

from __future__ import annotations

import contextlib
import random
import sys
from collections.abc import Iterator
from unittest import mock

import lightning.pytorch as pl
import torch
from torch.utils.data import DataLoader, Dataset, IterableDataset

WORDS = "the a cat dog sat ran on over under mat hill river stone house garden tree green blue red small".split()
ERROR_EVERY = {0: 3, 1: 7, 2: 2}  # epoch -> every n-th utterance is wrong; epoch 1 is best
LATER_EVERY = 5  # epochs after these (test and validate after fit run at epoch 3)


def sentence(seed: str) -> str:
    """A deterministic sentence of 1 to 12 words."""
    rng = random.Random(seed)
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 12)))


def hypothesis(ref: str, index: int, epoch: int) -> str:
    """The toy model's output for utterance ``index`` at ``epoch``."""
    every = ERROR_EVERY.get(epoch, LATER_EVERY)
    if index % every:
        return ref
    words = ref.split()
    kind = (index // every) % 3
    if kind == 0:
        return " ".join(["xyzzy"] + words[1:])
    if kind == 1:
        return " ".join(words[:-1])
    return " ".join(words + ["plugh"])


class Utterances(Dataset):
    """``n`` utterances ``{"utt_id": "<name>-0007", "ref": ...}``."""

    def __init__(self, name: str, n: int) -> None:
        self.name, self.n = name, n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> dict[str, str]:
        return {"utt_id": f"{self.name}-{i:04d}", "ref": sentence(f"{self.name}{i}")}


class UtteranceStream(IterableDataset):
    """The same items as an IterableDataset that deals them out itself: item i goes to rank i % world."""

    def __init__(self, name: str, n: int) -> None:
        self.items = Utterances(name, n)

    def __iter__(self):
        import torch.distributed as dist

        rank, world = (dist.get_rank(), dist.get_world_size()) if dist.is_initialized() else (0, 1)
        return (self.items[i] for i in range(rank, len(self.items), world))


def index_of(utt_id: str) -> int:
    return int(utt_id.rsplit("-", 1)[1])


def pairs(name: str, n: int, epoch: int) -> tuple[list[str], list[str]]:
    """The (refs, hyps) every utterance of a set gets at ``epoch``, for expected values."""
    refs = [Utterances(name, n)[i]["ref"] for i in range(n)]
    return refs, [hypothesis(r, i, epoch) for i, r in enumerate(refs)]


def loader(dataset: Dataset, batch_size: int = 4) -> DataLoader:
    return DataLoader(dataset, batch_size=batch_size)


class ToyASR(pl.LightningModule):
    """One weight to train (DDP needs a gradient); validation and test "decode" with `hypothesis`."""

    def __init__(self) -> None:
        super().__init__()
        self.weight = torch.nn.Linear(1, 1)

    def training_step(self, batch: torch.Tensor, batch_idx: int) -> torch.Tensor:
        return self.weight(batch).pow(2).mean()

    def configure_optimizers(self) -> torch.optim.Optimizer:
        return torch.optim.SGD(self.parameters(), lr=0.01)

    def train_dataloader(self) -> DataLoader:
        return DataLoader(torch.linspace(-1, 1, 8).unsqueeze(1), batch_size=4)

    def decode(self, batch: dict[str, list[str]]) -> dict[str, list[str]]:
        hyps = [hypothesis(r, index_of(u), self.current_epoch) for u, r in zip(batch["utt_id"], batch["ref"])]
        return {"utt_id": batch["utt_id"], "ref": batch["ref"], "hyp": hyps}

    def validation_step(self, batch: dict, batch_idx: int, dataloader_idx: int = 0) -> dict:
        return self.decode(batch)

    def test_step(self, batch: dict, batch_idx: int, dataloader_idx: int = 0) -> dict:
        return self.decode(batch)


def cpu_trainer(devices: int, callbacks: list, **options) -> pl.Trainer:
    """The tests' Trainer: CPU, real DDP over gloo when ``devices > 1``, no logger, bar or summary."""
    quiet = {"logger": False, "enable_progress_bar": False, "enable_model_summary": False}
    strategy = "ddp" if devices > 1 else "auto"
    return pl.Trainer(
        accelerator="cpu", devices=devices, strategy=strategy, callbacks=callbacks, **{**quiet, **options}
    )


def run_as_script(run) -> None:
    """``python <script> OUT_DIR --devices N``: call ``run(out, devices)``, write ``OUT_DIR/rank<r>.json``.

    The ranks leave the gloo group together: a group still up at interpreter exit can abort a rank
    that leaves first.
    """
    import argparse
    import json
    from pathlib import Path

    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--devices", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(1)
    record = run(args.out, args.devices)
    (args.out / f"rank{record['rank']}.json").write_text(json.dumps(record, indent=1))
    if torch.distributed.is_initialized():
        torch.distributed.barrier()
        torch.distributed.destroy_process_group()


@contextlib.contextmanager
def counting_merges() -> Iterator[list[int]]:
    """Count every call of `lightscore.core.merge.merged_result` from any lightscore module in the block.

    The counter is a test's wrapper, not part of the library: each module that imported the
    function by name gets a counting wrapper for the block (`unittest.mock.patch`).
    """
    import lightscore.core.merge as merge

    calls = [0]
    real = merge.merged_result

    def counted(*args, **kwargs):
        calls[0] += 1
        return real(*args, **kwargs)

    holders = [m for name, m in list(sys.modules.items()) if name.startswith("lightscore") and m is not None]
    with contextlib.ExitStack() as stack:
        for module in holders:
            if getattr(module, "merged_result", None) is real:
                stack.enter_context(mock.patch.object(module, "merged_result", counted))
        yield calls
