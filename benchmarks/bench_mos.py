"""DNSMOS, PLCMOS and intelligibility: lightscore against speechmos and pocketsphinx themselves, side by side.

    python benchmarks/bench_mos.py [--files 8] [--repeats 1]

One corpus of espeak-ng sentences (16 kHz WAVs; synthetic voiced sound where espeak-ng is missing)
is scored by each method in one run. lightscore makes its ONNX sessions once per process and runs
them on one thread; ``speechmos.*.run`` keeps one global model (onnxruntime's default threads: all
cores); "one thread" is speechmos' own DNSMOS class with its two sessions rebuilt on one thread (the
goal's comparison); "sessions per call" builds speechmos' model for every file, as a naive loop would.
The real-time factor (RTF) is seconds of computing per second of audio. The numbers each method
gives are compared, and must agree.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import soundfile as sf
from common import Row, header, table, time_side_by_side, verdict

from lightscore.metrics.intelligibility import Intelligibility
from lightscore.metrics.quality import DNSMOS, PLCMOS

SENTENCES = [
    "the quick brown fox jumps over the lazy dog",
    "please call stella and ask her to bring these things with her from the store",
    "six spoons of fresh snow peas and five thick slabs of blue cheese",
    "we also need a small plastic snake and a big toy frog for the kids",
]


def corpus(d: Path, files: int) -> tuple[Path, Path, list[str], float]:
    """Write ``files`` WAVs and their hyp/ref SCPs; return them, the paths and the seconds of audio."""
    import librosa

    espeak = shutil.which("espeak-ng")
    paths = []
    seconds = 0.0
    for k in range(files):
        path = d / f"u{k}.wav"
        if espeak:
            subprocess.run([espeak, "-v", "en", "-s", "140", "-w", str(d / "raw.wav"), SENTENCES[k % 4]], check=True)
            wave, rate = sf.read(d / "raw.wav", dtype="float32")
            wave = librosa.resample(wave, orig_sr=rate, target_sr=16000)
        else:
            t = np.arange(5 * 16000) / 16000
            wave = 0.3 * np.sin(2 * np.pi * (120 + 10 * k) * t) * (1 + np.sin(2 * np.pi * 3 * t)) / 2
        sf.write(path, np.clip(wave, -0.99, 0.99), 16000, subtype="PCM_16")
        paths.append(str(path))
        seconds += sf.info(path).duration
    hyp = d / "hyp.scp"
    ref = d / "ref.scp"
    hyp.write_text("".join(f"u{k} {p}\n" for k, p in enumerate(paths)))
    ref.write_text("".join(f"u{k} {SENTENCES[k % 4]}\n" for k in range(files)))
    return hyp, ref, paths, seconds


def one_thread_dnsmos(dnsmos, models: list[str]):
    """speechmos' own DNSMOS class, its two ONNX sessions rebuilt on one intra-op thread (as lightscore's default)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    model = dnsmos.DNSMOS(*models)
    model.onnx_sess = ort.InferenceSession(models[0], options, providers=["CPUExecutionProvider"])
    model.p808_onnx_sess = ort.InferenceSession(models[1], options, providers=["CPUExecutionProvider"])
    return model


