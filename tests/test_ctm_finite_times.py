"""A ctm time or duration of ``nan`` or ``inf`` is refused, naming the file and the line (issue 38, item 3).

``float()`` reads both, and a NaN begin compares false with every other time, so the items' order, and which
segment gets which word, came out scrambled: 84.62% where ``sctk sclite`` gives the NaN-free file's 46.2%.
Every road a ctm is read by refuses them: the plain reader (no GLM), the GLM's printed route, and the numpy
column reader (which hands such a ctm to the line reader).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lightscore.cli.parser import main
from lightscore.text.hubscr.pipeline import hubscr
from lightscore.text.hubscr.stm_ctm import StmCtmError, read_ctm_items

WORDS = "we are gonna meet at the e-mail office on monday uh at nine".split()


def write_pair(folder: Path, bad_time: str, column: int) -> tuple[Path, Path]:
    """A 13-word conversation, and a ctm of it whose third line has ``bad_time`` in ``column`` (2 begin, 3 duration)."""
    (folder / "ref.stm").write_text(f"f A s1 0 20 {' '.join(WORDS)}\n", encoding="utf-8")
    lines = []
    for k, word in enumerate(WORDS):
        fields = ["f", "A", f"{k * 1.5:.2f}", "0.40", word, "0.9"]
        if k == 2:
            fields[column] = bad_time
        lines.append(" ".join(fields))
    (folder / "hyp.ctm").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder / "ref.stm", folder / "hyp.ctm"


@pytest.mark.parametrize("bad_time", ["nan", "NaN", "inf", "-Infinity", "1e999"])
@pytest.mark.parametrize("column", [2, 3])
@pytest.mark.parametrize("glm", ["en20030506", None])
def test_a_non_finite_ctm_time_is_refused_with_file_and_line(
    bad_time: str, column: int, glm: str | None, tmp_path: Path
) -> None:
    stm, ctm = write_pair(tmp_path, bad_time, column)
    what = "begin" if column == 2 else "duration"
    with pytest.raises(StmCtmError, match=rf"hyp\.ctm line 3: {what} '{bad_time}' is not a finite number"):
        hubscr(stm, ctm, glm)
    with pytest.raises(StmCtmError, match=r"hyp\.ctm line 3"):
        read_ctm_items(ctm)


def test_the_same_file_with_finite_times_scores(tmp_path: Path) -> None:
    """The file the refusals are about is otherwise fine: every word correct (the GLM splits two, 15 words)."""
    stm, ctm = write_pair(tmp_path, "3.00", 2)
    (counts,) = hubscr(stm, ctm)
    assert (counts.sub, counts.dele, counts.ins, counts.ref_len) == (0, 0, 0, 15)


def test_the_command_names_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stm, ctm = write_pair(tmp_path, "nan", 2)
    assert main(["score", str(stm), str(ctm), "--glm", "en20030506"]) != 0
    assert "hyp.ctm line 3: begin 'nan' is not a finite number" in capsys.readouterr().err
