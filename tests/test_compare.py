"""`compare`: both systems scored, five paired tests, checked against NIST sc_stats and simulations."""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from lightscore.analysis.significance import verdict
from lightscore.offline.compare import compare

REFERENCE = Path(__file__).parent / "data" / "sclite_reference"
SCTK = shutil.which("sctk")


@pytest.fixture(scope="module")
def word_run() -> dict:
    """The sclite reference corpus compared as sc_stats' "word" run: sclite's aligner, case folded."""
    return compare(
        REFERENCE / "ref.scp", REFERENCE / "hyp_a.scp", REFERENCE / "hyp_b.scp", aligner="sclite", case="fold"
    )


@pytest.fixture(scope="module")
def sc_stats() -> dict:
    return json.loads((REFERENCE / "expected.json").read_text())["sc_stats"]["word"]


def test_rates_and_counts_equal_sclite(word_run):
    sclite = json.loads((REFERENCE / "expected.json").read_text())["sclite"]["word"]["systems"]
    for key in ("a", "b"):
        assert word_run[key]["WER"] == pytest.approx(sclite[key]["totals"]["error_rate_percent"], abs=5e-5)
    assert word_run["utterances"] == 400 and len(word_run["speakers"]) == 10


def test_mapsswe_sign_and_wilcoxon_equal_sc_stats(word_run, sc_stats):
    mp, printed = word_run["mapsswe"], sc_stats["mapsswe"]["mtch_pr_results"]
    assert mp["segments"] == printed["segs"] == 1088
    assert (mp["errors_a"], mp["errors_b"]) == (1531, 1315)
    assert round(mp["mean"], 3) == printed["mean"] and round(mp["sd"], 3) == printed["std_dev"]
    assert round(mp["z"], 3) == printed["z"] == 3.766
    sign = word_run["sign"]
    assert (sign["n_plus"], sign["n_minus"], sign["n_zero"]) == (8, 1, 1)
    assert sign["difference"] == sc_stats["sign"]["difference"] == "a - b"
    assert round(sign["p"], 3) == float(sc_stats["sign"]["probability_printed"]) == 0.109
    wilc = word_run["wilcoxon"]
    assert (wilc["w_plus"], wilc["w_minus"]) == (50.0, 5.0) and wilc["w"] == 5.0
    assert (wilc["n_plus"], wilc["n_minus"]) == (sc_stats["wilc"]["positive"]["count"], 1)
    assert round(wilc["z"], 2) == sc_stats["wilc"]["z"] == -2.29


def test_verdicts_equal_sc_stats_and_mcnemar_is_exact(word_run, sc_stats):
    # sc_stats' own p (table lookup, halved binomial) gives its verdict in all four tests ...
    names = ("hyp_a.trn", "hyp_b.trn")
    for key, cell in (("mapsswe", "MP"), ("sign", "SI"), ("wilcoxon", "WI"), ("mcnemar", "MN")):
        expected = sc_stats["unified"][cell]["verdict"]
        ours = verdict(word_run[key], names=names, p_key="p_sctk")
        assert ours.startswith("no significant" if expected == "~" else f"{expected} is better"), key
    # ... and the exact p-values agree with it, except McNemar (docs/comparing-systems.md).
    assert word_run["mapsswe"]["verdict"].startswith("B is better")
    assert word_run["sign"]["verdict"].startswith("no significant difference")
    assert word_run["wilcoxon"]["verdict"].startswith("B is better")
    mcn = word_run["mcnemar"]
    assert (mcn["both_correct"], mcn["a_only"], mcn["b_only"], mcn["both_wrong"]) == (55, 31, 49, 265)
    assert round(mcn["p"], 4) == 0.0567 and mcn["p_sctk"] < 0.001
    assert mcn["verdict"] == "no significant difference (p = 0.057 >= 0.05)"


