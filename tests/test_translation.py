"""BLEU, chrF and the translation edit rate against sacrebleu 2.6, run in the test on the same inputs.

Statistics must be equal exactly and scores as floats (so to every printed digit); merged
states must equal one pass; the paired tests must give sacrebleu's p-values for the same seed.
The fast paths, each against sacrebleu's own function, are in ``test_translation_fast_paths.py``.
"""

from __future__ import annotations

import importlib.util
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import BLEU as SBLEU
from sacrebleu.metrics import CHRF as SCHRF
from sacrebleu.metrics import TER as STER
from sacrebleu.significance import PairedTest
from sacrebleu_checks import WORDS, check_bleu, check_chrf, check_ter, ours, text

from lightscore.analysis.mt_significance import paired_ar_test, paired_bootstrap_test
from lightscore.metrics.translation import BLEU, ChrF, TranslationEditRate
from lightscore.text.mt.tokenizers import bleu_tokenizer, tokenize_13a_batch

TOKENIZERS = ["13a", "intl", "zh", "char", "none"]
MECAB = {"ja-mecab": "MeCab", "ko-mecab": "mecab_ko"}
DOC_SYS = ["The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."]
DOC_REFS = [
    ["The dog bit the man.", "It was not unexpected.", "The man bit him first."],
    ["The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."],
]

corpus = st.integers(1, 4).flatmap(
    lambda k: st.lists(st.tuples(text, st.lists(text, min_size=k, max_size=k)), min_size=1, max_size=12)
)


def split(pairs):
    hyps = [h for h, _ in pairs]
    refs = [[r[i] for _, r in pairs] for i in range(len(pairs[0][1]))]
    return hyps, refs


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    corpus,
    st.sampled_from(TOKENIZERS),
    st.booleans(),
    st.sampled_from(["exp", "floor", "add-k", "none"]),
    st.sampled_from([None, 0.5, 2]),
    st.integers(1, 5),
    st.booleans(),
)
def test_bleu_equals_sacrebleu(pairs, tokenize, lowercase, smooth_method, smooth_value, order, effective):
    hyps, refs = split(pairs)
    if smooth_method not in ("floor", "add-k"):
        smooth_value = None
    options = dict(tokenize=tokenize, lowercase=lowercase, smooth_method=smooth_method, smooth_value=smooth_value)
    check_bleu(hyps, refs, **options, max_ngram_order=order, effective_order=effective)


@settings(max_examples=60, deadline=None)
@given(corpus, st.integers(0, 6), st.integers(0, 2), st.integers(1, 3), st.booleans(), st.booleans(), st.booleans())
def test_chrf_equals_sacrebleu(pairs, char_order, word_order, beta, lowercase, whitespace, eps):
    if char_order + word_order == 0:
        char_order = 1
    hyps, refs = split(pairs)
    check_chrf(
        hyps,
        refs,
        char_order=char_order,
        word_order=word_order,
        beta=beta,
        lowercase=lowercase,
        whitespace=whitespace,
        eps_smoothing=eps,
    )


@pytest.mark.parametrize(("hyp", "ref"), [(":\x00", ""), ("", ":\x00"), ("a \x00: b", "a \x00 : b \x00\x00")])
def test_chrf_plus_words_that_are_the_separators_character(hyp: str, ref: str) -> None:
    """chrF++ splits a punctuation mark off a word: a part left that is the stream's separator (a NUL) stays a
    word (found by the property test above: an IndexError, or a segment's words cut short)."""
    check_chrf([hyp, "x"], [[ref, "x y"]], word_order=2)


@settings(max_examples=40, deadline=None)
@given(corpus, st.booleans(), st.booleans(), st.booleans(), st.booleans())
def test_ter_equals_sacrebleu(pairs, normalized, no_punct, asian, case_sensitive):
    hyps, refs = split(pairs)
    check_ter(hyps, refs, normalized=normalized, no_punct=no_punct, asian_support=asian, case_sensitive=case_sensitive)


@settings(max_examples=200, deadline=None)
@given(st.lists(text, min_size=1, max_size=20))
def test_13a_batch_equals_sacrebleu_tokenizer(lines):
    one = bleu_tokenizer("13a")
    lines = [line.rstrip() for line in lines]
    assert tokenize_13a_batch(lines) == [one(line).split() for line in lines]


