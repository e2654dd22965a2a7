"""`compare_sets`: two systems on several test sets, per-set rows equal to `compare`, pooled and macro stratified."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lightscore.cli import main
from lightscore.metrics import WER
from lightscore.offline.compare import compare
from lightscore.offline.compare_sets import TestSet, compare_sets, sets_from_dirs

WORDS = "the a cat dog sat ran on mat far away hello world one two three".split()


def corpus(rng: random.Random, prefix: str, n: int, error_a: float, error_b: float) -> tuple[list, list, list]:
    """``n`` utterances of 1 to 12 words (ids ``<prefix>spk<k>-u<i>``) and two hypotheses with these error rates."""

    def noisy(words: list[str], rate: float) -> str:
        out = []
        for word in words:
            roll = rng.random()
            if roll < rate / 3:
                out.append(rng.choice(WORDS))  # substitution (or, by chance, correct)
            elif roll < 2 * rate / 3:
                continue  # deletion
            elif roll < rate:
                out += [word, rng.choice(WORDS)]  # insertion
            else:
                out.append(word)
        return " ".join(out)

    refs, hyps_a, hyps_b = [], [], []
    for i in range(n):
        utt = f"{prefix}spk{i % 3}-u{i:03d}"
        words = [rng.choice(WORDS) for _ in range(rng.randint(1, 12))]
        refs.append((utt, " ".join(words)))
        hyps_a.append((utt, noisy(words, error_a)))
        hyps_b.append((utt, noisy(words, error_b)))
    return refs, hyps_a, hyps_b


def write(path: Path, rows: list) -> Path:
    path.write_text("".join(f"{utt} {text}\n" for utt, text in rows), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def three_sets(tmp_path_factory) -> tuple[Path, list[TestSet]]:
    """Three test sets of different sizes and difficulty, as measure() lays them out: <dir>/<set>/{ref,hyp}.scp."""
    root = tmp_path_factory.mktemp("sets")
    rng = random.Random(7)
    sets = []
    for name, n, error_a, error_b in (("clean", 60, 0.10, 0.06), ("other", 25, 0.30, 0.25), ("noisy", 40, 0.2, 0.2)):
        refs, hyps_a, hyps_b = corpus(rng, f"{name}_", n, error_a, error_b)
        for system, rows in (("A", hyps_a), ("B", hyps_b)):
            (root / system / name).mkdir(parents=True)
            write(root / system / name / "hyp.scp", rows)
            write(root / system / name / "ref.scp", refs)
        a, b = root / "A" / name, root / "B" / name
        sets.append(TestSet(name, a / "ref.scp", a / "hyp.scp", b / "hyp.scp"))
    return root, sets


@pytest.fixture(scope="module")
def summary(three_sets) -> dict:
    return compare_sets(three_sets[1], bootstrap=400, seed=11)


def test_each_set_equals_compare_on_that_set_alone(three_sets, summary):
    for k, test in enumerate(three_sets[1]):
        alone = compare(test.ref, test.hyp_a, test.hyp_b, bootstrap=400, seed=11 + k)
        assert summary["sets"][test.name] == alone
        row = summary["rows"][k]
        assert row["test"] == test.name and row["utterances"] == alone["utterances"]
        assert (row["WER_a"], row["WER_b"]) == (alone["a"]["WER"], alone["b"]["WER"])
        boot = alone["bootstrap"]
        assert (row["difference"], row["p"]) == (boot["difference"], boot["p"])
        assert [row["ci_low"], row["ci_high"]] == boot["ci"]
    assert summary["bootstrap"]["seeds"] == {"clean": 11, "other": 12, "noisy": 13}


def test_pooled_equals_wer_over_the_concatenated_sets(three_sets, summary, tmp_path):
    pooled = summary["pooled"]
    for side, column in (("a", "hyp_a"), ("b", "hyp_b")):
        ref, hyp = tmp_path / "ref.scp", tmp_path / f"{side}.scp"
        ref.write_text("".join(t.ref.read_text() for t in three_sets[1]))
        hyp.write_text("".join(getattr(t, column).read_text() for t in three_sets[1]))
        concatenated = WER()({"ref": ref, "hyp": hyp}, "all")
        assert pooled[side]["WER"] == concatenated["WER"]
        for count in ("sub", "del", "ins", "hit", "ref_len"):
            assert pooled[side][f"WER_{count}"] == concatenated[f"WER_{count}"]
    row = summary["rows"][3]
    assert row["test"] == "pooled" and row["utterances"] == 125
    assert row["difference"] == pytest.approx(pooled["b"]["WER"] - pooled["a"]["WER"], abs=1e-9)
    macro = summary["rows"][4]
    rates = [(r["WER_a"], r["WER_b"]) for r in summary["rows"][:3]]
    assert macro["WER_a"] == pytest.approx(np.mean([a for a, _ in rates]))
    assert macro["difference"] == pytest.approx(np.mean([b - a for a, b in rates]))


def naive_stratified(summary: dict, sets: list[TestSet], replicates: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The stratified bootstrap written out plainly: set k drawn with default_rng(seed + k), its own size."""
    pooled_e, pooled_n, macro = np.zeros((2, replicates)), np.zeros(replicates), np.zeros((2, replicates))
    for k, test in enumerate(sets):
        a, b = (WER(per_utterance=True), WER(per_utterance=True))
        a({"ref": test.ref, "hyp": test.hyp_a}, test.name)
        b({"ref": test.ref, "hyp": test.hyp_b}, test.name)
        errors = np.array([[r.errors for r in m.utterance_records()] for m in (a, b)], dtype=float)
        lengths = np.array([r.ref_len for r in a.utterance_records()], dtype=float)
        picks = np.random.default_rng(seed + k).integers(0, len(lengths), size=(replicates, len(lengths)))
        e, n = errors[:, picks].sum(axis=2), lengths[picks].sum(axis=1)
        pooled_e, pooled_n = pooled_e + e, pooled_n + n
        macro += 100 * e / n / len(sets)
    pooled = 100 * pooled_e / pooled_n
    return pooled[1] - pooled[0], macro[1] - macro[0]


