"""ErrorRate reads as one class (issue 37): its mixins are folded in, and their old names still import."""

from __future__ import annotations

import pytest

from lightscore.core.batch import feed
from lightscore.core.metric import BaseMetric
from lightscore.metrics import WER, ErrorRate, error_rate_base


def test_error_rate_is_one_class_over_base_metric() -> None:
    assert ErrorRate is error_rate_base.ErrorRate
    assert ErrorRate.__mro__[1:3] == (BaseMetric, BaseMetric.__mro__[1])
    for method in ("tokens", "align", "align_tokens", "row_sample", "update", "compute", "utterance_records"):
        assert method in vars(ErrorRate), method


@pytest.mark.parametrize(
    ("module", "name"),
    [("lightscore.metrics.error_rate_text", "TextPipeline"), ("lightscore.metrics.error_rate_groups", "GroupedRates")],
)
def test_the_old_mixin_names_import_with_a_warning_naming_the_new_place(module, name) -> None:
    import importlib

    old = importlib.import_module(module)
    with pytest.warns(DeprecationWarning, match=rf"{module}\.{name} moved to lightscore\.metrics\.error_rate_base"):
        mixin = getattr(old, name)
    assert mixin is ErrorRate and isinstance(WER(), mixin)
    with pytest.raises(AttributeError):
        old.NoSuchName  # noqa: B018 (the attribute access is the test)


def test_a_subclass_of_error_rate_still_counts_and_aligns() -> None:
    class Letters(ErrorRate):
        name = "LER"

        def tokenize(self, text: str) -> list[str]:
            return [c for c in text if c.isalpha()]

    metric = Letters(case="fold", per_utterance=True)
    feed(metric, {"ref": ["A b"], "hyp": ["a c"]}, ["u1"])
    assert metric.compute()["LER"] == 50.0
    assert metric.align("A b", "a c") == [("a", "a", "C"), ("b", "c", "S")]
    assert metric.row_sample({"ref": "a b", "hyp": "a b"})[0] == 0
