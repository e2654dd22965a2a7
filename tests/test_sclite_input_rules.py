"""sclite's input files read as SCTK reads them, or refused where SCTK refuses them (issue 38).

Each rule is checked against the installed SCTK binary where one applies: ``sctk rfilter1`` for GLM
lines, ``sctk sclite`` for trn ids and stm ``IGNORE`` segments, ``sctk hubscr`` for a GLM with a
byte-order mark (read as the same GLM without it).
"""

from __future__ import annotations

import codecs
import subprocess
from pathlib import Path

import pytest
from test_glm import parse_pra_scores, run_hubscr
from test_sclite_case import needs_sctk

from lightscore.text.hubscr.glm import GlmError, glm_path, read_glm
from lightscore.text.hubscr.pipeline import hubscr

# docs/sclite.md's worked example: its trailing ";;" comments matter once a BOM moves the comment mark.
EXAMPLE_STM = """\
f1 A spk1 0.00 2.00 he's gonna uh-huh (um) e-mail you
f1 A spk2 2.00 4.00 mr. smith's { going / @ } wor- yes
f1 A spk1 4.00 5.00 IGNORE_TIME_SEGMENT_IN_SCORING
f1 A spk2 6.00 7.00 okay then
f1 B spk3 0.00 3.00 hello there mm-hmm kinda
"""
EXAMPLE_CTM = """\
f1 A 0.10 0.20 he's 0.9
f1 A 0.40 0.30 going 0.8
f1 A 0.80 0.20 to
f1 A 1.10 0.20 uh-huh
f1 A 1.50 0.30 email
f1 A 2.10 0.20 mister
f1 A 2.40 0.20 smith's
f1 A 2.80 0.20 word
f1 A 3.20 0.20 yes
f1 A 4.50 0.20 noise
f1 A 6.10 0.20 okay
f1 B 0.20 0.20 hello
f1 B 0.60 0.20 mhm
f1 B 1.00 0.20 kind
f1 B 1.40 0.20 of
"""


def counts(stm: Path, ctm: Path, glm: str | Path | None) -> dict[str, tuple[int, int, int, int]]:
    """lightscore's hubscr per segment as sclite's ``.pra`` writes it: C, S, D, I."""
    return {c.utt_id: (c.ref_len - c.sub - c.dele, c.sub, c.dele, c.ins) for c in hubscr(stm, ctm, glm)}


def write_example(folder: Path, stm: str = EXAMPLE_STM, ctm: str = EXAMPLE_CTM) -> tuple[Path, Path]:
    (folder / "ref.stm").write_text(stm, encoding="utf-8")
    (folder / "hyp.ctm").write_text(ctm, encoding="utf-8")
    return folder / "ref.stm", folder / "hyp.ctm"


# --- GLMs: a byte-order mark, and the lines rfilter1 refuses ---


def test_a_glm_with_a_byte_order_mark_reads_as_without_it(tmp_path: Path) -> None:
    """The mark is not part of the ``;;`` comment mark, so ``KINDA => KIND OF ;; ISIP Doc`` keeps its comment."""
    marked = tmp_path / "marked.glm"
    marked.write_bytes(codecs.BOM_UTF8 + glm_path("en20030506").read_bytes())
    assert read_glm(marked).rules == read_glm(glm_path("en20030506")).rules
    stm, ctm = write_example(tmp_path)
    assert counts(stm, ctm, marked) == counts(stm, ctm, "en20030506")
    assert counts(stm, ctm, marked)["spk3-000"] == (4, 0, 1, 0)  # KIND OF matched, not KIND OF ;; ISIP DOC


@needs_sctk
def test_a_glm_with_a_byte_order_mark_scores_as_sctk_hubscr_without_it(tmp_path: Path) -> None:
    """sctk would read the mark into the comment mark (a file it was never meant to see): its number without one."""
    marked = tmp_path / "marked.glm"
    marked.write_bytes(codecs.BOM_UTF8 + glm_path("en20030506").read_bytes())
    stm, ctm = write_example(tmp_path)
    assert counts(stm, ctm, marked) == run_hubscr(stm, ctm, glm_path("en20030506"))


HEADER = ";; a test GLM\n* name \"t.glm\"\n* copy_no_hit = 'T'\n* case_sensitive = 'F'\n"
REFUSED = {
    "no arrow": (HEADER + "KINDA => KIND OF\nLIKE LOVE\n", r"line 6: a rule needs an arrow \(A => B\), got 'LIKE"),
    "arrow only in a comment": (HEADER + "KINDA ;; => KIND OF\n", "line 5: a rule needs an arrow"),
    "wrong arrow": (HEADER + "KINDA -> KIND OF\n", "line 5: a rule needs an arrow"),
    "header without a value": (HEADER + "* bogus header\nKINDA => KIND OF\n", "line 5: a header line needs a quoted"),
    "empty file": ("", "the GLM is empty"),
    "header, no rule": (HEADER, r"no rule in the GLM .*comment mark ';;'"),
    "a first rule taken for the comment mark": ("KINDA => KIND OF\n", "no rule in the GLM .*comment mark 'KINDA'"),
}


