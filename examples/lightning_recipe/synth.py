"""A synthetic spoken-word corpus, made on the spot so the recipe runs anywhere without downloads.

Each letter is a chord of two tones (like the keys of a telephone), so a word
is a short melody and a sentence is a few words with pauses between them.
Every utterance draws its own speaking rate, pitch and loudness, and is mixed
with a quieter competing talker and white noise, so the model has to learn
the patterns rather than memorise waveforms, and still makes some errors.
The splits are fixed by a seed: the same arguments write the same files.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import soundfile

from .corpus import Utterance, read_split, write_split

SAMPLE_RATE = 16000
WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
LETTERS = sorted(set("".join(WORDS)))
LOW_TONES = (400.0, 520.0, 680.0, 880.0)
HIGH_TONES = (1200.0, 1560.0, 2030.0, 2640.0)
# Letter i sounds as the i-th (low, high) pair. Neighbouring tones are a factor of 1.3 apart, about the width
# of the pitch range `voice` draws from, so a letter spoken high can sound like its neighbour spoken low.
CHORDS = {letter: (LOW_TONES[i // 4], HIGH_TONES[i % 4]) for i, letter in enumerate(LETTERS)}


@dataclass(frozen=True)
class SynthConfig:
    """The sizes and seed of a synthetic corpus; the files on disk are a function of these alone."""

    train: int = 1000
    dev: int = 150
    test: int = 150
    seed: int = 0
    max_words: int = 4


def random_sentence(rng: np.random.Generator, max_words: int) -> str:
    """Draw 1 to ``max_words`` words from the vocabulary.

    >>> random_sentence(np.random.default_rng(0), 4).split()[0] in WORDS
    True
    """
    return " ".join(rng.choice(WORDS, size=rng.integers(1, max_words + 1)))


def letter_tone(letter: str, seconds: float, pitch: float) -> np.ndarray:
    """The chord of ``letter`` lasting ``seconds``, with soft edges so neighbouring letters stay apart."""
    t = np.arange(int(seconds * SAMPLE_RATE)) / SAMPLE_RATE
    low, high = CHORDS[letter]
    wave = np.sin(2 * np.pi * low * pitch * t) + 0.7 * np.sin(2 * np.pi * high * pitch * t)
    ramp = min(len(t) // 4, int(0.01 * SAMPLE_RATE))
    envelope = np.ones_like(t)
    envelope[:ramp] = np.linspace(0, 1, ramp)
    envelope[len(t) - ramp :] = np.linspace(1, 0, ramp)
    return wave * envelope


def voice(text: str, rng: np.random.Generator) -> np.ndarray:
    """A clean rendering of ``text``: chords for letters, short gaps within words, longer ones between them."""
    rate = rng.uniform(0.75, 1.3)  # every duration is stretched by this: slow and fast speakers
    pitch = rng.uniform(0.87, 1.15)

    def silence(low: float, high: float) -> np.ndarray:
        return np.zeros(int(rng.uniform(low, high) * rate * SAMPLE_RATE))

    pieces = [silence(0.05, 0.2)]
    for w, word in enumerate(text.split()):
        if w:
            pieces.append(silence(0.12, 0.25))
        for i, letter in enumerate(word):
            if i:
                pieces.append(silence(0.015, 0.03))
            pieces.append(letter_tone(letter, rng.uniform(0.05, 0.09) * rate, pitch))
    pieces.append(silence(0.05, 0.2))
    return np.concatenate(pieces)


def speak(text: str, rng: np.random.Generator) -> np.ndarray:
    """Render ``text`` as a waveform at `SAMPLE_RATE`, over a quieter competing talker and white noise.

    >>> wave = speak("one", np.random.default_rng(0))
    >>> wave.dtype, 0.2 < len(wave) / SAMPLE_RATE < 1.0, float(abs(wave).max()) <= 1.0
    (dtype('float32'), True, True)
    """
    wave = voice(text, rng)
    talker = voice(random_sentence(rng, 4), rng)[: len(wave)]
    start = rng.integers(0, len(wave) - len(talker) + 1)
    wave[start : start + len(talker)] += talker * rng.uniform(0.1, 0.4)
    wave *= rng.uniform(0.1, 0.4)
    snr_db = rng.uniform(-8, 7)
    noise_rms = np.sqrt(np.mean(wave**2)) / 10 ** (snr_db / 20)
    wave = wave + rng.normal(0, noise_rms, len(wave))
    return np.clip(wave, -1, 1).astype(np.float32)


def write_synthetic_split(split_dir: Path, name: str, count: int, rng: np.random.Generator, max_words: int) -> None:
    """Write ``count`` utterances as 16-bit WAV files plus ``wav.scp`` and ``text`` into ``split_dir``."""
    shutil.rmtree(split_dir / "wav", ignore_errors=True)
    (split_dir / "wav").mkdir(parents=True)
    utterances = []
    for n in range(count):
        utt_id = f"synth-{name}-{n:05d}"
        text = random_sentence(rng, max_words)
        path = Path("wav") / f"{utt_id}.wav"
        soundfile.write(split_dir / path, speak(text, rng), SAMPLE_RATE, subtype="PCM_16")
        utterances.append(Utterance(utt_id, path, text))
    write_split(split_dir, utterances)


def make_corpus(root: Path, config: SynthConfig) -> dict[str, list[Utterance]]:
    """Write (or reuse) the train, dev and test splits under ``root``; return their utterances.

    A stamp file records the config, so a corpus is rebuilt only when the
    config changes. Each split draws from its own seeded generator, so a
    smaller split is the start of a larger one, and the size of one split
    leaves the others unchanged.

    >>> import tempfile
    >>> splits = make_corpus(Path(tempfile.mkdtemp()), SynthConfig(train=2, dev=1, test=1))
    >>> [len(splits[s]) for s in ("train", "dev", "test")], splits["test"][0].audio.suffix
    ([2, 1, 1], '.wav')
    """
    stamp = root / "config.json"
    wanted = json.dumps(asdict(config), sort_keys=True)
    if not (stamp.is_file() and stamp.read_text() == wanted):
        stamp.unlink(missing_ok=True)
        for offset, name in enumerate(("train", "dev", "test")):
            rng = np.random.default_rng([config.seed, offset])
            write_synthetic_split(root / name, name, getattr(config, name), rng, config.max_words)
        stamp.write_text(wanted)
    return {name: read_split(root / name) for name in ("train", "dev", "test")}
