"""What lightscore guarantees (docs/guarantees.md): nothing lost, nothing written outside, nothing silently wrong.

Each test reproduces a failure found by probing the previous version (issue 11) with real files and processes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from lightscore import MeasureError, measure

TESTS_DIR = Path(__file__).resolve().parent
LIGHTSCORE = [str(Path(sys.executable).parent / "lightscore")]


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS_DIR), os.environ.get("PYTHONPATH", "")])}


def without_override(argv: list[str]) -> list[str]:
    """``argv`` run without root's power to write into read-only folders (so read-only means read-only)."""
    if os.geteuid() != 0:
        return argv
    if shutil.which("setpriv") is None:
        pytest.skip("running as root and setpriv (util-linux) is missing: a read-only folder cannot be simulated")
    return ["setpriv", "--bounding-set", "-dac_override,-dac_read_search,-fowner", "--", *argv]


def wer_entry(name: str = "wer", metric: str = "WER") -> dict:
    return {"metric": {"_target_": f"lightscore.metrics.{metric}"}, "inputs": ["ref", "hyp"], "name": name}


@pytest.fixture
def decode(tmp_path: Path) -> Path:
    (tmp_path / "dev").mkdir()
    (tmp_path / "dev" / "ref.scp").write_text("u1 the cat sat\nu2 a dog ran\n")
    (tmp_path / "dev" / "hyp.scp").write_text("u1 the cat\nu2 a dog ran\n")
    return tmp_path


# -- 1. symbolic links ---------------------------------------------------------------------


def test_a_linked_dataset_column_folder_is_refused_and_left_alone(tmp_path: Path) -> None:
    user = tmp_path / "precious"
    user.mkdir()
    (user / "thesis.tex").write_text("three years")
    decode = tmp_path / "decode"
    (decode / "dev" / "dataset").mkdir(parents=True)
    (decode / "dev" / "dataset" / "speech").symlink_to(user)
    config = {
        "inference_dir": str(decode),
        "dataset": {"test": [{"name": "dev", "dataset": {"_target_": "fixtures_datasets.ToneDataset", "ids": ["u1"]}}]},
        "metrics": [{"metric": {"_target_": "fixtures_datasets.AudioSeconds"}, "inputs": {"speech": "dataset:speech"}}],
    }
    with pytest.raises(MeasureError, match=r"speech is a symbolic link .*never deletes or writes through a link"):
        measure(config)
    assert sorted(p.name for p in user.iterdir()) == ["thesis.tex"]


# -- 2. concurrent runs ------------------------------------------------------------------------


def test_two_concurrent_runs_keep_both_results(tmp_path: Path) -> None:
    (tmp_path / "dev").mkdir()
    rows = "".join(f"u{i:06d} the cat sat on the mat number {i % 97}\n" for i in range(60000))
    (tmp_path / "dev" / "ref.scp").write_text(rows)
    (tmp_path / "dev" / "hyp.scp").write_text(rows.replace("mat", "hat"))
    procs = []
    for name, metric in (("wer", "WER"), ("cer", "CER")):
        config = tmp_path / f"{name}.yaml"
        config.write_text(json.dumps({"inference_dir": str(tmp_path), "metrics": [wer_entry(name, metric)]}))
        procs.append(subprocess.Popen([*LIGHTSCORE, "measure", str(config)], env=env(), stdout=subprocess.PIPE))
    assert [p.wait(timeout=300) for p in procs] == [0, 0]
    written = json.loads((tmp_path / "metrics.json").read_text())
    assert sorted(written) == ["cer", "wer"]
    assert written["wer"]["dev"]["WER"] == pytest.approx(12.5)


# -- 3. results that cannot be written -------------------------------------------------------


def test_a_read_only_inference_dir_fails_before_scoring(decode: Path) -> None:
    config = decode / "metrics.yaml"
    config.write_text(json.dumps({"inference_dir": str(decode), "metrics": [wer_entry()]}))
    decode.chmod(0o555)
    try:
        run = subprocess.run(without_override([*LIGHTSCORE, "measure", str(config)]), capture_output=True, text=True)
    finally:
        decode.chmod(0o755)
    assert run.returncode == 1
    assert f"cannot write results into {decode}" in run.stderr
    assert not (decode / "metrics.json").exists()


def test_when_metrics_json_cannot_be_written_the_results_are_printed_and_the_file_named(decode: Path) -> None:
    config = decode / "metrics.yaml"
    entries = [wer_entry(), {"metric": {"_target_": "fixtures_datasets.LocksTheFolder"}, "inputs": ["hyp"]}]
    config.write_text(json.dumps({"inference_dir": str(decode), "metrics": entries}))
    try:
        argv = without_override([*LIGHTSCORE, "measure", str(config)])
        run = subprocess.run(argv, capture_output=True, text=True, env=env())
    finally:
        decode.chmod(0o755)
    assert run.returncode == 1
    assert "16.67" in run.stdout  # the WER table is printed although nothing could be saved
    assert f"cannot write {decode / 'metrics.json'}" in run.stderr
    assert "could NOT be written" in run.stderr


# -- 4. reserved names ---------------------------------------------------------------------------


def test_a_test_set_named_metrics_json_is_refused_before_anything_is_written(decode: Path) -> None:
    config = {"inference_dir": str(decode), "dataset": {"test": [{"name": "metrics.json"}]}, "metrics": [wer_entry()]}
    with pytest.raises(ValueError, match="metrics.json cannot be a test set name"):
        measure(config)
    assert not (decode / "metrics.json").exists()


