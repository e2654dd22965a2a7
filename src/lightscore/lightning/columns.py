"""What `MetricCallback` reads from a step's returned dict: one list per declared input, and the utterance ids.

A ``validation_step`` / ``test_step`` returns a dict with one list per
declared input (one value per row of the batch); these functions take those
columns out of it and say what is wrong when they are not there or not lists.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from lightscore.scp.files import check_utt_id

__all__ = ["column", "keys_text", "step_columns", "step_ids"]


def keys_text(keys: Any) -> str:
    """Keys as ``'a', 'b'`` for a message, or ``(none)``.

    >>> keys_text(["ref", "hyp"])
    "'ref', 'hyp'"
    """
    return ", ".join(repr(k) for k in keys) or "(none)"


def column(step: str, key: str, values: Any) -> Sequence[Any]:
    """``values`` if it is a list or tuple (one value per row), else a ValueError naming the step and key.

    A string is the usual slip (one hypothesis instead of a list of them): its
    characters would be taken for rows, so it is named as such.

    >>> column("validation_step", "hyp", ["a b", "c"])
    ['a b', 'c']
    >>> column("validation_step", "hyp", "a b c")
    Traceback (most recent call last):
    ...
    ValueError: MetricCallback: validation_step returned 'hyp' as a str ('a b c'), where a list of strings is \
needed: return a list with one string per row of the batch
    """
    if isinstance(values, str):
        shown = values if len(values) <= 40 else values[:37] + "..."
        raise ValueError(
            f"MetricCallback: {step} returned {key!r} as a str ({shown!r}), where a list of strings is needed: "
            "return a list with one string per row of the batch"
        )
    if not isinstance(values, (list, tuple)):
        raise ValueError(
            f"MetricCallback: {step} returned {key!r} as {type(values).__name__}; "
            "return a list with one value per row of the batch"
        )
    return values


def step_columns(
    step: str, inputs: Mapping[str, str], outputs: Any, required: Callable[[str], bool]
) -> dict[str, Sequence[Any]]:
    """The step's value of every declared input it returned, each a list with one value per row.

    Args:
        step: ``"validation_step"`` or ``"test_step"``, for the messages.
        inputs: Declared input name -> the step's key for it.
        outputs: What the step returned.
        required: Whether a declared input must be returned.

    Raises:
        TypeError: the step did not return a dict.
        ValueError: a required key is missing, none is there, or a value is not a list.

    >>> step_columns("test_step", {"ref": "ref", "hyp": "pred"}, {"ref": ["a"], "pred": ["b"]}, lambda n: True)
    {'ref': ['a'], 'hyp': ['b']}
    """
    if not isinstance(outputs, Mapping):
        raise TypeError(
            f"MetricCallback: {step} must return a dict with the keys {keys_text(inputs.values())}, "
            f"got {type(outputs).__name__}"
        )
    columns = {}
    for name, key in inputs.items():
        if key in outputs:
            columns[name] = column(step, key, outputs[key])
        elif required(name):
            raise ValueError(
                f"MetricCallback: {step} returned no {key!r} (for input {name!r}); "
                f"it returned the keys {keys_text(outputs)}"
            )
    if not columns:
        raise ValueError(f"MetricCallback: {step} returned none of {keys_text(inputs.values())}")
    return columns


def step_ids(step: str, key: str, outputs: Mapping, keep: int, needed_by: str | None) -> list[str] | None:
    """The step's first ``keep`` utterance ids, each checked as a plain token.

    Args:
        step: The step's name, for the messages.
        key: The key of the ids (``utt_id_key``).
        outputs: What the step returned.
        keep: How many leading rows are real (not the sampler's padding).
        needed_by: The option that needs the ids (``"save_dir"``), or None when they may be absent.

    Returns:
        The ids, or None when the step returned none and none are needed.

    >>> step_ids("test_step", "utt_id", {"utt_id": ["u1", "u2"]}, 1, None)
    ['u1']
    """
    if key not in outputs:
        if needed_by is not None:
            raise ValueError(
                f"MetricCallback: {needed_by} needs utterance ids, but {step} returned no {key!r}; "
                f"it returned the keys {keys_text(outputs)}"
            )
        return None
    ids = column(step, key, outputs[key])
    where = f"{step} output {key!r}"
    return [check_utt_id(str(utt_id), where) for utt_id in ids[:keep]]
