"""The shortcuts of the counting core give jiwer's counts: every branch, on text made to reach it.

`sum_edits` skips identical texts and reads S/D/I from the length difference or
the matching blocks; `CER` skips re-joining a batch that `is_normalized` passes;
`pra_block` takes correct tokens in one step. Each is checked here against the
plain definition (jiwer, or the per-token formatting) on random text that mixes
every kind of whitespace, empty sides and case.
"""

from __future__ import annotations

import jiwer
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein

from lightscore.metrics import CER, WER
from lightscore.text.alignment import align, pra_block
from lightscore.text.counting import _edit_counts, count_edits, is_normalized

TOKENS = ["a", "b", "ab", "B", "é", "ß", "x"]
SPACES = [" ", " ", " ", "  ", "\t", "\u3000", "\xa0", "\x1c"]

text = st.lists(st.tuples(st.sampled_from(TOKENS), st.sampled_from(SPACES)), max_size=8).map(
    lambda words: "".join(w + s for w, s in words)
)
stripped = text.map(str.strip)
pairs = st.lists(st.tuples(text, text) | stripped.map(lambda t: (t, t)), min_size=1, max_size=12)


def jiwer_counts(process, refs, hyps) -> tuple[int, int, int, int] | None:
    clean = [" ".join(t.split()) for t in refs], [" ".join(t.split()) for t in hyps]
    if not any(clean[0]):  # jiwer refuses references without a token
        return None
    out = process(*clean)
    return out.substitutions, out.deletions, out.insertions, out.hits


@settings(max_examples=300, deadline=None)
@given(pairs=pairs, fold=st.booleans())
def test_wer_and_cer_batches_equal_jiwer(pairs, fold):
    refs, hyps = [r for r, _ in pairs], [h for _, h in pairs]
    case = "fold" if fold else "sensitive"
    lowered = ([t.lower() for t in refs], [t.lower() for t in hyps]) if fold else (refs, hyps)
    for metric, process in ((WER(case=case), jiwer.process_words), (CER(case=case), jiwer.process_characters)):
        expected = jiwer_counts(process, *lowered)
        if expected is None:
            continue
        metric.update(ref=refs, hyp=hyps)
        assert (metric.substitutions, metric.deletions, metric.insertions, metric.hits) == expected


@settings(max_examples=300, deadline=None)
@given(ref=st.lists(st.sampled_from("abc"), max_size=12), hyp=st.lists(st.sampled_from("abc"), max_size=12))
def test_counts_from_blocks_equal_counting_every_editop(ref, hyp):
    ops = Levenshtein.editops(ref, hyp)
    tags = [op.tag for op in ops]
    assert _edit_counts(ops) == (tags.count("replace"), tags.count("delete"), tags.count("insert"))
    assert count_edits(ref, hyp) == _edit_counts(ops)


@given(texts=st.lists(text, max_size=6))
def test_is_normalized_is_every_text_equal_to_its_joined_split(texts):
    assert is_normalized(texts) == all(t == " ".join(t.split()) for t in texts)


def slow_pra_block(utt_id: str, pairs: list) -> str:
    """The per-token formatting pra_block had before its shortcut for correct tokens."""

    def show(token):
        return "***" if token is None else "<sp>" if token == " " else token

    counts = {mark: sum(1 for *_, m in pairs if m == mark) for mark in "CSDI"}
    cells = [], [], []
    for ref, hyp, mark in pairs:
        r, h = show(ref), show(hyp)
        width = max(len(r), len(h), 1)
        cells[0].append((r if ref is not None else "*" * width).ljust(width))
        cells[1].append((h if hyp is not None else "*" * width).ljust(width))
        cells[2].append(("" if mark == "C" else mark).ljust(width))
    ref_line, hyp_line, eval_line = (" ".join(c).rstrip() for c in cells)
    scores = " ".join(str(counts[m]) for m in "CSDI")
    return f"id: {utt_id}\nScores: (#C #S #D #I) {scores}\nREF:  {ref_line}\nHYP:  {hyp_line}\nEval: {eval_line}\n"


@given(ref=stripped, hyp=stripped, chars=st.booleans())
def test_pra_block_equals_the_per_token_formatting(ref, hyp, chars):
    ref_tokens, hyp_tokens = (ref, hyp) if chars else (ref.split(), hyp.split())
    pairs = align(ref_tokens, hyp_tokens)
    assert pra_block("u1", pairs) == slow_pra_block("u1", pairs)
