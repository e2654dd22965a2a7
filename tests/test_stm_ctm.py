"""`read_stm_segments` against the plain reading of sclite's stm format: every line split into fields, the transcript
joined."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_glm import run_hubscr
from test_sclite_case import needs_sctk

from lightscore.text.hubscr.glm import glm_path
from lightscore.text.hubscr.pipeline import hubscr
from lightscore.text.hubscr.stm_ctm import StmCtmError, StmSegment, read_stm_segments


def plain_reading(text: str) -> list[StmSegment]:
    """Each line that is not blank or a comment: split at whitespace, labels ``<...>`` after the times."""
    segments = []
    for number, raw in enumerate(text.split("\n"), 1):
        fields = raw.split()
        if not fields or raw.lstrip().startswith(";;"):
            continue
        if len(fields) < 5:
            raise StmCtmError(f"line {number}")
        labelled = len(fields) > 5 and fields[5][:1] == "<" and fields[5][-1:] == ">"
        text = " ".join(fields[6:] if labelled else fields[5:])
        labels = fields[5] if labelled else ""
        try:
            begin, end = float(fields[3]), float(fields[4])
        except ValueError:
            raise StmCtmError(f"line {number}: not a number") from None
        segments.append(StmSegment(*fields[:3], begin, end, labels, text, number))
    return segments


gaps = st.sampled_from([" ", " ", " ", "  ", "\t", "\xa0", "\u3000"])
words = st.sampled_from(["a", "uh", "<o,f0,male>", "<x", "y>", "(um)", "é", ";;", "IGNORE_TIME_SEGMENT_IN_SCORING"])
stm_line = st.tuples(
    st.lists(words, max_size=5),
    st.sampled_from(["f1 A spk1 0.5 1.25", "f2 B s 3 4", "f1 A", ";; comment", ""]),
    gaps,
    st.sampled_from(["", " ", "\t"]),
).map(lambda p: p[3] + p[2].join(p[1].split(" ") + p[0]) + p[3] if p[1] else p[3])


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(stm_line, max_size=6))
def test_read_stm_equals_the_plain_reading(lines: list[str], tmp_path_factory: pytest.TempPathFactory) -> None:
    """Single-spaced files (split once per line) and any others (split at every space) read alike."""
    path = Path(tmp_path_factory.mktemp("stm")) / "ref.stm"
    text = "\n".join(lines) + "\n"
    path.write_text(text, encoding="utf-8")
    try:
        expected = plain_reading(text)
    except StmCtmError as error:
        with pytest.raises(StmCtmError, match="needs 5 fields" if "number" not in str(error) else "not a number"):
            read_stm_segments(path)
        return
    assert read_stm_segments(path) == expected


STM = "sw1 A spk1 0.00 2.00 hello there friend\nSW1 A spk2 3.00 5.00 good morning sir\n"
CTM_WORDS = [
    ("sw1", 0.1, "hello"),
    ("sw1", 0.6, "there"),
    ("sw1", 3.1, "good"),
    ("sw1", 3.6, "evening"),
    ("sw1", 4.1, "sir"),
]
CTM = "".join(f"{name} A {start:.2f} 0.5 {word} 0.9\n" for name, start, word in CTM_WORDS)


def write_pair(folder: Path, stm: str, ctm: str) -> tuple[Path, Path]:
    (folder / "ref.stm").write_text(stm, encoding="utf-8")
    (folder / "hyp.ctm").write_text(ctm, encoding="utf-8")
    return folder / "ref.stm", folder / "hyp.ctm"


@pytest.mark.parametrize("glm", [None, "en20030506"])
def test_conversations_whose_names_differ_only_in_case_are_refused(tmp_path: Path, glm: str | None) -> None:
    """The error names the file, the line of the second conversation and both names; no word is silently lost."""
    stm, ctm = write_pair(tmp_path, STM, CTM)
    with pytest.raises(StmCtmError, match=r"ref\.stm line 2: conversation 'SW1 A' and 'sw1 A' differ only in case"):
        hubscr(stm, ctm, glm)
    one_stm = STM.replace("SW1", "sw1")
    stm, ctm = write_pair(tmp_path, one_stm, CTM.replace("sw1 A 3.10", "SW1 A 3.10"))
    with pytest.raises(StmCtmError, match=r"hyp\.ctm line 3: conversation 'SW1 A' and 'sw1 A' differ only in case"):
        hubscr(stm, ctm, glm)
    stm, ctm = write_pair(tmp_path, one_stm, CTM.replace("sw1", "SW1"))  # one name each side, cased apart: one
    assert [(c.sub, c.dele, c.ins) for c in hubscr(stm, ctm, glm)] == [(0, 1, 0), (1, 0, 0)]


@needs_sctk
def test_sclite_gives_words_of_case_folded_conversations_out_of_time_order(tmp_path: Path) -> None:
    """Why they are refused: sctk hubscr folds the names, then gives every word to the segment at 3-5 s."""
    stm, ctm = write_pair(tmp_path, STM, CTM)
    assert run_hubscr(stm, ctm, glm_path("en20030506")) == {"spk1-000": (0, 0, 3, 0), "spk2-000": (2, 1, 0, 2)}
    stm, ctm = write_pair(tmp_path, STM.replace("SW1", "sw1"), CTM.replace("sw1", "SW1"))
    expected = run_hubscr(stm, ctm, glm_path("en20030506"))
    got = {c.utt_id: (c.ref_len - c.sub - c.dele, c.sub, c.dele, c.ins) for c in hubscr(stm, ctm, "en20030506")}
    assert got == expected


ONE_STM = "fa A s1 0.00 2.00 yes no\nfb A s2 0.00 2.00 the cat\n"


@pytest.mark.parametrize("glm", [None, "en20030506"])
@pytest.mark.parametrize("stranger", ["fc A 0.1 0.1 zzz", "fa B 0.1 0.1 zzz", "faa A 0.1 0.1 zzz"])
def test_a_ctm_conversation_without_reference_is_refused(tmp_path: Path, glm: str | None, stranger: str) -> None:
    """Its words would be lost: the error names the ctm, the conversation's line and name, and the stm."""
    ctm_text = f"fa A 0.5 0.2 yes\nfa A 1.0 0.2 no\n{stranger}\nfb A 0.5 0.2 the\n"
    stm, ctm = write_pair(tmp_path, ONE_STM, ctm_text)
    name = " ".join(stranger.split()[:2])
    message = rf"hyp\.ctm line 3: conversation '{name}' has hypothesis words but .*ref\.stm has no segment"
    with pytest.raises(StmCtmError, match=message):
        hubscr(stm, ctm, glm)
    cased = "fa A 0.5 0.2 yes\nfa A 1.0 0.2 no\nFB A 0.5 0.2 the\nFB A 0.9 0.2 cat\n"  # one name, cased apart: known
    stm, ctm = write_pair(tmp_path, ONE_STM, cased)
    assert [(c.sub, c.dele, c.ins) for c in hubscr(stm, ctm, glm)] == [(0, 0, 0), (0, 0, 0)]


