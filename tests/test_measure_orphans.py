"""Orphaned ranks: once torchrun's agent is killed with SIGKILL, its ranks exit within seconds.

Real torchrun, two real ranks of ``lightscore measure``: rank 0 hangs inside a metric's
``update`` (`hanging_metrics.Hang`), rank 1, which got no row of that test set, waits in the
gloo gather for it. The agent is killed; both ranks must be gone soon after, not minutes later.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest
from test_measure_signals import start_measure
from test_sharded_measure import torchrun


def children(pid: int) -> list[int]:
    """The pids whose parent is ``pid`` (from /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue  # gone meanwhile
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def running(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie no reaper collected has ended)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the process tree from /proc")
def test_ranks_exit_within_seconds_once_torchrun_is_killed(tmp_path: Path) -> None:
    agent = start_measure(tmp_path, torchrun("measure"))
    ranks = children(agent.pid)
    assert len(ranks) == 2, ranks
    err = ""
    try:
        os.kill(agent.pid, signal.SIGKILL)
        agent.wait(timeout=10)
        deadline = time.monotonic() + 10
        while any(map(running, ranks)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(map(running, ranks)), f"ranks {[pid for pid in ranks if running(pid)]} outlived torchrun"
    finally:
        for pid in ranks:  # only the ranks this test started
            if running(pid):
                os.kill(pid, signal.SIGKILL)
        err = agent.communicate()[1]  # the ranks wrote into torchrun's pipes
    assert "its launcher (torchrun" in err and "is gone; exiting" in err
