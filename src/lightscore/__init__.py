"""lightscore: speech and text metrics that give the same number in training, on many GPUs and offline.

``import lightscore`` stays light: torch, lightning, sentencepiece and hydra load
only in the modules that need them.

>>> from lightscore import Field, BaseMetric
>>> Field("hyp", "text").label
'Hyp'
"""

from .contract import Field, check_metric_contract, check_metric_inputs
from .metric import BaseMetric
from .scp import ScpError, ScpMismatchError

__all__ = [
    "BaseMetric",
    "Field",
    "ScpError",
    "ScpMismatchError",
    "check_metric_contract",
    "check_metric_inputs",
    "measure",
]
__version__ = "0.1.0"


def __getattr__(name: str):
    # measure pulls in hydra/omegaconf; load it on first use so `import lightscore` stays fast.
    if name == "measure":
        from .measure import measure

        return measure
    raise AttributeError(f"module 'lightscore' has no attribute {name!r}")
