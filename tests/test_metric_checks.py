"""BaseMetric: every error it raises (add_state, merge_states, load_state), the batch checks of
``update``, and ``__call__``: its checks of ``compute()``'s outputs and of the data, chunks and artifacts."""

from __future__ import annotations

from pathlib import Path

import pytest
from metric_examples import (
    ExampleBleuMetric,
    ExampleMetric,
    ExampleVersaMetric,
    Hits,
    HitsAndScores,
)

from lightscore import BaseMetric, Field

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
