"""lightscore in PyTorch Lightning: `MetricCallback` and the helpers of its epoch end.

>>> from lightscore.lightning import MetricCallback
>>> MetricCallback.__module__
'lightscore.lightning.callback'
"""

try:
    from lightscore.lightning.callback import MetricCallback, inexact_cause, rows_to_score
except ModuleNotFoundError as e:  # torch or lightning: the one line that names the extra
    if not e.name or e.name.startswith("lightscore"):
        raise
    from lightscore._extras import missing_extra

    raise missing_extra("MetricCallback", "lightning", e.name.partition(".")[0]) from None

__all__ = ["MetricCallback", "inexact_cause", "rows_to_score"]
