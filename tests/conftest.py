"""Shared fixtures for the lightscore tests.

Fixtures other test files can reuse:

- ``write_scp_file``: write an SCP file (rows or raw text/bytes) under the test's ``tmp_path``.
- ``make_sentences``: deterministic random sentences over a fixed word list (``WORDS``).
- ``spm_model``: a real SentencePiece model, trained once per session from generated text.

Nothing here is mocked: the SCP files are real files and the SentencePiece model is
trained by the real ``sentencepiece`` trainer.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

# Under `pytest -n 2` each worker, and every process it starts, would run one compute thread per core: two
# workers on two cores then fight over them, and the torch runs spend their time waiting. One thread per
# worker fills the cores without that. Set before any test module imports torch; a thread count the user
# chose is kept.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.setdefault("OMP_NUM_THREADS", "1")

# A small, fixed vocabulary: the SentencePiece model is trained on sentences over these
# words, and tests that need "realistic" text draw from it too.
WORDS = (
    "the a cat dog sat ran on over under mat hill river stone house garden tree "
    "green blue red small large quickly slowly bright yellow sun morning evening "
    "speech model token error rate metric sound voice"
).split()


@pytest.fixture
def write_scp_file(tmp_path: Path) -> Callable[..., Path]:
    """Return ``write(name, content)``, which writes ``tmp_path / name`` and returns its path.

    ``content`` is either

    - an iterable of ``(utt_id, value)`` pairs, written as ``utt_id value\\n`` lines
      (``utt_id\\n`` when the value is empty), exactly as a user would write them; or
    - a ``str`` (written as UTF-8, newlines untranslated) or ``bytes`` (written as is),
      for files that need CRLF endings, blank lines or invalid bytes.

    For example ``write_scp_file("ref.scp", [("utt1", "the cat"), ("utt2", "")])`` writes
    ``"utt1 the cat\\nutt2\\n"``.
    """

    def write(name: str, content: Iterable[tuple[str, str]] | str | bytes) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        elif isinstance(content, str):
            path.write_bytes(content.encode("utf-8"))
        else:
            lines = [f"{utt_id} {value}\n" if value else f"{utt_id}\n" for utt_id, value in content]
            path.write_bytes("".join(lines).encode("utf-8"))
        return path

    return write


def _sentences(seed: int, n: int, min_words: int = 1, max_words: int = 12) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(min_words, max_words))) for _ in range(n)]


@pytest.fixture(scope="session")
def make_sentences() -> Callable[..., list[str]]:
    """Return ``make(seed, n, min_words=1, max_words=12)``: ``n`` sentences over ``WORDS``.

    Deterministic for a given seed; words are separated by single spaces.
    """
    return _sentences


@pytest.fixture(scope="session")
def spm_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Path to a small BPE SentencePiece model (vocab 60) trained in a session temp dir.

    Trained by the real trainer from 2,000 generated sentences over ``WORDS`` (about
    30 ms), so words split into several pieces and unseen words still tokenize
    (``character_coverage=1.0``). Use it wherever a ``bpemodel`` is needed, e.g.
    ``TER(spm_model)``.
    """
    import sentencepiece

    workdir = tmp_path_factory.mktemp("spm")
    text = workdir / "train.txt"
    text.write_text("\n".join(_sentences(seed=1234, n=2000, min_words=3)) + "\n", encoding="utf-8")
    prefix = workdir / "bpe"
    sentencepiece.SentencePieceTrainer.train(
        input=str(text),
        model_prefix=str(prefix),
        vocab_size=60,
        model_type="bpe",
        character_coverage=1.0,
        minloglevel=2,
    )
    model = prefix.with_suffix(".model")
    assert model.is_file()
    return model
