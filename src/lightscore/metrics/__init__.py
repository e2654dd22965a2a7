"""Built-in metrics: `WER`, `CER` and `TER` (SentencePiece tokens).

>>> from lightscore.metrics import WER
>>> m = WER()
>>> m.update(ref=["the cat sat"], hyp=["the cat sat down"])
>>> m.compute()["WER"]
33.33333333333333
"""

from .error_rate import CER, TER, WER, ErrorRate

__all__ = ["CER", "TER", "WER", "ErrorRate"]
