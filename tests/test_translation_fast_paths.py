"""The fast paths of BLEU, chrF and the translation edit rate (issue 21's speed work), each against
sacrebleu's own function: 13a token ids, the batched TER beam and its exact shortcuts, the text roads."""

from __future__ import annotations

import random
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu_checks import check_bleu, check_chrf, check_ter, text

from lightscore.text.mt.tokenizers import bleu_tokenizer

# -- the fast paths (issue 21's speed work), each against sacrebleu's own function --------------------------------

tricky = st.text(alphabet="ab1.,-&;<>$'()\t \u3000\x1c\xa0é東", max_size=14) | text


def assert_ids_partition_tokens(lines: list[str]) -> None:
    """`TokenIds` with 13a, twice (the second pass reads the cache): one id per 13a token kind, 13a's lengths."""
    from lightscore.text.mt.token_ids import TokenIds

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

    from lightscore.text.mt.ter_beam import beam_distances, edit_counts, shifted_pairs

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

    from lightscore.text.mt.ter_beam import edit_counts

    rng = random.Random(4)
    pairs = [(["a"], ["a"] * 120), (["a", "b"] * 3, ["b"] * 150), (["x"] * 100, ["x"]), ([], ["a"]), (["a"], [])]
    pairs += [(["a"] * 60 + ["b"], ["b"] + ["a"] * 60), (list("ab" * 30), list("ab" * 30))]
    pairs += [
        ([rng.choice("ab") for _ in range(rng.randint(1, 70))], [rng.choice("abc") for _ in range(80)])
        for _ in range(20)
    ]
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
@given(
    st.integers(0, 10**6),
    st.integers(1, 80),
    st.integers(2, 30),
    st.integers(0, 4),
    st.integers(0, 30),
    st.integers(0, 30),
)
def test_ter_shortcuts_equal_sacrebleu_lib_ter(seed, length, alphabet, moves, deletions, insertions):
    """Long references past the band's cover, subsequences near 24-26 words apart, shifts of repeated words."""
    from sacrebleu.metrics.lib_ter import translation_edit_rate

    from lightscore.text.mt.ter_beam import edit_counts

    rng = random.Random(seed)
    ref = [f"w{rng.randrange(alphabet)}" for _ in range(length)]
    pairs = [(edited(rng, ref, moves, deletions, insertions), ref), (ref, edited(rng, ref, moves, deletions, 0))]
    pairs.append((edited(rng, ref, 0, deletions, 0), ref))  # a subsequence: the length difference, no search
    assert edit_counts(pairs) == [translation_edit_rate(h, r)[0] for h, r in pairs]


def test_ter_shortcut_edges_equal_sacrebleu():
    """Subsequences 22-27 words shorter or longer, equal distances on either side of the band rule, ties."""
    from sacrebleu.metrics.lib_ter import translation_edit_rate

    from lightscore.text.mt.ter_beam import edit_counts

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
    """ASCII text through the per-word cache: words of 8, 9 and 10 characters, 13a's symbols, control characters."""

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
