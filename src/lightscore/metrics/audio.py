"""Audio metric classes: `SignalMetrics` (VERSA-style) and `SpeakerSimilarity`.

The audio inputs are SCP lines whose value is a WAV path, read by
`lightscore.metrics.signal.read_audio` at the metric's ``sample_rate``; the
measures themselves are the functions of `lightscore.metrics.signal`. Every
state is a "sum" of fixed-point integers and a count per measure, so merging
ranks or shards gives the single-run result bit for bit. A problem with one
file is raised as `lightscore.metric.RowError`, so the error names the
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

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

import torch

from ..contract import Field, metric_name
from ..metric import BaseMetric, RowError
from .signal import f0_corr, f0_rmse, lsd, mcd, read_audio, sdr, si_snr, snr, trim_to_common_length

__all__ = [
    "FIXED_POINT",
    "MEASURES",
    "AudioMetric",
    "Measure",
    "SignalMetrics",
    "SpeakerSimilarity",
    "build_embedder",
    "check_rate",
    "check_score_config",
    "cosine_similarity",
    "to_fixed",
]

FIXED_POINT = 2**32
"""Per-utterance values are summed as ``round(value * FIXED_POINT)``: integer sums do not depend on order."""


class Measure(NamedTuple):
    """One measure `SignalMetrics` can compute; ``undefined`` says when it has no value."""

    function: Callable[[torch.Tensor, torch.Tensor, int], float | None]
    needs_ref: bool
    label: str
    undefined: str = ""


MEASURES: dict[str, Measure] = {
    "si_snr": Measure(si_snr, True, "SI-SNR (dB)"),
    "snr": Measure(snr, True, "SNR (dB)"),
    "sdr": Measure(sdr, True, "SDR (dB)"),
    "lsd": Measure(lsd, True, "LSD"),
    "mcd": Measure(mcd, True, "MCD (dB)"),
    "f0_rmse": Measure(f0_rmse, True, "F0 RMSE (Hz)", "no frame is voiced in both hyp and ref"),
    "f0_corr": Measure(f0_corr, True, "F0 correlation", "F0 does not vary over two or more frames voiced in both"),
}


def check_score_config(score_config: Iterable[str]) -> list[str]:
    """Return the measure names of ``score_config``; an unknown or repeated one is a ValueError.

    >>> check_score_config(["snr", "mcd"])
    ['snr', 'mcd']
    >>> check_score_config(["snr", "pesq"])
    Traceback (most recent call last):
    ...
    ValueError: SignalMetrics: unknown measure(s) 'pesq' in score_config; known: si_snr, snr, sdr, lsd, mcd, ...
    """
    if isinstance(score_config, (str, bytes)) or not isinstance(score_config, Iterable):
        raise TypeError(f"SignalMetrics: score_config must be a list of measure names, got {score_config!r}")
    names = [str(name) for name in score_config]
    unknown = [name for name in names if name not in MEASURES]
    if unknown:
        raise ValueError(
            f"SignalMetrics: unknown measure(s) {', '.join(map(repr, unknown))} in score_config; "
            f"known: {', '.join(MEASURES)}"
        )
    if not names or len(set(names)) != len(names):
        raise ValueError(f"SignalMetrics: score_config must name each measure once, at least one, got {names}")
    return names


def check_rate(sample_rate: Any) -> int:
    """Return ``sample_rate`` if it is a positive int, else raise ValueError.

    >>> check_rate(16000)
    16000
    """
    if isinstance(sample_rate, bool) or not isinstance(sample_rate, int) or sample_rate <= 0:
        raise ValueError(f"sample_rate must be a positive int (Hz), got {sample_rate!r}")
    return sample_rate


def to_fixed(value: float) -> int:
    """``value`` as an integer count of 1 / `FIXED_POINT` (about 2.3e-10).

    Float addition depends on the order, integer addition does not: summed this
    way, shards merged in any order give exactly the single-run mean.

    >>> to_fixed(0.5), to_fixed(-1.0) / FIXED_POINT
    (2147483648, -1.0)
    """
    return round(value * FIXED_POINT)


# -- metrics -----------------------------------------------------------------------


class AudioMetric(BaseMetric):
    """What both audio metrics share: reading declared inputs and naming a row's files in errors."""

    sample_rate: int = 16000

    @staticmethod
    def files(values: Mapping[str, Sequence[str]], row: int) -> str:
        """The files of one row, for an error message.

        >>> AudioMetric.files({"hyp": ["h0.wav", "h1.wav"], "ref": ["r0.wav", "r1.wav"]}, 1)
        'hyp h1.wav, ref r1.wav'
        """
        return ", ".join(f"{key} {paths[row]}" for key, paths in values.items())

    def read(self, name: str, path: str, where: str) -> torch.Tensor:
        """Read input ``name``'s WAV at ``path`` as its Field's ``channels`` say, at ``self.sample_rate``."""
        channels = next(field.channels for field in self.inputs if field.name == name)
        return read_audio(path, channels, self.sample_rate, where)


