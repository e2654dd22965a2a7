"""DNSMOS, PIT SI-SDR and intelligibility on real gloo ranks, and the real speech the audio-quality tests share.

Usage: ``python audio_quality_ddp.py DATA_DIR OUT_DIR RANK WORLD_SIZE PORT``; DATA_DIR is what
`write_corpus` wrote. Each rank scores its share of the rows through the offline runner
(``measure()``'s road, `score_jobs`) and through batches fed as a callback feeds them, gathered
with `gather_and_compute`; it writes ``OUT_DIR/rank<r>.json`` with both results and the merged
per-utterance records.

Imported by the tests, it makes the corpus: espeak-ng speech (16 kHz, 16-bit), a noisy copy of
each sentence, and two-speaker mixtures with their sources.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import soundfile as sf

SENTENCES = (
    "the quick brown fox jumps over the lazy dog",
    "please call stella and ask her to bring these things with her from the store",
    "six spoons of fresh snow peas and five thick slabs of blue cheese",
    "we also need a small plastic snake and a big toy frog for the kids",
)
ESPEAK = shutil.which("espeak-ng")
NO_ESPEAK = "espeak-ng is not installed (apt-get install espeak-ng): the audio-quality tests need real speech"


def speak(text: str, path: Path, noise: float = 0.0, seed: int = 0) -> np.ndarray:
    """espeak-ng's voice saying ``text``, at 16 kHz as 16-bit PCM in ``path``, with white noise at ``noise`` x peak.

    Returns:
        The samples as written (float, as soundfile reads them back).
    """
    import torch
    import torchaudio

    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "raw.wav"
        subprocess.run([ESPEAK, "-v", "en", "-s", "140", "-w", str(raw), text], check=True, capture_output=True)
        wave, rate = sf.read(raw, dtype="float32")
    wave = torchaudio.functional.resample(torch.from_numpy(wave), rate, 16000).numpy()
    if noise:
        wave = wave + noise * np.abs(wave).max() * np.random.default_rng(seed).standard_normal(wave.size)
    wave = np.clip(wave, -0.99, 0.99)
    sf.write(path, wave, 16000, subtype="PCM_16")
    return sf.read(path, dtype="float32")[0]


def write_scp(path: Path, rows: dict[str, str]) -> Path:
    path.write_text("".join(f"{utt} {value}\n" for utt, value in rows.items()))
    return path


def write_corpus(root: Path) -> dict[str, Path]:
    """Clean and noisy speech of `SENTENCES`, their texts, and 2-source mixtures; returns name -> SCP."""
    clean, noisy, text = {}, {}, {}
    for k, sentence in enumerate(SENTENCES):
        utt = f"spk{k % 2}-u{k}"
        speak(sentence, root / f"{utt}.wav")
        speak(sentence, root / f"{utt}_noisy.wav", noise=0.3, seed=k)
        clean[utt], noisy[utt], text[utt] = str(root / f"{utt}.wav"), str(root / f"{utt}_noisy.wav"), sentence
    rng = np.random.default_rng(0)
    hyp, ref, mix = {}, {}, {}
    for k, utt in enumerate(clean):
        a = sf.read(clean[utt], dtype="float32")[0]
        b = sf.read(clean[list(clean)[(k + 1) % len(clean)]], dtype="float32")[0]
        length = min(a.size, b.size)
        sources = 0.5 * np.stack([a[:length], b[:length]], axis=1)
        estimate = sources @ np.array([[0.9, 0.15], [0.1, 0.8]]) + 0.01 * rng.standard_normal((length, 2))
        if k % 2:
            estimate = estimate[:, ::-1]  # the system returns these two swapped
        for name, table, data in (("ref", ref, sources), ("hyp", hyp, estimate), ("mix", mix, sources.sum(axis=1))):
            sf.write(root / f"{utt}_{name}.wav", data, 16000, subtype="FLOAT")
            table[utt] = str(root / f"{utt}_{name}.wav")
    tables = {"clean": clean, "noisy": noisy, "text": text, "sep_hyp": hyp, "sep_ref": ref, "sep_mix": mix}
    return {name: write_scp(root / f"{name}.scp", table) for name, table in tables.items()}


def metrics() -> dict:
    from lightscore.metrics.intelligibility import Intelligibility
    from lightscore.metrics.quality import DNSMOS
    from lightscore.metrics.separation import Separation

    return {
        "dnsmos": (DNSMOS(per_utterance=True), {"hyp": "clean"}),
        "pit": (
            Separation(["si_sdr", "si_sdri"], per_utterance=True),
            {"hyp": "sep_hyp", "ref": "sep_ref", "mix": "sep_mix"},
        ),
        "asr": (Intelligibility(case="fold", per_utterance=True), {"ref": "text", "hyp": "clean"}),
    }


def main() -> None:
    import torch
    import torch.distributed as dist

    from lightscore.core.batch import feed
    from lightscore.core.distributed import gather_and_compute
    from lightscore.core.runner import Job, score_jobs
    from lightscore.scp.files import read_scp

    data, out = Path(sys.argv[1]), Path(sys.argv[2])
    rank, world, port = map(int, sys.argv[3:])
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world)
    record: dict = {"measure": {}, "steps": {}}
    built = metrics()
    jobs = [
        Job(key, metric, "dev", {name: data / f"{scp}.scp" for name, scp in files.items()})
        for key, (metric, files) in built.items()
    ]
    for job, result in zip(jobs, score_jobs(jobs, rank=rank, world=world)):
        assert isinstance(result, dict), result
        record["measure"][job.key] = [result, [list(map(str, r)) for r in _records(job.metric)]]
    for key, (metric, files) in metrics().items():
        columns = {name: {utt: value for _, utt, value in read_scp(data / f"{scp}.scp")} for name, scp in files.items()}
        ids = list(next(iter(columns.values())))[rank::world]  # the rows this rank's dataloader would see
        feed(metric, {name: [column[utt] for utt in ids] for name, column in columns.items()}, ids)
        record["steps"][key] = [gather_and_compute(metric), [list(map(str, r)) for r in _records(metric)]]
    (out / f"rank{rank}.json").write_text(json.dumps(record))
    dist.destroy_process_group()


def _records(metric) -> list:
    return [r.values() if isinstance(r, dict) else r for r in metric.utterance_records()]


if __name__ == "__main__":
    main()
