"""BLEU, chrF++ and TransTER on 2 real gloo ranks: Lightning with DistributedSampler padding, and torchrun measure().

Both must equal one process, and sacrebleu on the whole corpus, to the last digit.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from ddp_scripts import translation_ddp
from ddp_scripts.launch import free_port, run_scripts
from ddp_scripts.toy_asr import pairs
from sacrebleu.metrics import BLEU as SBLEU
from test_sharded_measure import lightscore, run, torchrun

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def ddp(tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    out = tmp_path_factory.mktemp("st_ddp")
    (proc,) = run_scripts([["translation_ddp.py", str(out), "--devices", "2"]], free_port())
    assert proc.returncode == 0, proc.stderr[-5000:]
    return [json.loads((out / f"rank{r}.json").read_text()) for r in (0, 1)]


def test_two_ranks_equal_one_process_and_sacrebleu(ddp: list[dict], tmp_path: Path) -> None:
    single = translation_ddp.run(tmp_path, devices=1)
    assert ddp[0]["results"] == ddp[1]["results"] == single["results"]
    assert ddp[0]["logged"] == single["logged"]
    refs, hyps = pairs("dev", 101, 1)  # the last epoch's hypotheses
    expected = SBLEU().corpus_score(hyps, [refs, [translation_ddp.second_reference(r) for r in refs]]).score
    assert single["results"]["val/BLEU"] == expected  # the padded row was not counted twice
    assert ddp[0]["best"] == single["best"] == "epoch=1.ckpt"  # ModelCheckpoint(monitor="val/BLEU", mode="max")
    assert ddp[0]["settings"]["lightscore/BLEU"] == "BLEU nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0"


def test_torchrun_measure_equals_one_process(tmp_path: Path) -> None:
    refs, hyps = pairs("dev", 57, 0)
    single = tmp_path / "single" / "dev"
    single.mkdir(parents=True)
    for name, lines in (("hyp", hyps), ("ref", refs), ("ref2", [translation_ddp.second_reference(r) for r in refs])):
        (single / f"{name}.scp").write_text("".join(f"dev-{i:04d} {t}\n" for i, t in enumerate(lines)))
    shutil.copytree(tmp_path / "single", tmp_path / "sharded")
    results = {}
    for kind, command in (("single", lightscore), ("sharded", torchrun)):
        root = tmp_path / kind
        config = tmp_path / f"{kind}.yaml"
        config.write_text(
            f"inference_dir: {root}\nmetrics:\n"
            "  - {metric: {_target_: lightscore.metrics.translation.BLEU, references: 2},"
            " inputs: [hyp, ref, ref2], name: bleu}\n"
            "  - {metric: {_target_: lightscore.metrics.translation.ChrF, word_order: 2, references: 2},"
            " inputs: [hyp, ref, ref2], name: chrf}\n"
            "  - {metric: {_target_: lightscore.metrics.translation.TranslationEditRate, references: 2},"
            " inputs: [hyp, ref, ref2], name: ter}\n"
        )
        proc = run(command("measure", str(config)), tmp_path)
        assert proc.returncode == 0, proc.stderr[-5000:]
        results[kind] = json.loads((root / "metrics.json").read_text())
    assert results["single"] == results["sharded"]
    expected = SBLEU().corpus_score(hyps, [refs, [translation_ddp.second_reference(r) for r in refs]]).score
    assert results["single"]["bleu"]["dev"]["BLEU"] == expected