def test_documented_example():
    """sacrebleu's README example: BLEU 48.53, chrF 59.73, TER 36.84 (computed here by sacrebleu too)."""
    b = check_bleu(DOC_SYS, DOC_REFS)
    assert f"{b.compute()['BLEU']:.2f}" == "48.53"
    check_chrf(DOC_SYS, DOC_REFS)
    check_chrf(DOC_SYS, DOC_REFS, word_order=2)
    check_ter(DOC_SYS, DOC_REFS)
    assert b.settings() == "BLEU nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0"


@pytest.mark.parametrize("tokenize", list(MECAB))
def test_mecab_tokenizers(tokenize):
    if importlib.util.find_spec(MECAB[tokenize]) is None:
        pytest.skip(f"{tokenize}: its PyPI packages (sacrebleu[ja] / sacrebleu[ko]) are not installed")
    check_bleu(["東京に行きました。", "안녕하세요 세계"], [["東京へ行った。", "안녕 세계"]], tokenize=tokenize)


def generated(n, refs, seed=0):
    rng = random.Random(seed)
    vocab = WORDS + [f"w{i}" for i in range(500)] + list(".,!?")

    def sentence():
        return " ".join(rng.choice(vocab) for _ in range(rng.randint(0, 30)))

    return [sentence() for _ in range(n)], [[sentence() for _ in range(n)] for _ in range(refs)]


@pytest.mark.parametrize("cls", [BLEU, ChrF, TranslationEditRate])
def test_merged_states_equal_one_pass(cls):
    hyps, refs = generated(300, 2)
    whole = ours(cls(references=2), hyps, refs).compute()
    parts = []
    for lo, hi in ((0, 17), (17, 200), (200, 300)):
        parts.append(ours(cls(references=2), hyps[lo:hi], [r[lo:hi] for r in refs]).state())
    merged = cls(references=2)
    merged.load_state(merged.merge_states(parts))
    assert merged.compute() == whole


@pytest.mark.slow
def test_generated_corpus_of_10000_segments():
    hyps, refs = generated(10000, 4, seed=3)
    for k in (1, 4):
        check_bleu(hyps, refs[:k])
        check_chrf(hyps, refs[:k], word_order=2)
    check_ter(hyps[:1000], [r[:1000] for r in refs[:2]])


def test_sentence_scores_and_interval():
    hyps, refs = generated(50, 1, seed=5)
    m = ours(BLEU(ci=0.95, bootstrap=200), hyps, refs)
    scores = m.utterance_scores()
    reference = SBLEU(effective_order=True)
    assert scores["u00007"] == reference.sentence_score(hyps[7], [refs[0][7]]).score
    r = m.compute()
    assert r["BLEU_ci_low"] <= r["BLEU"] <= r["BLEU_ci_high"]
    assert m.settings().endswith("ci=0.95 bootstrap=200 seed=0")


@pytest.mark.parametrize("test_type", ["bs", "ar"])
@pytest.mark.parametrize("cls,name", [(BLEU, "BLEU"), (ChrF, "chrF2"), (TranslationEditRate, "TER")])
def test_paired_tests_equal_sacrebleu(test_type, cls, name):
    hyps, refs = generated(80, 1, seed=11)
    other, _ = generated(80, 1, seed=12)
    other = [a if i % 3 else b for i, (a, b) in enumerate(zip(hyps, other))]
    reference = {"BLEU": SBLEU(), "chrF2": SCHRF(), "TER": STER()}[name]
    samples = 300 if test_type == "bs" else 500
    _, scores = PairedTest([("a", hyps), ("b", other)], {name: reference}, refs, test_type, samples)()
    a = ours(cls(per_utterance=True), hyps, refs)
    b = ours(cls(per_utterance=True), other, refs)
    test = paired_bootstrap_test if test_type == "bs" else paired_ar_test
    result = test(a.sacrebleu_rows(), b.sacrebleu_rows(), a.stats_score, n_samples=samples)
    expected = scores[name][1]
    assert result["p_value"] == expected.p_value and result["score"] == expected.score
    if test_type == "bs":
        assert result["mean"] == pytest.approx(expected.mean, abs=0) and result["ci"] == expected.ci


def test_scp_files_and_unbound_reference(tmp_path):
    hyps, refs = generated(40, 2, seed=9)
    for name, lines in (("hyp", hyps), ("ref", refs[0]), ("ref2", refs[1])):
        (tmp_path / f"{name}.scp").write_text("".join(f"u{i:03d} {t}\n" for i, t in enumerate(lines)))
    data = {k: tmp_path / f"{k}.scp" for k in ("hyp", "ref", "ref2")}
    two = BLEU(references=2)(data, "dev")
    assert two["BLEU"] == SBLEU().corpus_score([h.strip() for h in hyps], [[r.strip() for r in x] for x in refs]).score
    one = BLEU(references=2)
    one({"hyp": data["hyp"], "ref": data["ref"]}, "dev")
    assert one.nrefs() == 1


