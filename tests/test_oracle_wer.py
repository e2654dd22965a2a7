"""OracleWER against texterrors 1.1.9 ``--oracle-wer`` (the oracle), its pick histogram by hand, merges, the
command's two n-best file forms, and measure() with KeywordErrorRate beside it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

texterrors = pytest.importorskip("texterrors")
from loguru import logger  # noqa: E402  (texterrors' logger)
from texterrors.texterrors import Utt  # noqa: E402
from texterrors_align import StringVector  # noqa: E402

from lightscore import measure  # noqa: E402
from lightscore.cli.parser import main  # noqa: E402
from lightscore.metrics.oracle_wer import OracleWER  # noqa: E402

logger.remove()

VOCAB = "a ab abc b bc cat cats hat sentence sentenc ok okay é éa x".split()
words = st.lists(st.sampled_from(VOCAB), max_size=8)
utterances = st.lists(st.tuples(words.filter(bool), st.lists(words, min_size=1, max_size=4)), min_size=1, max_size=8)


def texterrors_oracle(utts, chardiff):
    """texterrors' oracle WER (a fraction) of ``[(ref words, [hyp words, ...])]``."""
    refs = {str(k): Utt(str(k), StringVector(ref)) for k, (ref, _) in enumerate(utts)}
    hyps = {str(k): [Utt(str(k), StringVector(h)) for h in nbest] for k, (_, nbest) in enumerate(utts)}
    _, stats = texterrors.process_lines(
        refs, hyps, False, chardiff, False, True, 120, True, set(), set(), False, {}, {}, True, "<eps>"
    )
    return stats.total_cost / stats.total_count


@pytest.mark.parametrize("chardiff", [False, True])
@settings(max_examples=60, deadline=None)
@given(utts=utterances)
def test_oracle_wer_equals_texterrors(chardiff, utts):
    nbest = max(len(hyps) for _, hyps in utts)
    metric = OracleWER(nbest=nbest, chardiff=chardiff)
    columns = {
        f"hyp{k}": [" ".join(hyps[min(k, len(hyps)) - 1]) for _, hyps in utts] for k in range(1, nbest + 1)
    }  # a short list repeats its last hypothesis
    metric.update(ref=[" ".join(ref) for ref, _ in utts], **columns)
    result = metric.compute()
    assert result["oracle_WER"] / 100 == pytest.approx(texterrors_oracle(utts, chardiff), rel=1e-12, abs=1e-12)
    assert sum(result[f"picked_rank{k}"] for k in range(1, nbest + 1)) == result["oracle_utterances"] == len(utts)
    assert result["oracle_WER"] <= result["WER_rank1"]


def test_picks_by_hand():
    """u1: rank 2 is exact (cost 0) though rank 3 is too: the first is picked. u2: rank 1 (1 deletion) beats rank 2
    (2 substitutions). u3: rank 1 is exact. Oracle errors 0 + 1 + 0 over 3 + 3 + 1 words; rank 1 alone: 1 + 1 + 0."""
    metric = OracleWER(nbest=3)
    metric.update(
        ref=["the cat sat", "a dog barked", "yes"],
        hyp1=["the cat sad", "a dog", "yes"],
        hyp2=["the cat sat", "the frog barked", "no"],
        hyp3=["the cat sat", "a dog", "yes"],
    )
    result = metric.compute()
    assert result["oracle_errors"] == 1 and result["oracle_ref_words"] == 7
    assert result["oracle_WER"] == pytest.approx(100 / 7) and result["WER_rank1"] == pytest.approx(200 / 7)
    assert (result["picked_rank1"], result["picked_rank2"], result["picked_rank3"]) == (2, 1, 0)


def test_merge_states_equals_one_instance():
    refs = ["ok now", "the cat sat", "a b c", "sentence"]
    ranks = {"hyp1": ["okay now", "the cat", "a b", "sentenc"], "hyp2": ["ok", "the hat sat", "a x c", "x"]}
    whole = OracleWER(nbest=2, chardiff=True)
    whole.update(ref=refs, **ranks)
    parts = [OracleWER(nbest=2, chardiff=True) for _ in range(2)]
    parts[0].update(ref=refs[:1], **{k: v[:1] for k, v in ranks.items()})
    parts[1].update(ref=refs[1:], **{k: v[1:] for k, v in ranks.items()})
    merged = OracleWER(nbest=2, chardiff=True)
    merged.load_state(merged.merge_states([p.state() for p in parts]))
    assert merged.compute() == whole.compute()


