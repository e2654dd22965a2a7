"""Reading a GLM's rules as ``sctk rfilter1`` reads them: a generated line's rule rewrites texts as rfilter1's."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_sclite_case import needs_sctk

from lightscore.text.hubscr.glm import _rule, read_glm, rewrite

HEADER = ";; a test GLM\n* name \"t.glm\"\n* copy_no_hit = 'T'\n* case_sensitive = 'F'\nZZZ => Q\n"

pieces = st.sampled_from(["[", "]", "=>", "=", "/", "__", "_", " ", "\t", "A", "B C", "'", '"', "\u3000", "[ ]"])
inside = st.lists(st.sampled_from(["A", " ", "=", "=>", "_", "__", "[", "'", "/"]), max_size=4).map("".join)
gap = st.sampled_from(["", " ", "  ", "\t", "\u3000"])
# Lines as NIST writes them ("[A] => [B] / [L] __ [R]"), with odd fields and spacing inside and around.
bracketed = st.tuples(inside, gap, gap, inside, gap, inside, gap, inside, gap, st.booleans()).map(
    lambda p: f"{p[1]}[{p[0]}]{p[1]}=>{p[2]}[{p[3]}]{p[4]}" + (f"/{p[4]}[{p[5]}]{p[6]}__{p[8]}[{p[7]}]{p[8]}" * p[9])
)
bodies = (st.lists(pieces, max_size=14).map("".join) | bracketed).filter(lambda body: "=>" in body)


def sctk_rfilter1(glm: Path, lines: list[str]) -> list[str]:
    """``sctk rfilter1 glm`` on these lines (A-Z only: the GLM is case-blind)."""
    done = subprocess.run(
        ["sctk", "rfilter1", str(glm)], input="".join(f"{line}\n" for line in lines), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split("\n")[: len(lines)]


@needs_sctk
@settings(max_examples=250, deadline=None)
@given(body=bodies)
@example(body="KINDA=>KIND OF")  # the target starts after the first space past the arrow: KINDA becomes OF
@example(body="KINDA =>KIND OF")
@example(body="KINDA=> KIND OF")
@example(body="KINDA=>KIND")  # nothing after a space: KINDA is deleted
@example(body="KI/NDA => B")  # the last slash is in the source: the target ends before it, empty
@example(body="KINDA => [{A / B}]")  # no context: the alternation's slash ends the target ("[{A")
@example(body="KINDA => B / [X/Y] __ [ ]")  # the last slash inside brackets: no context, the rest is the target
@example(body="KINDA => B /[I ] __ [ ]")  # a context glued to its slash goes with it
@example(body='"KINDA" => X')
@example(body="'KINDA' => X")  # single quotes are part of the source
def test_each_line_reads_the_rule_sctk_rfilter1_reads(body: str, tmp_path_factory) -> None:
    """Texts holding the rule lightscore read, and the line's own characters, are rewritten as by rfilter1."""
    path = tmp_path_factory.mktemp("glm") / "t.glm"
    path.write_text(f"{HEADER}{body}\n", encoding="utf-8")
    rule = _rule(body, None, 6)
    probes = [body, body.replace("=>", " "), "KINDA I KINDA X/Y KI/NDA"]
    if rule is not None:
        probes += [f"{rule.left}{rule.source}{rule.right}", f" {rule.left} {rule.source} {rule.right} "]
    glm = read_glm(path)
    assert [rewrite(probe, glm) for probe in probes] == sctk_rfilter1(path, probes)


@pytest.mark.parametrize(
    ("body", "rule"),
    [
        ("KINDA=>KIND OF", ("KINDA", "OF", "", "")),
        ("[HE'S] => [{HE IS / HE HAS}] / [ ] __ [ ]", ("HE'S", "{HE IS / HE HAS}", " ", " ")),
        ("HUH-UH  =>  %BCNACK    / [ ] __ [ ] ", ("HUH-UH", "%BCNACK", " ", " ")),
        ("A => B / [I ] _ [ ]", ("A", "B", "I ", " ")),
        ("A => B /[I ] __", ("A", "B", "]", "")),
    ],
)
def test_fields_of_a_rule(body: str, rule: tuple[str, str, str, str]) -> None:
    assert _rule(body, None, 1)[:4] == rule
