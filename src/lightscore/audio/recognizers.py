"""Speech recognizers for the intelligibility metric: the shipped one, and building one from a config.

A recognizer maps ``(wave, sample_rate)`` (a float32 1-D numpy array in
[-1, 1]) to the recognized text. `RECOGNIZERS` maps the names a metrics YAML
may give (``recognizer: pocketsphinx``) to factories; `build_recognizer` turns a
name, a callable or a checked ``_target_`` config into a recognizer.

- ``pocketsphinx``: CMU PocketSphinx 5 with the US English acoustic model,
  language model and dictionary inside its wheel (16 kHz; nothing downloaded).
  Fast and offline, far from a modern recognizer: its WER says more about
  relative intelligibility between systems than about absolute quality.

Any other recognizer (Whisper, a user's model) plugs in as a class whose
instances are called ``(wave, sample_rate) -> text``, or as a function with
``_partial_: true`` (docs/audio-quality.md shows both).

>>> import pickle
>>> recognizer = build_recognizer("pocketsphinx")
>>> isinstance(recognizer(np.zeros(16000, dtype=np.float32), 16000), str), len(pickle.dumps(recognizer)) < 200
(True, True)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from lightscore.core.targets import build_pluggable

__all__ = ["RECOGNIZERS", "PocketsphinxRecognizer", "build_recognizer", "to_pcm16"]


def to_pcm16(wave: Any) -> bytes:
    """``wave`` (float, [-1, 1]) as little-endian 16-bit PCM bytes, rounded and clipped.

    A 16-bit WAV read as float by soundfile comes back to its own samples exactly.

    >>> to_pcm16(np.array([0.5, -1.0, 1.0]))
    b'\\x00@\\x00\\x80\\xff\\x7f'
    """
    samples = np.asarray(wave, dtype=np.float64).reshape(-1)
    return np.clip(np.round(samples * 32768), -32768, 32767).astype("<i2").tobytes()


class PocketsphinxRecognizer:
    """PocketSphinx 5's decoder with its shipped US English model, as a ``(wave, sample_rate) -> text`` callable.

    The decoder is built on first use (about 0.3 s) and left out of pickles, so
    the recognizer travels to DDP workers as a few bytes. PocketSphinx's front
    end adapts (its cepstral mean) from one utterance to the next; it is made
    anew before each utterance (``reinit_feat``, about 0.1 ms), so a file's
    transcript does not depend on which files came before it, on one rank or
    many: each equals a fresh decoder's.

    Args:
        **config: ``pocketsphinx.Decoder`` options (``hmm``, ``lm``, ``dict``, ``samprate``...);
            the default is the shipped English model at 16 kHz.

    >>> PocketsphinxRecognizer(samprate=8000).config
    {'samprate': 8000}
    """

    def __init__(self, **config: Any) -> None:
        self.config = config
        self._decoder: Any = None

    def __getstate__(self) -> dict[str, Any]:
        return {"config": self.config}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(**state["config"])

    def decoder(self) -> Any:
        """The ``pocketsphinx.Decoder``, built once, quiet (loglevel FATAL unless configured)."""
        if self._decoder is None:
            import pocketsphinx

            self._decoder = pocketsphinx.Decoder(**{"loglevel": "FATAL", **self.config})
        return self._decoder

    def __call__(self, wave: Any, sample_rate: int) -> str:
        """The words PocketSphinx hears in ``wave``, lower case, space-separated ('' for none).

        Args:
            wave: Float samples in [-1, 1], 1-D.
            sample_rate: Their rate; it must be the decoder's (16000 by default).

        Returns:
            The transcript.

        Raises:
            ValueError: a rate other than the decoder's.
        """
        decoder = self.decoder()
        rate = int(decoder.config["samprate"])
        if sample_rate != rate:
            raise ValueError(f"pocketsphinx: the decoder takes {rate} Hz audio, got {sample_rate} Hz")
        decoder.reinit_feat()  # a fresh front end (cepstral mean...): as if this were the decoder's first file
        decoder.start_utt()
        decoder.process_raw(to_pcm16(wave), full_utt=True)
        decoder.end_utt()
        hypothesis = decoder.hyp()
        return hypothesis.hypstr if hypothesis is not None else ""


RECOGNIZERS: dict[str, Callable[[], Callable[[Any, int], str]]] = {"pocketsphinx": PocketsphinxRecognizer}
"""Recognizer names a metrics YAML may use, each mapped to a factory taking no arguments."""


def build_recognizer(recognizer: Any, where: str = "recognizer") -> Callable[[Any, int], str]:
    """The recognizer ``recognizer`` names: a name of `RECOGNIZERS`, a callable, or a ``_target_`` config.

    Built by `lightscore.core.targets.build_pluggable`, as embedders are: a ``_target_`` config is
    resolved and refused (`lightscore.core.targets.callable_target`) before anything is called.

    Args:
        recognizer: ``"pocketsphinx"``, a callable ``(wave, sample_rate) -> text``, or a mapping with ``_target_``.
        where: The config place, for errors.

    Returns:
        The callable recognizer.

    Raises:
        TypeError: an unknown name, a mapping without ``_target_``, a refused target, or something not callable.
        ValueError: a target that cannot be imported or fails while building.

    >>> type(build_recognizer("pocketsphinx")).__name__
    'PocketsphinxRecognizer'
    >>> build_recognizer({"_target_": "lightscore.audio.recognizers.PocketsphinxRecognizer", "samprate": 8000}).config
    {'samprate': 8000}
    >>> build_recognizer({"_target_": "builtins.open", "file": "x"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: recognizer: _target_ builtins.open is not a recognizer class ...; refused, not called
    >>> build_recognizer("whisper")
    Traceback (most recent call last):
    ...
    TypeError: recognizer: unknown recognizer 'whisper'; known names: pocketsphinx (or pass a callable ...)
    """
    return build_pluggable(
        recognizer,
        RECOGNIZERS,
        where,
        kind="recognizer",
        call="(wave, sample_rate) -> text",
        classes="a recognizer class",
    )
