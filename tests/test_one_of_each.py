"""One of each (issue 18) and the statistics and error paths of issue 19: each test fails on main 41d33b6.

- one TSV writer that no value can break (issue 19 item 8), one p-value text and verdict wording,
  CLI choices read from where they are defined, one temp-file pattern, one meaning per name;
- the paired bootstrap counts ties against significance (issue 19 item 1), MAPSSWE says when it
  cannot test, ``compare`` refuses levels and replicates that make no test, ``score --ci`` on mostly
  empty references;
- a NUL byte in a ``dataset:`` id is refused by the one name check (issue 19 item 4).
"""

from __future__ import annotations

import csv
import inspect
import math
import os
import subprocess
import sys
import unicodedata
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lightscore.analysis.breakdown as breakdown
import lightscore.lightning.samples as samples
from lightscore.analysis.bootstrap import bootstrap_ci, min_replicates, paired_bootstrap
from lightscore.analysis.mapsswe import mapsswe
from lightscore.analysis.verdict import significant, verdict
from lightscore.cli.parser import MEETING_SORTS, build_parser
from lightscore.io.atomic import atomic_open, temp_target
from lightscore.io.tsv import write_tsv
from lightscore.offline.compare import compare
from lightscore.offline.dataset_columns import write_column
from lightscore.scp.lines import check_name, check_utt_id

LIGHTSCORE = Path(sys.executable).with_name("lightscore")
SRC = Path(__file__).parents[1] / "src" / "lightscore"

# Text as users' data holds it: any character but lone surrogates (not text; refused where they enter).
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)


def read_tsv(path: Path) -> list[list[str]]:
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.reader(f, delimiter="\t"))


# -- one TSV writer ------------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(TEXT, min_size=3, max_size=3), max_size=6), st.integers(1, 3))
def test_any_text_reads_back_equal_with_python_csv(tmp_path_factory, rows, width):
    path = tmp_path_factory.mktemp("tsv") / "t.tsv"
    header = [f"c{i}" for i in range(width)]
    rows = [row[:width] for row in rows]
    write_tsv(path, header, rows)
    assert read_tsv(path) == [header, *rows]


def test_breakdown_and_samples_use_the_one_writer():
    assert breakdown.write_tsv is write_tsv
    assert not hasattr(samples, "_write_tsv") and "import csv" not in inspect.getsource(samples)


def test_log_samples_keeps_a_carriage_return_in_its_row(tmp_path):
    from lightning.pytorch.loggers import CSVLogger

    logger = CSVLogger(tmp_path)
    rows = [samples.Sample("u1", 2, "here is", "here\rx is", "here +x\r|is"), samples.Sample("u2", 0, "a", "a", "a")]
    assert samples.log_samples([logger], "val/WER_worst", rows, epoch=0, step=1) == []
    back = read_tsv(Path(logger.log_dir) / "val_WER_worst_epoch0.tsv")
    assert back == [list(samples.COLUMNS), *[[str(cell) for cell in row] for row in rows]]
    table = samples.markdown_table(rows).split("\n")
    assert len(table) == 4 and "\r" not in "".join(table)
    assert table[2] == "| u1 | 2 | here is | here x is | here +x \\|is |"


# -- one p-value text, one verdict, one wording of a test that could not be made --------------------


def corpus(tmp_path: Path, rows: list[tuple[str, str, str, str]]) -> tuple[Path, Path, Path]:
    """Write ``(utt_id, ref, hyp_a, hyp_b)`` rows as three SCP files."""
    paths = tuple(tmp_path / f"{name}.scp" for name in ("ref", "a", "b"))
    for k, path in enumerate(paths, 1):
        path.write_text("".join(f"{row[0]} {row[k]}\n" for row in rows))
    return paths


def test_b_fixing_one_word_in_1000_utterances_is_no_difference(tmp_path):
    rows = [(f"s{i % 20}-u{i:04d}", "the cat sat", "the cat sat", "the cat sat") for i in range(1000)]
    rows[7] = (rows[7][0], "the cat sat", "the bat sat", "the cat sat")
    result = compare(*corpus(tmp_path, rows))
    boot = result["bootstrap"]
    low, high = boot["ci"]
    assert low < 0 and high == 0.0  # ties: most resamples leave the one utterance out
    assert boot["p"] > 0.5 and not significant(boot)
    assert result["verdict"].startswith("no significant difference (paired bootstrap p = 0.")
    for key in ("mapsswe", "mcnemar", "sign", "wilcoxon"):
        assert result[key]["verdict"].startswith("no significant difference"), key


