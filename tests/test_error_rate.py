"""WER, CER and TER: counts equal jiwer 4's, hand-checked counting rules, shards merge exactly.

Calls over SCP files and the alignment files they write are in ``test_error_rate_alignment.py``.
"""

from __future__ import annotations

import pickle

import jiwer
import pytest
import sentencepiece
from error_rate_corpus import chunk_counts, generate_corpus
from hypothesis import given, settings
from hypothesis import strategies as st

from lightscore.metrics import CER, TER, WER

STATES = {"substitutions", "deletions", "insertions", "hits", "ref_len", "utterances", "error_utterances"}


def counts(metric) -> tuple[int, int, int, int]:
    return metric.substitutions, metric.deletions, metric.insertions, metric.hits


def jiwer_counts(output) -> tuple[int, int, int, int]:
    return output.substitutions, output.deletions, output.insertions, output.hits


@pytest.fixture(scope="module")
def corpus() -> tuple[list[str], list[str]]:
    refs, hyps = generate_corpus(2000, seed=20240601)
    assert sum(not r for r in refs) >= 50 and sum(not h for h in hyps) >= 50
    assert sum(not r and not h for r, h in zip(refs, hyps)) >= 5
    assert sum(not r and bool(h) for r, h in zip(refs, hyps)) >= 40
    return refs, hyps


@pytest.mark.parametrize(
    ("metric_class", "process"),
    [(WER, jiwer.process_words), (CER, jiwer.process_characters)],
    ids=["WER", "CER"],
)
def test_counts_equal_jiwer_on_2000_pairs(corpus, metric_class, process):
    refs, hyps = corpus
    expected = process(refs, hyps)
    metric = metric_class()
    metric.update(ref=refs, hyp=hyps)
    assert counts(metric) == jiwer_counts(expected)
    assert metric.ref_len == expected.hits + expected.substitutions + expected.deletions
    assert metric.utterances == 2000
    result = metric.compute()
    name = metric_class.name
    assert result[name] == pytest.approx((expected.wer if name == "WER" else expected.cer) * 100, rel=1e-12)
    # Per utterance too, so no two differences cancel in the corpus sums.
    one = metric_class()
    errors = 0
    for ref, hyp, chunks in zip(refs, hyps, expected.alignments):
        one.reset()
        one.update(ref=[ref], hyp=[hyp])
        assert counts(one) == chunk_counts(chunks), (ref, hyp)
        errors += one.error_utterances
    assert metric.error_utterances == errors
    # The state stays seven integers however much data went in.
    state = metric.state()
    assert set(state) == STATES and all(type(v) is int for v in state.values())


def test_ter_equals_jiwer_on_sentencepiece_pieces(spm_model, make_sentences):
    refs, hyps = generate_corpus(300, seed=5)
    refs += make_sentences(11, 20)
    hyps += make_sentences(12, 20)
    processor = sentencepiece.SentencePieceProcessor(model_file=str(spm_model))

    def pieces(text):
        return " ".join(processor.encode(text, out_type=str))

    expected = jiwer.process_words([pieces(r) for r in refs], [pieces(h) for h in hyps])
    metric = TER(spm_model)
    metric.update(ref=refs, hyp=hyps)
    assert counts(metric) == jiwer_counts(expected)
    n_pieces = sum(len(processor.encode(r)) for r in refs)
    assert metric.ref_len == n_pieces
    assert n_pieces > 1.5 * sum(len(r.split()) for r in refs)  # pieces, not words
    assert metric.compute()["TER"] == pytest.approx(expected.wer * 100, rel=1e-12)


def test_ter_counts_one_pair_by_hand(spm_model):
    processor = sentencepiece.SentencePieceProcessor(model_file=str(spm_model))
    ref, hyp = "the cat sat", "the cat"
    ref_pieces, hyp_pieces = processor.encode(ref, out_type=str), processor.encode(hyp, out_type=str)
    assert ref_pieces[: len(hyp_pieces)] == hyp_pieces  # the pieces of "sat" are simply missing
    metric = TER(spm_model)
    metric.update(ref=[ref], hyp=[hyp])
    missing = len(ref_pieces) - len(hyp_pieces)
    assert counts(metric) == (0, missing, 0, len(hyp_pieces))
    assert metric.compute()["TER"] == missing / len(ref_pieces) * 100


def test_ter_case_fold_and_pickle(spm_model):
    metric = TER(spm_model, case="fold")
    metric.update(ref=["The Cat sat"], hyp=["the cat SAT"])
    assert metric.compute()["TER"] == 0.0
    clone = pickle.loads(pickle.dumps(metric))
    assert clone.state() == metric.state()
    clone.update(ref=["the dog"], hyp=["the"])
    assert clone.deletions > 0


def test_ter_bpemodel_must_be_a_file(tmp_path):
    with pytest.raises(ValueError, match=r"TER: bpemodel '.*nope\.model' is not a file"):
        TER(tmp_path / "nope.model")


# -- hand-checked counting rules ----------------------------------------------------------------