@needs_sctk
@pytest.mark.parametrize("stranger", ["fc A 0.1 0.1 zzz", "fa B 0.1 0.1 zzz"])
def test_sclite_stops_at_a_ctm_conversation_without_reference(tmp_path: Path, stranger: str) -> None:
    stm, ctm = write_pair(tmp_path, ONE_STM, f"fa A 0.5 0.2 yes\nfa A 1.0 0.2 no\n{stranger}\nfb A 0.5 0.2 the\n")
    command = ["sctk", "sclite", "-r", stm.name, "stm", "-h", ctm.name, "ctm", "-o", "sum", "stdout"]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode != 0 and "Hyp file has more data than ref file" in done.stdout + done.stderr


def test_old_names_import_as_the_renamed_ones_with_a_warning() -> None:
    """``Segment``, ``read_stm`` and ``read_ctm`` meant these before `lightscore.segments` took the names."""
    from lightscore.text.hubscr import stm_ctm

    with pytest.warns(DeprecationWarning, match=r"stm_ctm\.Segment moved to lightscore\.text\.hubscr\.stm_ctm\.StmSeg"):
        assert stm_ctm.Segment is stm_ctm.StmSegment
    with pytest.warns(DeprecationWarning, match=r"stm_ctm\.read_stm moved to .*\.read_stm_segments"):
        from lightscore.text.hubscr.stm_ctm import read_stm
    with pytest.warns(DeprecationWarning, match=r"hubscr\.read_ctm moved to .*stm_ctm\.read_ctm_items"):
        from lightscore.text.hubscr import read_ctm
    assert (read_stm, read_ctm) == (stm_ctm.read_stm_segments, stm_ctm.read_ctm_items)