def test_one_utterance_gives_no_verdict_and_says_why(tmp_path):
    result = compare(*corpus(tmp_path, [("u1", "a b c d", "a x c y", "a b c d")]))
    boot, mp = result["bootstrap"], result["mapsswe"]
    assert boot["p"] == 1.0 and "every resample of the 1 utterance gives the same difference" in boot["reason"]
    assert mp["z"] is None and mp["p"] == mp["p_sctk"] == 1.0 and mp["reason"].startswith("1 segment")
    assert result["verdict"].startswith("no significant difference (paired bootstrap: every resample")
    from lightscore.cli.output import format_comparison

    text = format_comparison({**result, "files": {"ref": "r", "a": "a", "b": "b"}})
    assert "inf" not in text and "z undefined" not in text and "z = undefined (1 segments)" in text


def test_identical_systems_give_p_1(tmp_path):
    rows = [(f"s{i % 3}-u{i}", "a b c", "a x c", "a x c") for i in range(30)]
    result = compare(*corpus(tmp_path, rows))
    assert result["bootstrap"]["p"] == 1.0 and result["bootstrap"]["better"] is None
    assert result["verdict"] == "no significant difference (paired bootstrap p = 1.000 >= 0.05; no other test differs)"


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4), st.integers(0, 6)), min_size=1, max_size=15),
    st.integers(0, 10),
)
def test_the_bootstrap_p_follows_its_formula_and_never_contradicts_its_interval(units, seed):
    errors_a, errors_b, ref_lens = (np.array(column, dtype=float) for column in zip(*units))
    if ref_lens.sum() == 0:
        return
    try:
        r = paired_bootstrap(errors_a, errors_b, ref_lens, replicates=200, seed=seed)
    except ValueError as e:  # nearly every resample empty: the interval is undefined, and said so
        assert "hold no reference token" in str(e)
        return
    # The same draws by hand: resamples with a reference token, percentile test with ties against.
    picks = np.random.default_rng(seed).integers(0, len(units), size=(200, len(units)))
    lens = ref_lens[picks].sum(axis=1)
    keep = lens > 0
    diff = 100 * errors_b[picks].sum(axis=1)[keep] / lens[keep] - 100 * errors_a[picks].sum(axis=1)[keep] / lens[keep]
    observed = 100 * (errors_b.sum() - errors_a.sum()) / ref_lens.sum()
    if observed == 0 or np.all(diff == diff[0]):
        assert r["p"] == 1.0
    else:
        against = np.sum(diff >= 0) if observed < 0 else np.sum(diff <= 0)
        assert r["p"] == pytest.approx(min(1.0, 2 * (against + 1) / (keep.sum() + 1)))
    if np.array_equal(errors_a, errors_b):
        assert r["p"] == 1.0 and not significant(r)
    if significant(r):
        assert not r["ci"][0] <= 0 <= r["ci"][1]


def test_mapsswe_without_spread_is_no_difference_stated():
    a = [[("x", "y", "S"), ("w", "w", "C"), ("v", "v", "C")]] * 3
    b = [[("x", "x", "C"), ("w", "w", "C"), ("v", "v", "C")]] * 3
    r = mapsswe(a, b)
    assert (r["segments"], r["z"], r["p"], r["better"]) == (3, None, 1.0, "b")
    assert verdict(r) == "no significant difference (all 3 segments differ by the same +1 errors: no spread to test)"


def test_the_p_value_text_and_the_verdict_are_written_once():
    sources = {p.relative_to(SRC).as_posix(): p.read_text() for p in SRC.rglob("*.py")}
    assert [name for name, text in sources.items() if "1 / boot" in text or "p < {1" in text] == []
    assert [name for name, text in sources.items() if "is better (" in text] == ["analysis/verdict.py"]
    assert max(len(text.splitlines()) for name, text in sources.items() if name.startswith("analysis/")) <= 400


