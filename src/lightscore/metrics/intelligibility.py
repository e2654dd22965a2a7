"""`Intelligibility`: recognize each synthesized WAV and score the transcript against the text with WER or CER.

Its class path names its results in ``metrics.json``. Each hypothesis WAV goes
through a pluggable recognizer (`lightscore.audio.recognizers`: PocketSphinx's
shipped English model by default, or a callable, or a checked ``_target_``),
and the transcripts are scored by an inner `lightscore.metrics.error_rate.WER`
or ``CER``: every error-rate option works (aligner, normalizer, case,
per-utterance records, confidence intervals), and the state is that error
rate's "sum" counts, so the corpus number is the pooled counts, exact on N
ranks (what VERSA's and ESPnet's per-utterance ``whisper_wer`` leave to the
user). The recognized text is not kept, so no alignment file or report is
written.

>>> import pathlib, tempfile
>>> import numpy as np, soundfile as sf
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> sf.write(d / "hyp.wav", np.zeros(1600), 16000)
>>> _ = (d / "ref.scp").write_text("utt1 hello world\\n")
>>> _ = (d / "hyp.scp").write_text(f"utt1 {d / 'hyp.wav'}\\n")
>>> metric = Intelligibility(recognizer=lambda wave, rate: "hello word")
>>> metric({"ref": d / "ref.scp", "hyp": d / "hyp.scp"}, "test")["WER"]
50.0
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from lightscore._extras import require
from lightscore.audio.checks import check_rate
from lightscore.audio.files import read_wave
from lightscore.audio.recognizers import build_recognizer
from lightscore.core.contract import Field
from lightscore.core.metric import BaseMetric, RowError
from lightscore.metrics.error_rate import CER, WER

__all__ = ["RATES", "Intelligibility"]

RATES = {"WER": WER, "CER": CER}
NO_ARTIFACTS = ("alignment", "reports", "report_html")


def recognizer_name(recognizer: Any) -> str:
    """A short name of a recognizer option, for `Intelligibility.settings`.

    >>> recognizer_name("pocketsphinx"), recognizer_name({"_target_": "my.asr.Whisper", "size": "small"})
    ('pocketsphinx', 'my.asr.Whisper')
    """
    if isinstance(recognizer, str):
        return recognizer
    if isinstance(recognizer, Mapping):
        return str(recognizer.get("_target_"))
    return getattr(recognizer, "__qualname__", type(recognizer).__qualname__)


class Intelligibility(BaseMetric):
    """WER or CER of a recognizer's transcripts of ``hyp`` (WAVs) against ``ref`` (text).

    The recognizer gets each file's first channel as a float32 numpy array at
    ``sample_rate`` and returns its text. The results are the error rate's own
    (``WER``, ``WER_sub``... and, with ``ci``, the interval).

    Args:
        recognizer: ``"pocketsphinx"`` (the default), a callable ``(wave, sample_rate) -> text``,
            or a ``_target_`` config (`lightscore.audio.recognizers.build_recognizer`).
        rate: ``"WER"`` (default) or ``"CER"``.
        sample_rate: The rate files are resampled to for the recognizer (PocketSphinx: 16000).
        **options: The error rate's options (`lightscore.metrics.error_rate_base.ErrorRate`): case,
            aligner, normalize, substitutions, fillers, per_utterance, ci, bootstrap, seed,
            block_bootstrap, utt2spk. ``alignment``, ``reports`` and ``report_html`` are refused:
            the transcripts are not kept.

    Raises:
        TypeError, ValueError: an unknown rate or recognizer, a refused ``_target_``, an artifact
            option, or an error-rate option as `ErrorRate` checks it.

    >>> m = Intelligibility(recognizer=lambda wave, rate: "", rate="CER", case="fold", ci=0.95)
    >>> m.settings()
    'Intelligibility recognizer=<lambda> sample_rate=16000 CER case=fold aligner=unit normalize=none ci=0.95 ...'
    >>> Intelligibility(reports=True)
    Traceback (most recent call last):
    ...
    ValueError: Intelligibility: reports is not supported: the recognized text is not kept, so no alignment ...
    """

    inputs = (Field("ref", "text"), Field("hyp", "audio"))

    def __init__(
        self, recognizer: Any = "pocketsphinx", rate: str = "WER", sample_rate: int = 16000, **options: Any
    ) -> None:
        require(type(self).__name__, "quality", "soundfile", "torch", "torchaudio")
        if recognizer == "pocketsphinx":
            require(type(self).__name__, "quality", "pocketsphinx")
        if rate not in RATES:
            raise ValueError(f"Intelligibility: rate must be one of {', '.join(RATES)}, got {rate!r}")
        for option in NO_ARTIFACTS:
            if options.get(option):
                raise ValueError(
                    f"Intelligibility: {option} is not supported: the recognized text is not kept, so no alignment "
                    "or report is written"
                )
        self.scorer = RATES[rate](**{**options, "alignment": False})
        self.recognizer_option = recognizer_name(recognizer)
        self.recognizer = build_recognizer(recognizer, "Intelligibility: recognizer")
        self.sample_rate = check_rate(sample_rate)
        self.outputs = self.scorer.outputs
        super().__init__()

    # The state is the inner error rate's: its counts merge exactly, and its options apply unchanged.
    def reset(self) -> None:
        self.scorer.reset()

    def state(self) -> dict[str, Any]:
        return self.scorer.state()

    def merge_states(self, states: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        return self.scorer.merge_states(states)

    def load_state(self, state: Mapping[str, Any]) -> None:
        self.scorer.load_state(state)

    def transcribe(self, path: str, where: str) -> str:
        """The recognizer's text for the WAV at ``path``.

        Raises:
            ValueError: an unreadable, empty or non-finite file, a recognizer failure, or a
                result that is not a string; the message starts with ``where``.
        """
        wave = read_wave(path, 1, self.sample_rate, where)
        try:
            text = self.recognizer(wave, self.sample_rate)
        except (ValueError, RuntimeError) as e:
            raise ValueError(f"{where}: the recognizer failed: {e}") from e
        if not isinstance(text, str):
            raise ValueError(f"{where}: the recognizer returned {type(text).__name__}, not text")
        return text

    def update(self, *, ref: Sequence[str], hyp: Sequence[str]) -> None:
        """Recognize each hypothesis WAV and add the error counts of its transcript against ``ref``.

        Args:
            ref: Reference texts.
            hyp: WAV paths, one per reference.

        Raises:
            RowError: a file or the recognizer failed (naming the file).
            ValueError: as the error rate's ``update`` (e.g. per-utterance counts without ids).
        """
        texts = []
        for row, path in enumerate(hyp):
            try:
                texts.append(self.transcribe(path, f"hyp {path}"))
            except ValueError as e:
                raise RowError(row, str(e)) from e
        with self.scorer.feeding(self.batch_utt_ids):
            self.scorer.update(ref=list(ref), hyp=texts)

    def compute(self) -> dict[str, float]:
        """The error rate's result: the rate from the pooled counts, the counts, and the interval with ``ci``."""
        return self.scorer.compute()

    def utterance_records(self) -> list[Any]:
        """The error rate's per-utterance counts (needs ``per_utterance`` or ``ci``)."""
        return self.scorer.utterance_records()

    def settings(self) -> str:
        """One line naming the recognizer, the rate and the error rate's settings."""
        return f"Intelligibility recognizer={self.recognizer_option} sample_rate={self.sample_rate} " + (
            self.scorer.settings()
        )
