"""Tiny datasets and metrics that the measure / CLI tests build from ``_target_`` configs.

Importable as ``fixtures_datasets`` (pytest puts ``tests/`` on sys.path; the
subprocess tests add it to PYTHONPATH).

>>> TextDataset({"u1": "the cat"})[0]
{'utt_id': 'u1', 'text': 'the cat'}
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import soundfile
from example_metrics import WordCount

from lightscore import BaseMetric, Field


class TextDataset:
    """A map-style dataset of ``{id_key: utt_id, "text": text}`` items; counts how often it is built."""

    builds = 0

    def __init__(self, texts: dict[str, str], id_key: str = "utt_id") -> None:
        TextDataset.builds += 1
        self.items = [{id_key: utt_id, "text": text} for utt_id, text in texts.items()]

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, index: int) -> dict:
        return self.items[index]


def tone(freq: float, rate: int, seconds: float, channels: int = 1) -> np.ndarray:
    """A sine at ``freq`` Hz, amplitude 0.5, shape (time,) or (channels, time).

    >>> tone(440, 8000, 0.5).shape, tone(440, 8000, 0.5, channels=2).shape
    ((4000,), (2, 4000))
    """
    wave = 0.5 * np.sin(2 * np.pi * freq * np.arange(int(rate * seconds)) / rate)
    return wave if channels == 1 else np.stack([wave] * channels)


class ToneDataset:
    """Items ``{"utt_id", "speech", "text"}`` whose speech is a tone, in one of the accepted audio forms.

    ``form``: "tuple" (numpy waveform, rate), "dict" ({"array", "sampling_rate"}, as Hugging Face
    datasets give it) or "torch" (torch tensor, rate).
    """

    def __init__(
        self,
        ids: Sequence[str],
        rate: int = 8000,
        freq: float = 440.0,
        seconds: float = 0.5,
        form: str = "tuple",
        channels: int = 1,
    ) -> None:
        self.ids, self.rate, self.freq, self.seconds = list(ids), rate, freq, seconds
        self.form, self.channels = form, channels

    def __len__(self) -> int:
        return len(self.ids)

    def __getitem__(self, index: int) -> dict:
        wave = tone(self.freq, self.rate, self.seconds, self.channels).astype(np.float32)
        if self.form == "dict":
            speech = {"array": wave, "sampling_rate": self.rate}
        elif self.form == "torch":
            import torch

            speech = (torch.from_numpy(wave), self.rate)
        else:
            speech = (wave, self.rate)
        return {"utt_id": self.ids[index], "speech": speech, "text": "a tone"}


class AudioSeconds(BaseMetric):
    """Reads each WAV path with soundfile: total seconds, files and the highest sample rate seen."""

    inputs = (Field("speech", "audio"),)
    outputs = (Field("seconds", "number"), Field("files", "number"))

    def __init__(self) -> None:
        self.add_state("seconds", 0.0, "sum")
        self.add_state("files", 0, "sum")
        super().__init__()

    def update(self, *, speech: Sequence[str]) -> None:
        for path in speech:
            info = soundfile.info(path)
            self.seconds += info.frames / info.samplerate
            self.files += 1

    def compute(self) -> dict[str, float]:
        return {"seconds": self.seconds, "files": self.files}


class Failing(BaseMetric):
    """Reads hyp, then fails in compute."""

    inputs = (Field("hyp", "text"),)
    outputs = (Field("score", "number"),)

    def update(self, *, hyp: Sequence[str]) -> None:
        pass

    def compute(self) -> dict[str, float]:
        raise RuntimeError("the scorer broke")


class BreaksContract(Failing):
    """Passes the check at construction, then empties its outputs."""

    def __init__(self) -> None:
        super().__init__()
        self.outputs = ()


class NotAMetric:
    """Has a contract but is no BaseMetric."""

    inputs = (Field("hyp", "text"),)
    outputs = (Field("score", "number"),)


class LocksTheFolder(WordCount):
    """Counts hyp words, then makes inference_dir read-only while writing its artifacts (a disk that fills up)."""

    def write_artifacts(self, test_dir) -> None:
        test_dir.parent.chmod(0o555)


class ArtifactsFail(LocksTheFolder):
    """Counts hyp words; writing its artifacts fails (a full disk), after it was scored."""

    def write_artifacts(self, test_dir) -> None:
        raise OSError(28, "No space left on device")
