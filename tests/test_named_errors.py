"""Errors that used to name no file or utterance (issue 38): each now names them.

Real files: an SCP row with a lone surrogate, an RTFx duration too large to count, and a meeting
file that does not parse, read through the command the user typed.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from test_sharded_measure import lightscore

from lightscore.metrics import RTFx
from lightscore.scp import write_scp


def test_write_scp_names_the_file_line_and_utterance_of_a_lone_surrogate(tmp_path: Path) -> None:
    path = tmp_path / "hyp.scp"
    path.write_text("old\n")
    with pytest.raises(ValueError, match=r"hyp\.scp: line 2, utterance 'dev-7', column 11: a lone surrogate '\\udc80'"):
        write_scp(path, [("dev-1", "fine"), ("dev-7", "bad \udc80 word")])
    assert path.read_text() == "old\n"  # the old file stays


def test_rtfx_names_the_utterance_whose_seconds_overflow(tmp_path: Path) -> None:
    (tmp_path / "audio.scp").write_text("u1 3.5\nu2 1e308\n")
    (tmp_path / "decode.scp").write_text("u1 0.1\nu2 0.1\n")
    data = {"audio_seconds": tmp_path / "audio.scp", "decode_seconds": tmp_path / "decode.scp"}
    with pytest.raises(ValueError, match=r"u2.*audio_seconds '1e308' is too large to count in microseconds"):
        RTFx()(data, "dev")


def test_meeting_score_errors_name_the_users_files_not_temporary_ones(tmp_path: Path) -> None:
    (tmp_path / "ref.stm").write_text("sess 1 spk1 0.00 2.00 a b\nsess 1 spk1 1.00 3.00 c\n")  # merged (issue 39)
    (tmp_path / "hyp.rttm").write_text("SPEAKER sess 1 0.00 1e308 <NA> <NA> spk1 <NA> <NA>\n")  # no whole ticks
    command = lightscore("score", "ref.stm", "hyp.rttm", "--metric", "der", "--collar", "0")
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    expected = "utterance 'sess' (ref.stm, hyp.rttm): DER: session 'sess': hypothesis speaker 'spk1': time 1e+308 s"
    assert expected in done.stderr
    assert "ref.scp" not in done.stderr and "hyp.scp" not in done.stderr
