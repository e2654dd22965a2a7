"""lightscore.analysis.significance against NIST sc_stats' reference outputs, and the bootstrap's coverage.

The alignments are sclite's own, parsed from ``out/<run>_<sys>.pra`` of the reference
folder, so these tests check the statistics alone, not any aligner. `read_pra` is
shared with test_breakdown.py.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from lightscore.analysis.bootstrap import bootstrap_ci, paired_bootstrap
from lightscore.analysis.significance import mapsswe, mcnemar, sign_test, verdict, wilcoxon_test

REFERENCE = Path(__file__).parent / "data" / "sclite_reference"
RUNS = ["word", "word_s", "char", "char_s"]
EXPECTED = json.loads((REFERENCE / "expected.json").read_text())


def read_pra(path: Path, fold_case: bool) -> dict[str, list[tuple[str | None, str | None, str]]]:
    """sclite's ``.pra`` alignments: utt_id -> ``(ref, hyp, mark)`` pairs, gaps as None, in file order.

    Columns are found from the REF line (REF and HYP cells share widths); a blank Eval
    cell is C. Long utterances continue on ``>> `` lines. Case-folded runs print
    erroneous tokens in upper case (display only), so ``fold_case`` lower-cases tokens.
    """
    alignments: dict[str, list] = {}
    utt_id = ref = hyp = None
    for line in path.read_text().splitlines():
        line = line[3:] if line.startswith(">> ") else line
        if line.startswith("id: ("):
            utt_id = line[len("id: (") : line.rindex(")")]
            alignments[utt_id] = []  # an empty alignment has no REF/HYP/Eval lines
        elif line.startswith("REF:"):
            ref = line
        elif line.startswith("HYP:"):
            hyp = line
        elif line.startswith("Eval:"):
            for cell in list(re.finditer(r"\S+", ref))[1:]:  # the first cell is the "REF:" label
                start = cell.start()
                r, h = cell.group(), hyp[start:].split(None, 1)[0]
                mark = line[start] if start < len(line) and line[start] != " " else "C"
                r, h = (None if set(t) == {"*"} else t.lower() if fold_case else t for t in (r, h))
                alignments[utt_id].append((r, h, mark))
    return alignments


@functools.cache
def alignments(run: str, system: str) -> dict[str, list]:
    return read_pra(REFERENCE / "out" / f"{run}_{system}.pra", fold_case=not run.endswith("_s"))


def speaker_rates(run: str, system: str) -> list[float]:
    """Per-speaker error rates from sclite's ``.raw`` counts, speakers in sclite's (C) order."""
    counts = EXPECTED["sclite"][run]["systems"][system]["per_speaker_counts"]
    return [100 * counts[s]["errors"] / counts[s]["ref_tokens"] for s in sorted(counts)]


def printed(p: float) -> str:
    """How sc_stats' unified report prints a p-value."""
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def sctk_verdict(result: dict, run: str) -> str:
    """Our result as the unified report's cell: the better system's title, or ``~``."""
    if result["p_sctk"] < 0.05:
        return EXPECTED["sc_stats"][run]["system_titles"][result["better"]]
    return "~"


def test_pra_parser_reproduces_sclite_counts():
    per_utt = {}
    for line in (REFERENCE / "per_utt.tsv").read_text().splitlines()[1:]:
        run, system, utt_id, *counts = line.split("\t")
        per_utt[run, system, utt_id] = tuple(map(int, counts))
    for run in RUNS:
        for system in "ab":
            for utt_id, pairs in alignments(run, system).items():
                marks = [m for _, _, m in pairs]
                assert tuple(marks.count(m) for m in "CSDI") == per_utt[run, system, utt_id], (run, system, utt_id)


@pytest.mark.parametrize("run", RUNS)
def test_mapsswe_reproduces_sc_stats(run):
    result = mapsswe(alignments(run, "a"), alignments(run, "b"))
    expected = EXPECTED["sc_stats"][run]["mapsswe"]
    assert result["segments"] == expected["segments"]
    assert [result["errors_a"], result["errors_b"]] == list(expected["segment_errors"].values())
    assert result["ref_tokens"] == expected["segment_ref_words"]
    printed_stats = expected["mtch_pr_results"]
    assert round(result["mean"], 3) == printed_stats["mean"]
    assert round(result["sd"], 3) == printed_stats["std_dev"]
    assert round(result["z"], 3) == printed_stats["z"]
    assert printed(result["p_sctk"]) == EXPECTED["sc_stats"][run]["unified"]["MP"]["p"]
    assert result["p"] == pytest.approx(2 * stats.norm.sf(result["z"]))
    assert sctk_verdict(result, run) == EXPECTED["sc_stats"][run]["unified"]["MP"]["verdict"]
    # Every error of either system lies in exactly one segment.
    totals = EXPECTED["sclite"][run]["systems"]
    assert [result["errors_a"], result["errors_b"]] == [totals[s]["totals"]["errors"] for s in "ab"]


