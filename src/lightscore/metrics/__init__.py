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

# Translation (issue 21): sacrebleu's BLEU, chrF and translation edit rate (`TransTER`, not `TER`).
from lightscore.metrics.translation import BLEU, ChrF, TranslationEditRate  # noqa: E402

__all__ += ["BLEU", "ChrF", "TranslationEditRate"]

# Meetings (issue 24): cpWER (meeteval's), DER and JER (md-eval's or pyannote's); one session per row.
from lightscore.metrics.meeting import CPWER, DER, JER  # noqa: E402

__all__ += ["CPWER", "DER", "JER"]
