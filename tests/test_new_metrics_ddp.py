"""Issues 39-41's metrics are exact across ranks: a real 2-process gloo Lightning run equals 1 process, and
``measure()`` over the same rows as SCP files equals both, in one process and under torchrun, as does ``measure()``
over the files the callbacks saved.

One launch of each kind covers every new family (tests/ddp_scripts/new_metrics_lightning.py) to keep the
suite's multi-process cost at one Lightning pair and one torchrun.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from ddp_scripts import new_metrics_lightning as run_script
from ddp_scripts.launch import free_port, run_scripts

from lightscore import measure
from lightscore.segments import Segment, dumps

BIN = Path(sys.executable).parent


def scp_value(value) -> str:
    """A step's value as the SCP line's value measure() reads back: text, SegLST JSON, or numbers."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return repr(value)
    if value and isinstance(value[0], Segment):
        return dumps(value)
    if all(isinstance(v, (int, float)) for v in value):
        return " ".join(repr(v) for v in value)
    raise TypeError(f"no SCP form for {value!r}")


def write_files(root: Path) -> Path:
    """Each family a test set: ``root/<family>/<input>.scp`` from the rows; the metrics YAML that scores them."""
    rows = run_script.corpus()
    entries = []
    for family, (_, metrics) in run_script.FAMILIES.items():
        test_dir = root / family
        test_dir.mkdir(parents=True)
        for key in rows[0][family]:
            lines = [f"{row['utt_id']} {scp_value(row[family][key])}".rstrip() + "\n" for row in rows]
            (test_dir / f"{key}.scp").write_text("".join(lines))
        for k, ((name, options), built) in enumerate(zip(metrics, run_script.build(family))):
            inputs = [f.name for f in built.inputs if (test_dir / f"{f.name}.scp").is_file()]
            metric = {"_target_": f"lightscore.metrics.{name}", **options}
            entries.append({"metric": metric, "inputs": inputs, "name": f"{family}{k}", "apply_to": [family]})
    config = root.parent / "metrics.json"  # JSON is YAML
    config.write_text(json.dumps({"inference_dir": str(root), "metrics": entries}))
    return config


def flat(results: dict) -> dict:
    """metrics.json's numbers under the names the callbacks logged them."""
    return {
        f"val/{family}/{k}": v for per_test in results.values() for family, r in per_test.items() for k, v in r.items()
    }


@pytest.mark.slow
def test_two_gloo_ranks_equal_one_and_measure_under_torchrun(tmp_path) -> None:
    for n in ("1", "2"):
        (tmp_path / n).mkdir()
    runs = run_scripts(
        [["new_metrics_lightning.py", str(tmp_path / n), "--devices", n] for n in ("1", "2")], free_port(), timeout=400
    )
    for run in runs:
        assert run.returncode == 0, run.stderr[-3000:]
    one = json.loads((tmp_path / "1" / "rank0.json").read_text())["results"]
    for rank in (0, 1):
        assert json.loads((tmp_path / "2" / f"rank{rank}.json").read_text())["results"] == one
    config = write_files(tmp_path / "files")
    assert flat(measure(str(config))) == one
    # What each callback saved (text, segments, numbers) scores the same offline.
    for family, (_, metrics) in run_script.FAMILIES.items():
        saved = tmp_path / "1" / "saved" / family
        entries = [
            {
                "metric": {"_target_": f"lightscore.metrics.{name}", **options},
                "inputs": [f.name for f in built.inputs if (saved / "validate" / f"{f.name}.scp").is_file()],
            }
            for (name, options), built in zip(metrics, run_script.build(family))
        ]
        results = measure({"inference_dir": str(saved), "metrics": entries})
        again = {f"val/{family}/{k}": v for per_test in results.values() for k, v in per_test["validate"].items()}
        assert again == {k: v for k, v in one.items() if k.startswith(f"val/{family}/")}, family
    torchrun = [str(BIN / "torchrun"), "--standalone", "--nproc_per_node=2", "--no-python", str(BIN / "lightscore")]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    done = subprocess.run([*torchrun, "measure", str(config)], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert flat(json.loads((tmp_path / "files" / "metrics.json").read_text())) == one