def test_mapsswe_segments_by_hand():
    # Reference x y z w v u. A deletes z; B substitutes y and inserts k after v.
    a = [("x", "x", "C"), ("y", "y", "C"), ("z", None, "D"), ("w", "w", "C"), ("v", "v", "C"), ("u", "u", "C")]
    b = [("x", "x", "C"), ("y", "q", "S"), ("z", "z", "C"), ("w", "w", "C"), ("v", "v", "C"), (None, "k", "I")]
    b.append(("u", "u", "C"))
    result = mapsswe({"u1": a}, {"u1": b})
    # y and z are errors; w v, correct in both, close the first segment x..v (a 1 error, b 1).
    # B's insertion opens another, which the end of the utterance closes: w..u (a 0, b 1),
    # overlapping the first on its boundary token w.
    assert result["segments"] == 2
    assert (result["errors_a"], result["errors_b"]) == (1, 2)
    assert result["mean"] == -0.5
    assert result["better"] == "a"


def test_mapsswe_takes_trailing_insertions_of_b():
    a = [("x", "x", "C"), ("y", "y", "C")]
    b = [("x", "x", "C"), ("y", "y", "C"), (None, "z", "I")]
    result = mapsswe([a, [], [(None, "w", "I")]], [b, [(None, "v", "I")], []])
    assert (result["segments"], result["errors_a"], result["errors_b"]) == (3, 1, 2)


def test_mapsswe_rejects_mismatched_references():
    with pytest.raises(ValueError, match="utterance 'u2'.*2 reference tokens.*1"):
        mapsswe({"u2": [("a", "a", "C"), ("b", None, "D")]}, {"u2": [("a", "a", "C")]})
    with pytest.raises(ValueError, match="'X' is not one of"):
        mapsswe([[("a", "a", "X")]], [[("a", "a", "C")]])
    with pytest.raises(ValueError, match="differ"):
        mapsswe({"u1": []}, {"u2": []})


@pytest.mark.parametrize("run", RUNS)
def test_mcnemar_reproduces_sc_stats(run):
    a, b = alignments(run, "a"), alignments(run, "b")
    correct = {s: [all(m == "C" for _, _, m in al[u]) for u in sorted(a)] for s, al in (("a", a), ("b", b))}
    result = mcnemar(correct["a"], correct["b"])
    table = EXPECTED["sc_stats"][run]["mcn"]["table"]
    assert result["both_correct"] == table["a_corr_b_corr"]
    assert result["a_only"] == table["a_corr_b_incorr"]
    assert result["b_only"] == table["a_incorr_b_corr"]
    assert result["both_wrong"] == table["a_incorr_b_incorr"]
    check = EXPECTED["sc_stats"][run]["checks"]["MN"]
    assert round(result["p"], 6) == check["p_exact_binomial"]
    assert printed(result["p_sctk"]) == EXPECTED["sc_stats"][run]["unified"]["MN"]["p"]
    assert sctk_verdict(result, run) == EXPECTED["sc_stats"][run]["unified"]["MN"]["verdict"]


def test_mcnemar_exact_p_disagrees_with_sc_stats_on_the_word_run():
    result = mcnemar([True] * 31 + [False] * 49, [False] * 31 + [True] * 49)
    assert result["p"] == pytest.approx(0.0567, abs=5e-5)
    assert verdict(result) == "no significant difference (p = 0.057 >= 0.05)"
    assert verdict(result, p_key="p_sctk") == "B is better (p = 4.5e-08 < 0.05)"


def test_mcnemar_small_and_equal_counts():
    # 1 against 6 discordant: exact, and sc_stats agrees below 21 discordant utterances.
    result = mcnemar([True, False, False, False, False, False, False, True], [False] + [True] * 7)
    assert (result["a_only"], result["b_only"], result["both_correct"]) == (1, 6, 1)
    assert result["p"] == pytest.approx(2 * (1 + 7) / 128) == result["p_sctk"]
    tie = mcnemar([True, False], [False, True])
    assert tie["p"] == tie["p_sctk"] == 1.0 and tie["better"] is None
    with pytest.raises(ValueError, match="one flag per utterance"):
        mcnemar([True], [True, False])