class SignalMetrics(AudioMetric):
    """Signal measures of ``hyp`` against ``ref``, chosen by ``score_config`` (VERSA-style).

    The declared outputs are exactly the configured names, each the mean over
    utterances of the per-utterance value (f0 measures: over the utterances
    where they are defined). ``channels`` applies to both inputs (see
    `read_audio`); a multichannel utterance scores each channel on its own and
    takes the mean.

    >>> m = SignalMetrics(["mcd", "snr"])
    >>> [f.name for f in m.outputs], [(f.name, f.optional) for f in m.inputs]
    (['mcd', 'snr'], [('hyp', False), ('ref', False)])
    >>> SignalMetrics(["pesq"])
    Traceback (most recent call last):
    ...
    ValueError: SignalMetrics: unknown measure(s) 'pesq' in score_config; known: si_snr, snr, sdr, lsd, mcd, ...
    """

    def __init__(self, score_config: Sequence[str], sample_rate: int = 16000, channels: int | None = 1) -> None:
        self.score_config = check_score_config(score_config)
        self.sample_rate = check_rate(sample_rate)
        needs_ref = any(MEASURES[name].needs_ref for name in self.score_config)
        self.inputs = (
            Field("hyp", "audio", channels=channels),
            Field("ref", "audio", optional=not needs_ref, channels=channels),
        )
        self.outputs = tuple(Field(name, "number", label=MEASURES[name].label) for name in self.score_config)
        self.add_state("utterances", 0, "sum")
        for name in self.score_config:
            self.add_state(f"{name}_sum", 0, "sum")
            self.add_state(f"{name}_count", 0, "sum")
        super().__init__()

    def score(self, hyp: torch.Tensor, ref: torch.Tensor | None, where: str) -> dict[str, float | None]:
        """Each configured measure of one utterance: the mean over its channels where defined."""
        if ref is not None:
            if hyp.shape[:-1] != ref.shape[:-1]:
                raise ValueError(f"{where}: hyp has {hyp.shape[0]} channel(s) and ref {ref.shape[0]}")
            hyp, ref = trim_to_common_length(hyp, ref, where)
        hyp_channels = hyp.reshape(-1, hyp.shape[-1])
        ref_channels = ref.reshape(-1, ref.shape[-1]) if ref is not None else [None] * len(hyp_channels)
        scores = {}
        for name in self.score_config:
            values = [MEASURES[name].function(h, r, self.sample_rate) for h, r in zip(hyp_channels, ref_channels)]
            defined = [v for v in values if v is not None]
            scores[name] = sum(defined) / len(defined) if defined else None
        return scores

    def update(self, *, hyp: Sequence[str], ref: Sequence[str] | None = None) -> None:
        """Read each (hyp, ref) pair of WAV paths and add its measures to the sums and counts."""
        values = {"hyp": hyp} if ref is None else {"hyp": hyp, "ref": ref}
        for row in range(len(hyp)):
            where = self.files(values, row)
            try:
                ref_wave = self.read("ref", ref[row], where) if ref is not None else None
                scores = self.score(self.read("hyp", hyp[row], where), ref_wave, where)
            except ValueError as e:
                raise RowError(row, str(e)) from e
            self.utterances += 1
            for name, value in scores.items():
                if value is not None:
                    setattr(self, f"{name}_sum", getattr(self, f"{name}_sum") + to_fixed(value))
                    setattr(self, f"{name}_count", getattr(self, f"{name}_count") + 1)

    def compute(self) -> dict[str, float]:
        """The mean of each configured measure over the utterances where it is defined."""
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
        return result


