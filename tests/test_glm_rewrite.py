"""`rewrite`'s shortcuts against the plain cursor on small random GLMs, and csrfilt's whole-text steps line by line."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from lightscore.text.hubscr.glm import _HYPHEN, _optional_lines, _optional_words, _split_hyphens
from lightscore.text.hubscr.glm_cursor import Glm, GlmRule, rewrite
from lightscore.text.hubscr.reference import rfilter1

# Few letters, so that rules match often: inside words, across words, with contexts reaching past a word's spaces.
letters = st.text(alphabet="ABab -", max_size=4)
rule = st.tuples(letters.filter(bool), st.text(alphabet="xy ", max_size=3), letters, letters)
glms = st.builds(
    lambda rules, copy, case: Glm("random", [GlmRule(*r, None, n) for n, r in enumerate(rules)], copy, case),
    st.lists(rule, min_size=1, max_size=6),
    st.booleans(),
    st.booleans(),
)
words = st.sampled_from(["A", "B", "AB", "BA", "ab", "A-B", "AAB", "", "B-", "\n"])
texts = st.lists(words, max_size=12).map(" ".join) | st.text(alphabet="ABa -\n", max_size=16)


@settings(max_examples=3000, deadline=None)
@given(glm=glms, text=texts, padded=st.booleans())
def test_rewrite_equals_the_plain_cursor_on_random_glms(glm: Glm, text: str, padded: bool) -> None:
    """Words written at once (`_Rules.written`), and words left to the cursor, give the plain cursor's text."""
    text = f" {text} " if padded else text
    assert rewrite(text, glm, "stm", "ref") == rfilter1(text, glm, "stm", "ref")


@settings(max_examples=3000, deadline=None)
@given(glm=glms, text=texts)
def test_words_learned_in_one_text_are_written_alike_in_the_next(glm: Glm, text: str) -> None:
    """`_Rules.written` keeps what it learned of a word for later texts."""
    for padded in (f" {text} ", f" A {text} B "):
        assert rewrite(padded, glm, "stm", "ref") == rfilter1(padded, glm, "stm", "ref")


tokens = st.sampled_from(["(", ")", "A", "B", "(A", "A)", "((", "))", "()", "-", "A(B", "%X"])
lines = st.lists(st.lists(tokens, max_size=8).map(" ".join), min_size=1, max_size=5)


@settings(max_examples=2000, deadline=None)
@given(lines=lines)
def test_optional_words_of_all_lines_at_once_equal_line_by_line(lines: list[str]) -> None:
    expected = [_optional_words(line) if "(" in line or ")" in line else line for line in lines]
    assert _optional_lines("\n".join(lines)).split("\n") == expected


@settings(max_examples=2000, deadline=None)
@given(text=st.text(alphabet="-A (\n)", max_size=14))
def test_hyphens_split_as_csrfilts_regex_splits_them(text: str) -> None:
    assert _split_hyphens(text) == _HYPHEN.sub(r"\1 ", text)


def test_a_new_glm_never_gets_the_rules_of_a_freed_one() -> None:
    """The index lives on its GLM: a GLM made where a freed one stood (same ``id``) is indexed afresh.

    Keyed by ``id(glm)`` in a module table, the second GLM of each pair below was handed the first's rules.
    """
    for k in range(40):
        target = "B" if k % 2 else "C"
        glm = Glm(f"glm{k}", [GlmRule("A", target, " ", " ", None, 1)])
        assert rewrite(" A ", glm, "stm", "ref") == f" {target} "
        del glm


def test_a_glm_file_changed_on_disk_is_read_again(tmp_path) -> None:
    """``read_glm`` keeps what it parsed only while the file is unchanged: an edited GLM is not scored stale."""
    import os

    from lightscore.text.hubscr.glm import read_glm

    path = tmp_path / "mine.glm"
    path.write_text(";; mine\nA => B\n", encoding="utf-8")
    assert rewrite(" A ", read_glm(path), "stm", "ref") == " B "
    path.write_text(";; mine\nA => CC\n", encoding="utf-8")
    os.utime(path, ns=(1, 1))  # a new time even on a file system whose clock ticks slower than this test
    assert rewrite(" A ", read_glm(path), "stm", "ref") == " CC "
    assert read_glm(path) is read_glm(str(path))
