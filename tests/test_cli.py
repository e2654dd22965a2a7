"""The ``lightscore`` command, run as users run it: through subprocess, output and exit codes checked."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import sentencepiece

from lightscore.cli import main
from lightscore.cli.output import ProgressBar
from lightscore.metrics import TER

TESTS_DIR = Path(__file__).parent
REFERENCE = TESTS_DIR / "data" / "sclite_reference"
LIGHTSCORE = Path(sys.executable).parent / "lightscore"
WER_KEY = "lightscore.metrics.error_rate.WER"
CER_KEY = "lightscore.metrics.error_rate.CER"
CONFIG = """\
inference_dir: ???
metrics:
  - metric: {_target_: lightscore.metrics.WER}
    inputs: [ref, hyp]
  - metric: {_target_: lightscore.metrics.CER}
    inputs: {ref: ref, hyp: hyp}
    apply_to: [test-clean]
"""


def run(*args: str, cwd: Path | None = None, input: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS_DIR), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run(
        [str(LIGHTSCORE), *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=120, input=input
    )


def bar_line(desc: str, rows: int) -> re.Pattern:
    """tqdm's final line of a bar: description, 100%, rows done of total, time taken and left, rate."""
    return re.compile(
        rf"{re.escape(desc)}: 100%\|#+\| {rows}/{rows} \[\d\d:\d\d<\d\d:\d\d, +[\d.?]+ ?(rows/s|s/rows)\]"
    )


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
    bars = done.stderr.splitlines()  # off a terminal: one line per bar, no carriage return
    assert "\r" not in done.stderr and len(bars) == 3
    for line, desc in zip(bars, (f"test-clean  {WER_KEY}", f"test-other  {WER_KEY}", "test-clean  " + CER_KEY)):
        assert bar_line(desc, 2).fullmatch(line), line
    out = done.stdout.splitlines()
    assert out[:4] == [
        WER_KEY,
        "  test set    WER    WER_sub  WER_del  WER_ins  WER_hit  WER_ref_len  WER_utts  WER_utt_err",
        "  test-clean  40.00  1        0        1        4        5            2         50.00",
        "  test-other  0.00   0        0        0        5        5            2         0.00",
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
    errors = [line for line in done.stderr.splitlines() if not re.search(r"\| \d+/\d+ \[", line)]
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
    assert done.returncode == 0
    assert bar_line("hyp.scp  WER", 2).fullmatch(done.stderr.rstrip("\n")), done.stderr
    assert done.stdout.splitlines() == [
        "%WER 40.00 [ 2 / 5, 1 ins, 0 del, 1 sub ]",
        "WER 40.0",
        "settings: WER case=sensitive aligner=unit normalize=none",
        "utterances: 2, with errors: 50.00%",
    ]


def test_score_cer_case_fold_and_alignment(tmp_path):
    (tmp_path / "ref.scp").write_text("u1 The Cat\n")
    (tmp_path / "hyp.scp").write_text("u1 the bat\n")
    done = run("score", "ref.scp", "hyp.scp", "--metric", "cer", "--case", "fold", "--alignment", "out", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = ["%CER 14.29 [ 1 / 7, 0 ins, 0 del, 1 sub ]", "CER 14.285714285714285"]
    lines += ["settings: CER case=fold aligner=unit normalize=none", "utterances: 1, with errors: 100.00%"]
    assert done.stdout.splitlines() == [*lines, "alignment: out"]
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
    summary, rate, settings, _ = capsys.readouterr().out.splitlines()
    assert settings.startswith("settings: TER ") and "bpe.model" in settings
    assert summary.startswith(f"%TER {expected['TER']:.2f} [ ") and expected["TER"] > 0
    assert rate == f"TER {expected['TER']}"
    assert main(["score", "ref.scp", "hyp.scp", "--metric", "ter"]) == 1
    assert "--metric ter needs --bpemodel" in capsys.readouterr().err


def test_usage_errors_exit_2(tmp_path):
    assert run().returncode == 2
    done = run("score", "ref.scp", "hyp.scp", "--metric", "meteor")
    assert done.returncode == 2 and "invalid choice: 'meteor'" in done.stderr


SCORING = ["--aligner", "--normalize", "--substitutions", "--fillers", "--ci", "--bootstrap", "--seed"]
SCORING += ["--block-bootstrap", "--utt2spk", "--debug"]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ((), ["measure", "score", "compare", "report", "--debug"]),
        (("measure",), ["CONFIG", "[KEY=VALUE ...]", "inference_dir=exp/decode", "--debug"]),
        (("score",), ["REF", "HYP", "--metric", "--bpemodel", "--case", "--alignment", "--report", *SCORING]),
        (("compare",), ["REF", "HYP_A", "HYP_B", "--json", "--level", *SCORING]),
        (("report",), ["REF", "HYP", "[HYP_B]", "--output", "--max-utterances", *SCORING]),
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
    bar = ProgressBar(out)
    for done in range(3):
        bar("WER", "dev", done, 2)
    bar("WER", "test", 1, 1)
    bar.close()
    bar.close()
    text = out.getvalue()
    # tqdm redraws with carriage returns; each finished bar stays on its own line.
    assert text.count("\n") == 2 and text.count("\r") >= 4
    finals = [part.split("\r")[-1] for part in text.split("\n")[:2]]
    assert bar_line("dev  WER", 2).fullmatch(finals[0]) and bar_line("test  WER", 1).fullmatch(finals[1])
    assert "dev  WER:   0%|" in text  # the first draw: rows done of total, before any rate


def test_progress_bar_writes_one_line_per_pair_off_a_terminal():
    out = io.StringIO()
    bar = ProgressBar(out)
    bar("WER", "dev", 0, 3)
    bar("WER", "dev", 2, 3)
    bar("CER", "dev", 1, 1)  # a new pair ends the previous bar where it stood
    bar.close()
    first, second = out.getvalue().splitlines()
    assert first.startswith("dev  WER:  67%|") and " 2/3 [" in first
    assert bar_line("dev  CER", 1).fullmatch(second)


def test_measure_usage_does_not_call_the_overrides_required(tmp_path):
    done = run("measure", cwd=tmp_path)
    assert done.returncode == 2
    assert "usage: lightscore measure [-h] [--debug] [--scoreboard] CONFIG [KEY=VALUE ...]" in done.stderr
    assert done.stderr.splitlines()[-1] == "lightscore measure: error: the following arguments are required: CONFIG"


# -- score: inputs that are not plain files -----------------------------------------------


@pytest.fixture
def pair(tmp_path: Path) -> Path:
    (tmp_path / "ref.scp").write_text("u1 the cat sat\nu2 a dog\n")
    (tmp_path / "hyp.scp").write_text("u1 the bat sat down\nu2 a dog\n")
    return tmp_path


def test_score_refuses_a_directory_saying_what_it_is(pair):
    (pair / "hyp_dir").mkdir()
    done = run("score", "ref.scp", "hyp_dir", cwd=pair)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == "lightscore: error: HYP hyp_dir: is a directory, not an SCP file\n"
    assert run("score", "absent.scp", "hyp.scp", cwd=pair).stderr == "lightscore: error: REF absent.scp: no such file\n"


def test_score_reads_standard_input_as_a_stream(pair):
    done = run("score", "ref.scp", "/dev/stdin", cwd=pair, input=(pair / "hyp.scp").read_text())
    assert (done.returncode, done.stderr) == (0, "")  # no bar: counting the rows would consume the stream
    assert done.stdout.splitlines()[:2] == ["%WER 40.00 [ 2 / 5, 1 ins, 0 del, 1 sub ]", "WER 40.0"]
    # The reference leads the read and is read again to confirm a repeated id: it must be a file.
    refused = run("score", "/dev/stdin", "hyp.scp", cwd=pair, input="u1 a\nu2 b\nu1 c\n")
    assert refused.returncode == 1
    assert refused.stderr == (
        "lightscore: error: REF /dev/stdin is a stream: "
        "only the hypothesis can be read from a pipe; save the reference\n"
    )


def test_score_reads_a_fifo_and_refuses_options_that_read_it_twice(pair):
    fifo = pair / "hyp.fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_text((pair / "hyp.scp").read_text()))
    writer.start()
    done = run("score", "ref.scp", "hyp.fifo", cwd=pair)
    writer.join(timeout=10)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines()[1] == "WER 40.0"
    again = run("score", "ref.scp", "hyp.fifo", "--alignment", "out", cwd=pair)  # refused before opening it
    assert again.returncode == 1
    assert again.stderr == (
        "lightscore: error: HYP hyp.fifo is a stream, read once; --alignment reads it again: save it to a file\n"
    )


def test_score_prints_the_rate_even_when_the_alignment_cannot_be_written(pair):
    (pair / "taken").write_text("a file where the folder should be\n")
    done = run("score", "ref.scp", "hyp.scp", "--alignment", "taken/out", cwd=pair)
    assert done.returncode == 1
    assert done.stdout.splitlines()[:2] == ["%WER 40.00 [ 2 / 5, 1 ins, 0 del, 1 sub ]", "WER 40.0"]
    assert done.stderr.splitlines()[-1].startswith("lightscore: error: taken/out/wer_alignment: cannot be written (")


def test_score_ci_and_report_folder(pair):
    done = run("score", "ref.scp", "hyp.scp", "--ci", "0.9", "--bootstrap", "200", "--report", "rep", cwd=pair)
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    assert out[2] == "settings: WER case=sensitive aligner=unit normalize=none ci=0.9 bootstrap=200 seed=0"
    low, high = map(float, re.fullmatch(r"90% interval: \[(\S+), (\S+)\]", out[4]).groups())
    assert low <= 40.0 <= high
    assert out[5] == "report: rep"
    text = done.stdout
    speakers = [
        "  speaker  utterances  words  sub  dele  ins  rate",
        "  u1       1           3      1    0     1    66.67",
    ]
    assert "\n".join(["Speakers", *speakers]) in text
    assert "Top errors\n  substitution  count\n  cat -> bat    1" in text
    assert "  insertion  count\n  down       1" in text
    assert sorted(p.name for p in (pair / "rep").iterdir()) == [
        "wer_alignment", "wer_speakers.tsv", "wer_top_errors.tsv", "wer_worst.tsv"
    ]  # fmt: skip


# -- compare and report ----------------------------------------------------------------------


def test_compare_prints_every_test_and_writes_json(tmp_path):
    files = [str(REFERENCE / name) for name in ("ref.scp", "hyp_a.scp", "hyp_b.scp")]
    done = run("compare", *files, "--aligner", "sclite", "--case", "fold", "--json", "cmp.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    assert out[0] == "settings: WER case=fold aligner=sclite normalize=none ci=0.95 bootstrap=1000 seed=0"
    assert out[1].startswith(f"A {files[1]}: WER 18.88  95% interval [")
    assert out[2].startswith(f"B {files[2]}: WER 16.21  95% interval [")
    table = "\n".join(out)
    assert re.search(r"MAPSSWE +z = 3\.766 \(1088 segments\) +1\.7e-04 +B is better", table)
    assert re.search(r"McNemar +A only 31, B only 49 +0\.0567 +no significant difference", table)
    assert re.search(r"sign +N\+ 8, N- 1, N0 1 \(a - b\) +0\.1094 +no significant difference", table)
    assert out[-2].startswith("verdict: B is better (paired bootstrap p = 0.002 < 0.05; MAPSSWE says B; Wilcoxon")
    saved = json.loads((tmp_path / "cmp.json").read_text())
    assert saved["mcnemar"]["b_only"] == 49 and saved["files"]["b"] == files[2]


def test_compare_names_the_file_line_and_id_that_differ(tmp_path):
    (tmp_path / "ref.scp").write_text("u1 a\nu2 b\n")
    (tmp_path / "b.scp").write_text("u1 a\nu9 b\n")
    done = run("compare", "ref.scp", "ref.scp", "b.scp", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr == "lightscore: error: utterance ids differ: ref.scp:2 has 'u2', b.scp:2 has 'u9'\n"


def span(page: str, span_id: str) -> float:
    return float(re.search(rf'id="{span_id}" data-value="([^"]+)"', page).group(1))


def test_report_of_two_systems_holds_their_numbers_and_the_comparison(tmp_path):
    files = [str(REFERENCE / name) for name in ("ref.scp", "hyp_a.scp", "hyp_b.scp")]
    args = ["--aligner", "sclite", "--case", "fold", "--max-utterances", "20", "-o", "out/report.html"]
    done = run("report", *files, *args, cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, "report: out/report.html\n"), done.stderr
    page = (tmp_path / "out" / "report.html").read_text()
    assert span(page, "rate-0") == pytest.approx(100 * 1531 / 8110) and span(page, "rate-1") == pytest.approx(
        100 * 1315 / 8110
    )
    assert (span(page, "sub-0"), span(page, "utt-err-0"), span(page, "utts-1"), span(page, "utt-err-1")) == (
        924, 314, 400, 296
    )  # fmt: skip
    assert span(page, "cmp-difference") == pytest.approx(100 * (1315 - 1531) / 8110)
    assert span(page, "cmp-ci-low") < span(page, "cmp-difference") < span(page, "cmp-ci-high") < 0
    assert span(page, "utt-count") == 20 and span(page, "utt-total") == 400
    assert 'id="cmp-verdict" class="verdict">B is better (paired bootstrap p = 0.002 &lt; 0.05' in page
    assert "WER case=fold aligner=sclite normalize=none" in page and 'id="speakers"' in page


def test_report_of_one_system(pair):
    done = run("report", "ref.scp", "hyp.scp", "-o", "r.html", cwd=pair)
    assert done.returncode == 0, done.stderr
    page = (pair / "r.html").read_text()
    assert (span(page, "rate-0"), span(page, "ins-0"), span(page, "utt-err-0")) == (40.0, 1, 1)
    assert 'id="comparison"' not in page and ">cat</td>" in page


def test_score_normalizer_user_rules_and_utt2spk(tmp_path):
    (tmp_path / "ref.scp").write_text("u1 OK, the cat sat.\nu2 A dog!\n")
    (tmp_path / "hyp.scp").write_text("u1 okay um the cat sat\nu2 a fog\n")
    (tmp_path / "subs.tsv").write_text("okay\tok\n")
    (tmp_path / "fillers.txt").write_text("um\n")
    (tmp_path / "utt2spk").write_text("u1 alice\nu2 bob\n")
    args = ["--normalize", "whisper_basic", "--substitutions", "subs.tsv", "--fillers", "fillers.txt"]
    done = run("score", "ref.scp", "hyp.scp", *args, "--utt2spk", "utt2spk", "--report", "rep", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    # whisper_basic lower-cases and drops punctuation; "okay" -> "ok", "um" dropped: only dog/fog differs.
    assert out[:2] == ["%WER 16.67 [ 1 / 6, 0 ins, 0 del, 1 sub ]", "WER 16.666666666666664"]
    assert out[2].startswith("settings: WER case=sensitive aligner=unit normalize=whisper_basic (whisper-normalizer ")
    assert "  bob      1           2      1    0     0    50.00" in done.stdout
    assert "  alice    1           4      0    0     0    0.00" in done.stdout
