"""DNSMOS and PLCMOS: equal to speechmos' own functions on espeak-ng speech; bad files refused; 2 gloo ranks = 1.

Long clips are scored one DNSMOS window and one PLCMOS rater per model call (issue 38, items 7 and 8): their
numbers equal speechmos' on clips of several windows, and a model that runs out of memory names the utterance.
benchmarks/bench_mos_memory.py measures the peak memory against speechmos' on 10 s to 10 min clips.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
import soundfile as sf
from ddp_scripts.audio_quality_ddp import ESPEAK, NO_ESPEAK, SENTENCES, speak, write_corpus
from ddp_scripts.launch import free_port, run_scripts

from lightscore.audio import mos
from lightscore.core.batch import feed
from lightscore.core.runner import Job, score_jobs
from lightscore.metrics.quality import DNSMOS, PLCMOS

speechmos_dnsmos = pytest.importorskip("speechmos.dnsmos")
speechmos_plcmos = pytest.importorskip("speechmos.plcmos")
pytestmark = pytest.mark.skipif(ESPEAK is None, reason=NO_ESPEAK)


@pytest.fixture(scope="module")
def speech(tmp_path_factory: pytest.TempPathFactory) -> dict:
    root = tmp_path_factory.mktemp("speech")
    paths = {"clean": root / "clean.wav", "noisy": root / "noisy.wav"}
    speak(SENTENCES[1], paths["clean"])
    speak(SENTENCES[1], paths["noisy"], noise=0.3)
    scp = root / "hyp.scp"
    scp.write_text(f"u1 {paths['clean']}\nu2 {paths['noisy']}\n")
    return {**paths, "scp": scp, "root": root}


def test_dnsmos_equals_speechmos_and_noise_scores_lower(speech: dict) -> None:
    metric = DNSMOS(per_utterance=True)
    result = metric({"hyp": speech["scp"]}, "dev")
    records = metric.utterance_records()
    for record, name in zip(records, ("clean", "noisy")):
        theirs = speechmos_dnsmos.run(str(speech[name]), 16000)
        for key in mos.DNSMOS_KEYS:
            assert record[f"dnsmos_{key}"] == pytest.approx(float(theirs[f"{key}_mos"]), abs=1e-6)
    clean, noisy = records
    assert clean["dnsmos_ovrl"] > noisy["dnsmos_ovrl"] + 0.3 and clean["dnsmos_bak"] > noisy["dnsmos_bak"] + 0.5
    assert result["dnsmos_ovrl"] == pytest.approx((clean["dnsmos_ovrl"] + noisy["dnsmos_ovrl"]) / 2, abs=1e-9)


def test_personalized_dnsmos_equals_speechmos(speech: dict) -> None:
    wave = mos.load_16k(str(speech["clean"]))
    theirs = speechmos_dnsmos.run(wave, 16000, model_type="dnsmos_personalized")
    ours = mos.dnsmos(wave, personalized=True)
    assert ours == pytest.approx({key: float(theirs[f"{key}_mos"]) for key in mos.DNSMOS_KEYS}, abs=1e-6)


def test_librosa_resampling_equals_speechmos_on_a_file_at_another_rate(speech: dict, tmp_path) -> None:
    wave, _ = sf.read(speech["clean"], dtype="float32")
    path = tmp_path / "at_22050.wav"
    import librosa

    sf.write(path, librosa.resample(wave, orig_sr=16000, target_sr=22050), 22050, subtype="FLOAT")
    theirs = speechmos_dnsmos.run(str(path), 16000)
    ours = mos.dnsmos(mos.load_16k(str(path), "librosa"))
    assert ours == pytest.approx({key: float(theirs[f"{key}_mos"]) for key in mos.DNSMOS_KEYS}, abs=1e-6)
    with pytest.raises(ValueError, match=r"utterance 'u1'.*at_22050.wav is at 22050 Hz; resample='none'"):
        scp = tmp_path / "hyp.scp"
        scp.write_text(f"u1 {path}\n")
        DNSMOS(resample="none")({"hyp": scp}, "dev")


def test_plcmos_equals_speechmos_with_the_same_seed_and_lost_packets_score_lower(speech: dict) -> None:
    wave, _ = sf.read(speech["clean"], dtype="float32")
    lossy = wave.copy()
    for start in range(0, lossy.size, 4 * 320):
        lossy[start : start + 320] = 0  # one 20 ms packet in four lost, not concealed
    sf.write(speech["root"] / "lossy.wav", lossy, 16000, subtype="FLOAT")
    scp = speech["root"] / "plc.scp"
    scp.write_text(f"u1 {speech['clean']}\nu2 {speech['root'] / 'lossy.wav'}\n")
    metric = PLCMOS(per_utterance=True)
    metric({"hyp": scp}, "dev")
    scores = [record["plcmos"] for record in metric.utterance_records()]
    for score, path in zip(scores, (speech["clean"], speech["root"] / "lossy.wav")):
        np.random.seed(0)  # speechmos draws its raters from numpy's global generator
        assert score == pytest.approx(speechmos_plcmos.run(str(path), 16000)["plcmos"], abs=1e-6)
    assert scores[0] > scores[1] + 0.5


@pytest.fixture(scope="module")
def long_speech(speech: dict) -> dict:
    """16 s of espeak-ng speech (the four sentences, then again): seven 9.01 s windows."""
    root = speech["root"]
    parts = [speak(sentence, root / f"sentence{k}.wav") for k, sentence in enumerate(SENTENCES)]
    wave = np.tile(np.concatenate(parts), 3)[: 16 * 16000]
    path = root / "long.wav"
    sf.write(path, wave, 16000, subtype="PCM_16")
    scp = root / "long.scp"
    scp.write_text(f"long1 {path}\n")
    return {"wav": path, "scp": scp, "wave": sf.read(path, dtype="float32")[0]}


def test_dnsmos_on_a_clip_of_several_windows_equals_speechmos(long_speech: dict) -> None:
    assert len(list(mos._windows(long_speech["wave"], 1.0))) == 7  # each window is a model call of its own
    result = DNSMOS()({"hyp": long_speech["scp"]}, "dev")
    theirs = speechmos_dnsmos.run(str(long_speech["wav"]), 16000)
    for key in mos.DNSMOS_KEYS:
        assert result[f"dnsmos_{key}"] == pytest.approx(float(theirs[f"{key}_mos"]), abs=1e-6)
    personalized = mos.dnsmos(long_speech["wave"], personalized=True)
    theirs = speechmos_dnsmos.run(long_speech["wave"], 16000, model_type="dnsmos_personalized")
    assert personalized == pytest.approx({key: float(theirs[f"{key}_mos"]) for key in mos.DNSMOS_KEYS}, abs=1e-6)


def test_plcmos_on_a_long_clip_equals_speechmos(long_speech: dict) -> None:
    result = PLCMOS(seed=5)({"hyp": long_speech["scp"]}, "dev")
    np.random.seed(5)  # speechmos draws its 15 raters from numpy's global generator, one per model call
    assert result["plcmos"] == pytest.approx(speechmos_plcmos.run(str(long_speech["wav"]), 16000)["plcmos"], abs=1e-6)


# A real allocation failure: the address space is capped 100 MB above what the process holds once its sessions
# are warm, and PLCMOS needs several hundred MB more for a 16 s clip.
OUT_OF_MEMORY = """
import resource, sys
from lightscore.metrics.quality import PLCMOS
PLCMOS()({"hyp": sys.argv[1]}, "dev")
status = open("/proc/self/status").read()
size = int(status.split("VmSize:")[1].split()[0]) * 1024
resource.setrlimit(resource.RLIMIT_AS, (size + 100 * 2**20, resource.RLIM_INFINITY))
try:
    PLCMOS()({"hyp": sys.argv[2]}, "dev")