def test_rate_is_errors_over_reference_tokens():
    metric = WER()
    metric.update(ref=["a b c d", "e f"], hyp=["a x c d y", "f"])
    # a=a, b->x (S), c, d, +y (I); e deleted (D), f=f
    result = metric.compute()
    assert result == {
        "WER": 3 / 6 * 100,
        "WER_sub": 1,
        "WER_del": 1,
        "WER_ins": 1,
        "WER_hit": 4,
        "WER_ref_len": 6,
        "WER_utts": 2,
        "WER_utt_err": 100.0,
    }
    assert (metric.utterances, metric.error_utterances) == (2, 2)


def test_empty_hypothesis_counts_deletions():
    for metric, n in ((WER(), 3), (CER(), 9)):
        metric.update(ref=["the cat x"], hyp=[""])
        assert counts(metric) == (0, n, 0, 0)
        assert metric.compute()[metric.name] == 100.0


def test_empty_reference_counts_insertions():
    for metric, n in ((WER(), 2), (CER(), 5)):
        metric.update(ref=["", "ab"], hyp=["ab cd", "ab"])
        assert counts(metric) == (0, 0, n, metric.ref_len)
        assert metric.error_utterances == 1
        assert metric.compute()[metric.name] == n / metric.ref_len * 100


def test_both_empty_is_no_error():
    metric = WER()
    metric.update(ref=["", "a"], hyp=["", "a"])
    assert (metric.utterances, metric.error_utterances, metric.ref_len) == (2, 0, 1)
    assert metric.compute()["WER"] == 0.0


@pytest.mark.parametrize("metric_class", [WER, CER])
def test_compute_without_reference_tokens(metric_class):
    metric = metric_class()
    with pytest.raises(ValueError, match=f"{metric_class.name}: the references hold no tokens"):
        metric.compute()
    metric.update(ref=["", "  "], hyp=["some words", ""])
    assert metric.insertions > 0
    with pytest.raises(ValueError, match="nothing to score"):
        metric.compute()


def test_case_sensitive_by_default_and_fold():
    sensitive, fold = WER(), WER(case="fold")
    for metric in (sensitive, fold):
        metric.update(ref=["The CAT sat"], hyp=["the cat sat"])
    assert sensitive.compute()["WER_sub"] == 2
    assert fold.compute()["WER"] == 0.0
    cer = CER(case="fold")
    cer.update(ref=["ÄB c"], hyp=["äb C"])
    assert cer.compute()["CER"] == 0.0


def test_unknown_case():
    with pytest.raises(ValueError, match="WER: case 'upper' is not one of sensitive, fold"):
        WER(case="upper")


def test_cer_counts_spaces_and_collapses_whitespace_runs():
    metric = CER()
    metric.update(ref=["ab cd"], hyp=["abcd"])
    assert counts(metric) == (0, 1, 0, 4)  # the space is a token
    metric.reset()
    metric.update(ref=["  ab \t cd "], hyp=["ab cd"])
    assert counts(metric) == (0, 0, 0, 5)  # runs count as one space, ends stripped


def test_declared_outputs():
    for metric_class in (WER, CER):
        name = metric_class.name
        assert [f.name for f in metric_class.outputs] == [name] + [
            f"{name}_{c}" for c in ("sub", "del", "ins", "hit", "ref_len", "utts", "utt_err")
        ]
        assert [f.name for f in metric_class.inputs] == ["ref", "hyp"]  # the seed contract
        assert [f.optional for f in metric_class.inputs] == [False, False]


# -- shards merge exactly (property) -------------------------------------------------------------

texts = st.lists(st.sampled_from(["a", "b", "cat", "the", "Dog", "é", "日本", "sat on"]), max_size=6).map(" ".join)
corpora = st.lists(st.tuples(texts, texts), max_size=25)


def build(name, spm_model):
    return {"WER": WER, "CER": CER}[name]() if name != "TER" else TER(spm_model)


def compute_or_error(metric):
    try:
        return metric.compute()
    except ValueError as e:
        return str(e)


@pytest.mark.parametrize("name", ["WER", "CER", "TER"])
@settings(max_examples=40, deadline=None)
@given(pairs=corpora, data=st.data())
def test_sharded_merge_equals_one_pass(spm_model, name, pairs, data):
    k = data.draw(st.integers(1, 5), label="k")
    cuts = sorted(data.draw(st.lists(st.integers(0, len(pairs)), min_size=k - 1, max_size=k - 1), label="cuts"))
    bounds = list(zip([0, *cuts], [*cuts, len(pairs)]))
    refs, hyps = [r for r, _ in pairs], [h for _, h in pairs]

    whole = build(name, spm_model)
    whole.update(ref=refs, hyp=hyps)

    shards = [build(name, spm_model) for _ in bounds]
    for metric, (start, stop) in zip(shards, bounds):
        metric.update(ref=refs[start:stop], hyp=hyps[start:stop])  # a shard may be empty
    states = [m.state() for m in shards]
    merged = build(name, spm_model)
    merged.update(ref=["stale"], hyp=["data"])  # load_state replaces, not adds
    merged.load_state(merged.merge_states(states))

    assert merged.state() == whole.state()
    assert merged.merge_states(states[::-1]) == whole.state()
    assert compute_or_error(merged) == compute_or_error(whole)
