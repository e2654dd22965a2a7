"""The generated ref/hyp corpus and jiwer's per-sentence counts, shared by the WER/CER/TER tests.

Importable as ``error_rate_corpus`` (pytest puts ``tests/`` on sys.path).
"""

from __future__ import annotations

import random

# Lower-case ASCII words, a few capitalized and non-ASCII ones (CER counts characters).
VOCAB = (
    "the a cat dog sat ran on over mat hill river stone house tree green blue red small "
    "quickly morning evening speech model token error The Cat Größe café naïve 日本 語"
).split()


def typo(word: str, rng: random.Random) -> str:
    i = rng.randrange(len(word))
    return word[:i] + rng.choice("xyzéß") + word[i + 1 :]


def generate_corpus(n: int, seed: int) -> tuple[list[str], list[str]]:
    """``n`` (ref, hyp) pairs: hyp is ref with substituted, misspelled, deleted and inserted words.

    About 4% of the references are empty, 4% of the hypotheses, and 1% both. Words are
    joined by single spaces: jiwer's ``process_characters`` keeps whitespace runs while
    `CER` collapses them to one space, so only single-spaced text is comparable.
    """
    rng = random.Random(seed)
    refs, hyps = [], []
    for _ in range(n):
        roll = rng.random()
        ref = [rng.choice(VOCAB) for _ in range(rng.randint(1, 15))]
        hyp: list[str] = []
        for word in ref:
            op = rng.random()
            if op < 0.06:
                hyp.append(rng.choice(VOCAB))
            elif op < 0.12:
                hyp.append(typo(word, rng))
            elif op < 0.18:
                continue
            else:
                hyp.append(word)
            if rng.random() < 0.05:
                hyp.append(rng.choice(VOCAB))
        if roll < 0.01:
            ref, hyp = [], []
        elif roll < 0.05:
            ref = []
        elif roll < 0.09:
            hyp = []
        refs.append(" ".join(ref))
        hyps.append(" ".join(hyp))
    return refs, hyps


def chunk_counts(chunks) -> tuple[int, int, int, int]:
    """(S, D, I, H) of one sentence from jiwer's alignment chunks."""
    total = {"substitute": 0, "delete": 0, "insert": 0, "equal": 0}
    for c in chunks:
        total[c.type] += max(c.ref_end_idx - c.ref_start_idx, c.hyp_end_idx - c.hyp_start_idx)
    return total["substitute"], total["delete"], total["insert"], total["equal"]