def test_bootstrap_interval_and_headline(word_run):
    boot = word_run["bootstrap"]
    assert boot["difference"] == pytest.approx(word_run["b"]["WER"] - word_run["a"]["WER"])
    low, high = boot["ci"]
    assert low < boot["difference"] < high < 0
    assert boot["p_b_better"] > 0.99
    # Each system's interval from the metric equals the paired bootstrap's (same draws, same seed).
    assert [word_run["a"]["WER_ci_low"], word_run["a"]["WER_ci_high"]] == pytest.approx(boot["ci_a"])
    # No replicate of 1000 had B worse: p = 2 (0 + 1) / 1001, the smallest 1000 replicates give.
    assert boot["p"] == pytest.approx(2 / 1001) and boot["resamples"] == 1000 and boot["reason"] is None
    assert boot["verdict"] == "B is better (p = 0.002 < 0.05)"
    assert word_run["verdict"].startswith("B is better (paired bootstrap p = 0.002 < 0.05; ")
    assert "MAPSSWE says B" in word_run["verdict"] and "McNemar" not in word_run["verdict"]
    json.dumps(word_run, allow_nan=False)  # strict JSON


def test_ids_that_differ_name_the_file_line_and_id(tmp_path):
    (tmp_path / "ref.scp").write_text("u1 a b\nu2 c\n")
    (tmp_path / "a.scp").write_text("u1 a b\nu2 c\n")
    (tmp_path / "b.scp").write_text("u1 a b\nu3 c\n")
    with pytest.raises(ValueError, match=re.escape(f"{tmp_path / 'b.scp'}:2 has 'u3'")):
        compare(tmp_path / "ref.scp", tmp_path / "a.scp", tmp_path / "b.scp")


# -- simulations --------------------------------------------------------------------------

VOCABULARY = [f"w{k}" for k in range(300)]


def simulate(
    tmp_path: Path, seed: int, p_a: float, p_b: float, n: int = 120, speakers: int = 8, spread: float = 0.0
) -> tuple[Path, ...]:
    """A reference and two systems whose words are substituted, deleted or preceded by an insertion.

    With ``spread``, B's error probability is scaled per speaker by a factor in [1 - spread, 1 + spread].
    """
    rng = random.Random(seed)
    factor = [1 + spread * (2 * rng.random() - 1) for _ in range(speakers)]
    refs, hyps = [], {"a": [], "b": []}
    for k in range(n):
        speaker = rng.randrange(speakers)
        utt_id = f"spk{speaker}-utt{k:04d}"
        words = rng.choices(VOCABULARY, k=rng.randint(4, 20))
        refs.append((utt_id, words))
        for key, p in (("a", p_a), ("b", p_b * factor[speaker])):
            hyp = []
            for word in words:
                draw = rng.random()
                if draw < p * 0.7:
                    hyp.append(rng.choice(VOCABULARY))
                elif draw < p * 0.85:
                    continue
                elif draw < p:
                    hyp += [rng.choice(VOCABULARY), word]
                else:
                    hyp.append(word)
            hyps[key].append((utt_id, hyp))
    refs.sort()
    for key in hyps:
        hyps[key].sort()
    paths = []
    for name, rows in (("ref", refs), ("a", hyps["a"]), ("b", hyps["b"])):
        path = tmp_path / f"{name}-{seed}.scp"
        path.write_text("".join(f"{utt_id} {' '.join(words)}\n" for utt_id, words in rows))
        paths.append(path)
    return tuple(paths)


def test_clearly_better_system_is_found(tmp_path):
    result = compare(*simulate(tmp_path, 1, 0.30, 0.10), bootstrap=500)
    assert result["b"]["WER"] < result["a"]["WER"] - 10
    assert result["verdict"].startswith("B is better")
    for key in ("bootstrap", "mapsswe", "mcnemar", "wilcoxon"):
        assert result[key]["p"] < 0.01 and result[key]["better"] == "b", key


def test_systems_from_one_error_process_mostly_do_not_differ(tmp_path):
    verdicts = [compare(*simulate(tmp_path, seed, 0.15, 0.15), bootstrap=300)["verdict"] for seed in range(20)]
    same = sum(v.startswith("no significant difference") for v in verdicts)
    assert same >= 16, verdicts


