"""Reading a GLM's rules: the bracketed lines NIST writes, read by one regex, read as the general reader reads them."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lightscore.text.hubscr.glm import GLMS, _read_rule, _rule, _strip_comment, glm_path, read_glm


@pytest.mark.parametrize("name", GLMS)
def test_every_shipped_rule_reads_as_the_general_reader_reads_it(name: str) -> None:
    path = glm_path(name)
    lines = path.read_text(encoding="utf-8").splitlines()
    bodies = [_strip_comment(line, ";;") for line in lines if not line.startswith("*")]
    assert [_rule(body, None, 1) for body in bodies] == [_read_rule(body, None, 1) for body in bodies]
    assert len(read_glm(path).rules) > 1500


pieces = st.sampled_from(["[", "]", "=>", "=", "/", "__", "_", " ", "\t", "A", "B C", "'", "\u3000", "[ ]"])
inside = st.lists(st.sampled_from(["A", " ", "=", "=>", "_", "__", "[", "'", "/"]), max_size=4).map("".join)
gap = st.sampled_from(["", " ", "  ", "\t", "\u3000"])
bracketed = st.tuples(inside, gap, gap, inside, gap, inside, gap, inside, gap, st.booleans()).map(
    lambda p: f"{p[1]}[{p[0]}]{p[1]}=>{p[2]}[{p[3]}]{p[4]}" + (f"/{p[4]}[{p[5]}]{p[6]}__{p[8]}[{p[7]}]{p[8]}" * p[9])
)


@settings(max_examples=3000, deadline=None)
@given(body=st.lists(pieces, max_size=14).map("".join) | bracketed)
def test_lines_of_brackets_arrows_and_contexts_read_alike(body: str) -> None:
    assert _rule(body, "ctm", 7) == _read_rule(body, "ctm", 7)
