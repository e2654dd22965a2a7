"""Train the SentencePiece model that TER counts tokens with, on the training transcripts."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from lightscore.scp import atomic_open


def train_bpe(texts: Sequence[str], out_dir: Path, vocab_size: int = 40) -> Path:
    """Train a small BPE model on ``texts``; return the path of ``<out_dir>/bpe.model``.

    The vocabulary is a soft limit: a tiny corpus gets as many pieces as it
    can support, and at least one per character it holds.

    >>> import tempfile
    >>> model = train_bpe(["one two three", "two three four"] * 20, Path(tempfile.mkdtemp()))
    >>> import sentencepiece
    >>> "".join(sentencepiece.SentencePieceProcessor(model_file=str(model)).encode("two", out_type=str))
    '▁two'
    """
    import sentencepiece

    out_dir.mkdir(parents=True, exist_ok=True)
    corpus = out_dir / "train.txt"
    with atomic_open(corpus) as f:
        f.writelines(" ".join(text.split()) + "\n" for text in texts)
    characters = len(set("".join(texts)))
    sentencepiece.SentencePieceTrainer.train(
        input=str(corpus),
        model_prefix=str(out_dir / "bpe"),
        vocab_size=max(vocab_size, characters + 4),
        model_type="bpe",
        character_coverage=1.0,
        hard_vocab_limit=False,
        minloglevel=2,
    )
    return out_dir / "bpe.model"
