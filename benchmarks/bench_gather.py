"""Target 7: the epoch-end gather of sum-state metrics across 2 processes (gloo), and the state's size.

    python benchmarks/bench_gather.py [--world-size 2] [--iterations 300]

Two CPU processes join a gloo group. Every iteration, after a barrier, each
rank times one collective; an iteration's time is the slower rank's. Rows:

- ``gather_and_merge(WER)``: what `lightscore.core.distributed.gather_and_merge`
  does for a plain loop (all_gather_object of the state, merge, load);
- the callback's epoch end: ``gather_objects`` of its payload (WER and CER
  states of one dataloader), then merge and compute each metric, as
  `MetricCallback` does;
- for reference, ``all_reduce`` of the same 14 counts as one int64 tensor (how
  torchmetrics syncs sum states) and a bare ``barrier`` (the floor of any
  collective).

The pickled state's size is printed after 1,000 to 200,000 utterances: sum
states do not grow with the data.
"""

from __future__ import annotations

import argparse
import os
import pickle
import socket
import statistics
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from common import Row, header, table, verdict
from corpus import make_pairs

from lightscore.core.distributed import gather_and_merge, gather_objects
from lightscore.metrics import CER, WER

PAIRS_PER_RANK = 2000
CALLBACK = "callback epoch end: gather_objects + merge + compute (WER, CER)"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fed(metric_cls: type, refs: list[str], hyps: list[str]):
    metric = metric_cls()
    metric.update(ref=refs, hyp=hyps)
    return metric


def callback_epoch_end(wer: WER, cer: CER) -> dict[str, float]:
    """The collective and merge of `MetricCallback` at an epoch end, for one dataloader."""
    mine = {0: {"states": {"wer": wer.state(), "cer": cer.state()}, "rows": None}}
    gathered = gather_objects(mine)
    results = {}
    for name, template in (("wer", wer), ("cer", cer)):
        metric = type(template)()
        metric.load_state(metric.merge_states([g[0]["states"][name] for g in gathered]))
        results.update(metric.compute())
    return results


def worker(rank: int, world: int, port: int, iterations: int, queue) -> None:
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    refs, hyps = make_pairs(PAIRS_PER_RANK * world)
    mine = slice(rank * PAIRS_PER_RANK, (rank + 1) * PAIRS_PER_RANK)
    wer, cer = fed(WER, refs[mine], hyps[mine]), fed(CER, refs[mine], hyps[mine])
    counts = torch.tensor(list(wer.state().values()) + list(cer.state().values()), dtype=torch.int64)

    def merged_wer() -> None:
        metric = fed(WER, [], [])
        metric.load_state(wer.state())
        gather_and_merge(metric)

    ops = {
        "gather_and_merge(WER)": merged_wer,
        CALLBACK: lambda: callback_epoch_end(wer, cer),
        "(reference) all_reduce of 14 int64 counts": lambda: dist.all_reduce(counts.clone()),
        "(reference) barrier": dist.barrier,
    }
    times: dict[str, list[float]] = {name: [] for name in ops}
    for _ in range(20):  # warm up the group's connections
        for op in ops.values():
            op()
    for _ in range(iterations):
        for name, op in ops.items():
            dist.barrier()
            start = time.perf_counter()
            op()
            times[name].append(time.perf_counter() - start)
    check = fed(WER, [], [])
    check.load_state(wer.state())
    check.load_state(gather_and_merge(check))  # a collective: every rank calls it; it returns the merged state
    everyone = gather_objects(times)
    if rank == 0:
        queue.put(("merged", check.compute()))
        slowest = {
            name: [max(rank_times[name][i] for rank_times in everyone) for i in range(iterations)] for name in ops
        }
        queue.put(("times", slowest))
    dist.destroy_process_group()


def state_sizes() -> list[tuple[int, int, int, int]]:
    """``(utterances, WER state values, pickled WER state bytes, pickled payload bytes)`` for growing data."""
    refs, hyps = make_pairs()
    sizes = []
    for utterances in (1_000, 20_000, 200_000):
        wer, cer = WER(), CER()
        for start in range(0, utterances, len(refs)):
            n = min(len(refs), utterances - start)
            wer.update(ref=refs[:n], hyp=hyps[:n])
            cer.update(ref=refs[:n], hyp=hyps[:n])
        state = wer.state()
        values = sum(1 if isinstance(v, (int, float)) else len(v) for v in state.values())
        payload = {0: {"states": {"wer": state, "cer": cer.state()}, "rows": None}}
        sizes.append((wer.utterances, values, len(pickle.dumps(state)), len(pickle.dumps(payload))))
    return sizes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--world-size", type=int, default=2, help="processes (default: %(default)s)")
    parser.add_argument("--iterations", type=int, default=300, help="timed gathers per method (default: %(default)s)")
    args = parser.parse_args(argv)
    header(f"Epoch-end gather of sum states, {args.world_size} processes, gloo (target 7)")
    context = mp.get_context("spawn")
    queue = context.SimpleQueue()
    mp.spawn(worker, args=(args.world_size, free_port(), args.iterations, queue), nprocs=args.world_size)
    messages = {}
    while not queue.empty():
        kind, value = queue.get()
        messages[kind] = value
    rows = [Row(name, 1, seconds, unit="gathers") for name, seconds in messages["times"].items()]
    print(table(rows, baseline="(reference) barrier", ratio_label="time / barrier", ms=True))
    print(f"\n(one gather per row; {args.iterations} timed iterations, each the slower rank's time)\n")
    refs, hyps = make_pairs(PAIRS_PER_RANK * args.world_size)
    one = fed(WER, refs, hyps).compute()
    same = one == messages["merged"]
    print(f"- merged WER over {args.world_size} x {PAIRS_PER_RANK:,} pairs equals one process's: {same}")
    print(
        "\n| utterances | WER state values | pickled WER state, bytes | pickled callback payload (WER + CER), bytes |"
    )
    print("|---:|---:|---:|---:|")
    sizes = state_sizes()
    for utterances, values, state_bytes, payload_bytes in sizes:
        print(f"| {utterances:,} | {values} | {state_bytes} | {payload_bytes} |")
    print("\n(the values are 7 integers whatever the data; pickle stores a larger integer in a few more bytes)")
    print("\n### Targets\n")
    for name in ("gather_and_merge(WER)", CALLBACK):
        seconds = messages["times"][name]
        p95 = statistics.quantiles(seconds, n=20)[-1]
        print(
            verdict(
                f"{name}: median {statistics.median(seconds) * 1000:.2f} ms (p95 {p95 * 1000:.2f} ms) / 10 ms",
                statistics.median(seconds) * 100,
                1,
                False,
            )
        )
    flat = len({values for _, values, _, _ in sizes}) == 1
    print(f"- state size independent of the utterance count: {'MET' if flat else 'NOT MET'} ({sizes[0][1]} values)")
    return 0 if same else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
