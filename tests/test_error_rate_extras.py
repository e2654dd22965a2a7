"""MER, WIL, WIP equal jiwer 4 on any corpus (unit aligner); the macro rate is the mean of per-utterance rates."""

from __future__ import annotations

import jiwer
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lightscore.core.batch import feed
from lightscore.metrics import CER, WER

WORDS = st.sampled_from("a b c d e the cat".split())
TEXT = st.lists(WORDS, min_size=0, max_size=8).map(" ".join)
NONEMPTY = st.lists(WORDS, min_size=1, max_size=8).map(" ".join)
CORPUS = st.lists(st.tuples(NONEMPTY, TEXT), min_size=1, max_size=12)


@settings(max_examples=200, deadline=None)
@given(CORPUS)
def test_mer_wil_wip_equal_jiwer(corpus: list[tuple[str, str]]) -> None:
    refs, hyps = [r for r, _ in corpus], [h for _, h in corpus]
    metric = WER(extras=["mer", "wil", "wip"])
    metric.update(ref=refs, hyp=hyps)
    result = metric.compute()
    expected = jiwer.process_words(refs, hyps)
    assert result["WER"] == pytest.approx(expected.wer * 100)
    assert result["WER_mer"] == pytest.approx(expected.mer * 100)
    assert result["WER_wil"] == pytest.approx(expected.wil * 100)
    assert result["WER_wip"] == pytest.approx(expected.wip * 100)


@settings(max_examples=100, deadline=None)
@given(CORPUS)
def test_character_extras_equal_jiwer_characters(corpus: list[tuple[str, str]]) -> None:
    refs, hyps = [r for r, _ in corpus], [h for _, h in corpus]
    metric = CER(extras=["mer", "wip"])
    metric.update(ref=refs, hyp=hyps)
    out = jiwer.process_characters(refs, hyps)  # jiwer gives character counts, not character MER/WIP
    s, d, i, h = out.substitutions, out.deletions, out.insertions, out.hits
    assert metric.compute()["CER_mer"] == pytest.approx(100 * (s + d + i) / (h + s + d + i))
    assert metric.compute()["CER_wip"] == pytest.approx(100 * h / (h + s + d) * h / (h + s + i) if h + s + i else 0.0)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(TEXT, TEXT), min_size=1, max_size=12))
def test_macro_is_the_mean_of_per_utterance_rates_and_merges_exactly(corpus: list[tuple[str, str]]) -> None:
    refs, hyps = [r for r, _ in corpus], [h for _, h in corpus]
    if not any(r.split() for r in refs):
        return  # nothing to score: compute() refuses, as for the plain rate
    ids = [f"u{k:03d}" for k in range(len(refs))]
    whole = WER(extras=["macro"])
    feed(whole, {"ref": refs, "hyp": hyps}, ids)
    rates = [jiwer.wer(r, h) for r, h in zip(refs, hyps) if r.split()]
    assert whole.compute()["WER_macro"] == pytest.approx(100 * sum(rates) / len(rates))
    halves = [WER(extras=["macro"]), WER(extras=["macro"])]
    for k, part in enumerate(halves):
        feed(part, {"ref": refs[k::2], "hyp": hyps[k::2]}, ids[k::2])
    merged = WER(extras=["macro"])
    merged.load_state(merged.merge_states([p.state() for p in halves]))
    assert merged.compute() == whole.compute()


def test_extras_are_declared_outputs_and_checked() -> None:
    assert [f.name for f in WER(extras=["wip", "mer"]).outputs][-2:] == ["WER_wip", "WER_mer"]
    with pytest.raises(ValueError, match="WER: extras item 'wer' is not one of mer, wil, wip, macro"):
        WER(extras=["wer"])
    with pytest.raises(TypeError, match="extras must be a list of names"):
        WER(extras="mer")
