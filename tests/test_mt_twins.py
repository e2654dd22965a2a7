"""Every fast path of the translation family equals its plain twin in `lightscore.text.mt.reference`, on generated
input: Unicode, empty segments, long segments, several references, references missing. (The sacrebleu oracle tests
are in test_translation*.py and test_sacrebleu_api.py; these hold the two lightscore roads to each other.)"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sacrebleu_checks import WORDS, text

from lightscore.text.mt import reference
from lightscore.text.mt.bleu import bleu_segment_stats
from lightscore.text.mt.chrf import chrf_segment_stats
from lightscore.text.mt.ter import tercom_words
from lightscore.text.mt.ter_beam import beam_distances, edit_counts, shifted_pairs
from lightscore.text.mt.token_ids import TokenIds
from lightscore.text.mt.tokenizers import SEPARATOR, bleu_tokenizer, tercom_tokenizer, tokenize_13a_batch

long_segment = st.lists(st.sampled_from(WORDS + ["a", "b", "x.y", "(z)"]), min_size=50, max_size=300).map(" ".join)
segment = text | st.text(max_size=20) | long_segment | st.just("")
# segments free of what the fast roads hand to the slow ones (NUL, line breaks), so the fast road is the one tested
fast_segment = segment.map(lambda s: s.replace("\x00", "").replace("\n", " ").replace("\r", " ").rstrip())
checked = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def corpus(min_refs: int = 1, max_refs: int = 3):
    """Segments with 1-3 references each and a mask of the references each segment lacks (never the first)."""
    return st.integers(min_refs, max_refs).flatmap(
        lambda k: st.lists(
            st.tuples(
                fast_segment,
                st.lists(fast_segment, min_size=k, max_size=k),
                st.lists(st.booleans(), min_size=k, max_size=k),
            ),
            min_size=1,
            max_size=10,
        )
    )


def split(rows):
    hyps = [h for h, _, _ in rows]
    refs = [[r[k] for _, r, _ in rows] for k in range(len(rows[0][1]))]
    present = np.array([[k == 0 or p[k] for _, _, p in rows] for k in range(len(rows[0][1]))], bool)
    return hyps, refs, present


def partition(ids: np.ndarray, lengths: np.ndarray) -> list[list[int]]:
    seen: dict[int, int] = {}
    flat = [seen.setdefault(i, len(seen)) for i in ids.tolist()]
    cuts = np.cumsum(lengths).tolist()
    return [flat[a:b] for a, b in zip([0, *cuts[:-1]], cuts)]


def plain_partition(lines: list[str]) -> list[list[int]]:
    seen: dict[str, int] = {}
    return [[seen.setdefault(t, len(seen)) for t in reference.tokenize_13a(line)] for line in lines]


@checked
@given(st.lists(segment.map(str.rstrip), min_size=1, max_size=12))
def test_13a_token_ids_and_batch_equal_plain_tokenizer(lines):
    """TokenIds (ASCII numpy road, per-word road, slow road) and tokenize_13a_batch == reference.tokenize_13a."""
    encoder = TokenIds(bleu_tokenizer("13a"))
    for _ in range(2):  # the second pass reads the cache
        (ids,), (lengths,) = encoder.encode([lines])
        assert partition(ids, lengths) == plain_partition(lines)
    assert tokenize_13a_batch(lines) == [reference.tokenize_13a(line) for line in lines]


@checked
@given(corpus(), st.integers(1, 5))
def test_bleu_stats_equal_plain(rows, order):
    hyps, refs, present = split(rows)
    streams = [
        [t for k, line in enumerate(side) for t in ([SEPARATOR] if k else []) + reference.tokenize_13a(line)]
        for side in (hyps, *refs)
    ]
    fast = bleu_segment_stats(streams[0], streams[1:], present, max_order=order).tolist()
    plain = [
        reference.bleu_stats(
            reference.tokenize_13a(h), [reference.tokenize_13a(r[s]) for r, p in zip(refs, present) if p[s]], order
        )
        for s, h in enumerate(hyps)
    ]
    assert fast == plain


@checked
@given(corpus(), st.integers(0, 6), st.integers(0, 3), st.integers(0, 3), st.booleans(), st.booleans())
def test_chrf_stats_equal_plain(rows, char_order, word_order, beta, whitespace, eps):
    if char_order + word_order == 0:
        char_order = 1
    hyps, refs, present = split(rows)
    options = (char_order, word_order, beta, whitespace, eps)
    fast = chrf_segment_stats(hyps, refs, present, *options).tolist()
    plain = [
        reference.chrf_stats(h, [r[s] for r, p in zip(refs, present) if p[s]], *options) for s, h in enumerate(hyps)
    ]
    assert fast == plain


words = st.lists(st.sampled_from("abcd"), max_size=30) | st.lists(st.sampled_from("ab"), max_size=70)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(words, words), min_size=1, max_size=6))
def test_ter_search_equals_plain(pairs):
    """The batched search with its exact shortcuts (ter_beam, ter_bounds) == the plain shift search."""
    assert edit_counts(pairs) == [reference.ter_edits(h, r) for h, r in pairs]
    for h, r in pairs:
        assert list(shifted_pairs(h, r)) == list(reference.shifted_pairs(h, r))
    full = [([ord(w) for w in h], [ord(w) for w in r]) for h, r in pairs if h and r]  # beam_distances takes ids
    if full:
        distances, traces = beam_distances(full, traces=True)
        assert list(zip(distances, traces)) == [reference.beam_edit_distance(h, r) for h, r in full]


def test_ter_long_pairs_equal_plain():
    """Length ratios past the beam's half width, and a long reordering."""
    long = [f"w{i % 7}" for i in range(80)]
    pairs = [(["a"], ["a"] * 120), (long[30:] + long[:30], long), (long[::-1], long), (long[:10], long)]
    assert edit_counts(pairs) == [reference.ter_edits(h, r) for h, r in pairs]


@checked
@given(st.lists(segment, max_size=10), st.booleans(), st.booleans(), st.booleans(), st.integers(1, 2))
def test_tercom_words_equal_plain(lines, normalized, no_punct, case_sensitive, times):
    tokenizer = tercom_tokenizer(normalized, no_punct, False, case_sensitive)
    assert tercom_words(lines, tokenizer, times) == [reference.tercom_words(line, tokenizer, times) for line in lines]
