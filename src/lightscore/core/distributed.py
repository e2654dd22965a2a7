"""Gather metric states across ranks: `gather_and_merge` (the merged state), `gather_and_compute` (the result).

Every rank exports its metric's ``state()`` (plain numbers and lists), one
``torch.distributed.all_gather_object`` hands every rank all of them, and
``merge_states`` adds or concatenates them. The result is the state one process
would have built from all the data, on every rank.

torch is imported inside the functions, so ``import lightscore.core.distributed``
stays light; without an initialised process group nothing is gathered.

>>> from lightscore.metrics import WER
>>> m = WER()
>>> m.update(ref=["the cat sat"], hyp=["the cat sat down"])
>>> gather_and_merge(m)["insertions"]  # one process: the local state
1
>>> gather_and_compute(m)["WER"]
33.33333333333333
"""

from __future__ import annotations

import pickle
import sys
from collections.abc import Sequence
from typing import Any

from lightscore.core.contract import StateValue
from lightscore.core.merge import merged_result
from lightscore.core.state import MetricState  # annotations only: every metric is one

__all__ = [
    "check_object_device",
    "gather_and_compute",
    "gather_and_merge",
    "gather_objects",
    "gather_outcomes",
    "portable",
]


def _initialised_dist() -> Any:
    """Return ``torch.distributed`` when a default process group is up, else None."""
    # No process group can exist before torch.distributed is imported, so a plain
    # single-process caller never pays for importing torch here.
    if "torch.distributed" not in sys.modules:
        return None
    import torch.distributed as dist

    return dist if dist.is_available() and dist.is_initialized() else None


def check_object_device(backend: str) -> None:
    """Raise RuntimeError when an NCCL group could not gather Python objects on this rank.

    ``all_gather_object`` on NCCL moves the pickled objects through
    ``torch.cuda.current_device()``; the caller must have set it to this rank's
    GPU (Lightning does). Other backends (gloo) gather through the CPU.

    >>> check_object_device("gloo") is None
    True
    """
    if "nccl" not in str(backend).lower():
        return
    import torch

    if not torch.cuda.is_available():
        raise RuntimeError(
            "the NCCL process group gathers objects through CUDA, but no CUDA device is available in this "
            "process: use the gloo backend on CPU"
        )
    # With several visible GPUs and CUDA never touched, every rank would gather through cuda:0.
    if torch.cuda.device_count() > 1 and not torch.cuda.is_initialized():
        raise RuntimeError(
            "the NCCL process group gathers objects through the current CUDA device, and none is set in this "
            "process: call torch.cuda.set_device(local_rank) before gathering (Lightning does this for you)"
        )


def gather_objects(obj: Any, group: Any = None) -> list[Any]:
    """Return every rank's picklable ``obj``, in rank order, from ONE ``all_gather_object``.

    Every rank of ``group`` must call it, also a rank with nothing to add.
    Without an initialised process group it returns ``[obj]`` and gathers nothing.

    >>> gather_objects({"hits": 3})
    [{'hits': 3}]
    """
    dist = _initialised_dist()
    if dist is None:
        return [obj]
    check_object_device(dist.get_backend(group))
    gathered: list[Any] = [None] * dist.get_world_size(group)
    dist.all_gather_object(gathered, obj, group=group)
    return gathered


def portable(error: BaseException) -> BaseException:
    """``error`` if it survives pickling (it travels to the other ranks), else a RuntimeError with its text.

    >>> portable(ValueError("bad row")).args
    ('bad row',)
    """
    try:
        pickle.loads(pickle.dumps(error))
    except Exception:
        return RuntimeError(f"{type(error).__name__}: {error}")
    return error


def gather_outcomes(items: Sequence[Any], group: Any = None) -> list[list[Any]]:
    """Gather one list of states-or-errors from every rank; return, per item, its value on each rank.

    The one collective that carries metric states, or the exceptions that
    replaced them, between ranks: the offline runner and `MetricCallback` both
    use it, so a rank that failed tells every other rank why. Exceptions are
    made picklable first (`portable`).

    Args:
        items: This rank's values, the same number and order on every rank.
        group: The process group (None: the default one).

    Returns:
        ``result[k][r]`` is item ``k`` of rank ``r``.

    >>> gather_outcomes([{"hits": 3}, ValueError("bad")])
    [[{'hits': 3}], [ValueError('bad')]]
    """
    if _initialised_dist() is None:  # one process: nothing travels, errors keep their tracebacks
        return [[x] for x in items]
    local = [portable(x) if isinstance(x, BaseException) else x for x in items]
    gathered = gather_objects(local, group)
    return [[ranks[k] for ranks in gathered] for k in range(len(items))]


def gather_and_merge(metric: MetricState, group: Any = None) -> dict[str, StateValue]:
    """Gather every rank's ``state()`` of ``metric`` and return the merged state, the same on every rank.

    Call it on every rank after the last ``update``; ``metric`` is not changed.
    With no initialised process group it returns the local state. To get the
    result as well, use `gather_and_compute`.

    Args:
        metric: This rank's metric, after its last ``update``.
        group: The process group (None: the default one).

    Returns:
        The merged state dict (``metric.merge_states`` of every rank's state).

    Raises:
        ValueError: a rank's state does not fit ``metric``'s registered states.

    >>> from lightscore.metrics import CER
    >>> m = CER()
    >>> m.update(ref=["abc"], hyp=["abd"])
    >>> gather_and_merge(m)["substitutions"]
    1
    """
    return metric.merge_states(gather_objects(metric.state(), group))


def gather_and_compute(metric: MetricState, group: Any = None) -> dict:
    """Gather every rank's state of ``metric``, merge, load and compute it: the same result on every rank.

    The plain-loop counterpart of `lightscore.lightning.MetricCallback`: it goes
    through `lightscore.core.merge.merged_result`, like every other road;
    ``metric`` is left holding the merged state. With no initialised process
    group the local state's result is returned.

    Args:
        metric: This rank's metric, after its last ``update``.
        group: The process group (None: the default one).

    Returns:
        The checked result of the merged state.

    Raises:
        ValueError: the merged state does not compute (e.g. no reference tokens at all).

    >>> from lightscore.metrics import CER
    >>> m = CER()
    >>> m.update(ref=["abc"], hyp=["abd"])
    >>> gather_and_compute(m)["CER_sub"]
    1
    """
    return merged_result(metric, gather_objects(metric.state(), group))
