"""Speaker embedders for `SpeakerSimilarity`: the shipped ones, building one from a config, comparing two embeddings.

An embedder maps ``(wave, sample_rate)`` (a float waveform, 1-D or
``(channels, time)``, as a torch tensor or numpy array) to a 1-D embedding.
The shipped ones are pretrained, with weights inside their PyPI packages:
nothing is downloaded at run time. `EMBEDDERS` maps the names a metrics YAML
may give (``embedder: resemblyzer``) to factories that build one;
`build_embedder` turns such a name, a callable or a ``_target_`` config into an
embedder, and `cosine_similarity` compares two embeddings.

- ``resemblyzer``: Resemblyzer's GE2E voice encoder (3-layer LSTM, 256-d
  embedding, 16 kHz; weights ``pretrained.pt`` in the ``resemblyzer`` wheel).

>>> import numpy as np
>>> t = np.arange(32000) / 16000
>>> wave = 0.3 * np.sin(2 * np.pi * (120 * t + 15 * np.sin(2 * np.pi * 3 * t)))
>>> embedding = resemblyzer_embedder()(wave, 16000)
>>> embedding.shape, round(float(np.linalg.norm(embedding)), 4)
((256,), 1.0)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from lightscore.core.targets import build_pluggable

if TYPE_CHECKING:
    import torch

__all__ = ["EMBEDDERS", "ResemblyzerEmbedder", "build_embedder", "cosine_similarity", "resemblyzer_embedder"]


def as_mono(wave: Any) -> np.ndarray:
    """``wave`` (tensor or array, 1-D or ``(channels, time)``) as a float32 mono array; channels are averaged."""
    if hasattr(wave, "detach"):
        wave = wave.detach().cpu().numpy()
    wave = np.asarray(wave, dtype=np.float32)
    if wave.ndim == 2:
        wave = wave.mean(axis=0)
    if wave.ndim != 1 or wave.size == 0:
        raise ValueError(f"the waveform must be 1-D or (channels, time) and non-empty, got shape {wave.shape}")
    if not np.isfinite(wave).all():
        raise ValueError("the waveform has non-finite samples")
    if not wave.any():
        raise ValueError("the waveform is silent (all zero): it has no speaker to embed")
    return wave


class ResemblyzerEmbedder:
    """Resemblyzer's pretrained voice encoder as a ``(wave, sample_rate) -> (256,)`` embedder.

    The waveform goes through Resemblyzer's own ``preprocess_wav`` (resampled to
    16 kHz, volume raised to -30 dBFS, long silences cut by webrtcvad) and
    ``VoiceEncoder.embed_utterance`` (L2-normalized mean of 1.6 s partials).
    The encoder is loaded on first use (about 0.2 s) and left out of pickles,
    so the embedder travels to DDP workers as a few bytes and each builds its own.

    Args:
        device: The torch device the encoder runs on.

    >>> ResemblyzerEmbedder().device, ResemblyzerEmbedder()._encoder is None
    ('cpu', True)
    """

    def __init__(self, device: str = "cpu") -> None:
        self.device = device
        self._encoder: Any = None

    def __getstate__(self) -> dict[str, Any]:
        return {"device": self.device}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(**state)

    def encoder(self) -> Any:
        """The ``resemblyzer.VoiceEncoder``, loaded once from the weights in the package."""
        if self._encoder is None:
            from resemblyzer import VoiceEncoder

            self._encoder = VoiceEncoder(device=self.device, verbose=False)
        return self._encoder

    def __call__(self, wave: Any, sample_rate: int) -> np.ndarray:
        """The 256-d, unit-norm speaker embedding of ``wave`` at ``sample_rate`` Hz.

        Args:
            wave: A float waveform, 1-D or ``(channels, time)`` (channels are averaged), tensor or array.
            sample_rate: Its rate; another than 16 kHz is resampled by Resemblyzer.

        Returns:
            A float32 array of shape ``(256,)``.

        Raises:
            ValueError: a silent, non-finite or wrongly shaped waveform, or one with no speech left after
                Resemblyzer's silence trimming.

        >>> import numpy as np
        >>> t = np.arange(16000) / 8000
        >>> ResemblyzerEmbedder()(0.3 * np.sin(2 * np.pi * (150 * t + 10 * np.sin(6 * t))), 8000).shape
        (256,)
        """
        from resemblyzer import preprocess_wav, sampling_rate

        wave = as_mono(wave)
        wave = preprocess_wav(wave, source_sr=sample_rate if sample_rate != sampling_rate else None)
        if wave.size == 0:
            raise ValueError("no speech is left after Resemblyzer's silence trimming")
        return self.encoder().embed_utterance(wave)


def resemblyzer_embedder(device: str = "cpu") -> ResemblyzerEmbedder:
    """A `ResemblyzerEmbedder` on ``device``: the factory behind ``embedder: resemblyzer``.

    Args:
        device: The torch device, ``"cpu"`` by default.

    Returns:
        The embedder (the model loads on its first call).

    >>> import pickle
    >>> len(pickle.dumps(resemblyzer_embedder())) < 200
    True
    """
    return ResemblyzerEmbedder(device)


EMBEDDERS: dict[str, Callable[[], Callable[[Any, int], Any]]] = {"resemblyzer": resemblyzer_embedder}
"""Embedder names a metrics YAML may use, each mapped to a factory taking no arguments."""


def build_embedder(embedder: Any, where: str = "embedder") -> Callable[[torch.Tensor, int], Any]:
    """The speaker embedder ``embedder`` names: a name of `EMBEDDERS`, a callable, or a ``_target_`` config.

    Built by `lightscore.core.targets.build_pluggable`, as recognizers are: a ``_target_`` config is
    resolved and refused before anything is called unless it is a class whose instances are
    callable, or a Python function with ``_partial_: true`` (without it hydra would call the
    function with no arguments); the rule is `lightscore.core.targets.callable_target`'s.

    Args:
        embedder: ``"resemblyzer"`` (see `EMBEDDERS`), a
            callable ``(waveform, sample_rate) -> 1-D embedding``, or a mapping with ``_target_``.
        where: The config place, for errors.

    Returns:
        The callable embedder.

    Raises:
        TypeError: an unknown name, a mapping without ``_target_``, a refused
            target, or something not callable.
        ValueError: a target that cannot be imported or fails while building.

    >>> build_embedder({"_target_": "lightscore.audio.embedders.ResemblyzerEmbedder", "device": "cpu"}).device
    'cpu'
    >>> type(build_embedder("resemblyzer")).__name__
    'ResemblyzerEmbedder'
    >>> build_embedder({"_target_": "builtins.open", "file": "x"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: embedder: _target_ builtins.open is not a class with __call__ ...; refused, not called
    >>> build_embedder("ecapa")
    Traceback (most recent call last):
    ...
    TypeError: embedder: unknown embedder 'ecapa'; known names: resemblyzer (or pass a callable or a _target_ config)
    """
    return build_pluggable(
        embedder,
        EMBEDDERS,
        where,
        kind="embedder",
        call="(waveform, sample_rate) -> 1-D embedding",
        classes="a class with __call__",
    )


def cosine_similarity(a: torch.Tensor, b: torch.Tensor, where: str = "") -> float:
    """Cosine similarity of two 1-D embeddings.

    Args:
        a, b: The embeddings, same shape.
        where: Put before an error.

    Returns:
        ``a . b / (|a| |b|)``.

    Raises:
        ValueError: different shapes, or an all-zero embedding.

    >>> import torch
    >>> cosine_similarity(torch.tensor([1.0, 0.0]), torch.tensor([1.0, 1.0]))
    0.70710...
    """
    if a.shape != b.shape:
        raise ValueError(f"{where}: embeddings have different shapes {tuple(a.shape)} and {tuple(b.shape)}")
    norms = a.norm() * b.norm()
    if norms == 0:
        raise ValueError(f"{where}: the embedder returned an all-zero embedding")
    return ((a @ b) / norms).item()
