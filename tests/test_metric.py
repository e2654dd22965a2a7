"""BaseMetric: every example of its API reference (seed 000) and every error it raises."""

from __future__ import annotations

import math
from pathlib import Path

import jiwer
import pytest

from lightscore import BaseMetric, Field
from lightscore.metrics import WER

# -- the examples of seed 000, one test each -------------------------------------------------


class ExampleMetric(BaseMetric):
    inputs = (Field("ref", "text"), Field("hyp", "text"))
    outputs = (Field("score", "number"),)

    def update(self, **values):
        pass

    def compute(self):
        return {"score": 0.0}


class ExampleVersaMetric(BaseMetric):
    def __init__(self, score_config):
        self.score_config = score_config
        self.inputs = (
            Field("hyp", "text"),
            Field("ref", "text", optional=True),
        )
        self.outputs = tuple(Field(name, "number") for name in score_config)
        super().__init__()

    def update(self, **values):
        pass

    def compute(self):
        return {name: 0.0 for name in self.score_config}


class ExampleBleuMetric(BaseMetric):
    inputs = (
        Field("hyp", "text"),
        Field("ref1", "text"),
        Field("ref2", "text", optional=True),
    )
    outputs = (Field("score", "number"),)

    def update(self, **values):
        pass

    def compute(self):
        return {"score": 0.0}


class ExampleSpeakerMetric(BaseMetric):
    inputs = (
        Field("target", "audio"),
        Field("hyp", "audio"),
        Field("ref", "audio", optional=True),
    )
    outputs = (Field("score", "number"),)

    def update(self, **values):
        pass

    def compute(self):
        return {"score": 0.0}


def test_example_fixed_contract():
    assert repr(ExampleMetric().inputs[0]) == "Field(name='ref', kind='text', label='Ref', optional=False, channels=1)"


def test_example_versa_contract_from_configuration():
    metric = ExampleVersaMetric(["mcd", "f0"])
    assert [f.name for f in metric.outputs] == ["mcd", "f0"]
    assert [f.name for f in ExampleVersaMetric(["pesq"]).outputs] == ["pesq"]
    metric.update(hyp=["a"])  # ref is optional
    with pytest.raises(ValueError, match="input 'ref2' is not declared"):
        metric.update(hyp=["a"], ref2=["b"])


def test_example_bleu_metric_optional_trailing_reference():
    metric = ExampleBleuMetric()
    assert [f.name for f in metric.inputs] == ["hyp", "ref1", "ref2"]
    metric.update(hyp=["a"], ref1=["b"])  # omitting ref2 entirely is fine
    metric.update(hyp=["a"], ref1=["b"], ref2=["c"])
    with pytest.raises(ValueError, match="required input 'ref1' is missing"):
        metric.update(hyp=["a"], ref2=["c"])


def test_example_speaker_metric():
    metric = ExampleSpeakerMetric()
    assert [f.name for f in metric.inputs] == ["target", "hyp", "ref"]
    assert [f.kind for f in metric.inputs] == ["audio"] * 3
    metric.update(target=["p.wav"], hyp=["h.wav"])


def test_example_training_callback_state_round_trip():
    # reset, update per batch on each "rank", gather every rank's state(), merge, load, compute.
    refs = ["the cat sat on the mat", "a dog ran", "the sun", "blue river stone", "x y z w"]
    hyps = ["the cat sat on a mat", "a dog ran away", "", "blue river stone", "x z w"]
    ranks = [WER(), WER()]
    batches = {0: [(0, 2), (4, 5)], 1: [(2, 4)]}  # (start, stop) rows per batch, per rank
    for rank, metric in enumerate(ranks):
        metric.update(ref=["stale"], hyp=["state"])
        metric.reset()
        for start, stop in batches[rank]:
            metric.update(ref=refs[start:stop], hyp=hyps[start:stop])
    states = [metric.state() for metric in ranks]  # what all_gather(metric.state()) returns
    metric = ranks[0]
    metric.load_state(metric.merge_states(states))
    expected = jiwer.process_words(refs, hyps)
    errors = expected.substitutions + expected.deletions + expected.insertions
    ref_len = expected.hits + expected.substitutions + expected.deletions
    result = metric.compute()
    assert result["WER"] == errors / ref_len * 100 == pytest.approx(expected.wer * 100)
    assert (result["WER_sub"], result["WER_del"], result["WER_ins"], result["WER_hit"]) == (
        expected.substitutions,
        expected.deletions,
        expected.insertions,
        expected.hits,
    )
    # Only numbers and lists travel between ranks.
    assert all(isinstance(v, (int, float, list)) for state in states for v in state.values())


