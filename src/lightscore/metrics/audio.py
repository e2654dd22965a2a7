"""Audio metric classes: `SignalMetrics` (VERSA-style) and `SpeakerSimilarity`.

Their class paths (``lightscore.metrics.audio.SignalMetrics``...) name their
results in ``metrics.json``. The audio inputs are SCP lines whose value is a WAV
path, read by `lightscore.audio.files.read_audio` at the metric's
``sample_rate``. The measures, listed by name in `MEASURES`
(`lightscore.audio.measures`), are the functions of
`lightscore.audio.signal` (torch: lightscore's fast approximations) and
`lightscore.audio.speech_quality` (numpy: equal to ESPnet2 and the PESQ and
STOI packages); the speaker embedders are in `lightscore.audio.embedders`.
Every state is a "sum" of fixed-point integers and a count per measure, so
merging ranks or shards gives the single-run result bit for bit. A problem with
one file is raised as `lightscore.core.metric.RowError`, so the error names the
utterance. torch and torchaudio load with this module, never with
``import lightscore.metrics``.

>>> import pathlib, tempfile
>>> import numpy as np, soundfile as sf
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> t = np.arange(16000) / 16000
>>> clean = 0.5 * np.sin(2 * np.pi * 220 * t)
>>> sf.write(d / "ref.wav", clean, 16000, subtype="FLOAT")
>>> sf.write(d / "hyp.wav", clean + 0.05 * np.cos(2 * np.pi * 1000 * t), 16000, subtype="FLOAT")
>>> _ = (d / "ref.scp").write_text(f"utt1 {d / 'ref.wav'}\\n")
>>> _ = (d / "hyp.scp").write_text(f"utt1 {d / 'hyp.wav'}\\n")
>>> result = SignalMetrics(["snr", "si_snr"])({"hyp": d / "hyp.scp", "ref": d / "ref.scp"}, "test")
>>> {name: round(value, 2) for name, value in result.items()}
{'snr': 20.0, 'si_snr': 20.0}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import torch

from lightscore._extras import require
from lightscore.audio.embedders import build_embedder, cosine_similarity
from lightscore.audio.files import read_audio
from lightscore.audio.measures import (
    FIXED_POINT,
    MEASURES,
    UNDEFINED_SUFFIX,
    check_rate,
    check_score_config,
    measure_calls,
    output_fields,
    score_utterance,
    to_fixed,
)
from lightscore.audio.third_party import import_module
from lightscore.audio.world_pitch import F0_METHODS
from lightscore.core.contract import Field, metric_name
from lightscore.core.metric import BaseMetric, RowError

# MEASURES is re-exported: it is the table of what score_config accepts.
__all__ = ["MEASURES", "AudioMetric", "SignalMetrics", "SpeakerSimilarity"]


class AudioMetric(BaseMetric):
    """What both audio metrics share: reading declared inputs and naming a row's files in errors."""

    sample_rate: int = 16000

    @staticmethod
    def files(values: Mapping[str, Sequence[str]], row: int) -> str:
        """The files of one row, for an error message.

        Args:
            values: Input name -> WAV paths of the batch.
            row: The row.

        Returns:
            ``"<input> <path>, ..."``.

        >>> AudioMetric.files({"hyp": ["h0.wav", "h1.wav"], "ref": ["r0.wav", "r1.wav"]}, 1)
        'hyp h1.wav, ref r1.wav'
        """
        return ", ".join(f"{key} {paths[row]}" for key, paths in values.items())

    def read(self, name: str, path: str, where: str) -> torch.Tensor:
        """Read input ``name``'s WAV at ``path`` as its Field's ``channels`` say, at ``self.sample_rate``.

        Args:
            name: The declared input.
            path: The WAV file.
            where: The row's files, for an error.

        Returns:
            A float32 tensor (see `lightscore.audio.files.read_audio`).

        Raises:
            ValueError: unreadable, empty or non-finite audio, or the wrong channel count.

        >>> SignalMetrics(["snr"]).read("hyp", "missing.wav", "hyp missing.wav")
        Traceback (most recent call last):
        ...
        ValueError: hyp missing.wav: cannot read missing.wav: ...
        """
        channels = next(field.channels for field in self.inputs if field.name == name)
        return read_audio(path, channels, self.sample_rate, where)


