"""Ctrl-C (SIGINT) and SIGTERM during ``lightscore measure``: the finished entries' results are written first.

A real command in a real subprocess: the first entry (WER) finishes, the second hangs in its
``update`` as a stuck decoder would (`hanging_metrics.Hang`), and the test sends the real signal.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from test_sharded_measure import lightscore

TESTS = Path(__file__).parent


def start_measure(tmp: Path, command: list[str] | None = None, ranks: int = 1) -> subprocess.Popen:
    """``lightscore measure`` (or ``command`` + the config) on ``tmp/decode/dev``: WER, then the hanging metric.

    Returned once ``ranks`` processes run the hanging metric; ``tmp/hanging`` holds a file per such process.
    """
    root = tmp / "decode"
    (root / "dev").mkdir(parents=True)
    (root / "dev" / "ref.scp").write_text("u1 the cat sat\n")
    (root / "dev" / "hyp.scp").write_text("u1 the cat\n")
    wer = {"metric": {"_target_": "lightscore.metrics.WER"}, "inputs": ["ref", "hyp"], "name": "wer"}
    hang = {"metric": {"_target_": "hanging_metrics.Hang"}, "inputs": ["hyp"], "name": "hang"}
    (root / "metrics.yaml").write_text(json.dumps({"inference_dir": str(root), "metrics": [wer, hang]}))
    mark = tmp / "hanging"
    mark.mkdir()
    path = os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": path, "LIGHTSCORE_TEST_HANG_MARK": str(mark)}
    command = [*(command or lightscore("measure")), str(root / "metrics.yaml")]
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while len(list(mark.iterdir())) < ranks:
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the hanging metric never started"
        time.sleep(0.05)
    return process


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_during_measure_writes_the_finished_entries(tmp_path: Path, signum: int, status: int) -> None:
    process = start_measure(tmp_path)
    process.send_signal(signum)
    out, err = process.communicate(timeout=60)
    assert process.returncode == status, err
    written = json.loads((tmp_path / "decode" / "metrics.json").read_text())
    assert list(written) == ["wer"] and written["wer"]["dev"]["WER"] == pytest.approx(100 / 3)
    assert f"stopped by {signal.Signals(signum).name} after 1 of 2 metric runs; their results are written" in err
    assert "33.33" in out and "metrics.json:" in out  # the finished entry's table is printed too