def test_a_metrics_json_folder_is_named(decode: Path) -> None:
    (decode / "metrics.json").mkdir()
    with pytest.raises(ValueError, match="metrics.json cannot be a test set name"):
        measure({"inference_dir": str(decode), "metrics": [wer_entry()]})


# -- 6. audio that would be written wrong ---------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "message"),
    [(np.full(800, np.nan, dtype=np.float32), "NaN or inf"), (np.full(800, 1.5, dtype=np.float32), "would clip")],
)
def test_audio_a_wav_cannot_hold_is_refused(tmp_path: Path, value: np.ndarray, message: str) -> None:
    from lightscore.offline.dataset_columns import write_column

    with pytest.raises(ValueError, match=message):
        write_column([{"utt_id": "u1", "speech": (value, 8000)}], "speech", tmp_path / "speech.scp")
    assert not (tmp_path / "speech.scp").exists()


def test_out_of_range_audio_is_kept_as_float(tmp_path: Path) -> None:
    import soundfile

    from lightscore.offline.dataset_columns import write_column

    wave = np.linspace(-1.5, 1.5, 800, dtype=np.float32)
    write_column([{"utt_id": "u1", "speech": (wave, 8000)}], "speech", tmp_path / "s.scp", options={"subtype": "FLOAT"})
    assert np.array_equal(soundfile.read(tmp_path / "s" / "u1.wav", dtype="float32")[0], wave)


# -- 12. configs are code ------------------------------------------------------------------------


@pytest.mark.parametrize("target", ["builtins.open", "shutil.copyfile", "os.remove"])
def test_a_target_that_is_not_a_metric_is_never_called(decode: Path, target: str) -> None:
    victim = decode / "victim.txt"
    victim.write_text("keep me")
    node = {"_target_": target, "file": str(victim), "mode": "w", "src": str(victim), "dst": str(decode / "copy")}
    with pytest.raises(TypeError, match=f"_target_ {target} is not a lightscore BaseMetric subclass; refused"):
        measure({"inference_dir": str(decode), "metrics": [{"metric": node, "inputs": ["hyp"]}]})
    assert victim.read_text() == "keep me" and not (decode / "copy").exists()


def test_a_target_from_a_command_line_override_is_checked_too(decode: Path) -> None:
    victim = decode / "victim.txt"
    victim.write_text("keep me")
    config = decode / "metrics.yaml"
    config.write_text(json.dumps({"inference_dir": str(decode), "metrics": [wer_entry()]}))
    overrides = ["metrics.0.metric._target_=builtins.open", f"+metrics.0.metric.file={victim}"]
    overrides.append("+metrics.0.metric.mode=w")
    run = subprocess.run([*LIGHTSCORE, "measure", str(config), *overrides], capture_output=True, text=True)
    assert run.returncode == 1 and "builtins.open is not a lightscore BaseMetric subclass" in run.stderr
    assert victim.read_text() == "keep me"


def test_an_empty_name_is_refused(decode: Path) -> None:
    with pytest.raises(ValueError, match="name must not be empty"):
        measure({"inference_dir": str(decode), "metrics": [wer_entry(name="")]})


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"cer": {"test": 5}}', r"cer\.test is 5, not \{output: value\}"),
        ('{"cer": {"test": {"CER": NaN}}}', "NaN is not standard JSON"),
        ('{"cer": {"test": {"CER": "12"}}}', r"cer\.test\.CER is '12', not a finite number"),
    ],
)
def test_a_malformed_metrics_json_stops_the_run_and_is_kept(decode: Path, content: str, message: str) -> None:
    (decode / "metrics.json").write_text(content)
    with pytest.raises(ValueError, match=message):
        measure({"inference_dir": str(decode), "metrics": [wer_entry()]})
    assert (decode / "metrics.json").read_text() == content


def test_the_docs_say_a_metrics_yaml_is_code() -> None:
    text = (TESTS_DIR.parent / "docs" / "guarantees.md").read_text()
    assert "a metrics YAML is code" in text.lower() or "metrics yaml is code" in text.lower()
    assert textwrap.dedent(text).count("\n") > 20


def test_a_result_whose_artifacts_cannot_be_written_is_kept(decode: Path) -> None:
    sys.path.insert(0, str(TESTS_DIR))
    entries = [wer_entry(), {"metric": {"_target_": "fixtures_datasets.ArtifactsFail"}, "inputs": ["hyp"], "name": "w"}]
    with pytest.raises(MeasureError, match="scored, but its artifacts could not be written: OSError.*No space left"):
        measure({"inference_dir": str(decode), "metrics": entries})
    written = json.loads((decode / "metrics.json").read_text())
    assert written["w"]["dev"] == {"words": 5} and written["wer"]["dev"]["WER"] == pytest.approx(100 / 6)


@pytest.mark.parametrize(
    ("test_names", "message"),
    [
        ({"test": 5}, r"test_names\['test'\] must be a name or a list of names"),
        ({"tset": "x"}, "names the stage 'tset'"),
    ],
)
def test_callback_test_names_are_checked_with_a_clear_error(test_names: dict, message: str) -> None:
    from lightscore.lightning import MetricCallback
    from lightscore.metrics import WER

    with pytest.raises(ValueError, match=message):
        MetricCallback(WER(), test_names=test_names)


def test_a_non_string_step_value_names_the_input_and_row() -> None:
    from lightscore.metrics import WER

    with pytest.raises(ValueError, match=r"input 'hyp' is text, but row 1 is a int \(7\)"):
        WER().update(ref=["a", "b"], hyp=["a", 7])