@pytest.mark.parametrize("case", REFUSED)
def test_glm_lines_rfilter1_refuses_are_refused_naming_file_and_line(case: str, tmp_path: Path) -> None:
    path = tmp_path / "t.glm"
    path.write_text(REFUSED[case][0], encoding="utf-8")
    with pytest.raises(GlmError, match=f"t.glm:? .*{REFUSED[case][1]}"):
        read_glm(path)


def rfilter1(glm: Path, text: str) -> subprocess.CompletedProcess:
    """``sctk rfilter1 glm`` on one trn line (it exits 3 on a bad rule and crashes on a GLM without rules)."""
    return subprocess.run(["sctk", "rfilter1", str(glm)], input=text, capture_output=True, text=True)


@needs_sctk
@pytest.mark.parametrize("case", REFUSED)
def test_sctk_rfilter1_refuses_the_same_glms(case: str, tmp_path: Path) -> None:
    path = tmp_path / "t.glm"
    path.write_text(REFUSED[case][0], encoding="utf-8")
    assert rfilter1(path, "i kinda like it (u1)\n").returncode != 0


@needs_sctk
def test_a_glm_both_read_filters_alike(tmp_path: Path) -> None:
    """The control: blank lines, comments and ``;;`` after a rule are fine for both."""
    from lightscore.text.hubscr.glm import csrfilt

    path = tmp_path / "t.glm"
    path.write_text(HEADER + "\n\t\n;;\nKINDA => KIND OF ;; a => comment\nLIKE => LOVE ;;\n", encoding="utf-8")
    done = rfilter1(path, "i kinda like it (u1)\n")
    assert done.returncode == 0
    assert done.stdout.split() == csrfilt("i kinda like it (u1)", read_glm(path), upcase=False).split()


# --- stm: the segments sclite ignores ---

MARKS = [
    "IGNORE_TIME_SEGMENT_IN_SCORING",
    "ignore_time_segment_in_scoring",
    "IGNORETIMESEGMENTINSCORING",  # SCTK's lvc_refe.stm
    "x IgnoreTimeSegmentInScoring y",
    "xIGNORE_TIME_SEGMENT_IN_SCORINGy",
    "IGNORE_TIME_SEGMENT",  # not a mark: scored
    "IGNORE_TIMESEGMENTINSCORING",  # a mixed spelling is no mark: scored
    "ıgnore_tıme_segment_ın_scorıng",  # dotless ı is no I in sclite: scored
]


def ignore_pair(folder: Path) -> tuple[Path, Path]:
    """One conversation: a scored segment, then one per text of `MARKS`, each given two hypothesis words."""
    stm = ["f1 A s1 0.00 1.00 a b"]
    ctm = ["f1 A 0.10 0.20 a", "f1 A 0.50 0.20 b"]
    for k, text in enumerate(MARKS, 1):
        stm.append(f"f1 A s{k % 3} {k:.2f} {k + 1:.2f} {text}")
        ctm += [f"f1 A {k + 0.2:.2f} 0.20 x", f"f1 A {k + 0.5:.2f} 0.20 y"]
    return write_example(folder, "\n".join(stm) + "\n", "\n".join(ctm) + "\n")


@needs_sctk
def test_ignored_segments_are_those_sctk_sclite_ignores(tmp_path: Path) -> None:
    """A text *holding* either spelling of the mark, A-Z in any case, is ignored; its words go with it."""
    stm, ctm = ignore_pair(tmp_path)
    command = ["sctk", "sclite", "-r", stm.name, "stm", "-h", ctm.name, "ctm", "-o", "pra", "stdout"]
    done = subprocess.run(command, cwd=tmp_path, check=True, capture_output=True, text=True)
    expected = parse_pra_scores(done.stdout)
    assert len(expected) == 4  # the plain segment and the three texts that are no mark
    assert counts(stm, ctm, None) == expected
    assert counts(stm, ctm, "en20030506") == run_hubscr(stm, ctm, glm_path("en20030506"), "-V")


# --- trn: ids folded as sclite folds them, and alternations that cannot be read ---


def run_sclite_trn(folder: Path, *options: str) -> subprocess.CompletedProcess:
    """``sctk sclite -r ref.trn trn -h hyp.trn trn -i wsj -o pra stdout`` in ``folder`` (not checked)."""
    command = ["sctk", "sclite", "-r", "ref.trn", "trn", "-h", "hyp.trn", "trn", "-i", "wsj", *options]
    return subprocess.run([*command, "-o", "pra", "stdout"], cwd=folder, capture_output=True, text=True)


