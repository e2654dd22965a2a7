"""BLEU, chrF and the translation edit rate against sacrebleu 2.6, run in the test on the same inputs.

Statistics must be equal exactly and scores as floats (so to every printed digit); merged
states must equal one pass; the paired tests must give sacrebleu's p-values for the same seed.
"""

from __future__ import annotations

import importlib.util
import random
import string

import numpy as np
import pytest
import sacrebleu
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import BLEU as SBLEU
from sacrebleu.metrics import CHRF as SCHRF
from sacrebleu.metrics import TER as STER
from sacrebleu.significance import PairedTest

from lightscore.analysis.mt_significance import paired_ar_test, paired_bootstrap_test
from lightscore.core.batch import feed
from lightscore.metrics.translation import BLEU, ChrF, TranslationEditRate
from lightscore.text.mt_tokenize import bleu_tokenizer, tokenize_13a_batch

assert sacrebleu.__version__.startswith("2.6"), sacrebleu.__version__

TOKENIZERS = ["13a", "intl", "zh", "char", "none"]
MECAB = {"ja-mecab": "MeCab", "ko-mecab": "mecab_ko"}
WORDS = "the a cat dog sat ran on over mat hill Über 東京 的 est-ce 3.5 1,000 $5 (hi) don't U.S. it's".split()
PUNCT = list(".,!?;:'\"()-&/") + ["&amp;", "&quot;", "<skipped>", " ", "  ", "\t"]
DOC_SYS = ["The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."]
DOC_REFS = [
    ["The dog bit the man.", "It was not unexpected.", "The man bit him first."],
    ["The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."],
]

text = st.lists(st.one_of(st.sampled_from(WORDS), st.sampled_from(PUNCT), st.text(max_size=3)), max_size=12).map(
    "".join
)
corpus = st.integers(1, 4).flatmap(
    lambda k: st.lists(st.tuples(text, st.lists(text, min_size=k, max_size=k)), min_size=1, max_size=12)
)


def split(pairs):
    hyps = [h for h, _ in pairs]
    refs = [[r[i] for _, r in pairs] for i in range(len(pairs[0][1]))]
    return hyps, refs


def ours(metric, hyps, refs, ids=None):
    batch = {"hyp": hyps, "ref": refs[0], **{f"ref{i}": r for i, r in enumerate(refs[1:], 2)}}
    feed(metric, batch, ids or [f"u{i:05d}" for i in range(len(hyps))])
    return metric


def stat_rows(metric):
    return np.array([row[1:] for row in sorted(metric.segment_stats)])


def check_bleu(hyps, refs, **options):
    reference = SBLEU(**options)
    expected = reference.corpus_score(hyps, refs)
    m = ours(BLEU(references=len(refs), per_utterance=True, **options), hyps, refs)
    assert stat_rows(m).tolist() == reference._extract_corpus_statistics(hyps, refs)
    result = m.compute()
    assert result["BLEU"] == expected.score and result["BLEU_bp"] == expected.bp
    assert m.signature() == str(reference.get_signature())
    return m


def check_chrf(hyps, refs, **options):
    reference = SCHRF(**options)
    m = ours(ChrF(references=len(refs), per_utterance=True, **options), hyps, refs)
    assert stat_rows(m).tolist() == reference._extract_corpus_statistics(hyps, refs)
    assert m.compute()["chrF"] == reference.corpus_score(hyps, refs).score
    assert m.signature() == str(reference.get_signature())


def check_ter(hyps, refs, **options):
    reference = STER(**options)
    expected = reference.corpus_score(hyps, refs)
    m = ours(TranslationEditRate(references=len(refs), per_utterance=True, **options), hyps, refs)
    assert m.sacrebleu_rows() == reference._extract_corpus_statistics(hyps, refs)
    result = m.compute()
    assert f"{result['TransTER']:.2f}" == f"{expected.score:.2f}"
    if len(refs) != 3:  # with 3 references sacrebleu's running float sum of thirds may differ in the last bits
        assert result["TransTER"] == expected.score
    assert result["TransTER_edits"] == expected.num_edits
    assert m.signature() == str(reference.get_signature())


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
    check_chrf(hyps, refs, char_order=char_order, word_order=word_order, beta=beta, lowercase=lowercase,
               whitespace=whitespace, eps_smoothing=eps)  # fmt: skip


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
    a, b = ours(cls(per_utterance=True), hyps, refs), ours(cls(per_utterance=True), other, refs)
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
    assert [f.name for f in TranslationEditRate().outputs] == ["TransTER", "TransTER_edits", "TransTER_ref_len",
                                                                 "TransTER_segments"]  # fmt: skip