# -- compare and score refuse what makes no test -----------------------------------------------------


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(LIGHTSCORE), *args], capture_output=True, text=True, cwd=cwd, timeout=120)


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (("--level", "1.5"), "argument --level: 1.5 is not between 0 and 1"),
        (("--level", "nan"), "argument --level: nan is not between 0 and 1"),
        (("--level", "0"), "argument --level: 0 is not between 0 and 1"),
        (("--bootstrap", "1"), "argument --bootstrap: 1 is not a whole number of replicates above 1"),
        (("--bootstrap", "20"), "bootstrap 20: too few replicates for a 95% interval, which needs at least 40"),
        (("--level", "0.01", "--bootstrap", "100"), "which needs at least 200 (for a p below 0.01)"),
    ],
)
def test_compare_refuses_levels_and_replicates_that_make_no_test(tmp_path, option, message):
    corpus(tmp_path, [("u1", "a b", "a b", "a c"), ("u2", "c d", "c x", "c d")])
    done = run("compare", "ref.scp", "a.scp", "b.scp", *option, cwd=tmp_path)
    assert done.returncode in (1, 2) and message in done.stderr, done.stderr
    assert done.stdout == ""


def test_compare_library_refuses_them_too(tmp_path):
    files = corpus(tmp_path, [("u1", "a b", "a b", "a c")])
    for level in (1.5, math.nan, 0.0):
        with pytest.raises(ValueError, match="level must be between 0 and 1"):
            compare(*files, level=level)
    with pytest.raises(ValueError, match="bootstrap 1: too few replicates"):
        compare(*files, bootstrap=1)
    assert min_replicates(0.95) == 40 and min_replicates(0.95, 0.05) == 40


