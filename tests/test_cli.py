"""The ``lightscore`` command, run as users run it: through subprocess, output and exit codes checked."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import sentencepiece

from lightscore.cli import ProgressBar, main
from lightscore.metrics import TER

TESTS_DIR = Path(__file__).parent
LIGHTSCORE = Path(sys.executable).parent / "lightscore"
WER_KEY = "lightscore.metrics.error_rate.WER"
CONFIG = """\
inference_dir: ???
metrics:
  - metric: {_target_: lightscore.metrics.WER}
    inputs: [ref, hyp]
  - metric: {_target_: lightscore.metrics.CER}
    inputs: {ref: ref, hyp: hyp}
    apply_to: [test-clean]
"""


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS_DIR), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([str(LIGHTSCORE), *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=120)


@pytest.fixture
def decode(tmp_path: Path) -> Path:
    for name, hyp in (("test-clean", "u1 the bat sat down\nu2 a dog\n"), ("test-other", "u1 the cat sat\nu2 a dog\n")):
        (tmp_path / "decode" / name).mkdir(parents=True)
        (tmp_path / "decode" / name / "ref.scp").write_text("u1 the cat sat\nu2 a dog\n")
        (tmp_path / "decode" / name / "hyp.scp").write_text(hyp)
    (tmp_path / "metrics.yaml").write_text(CONFIG)
    return tmp_path / "decode"


def test_measure_prints_progress_table_and_where_metrics_json_is(decode, tmp_path):
    done = run("measure", "metrics.yaml", "inference_dir=decode", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    bars = done.stderr.splitlines()
    assert bars == [
        f"test-clean  {WER_KEY}  [{'#' * 30}]  2/2",
        f"test-other  {WER_KEY}  [{'#' * 30}]  2/2",
        f"test-clean  lightscore.metrics.error_rate.CER  [{'#' * 30}]  2/2",
    ]
    out = done.stdout.splitlines()
    assert out[:4] == [
        WER_KEY,
        "  test set    WER    WER_sub  WER_del  WER_ins  WER_hit  WER_ref_len",
        "  test-clean  40.00  1        0        1        4        5",
        "  test-other  0.00   0        0        0        5        5",
    ]
    assert out[-1] == "metrics.json: decode/metrics.json"
    written = json.loads((decode / "metrics.json").read_text())
    assert written[WER_KEY]["test-clean"]["WER"] == 40.0
    assert list(written["lightscore.metrics.error_rate.CER"]) == ["test-clean"]


def test_measure_with_a_failing_metric_writes_the_others_and_exits_1(decode, tmp_path):
    (tmp_path / "metrics.yaml").write_text(
        CONFIG + "  - metric: {_target_: fixtures_datasets.Failing}\n    inputs: [hyp]\n    apply_to: [test-other]\n"
    )
    done = run("measure", "metrics.yaml", f"inference_dir={decode}", cwd=tmp_path)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if "[" not in line]
    assert errors == [
        f"lightscore: error: 1 metric run(s) failed; the other results are in {decode / 'metrics.json'}:",
        "  fixtures_datasets.Failing on test-other: RuntimeError: the scorer broke",
    ]
    assert "  test-clean  40.00" in done.stdout
    assert set(json.loads((decode / "metrics.json").read_text())) == {WER_KEY, "lightscore.metrics.error_rate.CER"}


def test_measure_config_error_is_one_line_and_debug_shows_the_traceback(decode, tmp_path):
    done = run("measure", "metrics.yaml", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        "lightscore: error: metrics.yaml: inference_dir is not set. Set `inference_dir: exp/decode` in the metrics "
        "YAML, pass inference_config=..., or add the override inference_dir=exp/decode"
    ]
    debug = run("measure", "metrics.yaml", "--debug", cwd=tmp_path)
    assert debug.returncode == 1
    assert "Traceback (most recent call last)" in debug.stderr and "ValueError: metrics.yaml" in debug.stderr
    assert run("--debug", "measure", "metrics.yaml", cwd=tmp_path).stderr == debug.stderr


def test_measure_errors_name_the_file(tmp_path):
    assert run("measure", "absent.yaml", cwd=tmp_path).stderr == "lightscore: error: absent.yaml: no such config file\n"
    (tmp_path / "metrics.yaml").write_text(CONFIG)
    done = run("measure", "metrics.yaml", "inference_dir", cwd=tmp_path)
    assert done.returncode == 1
    assert "override 'inference_dir' is not key=value" in done.stderr


def test_score_prints_the_kaldi_line_and_the_rate(decode):
    done = run("score", str(decode / "test-clean" / "ref.scp"), str(decode / "test-clean" / "hyp.scp"))
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines() == ["%WER 40.00 [ 2 / 5, 1 ins, 0 del, 1 sub ]", "WER 40.0"]


def test_score_cer_case_fold_and_alignment(tmp_path):
    (tmp_path / "ref.scp").write_text("u1 The Cat\n")
    (tmp_path / "hyp.scp").write_text("u1 the bat\n")
    done = run("score", "ref.scp", "hyp.scp", "--metric", "cer", "--case", "fold", "--alignment", "out", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = ["%CER 14.29 [ 1 / 7, 0 ins, 0 del, 1 sub ]", "CER 14.285714285714285", "alignment: out"]
    assert done.stdout.splitlines() == lines
    report = (tmp_path / "out" / "cer_alignment").read_text()
    assert report.startswith("%CER 14.29 [ 1 / 7") and "id: u1" in report


def test_score_mismatched_ids_name_file_line_and_id(tmp_path):
    (tmp_path / "ref.scp").write_text("u1 a\nu2 b\n")
    (tmp_path / "hyp.scp").write_text("u1 a\nu3 b\n")
    done = run("score", "ref.scp", "hyp.scp", cwd=tmp_path)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == "lightscore: error: utterance ids differ: ref.scp:2 has 'u2', hyp.scp:2 has 'u3'\n"


def test_score_ter_with_a_trained_sentencepiece_model(tmp_path, capsys):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(["the cat sat on the mat", "a dog ran in the park", "the bird sang a song"] * 20))
    sentencepiece.SentencePieceTrainer.train(
        input=str(corpus), model_prefix=str(tmp_path / "bpe"), vocab_size=30, model_type="bpe", minloglevel=2
    )
    (tmp_path / "ref.scp").write_text("u1 the cat sat on the mat\n")
    (tmp_path / "hyp.scp").write_text("u1 the bat sat on a mat\n")
    model = str(tmp_path / "bpe.model")
    ref, hyp = str(tmp_path / "ref.scp"), str(tmp_path / "hyp.scp")
    assert main(["score", ref, hyp, "--metric", "ter", "--bpemodel", model]) == 0
    expected = TER(model)({"ref": tmp_path / "ref.scp", "hyp": tmp_path / "hyp.scp"}, "x")
    summary, rate = capsys.readouterr().out.splitlines()
    assert summary.startswith(f"%TER {expected['TER']:.2f} [ ") and expected["TER"] > 0
    assert rate == f"TER {expected['TER']}"
    assert main(["score", "ref.scp", "hyp.scp", "--metric", "ter"]) == 1
    assert "--metric ter needs --bpemodel" in capsys.readouterr().err


def test_usage_errors_exit_2(tmp_path):
    assert run().returncode == 2
    done = run("score", "ref.scp", "hyp.scp", "--metric", "bleu")
    assert done.returncode == 2 and "invalid choice: 'bleu'" in done.stderr


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ((), ["measure", "score", "--debug"]),
        (("measure",), ["CONFIG", "KEY=VALUE", "inference_dir=exp/decode", "--debug"]),
        (("score",), ["REF", "HYP", "--metric", "--bpemodel", "--case", "--alignment", "--debug"]),
    ],
)
def test_help_explains_every_option(args, words):
    done = run(*args, "--help")
    assert done.returncode == 0
    for word in words:
        assert word in done.stdout


def test_score_help_and_import_load_no_torch_lightning_or_hydra():
    code = (
        "import sys, contextlib, io, lightscore\n"
        "from lightscore.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main(['score', '--help'])\n"
        "heavy = ('torch', 'torchaudio', 'lightning', 'hydra', 'omegaconf', 'sentencepiece', 'numpy')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == "[]\n"


def test_progress_bar_redraws_in_place_on_a_terminal():
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    out = Terminal()
    bar = ProgressBar(out, width=4)
    bar("WER", "dev", 0, 2)
    bar("WER", "dev", 1, 2)
    bar("WER", "dev", 2, 2)
    bar("WER", "test", 1, 1)
    bar.close()
    bar.close()
    assert out.getvalue() == (
        "\rdev  WER  [....]  0/2\rdev  WER  [##..]  1/2\rdev  WER  [####]  2/2\n\rtest  WER  [####]  1/1\n"
    )