def test_block_bootstrap_by_speaker_is_wider_when_speakers_differ(tmp_path):
    # B's gain depends on the speaker: resampling speakers sees that spread, resampling utterances does not.
    files = simulate(tmp_path, 2, 0.20, 0.20, n=240, speakers=8, spread=0.8)
    by_utt = compare(*files, bootstrap=500)
    by_speaker = compare(*files, bootstrap=500, block_bootstrap=True)
    assert by_speaker["bootstrap"]["block_bootstrap"] is True
    assert by_speaker["a"]["WER"] == by_utt["a"]["WER"] and by_speaker["mapsswe"] == by_utt["mapsswe"]
    low, high = by_utt["bootstrap"]["ci"]
    block_low, block_high = by_speaker["bootstrap"]["ci"]
    assert block_high - block_low > 1.5 * (high - low)
    assert by_speaker["settings"].endswith("block_bootstrap=speaker")


# -- against the sctk binary ----------------------------------------------------------------


def _trn(scp: Path, trn: Path) -> None:
    lines = [line.split(None, 1) for line in scp.read_text().splitlines()]
    trn.write_text("".join(f"{parts[1] if len(parts) > 1 else ''} ({parts[0]})\n" for parts in lines))


@pytest.mark.skipif(SCTK is None, reason="Debian sctk is not installed (apt-get install sctk): no sc_stats to compare")
def test_random_data_equals_sctk_sc_stats(tmp_path):
    ref, hyp_a, hyp_b = simulate(tmp_path, 5, 0.25, 0.18, n=150, speakers=6)
    for scp in (ref, hyp_a, hyp_b):
        _trn(scp, scp.with_suffix(".trn"))
    sgml = []
    for name, hyp in (("a", hyp_a), ("b", hyp_b)):
        command = [SCTK, "sclite", "-r", str(ref.with_suffix(".trn")), "trn", "-h", str(hyp.with_suffix(".trn"))]
        command += ["trn", "-i", "rm", "-o", "sgml", "-O", str(tmp_path), "-n", name]
        subprocess.run(command, check=True, capture_output=True)
        sgml.append((tmp_path / f"{name}.sgml").read_bytes())
    stats_dir = tmp_path / "stats"
    stats_dir.mkdir()
    command = [SCTK, "sc_stats", "-p", "-t", "std4", "-v", "-O", str(stats_dir), "-n", "detail"]
    subprocess.run(command, input=b"".join(sgml), check=True, capture_output=True)
    ours = compare(ref, hyp_a, hyp_b, aligner="sclite", case="fold")
    mp = ours["mapsswe"]
    printed = re.search(
        r"# segs: (\d+)\).*\(mean: (-?[\d.]+)\) \(std dev: ([\d.]+)\) \(Z Stat: (-?[\d.]+)\)",
        _read(stats_dir, "mapsswe"),
    )
    assert (mp["segments"], round(mp["mean"], 3), round(mp["sd"], 3), round(mp["z"], 3)) == (
        int(printed[1]),
        float(printed[2]),
        float(printed[3]),
        float(printed[4]),
    )
    table = re.search(r"corr\s+(\d+)\s+(\d+)\s+incorr\s+(\d+)\s+(\d+)", _read(stats_dir, "mcn"))
    mcn = ours["mcnemar"]
    assert [int(n) for n in table.groups()] == [mcn["both_correct"], mcn["a_only"], mcn["b_only"], mcn["both_wrong"]]
    sign = [int(n) for n in re.findall(r"N\([+0-]\) =\s+(\d+)", _read(stats_dir, "sign"))]
    assert sign == [ours["sign"]["n_plus"], ours["sign"]["n_minus"], ours["sign"]["n_zero"]]
    wilc = _read(stats_dir, "wilc")
    sums = [float(n) for n in re.findall(r"(?:positive|negative) ranks =\s+([\d.]+)", wilc)]
    assert sums == [ours["wilcoxon"]["w_plus"], ours["wilcoxon"]["w_minus"]]
    z = float(re.search(r"Z statistic = (-?[\d.]+)", wilc)[1])
    assert round(ours["wilcoxon"]["z"], 2) == z


def _read(stats_dir: Path, test: str) -> str:
    return (stats_dir / f"detail.stats.{test}").read_text()
