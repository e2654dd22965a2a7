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

# The other families load heavy packages (sacrebleu and numpy, scipy, torch, onnxruntime), so each is imported on
# first use and `import lightscore.metrics` (and `lightscore score --help`) stays light:
# translation (sacrebleu's BLEU, chrF and translation edit rate: `TransTER`, not `TER`), meetings (cpWER as meeteval,
# DER/JER as md-eval or pyannote), audio quality without a reference (DNSMOS/PLCMOS, intelligibility, PIT separation).
_LAZY = {
    "BLEU": "translation",
    "ChrF": "translation",
    "TranslationEditRate": "translation",
    "CPWER": "meeting",
    "DER": "meeting",
    "JER": "meeting",
    "ORCWER": "meeting",
    "TCPWER": "meeting",
    "DNSMOS": "quality",
    "PLCMOS": "quality",
    "Intelligibility": "intelligibility",
    "Separation": "separation",
}
__all__ += list(_LAZY)


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"lightscore.metrics.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'lightscore.metrics' has no attribute {name!r}")
