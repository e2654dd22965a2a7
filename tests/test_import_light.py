"""``import lightscore`` stays light: no torch, lightning, sentencepiece or hydra.

Checked in a fresh interpreter, since this test process has long imported them.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

HEAVY = ("torch", "torchaudio", "lightning", "lightning_fabric", "pytorch_lightning", "sentencepiece", "hydra")


def heavy_modules_after(code: str) -> list[str]:
    report = (
        f"import json, sys\nheavy = {HEAVY!r}\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in heavy)))"
    )
    script = textwrap.dedent(code) + "\n" + report
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_import_lightscore_and_metrics_is_light():
    assert heavy_modules_after("import lightscore, lightscore.metrics") == []


def test_the_check_sees_a_heavy_import():
    # Guards the test above against passing vacuously.
    assert "sentencepiece" in heavy_modules_after("import lightscore, sentencepiece")


def test_scoring_wer_and_building_ter_stay_light(tmp_path):
    model = tmp_path / "bpe.model"
    model.write_bytes(b"not read until TER tokenizes")
    code = f"""
        from lightscore.metrics import CER, TER, WER
        for metric in (WER(), CER()):
            metric.update(ref=["a b"], hyp=["a c"])
            metric.compute()
        TER({str(model)!r})
    """
    assert heavy_modules_after(code) == []
