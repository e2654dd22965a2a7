"""sclite's files bound as inputs in measure(): trn pairs equal ``sctk sclite``, stm/ctm with a GLM ``sctk hubscr``.

Real binaries and real processes: each test set's folder holds the trn or stm/ctm
files, the metrics config binds them (``inputs: {ref: ref.stm, hyp: hyp.ctm}``,
``glm: en20030506``), and the numbers in metrics.json are the reference tool's.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from test_glm import run_hubscr, write_conversation
from test_sclite_case import needs_sctk, run_sclite
from test_sharded_measure import run, torchrun

from lightscore import MeasureError, measure
from lightscore.text.hubscr.glm import glm_path

WORDS = "the a cat dog sat ran on over mat hill uh um".split()


def trn_pairs(seed: int, n: int = 30) -> list[tuple[str, str]]:
    """References with sclite's markup (alternations, the null word, optional words) and noisy hypotheses."""
    rng = random.Random(seed)
    pairs = []
    for _ in range(n):
        ref = [rng.choice(WORDS) for _ in range(rng.randint(1, 8))]
        if rng.random() < 0.5:
            ref.insert(rng.randrange(len(ref) + 1), "{ um / uh / @ }")
        if rng.random() < 0.3:
            ref.insert(rng.randrange(len(ref) + 1), "(uh)")
        hyp = [w for w in " ".join(ref).replace("{ um / uh / @ }", "um").split() if rng.random() > 0.15]
        pairs.append((" ".join(ref), " ".join(w.strip("()") for w in hyp)))
    return pairs


def totals(per_utterance: dict[str, tuple[int, int, int, int]]) -> tuple[int, int]:
    """(reference words, errors) of sclite's per-utterance (C, S, D, I)."""
    return sum(c + s + d for c, s, d, _ in per_utterance.values()), sum(
        s + d + i for _, s, d, i in per_utterance.values()
    )


def errors_of(result: dict) -> int:
    return result["WER_sub"] + result["WER_del"] + result["WER_ins"]


def hubscr_config(root: Path) -> dict:
    entry = {"metric": {"_target_": "lightscore.metrics.WER"}, "inputs": {"ref": "ref.stm", "hyp": "hyp.ctm"}}
    return {"inference_dir": str(root), "metrics": [{**entry, "glm": "en20030506", "name": "hubscr"}]}


@needs_sctk
def test_trn_files_bound_in_measure_equal_sclite(tmp_path: Path) -> None:
    expected = {}
    for test, seed in (("dev", 1), ("eval", 2)):
        folder = tmp_path / test
        folder.mkdir()
        expected[test] = totals(run_sclite(trn_pairs(seed), folder))
    config = {
        "inference_dir": str(tmp_path),
        "metrics": [{"metric": {"_target_": "lightscore.metrics.WER"}, "name": "WER"}],
    }
    config["metrics"][0]["inputs"] = {"ref": "ref.trn", "hyp": "hyp.trn"}
    results = measure(config)
    for test, (words, errors) in expected.items():
        result = results["WER"][test]
        assert (result["WER_ref_len"], errors_of(result)) == (words, errors)
        assert result["WER"] == pytest.approx(100 * errors / words)


@needs_sctk
def test_stm_ctm_bound_in_measure_equal_sctk_hubscr(tmp_path: Path) -> None:
    expected = {}
    for test, seed in (("dev", 3), ("eval", 4)):
        write_conversation(tmp_path / test, seed)
        expected[test] = totals(
            run_hubscr(tmp_path / test / "ref.stm", tmp_path / test / "hyp.ctm", glm_path("en20030506"))
        )
    results = measure(hubscr_config(tmp_path))
    for test, (words, errors) in expected.items():
        result = results["hubscr"][test]
        assert (result["WER_ref_len"], errors_of(result)) == (words, errors)
    assert errors_of(json.loads((tmp_path / "metrics.json").read_text())["hubscr"]["dev"]) == expected["dev"][1]


@needs_sctk
@pytest.mark.slow
def test_stm_ctm_under_torchrun_equal_one_process(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    for root in (one, two):
        for test, seed in (("dev", 5), ("eval", 6)):
            write_conversation(root / test, seed)
        (root / "metrics.yaml").write_text(json.dumps(hubscr_config(root)))
    measure(str(one / "metrics.yaml"))
    done = run(torchrun("measure", str(two / "metrics.yaml")), two)
    assert done.returncode == 0, done.stderr
    assert json.loads((two / "metrics.json").read_text()) == json.loads((one / "metrics.json").read_text())


def test_bad_bindings_are_named(tmp_path: Path) -> None:
    write_conversation(tmp_path / "dev", 0)
    wer = {"_target_": "lightscore.metrics.WER"}
    with pytest.raises(ValueError, match=r"metrics\[0\]: ref and hyp are both sclite files .*'ref.stm', 'hyp'"):
        measure(
            {"inference_dir": str(tmp_path), "metrics": [{"metric": wer, "inputs": {"ref": "ref.stm", "hyp": "hyp"}}]}
        )
    with pytest.raises(ValueError, match=r"metrics\[0\]: glm .*filters stm and ctm"):
        measure(
            {
                "inference_dir": str(tmp_path),
                "metrics": [{"metric": wer, "inputs": ["ref", "hyp"], "glm": "en20030506"}],
            }
        )
    (tmp_path / "dev" / "hyp.ctm").unlink()
    with pytest.raises(MeasureError, match=r"dev/hyp\.ctm: no such file \(bound as stm input\)"):
        measure(hubscr_config(tmp_path))