class HitsAndScores(BaseMetric):
    """The add_state example: one "sum" and one "cat" state."""

    inputs = (Field("ref", "text"), Field("hyp", "text"))
    outputs = (Field("accuracy", "number"), Field("mean_score", "number", optional=True))

    def __init__(self):
        super().__init__()
        self.add_state("hits", 0, "sum")  # after super().__init__() ...
        self.add_state("scores", [], "cat")

    def update(self, *, ref, hyp):
        for r, h in zip(ref, hyp):
            self.hits += r == h
            self.scores.append(float(r == h))

    def compute(self):
        if not self.scores:
            raise ValueError("nothing to score")
        return {"accuracy": self.hits / len(self.scores), "mean_score": math.fsum(self.scores) / len(self.scores)}


class Hits(BaseMetric):
    inputs = (Field("ref", "text"), Field("hyp", "text"))
    outputs = (Field("hits", "number"),)

    def __init__(self):
        self.add_state("hits", 0, "sum")  # ... or before it
        super().__init__()

    def update(self, *, ref, hyp):
        self.hits += sum(r == h for r, h in zip(ref, hyp))

    def compute(self):
        return {"hits": self.hits}


def test_example_add_state_and_state():
    metric = HitsAndScores()
    assert metric.state() == {"hits": 0, "scores": []}
    assert (metric.hits, metric.scores) == (0, [])


def test_example_state_is_empty_when_nothing_is_registered():
    assert ExampleMetric().state() == {}
    assert ExampleMetric().merge_states([{}, {}]) == {}


def test_example_update_then_state():
    metric = HitsAndScores()
    metric.update(ref=["a b"], hyp=["a c"])
    metric.update(ref=("a", "b"), hyp=("a", "x"))
    assert metric.state() == {"hits": 1, "scores": [0.0, 1.0, 0.0]}


def test_example_merge_states():
    assert Hits().merge_states([{"hits": 2}, {"hits": 3}]) == {"hits": 5}


def test_merge_states_concatenates_in_order_and_empty_gives_defaults():
    metric = HitsAndScores()
    merged = metric.merge_states(
        [{"hits": 1, "scores": [1.0]}, {"hits": 0, "scores": []}, {"hits": 2, "scores": [2, 3]}]
    )
    assert merged == {"hits": 3, "scores": [1.0, 2, 3]}
    assert metric.merge_states([]) == {"hits": 0, "scores": []}


def test_merge_states_is_pure():
    metric = HitsAndScores()
    metric.update(ref=["a"], hyp=["a"])
    states = [{"hits": 1, "scores": [1.0]}, {"hits": 2, "scores": [0.0]}]
    merged = metric.merge_states(states)
    merged["scores"].append(99.0)
    assert metric.state() == {"hits": 1, "scores": [1.0]}
    assert states == [{"hits": 1, "scores": [1.0]}, {"hits": 2, "scores": [0.0]}]


def test_example_load_state_then_compute():
    metric = Hits()
    metric.load_state(metric.merge_states([{"hits": 2}, {"hits": 3}]))
    assert metric.compute() == {"hits": 5}


def test_example_reset():
    metric = HitsAndScores()
    metric.update(ref=["a", "b"], hyp=["a", "c"])
    metric.reset()
    assert metric.state() == {"hits": 0, "scores": []}
    metric.update(ref=["a"], hyp=["a"])
    assert metric.compute() == {"accuracy": 1.0, "mean_score": 1.0}


def test_reset_restores_a_fresh_copy_of_a_mutable_default():
    metric = HitsAndScores()
    metric.update(ref=["a"], hyp=["a"])
    metric.reset()
    metric.scores.append(5.0)
    metric.reset()
    assert metric.scores == []