def test_options_refused():
    with pytest.raises(ValueError, match="nbest must be >= 1"):
        OracleWER(nbest=0)
    with pytest.raises(TypeError, match="chardiff"):
        OracleWER(chardiff="yes")
    with pytest.raises(ValueError, match="no reference word"):
        OracleWER().compute()


def test_cli_nbest_forms_equal_texterrors_command(tmp_path, write_scp_file, capsys):
    """One texterrors n-best file (ids repeated) and one file per rank give texterrors' command's number."""
    ref = write_scp_file("ref.scp", [("u1", "the cat sat"), ("u2", "a dog barked")])
    nbest = write_scp_file("nbest.txt", "u1 the cat sad\nu1 the cat sat\nu2 a dog\nu2 a frog barked\nu2 a dog bark\n")
    rank1 = write_scp_file("hyp1.scp", [("u1", "the cat sad"), ("u2", "a dog")])
    rank2 = write_scp_file("hyp2.scp", [("u1", "the cat sat"), ("u2", "a frog barked")])
    rank3 = write_scp_file("hyp3.scp", [("u1", "the cat sat"), ("u2", "a dog bark")])
    command = [sys.executable, "-c", "from texterrors.texterrors import cli; cli()", "--isark", "--oracle-wer"]
    for chardiff in (False, True):
        flag = ["--use-chardiff"] if chardiff else []
        shown = subprocess.run([*command, *flag, "--output-format", "json", str(ref), str(nbest)], capture_output=True)
        expected = 100 * json.loads(shown.stdout)["summary"]["oracle_wer"]
        for hyps in ([nbest], [rank1, rank2, rank3]):
            capsys.readouterr()
            args = ["score", str(ref), *map(str, hyps), "--metric", "oracle_wer"] + (["--chardiff"] if chardiff else [])
            assert main(args) == 0
            out = capsys.readouterr().out
            printed = dict(line.split(": ", 1) for line in out.splitlines() if ": " in line)
            assert float(printed["oracle_WER"]) == pytest.approx(expected, abs=0.005)
            assert "rank 2" in out
    missing = write_scp_file("short.txt", "u1 the cat\n")
    assert main(["score", str(ref), str(missing), "--metric", "oracle_wer"]) == 1
    assert "utterance 'u2' has no hypothesis" in capsys.readouterr().err


def test_measure_binds_ranks_and_keyword_lists(tmp_path):
    """The YAML of docs/recognition-practice.md: OracleWER's ranks and KeywordErrorRate's lists in measure()."""
    test = tmp_path / "decode" / "test"
    test.mkdir(parents=True)
    (test / "ref.scp").write_text("u1 call anna in paris\nu2 the cat sat\n")
    (test / "hyp.scp").write_text("u1 call ana in paris\nu2 the cat sad\n")
    (test / "hyp_nbest2.scp").write_text("u1 call anna in paris\nu2 the cat sat\n")
    (test / "biasing.scp").write_text("u1 anna\nu2 cat\n")
    keywords = tmp_path / "keywords.txt"
    keywords.write_text("paris\n")
    config = {
        "inference_dir": str(tmp_path / "decode"),
        "metrics": [
            {
                "metric": {"_target_": "lightscore.metrics.KeywordErrorRate", "keywords": str(keywords)},
                "inputs": {"ref": "ref", "hyp": "hyp", "keywords": "biasing"},
                "name": "keywords",
            },
            {
                "metric": {"_target_": "lightscore.metrics.OracleWER", "nbest": 2},
                "inputs": {"ref": "ref", "hyp1": "hyp", "hyp2": "hyp_nbest2"},
                "name": "oracle",
            },
        ],
    }
    results = measure(config)
    assert results["oracle"]["test"]["oracle_WER"] == 0.0
    assert results["oracle"]["test"]["picked_rank2"] == 2
    kw = results["keywords"]["test"]
    # biased: paris, anna (u1), cat (u2): anna missed; unbiased: call, in, the, sat: sat missed
    assert (kw["B_WER"], kw["U_WER"], kw["keyword_recall"]) == (pytest.approx(100 / 3), 25.0, pytest.approx(2 / 3))
    assert (tmp_path / "decode" / "test" / "keywords.tsv").read_text().splitlines()[1:] == [
        "anna\t0\t1\t0",
        "cat\t1\t0\t0",
        "paris\t1\t0\t0",
    ]
