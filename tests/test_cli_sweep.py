"""``lightscore score REF HYP HYP ...``: each hypothesis scored as if alone, printed under ``hyp:``, then the best.

Kaldi's recipes decode once per LM weight and insertion penalty and score each decoding against one reference;
a HYP that cannot be scored is named on stderr while the others are still scored, and the exit status is 1.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from test_glm import run_hubscr
from test_hubscr_sweep import sweep
from test_sclite_case import needs_sctk

from lightscore.cli import main
from lightscore.text.hubscr.glm import glm_path


def blocks(out: str) -> dict[str, str]:
    """Each ``hyp: FILE`` block of a sweep's output, by file."""
    return {m[0]: m[1].strip() for m in re.findall(r"^hyp: (\S+)\n(.*?)(?=^hyp: |^best: |\Z)", out, re.M | re.S)}


def alone(capsys: pytest.CaptureFixture, *argv: str) -> str:
    """What ``lightscore score`` prints for one HYP."""
    assert main(["score", *argv]) == 0
    return capsys.readouterr().out.strip()


@needs_sctk
def test_an_stm_sweep_prints_each_ctm_as_alone_and_as_sctk_hubscr(tmp_path: Path, capsys) -> None:
    stm, ctms = sweep(tmp_path, 7)
    bad = tmp_path / "bad.ctm"
    bad.write_text("fa A 0.5 0.1\n", encoding="utf-8")
    hyps = [str(ctms[0]), str(bad), str(tmp_path / "missing.ctm"), *map(str, ctms[1:])]
    assert main(["score", str(stm), *hyps, "--glm", "en20030506"]) == 1
    captured = capsys.readouterr()
    found = blocks(captured.out)
    assert list(found) == hyps
    assert found[str(bad)] == found[hyps[2]] == "not scored"
    assert f"{bad} line 1:" in captured.err and f"HYP {hyps[2]}: no such file" in captured.err
    assert captured.err.splitlines()[-1] == f"lightscore: error: not scored: {bad} {hyps[2]}"
    rates = {}
    for ctm in ctms:
        assert found[str(ctm)] == alone(capsys, str(stm), str(ctm), "--glm", "en20030506")
        expected = run_hubscr(stm, ctm, glm_path("en20030506"), "-V")
        errors = sum(s + d + i for _, s, d, i in expected.values())
        words = sum(c + s + d for c, s, d, _ in expected.values())
        assert f"[ {errors} / {words}," in found[str(ctm)]
        rates[str(ctm)] = errors / words
    best = min(rates, key=rates.__getitem__)
    assert re.search(rf"^best: %WER [\d.]+ \[ .* \] {re.escape(best)}$", captured.out, re.M)


def test_an_scp_sweep_scores_each_hyp_as_alone(write_scp_file: Callable[..., Path], capsys) -> None:
    ref = write_scp_file("ref.scp", [("u1", "the cat sat"), ("u2", "on the mat")])
    good = write_scp_file("good.scp", [("u1", "the cat sat"), ("u2", "on a mat")])
    worse = write_scp_file("worse.scp", [("u1", "a cat"), ("u2", "on a hat")])
    odd = write_scp_file("odd.scp", [("u1", "the cat sat"), ("u3", "on the mat")])
    assert main(["score", str(ref), str(worse), str(odd), str(good), "--metric", "cer"]) == 1
    captured = capsys.readouterr()
    found = blocks(captured.out)
    assert found[str(odd)] == "not scored" and "odd.scp" in captured.err
    for hyp in (worse, good):
        assert found[str(hyp)] == alone(capsys, str(ref), str(hyp), "--metric", "cer")
    assert captured.out.strip().splitlines()[-1].endswith(f"] {good}")
    assert captured.out.strip().splitlines()[-1].startswith("best: %CER ")


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (["--report", "out"], "--report writes one hypothesis's files: give one HYP"),
        (["--alignment", "out"], "--alignment writes one hypothesis's files: give one HYP"),
        (["--metric", "bleu"], "several HYP files are scored by an error rate"),
    ],
)
def test_what_a_sweep_cannot_do_is_refused_before_scoring(
    options: list[str], said: str, write_scp_file: Callable[..., Path], capsys
) -> None:
    ref = write_scp_file("ref.scp", [("u1", "the cat")])
    hyp = write_scp_file("hyp.scp", [("u1", "the hat")])
    assert main(["score", str(ref), str(hyp), str(hyp), *options]) == 1
    captured = capsys.readouterr()
    assert said in captured.err and captured.out == ""
