"""Utterance lists: what every data source hands the recipe, and their Kaldi-style files on disk.

A split directory holds ``wav.scp`` (``utt_id path``) and ``text``
(``utt_id transcript``), written with `lightscore.scp.write_scp`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from lightscore.scp import read_scp, write_scp


@dataclass(frozen=True)
class Utterance:
    """One utterance: its id, its audio file (any format soundfile reads) and its transcript."""

    utt_id: str
    audio: Path
    text: str


def write_split(split_dir: Path, utterances: Sequence[Utterance]) -> None:
    """Write ``wav.scp`` and ``text`` for ``utterances`` into ``split_dir``."""
    write_scp(split_dir / "wav.scp", [(u.utt_id, str(u.audio)) for u in utterances])
    write_scp(split_dir / "text", [(u.utt_id, u.text) for u in utterances])


def read_split(split_dir: Path) -> list[Utterance]:
    """Read a split written by `write_split`; relative audio paths are taken from ``split_dir``.

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> write_split(d, [Utterance("u1", Path("u1.wav"), "one two")])
    >>> read_split(d)[0].text
    'one two'
    """
    texts = {utt_id: text for _, utt_id, text in read_scp(split_dir / "text")}
    utterances = []
    for number, utt_id, path in read_scp(split_dir / "wav.scp"):
        if utt_id not in texts:
            raise ValueError(
                f"{split_dir / 'wav.scp'}:{number}: utterance {utt_id!r} has no line in {split_dir / 'text'}"
            )
        utterances.append(Utterance(utt_id, split_dir / path, texts[utt_id]))
    return utterances
