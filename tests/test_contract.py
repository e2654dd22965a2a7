"""`Field` and `check_metric_contract`: what a metric declares, and every way to get it wrong."""

from __future__ import annotations

import dataclasses

import pytest

import lightscore
from lightscore import BaseMetric, Field, check_metric_contract, check_metric_inputs
from lightscore.core.contract import check_result

# -- Field --------------------------------------------------------------------------


def test_field_repr_and_defaults():
    assert repr(Field("ref", "text")) == "Field(name='ref', kind='text', label='Ref', optional=False, channels=1)"


@pytest.mark.parametrize(
    ("name", "label"),
    [("ref", "Ref"), ("prompt_speech", "Prompt speech"), ("HYP_text", "Hyp text"), ("x", "X")],
)
def test_field_empty_label_is_the_name_with_spaces_capitalized(name, label):
    assert Field(name, "text").label == label


def test_field_keeps_an_explicit_label():
    assert Field("WER", "number", label="WER (%)").label == "WER (%)"


@pytest.mark.parametrize("kind", ["text", "audio", "number"])
def test_field_accepts_every_known_kind(kind):
    assert Field("x", kind).kind == kind


def test_field_unknown_kind_names_the_known_kinds():
    with pytest.raises(ValueError, match="kind 'video' is not one of") as info:
        Field("ref", "video")
    message = str(info.value)
    assert "'ref'" in message
    for kind in ("'text'", "'audio'", "'number'"):
        assert kind in message


@pytest.mark.parametrize("name", ["", "1ref", "ref-1", "ref hyp", "ref.scp", "class"])
def test_field_name_must_be_an_identifier(name):
    with pytest.raises(ValueError, match="is not a Python identifier") as info:
        Field(name, "text")
    assert repr(name) in str(info.value)


def test_field_name_must_be_a_string():
    with pytest.raises(ValueError, match="is not a Python identifier"):
        Field(3, "text")  # type: ignore[arg-type]


@pytest.mark.parametrize("channels", [None, 1, 2, 8])
def test_field_channels_none_or_at_least_one(channels):
    assert Field("wav", "audio", channels=channels).channels == channels


@pytest.mark.parametrize("channels", [0, -1, True, 1.0, "2"])
def test_field_bad_channels(channels):
    with pytest.raises(ValueError, match=r"channels must be None or an int >= 1") as info:
        Field("wav", "audio", channels=channels)
    assert "'wav'" in str(info.value)
    assert repr(channels) in str(info.value)


def test_field_is_frozen_and_hashable():
    field = Field("ref", "text")
    with pytest.raises(dataclasses.FrozenInstanceError):
        field.name = "hyp"  # type: ignore[misc]
    assert {field, Field("ref", "text")} == {field}


def test_public_api_names():
    for name in ("Field", "BaseMetric", "check_metric_contract", "check_metric_inputs", "ScpError", "ScpMismatchError"):
        assert hasattr(lightscore, name), name


# -- check_metric_contract ------------------------------------------------------------


def declared(inputs=None, outputs=None):
    """A plain object carrying a declaration, to check the contract without BaseMetric."""

    class Declared:
        pass

    if inputs is not None:
        Declared.inputs = inputs
    if outputs is not None:
        Declared.outputs = outputs
    return Declared()


REF, HYP = Field("ref", "text"), Field("hyp", "text")
SCORE = Field("score", "number")


def test_contract_well_formed_passes():
    assert check_metric_contract(declared((REF, HYP, Field("ref2", "text", optional=True)), (SCORE,))) is None


def test_contract_neither_declared():
    with pytest.raises(TypeError, match="declares neither inputs nor outputs") as info:
        check_metric_contract(declared())
    assert "Declared" in str(info.value)


def test_contract_only_inputs_declared():
    with pytest.raises(TypeError, match=r"\.outputs must be a tuple of Field, got None"):
        check_metric_contract(declared(inputs=(REF,)))


@pytest.mark.parametrize(
    "inputs",
    [[REF, HYP], (REF, "hyp"), ("ref",), REF, {"ref": REF}],
    ids=["list", "tuple-with-str", "tuple-of-str", "bare-field", "dict"],
)
def test_contract_inputs_not_a_tuple_of_field(inputs):
    with pytest.raises(TypeError, match=r"Declared\.inputs must be a tuple of Field"):
        check_metric_contract(declared(inputs, (SCORE,)))


