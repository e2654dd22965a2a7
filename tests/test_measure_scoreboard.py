"""measure()'s scoreboard when a test set fails: the pooled and macro rows name it instead of hiding it.

Real files: a first run scores two test sets, then one set's hypothesis file is broken and the run
repeated. The rule (docs/scoreboard.md): a metric with a failed set gets no pooled or macro number,
its rows say which sets failed, and the failed set's old row does not survive.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from lightscore import MeasureError, measure


def write_sets(root: Path) -> None:
    """dev: 1 error in 4 words; test: 2 in 4."""
    for test, hyp in (("dev", "a b c x"), ("test", "a b y z")):
        (root / test).mkdir(parents=True)
        (root / test / "ref.scp").write_text("u1 a b c d\n")
        (root / test / "hyp.scp").write_text(f"u1 {hyp}\n")


def config(root: Path) -> dict:
    wer = {"metric": {"_target_": "lightscore.metrics.WER"}, "inputs": ["ref", "hyp"], "name": "wer"}
    return {"inference_dir": str(root), "scoreboard": True, "metrics": [wer]}


def test_a_failed_test_set_is_named_in_pooled_and_macro_and_leaves_no_stale_row(tmp_path: Path) -> None:
    write_sets(tmp_path)
    first = measure(config(tmp_path))
    assert first["wer"]["pooled"]["WER"] == 37.5 and first["wer"]["macro"]["WER"] == 37.5

    (tmp_path / "test" / "hyp.scp").write_text("u1 a\nu1 b\n")  # a repeated id: this set fails
    with pytest.raises(MeasureError, match=r"wer on test: .*u1") as caught:
        measure(config(tmp_path))
    assert caught.value.results["wer"]["pooled"] == {"failed": ["test"]}

    written = json.loads((tmp_path / "metrics.json").read_text())["wer"]
    assert written == {"dev": written["dev"], "pooled": {"failed": ["test"]}, "macro": {"failed": ["test"]}}
    assert written["dev"]["WER"] == 25.0
    markdown = (tmp_path / "scoreboard.md").read_text()
    assert "| test | failed |" in markdown
    assert "| pooled | not computed: test failed |" in markdown and "| macro | not computed: test failed |" in markdown
    rows = {row["test"]: row["WER"] for row in csv.DictReader((tmp_path / "scoreboard.csv").open())}
    assert rows == {"dev": "25.0", "test": "failed", "pooled": "not computed: test failed", "macro": rows["macro"]}
    board = {row["test"]: row["WER"] for row in json.loads((tmp_path / "scoreboard.json").read_text())}
    assert board["pooled"] == board["macro"] == "not computed: test failed"

    # Fixed, the rerun computes both rows again from both sets.
    (tmp_path / "test" / "hyp.scp").write_text("u1 a b y z\n")
    again = measure(config(tmp_path))
    assert again["wer"]["pooled"]["WER"] == 37.5
    assert json.loads((tmp_path / "metrics.json").read_text())["wer"]["pooled"]["WER"] == 37.5


def test_a_rerun_without_the_scoreboard_drops_the_old_pooled_rows(tmp_path: Path) -> None:
    write_sets(tmp_path)
    measure(config(tmp_path))
    (tmp_path / "test" / "hyp.scp").write_text("u1 a b c d\n")  # test now has no error: the old pooled is stale
    measure({**config(tmp_path), "scoreboard": False})
    written = json.loads((tmp_path / "metrics.json").read_text())["wer"]
    assert sorted(written) == ["dev", "test"] and written["test"]["WER"] == 0.0
