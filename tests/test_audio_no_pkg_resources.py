"""The audio metrics without ``pkg_resources`` (issue 37): setuptools 82 and Python 3.12 venvs have none.

A child interpreter of the project's venv makes ``pkg_resources`` unimportable (a meta-path finder that
refuses it, inserted before anything is imported), builds each audio metric and scores real espeak-ng
WAVs; its numbers must equal the same metrics' in this process. What cannot work there fails when the
metric is built, with one line naming the package and the fix (lightscore.audio.third_party): only
resemblyzer's webrtcvad 2.0.10 is left there.
"""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys

import pytest
from ddp_scripts.audio_quality_ddp import ESPEAK, NO_ESPEAK, SENTENCES, speak

pytestmark = pytest.mark.skipif(ESPEAK is None, reason=NO_ESPEAK)

SIGNAL = ["snr", "si_snr", "mcd_dtw", "f0_rmse_dtw", "f0_corr_dtw", "vde", "pesq_wb", "stoi"]

NO_PKG_RESOURCES = """
import importlib.abc, sys

class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] == "pkg_resources":
            raise ModuleNotFoundError("No module named 'pkg_resources'", name="pkg_resources")
        return None

sys.meta_path.insert(0, Refuse())
"""

SCORE = """
import json, sys
from lightscore.metrics.audio import SignalMetrics, SpeakerSimilarity
from lightscore.metrics.intelligibility import Intelligibility
from lightscore.metrics.quality import DNSMOS, PLCMOS
from lightscore.metrics.separation import Separation

folder = sys.argv[1]
signal, text = json.loads(sys.argv[2]), {"ref": f"{folder}/text.scp", "hyp": f"{folder}/hyp.scp"}
pair = {"hyp": f"{folder}/hyp.scp", "ref": f"{folder}/ref.scp"}
speaker = {"target": pair["ref"], "hyp": pair["hyp"]}
out = {
    "signal": SignalMetrics(signal, f0_method="dio")(pair, "dev"),
    "dnsmos": DNSMOS()({"hyp": pair["hyp"]}, "dev"),
    "plcmos": PLCMOS()({"hyp": pair["hyp"]}, "dev"),
    "intelligibility": Intelligibility(case="fold")(text, "dev"),
    "separation": Separation(["si_sdr"], layout="files")(
        {"hyp1": pair["hyp"], "hyp2": pair["ref"], "ref1": pair["ref"], "ref2": pair["hyp"]}, "dev"
    ),
}
try:
    out["speaker"] = SpeakerSimilarity()(speaker, "dev")
except ModuleNotFoundError as e:
    out["speaker"] = f"{type(e).__name__}: {e}"
out["pkg_resources loaded"] = "pkg_resources" in sys.modules
print(json.dumps(out))
"""


def installed(distribution: str) -> bool:
    try:
        importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


@pytest.fixture(scope="module")
def wavs(tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("no_pkg_resources")
    speak(SENTENCES[0], folder / "ref.wav")
    speak(SENTENCES[0], folder / "hyp.wav", noise=0.05)
    (folder / "ref.scp").write_text(f"u1 {folder / 'ref.wav'}\n")
    (folder / "hyp.scp").write_text(f"u1 {folder / 'hyp.wav'}\n")
    (folder / "text.scp").write_text(f"u1 {SENTENCES[0]}\n")
    return folder


def run_child(code: str, *args: str) -> dict:
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_every_audio_metric_scores_the_same_without_pkg_resources(wavs) -> None:
    without = run_child(NO_PKG_RESOURCES + SCORE, str(wavs), json.dumps(SIGNAL))
    with_it = run_child(SCORE, str(wavs), json.dumps(SIGNAL))
    assert without["pkg_resources loaded"] is False
    for name in ("signal", "dnsmos", "plcmos", "intelligibility", "separation"):
        assert without[name] == with_it[name], name
    assert set(without["signal"]) >= set(SIGNAL) and without["intelligibility"]["WER"] >= 0
    if installed("webrtcvad-wheels") and not installed("webrtcvad"):
        assert without["speaker"] == with_it["speaker"]
    else:  # webrtcvad 2.0.10, which resemblyzer asks for, imports pkg_resources
        assert without["speaker"].startswith(
            "PkgResourcesError: SpeakerSimilarity needs resemblyzer, but resemblyzer's webrtcvad 2.0.10 imports "
            "pkg_resources"
        )
        assert without["speaker"].endswith(": pip uninstall -y webrtcvad && pip install webrtcvad-wheels")
        assert 0.5 < with_it["speaker"]["spk_sim"] <= 1
