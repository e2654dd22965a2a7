"""The quality metrics (issue 23): DNSMOS and PIT Separation give the same numbers on 1 and 2 real gloo
processes, through the Lightning callback and through ``lightscore measure`` under torchrun, and equal the
metric called directly on the same files.

Real speech (espeak-ng), real ONNX models (speechmos'), real processes. Intelligibility's 2-rank equality is
tested through the runner (tests/test_mos.py): pocketsphinx here would add minutes.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from ddp_scripts.audio_quality_ddp import ESPEAK, NO_ESPEAK
from ddp_scripts.launch import free_port, run_scripts
from ddp_scripts.quality_lightning import COLUMNS, INPUTS, quality_metrics, write_rows

pytestmark = [pytest.mark.slow, pytest.mark.skipif(ESPEAK is None, reason=NO_ESPEAK)]

BIN = Path(sys.executable).parent
TARGETS = {  # measure()'s entries: the callbacks' metrics, bound to the same SCP files
    "dnsmos": ("lightscore.metrics.quality.DNSMOS", {}, INPUTS[0]),
    "pit": ("lightscore.metrics.separation.Separation", {"score_config": ["si_sdr", "si_sdri"]}, INPUTS[1]),
}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> tuple[Path, dict[str, float]]:
    """The five rows' files, and each metric called on their SCPs (`BaseMetric.__call__`), keyed as logged."""
    data = tmp_path_factory.mktemp("quality") / "data"
    write_rows(data)
    results: dict[str, float] = {}
    for metrics, inputs in zip(quality_metrics(), INPUTS):
        for metric in metrics:
            files = {f.name: data / f"{inputs[f.name]}.scp" for f in metric.inputs}
            results.update({f"val/{k}": v for k, v in metric(files, "dev").items()})
    return data, results


def test_lightning_on_two_gloo_ranks_equals_one_and_the_metrics_called_directly(corpus) -> None:
    data, direct = corpus
    outs = [data.parent / n for n in ("1", "2")]
    for out in outs:
        out.mkdir()
    runs = run_scripts([["quality_lightning.py", str(out), "--devices", out.name] for out in outs], free_port(), 400)
    for run in runs:
        assert run.returncode == 0, run.stderr[-3000:]
    one = json.loads((outs[0] / "rank0.json").read_text())["results"]
    for rank in (0, 1):
        assert json.loads((outs[1] / f"rank{rank}.json").read_text())["results"] == one
    # Equal to the five rows scored once: the sampler's repeat (6 rows on 2 ranks) was dropped.
    assert one == direct
    assert one["val/si_sdri"] > 5 and 1 < one["val/dnsmos_ovrl"] < 5


def config(root: Path) -> Path:
    lines = [f"inference_dir: {root}", "metrics:"]
    for name, (target, options, inputs) in TARGETS.items():
        metric = json.dumps({"_target_": target, **options})
        bound = json.dumps({k: v for k, v in inputs.items() if v is not None})
        lines.append(f"  - {{metric: {metric}, inputs: {bound}, name: {name}}}")
    path = root.parent / f"{root.name}.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def measure_command(ranks: int, yaml: Path) -> list[str]:
    command = [str(BIN / "lightscore"), "measure", str(yaml)]
    if ranks == 1:
        return command
    return [str(BIN / "torchrun"), "--standalone", f"--nproc_per_node={ranks}", "--no-python", *command]


def test_measure_under_torchrun_writes_what_one_process_writes(corpus, tmp_path) -> None:
    data, direct = corpus
    runs = {}
    for ranks in (1, 2):  # both at once: the test waits for the slower only
        root = tmp_path / f"ranks{ranks}"
        (root / "dev").mkdir(parents=True)
        for name in COLUMNS:
            shutil.copy(data / f"{name}.scp", root / "dev" / f"{name}.scp")
        log = (tmp_path / f"ranks{ranks}.log").open("w+")
        env = {**os.environ, "OMP_NUM_THREADS": "1"}
        command = measure_command(ranks, config(root))
        # A session of its own, so a hang can be ended with the ranks torchrun started.
        process = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=log, stderr=log, start_new_session=True)
        runs[ranks] = (root, log, process)
    written = {}
    try:
        for ranks, (root, log, process) in runs.items():
            assert process.wait(timeout=400) == 0, Path(log.name).read_text()[-3000:]
            written[ranks] = (root / "metrics.json").read_text()
    finally:
        for _, log, process in runs.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
            log.close()
    assert written[2] == written[1]
    results = json.loads(written[1])
    assert {f"val/{k}": v for name in TARGETS for k, v in results[name]["dev"].items()} == direct
