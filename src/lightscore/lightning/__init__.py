"""lightscore in PyTorch Lightning: `MetricCallback` and the helpers of its epoch end.

>>> from lightscore.lightning import MetricCallback
>>> MetricCallback.__module__
'lightscore.lightning.callback'
"""

from lightscore.lightning.callback import MetricCallback, inexact_cause, rows_to_score

__all__ = ["MetricCallback", "inexact_cause", "rows_to_score"]