except ValueError as e:
    print(e)
"""


@pytest.mark.slow
def test_a_model_out_of_memory_names_the_utterance_and_the_file(speech: dict, long_speech: dict) -> None:
    done = subprocess.run(
        [sys.executable, "-c", OUT_OF_MEMORY, str(speech["scp"]), str(long_speech["scp"])],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    message = done.stdout.strip()
    assert message.startswith("lightscore.metrics.quality.PLCMOS: utterance 'long1' (")
    assert f"hyp {long_speech['wav']}: plcmos: the model ran out of memory on a 16.0 s clip: " in message


def test_sessions_are_made_once_per_process(speech: dict) -> None:
    path = mos.model_file("dnsmos_models", "sig_bak_ovr.onnx")
    first = mos.session(path, 1)
    DNSMOS()({"hyp": speech["scp"]}, "dev")
    assert mos.session(path, 1) is first


@pytest.mark.parametrize(
    ("samples", "message"),
    [
        (np.zeros(16000), r"hyp .*bad.wav: dnsmos: hyp is silent"),
        (np.full(4000, 0.1), r"hyp .*bad.wav: dnsmos: hyp has 4000 samples \(0.250 s at 16 kHz\), under the 0.5 s"),
        (np.full(16000, np.nan), r"bad.wav holds 16000 non-finite sample"),
        (np.full(16000, 1.5), r"dnsmos: 16000 sample\(s\) are outside \[-1, 1\]"),
    ],
)
def test_bad_audio_is_an_error_naming_the_utterance_and_file(tmp_path, samples, message) -> None:
    sf.write(tmp_path / "bad.wav", samples, 16000, subtype="FLOAT")
    (tmp_path / "hyp.scp").write_text(f"u7 {tmp_path / 'bad.wav'}\n")
    with pytest.raises(ValueError, match=rf"DNSMOS: utterance 'u7'.*{message}"):
        DNSMOS()({"hyp": tmp_path / "hyp.scp"}, "dev")


def test_options_are_checked() -> None:
    with pytest.raises(ValueError, match="DNSMOS: resample must be one of torchaudio, librosa, none, got 'sox'"):
        DNSMOS(resample="sox")
    with pytest.raises(ValueError, match="PLCMOS: threads must be an int >= 0"):
        PLCMOS(threads=-1)
    with pytest.raises(ValueError, match="per-utterance records need the utterance ids"):
        DNSMOS(per_utterance=True).update(hyp=["x.wav"])


def test_shards_merge_to_the_single_run(speech: dict) -> None:
    whole = DNSMOS()
    whole_result = whole({"hyp": speech["scp"]}, "dev")
    states = []
    for path, utt in ((speech["clean"], "u1"), (speech["noisy"], "u2")):
        metric = DNSMOS()
        feed(metric, {"hyp": [str(path)]}, [utt])
        states.append(metric.state())
    merged = DNSMOS()
    merged.load_state(merged.merge_states(states[::-1]))
    assert merged.compute() == whole_result


@pytest.mark.slow
def test_two_gloo_ranks_equal_one(tmp_path) -> None:
    data = tmp_path / "data"
    out = tmp_path / "out"
    data.mkdir()
    out.mkdir()
    write_corpus(data)
    port = free_port()
    runs = run_scripts([["audio_quality_ddp.py", str(data), str(out), str(r), "2", str(port)] for r in (0, 1)], port)
    for run in runs:
        assert run.returncode == 0, run.stderr[-3000:]
    ranks = [json.loads((out / f"rank{r}.json").read_text()) for r in (0, 1)]
    from ddp_scripts.audio_quality_ddp import _records, metrics

    for key, (metric, files) in metrics().items():
        job = Job(key, metric, "dev", {name: data / f"{scp}.scp" for name, scp in files.items()})
        (single,) = score_jobs([job])
        expected = [single, [list(map(str, r)) for r in _records(metric)]]
        for record in ranks:
            assert record["measure"][key] == expected, key
            assert record["steps"][key] == expected, key
    orders = [record[-1] for record in ranks[0]["measure"]["pit"][1]]
    assert orders == ["[0, 1]", "[0, 1]", "[1, 0]", "[1, 0]"]  # spk1's estimates came back swapped: found