def test_pooled_and_macro_intervals_are_the_stratified_bootstrap(three_sets, summary):
    pooled, macro = naive_stratified(summary, three_sets[1], 400, 11)
    for row, diffs in ((summary["rows"][3], pooled), (summary["rows"][4], macro)):
        assert (row["ci_low"], row["ci_high"]) == pytest.approx(tuple(np.quantile(diffs, [0.025, 0.975])), abs=1e-9)
        assert row["p_b_better"] == pytest.approx(np.mean(diffs < 0))
    assert summary["pooled"]["bootstrap"]["stratified"] is True


@settings(max_examples=15, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sizes=st.lists(st.integers(3, 25), min_size=2, max_size=4), seed=st.integers(0, 10_000))
def test_every_interval_holds_its_point_estimate(tmp_path, sizes, seed):
    rng = random.Random(seed)
    sets = []
    for k, n in enumerate(sizes):
        refs, hyps_a, hyps_b = corpus(rng, f"s{k}_", n, rng.uniform(0.05, 0.4), rng.uniform(0.05, 0.4))
        files = [write(tmp_path / f"{seed}_{k}_{kind}.scp", rows) for kind, rows in zip("rab", (refs, hyps_a, hyps_b))]
        sets.append((f"set{k}", *files))
    result = compare_sets(sets, bootstrap=200, seed=seed)
    assert [row["test"] for row in result["rows"]] == [f"set{k}" for k in range(len(sizes))] + ["pooled", "macro"]
    for row in result["rows"]:
        assert row["ci_low"] <= row["difference"] + 1e-9 and row["difference"] - 1e-9 <= row["ci_high"], row


def test_dirs_give_the_same_sets_as_set_options(three_sets, summary):
    root, sets = three_sets
    found = sets_from_dirs(root / "A", root / "B")
    assert [t.name for t in found] == sorted(t.name for t in sets)
    assert {t.name: t for t in found} == {t.name: t for t in sets}


def test_a_set_missing_in_one_system_names_the_set_and_file(three_sets, tmp_path):
    root, _ = three_sets
    b = tmp_path / "B"
    for name in ("clean", "noisy"):
        (b / name).mkdir(parents=True)
        (b / name / "hyp.scp").write_text((root / "B" / name / "hyp.scp").read_text())
    with pytest.raises(FileNotFoundError, match=r"test set 'other': .*B/other/hyp.scp: no such file \(system B"):
        sets_from_dirs(root / "A", b)
    with pytest.raises(FileNotFoundError, match=r"test set 'other': .*B/other/hyp.scp: no such file \(system A has no"):
        sets_from_dirs(b, root / "A")  # that folder given first: it is system A that lacks the set
    (b / "extra").mkdir()
    (b / "extra" / "hyp.scp").write_text("u1 a\n")
    with pytest.raises(FileNotFoundError, match=r"test set 'extra': .*/extra/hyp.scp: no such file \(system A has no"):
        sets_from_dirs(root / "A", b)


def test_ids_that_differ_name_the_set_file_line_and_id(three_sets, tmp_path):
    sets = list(three_sets[1])
    rows = sets[1].hyp_b.read_text().splitlines()
    rows[4] = "intruder " + rows[4].split(" ", 1)[1]
    bad = tmp_path / "bad.scp"
    bad.write_text("\n".join(rows) + "\n")
    sets[1] = sets[1]._replace(hyp_b=bad)
    with pytest.raises(ValueError, match=r"^test set 'other': utterance ids differ: .*ref.scp:5 has '.*', .*bad.scp:5"):
        compare_sets(sets, bootstrap=100)
    short = tmp_path / "short.scp"
    short.write_text("\n".join(rows[:3]) + "\n")
    with pytest.raises(ValueError, match=r"^test set 'other': .*short.scp"):
        compare_sets([sets[0], sets[1]._replace(hyp_b=short)], bootstrap=100)


