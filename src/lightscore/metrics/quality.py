"""Non-intrusive quality metrics (hypothesis only, no reference): `DNSMOS` and `PLCMOS`.

Their class paths name their results in ``metrics.json``. The numbers are
`lightscore.audio.mos`'s, equal to ``speechmos.dnsmos.run`` and
``speechmos.plcmos.run`` on the same 16 kHz audio; the ONNX sessions are made
once per process. Each per-utterance value is summed as a fixed-point integer
(`lightscore.audio.fixed_point.to_fixed`), so N ranks or shards give the
single-run means bit for bit. A silent, non-finite, too short (under 0.5 s) or
out-of-range file is a `lightscore.core.batch.RowError` naming the utterance
and the file: it never gets a score.

>>> import pathlib, tempfile
>>> import numpy as np, soundfile as sf
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> t = np.arange(80000) / 16000
>>> sf.write(d / "hyp.wav", 0.3 * np.sin(2 * np.pi * 220 * t), 16000)
>>> _ = (d / "hyp.scp").write_text(f"utt1 {d / 'hyp.wav'}\\n")
>>> result = DNSMOS()({"hyp": d / "hyp.scp"}, "test")
>>> {name: round(value, 2) for name, value in result.items()}  # a pure tone is poor speech
{'dnsmos_sig': 1.24, 'dnsmos_bak': 0.99, 'dnsmos_ovrl': 0.96, 'dnsmos_p808': 2.26}
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from lightscore._extras import require
from lightscore.audio import mos
from lightscore.audio.fixed_point import FIXED_POINT, to_fixed
from lightscore.core.contract import Field, metric_name
from lightscore.core.metric import BaseMetric, RowError

__all__ = ["DNSMOS", "PLCMOS", "QualityMetric"]


class QualityMetric(BaseMetric):
    """What `DNSMOS` and `PLCMOS` share: one audio input, fixed-point sums, per-utterance records.

    A subclass sets ``keys`` (the output names) and ``score`` (one 16 kHz clip -> a value per key).

    Args:
        resample: How a file at another rate becomes 16 kHz: ``"torchaudio"`` (default),
            ``"librosa"`` (speechmos' own file loading) or ``"none"`` (refused); see
            `lightscore.audio.mos.load_16k`.
        threads: ONNX Runtime threads per process (0: onnxruntime's choice, all cores).
        per_utterance: Keep ``(utt_id, value...)`` per utterance (a "cat" state), read by
            `utterance_records`.

    Raises:
        ValueError: an unknown ``resample`` or a bad ``threads``.
    """

    inputs = (Field("hyp", "audio"),)
    keys: ClassVar[tuple[str, ...]] = ()

    def __init__(self, resample: str = "torchaudio", threads: int = 1, per_utterance: bool = False) -> None:
        name = type(self).__name__
        require(name, "quality")
        if resample not in mos.RESAMPLERS:
            raise ValueError(f"{name}: resample must be one of {', '.join(mos.RESAMPLERS)}, got {resample!r}")
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 0:
            raise ValueError(f"{name}: threads must be an int >= 0 (0: onnxruntime's choice), got {threads!r}")
        if not isinstance(per_utterance, bool):
            raise TypeError(f"{name}: per_utterance must be a bool, got {per_utterance!r}")
        self.resample = resample
        self.threads = threads
        self.per_utterance = per_utterance
        self.add_state("utterances", 0, "sum")
        for key in self.keys:
            self.add_state(f"{key}_sum", 0, "sum")
        if per_utterance:
            self.add_state("utterance_scores", [], "cat")
        super().__init__()

    def score(self, wave: np.ndarray) -> dict[str, float]:
        """Each of ``keys`` for one 16 kHz clip; a subclass defines it."""
        raise NotImplementedError

    def update(self, *, hyp: Sequence[str]) -> None:
        """Read each hypothesis WAV, score it and add its values to the sums.

        Args:
            hyp: WAV paths, one per row.

        Raises:
            RowError: an unreadable, silent, too short or out-of-range file, or one the models run out of
                memory on (naming it), or per-utterance records asked for without the batch's utterance ids.
        """
        ids = self.batch_utt_ids
        if self.per_utterance and ids is None:
            raise ValueError(
                f"{type(self).__name__}: per-utterance records need the utterance ids of every batch: "
                "feed(metric, batch, ids)"
            )
        for row, path in enumerate(hyp):
            where = f"hyp {path}"
            try:
                scores = self.score(mos.load_16k(path, self.resample, where))
            except (ValueError, MemoryError) as e:
                # numpy's MemoryError names only the array it could not allocate: the row names the clip
                problem = f"out of memory: {e}" if isinstance(e, MemoryError) else str(e)
                message = problem if problem.startswith(where) else f"{where}: {problem}"
                raise RowError(row, message) from e
            self.utterances += 1
            for key in self.keys:
                setattr(self, f"{key}_sum", getattr(self, f"{key}_sum") + to_fixed(scores[key]))
            if self.per_utterance:
                self.utterance_scores.append((ids[row], *(scores[key] for key in self.keys)))

    def compute(self) -> dict[str, float]:
        """The mean of each key over the utterances.

        Raises:
            ValueError: nothing was scored.
        """
        if self.utterances == 0:
            raise ValueError(f"{metric_name(self)}: no utterance was scored, so there is nothing to compute")
        return {key: getattr(self, f"{key}_sum") / (FIXED_POINT * self.utterances) for key in self.keys}

    def utterance_records(self) -> list[dict[str, Any]]:
        """The per-utterance values (merged, after ``load_state``), sorted by utterance id.

        Returns:
            ``{"utt_id": ..., key: value, ...}`` per utterance.

        Raises:
            ValueError: built without ``per_utterance``.
        """
        if not self.per_utterance:
            raise ValueError(
                f"{type(self).__name__}: no per-utterance values are kept; build it with per_utterance=True"
            )
        records = [dict(zip(("utt_id", *self.keys), record)) for record in self.utterance_scores]
        return sorted(records, key=lambda record: record["utt_id"])

    def settings(self) -> str:
        """One line naming what changes the number (model, options, speechmos' version)."""
        from importlib.metadata import version

        return " ".join([type(self).__name__, *self._model_settings(), f"speechmos={version('speechmos')}"])

    def _model_settings(self) -> list[str]:
        return [f"resample={self.resample}"]


class DNSMOS(QualityMetric):
    """DNSMOS P.835 (``dnsmos_sig``, ``dnsmos_bak``, ``dnsmos_ovrl``) and P.808 (``dnsmos_p808``) of ``hyp``.

    Each is the mean over utterances of `lightscore.audio.mos.dnsmos`.

    Args:
        personalized: The personalized DNSMOS model (speechmos' ``model_type="dnsmos_personalized"``).
        hop_seconds: Seconds between the 9.01 s windows of a clip (1.0: speechmos').
        **options: as `QualityMetric` (resample, threads, per_utterance).

    Raises:
        ValueError: a ``hop_seconds`` that is not positive, or as `QualityMetric`.

    >>> DNSMOS(personalized=True).settings()
    'DNSMOS personalized=True hop_seconds=1.0 resample=torchaudio speechmos=0.0.1.1'
    >>> DNSMOS(hop_seconds=0)
    Traceback (most recent call last):
    ...
    ValueError: DNSMOS: hop_seconds must be a number > 0, got 0
    """

    keys = ("dnsmos_sig", "dnsmos_bak", "dnsmos_ovrl", "dnsmos_p808")
    outputs = (
        Field("dnsmos_sig", "number", label="DNSMOS SIG"),
        Field("dnsmos_bak", "number", label="DNSMOS BAK"),
        Field("dnsmos_ovrl", "number", label="DNSMOS OVRL"),
        Field("dnsmos_p808", "number", label="DNSMOS P.808"),
    )

    def __init__(self, personalized: bool = False, hop_seconds: float = 1.0, **options: Any) -> None:
        if not isinstance(personalized, bool):
            raise TypeError(f"DNSMOS: personalized must be a bool, got {personalized!r}")
        if isinstance(hop_seconds, bool) or not isinstance(hop_seconds, (int, float)) or not hop_seconds > 0:
            raise ValueError(f"DNSMOS: hop_seconds must be a number > 0, got {hop_seconds!r}")
        self.personalized = personalized
        self.hop_seconds = float(hop_seconds)
        super().__init__(**options)

    def score(self, wave: np.ndarray) -> dict[str, float]:
        """`lightscore.audio.mos.dnsmos` of one clip, under the output names."""
        values = mos.dnsmos(wave, self.personalized, self.threads, self.hop_seconds)
        return {f"dnsmos_{key}": values[key] for key in mos.DNSMOS_KEYS}

    def _model_settings(self) -> list[str]:
        return [f"personalized={self.personalized}", f"hop_seconds={self.hop_seconds}", *super()._model_settings()]


class PLCMOS(QualityMetric):
    """PLCMOS v2 (``plcmos``) of ``hyp``: the mean over utterances of `lightscore.audio.mos.plcmos`.

    Args:
        seed: Seed of the 15 rater embeddings, the same for every utterance, so a clip
            scores the same on any rank and in any order.
        **options: as `QualityMetric` (resample, threads, per_utterance).

    Raises:
        TypeError: a ``seed`` that is not an int.

    >>> PLCMOS(seed=3).settings()
    'PLCMOS seed=3 resample=torchaudio speechmos=0.0.1.1'
    """

    keys = ("plcmos",)
    outputs = (Field("plcmos", "number", label="PLCMOS"),)

    def __init__(self, seed: int = 0, **options: Any) -> None:
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise TypeError(f"PLCMOS: seed must be an int, got {seed!r}")
        self.seed = seed
        super().__init__(**options)

    def score(self, wave: np.ndarray) -> dict[str, float]:
        """`lightscore.audio.mos.plcmos` of one clip."""
        return {"plcmos": mos.plcmos(wave, self.seed, self.threads)}

    def _model_settings(self) -> list[str]:
        return [f"seed={self.seed}", *super()._model_settings()]
