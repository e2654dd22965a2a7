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

__all__ = ["CER", "TER", "WER", "ErrorRate"]
