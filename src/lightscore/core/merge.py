"""The merge road: every result is made here, from states (`merged_result`).

Every road ends in `merged_result`: `lightscore.lightning.MetricCallback` at an
epoch end, the offline runner (one process or many, so `lightscore.measure` and
``BaseMetric.__call__``) and `lightscore.core.distributed.gather_and_compute`.
It reads the metric through its public methods alone, so it sits below
`lightscore.core.metric`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from lightscore.core.contract import StateValue, check_result
from lightscore.core.state import MetricState  # annotations only: every metric is one

__all__ = ["merged_result"]


def merged_result(metric: MetricState, states: Sequence[Mapping[str, StateValue]]) -> dict:
    """The one road from states to a result: merge, load into ``metric``, compute, check.

    Args:
        metric: The metric whose reduce rules merge the states; it is left
            holding the merged state.
        states: One ``state()`` dict per rank or shard, in rank order (or the
            one process's own).

    Returns:
        ``compute()``'s result, checked against the declared outputs.

    Raises:
        ValueError: a state of the wrong shape, or a result that breaks the contract.

    >>> from lightscore.metrics import WER
    >>> a, b = WER(), WER()
    >>> a.update(ref=["the cat"], hyp=["the cat"]); b.update(ref=["a dog"], hyp=["a"])
    >>> merged_result(WER(), [a.state(), b.state()])["WER"]
    25.0
    """
    metric.load_state(metric.merge_states(states))
    return check_result(metric, metric.compute())