@pytest.mark.parametrize("run", RUNS)
def test_sign_test_reproduces_sc_stats(run):
    result = sign_test(speaker_rates(run, "a"), speaker_rates(run, "b"))
    expected = EXPECTED["sc_stats"][run]["sign"]
    assert result["difference"] == expected["difference"] == "a - b"
    assert (result["n_plus"], result["n_minus"], result["n_zero"]) == (
        expected["n_plus"],
        expected["n_minus"],
        expected["n_zero"],
    )
    assert result["n_minus_split"] == expected["decision_min_count"]
    assert f"{result['p_sctk']:.3f}" == expected["probability_printed"]
    check = EXPECTED["sc_stats"][run]["checks"]["SI"]
    assert result["p"] == pytest.approx(check["p_exact_binomial"], abs=1e-6)
    assert sctk_verdict(result, run) == EXPECTED["sc_stats"][run]["unified"]["SI"]["verdict"]


def test_sign_test_orders_by_the_larger_sum_and_gives_the_odd_zero_to_n_minus():
    # b has the larger sum, so it is listed first; three equal speakers: 1 to N(+), 2 to N(-).
    result = sign_test([10.0, 10.0, 10.0, 5.0, 5.0, 5.0], [10.0, 10.001, 10.0, 9.0, 9.0, 9.0])
    assert result["difference"] == "b - a"
    assert (result["n_plus"], result["n_minus"], result["n_zero"]) == (3, 0, 3)
    assert (result["n_plus_split"], result["n_minus_split"]) == (4, 2)
    assert result["p"] == pytest.approx(stats.binomtest(2, 6).pvalue)
    assert result["better"] == "a"


@pytest.mark.parametrize("run", RUNS)
def test_wilcoxon_reproduces_sc_stats(run):
    result = wilcoxon_test(speaker_rates(run, "a"), speaker_rates(run, "b"))
    expected = EXPECTED["sc_stats"][run]["wilc"]
    speakers = sorted(expected["per_speaker"])
    assert result["ranks"] == [expected["per_speaker"][s]["signed_rank"] for s in speakers]
    assert (result["n_plus"], result["w_plus"]) == (expected["positive"]["count"], expected["positive"]["rank_sum"])
    assert (result["n_minus"], result["w_minus"]) == (expected["negative"]["count"], expected["negative"]["rank_sum"])
    assert round(result["z"], 2) == expected["z"]
    assert printed(result["p_sctk"]) == EXPECTED["sc_stats"][run]["unified"]["WI"]["p"]
    assert sctk_verdict(result, run) == EXPECTED["sc_stats"][run]["unified"]["WI"]["verdict"]


def test_wilcoxon_exact_p_agrees_with_scipy_without_zeros_or_ties():
    rng = np.random.default_rng(5)
    a = rng.uniform(10, 20, 12)
    b = a - rng.normal(1.0, 2.0, 12)
    result = wilcoxon_test(a, b)
    assert result["p"] == pytest.approx(stats.wilcoxon(a, b, method="exact").pvalue, rel=1e-12)
    # The word run: ranks 1..10 with W- = 5; 10 of the 1024 sign patterns have W- <= 5, on each side.
    word = wilcoxon_test(speaker_rates("word", "a"), speaker_rates("word", "b"))
    assert word["p"] == 20 / 1024


def test_wilcoxon_zero_differences_alternate():
    result = wilcoxon_test([5.0, 5.0, 5.0, 9.0], [5.0, 5.0, 5.0, 2.0])
    # Three zeros share rank 2; they count +, -, + in speaker order; 7 gets rank 4.
    assert result["ranks"] == [2.0, -2.0, 2.0, 4.0]
    assert (result["w_plus"], result["w_minus"], result["w"]) == (8.0, 2.0, 2.0)


def test_verdicts_on_the_word_run():
    a, b = alignments("word", "a"), alignments("word", "b")
    mp = mapsswe(a, b)
    assert verdict(mp, names=("hyp_a", "hyp_b")) == "hyp_b is better (p = 1.7e-04 < 0.05)"
    si = sign_test(speaker_rates("word", "a"), speaker_rates("word", "b"))
    assert verdict(si) == "no significant difference (p = 0.109 >= 0.05)"
    wi = wilcoxon_test(speaker_rates("word", "a"), speaker_rates("word", "b"))
    assert verdict(wi) == "B is better (p = 0.020 < 0.05)"
    assert verdict(wi, level=0.01) == "no significant difference (p = 0.020 >= 0.01)"