def build_embedder(embedder: Any) -> Callable[[torch.Tensor, int], Any]:
    """Return ``embedder`` if callable; a mapping with ``_target_`` is built with hydra first.

    A ``_target_`` naming a function needs ``_partial_: true``, or hydra would
    call it with no arguments.

    >>> build_embedder({"_target_": "math.hypot", "_partial_": True})(3.0, 4)
    5.0
    >>> build_embedder("ecapa")
    Traceback (most recent call last):
    ...
    TypeError: embedder must be a callable (waveform, sample_rate) -> 1-D embedding or a _target_ config; got 'ecapa'
    """
    if isinstance(embedder, Mapping):
        if "_target_" not in embedder:
            raise TypeError(f"embedder config {dict(embedder)!r} has no _target_")
        from hydra.utils import instantiate

        embedder = instantiate(embedder)
    if not callable(embedder):
        raise TypeError(
            "embedder must be a callable (waveform, sample_rate) -> 1-D embedding "
            f"or a _target_ config; got {embedder!r}"
        )
    return embedder


def cosine_similarity(a: torch.Tensor, b: torch.Tensor, where: str = "") -> float:
    """Cosine similarity of two 1-D embeddings; a zero or mismatched one is a ValueError.

    >>> cosine_similarity(torch.tensor([1.0, 0.0]), torch.tensor([1.0, 1.0]))
    0.70710...
    """
    if a.shape != b.shape:
        raise ValueError(f"{where}: embeddings have different shapes {tuple(a.shape)} and {tuple(b.shape)}")
    norms = a.norm() * b.norm()
    if norms == 0:
        raise ValueError(f"{where}: the embedder returned an all-zero embedding")
    return ((a @ b) / norms).item()


class SpeakerSimilarity(AudioMetric):
    """Cosine similarity of speaker embeddings: ``spk_sim`` of hyp to target, ``spk_sim_ref`` of hyp to ref.

    ``embedder`` maps a float32 waveform ``(time,)`` at ``sample_rate`` and the
    rate to a 1-D embedding (a tensor, array or list; singleton dimensions are
    squeezed), or is a ``_target_`` config for one. It runs under
    ``torch.no_grad()``. ``spk_sim_ref`` is returned only when ``ref`` was given.

    >>> m = SpeakerSimilarity(lambda wave, rate: torch.stack([wave.abs().mean(), wave.std()]))
    >>> [f.name for f in m.inputs], [f.name for f in m.outputs]
    (['target', 'hyp', 'ref'], ['spk_sim', 'spk_sim_ref'])
    """

    inputs = (Field("target", "audio"), Field("hyp", "audio"), Field("ref", "audio", optional=True))
    outputs = (
        Field("spk_sim", "number", label="Speaker similarity"),
        Field("spk_sim_ref", "number", label="Speaker similarity to ref", optional=True),
    )

    def __init__(self, embedder: Any, sample_rate: int = 16000) -> None:
        self.embedder = build_embedder(embedder)
        self.sample_rate = check_rate(sample_rate)
        for name in ("spk_sim_sum", "spk_sim_count", "spk_sim_ref_sum", "spk_sim_ref_count"):
            self.add_state(name, 0, "sum")
        super().__init__()

    def embed(self, name: str, path: str, where: str) -> torch.Tensor:
        """The embedding of input ``name``'s WAV at ``path``, as a 1-D float64 tensor."""
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
        """Embed each row's target, hyp (and ref) and add the cosine similarities."""
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
        """Mean similarities; ``spk_sim_ref`` only when some utterance had a ref."""
        if self.spk_sim_count == 0:
            raise ValueError(f"{metric_name(self)}: no utterance was scored, so there is nothing to compute")
        result = {"spk_sim": self.spk_sim_sum / (FIXED_POINT * self.spk_sim_count)}
        if self.spk_sim_ref_count:
            result["spk_sim_ref"] = self.spk_sim_ref_sum / (FIXED_POINT * self.spk_sim_ref_count)
        return result