def test_state_is_a_deep_copy():
    metric = HitsAndScores()
    metric.update(ref=["a"], hyp=["a"])
    state = metric.state()
    state["scores"].append(7.0)
    state["hits"] = 100
    assert metric.state() == {"hits": 1, "scores": [1.0]}


def test_load_state_copies_its_argument():
    metric = HitsAndScores()
    state = {"hits": 1, "scores": [[1.0]]}
    metric.load_state(state)
    state["scores"][0].append(2.0)
    assert metric.scores == [[1.0]]


def test_example_write_artifacts_is_a_no_op_by_default(tmp_path):
    test_dir = tmp_path / "exp" / "metrics" / "test-clean"
    test_dir.mkdir(parents=True)
    assert ExampleMetric().write_artifacts(test_dir) is None
    assert list(test_dir.iterdir()) == []


def test_example_iter_inputs(write_scp_file):
    data = {
        "ref": write_scp_file("ref.scp", [("utt1", "the cat"), ("utt2", "a dog")]),
        "hyp": write_scp_file("hyp.scp", [("utt1", "the bat"), ("utt2", "a dog")]),
    }
    metric = ExampleMetric()
    assert [f"{u} {row['ref']} {row['hyp']}" for u, row in metric.iter_inputs(data, "ref", "hyp")] == [
        "utt1 the cat the bat",
        "utt2 a dog a dog",
    ]
    assert [f"{u} {row['ref']}" for u, row in metric.iter_inputs(data, "ref")] == ["utt1 the cat", "utt2 a dog"]
    assert next(metric.iter_inputs(data, "ref", "hyp")) == ("utt1", {"ref": "the cat", "hyp": "the bat"})


def test_example_chunk_size_and_collect_artifacts_defaults():
    assert BaseMetric.chunk_size == 1000
    metric = ExampleMetric()
    assert metric.collect_artifacts is False
    assert "collect_artifacts" not in metric.state()


# -- the examples of seed 001 (ESPnet3 metrics guide) --------------------------------------


class SimpleWER(BaseMetric):
    inputs = (Field("ref", "text"), Field("hyp", "text"))
    outputs = (Field("WER", "number"),)

    def __init__(self):
        self.add_state("refs", [], "cat")
        self.add_state("hyps", [], "cat")
        super().__init__()

    def update(self, *, ref, hyp):
        self.refs.extend(ref)
        self.hyps.extend(hyp)

    def compute(self):
        return {"WER": jiwer.wer(self.refs, self.hyps) * 100}


class HypothesisCount(BaseMetric):
    inputs = (Field("hyp", "text"),)
    outputs = (Field("num_hypotheses", "number"),)

    def __init__(self):
        self.add_state("count", 0, "sum")
        super().__init__()

    def update(self, *, hyp):
        self.count += sum(1 for line in hyp if line.strip())

    def compute(self):
        return {"num_hypotheses": float(self.count)}


def test_guide_examples_through_call(write_scp_file):
    data = {
        "ref": write_scp_file("ref.scp", [("u1", "a b c"), ("u2", "d e"), ("u3", "f")]),
        "hyp": write_scp_file("hyp.scp", [("u1", "a x c"), ("u2", ""), ("u3", "f")]),
    }
    simple = SimpleWER()
    simple.chunk_size = 2
    assert simple(data, "test-clean") == {"WER": pytest.approx(3 / 6 * 100)}
    assert HypothesisCount()({"hyp": data["hyp"]}, "test-clean") == {"num_hypotheses": 2.0}
    # The same number from the built-in WER.
    assert WER()(data, "test-clean")["WER"] == pytest.approx(50.0)


# -- add_state / merge_states / load_state errors ------------------------------------------


def test_add_state_twice():
    metric = Hits()
    with pytest.raises(ValueError, match="state 'hits' is already registered"):
        metric.add_state("hits", 0, "sum")


@pytest.mark.parametrize("name", ["update", "inputs", "collect_artifacts", "chunk_size", "state"])
def test_add_state_hiding_an_attribute(name):
    with pytest.raises(ValueError, match=f"state '{name}' would hide the existing attribute '{name}'"):
        Hits().add_state(name, 0, "sum")


