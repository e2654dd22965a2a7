"""Every fast path of the sclite family equals its plain twin in `lightscore.text.sclite.reference`.

The twins are the textbook programmes; sctk itself is the outside oracle (tests/test_sclite_align.py,
tests/test_sclite_markup.py). Inputs come from tiny alphabets so that ties, where sclite's tie-breaking
decides the counts, are the rule rather than the exception.
"""

from __future__ import annotations

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lightscore.text.sclite import reference
from lightscore.text.sclite.align import _exact_counts, sclite_align, sclite_counts, sum_sclite_edits
from lightscore.text.sclite.batch import batch_counts
from lightscore.text.sclite.encode import Vocabulary, encode, network
from lightscore.text.sclite.markup import count_markup_pairs, markup_align, markup_counts
from lightscore.text.sclite.network import parse_reference
from lightscore.text.sclite.traceback import (
    CORRECT,
    DELETION,
    INSERTION,
    SUBSTITUTION,
    batch_backtrace,
    bounded_backtrace,
    cost_table,
    token_ids,
)

words = st.lists(st.sampled_from(["a", "b", "c"]), max_size=12)
characters = st.text(alphabet="xyz", max_size=12)
pairs_of_tokens = st.one_of(st.tuples(words, words), st.tuples(characters, characters))

_MOVES = {CORRECT: "C", SUBSTITUTION: "S", DELETION: "D", INSERTION: "I"}


@given(pairs_of_tokens)
@example(([], []))
@example((["a"], []))
@example(([], ["a", "b"]))
@example(("x x x y".split(), "x y y".split()))
def test_alignment_and_counts_equal_the_textbook_programme(pair: tuple) -> None:
    """`sclite_align` (the bounded backtrace) and `sclite_counts` (rapidfuzz's shortcut), words and characters."""
    ref, hyp = pair
    assert sclite_align(ref, hyp) == reference.align_words(ref, hyp)
    assert sclite_counts(ref, hyp) == reference.count_words(ref, hyp)


@given(st.lists(st.tuples(words, words), max_size=8))
def test_corpus_sums_and_exact_batches_equal_the_textbook_programme(pairs: list[tuple[list, list]]) -> None:
    """`sum_sclite_edits` (rapidfuzz's shortcut, then numpy batches for the ties) and `_exact_counts` alone."""
    refs, hyps = [r for r, _ in pairs], [h for _, h in pairs]
    counts = [reference.count_words(r, h) for r, h in pairs]
    expected = (
        sum(c[0] for c in counts),
        sum(c[1] for c in counts),
        sum(c[2] for c in counts),
        sum(map(len, refs)),
        sum(1 for c in counts if any(c)),
    )
    assert sum_sclite_edits([" ".join(r) for r in refs], [" ".join(h) for h in hyps], str.split) == expected
    assert _exact_counts(refs, hyps) == counts


@given(words, words, st.integers(1, 5))
def test_cost_tables_and_backtraces_equal_the_textbook_programme(ref: list, hyp: list, rows: int) -> None:
    """`cost_table` (numpy rows closed by a running minimum), `batch_backtrace` and `bounded_backtrace`."""
    ref_ids, hyp_ids = token_ids([ref], [hyp])
    table = cost_table(ref_ids[:, : len(ref)], hyp_ids[:, : len(hyp)])[0]
    assert table.tolist() == reference.word_costs(ref, hyp)
    marks = [mark for _, _, mark in reference.align_words(ref, hyp)][::-1]  # last move first
    path = batch_backtrace(ref_ids, hyp_ids, [len(ref)], [len(hyp)])[:, 0]
    assert [_MOVES[code] for code in path.tolist() if code] == marks
    assert [_MOVES[code] for code in bounded_backtrace(ref, hyp, block_rows=rows)] == marks


markup_tokens = st.sampled_from(
    ["a", "b", "c", "(a)", "(b)", "@", "wor-", "word", "-ord", "{ a / b }", "{ a b / @ }", "{ (a) / c d }", "{ @ / b }"]
)
markup_texts = st.lists(markup_tokens, max_size=7).map(" ".join)
switches = st.tuples(st.booleans(), st.booleans())  # -D, -F


@given(markup_texts, markup_texts, switches)
@example("", "", (False, False))
@example("@", "@", (True, True))
@example("{ @ / @ }", "a", (False, False))
@example("(a) wor-", "word", (True, True))
def test_markup_alignments_equal_the_textbook_network_programme(ref: str, hyp: str, switch: tuple) -> None:
    """`markup_align` (sclite_align for plain lines, numpy lines, the cell-by-cell programme) and `markup_counts`."""
    ref_net, hyp_net = parse_reference(ref, *switch), parse_reference(hyp, *switch)
    assert markup_align(ref_net, hyp_net) == reference.align_networks(ref_net, hyp_net)
    assert tuple(markup_counts(ref_net, hyp_net)) == reference.count_networks(ref_net, hyp_net)


@settings(max_examples=60)
@given(st.lists(st.tuples(markup_texts, markup_texts), min_size=1, max_size=12), switches)
def test_batches_of_networks_equal_the_textbook_network_programme(pairs: list[tuple[str, str]], switch: tuple) -> None:
    """`count_markup_pairs` and `batch_counts` (float pointers, and the whole-number columns of lines without ``@``)."""
    expected = [reference.count_networks(parse_reference(r, *switch), parse_reference(h, *switch)) for r, h in pairs]
    assert [tuple(c) for c in count_markup_pairs([r for r, _ in pairs], [h for _, h in pairs], *switch)] == expected
    vocabulary = Vocabulary(*switch)
    encoded = [(encode(r, vocabulary), encode(h, vocabulary)) for r, h in pairs]
    assert batch_counts(encoded, vocabulary) == expected


@given(markup_texts, switches)
def test_encoded_networks_are_the_parsed_ones(text: str, switch: tuple) -> None:
    """`encode`'s shortcuts (one split, flat alternations read once) read what `parse_reference` reads."""
    vocabulary = Vocabulary(*switch)
    assert network(encode(text, vocabulary), vocabulary) == parse_reference(text, *switch)


def test_the_twins_agree_on_a_long_tie_heavy_pair() -> None:
    """One pair past a batch's size, where the fast route changes (bounded memory, not the batch)."""
    rng = np.random.default_rng(0)
    ref = rng.choice(["a", "b"], 300).tolist()
    hyp = rng.choice(["a", "b"], 280).tolist()
    assert sclite_align(ref, hyp) == reference.align_words(ref, hyp)
