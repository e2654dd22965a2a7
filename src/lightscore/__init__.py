"""lightscore: speech and text metrics that give the same number in training, on many GPUs and offline.

``import lightscore`` stays light: torch, lightning, sentencepiece and hydra load
only in the modules that need them.

>>> from lightscore import Field, BaseMetric
>>> Field("hyp", "text").label
'Hyp'
"""

# measure() lives in offline/stage.py, so no module is hidden by a function of its name; the
# offline stage loads hydra, omegaconf, numpy and soundfile only when measure() runs.
from lightscore.core.contract import Field, check_metric_contract, check_metric_inputs
from lightscore.core.distributed import gather_and_compute, gather_and_merge
from lightscore.core.metric import BaseMetric, RowError
from lightscore.offline import measure
from lightscore.offline.results import MeasureError, MeasureResults
from lightscore.scp.files import ScpError, ScpMismatchError

__all__ = [
    "BaseMetric",
    "Field",
    "MeasureError",
    "MeasureResults",
    "RowError",
    "ScpError",
    "ScpMismatchError",
    "check_metric_contract",
    "check_metric_inputs",
    "gather_and_compute",
    "gather_and_merge",
    "measure",
]
__version__ = "0.1.0"
