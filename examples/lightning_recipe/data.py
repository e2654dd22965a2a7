"""From utterances to batches: characters to ids, audio to log-mel filterbanks.

Audio is read with soundfile (torchaudio 2.9 no longer reads files),
resampled with torchaudio when needed, and turned into Kaldi-compatible
filterbank features with ``torchaudio.compliance.kaldi.fbank``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import soundfile
import torch
import torchaudio
from torch.utils.data import Dataset

from .corpus import Utterance

FEATURE_RATE = 16000
NUM_MEL_BINS = 40


class CharTokenizer:
    """Characters to CTC label ids and back; id 0 is the CTC blank.

    >>> tok = CharTokenizer.from_texts(["one two", "nine"])
    >>> tok.encode("one"), tok.decode(tok.encode("two one"))
    ([5, 4, 2], 'two one')
    """

    blank = 0

    def __init__(self, chars: Sequence[str]) -> None:
        self.chars = list(chars)
        self.ids = {c: i + 1 for i, c in enumerate(self.chars)}

    @classmethod
    def from_texts(cls, texts: Iterable[str]) -> CharTokenizer:
        """A tokenizer over every character of ``texts``, in sorted order (so the same texts give the same ids)."""
        return cls(sorted(set("".join(" ".join(t.split()) for t in texts))))

    def __len__(self) -> int:
        """The number of CTC outputs: the characters plus the blank."""
        return len(self.chars) + 1

    def encode(self, text: str) -> list[int]:
        unknown = set(text) - set(self.ids)
        if unknown:
            raise ValueError(f"text {text!r} has characters outside the vocabulary: {''.join(sorted(unknown))!r}")
        return [self.ids[c] for c in " ".join(text.split())]

    def decode(self, ids: Iterable[int]) -> str:
        """Ids to text, with runs of spaces squeezed and the ends stripped (blanks must be gone already)."""
        return " ".join("".join(self.chars[i - 1] for i in ids).split())


def load_audio(path: str) -> torch.Tensor:
    """Read ``path`` with soundfile as a mono float waveform at `FEATURE_RATE`."""
    wave, rate = soundfile.read(path, dtype="float32", always_2d=True)
    wave = torch.from_numpy(wave).mean(dim=1)
    if rate != FEATURE_RATE:
        wave = torchaudio.functional.resample(wave, rate, FEATURE_RATE)
    return wave


def fbank(wave: torch.Tensor) -> torch.Tensor:
    """Log-mel filterbanks (frames x `NUM_MEL_BINS`, 25 ms windows every 10 ms), normalised per utterance.

    Normalising each utterance by its own mean and deviation makes a feature
    independent of the batch it lands in, so one and two devices decode alike.

    >>> fbank(torch.zeros(16000) + 0.01 * torch.randn(16000)).shape
    torch.Size([98, 40])
    """
    feats = torchaudio.compliance.kaldi.fbank(
        wave.unsqueeze(0) * 32768, num_mel_bins=NUM_MEL_BINS, sample_frequency=FEATURE_RATE, dither=0.0
    )
    return (feats - feats.mean(dim=0)) / (feats.std(dim=0) + 1e-5)


class SpeechDataset(Dataset):
    """Utterances as ``{"utt_id", "feats", "labels", "text"}`` items; features are computed once and kept in memory.

    Without a tokenizer (validation and test data, whose references may hold
    characters the training data lacks) the labels are empty.
    """

    def __init__(self, utterances: Sequence[Utterance], tokenizer: CharTokenizer | None = None) -> None:
        self.utterances = list(utterances)
        self.tokenizer = tokenizer
        self._feats: dict[int, torch.Tensor] = {}

    def __len__(self) -> int:
        return len(self.utterances)

    def __getitem__(self, index: int) -> dict:
        utt = self.utterances[index]
        if index not in self._feats:
            self._feats[index] = fbank(load_audio(str(utt.audio)))
        text = " ".join(utt.text.split())
        labels = self.tokenizer.encode(text) if self.tokenizer is not None else []
        return {"utt_id": utt.utt_id, "feats": self._feats[index], "labels": labels, "text": text}


def collate(items: Sequence[dict]) -> dict:
    """Pad a list of dataset items into one batch, keeping the lengths, ids and texts.

    >>> items = [{"utt_id": "u1", "feats": torch.ones(3, 2), "labels": [1, 2], "text": "ab"},
    ...          {"utt_id": "u2", "feats": torch.ones(5, 2), "labels": [1], "text": "a"}]
    >>> batch = collate(items)
    >>> batch["feats"].shape, batch["feat_lens"].tolist(), batch["labels"].tolist()
    (torch.Size([2, 5, 2]), [3, 5], [[1, 2], [1, 0]])
    """
    feats = [item["feats"] for item in items]
    labels = [torch.tensor(item["labels"], dtype=torch.long) for item in items]
    return {
        "utt_id": [item["utt_id"] for item in items],
        "text": [item["text"] for item in items],
        "feats": torch.nn.utils.rnn.pad_sequence(feats, batch_first=True),
        "feat_lens": torch.tensor([len(f) for f in feats]),
        "labels": torch.nn.utils.rnn.pad_sequence(labels, batch_first=True),
        "label_lens": torch.tensor([len(lab) for lab in labels]),
    }
