"""Every fast path of the hubscr family equals its plain twin in `lightscore.text.hubscr.reference` (or the one its
docstring names), on NIST's own GLMs; ``sctk hubscr`` and ``csrfilt`` stay the outside oracles elsewhere
(tests/test_hubscr_*.py, tests/test_glm.py)."""

from __future__ import annotations

import random

from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_glm import OTHER, RULE_WORDS

from lightscore.text.hubscr import reference
from lightscore.text.hubscr.ctm_fields import ctm_fields
from lightscore.text.hubscr.glm import GLMS, glm_path, read_glm
from lightscore.text.hubscr.glm_cursor import rewrite

NIST = [read_glm(glm_path(name)) for name in GLMS]

word = st.sampled_from(random.Random(3).sample(RULE_WORDS, 200) + OTHER + ["uh", "gonna", "e-mail", "(um)", "wor-"])
# Rule words, their halves and two glued together: where rules match inside words and across them.
piece = word | st.tuples(word, word).map("".join) | word.map(lambda w: w[: len(w) // 2] or w)
texts = st.lists(piece, max_size=10).map(lambda words: " " + " ".join(words) + " ")


@settings(max_examples=80, deadline=None)
@given(text=texts, which=st.sampled_from(range(len(NIST))), purpose=st.sampled_from([("stm", "ref"), ("ctm", "hyp")]))
@example(text=" ", which=0, purpose=("stm", "ref"))
@example(text=" UH HUH GONNA ", which=0, purpose=("ctm", "hyp"))
def test_the_glm_cursor_equals_rfilter1_on_nist_glms(text: str, which: int, purpose: tuple[str, str]) -> None:
    """`rewrite` (words written once, the cursor only where a rule may match) against every rule at every place."""
    glm = NIST[which]
    assert rewrite(text, glm, *purpose) == reference.rfilter1(text, glm, *purpose)


@settings(max_examples=40, deadline=None)
@given(text=st.lists(piece, max_size=6).map(" ".join))
def test_unpadded_texts_and_words_learned_earlier_equal_rfilter1(text: str) -> None:
    """The first and last segments have no space around them; a word learned in one text is reused in the next."""
    glm = NIST[0]
    for probe in (text, f" {text} ", f" gonna {text} "):
        assert rewrite(probe, glm, "stm", "ref") == reference.rfilter1(probe, glm, "stm", "ref")


field = st.text(alphabet=st.sampled_from(["a", ";", "é", "1", ".", "0"]), min_size=1, max_size=4)
gap = st.sampled_from([" ", "  ", "\t", "\x0b", "\x1c"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.lists(field, min_size=5, max_size=6), gap, st.sampled_from(["", ";;"])), max_size=10))
@example([])
@example([(["f", "A", "1.0005", "2", "x"], " ", "")])
def test_the_byte_level_ctm_reader_equals_the_line_split_reader(lines: list[tuple[list[str], str, str]]) -> None:
    """`ctm_fields` (fields found in the bytes, times read eight bytes at a time) against `plain_fields`."""
    text = "\n".join(mark + spaces.join(fields) for fields, spaces, mark in lines)
    fast, plain = ctm_fields(text), reference.plain_fields(text)
    assert (fast is None) == (plain is None)
    if fast is None or plain is None:
        return
    assert [fast.column(k) for k in range(fast.width)] == [plain.column(k) for k in range(plain.width)]
    for k in range(fast.width):
        found, expected = fast.times(k), plain.times(k)
        assert (found is None and expected is None) or found.tolist() == expected.tolist()
    keys, numbers = fast.runs(0, 1)
    plain_keys, plain_numbers = plain.runs(0, 1)
    assert keys == plain_keys and numbers.tolist() == plain_numbers.tolist()