@pytest.mark.parametrize(
    "build,message",
    [
        (lambda: BLEU(tokenize="moses"), "BLEU: tokenize 'moses' is not one of"),
        (lambda: BLEU(max_ngram_order=0), "BLEU: max_ngram_order must be >= 1"),
        (lambda: BLEU(smooth="exp"), "BLEU: unknown option 'smooth'"),
        (lambda: ChrF(char_order=-1), "chrF: char_order must be >= 0"),
        (lambda: ChrF(lowercase="yes"), "chrF: lowercase must be a bool"),
        (lambda: TranslationEditRate(normalize=True), "TransTER: unknown option 'normalize'"),
        (lambda: TranslationEditRate(references=0), "TransTER: references must be >= 1"),
        (lambda: BLEU(ci=1.5), "BLEU: ci 1.5 is not between 0 and 1"),
    ],
)
def test_bad_options(build, message):
    with pytest.raises((TypeError, ValueError), match=message.replace("(", r"\(")):
        build()


def test_names_cannot_be_mistaken():
    from lightscore.metrics import TER

    assert TranslationEditRate.name == "TransTER" and TER.name == "TER"
    assert [f.name for f in TranslationEditRate().outputs] == [
        "TransTER",
        "TransTER_edits",
        "TransTER_ref_len",
        "TransTER_segments",
    ]


# -- issue 38 item 1: every sacrebleu option means what sacrebleu means -----------------------------------------------

CJK = {
    "zh": (["我喜欢编程。你好世界"], [["我喜欢编程序。你好，世界"]], 47.27),
    "ja": (["東京に行きました。今日は晴れです"], [["東京へ行った。今日は晴れ"]], None),
    "ko": (["안녕하세요 세계입니다"], [["안녕 세계입니다"]], None),
}


@pytest.mark.parametrize("lang", list(CJK))
def test_trg_lang_picks_sacrebleus_tokenizer(lang):
    """`BLEU(trg_lang=...)` tokenizes as sacrebleu's BLEU(trg_lang=...): zh, ja-mecab, ko-mecab (it gave 13a's 0.0)."""
    hyps, refs, expected = CJK[lang]
    m = check_bleu(hyps, refs, trg_lang=lang)  # statistics, score and signature equal to sacrebleu's
    if expected is not None:
        assert round(m.compute()["BLEU"], 2) == expected
    assert m.tokenize == {"zh": "zh", "ja": "ja-mecab", "ko": "ko-mecab"}[lang]
    assert BLEU(trg_lang="de").tokenize == "13a" == BLEU().tokenize


def test_trg_lang_with_another_tokenizer_warns_and_keeps_it():
    with pytest.warns(UserWarning, match="tokenize '13a' for trg_lang 'zh'; sacrebleu would pick 'zh'"):
        m = BLEU(tokenize="13a", trg_lang="zh")
    assert m.tokenize == "13a"
    with pytest.warns(UserWarning):
        check_bleu(*CJK["zh"][:2], tokenize="13a", trg_lang="zh")


def test_options_sacrebleu_has_that_lightscore_refuses():
    """sacrebleu's SentencePiece tokenizers (they download a model) are refused by name, not silently replaced."""
    with pytest.raises(ValueError, match="'flores200' .*SentencePiece.*not supported"):
        BLEU(tokenize="flores200")
    with pytest.raises(TypeError, match="references must be an int"):
        BLEU(references=[["a reference text"]])  # sacrebleu's references= are texts: here, update() takes them


@pytest.mark.parametrize(
    "options",
    [{"lowercase": True}, {"whitespace": True}, {"eps_smoothing": True}, {"beta": 1, "word_order": 2}],
)
def test_chrf_options_mean_sacrebleus(options):
    check_chrf(["The Cat  sat.", "a b"], [["the cat sat .", "A  B"]], **options)


@pytest.mark.parametrize(
    "options",
    [{"case_sensitive": True}, {"normalized": True}, {"no_punct": True}, {"normalized": True, "asian_support": True}],
)
def test_ter_options_mean_sacrebleus(options):
    check_ter(["The Cat, sat.", "東京に 行った。"], [["the cat sat .", "東京へ行った"]], **options)
