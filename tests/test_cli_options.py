"""An option the chosen metric does not read is refused, naming the option and the metric (issue 38).

Each case once passed silently: ``--case fold`` with cpwer scored as if it were not given (100.00
where the lower-cased file gives 0.00), ``compare --metric bleu`` ignored ``--bootstrap`` and ``--level``.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from lightscore.cli.parser import main

REFUSED = [  # command, metric, and the option it does not read
    ["score", "--metric", "bleu", "--case", "fold"],
    ["score", "--metric", "chrf", "--normalize", "whisper_basic"],
    ["score", "--metric", "transter", "--ci", "0.95"],
    ["score", "--metric", "cpwer", "--case", "fold"],
    ["score", "--metric", "der", "--utt2spk", "u2s"],
    ["score", "--metric", "cpwer", "--alignment", "out"],
    ["score", "--metric", "bleu", "--report", "out"],
    ["score", "--metric", "bleu", "--glm", "en20030506"],
    ["score", "--metric", "wer", "--tokenize", "zh"],
    ["score", "--metric", "wer", "--collar", "0.5"],
    ["score", "--metric", "cer", "--ref2", "r2"],
    ["compare", "--metric", "bleu", "--bootstrap", "50"],
    ["compare", "--metric", "bleu", "--level", "0.01"],
    ["compare", "--metric", "chrf", "--seed", "3"],
    ["score", "--metric", "wer", "--computation-aware"],  # issues 39-41's options, each refused elsewhere
    ["score", "--metric", "bleu", "--latency-source", "text"],
    ["score", "--metric", "dicpwer", "--resegment"],
    ["score", "--metric", "ter", "--talks", "map.scp"],
    ["score", "--metric", "wer", "--uem", "dev.uem"],
    ["score", "--metric", "cpwer", "--reference-sort", "word"],
    ["score", "--metric", "wer", "--keywords", "kw.txt"],
    ["score", "--metric", "per", "--chardiff"],
    ["score", "--metric", "wer", "--marks", ".,"],
    ["score", "--metric", "pnc_wer", "--tolerances", "50"],
]


@pytest.mark.parametrize("argv", REFUSED, ids=[" ".join(argv) for argv in REFUSED])
def test_an_option_the_metric_does_not_read_is_refused(tmp_path: Path, argv: list[str]) -> None:
    files = [str(tmp_path / name) for name in ("ref.txt", "a.txt", "b.txt")]
    for path in files:
        Path(path).write_text("s1 the cat\n")
    positional = files if argv[0] == "compare" else files[:2]
    with contextlib.redirect_stderr(io.StringIO()) as err, contextlib.redirect_stdout(io.StringIO()):
        status = main([argv[0], *positional, *argv[1:]])
    assert status == 1
    metric, option = argv[2], argv[3]
    assert f"{option} is used by " in err.getvalue() and f", not {metric} (--metric {metric})" in err.getvalue()


def test_options_the_metric_reads_still_work(tmp_path: Path) -> None:
    (tmp_path / "ref.txt").write_text("s1 the cat sat\n")
    (tmp_path / "hyp.txt").write_text("s1 The cat sat\n")
    refs, hyp = str(tmp_path / "ref.txt"), str(tmp_path / "hyp.txt")
    with contextlib.redirect_stdout(io.StringIO()) as out:
        assert main(["score", refs, hyp, "--metric", "bleu", "--lowercase"]) == 0
    assert "100.0" in out.getvalue()
