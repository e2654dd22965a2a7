"""A plain torch.distributed loop (no Lightning) that merges metric states with gather_and_merge.

Usage: ``python gather_states.py OUT_DIR RANK WORLD_SIZE PORT``; writes ``OUT_DIR/rank<r>.json``.

Round "uneven": rank 0 scores every pair, the other ranks none (they must still call).
Round "split": rank r scores pairs r, r + WORLD_SIZE, ... through an explicit group,
with a "cat" state whose merged order must follow the ranks.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch
import torch.distributed as dist

from lightscore import BaseMetric, Field
from lightscore.core.distributed import gather_and_compute
from lightscore.metrics import WER

REFS = ["the cat sat", "a dog ran over the hill", "green tree", "the sun", "blue river stone"]
HYPS = ["the cat sat down", "a dog ran the hill", "green three", "the sun", "blue river stone"]


class Lengths(BaseMetric):
    """Keeps every hypothesis length in a "cat" state."""

    inputs = (Field("hyp", "text"),)
    outputs = (Field("words", "number"),)

    def __init__(self) -> None:
        self.add_state("lengths", [], "cat")
        super().__init__()

    def update(self, *, hyp):
        self.lengths.extend(len(h.split()) for h in hyp)

    def compute(self):
        return {"words": sum(self.lengths)}


def main() -> None:
    out, rank, world_size, port = Path(sys.argv[1]), *map(int, sys.argv[2:])
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world_size)
    gathers = {"count": 0}
    original = dist.all_gather_object

    def counted(*args, **kwargs):
        gathers["count"] += 1
        return original(*args, **kwargs)

    dist.all_gather_object = counted

    uneven = WER()
    if rank == 0:
        uneven.update(ref=REFS, hyp=HYPS)
    uneven_result = gather_and_compute(uneven)

    group = dist.new_group(list(range(world_size)))
    split, lengths = WER(), Lengths()
    mine = list(range(rank, len(REFS), world_size))
    split.update(ref=[REFS[i] for i in mine], hyp=[HYPS[i] for i in mine])
    lengths.update(hyp=[HYPS[i] for i in mine])
    gather_and_compute(split, group=group)
    gather_and_compute(lengths, group=group)

    record = {
        "uneven": {"state": uneven.state(), "result": uneven_result},
        "split": {"state": split.state(), "result": split.compute(), "lengths": lengths.lengths},
        "gathers": gathers["count"],
    }
    (out / f"rank{rank}.json").write_text(json.dumps(record))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
