"""BaseMetric: every example of its API reference (seed 000) and of the ESPnet3 metrics guide (seed 001).

The errors it raises, and the checks of ``update`` and ``__call__``, are in ``test_metric_checks.py``.
"""

from __future__ import annotations

import jiwer
import pytest
from metric_examples import (
    ExampleBleuMetric,
    ExampleMetric,
    ExampleSpeakerMetric,
    ExampleVersaMetric,
    Hits,
    HitsAndScores,
)

from lightscore import BaseMetric, Field
from lightscore.metrics import WER

# -- the examples of seed 000, one test each -------------------------------------------------


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
