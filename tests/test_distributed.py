"""gather_and_merge: a plain 2-process gloo run, the single-process fallback, and the NCCL check."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from ddp_scripts.gather_states import HYPS, REFS
from ddp_scripts.launch import free_port, run_scripts

from lightscore.core.distributed import check_object_device, gather_and_compute, gather_objects
from lightscore.metrics import WER


def single_process(refs: list[str], hyps: list[str]) -> dict:
    metric = WER()
    metric.update(ref=refs, hyp=hyps)
    return {"state": metric.state(), "result": metric.compute()}


@pytest.fixture(scope="module")
def two_ranks(tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    out = tmp_path_factory.mktemp("gather")
    port = free_port()
    runs = run_scripts([["gather_states.py", str(out), str(rank), "2", str(port)] for rank in (0, 1)], port)
    for run in runs:
        assert run.returncode == 0, run.stderr[-3000:]
    return [json.loads((out / f"rank{rank}.json").read_text()) for rank in (0, 1)]


def test_rank_without_rows_still_merges_exactly(two_ranks: list[dict]) -> None:
    expected = single_process(REFS, HYPS)
    for record in two_ranks:
        assert record["uneven"] == expected
    assert expected["result"]["WER_ref_len"] == 16 and expected["result"]["WER_ins"] == 1


def test_split_rows_merge_exactly_through_a_group(two_ranks: list[dict]) -> None:
    expected = single_process(REFS, HYPS)
    for record in two_ranks:
        assert record["split"]["state"] == expected["state"]
        assert record["split"]["result"] == expected["result"]
        # "cat" states follow the rank order: rank 0's rows 0, 2, 4, then rank 1's rows 1, 3.
        assert record["split"]["lengths"] == [len(HYPS[i].split()) for i in (0, 2, 4, 1, 3)]


def test_one_all_gather_object_per_merge(two_ranks: list[dict]) -> None:
    assert [record["gathers"] for record in two_ranks] == [3, 3]


def test_without_process_group_the_local_state_is_computed() -> None:
    metric = WER()
    metric.update(ref=REFS[:2], hyp=HYPS[:2])
    before, expected = metric.state(), metric.compute()
    assert gather_and_compute(metric) == expected
    assert metric.state() == before
    assert gather_objects(["anything"]) == [["anything"]]


def test_import_and_local_merge_do_not_import_torch() -> None:
    code = (
        "import sys, lightscore.core.distributed as d\n"
        "from lightscore.metrics import WER\n"
        "m = WER(); m.update(ref=['a b'], hyp=['a']); d.gather_and_compute(m)\n"
        "print(m.compute()['WER'], 'torch' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["50.0", "False"]


def test_nccl_without_cuda_says_so() -> None:
    import torch

    if torch.cuda.is_available():
        pytest.skip("a CUDA device is available here")
    check_object_device("gloo")
    with pytest.raises(RuntimeError, match="NCCL process group gathers objects through CUDA.*no CUDA device"):
        check_object_device("nccl")


def test_gather_and_merge_returns_the_merged_state_as_the_seed_says() -> None:
    from lightscore.core.distributed import gather_and_merge

    metric = WER()
    metric.update(ref=REFS[:2], hyp=HYPS[:2])
    before = metric.state()
    assert gather_and_merge(metric) == before  # no process group: the local state
    assert metric.state() == before