class SignalMetrics(AudioMetric):
    """Signal measures of ``hyp`` against ``ref``, chosen by ``score_config`` (VERSA-style).

    The declared outputs are the configured names (see `MEASURES` and
    docs/audio-metrics.md), each the mean over utterances of the per-utterance
    value. A measure that can be undefined (the F0 ones, STOI on under about
    0.4 s of speech) is the mean over the utterances that define it, and the
    optional output ``<name>_undefined`` counts the others when there are any
    (`lightscore.audio.measures.output_fields`). ``channels`` applies to both inputs (see `read_audio`); a
    multichannel utterance scores each channel on its own and takes the mean.
    The WORLD F0 measures (``f0_rmse_dtw``, ``f0_corr_dtw``,
    ``log_f0_rmse_dtw``, ``vde``) share one extraction per utterance.

    Args:
        score_config: Names of `MEASURES`, each once.
        sample_rate: The rate every file is resampled to and scored at (Hz);
            ``mcd_dtw`` and the WORLD F0 measures need one of ESPnet's
            mel-cepstrum rates (16000, 22050, 24000, 44100, 48000).
        channels: ``1`` (the first channel), ``None`` (all) or N (exactly N).
        f0_method: The WORLD F0 extractor: ``"harvest"`` (ESPnet2's, the
            default) or ``"dio"`` (dio + stonemask: over 20x faster, close but
            not equal to harvest's numbers).

    Raises:
        ValueError: an unknown measure or F0 method, or a rate a measure does not support.

    >>> m = SignalMetrics(["mcd_dtw", "stoi", "snr"], f0_method="dio")
    >>> [(f.name, f.optional) for f in m.outputs], [f.name for f in m.inputs]
    ([('mcd_dtw', False), ('stoi', False), ('snr', False), ('stoi_undefined', True)], ['hyp', 'ref'])
    >>> SignalMetrics(["mcd_dtw"], sample_rate=8000)
    Traceback (most recent call last):
    ...
    ValueError: SignalMetrics: mcd_dtw needs sample_rate in (16000, 22050, 24000, 44100, 48000), got 8000
    """

    def __init__(
        self,
        score_config: Sequence[str],
        sample_rate: int = 16000,
        channels: int | None = 1,
        f0_method: str = "harvest",
    ) -> None:
        require(type(self).__name__, "audio")
        self.score_config = check_score_config(score_config)
        self.sample_rate = check_rate(sample_rate)
        if f0_method not in F0_METHODS:
            raise ValueError(f"SignalMetrics: f0_method must be 'harvest' or 'dio', got {f0_method!r}")
        self.f0_method = f0_method
        for name in self.score_config:
            rates = MEASURES[name].rates
            if rates and self.sample_rate not in rates:
                raise ValueError(f"SignalMetrics: {name} needs sample_rate in {rates}, got {self.sample_rate}")
        self.calls = measure_calls(self.score_config)
        self.inputs = (Field("hyp", "audio", channels=channels), Field("ref", "audio", channels=channels))
        self.outputs = output_fields(self.score_config)
        self.add_state("utterances", 0, "sum")
        for name in self.score_config:
            self.add_state(f"{name}_sum", 0, "sum")
            self.add_state(f"{name}_count", 0, "sum")
        super().__init__()

    def update(self, *, hyp: Sequence[str], ref: Sequence[str]) -> None:
        """Read each (hyp, ref) pair of WAV paths and add its measures to the sums and counts.

        Args:
            hyp, ref: WAV paths, one per row.

        Raises:
            RowError: a file or a measure failed; the message names the files.

        >>> try:
        ...     SignalMetrics(["snr"]).update(hyp=["h.wav"], ref=["r.wav"])
        ... except RowError as e:
        ...     print(e)
        row 0 of the batch: hyp h.wav, ref r.wav: cannot read r.wav: ...
        """
        values = {"hyp": hyp, "ref": ref}
        for row in range(len(hyp)):
            where = self.files(values, row)
            try:
                ref_wave = self.read("ref", ref[row], where)
                hyp_wave = self.read("hyp", hyp[row], where)
                options = {"f0_method": self.f0_method}  # every option a Measure names (Measure.options)
                scores = score_utterance(self.calls, hyp_wave, ref_wave, self.sample_rate, options, where)
            except ValueError as e:
                raise RowError(row, str(e)) from e
            self.utterances += 1
            for name, value in scores.items():
                if value is not None:
                    setattr(self, f"{name}_sum", getattr(self, f"{name}_sum") + to_fixed(value))
                    setattr(self, f"{name}_count", getattr(self, f"{name}_count") + 1)

    def compute(self) -> dict[str, float]:
        """The mean of each configured measure over the utterances where it is defined, and who was left out.

        Returns:
            Measure name -> mean, and ``<name>_undefined`` -> how many utterances
            did not define it, for each measure with some.

        Raises:
            ValueError: nothing was scored, or a measure is undefined in every utterance.

        >>> SignalMetrics(["snr"]).compute()
        Traceback (most recent call last):
        ...
        ValueError: lightscore.metrics.audio.SignalMetrics: no utterance was scored, so there is nothing to compute
        """
        if self.utterances == 0:
            raise ValueError(f"{metric_name(self)}: no utterance was scored, so there is nothing to compute")
        result = {}
        for name in self.score_config:
            count = getattr(self, f"{name}_count")
            if count == 0:
                raise ValueError(
                    f"{metric_name(self)}: {name} is undefined in all {self.utterances} utterance(s): "
                    f"{MEASURES[name].undefined}"
                )
            result[name] = getattr(self, f"{name}_sum") / (FIXED_POINT * count)
            if count < self.utterances:
                result[name + UNDEFINED_SUFFIX] = self.utterances - count
        return result


