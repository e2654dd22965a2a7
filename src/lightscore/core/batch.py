"""One batch on its way to ``update``: the one batch check, `feed`, and `RowError`.

Both roads, the Lightning callback and the offline runner, hand a batch to a
metric through `feed`: it tells the metric the batch's utterance ids (they are
the rows' keys, not a declared input: ``BaseMetric.batch_utt_ids``), and turns a
`RowError` from ``update`` into an error naming the utterance. `check_batch` runs
before every ``update`` (`BaseMetric` wraps it).
"""

from __future__ import annotations

import reprlib
from collections.abc import Mapping, Sequence, Sized
from typing import Any

from lightscore.core.contract import metric_name
from lightscore.core.state import MetricState  # annotations only: every metric is one

__all__ = ["RowError", "check_batch", "check_lengths", "feed"]


class RowError(ValueError):
    """Raised by ``update`` for one row of its batch; `feed` names that row's utterance.

    ``update`` sees values, not utterance ids: it raises ``RowError(row, message)``
    and the road that fed the batch (a callback step or SCP files) turns the row
    into the utterance id. ``metric`` (optional) names the metric when the error
    is read without `feed` (which names it itself).

    >>> str(RowError(2, "hyp x.wav: not a WAV file"))
    'row 2 of the batch: hyp x.wav: not a WAV file'
    >>> str(RowError(0, "bad text", metric="WER.update()"))
    'WER.update(): row 0 of the batch: bad text'
    """

    def __init__(self, row: int, message: str, metric: str = "") -> None:
        self.row = row
        self.message = message
        super().__init__(f"{f'{metric}: ' if metric else ''}row {row} of the batch: {message}")


def check_lengths(values: Mapping[str, Sized], what: str) -> int:
    """Return the common length of ``values``' columns; raise ValueError naming each length when they differ.

    >>> check_lengths({"ref": [1, 2], "hyp": [3]}, "step output")
    Traceback (most recent call last):
    ...
    ValueError: step output have unequal lengths (ref=2, hyp=1)
    """
    lengths = {key: len(value) for key, value in values.items()}
    if len(set(lengths.values())) > 1:
        shown = ", ".join(f"{k}={n}" for k, n in lengths.items())
        raise ValueError(f"{what} have unequal lengths ({shown})")
    return next(iter(lengths.values()), 0)


def check_batch(metric: MetricState, values: dict[str, Any]) -> None:
    """Raise ValueError unless ``values`` is one well-formed batch for ``metric``.

    The one batch check, run by every ``update`` (so by every road: the callback,
    ``__call__`` and ``measure()``): declared names only, every required input
    present, each a list or tuple, equal lengths, and the values of a ``text``
    input strings that are valid Unicode (a lone surrogate such as ``"\\ud800"``
    could be scored but never written as UTF-8, so it is refused here, naming the
    row; `feed` turns the row into the utterance id). A text value that is a
    ``str`` subclass (``numpy.str_``, as ``default_collate`` leaves it) is a
    string: ``values`` then gets a list of plain ``str`` in its place.

    Args:
        metric: The metric the batch is for.
        values: Input name -> one value per row (the keyword arguments of ``update``).

    Raises:
        ValueError: naming the metric, the input and what is wrong; a `RowError`
            (a ValueError) for a text value that is not valid Unicode.

    >>> from lightscore.metrics import WER
    >>> check_batch(WER(), {"ref": ["a"], "hyp": ["a", "b"]})
    Traceback (most recent call last):
    ...
    ValueError: lightscore.metrics.error_rate.WER.update(): inputs have unequal lengths (ref=1, hyp=2)
    >>> check_batch(WER(), {"ref": ["a"], "hyp": [3]})
    Traceback (most recent call last):
    ...
    ValueError: lightscore.metrics.error_rate.WER.update(): input 'hyp' is text, but row 0 is a int (3)
    >>> check_batch(WER(), {"ref": ["a", "b"], "hyp": ["a", "b\\ud800"]})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    lightscore.core.batch.RowError: ...WER.update(): row 1 of the batch: input 'hyp' holds a lone surrogate ...
    """
    name = metric_name(metric)
    declared = {f.name: f for f in metric.inputs}
    for key, value in values.items():
        if key not in declared:
            raise ValueError(f"{name}.update(): input {key!r} is not declared (declared: {', '.join(declared)})")
        if not isinstance(value, (list, tuple)):
            raise ValueError(f"{name}.update(): input {key!r} must be a list or tuple, got {type(value).__name__}")
    for key, field in declared.items():
        if not field.optional and key not in values:
            raise ValueError(f"{name}.update(): required input {key!r} is missing")
    check_lengths(values, f"{name}.update(): inputs")
    for key in [k for k in values if declared[k].kind == "text"]:
        values[key] = _plain_texts(name, key, values[key])


def _plain_texts(name: str, key: str, value: Sequence[Any]) -> Sequence[str]:
    """``value`` checked as text: as it is when every row is a plain ``str``, else a list of plain ``str``."""
    if set(map(type, value)) - {str}:  # map and set run in C: the common all-str batch costs little
        for row, v in enumerate(value):
            if not isinstance(v, str):
                kind = type(v).__name__
                shown = reprlib.repr(v)
                raise ValueError(f"{name}.update(): input {key!r} is text, but row {row} is a {kind} ({shown})")
        # str.__str__ copies a subclass's characters into a plain str, whatever the subclass overrides.
        value = [str.__str__(v) for v in value]
    if all(map(str.isascii, value)):
        return value  # ASCII holds no surrogate
    try:
        "".join(value).encode("utf-8")  # one pass over the batch; rows are looked at only when it fails
    except UnicodeEncodeError:
        for row, v in enumerate(value):
            try:
                v.encode("utf-8")
            except UnicodeEncodeError as e:
                message = (
                    f"input {key!r} holds a lone surrogate {v[e.start]!r} at character {e.start}, "
                    "which is not valid Unicode and cannot be written as UTF-8"
                )
                raise RowError(row, message, metric=f"{name}.update()") from None
    return value


def feed(
    metric: MetricState, batch: Mapping[str, Sequence[Any]], ids: Sequence[str] | None = None, where: str = ""
) -> None:
    """``metric.update(**batch)``; a `RowError` comes back naming the row's utterance id and ``where``.

    Both roads feed batches through here: `lightscore.lightning.MetricCallback`
    with the step's ids, and the offline runner with the SCP ids. While ``update``
    runs, ``metric.batch_utt_ids`` holds ``ids`` (a metric that keeps
    per-utterance records reads them there).

    Args:
        metric: The metric to update.
        batch: Input name -> one value per row.
        ids: The utterance id of each row, when known.
        where: Where the batch came from, for the error (e.g. ``"dev/hyp.scp"``).

    Raises:
        ValueError: from ``update``; a `RowError` is re-raised naming the utterance.

    >>> from lightscore.metrics import WER
    >>> m = WER(); feed(m, {"ref": ["a b"], "hyp": ["a"]}, ["utt1"]); m.deletions
    1
    """
    try:
        with metric.feeding(ids):
            metric.update(**batch)
    except RowError as e:
        who = f"utterance {ids[e.row]!r}" if ids is not None and e.row < len(ids) else f"row {e.row} of the batch"
        raise ValueError(f"{metric_name(metric)}: {who}{f' ({where})' if where else ''}: {e.message}") from e