@pytest.mark.parametrize(
    ("names", "message"),
    [
        (["clean"], "needs two or more, got 1"),
        (["clean", "clean"], "test set 'clean' is given twice"),
        (["clean", "pooled"], "test set 'pooled': pooled, macro name the combined rows"),
        (["clean", "a b"], "test set name"),
    ],
)
def test_bad_set_lists_are_refused(three_sets, names, message):
    test = three_sets[1][0]
    with pytest.raises(ValueError, match=message):
        compare_sets([test._replace(name=name) for name in names], bootstrap=100)


def test_block_bootstrap_resamples_speakers_within_each_set(three_sets):
    result = compare_sets(three_sets[1][:2], bootstrap=200, block_bootstrap=True)
    assert result["pooled"]["bootstrap"]["block_bootstrap"] is True
    alone = compare(*three_sets[1][0][1:], bootstrap=200, block_bootstrap=True)
    assert result["sets"]["clean"] == alone


def cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def test_cli_prints_and_writes_the_table(three_sets, tmp_path):
    root, sets = three_sets
    options = [arg for t in sets for arg in ("--set", t.name, str(t.ref), str(t.hyp_a), str(t.hyp_b))]
    stem, out_json = tmp_path / "cmp", tmp_path / "all.json"
    code, out, err = cli("compare", *options, "--bootstrap", "400", "--seed", "11", "--table", str(stem),
                         "--json", str(out_json))  # fmt: skip
    assert code == 0, err
    lines = out.splitlines()
    assert "stratified by test set" in lines[1] and "seeds: clean 11, other 12, noisy 13" in lines[1]
    assert [line.split()[0] for line in lines[3:8]] == ["clean", "other", "noisy", "pooled", "macro"]
    assert lines[8].startswith("verdict (pooled): ") and lines[9:] == [
        f"json: {out_json}",
        f"table: {stem}.md, {stem}.csv, {stem}.json",
    ]
    everything = json.loads(out_json.read_text())
    assert everything == compare_sets(sets, bootstrap=400, seed=11)
    assert json.loads(stem.with_suffix(".json").read_text()) == everything["rows"]
    with open(stem.with_suffix(".csv"), newline="") as f:
        table = list(csv.DictReader(f))
    assert [row["test"] for row in table] == ["clean", "other", "noisy", "pooled", "macro"]
    assert float(table[3]["WER_a"]) == pytest.approx(everything["pooled"]["a"]["WER"])
    assert stem.with_suffix(".md").read_text().startswith("| test | utterances | ref_tokens | WER_a | WER_b |")
    code, by_dirs, err = cli("compare", "--dirs", str(root / "A"), str(root / "B"), "--bootstrap", "400")
    assert code == 0, err
    assert [line.split()[0] for line in by_dirs.splitlines()[3:8]] == ["clean", "noisy", "other", "pooled", "macro"]


def test_cli_usage_errors_say_what_to_give(three_sets, tmp_path):
    t = three_sets[1][0]
    code, _, err = cli("compare", str(t.ref), str(t.hyp_a))
    assert code == 1 and "compare needs REF HYP_A HYP_B, or --set NAME REF HYP_A HYP_B" in err
    code, _, err = cli("compare", str(t.ref), str(t.hyp_a), str(t.hyp_b), "--set", "x", str(t.ref), "a", "b")
    assert code == 1 and "give the test sets one way" in err
    missing = tmp_path / "missing.scp"
    code, _, err = cli("compare", "--set", "x", str(t.ref), str(t.hyp_a), str(t.hyp_b),
                       "--set", "y", str(t.ref), str(t.hyp_a), str(missing))  # fmt: skip
    assert code == 1 and err == f"lightscore: error: test set 'y': HYP_B {missing}: no such file\n"
    code, _, err = cli("compare", str(t.ref), str(t.hyp_a), str(t.hyp_b), "--table", str(tmp_path / "t"))
    assert code == 1 and "--table writes the table of a comparison across test sets" in err


def test_scoring_options_reach_every_set_and_unknown_ones_are_refused(three_sets):
    sets = three_sets[1][:2]
    folded = compare_sets(sets, bootstrap=100, metric="cer", case="fold")
    alone = compare(*sets[1][1:], bootstrap=100, seed=1, metric="cer", case="fold")
    assert folded["metric"] == "CER" and folded["sets"][sets[1].name] == alone
    with pytest.raises(TypeError, match="compare_sets: unknown option casing"):
        compare_sets(sets, casing="fold")