def test_contract_outputs_not_a_tuple_of_field():
    with pytest.raises(TypeError, match=r"Declared\.outputs must be a tuple of Field, got \['score'\]"):
        check_metric_contract(declared((REF,), ["score"]))


def test_contract_repeated_input_name():
    with pytest.raises(TypeError, match=r"Declared\.inputs repeats the name\(s\) ref"):
        check_metric_contract(declared((REF, HYP, Field("ref", "audio")), (SCORE,)))


def test_contract_repeated_output_name():
    with pytest.raises(TypeError, match=r"Declared\.outputs repeats the name\(s\) score"):
        check_metric_contract(declared((REF,), (SCORE, Field("score", "number", label="again"))))


def test_contract_required_input_after_optional():
    inputs = (HYP, Field("ref1", "text", optional=True), Field("ref2", "text"))
    with pytest.raises(TypeError, match="required input 'ref2' comes after optional input 'ref1'"):
        check_metric_contract(declared(inputs, (SCORE,)))


def test_contract_no_outputs():
    with pytest.raises(TypeError, match=r"Declared\.outputs is empty"):
        check_metric_contract(declared((REF, HYP), ()))


def test_contract_output_kind_not_number():
    with pytest.raises(TypeError, match="'alignment' has kind 'text'; outputs must be 'number'"):
        check_metric_contract(declared((REF, HYP), (SCORE, Field("alignment", "text"))))


def test_base_metric_checks_the_contract_on_instantiation():
    class Undeclared(BaseMetric):
        def update(self, **values):
            pass

        def compute(self):
            return {}

    with pytest.raises(TypeError, match="Undeclared declares neither inputs nor outputs"):
        Undeclared()


def test_base_metric_checks_an_instance_declaration_set_before_super_init():
    class BadVersa(BaseMetric):
        def __init__(self):
            self.inputs = (Field("hyp", "text"),)
            self.outputs = (Field("mcd", "audio"),)
            super().__init__()

        def update(self, **values):
            pass

        def compute(self):
            return {}

    with pytest.raises(TypeError, match="'mcd' has kind 'audio'"):
        BadVersa()


def test_instance_declaration_takes_priority_over_class_declaration():
    class Configured(BaseMetric):
        inputs = (Field("ref", "text"),)
        outputs = (Field("score", "number"),)

        def __init__(self, names):
            self.outputs = tuple(Field(n, "number") for n in names)
            super().__init__()

        def update(self, **values):
            pass

        def compute(self):
            return {f.name: 1.0 for f in self.outputs}

    metric = Configured(["a", "b"])
    assert [f.name for f in metric.outputs] == ["a", "b"]
    assert [f.name for f in Configured.outputs] == ["score"]


# -- check_metric_inputs / check_result (used by measure and __call__) ------------------


class Bleu:
    inputs = (HYP, Field("ref1", "text"), Field("ref2", "text", optional=True))
    outputs = (SCORE,)


def test_check_metric_inputs_optional_may_be_unbound():
    assert check_metric_inputs(Bleu(), {"inputs": {"hyp": "hyp", "ref1": "dataset:text"}}) == {
        "hyp": "hyp",
        "ref1": "dataset:text",
    }


def test_check_metric_inputs_unknown_and_missing():
    with pytest.raises(ValueError) as info:
        check_metric_inputs(Bleu(), {"inputs": ["hyp", "ref3"]})
    message = str(info.value)
    assert "required input(s) ref1 not bound" in message
    assert "input(s) ref3 not declared" in message
    assert "ref2: ref2  # optional" in message


def test_check_result_direct():
    metric = declared((REF,), (SCORE, Field("extra", "number", optional=True)))
    assert check_result(metric, {"score": 1}) == {"score": 1}
    with pytest.raises(ValueError, match="returned list, not a dict"):
        check_result(metric, [1.0])
    with pytest.raises(ValueError, match="returned 'other', which is not a declared output"):
        check_result(metric, {"score": 1.0, "other": 2.0})