def per_utterance_errors(run: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """Errors of a and b and reference lengths per utterance, sorted by id, from per_utt.tsv."""
    rows: dict[tuple[str, str], list[int]] = {}
    for line in (REFERENCE / "per_utt.tsv").read_text().splitlines()[1:]:
        r, system, utt_id, c, s, d, i = line.split("\t")
        if r == run:
            rows[system, utt_id] = [int(c), int(s), int(d), int(i)]
    ids = sorted(u for s, u in rows if s == "a")
    errors = {s: np.array([sum(rows[s, u][1:]) for u in ids]) for s in "ab"}
    ref_lens = np.array([rows["a", u][0] + rows["a", u][1] + rows["a", u][2] for u in ids])
    return errors["a"], errors["b"], ref_lens, ids


def test_paired_bootstrap_on_the_word_run():
    errors_a, errors_b, ref_lens, ids = per_utterance_errors("word")
    result = paired_bootstrap(errors_a, errors_b, ref_lens, ci=0.95, replicates=2000, seed=1)
    assert result["rate_a"] == pytest.approx(18.8779, abs=1e-4)
    assert result["rate_b"] == pytest.approx(16.2145, abs=1e-4)
    assert result["difference"] == pytest.approx(16.2145 - 18.8779, abs=2e-4)
    low, high = result["ci"]
    assert low < result["difference"] < high < 0  # B better: the interval excludes 0
    assert result["p_b_better"] > 0.99 and result["better"] == "b"
    # The same resamples as bootstrap_ci of each system alone.
    assert result["ci_a"] == bootstrap_ci(errors_a, ref_lens, replicates=2000, seed=1)
    assert result["ci_b"] == bootstrap_ci(errors_b, ref_lens, replicates=2000, seed=1)
    # Speakers as blocks: wider, since utterances of one speaker share a speaker factor.
    speakers = [u.split("-")[0] for u in ids]
    block = paired_bootstrap(errors_a, errors_b, ref_lens, replicates=2000, seed=1, groups=speakers)
    assert block["ci"][1] - block["ci"][0] != high - low
    assert block["difference"] == result["difference"]


def test_bootstrap_is_deterministic_and_checks_its_input():
    errors_a, _, ref_lens, _ = per_utterance_errors("word")
    first = bootstrap_ci(errors_a, ref_lens, seed=7)
    assert bootstrap_ci(list(errors_a), list(ref_lens), seed=7) == first
    assert bootstrap_ci(errors_a, ref_lens, seed=8) != first
    low, high = first
    assert low < 18.8779 < high
    # Labels in another order of first appearance give the same groups.
    groups = np.arange(len(ref_lens)) % 10
    assert bootstrap_ci(errors_a, ref_lens, groups=groups) == bootstrap_ci(errors_a, ref_lens, groups=groups + 100)
    with pytest.raises(ValueError, match="differ in length"):
        bootstrap_ci([1, 2], [3])
    with pytest.raises(ValueError, match="sum to 0"):
        bootstrap_ci([1], [0])
    with pytest.raises(ValueError, match="finite counts"):
        bootstrap_ci([-1], [3])
    with pytest.raises(ValueError, match="ci must be"):
        bootstrap_ci([1], [3], ci=95)
    with pytest.raises(ValueError, match="groups must be one label"):
        bootstrap_ci([1, 2], [3, 4], groups=[0])


def test_bootstrap_interval_covers_the_true_rate_about_95_percent_of_the_time():
    rng = np.random.default_rng(20240601)
    true_rate, corpora, covered = 0.12, 400, 0
    for k in range(corpora):
        ref_lens = rng.integers(3, 40, size=300)
        errors = rng.binomial(ref_lens, true_rate)
        low, high = bootstrap_ci(errors, ref_lens, replicates=1000, seed=k)
        covered += low <= 100 * true_rate <= high
    assert 0.93 <= covered / corpora <= 0.97


def test_verdict_needs_a_direction():
    assert (
        verdict({"p": 0.0, "better": None})
        == "no significant difference (p = 0.0e+00 < 0.05, but neither system has fewer errors)"
    )