# -- the fast paths (issue 21's speed work), each against sacrebleu's own function --------------------------------

tricky = st.text(alphabet="ab1.,-&;<>$'()\t \u3000\x1c\xa0é東", max_size=14) | text


def assert_ids_partition_tokens(lines: list[str]) -> None:
    """`TokenIds` with 13a, twice (the second pass reads the cache): one id per 13a token kind, 13a's lengths."""
    from lightscore.text.token_ids import TokenIds

    one = bleu_tokenizer("13a")
    encoder = TokenIds(one)
    for _ in range(2):
        (ids,), (lengths,) = encoder.encode([lines])
        expected = [one(line).split() for line in lines]
        assert lengths.tolist() == [len(tokens) for tokens in expected]
        vocab = {}
        dense = [vocab.setdefault(t, len(vocab)) for tokens in expected for t in tokens]
        # ids are dense in sorted-id order, not first-seen order: compare the partition of tokens
        assert len(set(zip(ids.tolist(), dense))) == len(set(dense)) == len(set(ids.tolist()))


@settings(max_examples=300, deadline=None)
@given(st.lists(tricky, min_size=1, max_size=12))
def test_13a_per_word_ids_equal_sacrebleu_tokenizer(lines):
    assert_ids_partition_tokens([line.rstrip() for line in lines])


words = st.lists(st.sampled_from("abcd"), max_size=25) | st.lists(st.sampled_from("ab"), max_size=60)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(words, words), min_size=1, max_size=8))
def test_batched_ter_equals_sacrebleu_lib_ter(pairs):
    from sacrebleu.metrics.lib_ter import BeamEditDistance, _find_shifted_pairs, translation_edit_rate

    from lightscore.text.ter_beam import beam_distances, edit_counts, shifted_pairs

    assert edit_counts(pairs) == [translation_edit_rate(h, r)[0] for h, r in pairs]
    for h, r in pairs:
        assert list(shifted_pairs(h, r)) == list(_find_shifted_pairs(h, r))
    full = [(h, r) for h, r in pairs if h and r]
    if full:
        ids = [([ord(w) for w in h], [ord(w) for w in r]) for h, r in full]
        distances, traces = beam_distances(ids, traces=True)
        assert list(zip(distances, traces)) == [BeamEditDistance(r)(h) for h, r in full]


@pytest.mark.slow
def test_ter_beam_edges_equal_sacrebleu():
    """Length ratios past the beam, subsequences leaving the beam, identical and empty sides."""
    from sacrebleu.metrics.lib_ter import translation_edit_rate

    from lightscore.text.ter_beam import edit_counts

    rng = random.Random(4)
    pairs = [(["a"], ["a"] * 120), (["a", "b"] * 3, ["b"] * 150), (["x"] * 100, ["x"]), ([], ["a"]), (["a"], [])]
    pairs += [(["a"] * 60 + ["b"], ["b"] + ["a"] * 60), (list("ab" * 30), list("ab" * 30))]
    pairs += [([rng.choice("ab") for _ in range(rng.randint(1, 70))], [rng.choice("abc") for _ in range(80)])
              for _ in range(20)]  # fmt: skip
    assert edit_counts(pairs) == [translation_edit_rate(h, r)[0] for h, r in pairs]


# -- the exact shortcuts of the speed work (issue 21): each against sacrebleu on inputs aimed at its edges ----------


def edited(rng, ref, moves, deletions, insertions):
    """``ref`` with block moves (what TER shifts), deleted words and inserted words."""
    hyp = list(ref)
    for _ in range(moves):
        if len(hyp) > 2:
            start = rng.randrange(len(hyp))
            block = hyp[start : start + rng.randint(1, 6)]
            del hyp[start : start + len(block)]
            at = rng.randrange(len(hyp) + 1)
            hyp[at:at] = block
    for _ in range(deletions):
        if hyp:
            del hyp[rng.randrange(len(hyp))]
    for _ in range(insertions):
        hyp.insert(rng.randrange(len(hyp) + 1), rng.choice(ref or ["x"]))
    return hyp


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 80), st.integers(2, 30), st.integers(0, 4), st.integers(0, 30),
       st.integers(0, 30))  # fmt: skip