def lightscore_trn(folder: Path, case: str | None = None) -> dict[str, tuple[int, int, int, int]]:
    """The trn pair through `sclite_scps` and ``WER`` with its options: each utterance's C, S, D, I."""
    from lightscore.core.batch import feed
    from lightscore.metrics import WER
    from lightscore.offline.sclite_inputs import sclite_scps
    from lightscore.scp import read_scp

    inputs = sclite_scps(folder / "ref.trn", folder / "hyp.trn", folder / "scp", case=case)
    metric = WER(**inputs.options, **({"case": case} if case else {}), per_utterance=True)
    refs = {utt_id: text for _, utt_id, text in read_scp(inputs.ref)}
    hyps = {utt_id: text for _, utt_id, text in read_scp(inputs.hyp)}
    feed(metric, {"ref": list(refs.values()), "hyp": [hyps[utt_id] for utt_id in refs]}, list(refs))
    return {r.utt_id: (r.ref_len - r.sub - r.dele, r.sub, r.dele, r.ins) for r in metric.utterance_records()}


# SCTK's test1 names its hypothesis utterances (4T0C0204) and its reference ones (4t0c0204).
CASED_REF = "a b c (4t0c0204)\nd e f (4t0C0205)\ng h (4T0C0206)\n"
CASED_HYP = "A x c (4T0C0204)\nd e (4t0c0205)\ng h i (4t0c0206)\n"


@needs_sctk
@pytest.mark.parametrize("case", [None, "sclite"])
def test_trn_ids_that_differ_in_case_are_one_utterance_as_in_sctk_sclite(case: str | None, tmp_path: Path) -> None:
    """The ids are reported folded, as sclite's reports name them."""
    (tmp_path / "ref.trn").write_text(CASED_REF, encoding="utf-8")
    (tmp_path / "hyp.trn").write_text(CASED_HYP, encoding="utf-8")
    done = run_sclite_trn(tmp_path)
    assert done.returncode == 0, done.stderr
    expected = parse_pra_scores(done.stdout)
    assert list(expected) == ["4t0c0204", "4t0c0205", "4t0c0206"]
    assert lightscore_trn(tmp_path, case) == expected


@needs_sctk
def test_trn_ids_that_differ_in_case_are_refused_case_sensitive_as_by_sclite_s(tmp_path: Path) -> None:
    from lightscore.text.sclite.trn import TrnError

    (tmp_path / "ref.trn").write_text(CASED_REF, encoding="utf-8")
    (tmp_path / "hyp.trn").write_text(CASED_HYP, encoding="utf-8")
    assert run_sclite_trn(tmp_path, "-s").returncode != 0
    with pytest.raises(TrnError, match=r"ref\.trn: no reference for utterance '4T0C0204' of .*hyp\.trn"):
        lightscore_trn(tmp_path, "sensitive")


@needs_sctk
def test_trn_ids_given_twice_once_folded_are_refused_as_by_sctk_sclite(tmp_path: Path) -> None:
    """sclite: "double reference text"; lightscore names both lines and the two spellings."""
    from lightscore.text.sclite.trn import TrnError

    (tmp_path / "ref.trn").write_text("a b (s1-u1)\nc d (S1-U1)\n", encoding="utf-8")
    (tmp_path / "hyp.trn").write_text("a b (s1-u1)\n", encoding="utf-8")
    assert run_sclite_trn(tmp_path).returncode != 0
    with pytest.raises(TrnError, match=r"ref\.trn line 2: utterance 'S1-U1' is also on line 1 as 's1-u1' \(sclite"):
        lightscore_trn(tmp_path)
    assert lightscore_trn(tmp_path, "sensitive") == {"s1-u1": (2, 0, 0, 0)}  # -s: two utterances, one scored


@pytest.mark.parametrize("side", ["ref", "hyp"])
@pytest.mark.parametrize(("text", "wrong"), [("{ a / b", "never closed"), ("x { / } y", "holds no alternative")])
def test_a_trn_alternation_that_cannot_be_read_names_file_line_and_utterance(
    side: str, text: str, wrong: str, tmp_path: Path
) -> None:
    from lightscore.text.sclite.trn import TrnError

    lines = {"ref": ["x y (s1-u1)", "x y (s1-u2)"], "hyp": ["x y (s1-u1)", "x y (s1-u2)"]}
    lines[side][1] = f"{text} (s1-u2)"
    for name, written in lines.items():
        (tmp_path / f"{name}.trn").write_text("\n".join(written) + "\n", encoding="utf-8")
    with pytest.raises(TrnError, match=rf"{side}\.trn line 2: utterance 's1-u2': .*{wrong}"):
        lightscore_trn(tmp_path)
