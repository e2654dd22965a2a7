"""Read a corpus in LibriSpeech layout: ``<root>/<split>/<speaker>/<chapter>/``.

Each chapter folder holds ``<speaker>-<chapter>.trans.txt`` (one
``<utt_id> <TRANSCRIPT>`` line per utterance) and one
``<utt_id>.flac`` per line, where ``<utt_id>`` is
``<speaker>-<chapter>-<number>``. The audio is read later, with soundfile.
"""

from __future__ import annotations

from pathlib import Path

from lightscore.scp import read_scp

from .corpus import Utterance


def read_chapter(transcript: Path) -> list[Utterance]:
    """The utterances one ``*.trans.txt`` file lists, each with its ``.flac`` beside it."""
    utterances = []
    for number, utt_id, text in read_scp(transcript):
        audio = transcript.parent / f"{utt_id}.flac"
        if not audio.is_file():
            raise FileNotFoundError(f"{transcript}:{number}: utterance {utt_id!r} has no audio file {audio}")
        if not text:
            raise ValueError(f"{transcript}:{number}: utterance {utt_id!r} has an empty transcript")
        utterances.append(Utterance(utt_id, audio, text))
    return utterances


def read_librispeech(root: Path, split: str) -> list[Utterance]:
    """Every utterance of ``<root>/<split>``, sorted by utterance id.

    >>> read_librispeech(Path("/nonexistent"), "dev-clean")
    Traceback (most recent call last):
    ...
    FileNotFoundError: /nonexistent/dev-clean: no LibriSpeech split here (expected <spk>/<chapter>/*.trans.txt)
    """
    split_dir = Path(root) / split
    transcripts = sorted(split_dir.glob("*/*/*.trans.txt"))
    if not transcripts:
        raise FileNotFoundError(f"{split_dir}: no LibriSpeech split here (expected <spk>/<chapter>/*.trans.txt)")
    utterances = [utt for transcript in transcripts for utt in read_chapter(transcript)]
    return sorted(utterances, key=lambda u: u.utt_id)