def one_thread_plcmos(plcmos):
    """speechmos' own PLCMOS class, its ONNX session rebuilt on one intra-op thread."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    model = plcmos.PLCMOS()
    model.session = ort.InferenceSession(model.model_path, options, providers=["CPUExecutionProvider"])
    return model


def pocketsphinx_alone(paths: list[str]) -> list[str]:
    """One PocketSphinx decoder for all files, reading their 16-bit samples: the package alone."""
    import pocketsphinx

    decoder = pocketsphinx.Decoder(loglevel="FATAL")
    texts = []
    for path in paths:
        decoder.start_utt()
        decoder.process_raw(sf.read(path, dtype="int16")[0].tobytes(), full_utt=True)
        decoder.end_utt()
        texts.append(decoder.hyp().hypstr if decoder.hyp() else "")
    return texts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    from speechmos import dnsmos, plcmos

    header(f"DNSMOS, PLCMOS and intelligibility vs speechmos and pocketsphinx ({args.files} files)")
    with tempfile.TemporaryDirectory() as tmp:
        hyp, ref, paths, seconds = corpus(Path(tmp), args.files)
        print(f"{args.files} files, {seconds:.1f} s of audio\n")
        values: dict[str, float] = {}

        def mean_of(name: str, scores) -> None:
            values[name] = float(np.mean(list(scores)))

        models = [
            str(Path(dnsmos.__file__).parent / "dnsmos_models" / name) for name in ("sig_bak_ovr.onnx", "model_v8.onnx")
        ]

        def per_call_dnsmos() -> None:
            scores = (dnsmos.DNSMOS(*models)(path, 16000, False)["ovrl_mos"] for path in paths)
            mean_of("speechmos DNSMOS, sessions per call", scores)

        one_thread = one_thread_dnsmos(dnsmos, models)

        def speechmos_one_thread() -> None:
            mean_of("speechmos DNSMOS, one thread", (one_thread(path, 16000, False)["ovrl_mos"] for path in paths))

        methods = {
            "lightscore DNSMOS": lambda: values.update(lightscore_dnsmos=DNSMOS()({"hyp": hyp}, "b")["dnsmos_ovrl"]),
            "speechmos DNSMOS, one thread": speechmos_one_thread,
            "lightscore DNSMOS, threads=0 (onnxruntime's choice)": lambda: values.update(
                lightscore_dnsmos_threads0=DNSMOS(threads=0)({"hyp": hyp}, "b")["dnsmos_ovrl"]
            ),
            "speechmos.dnsmos.run per file": lambda: mean_of(
                "speechmos.dnsmos.run per file", (dnsmos.run(path, 16000)["ovrl_mos"] for path in paths)
            ),
            "speechmos DNSMOS, sessions per call": per_call_dnsmos,
        }
        times = time_side_by_side(methods, repeats=args.repeats)
        rows = [Row(name, args.files, times[name], unit="files") for name in methods]
        print(table(rows, baseline="speechmos.dnsmos.run per file"))
        rtf = {name: row.median / seconds for name, row in zip(methods, rows)}
        print("\n" + "\n".join(f"- {name}: RTF {value:.3f}" for name, value in rtf.items()))
        print(f"- OVRL means: {', '.join(f'{k} {v:.6f}' for k, v in values.items())}\n")
        ratio = rtf["lightscore DNSMOS"] / rtf["speechmos DNSMOS, one thread"]
        print(verdict("lightscore DNSMOS time / speechmos DNSMOS, one thread each", ratio, 1.1, higher_is_better=False))
        ratio = rtf["lightscore DNSMOS, threads=0 (onnxruntime's choice)"] / rtf["speechmos.dnsmos.run per file"]
        print(f"- the same, both with onnxruntime's default threads: {ratio:.2f}x\n")

        def speechmos_plcmos(score=lambda path: plcmos.run(path, 16000), key: str = "speechmos PLCMOS") -> None:
            scores = []
            for path in paths:
                np.random.seed(0)  # lightscore's raters: RandomState(0) per clip
                scores.append(score(path)["plcmos"])
            values[key] = float(np.mean(scores))

        plcmos_one = one_thread_plcmos(plcmos)
        methods = {
            "lightscore PLCMOS": lambda: values.update(lightscore_plcmos=PLCMOS()({"hyp": hyp}, "b")["plcmos"]),
            "speechmos PLCMOS, one thread": lambda: speechmos_plcmos(plcmos_one, "speechmos PLCMOS, one thread"),
            "lightscore PLCMOS, threads=0 (onnxruntime's choice)": lambda: values.update(
                lightscore_plcmos_threads0=PLCMOS(threads=0)({"hyp": hyp}, "b")["plcmos"]
            ),
            "speechmos.plcmos.run per file": speechmos_plcmos,
        }
        times = time_side_by_side(methods, repeats=args.repeats)
        rows = [Row(name, args.files, times[name], unit="files") for name in methods]
        print(table(rows, baseline="speechmos.plcmos.run per file"))
        print(f"\n- PLCMOS means: {', '.join(f'{k} {v:.6f}' for k, v in values.items() if 'plcmos' in k.lower())}")
        ratio = rows[0].median / rows[1].median
        print(verdict("lightscore PLCMOS time / speechmos PLCMOS, one thread each", ratio, 1.1, higher_is_better=False))
        print(f"- the same, both with onnxruntime's default threads: {rows[2].median / rows[3].median:.2f}x\n")

        texts: dict[str, list[str]] = {}
        methods = {
            "lightscore Intelligibility (pocketsphinx)": lambda: values.update(
                wer=Intelligibility(case="fold")({"ref": ref, "hyp": hyp}, "b")["WER"]
            ),
            "pocketsphinx alone": lambda: texts.update(alone=pocketsphinx_alone(paths)),
        }
        times = time_side_by_side(methods, repeats=args.repeats)
        rows = [Row(name, args.files, times[name], unit="files") for name in methods]
        print(table(rows, baseline="pocketsphinx alone"))
        print("\n" + "\n".join(f"- {row.method}: RTF {row.median / seconds:.3f}" for row in rows))
        print(f"- lightscore WER {values['wer']:.2f}% (pocketsphinx's transcripts, case-folded)")
        ratio = rows[0].median / rows[1].median
        print(verdict("Intelligibility time / pocketsphinx alone", ratio, 1.1, higher_is_better=False))


if __name__ == "__main__":
    main()