def test_add_state_unknown_reduce():
    with pytest.raises(ValueError, match="state 'total': reduce 'mean' is not one of 'sum', 'cat'"):
        Hits().add_state("total", 0, "mean")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("default", "reduce", "kind"),
    [
        ([], "sum", "an int or float"),
        ("0", "sum", "an int or float"),
        (True, "sum", "an int or float"),
        (None, "sum", "an int or float"),
        (0, "cat", "a list"),
        ((), "cat", "a list"),
        ("ab", "cat", "a list"),
    ],
)
def test_add_state_default_does_not_fit_reduce(default, reduce, kind):
    with pytest.raises(ValueError, match=f"state 'total': a '{reduce}' default must be {kind}") as info:
        Hits().add_state("total", default, reduce)
    assert repr(default) in str(info.value)


def test_add_state_float_default():
    metric = Hits()
    metric.add_state("seconds", 0.0, "sum")
    assert metric.merge_states([{"hits": 1, "seconds": 1.5}, {"hits": 2, "seconds": 2.25}]) == {
        "hits": 3,
        "seconds": 3.75,
    }


def test_merge_states_missing_name():
    with pytest.raises(ValueError, match=r"Hits\.merge_states\(\): state lacks \[hits\] and has unknown \[-\]"):
        Hits().merge_states([{"hits": 1}, {}])


def test_merge_states_unknown_name():
    with pytest.raises(ValueError, match=r"merge_states\(\): state lacks \[-\] and has unknown \[misses\]"):
        Hits().merge_states([{"hits": 1, "misses": 2}])


def test_load_state_missing_name():
    metric = HitsAndScores()
    with pytest.raises(ValueError, match=r"HitsAndScores\.load_state\(\): state lacks \[scores\]"):
        metric.load_state({"hits": 3})
    assert metric.state() == {"hits": 0, "scores": []}  # nothing half-loaded


def test_load_state_unknown_name():
    with pytest.raises(ValueError, match=r"load_state\(\): state lacks \[-\] and has unknown \[extra\]"):
        Hits().load_state({"hits": 3, "extra": 1})


# -- update batch checks ---------------------------------------------------------------------


def test_update_undeclared_input():
    with pytest.raises(ValueError) as info:
        ExampleMetric().update(ref=["a"], hyp=["b"], text=["c"])
    message = str(info.value)
    assert "ExampleMetric.update()" in message
    assert "input 'text' is not declared (declared: ref, hyp)" in message


def test_update_missing_required_input():
    with pytest.raises(ValueError, match=r"ExampleMetric\.update\(\): required input 'hyp' is missing"):
        ExampleMetric().update(ref=["a"])


@pytest.mark.parametrize(("value", "type_name"), [("a b", "str"), (iter(["a"]), "list_iterator"), (None, "NoneType")])
def test_update_value_not_list_or_tuple(value, type_name):
    with pytest.raises(ValueError) as info:
        ExampleMetric().update(ref=["a"], hyp=value)
    assert "ExampleMetric.update(): input 'hyp' must be a list or tuple, got " + type_name in str(info.value)


def test_update_unequal_lengths():
    with pytest.raises(ValueError) as info:
        ExampleMetric().update(ref=["a", "b", "c"], hyp=("a",))
    assert "ExampleMetric.update(): inputs have unequal lengths (ref=3, hyp=1)" in str(info.value)


def test_update_checks_run_before_the_subclass_update():
    calls = []

    class Recording(ExampleMetric):
        def update(self, *, ref, hyp):
            calls.append((ref, hyp))

    with pytest.raises(ValueError, match="unequal lengths"):
        Recording().update(ref=["a"], hyp=[])
    assert calls == []
    Recording().update(ref=[], hyp=[])  # an empty batch is well formed
    assert calls == [([], [])]


def test_update_checks_an_inherited_update_and_a_configured_contract():
    class Inherited(Hits):
        pass

    with pytest.raises(ValueError, match=r"Inherited\.update\(\): required input 'ref' is missing"):
        Inherited().update(hyp=["a"])
    with pytest.raises(ValueError, match=r"ExampleVersaMetric\.update\(\): input 'mcd' is not declared"):
        ExampleVersaMetric(["mcd"]).update(hyp=["a"], mcd=["1"])