def test_ter_shortcuts_equal_sacrebleu_lib_ter(seed, length, alphabet, moves, deletions, insertions):
    """Long references past the band's cover, subsequences near 24-26 words apart, shifts of repeated words."""
    from sacrebleu.metrics.lib_ter import translation_edit_rate

    from lightscore.text.ter_beam import edit_counts

    rng = random.Random(seed)
    ref = [f"w{rng.randrange(alphabet)}" for _ in range(length)]
    pairs = [(edited(rng, ref, moves, deletions, insertions), ref), (ref, edited(rng, ref, moves, deletions, 0))]
    pairs.append((edited(rng, ref, 0, deletions, 0), ref))  # a subsequence: the length difference, no search
    assert edit_counts(pairs) == [translation_edit_rate(h, r)[0] for h, r in pairs]


def test_ter_shortcut_edges_equal_sacrebleu():
    """Subsequences 22-27 words shorter or longer, equal distances on either side of the band rule, ties."""
    from sacrebleu.metrics.lib_ter import translation_edit_rate

    from lightscore.text.ter_beam import edit_counts

    long = [f"w{i % 7}" for i in range(60)]
    pairs = [(long[gap:], long) for gap in range(22, 28)] + [(long, long[:-gap]) for gap in range(22, 28)]
    pairs += [(long[:10] + long[30:], long), (long[25:] + long[:25], long), (long[::-1], long)]
    pairs += [(["a", "b"] * 20, ["b", "a"] * 20), (["a"] * 30, ["a"] * 29 + ["b"]), (long, long)]
    pairs += [([], long), (long, []), (["x"] * 40, long)]
    assert edit_counts(pairs) == [translation_edit_rate(h, r)[0] for h, r in pairs]


ascii_text = st.text(alphabet=string.printable + "\x01\x1c\x1f\x7f", max_size=40) | st.lists(
    st.sampled_from(["a", "abcdefgh", "abcdefghi", "abcdefghij", "x.y", "3,5", "(a)", "'s", "-", "&amp;", "  "]),
    max_size=10,
).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(ascii_text, min_size=1, max_size=12))
def test_13a_ascii_keys_equal_sacrebleu_tokenizer(lines):
    """The numpy road for ASCII text: words of 8, 9 and 10 characters, 13a's symbols, control characters."""

    assert_ids_partition_tokens([line.rstrip() for line in lines if "\n" not in line and "\r" not in line] or ["a"])


def test_text_roads_equal_sacrebleu():
    """Mixed ASCII and non-ASCII batches, a newline inside a segment, final sigma, NUL: every road sacrebleu's."""
    hyps = ["The ΣΑΣ cat.", "a\nb c", "x\x00y z", "plain ascii words here", "", "ΟΔΟΣ ΟΔΟΣ"]
    refs = [["the σας cat .", "a b c", "x\x00y", "plain ascii words", "a", "οδος ΟΔΟΣ"]]
    for options in ({}, {"lowercase": True}):
        check_bleu(hyps, refs, **options)
    for case_sensitive in (False, True):
        check_ter(hyps, refs, case_sensitive=case_sensitive)
    ascii_only = [h.encode("ascii", "replace").decode() for h in hyps]
    check_bleu(ascii_only, refs)


def test_bleu_batches_too_wide_for_one_key():
    """Thousands of distinct words in one batch (halved until the keys fit) and one segment past 2**15 words."""
    rng = random.Random(7)
    refs = [" ".join(f"t{rng.randrange(10**6)}" for _ in range(30)) for _ in range(3000)]
    hyps = [" ".join(w for w in r.split() if rng.random() < 0.8) for r in refs]
    check_bleu(hyps, [refs])
    check_bleu(hyps[:50], [refs[:50], hyps[50:100]])
    wide = " ".join(f"u{i}" for i in range(40000))
    check_bleu([wide, "a b"], [[wide[: len(wide) // 2], "a b"]])


def test_chrf_segments_too_wide_for_one_key():
    """Three segments of over 1,024 distinct characters each: halved (an odd count) down to one segment."""
    rng = random.Random(8)
    lines = ["".join(chr(0x4E00 + rng.randrange(20000)) for _ in range(1500)) for _ in range(3)]
    check_chrf(lines, [[line[::-1] for line in lines]])
