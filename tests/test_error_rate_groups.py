"""Error rates by group: each label's rate equals the rate over its utterances alone, on 1 and 2 processes,
in ``measure()`` and under torchrun; duration bins; clear errors for unknown labels."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jiwer
import lightning.pytorch as pl
import pytest
from ddp_scripts import groups_ddp
from ddp_scripts.launch import free_port, run_scripts
from ddp_scripts.toy_asr import Utterances, hypothesis, loader
from hypothesis import given, settings
from hypothesis import strategies as st

from lightscore import measure
from lightscore.core.batch import feed
from lightscore.lightning import MetricCallback
from lightscore.metrics import CER, WER
from lightscore.metrics.speed import RTFx

HERE = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent
WORDS = st.sampled_from("a b c d the cat".split())
ROW = st.tuples(st.lists(WORDS, min_size=1, max_size=6).map(" ".join), st.lists(WORDS, max_size=6).map(" ".join))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(ROW, st.sampled_from(["en", "de", "x-y"])), min_size=1, max_size=15))
def test_each_group_is_the_rate_of_its_utterances_alone(rows) -> None:
    refs, hyps, labels = [r for (r, _), _ in rows], [h for (_, h), _ in rows], [g for _, g in rows]
    metric = WER(group_by="lang", groups=["en", "de", "x-y"])
    metric.update(ref=refs, hyp=hyps, lang=labels)
    result = metric.compute()
    for label, key in (("en", "en"), ("de", "de"), ("x-y", "x_y")):
        mine = [k for k, g in enumerate(labels) if g == label]
        if not mine:
            assert f"WER_lang_{key}" not in result
            continue
        expected = jiwer.wer([refs[k] for k in mine], [hyps[k] for k in mine])
        assert result[f"WER_lang_{key}"] == pytest.approx(100 * expected)
        assert result[f"WER_lang_{key}_ref_len"] == sum(len(refs[k].split()) for k in mine)
    assert result["WER"] == pytest.approx(100 * jiwer.wer(refs, hyps))


def test_duration_bins_and_their_intervals() -> None:
    metric = CER(group_by="dur", bins=[0, 2, 5], ci=0.9, bootstrap=100)
    feed(
        metric,
        {"ref": ["ab", "cd", "ef", "gh"], "hyp": ["ab", "c", "xf", "gh"], "dur": ["0.5", "3", "7", "1.9"]},
        ["u1", "u2", "u3", "u4"],
    )
    result = metric.compute()
    assert result["CER_dur_0_2"] == 0.0 and result["CER_dur_2_5"] == 50.0 and result["CER_dur_5_"] == 50.0
    assert result["CER_dur_2_5_ci_low"] <= 50.0 <= result["CER_dur_2_5_ci_high"]


@pytest.mark.parametrize("value", ["inf", "Infinity", "-inf", "nan"])
def test_a_bin_value_that_is_not_finite_is_refused_as_such(value) -> None:
    # Issue 38: inf was refused as "below the first bin edge 0". A duration of inf or NaN is a broken input,
    # refused as every input file refuses them, with a message that says what is wrong and names the utterance.
    metric = WER(group_by="dur", bins=[0, 5, 10])
    with pytest.raises(ValueError, match=rf"utterance 'u2'.*group value '{value}' is not a finite number") as caught:
        feed(metric, {"ref": ["a", "b"], "hyp": ["a", "b"], "dur": ["12", value]}, ["u1", "u2"])
    assert "below the first bin edge" not in str(caught.value)


def test_a_huge_finite_bin_value_falls_in_the_open_last_bin() -> None:
    metric = WER(group_by="dur", bins=[0, 5, 10])
    feed(metric, {"ref": ["a b", "c"], "hyp": ["a", "c"], "dur": ["1e308", "3"]}, ["u1", "u2"])
    result = metric.compute()
    assert result["WER_dur_10_"] == 50.0 and result["WER_dur_0_5"] == 0.0 and "WER_dur_5_10" not in result


def test_unknown_labels_and_bad_options_are_clear_errors() -> None:
    metric = WER(group_by="lang", groups=["en"])
    with pytest.raises(ValueError, match=r"utterance 'u2'.*group label 'de' is not one of en"):
        feed(metric, {"ref": ["a", "b"], "hyp": ["a", "b"], "lang": ["en", "de"]}, ["u1", "u2"])
    with pytest.raises(ValueError, match="needs either groups"):
        WER(group_by="lang")
    with pytest.raises(ValueError, match="groups and bins need group_by"):
        WER(groups=["en"])
    with pytest.raises(ValueError, match="required input 'lang' is missing"):
        WER(group_by="lang", groups=["en"]).update(ref=["a"], hyp=["a"])


@pytest.fixture(scope="module")
def two_ranks(tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    out = tmp_path_factory.mktemp("groups")
    (run,) = run_scripts([["groups_ddp.py", str(out), "--devices", "2"]], free_port())
    assert run.returncode == 0, run.stderr[-3000:]
    return [json.loads((out / f"rank{r}.json").read_text()) for r in (0, 1)]


def decode_dir(root: Path) -> Path:
    """The 23 utterances of the callback run as SCP files, with a ``lang.scp`` label file."""
    dev = root / "dev"
    dev.mkdir(parents=True)
    items = [Utterances("dev", 23)[i] for i in range(23)]
    lines = {
        "ref": [f"{it['utt_id']} {it['ref']}" for it in items],
        "hyp": [f"{it['utt_id']} {hypothesis(it['ref'], i, 0)}" for i, it in enumerate(items)],
        "lang": [f"{it['utt_id']} {groups_ddp.lang(it['utt_id'])}" for it in items],
        "audio_seconds": [f"{it['utt_id']} {groups_ddp.seconds(it['utt_id'])[0]!r}" for it in items],
        "decode_seconds": [f"{it['utt_id']} {groups_ddp.seconds(it['utt_id'])[1]!r}" for it in items],
    }
    for name, rows in lines.items():
        (dev / f"{name}.scp").write_text("\n".join(rows) + "\n")
    return root


def config(root: Path) -> dict:
    entry = {
        "metric": {
            "_target_": "lightscore.metrics.WER",
            "group_by": "lang",
            "groups": groups_ddp.LANGS,
            "ci": 0.9,
            "bootstrap": 200,
            "seed": 5,
        },
        "inputs": ["ref", "hyp", "lang"],
    }
    speed = {"metric": {"_target_": "lightscore.metrics.RTFx"}, "inputs": ["audio_seconds", "decode_seconds"]}
    return {"inference_dir": str(root), "metrics": [entry, speed]}


@pytest.mark.slow
def test_groups_equal_on_one_and_two_processes_and_in_measure(two_ranks, tmp_path) -> None:
    callback = MetricCallback([groups_ddp.metric(), RTFx()])
    trainer = pl.Trainer(callbacks=[callback], logger=False, enable_progress_bar=False, enable_model_summary=False)
    trainer.validate(groups_ddp.LabelledASR(), dataloaders=loader(Utterances("dev", 23)))
    one = callback.results["validate"]
    assert {"val/WER_lang_en", "val/WER_lang_de", "val/WER_lang_fr_CA_ci_high"} <= set(one)
    for record in two_ranks:
        assert record["results"] == one
    results = measure(config(decode_dir(tmp_path)))
    offline = {**results["lightscore.metrics.error_rate.WER"]["dev"], **results["lightscore.metrics.speed.RTFx"]["dev"]}
    assert {f"val/{k}": v for k, v in offline.items()} == one
    audio, decode = zip(*(groups_ddp.seconds(f"dev-{k}") for k in range(23)))
    assert one["val/RTFx"] == pytest.approx(sum(audio) / sum(decode))


@pytest.mark.slow
def test_groups_under_torchrun_equal_one_process(tmp_path) -> None:
    root = decode_dir(tmp_path)
    import yaml

    (root / "metrics.yaml").write_text(yaml.safe_dump(config(root)))
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    torchrun = [str(BIN / "torchrun"), "--standalone", "--nproc_per_node=2", "--no-python"]
    run = subprocess.run(
        [*torchrun, str(BIN / "lightscore"), "measure", str(root / "metrics.yaml")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    sharded = json.loads((root / "metrics.json").read_text())
    alone = measure(config(decode_dir(tmp_path / "again")))
    for key in ("lightscore.metrics.error_rate.WER", "lightscore.metrics.speed.RTFx"):
        assert sharded[key]["dev"] == alone[key]["dev"]


def test_measure_pools_test_sets_exactly_and_writes_the_scoreboard(tmp_path) -> None:
    refs = {"clean": ["a b c d", "e f"], "other": ["g h i", "j k l m n o p q r s"]}
    hyps = {"clean": ["a b c d", "e x"], "other": ["g i", "j k l m n o p q r s t"]}
    for test in refs:
        (tmp_path / test).mkdir()
        for name, texts in (("ref", refs[test]), ("hyp", hyps[test])):
            (tmp_path / test / f"{name}.scp").write_text("".join(f"{test}-{k} {t}\n" for k, t in enumerate(texts)))
    config = {
        "inference_dir": str(tmp_path),
        "scoreboard": True,
        "metrics": [{"metric": {"_target_": "lightscore.metrics.WER"}, "inputs": ["ref", "hyp"]}],
    }
    results = measure(config)["lightscore.metrics.error_rate.WER"]
    everything = jiwer.wer(refs["clean"] + refs["other"], hyps["clean"] + hyps["other"])
    assert results["pooled"]["WER"] == pytest.approx(100 * everything)
    assert results["macro"]["WER"] == pytest.approx((results["clean"]["WER"] + results["other"]["WER"]) / 2)
    table = (tmp_path / "scoreboard.md").read_text().splitlines()
    assert [row.split(" | ")[0].strip("| ") for row in table[2:]] == ["clean", "other", "pooled", "macro"]
    assert json.loads((tmp_path / "scoreboard.json").read_text())[2]["test"] == "pooled"
    (tmp_path / "pooled").mkdir()
    with pytest.raises(ValueError, match="pooled cannot be a test set name"):
        measure(config)


def test_reports_write_the_groups_tsv(tmp_path) -> None:
    import csv

    (tmp_path / "dev").mkdir()
    for name, rows in {"ref": ["a b", "c d", "e"], "hyp": ["a b", "c", "x"], "lang": ["en", "de", "de"]}.items():
        (tmp_path / "dev" / f"{name}.scp").write_text("".join(f"u{k} {v}\n" for k, v in enumerate(rows)))
    data = {n: tmp_path / "dev" / f"{n}.scp" for n in ("ref", "hyp", "lang")}
    WER(group_by="lang", groups=["en", "de", "fr"], reports=True)(data, "dev", tmp_path / "out")
    with open(tmp_path / "out" / "dev" / "wer_groups.tsv", newline="") as f:
        header, *rows = csv.reader(f, delimiter="\t")
    assert header == ["lang", "WER", "ref_len", "ci_low", "ci_high"]
    assert [(r[0], r[1], r[2]) for r in rows] == [("en", "0.0", "2"), ("de", "66.66666666666666", "3"), ("fr", "", "0")]