# -- __call__ ---------------------------------------------------------------------------------


def returning(result):
    """A metric whose compute() returns ``result``, to exercise __call__'s checks."""

    class Returning(BaseMetric):
        inputs = (Field("hyp", "text"),)
        outputs = (Field("score", "number"), Field("count", "number"))

        def update(self, **values):
            pass

        def compute(self):
            return result

    return Returning()


@pytest.fixture
def hyp_data(write_scp_file):
    return {"hyp": write_scp_file("hyp.scp", [("u1", "a"), ("u2", "b")])}


def test_call_accepts_finite_ints_and_floats(hyp_data):
    assert returning({"score": 1.5, "count": 2})(hyp_data, "test-clean") == {"score": 1.5, "count": 2}


def test_call_missing_output(hyp_data):
    with pytest.raises(ValueError, match=r"Returning\.compute\(\) did not return the declared output 'count'"):
        returning({"score": 1.0})(hyp_data, "test-clean")


@pytest.mark.parametrize(
    "value",
    [True, False, float("nan"), float("inf"), float("-inf"), "1.0", None, [1.0], 1j],
    ids=["True", "False", "nan", "inf", "-inf", "str", "None", "list", "complex"],
)
def test_call_output_not_a_finite_number(hyp_data, value):
    metric = returning({"score": value, "count": 1})
    with pytest.raises(ValueError) as info:
        metric(hyp_data, "test-clean")
    assert f"Returning.compute() returned score={value!r}: not a finite number" in str(info.value)
    assert metric.collect_artifacts is False


def test_call_streams_chunks_and_sets_collect_artifacts_only_with_output_dir(write_scp_file, tmp_path):
    seen = []

    class Recording(BaseMetric):
        inputs = (Field("ref", "text"), Field("hyp", "text"))
        outputs = (Field("rows", "number"),)
        chunk_size = 3

        def __init__(self):
            self.add_state("rows", 0, "sum")
            super().__init__()

        def update(self, *, ref, hyp):
            seen.append((len(ref), self.collect_artifacts))
            self.rows += len(ref)

        def compute(self):
            return {"rows": self.rows}

        def write_artifacts(self, test_dir):
            (test_dir / "rows.txt").write_text(" ".join(u for u, _ in self.iter_inputs(self.artifact_inputs, "hyp")))

    pairs = [(f"u{i}", f"w{i}") for i in range(8)]
    data = {"ref": write_scp_file("ref.scp", pairs), "hyp": write_scp_file("hyp.scp", pairs)}
    metric = Recording()
    metric.rows = 100  # __call__ resets first
    assert metric(data, "test-clean") == {"rows": 8}
    assert seen == [(3, False), (3, False), (2, False)]
    assert metric.collect_artifacts is False
    seen.clear()
    assert metric(data, "test-other", str(tmp_path / "out")) == {"rows": 8}
    assert seen == [(3, True), (3, True), (2, True)]
    assert (tmp_path / "out" / "test-other" / "rows.txt").read_text() == " ".join(u for u, _ in pairs)
    assert metric.collect_artifacts is False
    assert metric.artifact_inputs is None


def test_call_rejects_undeclared_data_keys(write_scp_file):
    path = write_scp_file("hyp.scp", [("u1", "a")])
    with pytest.raises(ValueError, match=r"ExampleMetric: data has undeclared input\(s\) text"):
        ExampleMetric()({"ref": path, "hyp": path, "text": path}, "test-clean")


def test_call_without_optional_input(write_scp_file):
    hyp = write_scp_file("hyp.scp", [("u1", "a")])
    ref1 = write_scp_file("ref1.scp", [("u1", "a")])
    assert ExampleBleuMetric()({"hyp": hyp, "ref1": ref1}, "test-clean") == {"score": 0.0}


def test_call_output_dir_none_writes_nothing(write_scp_file, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = write_scp_file("hyp.scp", [("u1", "a")])
    ExampleMetric()({"ref": path, "hyp": path}, "test-clean")
    assert sorted(p.name for p in Path(tmp_path).iterdir()) == ["hyp.scp"]
