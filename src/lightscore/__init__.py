"""lightscore: speech and text metrics that give the same number in training, on many GPUs and offline.

``import lightscore`` stays light: torch, lightning, sentencepiece and hydra load
only in the modules that need them.

>>> from lightscore import Field, BaseMetric
>>> Field("hyp", "text").label
'Hyp'
"""

# measure is imported eagerly: with a lazy module __getattr__, any import of the submodule
# lightscore.measure binds that module to the name and hides the function. measure.py loads hydra,
# omegaconf, numpy and soundfile only when measure() runs, so this import stays light.
from .contract import Field, check_metric_contract, check_metric_inputs
from .measure import measure
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
