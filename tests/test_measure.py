"""measure(): metrics config -> metrics.json, end to end over temporary inference directories."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lightscore import MeasureError, measure

WER_KEY = "lightscore.metrics.error_rate.WER"
CER_KEY = "lightscore.metrics.error_rate.CER"
REF = "u1 the cat sat\nu2 a dog\n"
HYP = "u1 the bat sat down\nu2 a dog\n"  # 1 sub + 1 ins over 5 words: 40 %
HYP_PERFECT = "u1 the cat sat\nu2 a dog\n"


def write_test_set(root: Path, name: str, **files: str) -> Path:
    test_dir = root / name
    test_dir.mkdir(parents=True, exist_ok=True)
    for stem, text in {"ref": REF, "hyp": HYP, **files}.items():
        (test_dir / f"{stem}.scp").write_text(text)
    return test_dir


@pytest.fixture
def decode(tmp_path: Path) -> Path:
    root = tmp_path / "decode"
    write_test_set(root, "test-clean")
    write_test_set(root, "test-other", hyp=HYP_PERFECT)
    return root


def wer(inputs, **extra) -> dict:
    return {"metric": {"_target_": "lightscore.metrics.WER"}, "inputs": inputs, **extra}


def config(root: Path, *entries: dict, **extra) -> dict:
    return {"inference_dir": str(root), "metrics": list(entries), **extra}


def read_json(root: Path) -> dict:
    return json.loads((root / "metrics.json").read_text())


def test_list_and_mapping_inputs_score_the_same(decode):
    by_list = measure(config(decode, wer(["ref", "hyp"])))
    by_mapping = measure(config(decode, wer({"ref": "ref", "hyp": "hyp"})))
    assert by_list == by_mapping
    clean = by_list[WER_KEY]["test-clean"]
    assert clean["WER"] == pytest.approx(40.0)
    assert (clean["WER_sub"], clean["WER_ins"], clean["WER_ref_len"]) == (1, 1, 5)
    assert by_list[WER_KEY]["test-other"]["WER"] == 0.0
    assert (decode / "test-clean" / "wer_alignment").read_text().startswith("%WER 40.00 [ 2 / 5")


def test_mapping_inputs_bind_other_files(decode):
    (decode / "test-clean" / "hyp_nbest0.scp").write_text(HYP_PERFECT)
    result = measure(config(decode, wer({"ref": "ref", "hyp": "hyp_nbest0"}, apply_to=["test-clean"])))
    assert result[WER_KEY]["test-clean"]["WER"] == 0.0


def test_metrics_json_layout_and_indent(decode):
    result = measure(config(decode, wer(["ref", "hyp"])))
    text = (decode / "metrics.json").read_text()
    assert json.loads(text) == result == {WER_KEY: result[WER_KEY]}
    assert text == json.dumps(result, indent=2) + "\n"
    assert result.path == decode / "metrics.json"
    assert not [p for p in decode.iterdir() if p.name.endswith(".tmp")]


def test_test_sets_are_sorted_non_hidden_subdirectories(decode):
    write_test_set(decode, ".cache")
    write_test_set(decode, "dev")
    result = measure(config(decode, wer(["ref", "hyp"])))
    assert list(result[WER_KEY]) == ["dev", "test-clean", "test-other"]


def test_dataset_test_names_choose_the_test_sets(decode):
    write_test_set(decode, "dev")
    result = measure(config(decode, wer(["ref", "hyp"]), dataset={"test": [{"name": "test-other"}, {"name": "dev"}]}))
    assert list(result[WER_KEY]) == ["test-other", "dev"]


def test_apply_to_limits_an_entry(decode):
    cer = {"metric": {"_target_": "lightscore.metrics.CER"}, "inputs": ["ref", "hyp"], "apply_to": ["test-other"]}
    result = measure(config(decode, wer(["ref", "hyp"]), cer))
    assert list(result[WER_KEY]) == ["test-clean", "test-other"]
    assert list(result[CER_KEY]) == ["test-other"]
    assert not (decode / "test-clean" / "cer_alignment").exists()


def test_apply_to_unknown_test_set_is_an_error(decode):
    with pytest.raises(ValueError, match=r"metrics\[0\]: apply_to names unknown test set\(s\) test-typo"):
        measure(config(decode, wer(["ref", "hyp"], apply_to=["test-typo"])))


def test_name_keys_the_results_so_one_class_can_run_twice(decode):
    (decode / "test-clean" / "hyp_nbest0.scp").write_text(HYP_PERFECT)
    entries = (
        wer(["ref", "hyp"], apply_to=["test-clean"]),
        wer({"ref": "ref", "hyp": "hyp_nbest0"}, apply_to=["test-clean"], name="wer_nbest0"),
    )
    result = measure(config(decode, *entries))
    assert result[WER_KEY]["test-clean"]["WER"] == pytest.approx(40.0)
    assert result["wer_nbest0"]["test-clean"]["WER"] == 0.0
    assert read_json(decode) == result


def test_duplicate_key_is_an_error_before_any_scoring(decode):
    entries = (wer(["ref", "hyp"]), wer({"ref": "ref", "hyp": "hyp"}))
    with pytest.raises(ValueError, match=r"metrics\[1\] and metrics\[0\] both report under '.*WER'; give one"):
        measure(config(decode, *entries))
    named = (wer(["ref", "hyp"], name="wer"), wer(["ref", "hyp"], name="wer"))
    with pytest.raises(ValueError, match="both report under 'wer'"):
        measure(config(decode, *named))
    assert not (decode / "metrics.json").exists()
    assert not (decode / "test-clean" / "wer_alignment").exists()


def test_existing_metrics_json_is_kept_and_merged(decode):
    old = {
        "bleu": {"test-clean": {"BLEU": 31.5}},
        WER_KEY: {"test-clean": {"WER": 99.0}, "test-gone": {"WER": 7.0}},
    }
    (decode / "metrics.json").write_text(json.dumps(old))
    result = measure(config(decode, wer(["ref", "hyp"], apply_to=["test-clean"])))
    written = read_json(decode)
    assert written["bleu"] == old["bleu"]
    assert written[WER_KEY]["test-gone"] == {"WER": 7.0}
    assert written[WER_KEY]["test-clean"] == result[WER_KEY]["test-clean"]
    assert written[WER_KEY]["test-clean"]["WER"] == pytest.approx(40.0)
    assert list(result) == [WER_KEY] and list(result[WER_KEY]) == ["test-clean"]


def test_malformed_metrics_json_is_an_error_and_left_alone(decode):
    (decode / "metrics.json").write_text("{not json")
    with pytest.raises(ValueError, match=r"metrics\.json: not valid JSON .*fix or remove it"):
        measure(config(decode, wer(["ref", "hyp"])))
    assert (decode / "metrics.json").read_text() == "{not json"


def test_a_failing_metric_does_not_stop_the_others(decode):
    failing = {"metric": {"_target_": "fixtures_datasets.Failing"}, "inputs": ["hyp"], "apply_to": ["test-clean"]}
    with pytest.raises(MeasureError) as caught:
        measure(config(decode, failing, wer(["ref", "hyp"])))
    message = str(caught.value)
    assert "1 metric run(s) failed" in message
    assert "fixtures_datasets.Failing on test-clean: RuntimeError: the scorer broke" in message
    written = read_json(decode)
    assert list(written) == [WER_KEY]
    assert written[WER_KEY]["test-clean"]["WER"] == pytest.approx(40.0)
    assert caught.value.results == written
    assert [(key, test) for key, test, _ in caught.value.failures] == [("fixtures_datasets.Failing", "test-clean")]


def test_every_failure_is_named(decode):
    (decode / "test-other" / "hyp.scp").write_text("u1 the cat sat\nu9 a dog\n")
    with pytest.raises(MeasureError) as caught:
        measure(config(decode, wer(["ref", "hyp"], name="wer"), wer({"ref": "ref", "hyp": "nbest"}, name="nbest")))
    message = str(caught.value)
    assert "3 metric run(s) failed" in message
    assert "wer on test-other: ScpMismatchError: utterance ids differ" in message and "'u9'" in message
    assert "nbest on test-clean: FileNotFoundError" in message and "nbest on test-other" in message
    assert list(read_json(decode)["wer"]) == ["test-clean"]


def test_missing_scp_error_lists_the_files_there(decode):
    message = r"test-clean/hypo\.scp: no such file; .*test-clean holds hyp\.scp, ref\.scp"
    with pytest.raises(MeasureError, match=message):
        measure(config(decode, wer({"ref": "ref", "hyp": "hypo"}, apply_to=["test-clean"])))


def test_progress_reports_rows_done_of_total(decode):
    seen = []
    measure(config(decode, wer(["ref", "hyp"])), progress=lambda *args: seen.append(args))
    assert seen == [
        (WER_KEY, "test-clean", 0, 2),
        (WER_KEY, "test-clean", 2, 2),
        (WER_KEY, "test-other", 0, 2),
        (WER_KEY, "test-other", 2, 2),
    ]


def test_yaml_path_overrides_and_inference_config(decode, tmp_path):
    path = tmp_path / "metrics.yaml"
    path.write_text(
        "inference_dir: ???\n"
        "metrics:\n"
        "  - metric: {_target_: lightscore.metrics.WER, case: sensitive}\n"
        "    inputs: [ref, hyp]\n"
        "    apply_to: [test-clean]\n"
    )
    result = measure(path, overrides=[f"inference_dir={decode}"])
    assert result[WER_KEY]["test-clean"]["WER"] == pytest.approx(40.0)
    assert measure(path, {"inference_dir": str(decode)}) == result
    folded = measure(path, overrides=[f"inference_dir={decode}", "metrics.0.apply_to=[test-other]"])
    assert list(folded[WER_KEY]) == ["test-other"]
    with pytest.raises(ValueError, match=r"metrics\.yaml: cannot apply the overrides metrics\.3\.name=x: .*index"):
        measure(path, overrides=["metrics.3.name=x"])
    with pytest.raises(ValueError, match=r"^.*metrics\.yaml: inference_dir is not set"):
        measure(path)


@pytest.mark.parametrize(
    ("inference_dir", "message"),
    [(None, "inference_dir is not set. Set `inference_dir: exp/decode`"), ("missing", "is not a directory")],
)
def test_inference_dir_must_be_a_directory(tmp_path, inference_dir, message):
    cfg = {"metrics": [wer(["ref", "hyp"])]}
    if inference_dir is not None:
        cfg["inference_dir"] = str(tmp_path / inference_dir)
    with pytest.raises(ValueError, match=message):
        measure(cfg)


def test_no_test_sets_is_an_error(tmp_path):
    (tmp_path / ".hidden").mkdir()
    with pytest.raises(ValueError, match="no test sets: list them under dataset.test"):
        measure(config(tmp_path, wer(["ref", "hyp"])))


def test_a_target_must_be_a_base_metric_before_it_is_called(decode):
    entry = {"metric": {"_target_": "fixtures_datasets.NotAMetric"}, "inputs": ["hyp"]}
    with pytest.raises(TypeError, match="_target_ fixtures_datasets.NotAMetric is not a lightscore BaseMetric"):
        measure(config(decode, entry))


def test_the_contract_is_checked_again(decode):
    entry = {"metric": {"_target_": "fixtures_datasets.BreaksContract"}, "inputs": ["hyp"]}
    with pytest.raises(TypeError, match=r"metrics\[0\]\.metric: fixtures_datasets.BreaksContract.outputs is empty"):
        measure(config(decode, entry))


def test_a_metric_that_cannot_be_built_is_named(decode):
    entry = {"metric": {"_target_": "lightscore.metrics.TER", "bpemodel": "nowhere.model"}, "inputs": ["ref", "hyp"]}
    with pytest.raises(ValueError, match=r"metrics\[0\]\.metric: cannot build lightscore.metrics.TER: .*not a file"):
        measure(config(decode, entry))


@pytest.mark.parametrize(
    ("inputs", "problem"),
    [(["hyp"], "required input(s) ref not bound"), (["ref", "hyp", "prompt"], "input(s) prompt not declared")],
)
def test_bindings_are_checked_before_scoring(decode, inputs, problem):
    with pytest.raises(ValueError) as caught:
        measure(config(decode, wer(["ref", "hyp"], name="ok"), wer(inputs)))
    message = str(caught.value)
    assert f"metrics[1]: lightscore.metrics.error_rate.WER: {problem}" in message
    assert "Declared inputs: ref (text), hyp (text)." in message
    assert "inputs:\n  ref: ref\n  hyp: hyp" in message
    assert not (decode / "metrics.json").exists()


def test_unknown_entry_keys_are_errors(decode):
    with pytest.raises(ValueError, match=r"metrics\[0\]: unknown key\(s\) aply_to"):
        measure(config(decode, wer(["ref", "hyp"], aply_to=["test-clean"])))


@pytest.mark.parametrize("name", ["..", "../escape", "/abs", "a b", ""])
def test_test_names_never_escape_inference_dir(decode, name):
    with pytest.raises(ValueError, match="test set name .* is not a plain token"):
        measure(config(decode, wer(["ref", "hyp"]), dataset={"test": [{"name": name}]}))
    assert not (decode.parent / "escape").exists()


@pytest.mark.parametrize("source", ["../test-other/hyp", "/etc/hyp", "dataset:../text"])
def test_sources_never_escape_the_test_directory(decode, source):
    with pytest.raises(ValueError, match=r"metrics\[0\]: source .* is not a plain token"):
        measure(config(decode, wer({"ref": "ref", "hyp": source})))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"metrics": None}, "no metrics: add a list of"),
        ({"metrics": {"wer": wer(["ref", "hyp"])}}, "no metrics: add a list of"),
        ({"metrics": [{"inputs": ["ref", "hyp"]}]}, r"metrics\[0\]: expected \{metric: \{_target_"),
        ({"metrics": [{"metric": {"case": "fold"}, "inputs": ["ref", "hyp"]}]}, r"\.metric: needs a _target_"),
        ({"metrics": [wer(["ref", "hyp"], apply_to="test-clean")]}, "apply_to must be a list of test set names"),
        ({"metrics": [wer(["ref", "hyp"], name=3)]}, "name must be a string, got 3"),
        ({"metrics": [wer("ref hyp")]}, "inputs: must be a mapping of name -> source or a list of names"),
        ({"dataset": {"test": "test-clean"}}, "dataset.test must be a list of"),
        ({"dataset": {"test": [{"nam": "test-clean"}]}}, r"dataset\.test\[0\]: expected \{name: \.\.\."),
        ({"dataset": {"test": [{"name": "dev", "dataset": "dev.json"}]}}, r"dataset\.test\[0\]\.dataset: expected"),
        ({"dataset": {"test": [{"name": "dev"}, {"name": "dev"}]}}, "lists the test set.s. dev more than once"),
        ({"dataset_artifacts": ["speech"]}, "dataset_artifacts must map a column to its options"),
    ],
)
def test_malformed_configs_are_named_errors(decode, change, message):
    with pytest.raises(ValueError, match=message):
        measure({**config(decode, wer(["ref", "hyp"])), **change})
    assert not (decode / "metrics.json").exists()
