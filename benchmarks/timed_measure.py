"""Run the ``lightscore`` command in this process and write how long its ``main`` took to a file.

    python benchmarks/timed_measure.py SECONDS_FILE measure CONFIG
    torchrun --standalone --nproc_per_node=2 benchmarks/timed_measure.py SECONDS_FILE measure CONFIG

`bench_measure.py` runs every ``lightscore measure`` through this wrapper, so
one run gives both its wall time (measured outside: start-up, imports, the
torchrun launcher) and the time of the command itself. Under torchrun the gloo
group is started first and the clock runs between two barriers; rank 0 writes
the seconds.
"""

from __future__ import annotations

import os
import sys
import time


def main() -> int:
    seconds_file, args = sys.argv[1], sys.argv[2:]
    distributed = int(os.environ.get("WORLD_SIZE", "1")) > 1
    if distributed:
        import torch.distributed as dist

        dist.init_process_group("gloo")  # measure() uses the group it finds
        dist.barrier()
    from lightscore.cli import main as lightscore

    start = time.perf_counter()
    status = lightscore(args)
    if distributed:
        dist.barrier()
    seconds = time.perf_counter() - start
    if not distributed or dist.get_rank() == 0:
        with open(seconds_file, "w") as f:
            f.write(f"{seconds}\n")
    if distributed:
        dist.destroy_process_group()
    return status


if __name__ == "__main__":
    sys.exit(main())
