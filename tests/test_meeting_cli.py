"""``lightscore score --metric cpwer|orcwer|tcpwer|der|jer REF HYP``: meeteval's and md-eval's numbers."""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lightscore.cli import main

BIN = Path(sys.executable).parent
WORDS = "a b c d e the cat dog sat on".split()


def write_stm(path: Path, seed: int, sessions: int = 4) -> None:
    rng = random.Random(seed)
    lines = []
    for s in range(sessions):
        start = 0.0
        for _ in range(rng.randint(2, 6)):
            words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6)))
            end = start + rng.randint(1, 4)
            lines.append(f"sess{s} 1 {rng.choice('ABC')}{seed} {start:.2f} {end:.2f} {words}")
            start = end - rng.random()
    path.write_text("\n".join(lines) + "\n")


def rate(out: str, key: str) -> float:
    return float(re.search(r"^\s+\S+\s+([\d.]+)", out.split(key, 1)[1], re.M).group(1))


@pytest.mark.parametrize(("metric", "tool_args"), [("cpwer", []), ("orcwer", []), ("tcpwer", ["--collar", "5"])])
def test_meeting_error_rates_equal_meeteval(tmp_path, capsys, metric, tool_args) -> None:
    write_stm(tmp_path / "ref.stm", 1)
    write_stm(tmp_path / "hyp.stm", 2)
    assert main(["score", str(tmp_path / "ref.stm"), str(tmp_path / "hyp.stm"), "--metric", metric, *tool_args]) == 0
    out = capsys.readouterr().out
    run = subprocess.run(
        [str(BIN / "meeteval-wer"), metric, "-r", "ref.stm", "-h", "hyp.stm", *tool_args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    expected = json.loads((tmp_path / f"hyp_{metric}.json").read_text())
    assert run.returncode == 0
    name = {"cpwer": "cpWER", "orcwer": "orcWER", "tcpwer": "tcpWER"}[metric]
    assert rate(out, f"{name}\n") == pytest.approx(round(100 * expected["error_rate"], 2))
    assert re.search(rf"\b{expected['errors']}\s+{expected['length']}\b", out)


@pytest.mark.skipif(shutil.which("sctk") is None, reason="sctk (md-eval) is not installed")
def test_der_equals_md_eval(tmp_path, capsys) -> None:
    ref = ["SPEAKER s1 1 0.00 2.00 <NA> <NA> A <NA> <NA>", "SPEAKER s1 1 2.00 3.00 <NA> <NA> B <NA> <NA>"]
    hyp = ["SPEAKER s1 1 0.00 2.50 <NA> <NA> X <NA> <NA>", "SPEAKER s1 1 2.50 2.00 <NA> <NA> Y <NA> <NA>"]
    (tmp_path / "ref.rttm").write_text("\n".join(ref) + "\n")
    (tmp_path / "hyp.rttm").write_text("\n".join(hyp) + "\n")
    assert main(["score", str(tmp_path / "ref.rttm"), str(tmp_path / "hyp.rttm"), "--metric", "der"]) == 0
    out = capsys.readouterr().out
    tool = subprocess.run(
        ["sctk", "md-eval", "-r", "ref.rttm", "-s", "hyp.rttm", "-c", "0"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    expected = float(re.search(r"OVERALL SPEAKER DIARIZATION ERROR = ([\d.]+) percent", tool).group(1))
    assert rate(out, "DER\n") == pytest.approx(expected, abs=0.005)


def test_meeting_options_are_checked(tmp_path) -> None:
    write_stm(tmp_path / "ref.stm", 1, 1)
    with pytest.raises(ValueError, match="--metric tcpwer needs --collar"):
        main(["score", str(tmp_path / "ref.stm"), str(tmp_path / "ref.stm"), "--metric", "tcpwer", "--debug"])
    with pytest.raises(ValueError, match="--collar is used by the time-constrained WERs .*, not cpwer"):
        main(
            [
                "score",
                str(tmp_path / "ref.stm"),
                str(tmp_path / "ref.stm"),
                "--metric",
                "cpwer",
                "--collar",
                "1",
                "--debug",
            ]
        )


def test_report_writes_the_session_view(tmp_path, capsys) -> None:
    """``--report DIR`` writes cpWER's session view; its per-session errors are meeteval's."""
    write_stm(tmp_path / "ref.stm", 3)
    write_stm(tmp_path / "hyp.stm", 4)
    out_dir = tmp_path / "report"
    assert (
        main(
            [
                "score",
                str(tmp_path / "ref.stm"),
                str(tmp_path / "hyp.stm"),
                "--metric",
                "cpwer",
                "--report",
                str(out_dir),
            ]
        )
        == 0
    )
    assert f"report: {out_dir / 'cpwer_report.html'}" in capsys.readouterr().out
    page = (out_dir / "cpwer_report.html").read_text(encoding="utf-8")
    subprocess.run(
        [str(BIN / "meeteval-wer"), "cpwer", "-r", "ref.stm", "-h", "hyp.stm"],
        cwd=tmp_path,
        capture_output=True,
        check=True,
    )
    per_session = json.loads((tmp_path / "hyp_cpwer_per_reco.json").read_text())
    for session, counts in per_session.items():
        assert session in page
        row = rf'<td data-key="session" class="txt">{session}</td><td data-key="errors">{counts["errors"]}</td>'
        assert re.search(row + rf'<td data-key="length">{counts["length"]}</td>', page), session
    with pytest.raises(ValueError, match="--report writes the session view of the meeting word error rates, not der"):
        main(
            [
                "score",
                str(tmp_path / "ref.stm"),
                str(tmp_path / "hyp.stm"),
                "--metric",
                "der",
                "--report",
                str(out_dir),
                "--debug",
            ]
        )