class SpeakerSimilarity(AudioMetric):
    """Cosine similarity of speaker embeddings: ``spk_sim`` of hyp to target, ``spk_sim_ref`` of hyp to ref.

    The embedder maps a float32 waveform ``(time,)`` at ``sample_rate`` and the
    rate to a 1-D embedding (a tensor, array or list; singleton dimensions are
    squeezed). It runs under ``torch.no_grad()``. ``spk_sim_ref`` is returned
    only when ``ref`` was given.

    Args:
        embedder: ``"resemblyzer"`` (the default: Resemblyzer's GE2E encoder,
            whose weights ship in its wheel), a callable, or a ``_target_``
            config (`build_embedder`).
        sample_rate: The rate files are resampled to before embedding.

    Raises:
        TypeError: an embedder that is none of those.
        PkgResourcesError: resemblyzer cannot be imported (its webrtcvad needs ``pkg_resources``).

    >>> m = SpeakerSimilarity(lambda wave, rate: torch.stack([wave.abs().mean(), wave.std()]))
    >>> [f.name for f in m.inputs], [f.name for f in m.outputs]
    (['target', 'hyp', 'ref'], ['spk_sim', 'spk_sim_ref'])
    >>> type(SpeakerSimilarity().embedder).__name__
    'ResemblyzerEmbedder'
    """

    inputs = (Field("target", "audio"), Field("hyp", "audio"), Field("ref", "audio", optional=True))
    outputs = (
        Field("spk_sim", "number", label="Speaker similarity"),
        Field("spk_sim_ref", "number", label="Speaker similarity to ref", optional=True),
    )

    def __init__(self, embedder: Any = "resemblyzer", sample_rate: int = 16000) -> None:
        if embedder == "resemblyzer":
            require(type(self).__name__, "speaker")
            # resemblyzer's webrtcvad may need pkg_resources: say so now, not at the first utterance
            import_module("resemblyzer", type(self).__name__)
        self.embedder = build_embedder(embedder)
        self.sample_rate = check_rate(sample_rate)
        for name in ("spk_sim_sum", "spk_sim_count", "spk_sim_ref_sum", "spk_sim_ref_count"):
            self.add_state(name, 0, "sum")
        super().__init__()

    def embed(self, name: str, path: str, where: str) -> torch.Tensor:
        """The embedding of input ``name``'s WAV at ``path``, as a 1-D float64 tensor.

        Args:
            name: The declared input.
            path: The WAV file.
            where: The row's files, put before an error.

        Returns:
            The embedding.

        Raises:
            ValueError: unreadable audio, or an embedding that is not one finite 1-D vector.

        >>> import pathlib, tempfile
        >>> import numpy as np, soundfile as sf
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.wav"
        >>> sf.write(p, np.full(1600, 0.5), 16000)
        >>> SpeakerSimilarity(lambda wave, rate: [wave.mean(), 2.0]).embed("hyp", str(p), "hyp a.wav")
        tensor([0.5000, 2.0000], dtype=torch.float64)
        """
        wave = self.read(name, path, where)
        with torch.no_grad():
            out = self.embedder(wave, self.sample_rate)
        embedding = torch.as_tensor(out.detach() if isinstance(out, torch.Tensor) else out).double().squeeze()
        if embedding.ndim != 1 or not torch.isfinite(embedding).all():
            raise ValueError(
                f"{where}: the embedder returned {tuple(embedding.shape)} for {name}; "
                "it must return one finite 1-D embedding"
            )
        return embedding

    def update(self, *, target: Sequence[str], hyp: Sequence[str], ref: Sequence[str] | None = None) -> None:
        """Embed each row's target, hyp (and ref) and add the cosine similarities.

        Args:
            target, hyp, ref: WAV paths, one per row (``ref`` optional).

        Raises:
            RowError: a file or an embedding failed; the message names the files.

        >>> m = SpeakerSimilarity(lambda wave, rate: [1.0, 0.0])
        >>> try:
        ...     m.update(target=["t.wav"], hyp=["h.wav"])
        ... except RowError as e:
        ...     print(e)
        row 0 of the batch: target t.wav, hyp h.wav: cannot read t.wav: ...
        """
        values = {"target": target, "hyp": hyp} if ref is None else {"target": target, "hyp": hyp, "ref": ref}
        for row in range(len(hyp)):
            where = self.files(values, row)
            try:
                embeddings = {name: self.embed(name, paths[row], where) for name, paths in values.items()}
                similarity = cosine_similarity(embeddings["hyp"], embeddings["target"], where)
                similarity_ref = cosine_similarity(embeddings["hyp"], embeddings["ref"], where) if ref else None
            except ValueError as e:
                raise RowError(row, str(e)) from e
            self.spk_sim_sum += to_fixed(similarity)
            self.spk_sim_count += 1
            if similarity_ref is not None:
                self.spk_sim_ref_sum += to_fixed(similarity_ref)
                self.spk_sim_ref_count += 1

    def compute(self) -> dict[str, float]:
        """Mean similarities; ``spk_sim_ref`` only when some utterance had a ref.

        Returns:
            ``{"spk_sim": mean}``, plus ``"spk_sim_ref"`` when refs were scored.

        Raises:
            ValueError: nothing was scored.

        >>> m = SpeakerSimilarity(lambda wave, rate: [1.0, 0.0])
        >>> m.load_state({"spk_sim_sum": 2 * FIXED_POINT, "spk_sim_count": 4, "spk_sim_ref_sum": 0,
        ...               "spk_sim_ref_count": 0})
        >>> m.compute()
        {'spk_sim': 0.5}
        """
        if self.spk_sim_count == 0:
            raise ValueError(f"{metric_name(self)}: no utterance was scored, so there is nothing to compute")
        result = {"spk_sim": self.spk_sim_sum / (FIXED_POINT * self.spk_sim_count)}
        if self.spk_sim_ref_count:
            result["spk_sim_ref"] = self.spk_sim_ref_sum / (FIXED_POINT * self.spk_sim_ref_count)
        return result
