"""Every fast path of the hubscr family equals its plain twin in `lightscore.text.hubscr.reference` (or the one its
docstring names), on NIST's own GLMs; ``sctk hubscr`` and ``csrfilt`` stay the outside oracles elsewhere
(tests/test_hubscr_*.py, tests/test_glm.py)."""

from __future__ import annotations

import random

from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_glm import OTHER, RULE_WORDS

from lightscore.text.hubscr import reference
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
