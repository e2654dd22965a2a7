"""Built-in metrics: `WER`, `CER` and `TER` (SentencePiece tokens).

>>> from lightscore.metrics import WER
>>> m = WER()
>>> m.update(ref=["the cat sat"], hyp=["the cat sat down"])
>>> m.compute()["WER"]
33.33333333333333
>>> WER(case="fold", aligner="sclite").settings()
'WER case=fold aligner=sclite normalize=none'
"""

from lightscore.metrics.error_rate import CER, TER, WER
from lightscore.metrics.error_rate_base import ErrorRate
from lightscore.metrics.speed import RTFx

__all__ = ["CER", "TER", "WER", "ErrorRate", "RTFx"]

# sclite's character mode and the mixed unit of code-switched speech (issue 20).
from lightscore.metrics.error_rate import MixedER, SCLiteCER  # noqa: E402

__all__ += ["MixedER", "SCLiteCER"]

# The other families need their extras (sacrebleu, kaldialign, torch, onnxruntime ...), so each is imported on first
# use and `import lightscore.metrics` (and `lightscore score --help`) stays light and works on the core install:
# translation (sacrebleu's BLEU, chrF and translation edit rate: `TransTER`, not `TER`), meetings (cpWER as meeteval,
# DER/JER as md-eval or pyannote), audio (signal measures, speaker similarity, PIT separation), quality without a
# reference (DNSMOS/PLCMOS, intelligibility). A missing extra is one line naming it (lightscore._extras).
_LAZY = {
    "BLEU": "translation",
    "ChrF": "translation",
    "TranslationEditRate": "translation",
    "CPWER": "meeting",
    "DER": "meeting",
    "JER": "meeting",
    "ORCWER": "meeting",
    "TCPWER": "meeting",
    "GreedyORCWER": "meeting_orc",
    "TCORCWER": "meeting_orc",
    "GreedyTCORCWER": "meeting_orc",
    "DICPWER": "meeting_di",
    "DITCPWER": "meeting_di",
    "MIMOWER": "meeting_mimo",
    "PurityCoverage": "meeting_purity",
    "KeywordErrorRate": "keywords",
    "OracleWER": "oracle_wer",
    "PunctuationErrorRate": "punctuation",
    "CaseErrorRate": "punctuation",
    "PnCWER": "punctuation",
    "WordTiming": "word_timing",
    "Resegmented": "resegment",
    "SimulLatency": "simul_latency",
    "DNSMOS": "quality",
    "PLCMOS": "quality",
    "Intelligibility": "intelligibility",
    "Separation": "separation",
    "SignalMetrics": "audio",
    "SpeakerSimilarity": "audio",
}
__all__ += list(_LAZY)


def __getattr__(name: str):
    """Load a family's metric on first use; its extra missing, fail with the one line that names it.

    Raises:
        MissingExtraError: the family's extra is not installed.
        AttributeError: no such metric.
    """
    if name not in _LAZY:
        raise AttributeError(f"module 'lightscore.metrics' has no attribute {name!r}")
    import importlib

    from lightscore._extras import EXTRA_OF, MissingExtraError, missing_extra

    try:
        module = importlib.import_module(f"lightscore.metrics.{_LAZY[name]}")
    except MissingExtraError:
        raise
    except ModuleNotFoundError as e:
        if e.name and not e.name.startswith("lightscore") and name in EXTRA_OF:
            raise missing_extra(name, EXTRA_OF[name], e.name.partition(".")[0]) from None
        raise
    value = getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