def test_score_ci_on_mostly_empty_references_reports_the_interval(tmp_path):
    (tmp_path / "ref.scp").write_text("u00 the cat sat\n" + "".join(f"u{i:02d}\n" for i in range(1, 30)))
    (tmp_path / "hyp.scp").write_text("u00 the bat sat\n" + "".join(f"u{i:02d}\n" for i in range(1, 30)))
    done = run("score", "ref.scp", "hyp.scp", "--ci", "0.95", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "95% interval: [33.33, 33.33]" in done.stdout  # every resample holding the utterance gives its rate
    errors, lens = [1] + [0] * 29, [3] + [0] * 29
    assert bootstrap_ci(errors, lens) == (pytest.approx(100 / 3), pytest.approx(100 / 3))
    with pytest.raises(ValueError, match=r"interval is undefined: \d+ of 40 resamples hold no reference token"):
        bootstrap_ci([1] + [0] * 99, [3] + [0] * 99, replicates=40)


# -- choices, temp files, names ----------------------------------------------------------------------


def test_cli_choices_are_the_defining_modules_tuples():
    from lightscore.metrics.error_rate_options import CASES
    from lightscore.offline.compare import METRICS
    from lightscore.text.aligners import ALIGNERS
    from lightscore.text.choices import (
        LATENCY_METRICS,
        MEETING_METRICS,
        NORMALIZERS,
        PNC_TIMING_METRICS,
        RECOGNITION_PRACTICE,
        TRANSLATION_METRICS,
    )
    from lightscore.text.hubscr.languages import LANGUAGES
    from lightscore.text.meeting.time_constrained import SORTS
    from lightscore.text.mt.simul_latency import SOURCES, UNITS
    from lightscore.text.normalize import NAMES
    from lightscore.text.sclite.trn import SCLITE_FORMATS

    score = build_parser()._subparsers._group_actions[0].choices["score"]
    choices = {action.dest: action.choices for action in score._actions if action.choices}
    families = (*TRANSLATION_METRICS, *MEETING_METRICS, *RECOGNITION_PRACTICE, *PNC_TIMING_METRICS, *LATENCY_METRICS)
    assert choices == {
        "metric": (*METRICS, *families),
        "case": CASES,
        "aligner": ALIGNERS,
        "normalize": NAMES,
        "format": SCLITE_FORMATS,
        "language": LANGUAGES,
        "reference_sort": MEETING_SORTS,
        "hypothesis_sort": MEETING_SORTS,
        "latency_source": ("speech", "text"),  # the default first; the light parser cannot import the defining modules
        "latency_unit": ("word", "char"),
    }
    assert [{"true": True, "false": False}.get(s, s) for s in MEETING_SORTS] == list(SORTS)
    assert set(choices["latency_source"]) == set(SOURCES) and choices["latency_unit"] == UNITS
    assert choices["language"] is LANGUAGES
    assert NAMES is NORMALIZERS


def test_the_temp_file_pattern_is_atomic_opens(tmp_path):
    target = tmp_path / "wer_alignment"
    with atomic_open(target) as f:
        [temp] = [p.name for p in tmp_path.iterdir()]
        f.write("x")
    assert temp_target(temp) == "wer_alignment" and temp_target(target.name) is None
    assert "lightscore-tmp" not in (SRC / "cli" / "commands.py").read_text()


def test_one_meaning_per_name():
    import lightscore.lightning.tally as tally
    import lightscore.offline.compare as compare_module
    import lightscore.offline.config as config
    import lightscore.scp.ids as ids

    assert hasattr(compare_module, "metric_by_name") and not hasattr(compare_module, "build_metric")
    assert hasattr(config, "build_metric") and hasattr(ids, "Row") and not hasattr(tally, "Row")
    assert "what" not in inspect.signature(check_utt_id).parameters
    with pytest.raises(ValueError, match="^metrics.yaml: test set name 'my dir' is not a plain token"):
        check_name("my dir", "test set name", "metrics.yaml")


# -- names that become files ------------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["u\x00a", "u\x1bb", "u\x7f", "u\x9fx"])
def test_check_utt_id_refuses_what_a_file_name_cannot_hold(bad):
    with pytest.raises(ValueError, match=r"^hyp\.scp: utterance id .* holds U\+00.. .*at character 2"):
        check_utt_id(bad, "hyp.scp")


@settings(max_examples=400, deadline=None)
@given(name=st.text(st.characters(max_codepoint=0x7F), max_size=6) | st.text(max_size=6))
def test_names_printable_ascii_takes_a_shortcut_to_the_same_answer(name: str) -> None:
    """check_name's fast path for printable ASCII accepts exactly what the character-by-character rule accepts."""
    rule = not (
        name in ("", ".", "..")
        or any(c.isspace() for c in name)
        or "/" in name
        or "\\" in name
        or any(unicodedata.category(c) in ("Cc", "Cs") for c in name)
    )
    try:
        check_name(name, "name")
    except ValueError:
        assert not rule
    else:
        assert rule


def test_nul_in_dataset_ids_is_refused_before_a_wav_is_written(tmp_path):
    wave = {"array": np.zeros(160, dtype=np.float32), "sampling_rate": 16000}
    items = [{"utt_id": "u\x00a", "speech": wave}, {"utt_id": "u\x00b", "speech": wave}]
    scp = tmp_path / "dataset" / "speech.scp"
    with pytest.raises(ValueError, match=r"^dataset item 0 \(list\): utterance id 'u\\x00a' holds U\+0000 \(NUL\)"):
        write_column(items, "speech", scp)
    assert not scp.exists() and not (tmp_path / "dataset" / "speech").exists()


def test_ids_that_differ_only_in_case_get_their_own_wavs_here(tmp_path):
    wave = {"array": np.full(160, 0.25, dtype=np.float32), "sampling_rate": 16000}
    quiet = {"array": np.zeros(160, dtype=np.float32), "sampling_rate": 16000}
    scp = tmp_path / "dataset" / "speech.scp"
    probe = tmp_path / "Probe"
    probe.touch()
    folds_case = (tmp_path / "probe").exists()
    items = [{"utt_id": "A", "speech": wave}, {"utt_id": "a", "speech": quiet}]
    if folds_case:  # a case-insensitive file system (macOS, Windows): the second WAV would overwrite the first
        with pytest.raises(ValueError, match="would overwrite that of utterance 'A'"):
            write_column(items, "speech", scp)
        return
    write_column(items, "speech", scp)
    assert sorted(p.name for p in (tmp_path / "dataset" / "speech").iterdir()) == ["A.wav", "a.wav"]
    assert os.path.getsize(tmp_path / "dataset" / "speech" / "A.wav") > 0
