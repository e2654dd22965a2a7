"""The meeting metrics on real gloo ranks: sessions sharded from SCP files, and inline segments per step.

Usage: ``python meeting_ddp.py DATA_DIR OUT_DIR RANK WORLD_SIZE PORT``; DATA_DIR holds ``ref.scp`` and
``hyp.scp`` (one session per row, values meeting files) and ``steps.json`` (per session the inline
SegLST JSON of ref and hyp, what a Lightning step returns). Writes ``OUT_DIR/rank<r>.json`` with
each metric's result and merged per-session records from both roads.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch
import torch.distributed as dist

from lightscore.core.batch import feed
from lightscore.core.distributed import gather_and_compute
from lightscore.core.runner import Job, score_jobs
from lightscore.metrics.meeting import CPWER, DER, JER, ORCWER, TCPWER


def metrics() -> dict:
    return {
        "cpwer": CPWER(),
        "orcwer": ORCWER(),
        "tcpwer": TCPWER(collar=0.5),
        "der": DER(collar=0.25),
        "der_pyannote": DER(collar=0.5, skip_overlap=True, convention="pyannote"),
        "jer": JER(convention="pyannote"),
    }


def main() -> None:
    data, out = Path(sys.argv[1]), Path(sys.argv[2])
    rank, world, port = map(int, sys.argv[3:])
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world)
    files = {"ref": data / "ref.scp", "hyp": data / "hyp.scp"}
    jobs = [Job(key, metric, "dev", files) for key, metric in metrics().items()]
    measured = score_jobs(jobs, rank=rank, world=world)
    record = {"measure": {job.key: [result, job.metric.session_results()] for job, result in zip(jobs, measured)}}
    steps = json.loads((data / "steps.json").read_text())
    stepped = {}
    for key, metric in metrics().items():
        mine = steps[rank::world]  # the sessions this rank's dataloader would see
        for start in range(0, len(mine), 3):  # a few sessions per validation step
            batch = mine[start : start + 3]
            feed(metric, {"ref": [s[1] for s in batch], "hyp": [s[2] for s in batch]}, [s[0] for s in batch])
        stepped[key] = [gather_and_compute(metric), metric.session_results()]
    record["steps"] = stepped
    (out / f"rank{rank}.json").write_text(json.dumps(record))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
