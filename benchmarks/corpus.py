"""The benchmark corpus: LibriSpeech-like (reference, hypothesis) pairs, generated from a fixed seed.

A 5,000-word vocabulary drawn with Zipf frequencies (short words are the
frequent ones, as in English); reference lengths 5-60 words with a mean of
about 20; each reference word is substituted with probability 8% or deleted
with 2%, and a random word is inserted after it with 2%. Every script uses the
same pairs, so their ratios compare like with like.

>>> refs, hyps = make_pairs(3)
>>> len(refs), len(hyps), all(5 <= len(r.split()) <= 60 for r in refs)
(3, 3, True)
>>> make_pairs(3) == (refs, hyps)
True
"""

from __future__ import annotations

import itertools
import os
import random
import string
import tempfile
from pathlib import Path

SEED = 20240601
VOCAB_SIZE = 5000
ZIPF_EXPONENT = 1.0
MIN_WORDS, MAX_WORDS = 5, 60
SUB, DEL, INS = 0.08, 0.02, 0.02
PAIRS = 20_000


def vocabulary(size: int = VOCAB_SIZE, seed: int = SEED) -> list[str]:
    """``size`` distinct upper-case pseudo-words, most frequent first, longer as they get rarer.

    >>> words = vocabulary(100)
    >>> len(set(words)), len(words[0]) <= len(words[-1])
    (100, True)
    """
    rng = random.Random(seed)
    words: list[str] = []
    seen: set[str] = set()
    for rank in itertools.count(1):
        if len(words) == size:
            return words
        length = min(12, 1 + rank.bit_length() // 2 + rng.randint(0, 2))
        word = "".join(rng.choices(string.ascii_uppercase, k=length))
        if word not in seen:
            seen.add(word)
            words.append(word)
    raise AssertionError("unreachable")


def make_pairs(n: int = PAIRS, seed: int = SEED) -> tuple[list[str], list[str]]:
    """Return ``n`` references and their hypotheses, the same for the same ``n`` and ``seed``."""
    rng = random.Random(seed)
    words = vocabulary(seed=seed)
    weights = list(itertools.accumulate(1 / rank**ZIPF_EXPONENT for rank in range(1, len(words) + 1)))
    refs: list[str] = []
    hyps: list[str] = []
    for _ in range(n):
        # A gamma with mean 20, clipped to 5..60, looks like LibriSpeech utterance lengths.
        length = max(MIN_WORDS, min(MAX_WORDS, round(rng.gammavariate(4.0, 5.0))))
        ref = rng.choices(words, cum_weights=weights, k=length)
        hyp: list[str] = []
        for word in ref:
            roll = rng.random()
            if roll < SUB:
                hyp.append(_other_word(rng, words, weights, word))
            elif roll >= SUB + DEL:
                hyp.append(word)
            if rng.random() < INS:
                hyp.append(rng.choices(words, cum_weights=weights)[0])
        refs.append(" ".join(ref))
        hyps.append(" ".join(hyp))
    return refs, hyps


def _other_word(rng: random.Random, words: list[str], weights: list[float], word: str) -> str:
    while (other := rng.choices(words, cum_weights=weights)[0]) == word:
        pass
    return other


def data_dir() -> Path:
    """Where generated SCP files are cached (``LIGHTSCORE_BENCH_DATA`` or a folder in the temp dir)."""
    path = Path(os.environ.get("LIGHTSCORE_BENCH_DATA", Path(tempfile.gettempdir()) / "lightscore-bench"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def scp_pair(n: int, seed: int = SEED) -> tuple[Path, Path]:
    """Write (once) and return ``ref.scp`` and ``hyp.scp`` with ``n`` lines; corpus pairs repeat past 20,000.

    Repeating one 20,000-pair block keeps a million-line file cheap to make and
    its per-line statistics identical to the in-memory benchmarks.
    """
    folder = data_dir() / f"scp-{n}-{seed}"
    ref_path, hyp_path = folder / "ref.scp", folder / "hyp.scp"
    if ref_path.is_file() and hyp_path.is_file():
        return ref_path, hyp_path
    folder.mkdir(parents=True, exist_ok=True)
    refs, hyps = make_pairs(min(n, PAIRS), seed)
    for path, texts in ((ref_path, refs), (hyp_path, hyps)):
        tmp = path.with_suffix(".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            for i in range(n):
                f.write(f"utt{i:08d} {texts[i % len(texts)]}\n")
        os.replace(tmp, path)
    return ref_path, hyp_path


if __name__ == "__main__":
    refs, hyps = make_pairs()
    ref_words = [len(r.split()) for r in refs]
    hyp_words = sum(len(h.split()) for h in hyps)
    print(
        f"{len(refs)} pairs, reference words: mean {sum(ref_words) / len(refs):.1f}, "
        f"min {min(ref_words)}, max {max(ref_words)}; hypothesis words {hyp_words} vs reference {sum(ref_words)}"
    )
    print("example:", refs[0], "|", hyps[0])
