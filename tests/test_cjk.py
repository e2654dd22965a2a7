"""sclite's character mode (``-c``, ``-c NOASCII``, ``-c DH``) and the mixed unit against ``sctk sclite`` and jiwer."""

from __future__ import annotations

from pathlib import Path

import jiwer
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_sclite_case import lightscore_counts, needs_sctk, run_sclite

from lightscore.metrics import CER, MixedER, SCLiteCER
from lightscore.text.sclite.cjk import mixed_units, sclite_chars

HAN = list("我们你好中文字识别错误的是不")
WORDS = ["ok", "Python", "e-mail", "co-op-", "AI", "café", "x1", "ÉTÉ"]
# A word: Han characters, an ASCII or Latin word, or both run together (code-switching without a space).
pieces = st.sampled_from(HAN) | st.sampled_from(WORDS)
# A lone "-" is a word of its own: sclite crashes on a word of hyphens only ("--"), so none is generated.
words = st.lists(pieces, min_size=1, max_size=4).map("".join) | st.just("-")
texts = st.lists(words, min_size=0, max_size=5).map(" ".join)
MODES = {"c": [], "NOASCII": ["NOASCII"], "DH": ["DH"], "NOASCII DH": ["NOASCII", "DH"]}


@needs_sctk
@pytest.mark.parametrize("mode", MODES)
@settings(max_examples=6, deadline=None)
@given(pairs=st.lists(st.tuples(texts, texts), min_size=1, max_size=50))
def test_every_utterance_equals_sclite_c(mode: str, pairs, tmp_path_factory) -> None:
    pairs = [(ref, hyp) for ref, hyp in pairs if ref.strip() or hyp.strip()]
    if not pairs:
        return
    flags = MODES[mode]
    expected = run_sclite(pairs, tmp_path_factory.mktemp("cjk"), ["-e", "utf-8", "-c", *flags])
    metric = SCLiteCER(noascii="NOASCII" in flags, delete_hyphens="DH" in flags, per_utterance=True)
    assert lightscore_counts(metric, pairs) == list(expected.values())


@needs_sctk
@settings(max_examples=6, deadline=None)
@given(pairs=st.lists(st.tuples(texts, texts), min_size=1, max_size=50))
def test_mixed_units_align_as_sclite_on_the_same_units(pairs, tmp_path_factory) -> None:
    pairs = [(ref, hyp) for ref, hyp in pairs if ref.strip() or hyp.strip()]
    if not pairs:
        return
    split = [(" ".join(mixed_units(ref)), " ".join(mixed_units(hyp))) for ref, hyp in pairs]
    expected = run_sclite(split, tmp_path_factory.mktemp("mixed"), ["-e", "utf-8"])
    got = lightscore_counts(MixedER(aligner="sclite", case="sclite", per_utterance=True), pairs)
    assert got == list(expected.values())


def test_mixed_units_with_unit_costs_equal_jiwer() -> None:
    refs = ["我喜欢Python编程", "今天 天气 很好", "用AI识别 café"]
    hyps = ["我喜欢python编程", "今天天气好", "用 AI 识别 cafe"]
    metric = MixedER()
    metric.update(ref=refs, hyp=hyps)
    words = jiwer.process_words([" ".join(mixed_units(r)) for r in refs], [" ".join(mixed_units(h)) for h in hyps])
    assert (metric.substitutions, metric.deletions, metric.insertions) == (
        words.substitutions,
        words.deletions,
        words.insertions,
    )


@needs_sctk
def test_spaces_are_not_units_as_in_sclite(tmp_path: Path) -> None:
    pairs = [("ab cd", "abcd"), ("我们 好", "我们好")]
    assert list(run_sclite(pairs, tmp_path, ["-e", "utf-8", "-c"]).values()) == [(4, 0, 0, 0), (3, 0, 0, 0)]
    assert lightscore_counts(SCLiteCER(per_utterance=True), pairs) == [(4, 0, 0, 0), (3, 0, 0, 0)]
    plain = CER()  # lightscore's CER counts the space between words: unchanged
    plain.update(ref=["ab cd"], hyp=["abcd"])
    assert plain.compute()["CER_del"] == 1


def test_units() -> None:
    assert sclite_chars("e-mail 我", noascii=True) == ["e-mail", "我"]
    assert sclite_chars("e-mail", delete_hyphens=True) == list("email")
    assert sclite_chars("- 我", delete_hyphens=True) == ["-", "我"]  # sclite keeps a lone hyphen
    assert sclite_chars("-- 我", delete_hyphens=True) == ["我"]
    assert mixed_units("ÉTÉ中文") == ["ÉTÉ", "中", "文"]
    with pytest.raises(TypeError, match="SCLiteCER: noascii must be a bool"):
        SCLiteCER(noascii="yes")


@pytest.mark.parametrize(
    "make", [lambda: SCLiteCER(noascii=True, per_utterance=True), lambda: MixedER(per_utterance=True)]
)
def test_shards_merge_to_the_whole(make) -> None:
    """Two ranks' states merge to one process's, as every error rate's (the callback and measure() rely on it)."""
    from lightscore.core.batch import feed

    refs, hyps = ["我们ok 好", "用Python写", "中文 字"], ["我们 ok好", "用 python 写", "中 文"]
    ids = ["s-1", "s-2", "s-3"]
    whole, parts = make(), [make(), make()]
    feed(whole, {"ref": refs, "hyp": hyps}, ids)
    feed(parts[0], {"ref": refs[:1], "hyp": hyps[:1]}, ids[:1])
    feed(parts[1], {"ref": refs[1:], "hyp": hyps[1:]}, ids[1:])
    merged = make()
    merged.load_state(merged.merge_states([part.state() for part in parts]))
    assert merged.compute() == whole.compute() and merged.utterance_records() == whole.utterance_records()
