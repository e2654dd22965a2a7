"""Error rates by group: the labels, the bins and the output names of ``ErrorRate(group_by=...)``.

`lightscore.metrics.error_rate_base.ErrorRate` keeps one rate per label of a declared input
(``group_by="lang"``), exact on N ranks; these plain functions check its options, name its outputs
and place each row in a group.

Every row carries a label (the step returns ``lang`` per utterance, or ``measure()``
binds a label SCP ``utt_id label``, like utt2spk), or a number that ``bins`` turns
into a label (an audio-duration SCP and ``bins=[0, 5, 10]``: ``0-5``, ``5-10``,
``10+``). Each label's counts are "sum" states of their own, so merging ranks is
exact. The result keys are ``<rate>_<group_by>_<label>`` (the rate in percent) and
``<rate>_<group_by>_<label>_ref_len``, with ``_ci_low``/``_ci_high`` under ``ci``;
characters of a label outside ``[A-Za-z0-9_]`` become ``_``. A label whose
references hold no token has no rate: its outputs are optional and left out.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from lightscore._moved_names import moved_names
from lightscore.core.batch import RowError
from lightscore.core.contract import Field

__all__ = ["GROUP_COUNTS", "bin_labels", "check_groups", "group_fields", "label_of", "output_label"]

GROUP_COUNTS = ("sub", "del", "ins", "ref_len", "utts")


def bin_labels(bins: Sequence[float]) -> list[str]:
    """The labels of the bins between increasing ``bins`` edges, the last one open.

    >>> bin_labels([0, 5, 10])
    ['0-5', '5-10', '10+']
    >>> bin_labels([0, 2.5])
    ['0-2.5', '2.5+']
    """
    shown = [f"{edge:g}" for edge in bins]
    return [f"{a}-{b}" for a, b in zip(shown, shown[1:])] + [f"{shown[-1]}+"]


def output_label(label: str) -> str:
    """``label`` as it appears in an output name: characters outside ``[A-Za-z0-9_]`` become ``_``.

    >>> output_label("en-US"), output_label("0-2.5")
    ('en_US', '0_2_5')
    """
    return re.sub(r"\W", "_", label, flags=re.ASCII)


def check_groups(owner: str, group_by: Any, groups: Any, bins: Any) -> list[str]:
    """Check the grouping options; return the labels (``groups``, or the bins' labels).

    Args:
        owner: The metric's name, first in every message.
        group_by: The declared input holding each row's label (or number, with ``bins``).
        groups: The labels, in the order results list them.
        bins: Increasing bin edges for a numeric ``group_by`` (instead of ``groups``).

    Returns:
        The labels, [] without ``group_by``.

    Raises:
        ValueError: a ``group_by`` that is not a name, neither or both of ``groups``/``bins``,
            repeated labels, labels that clash once in an output name, or edges that do not increase.

    >>> check_groups("WER", "lang", ["en", "de"], None)
    ['en', 'de']
    >>> check_groups("WER", "dur", None, [0, 5])
    ['0-5', '5+']
    >>> check_groups("WER", "lang", ["en-US", "en_US"], None)
    Traceback (most recent call last):
    ...
    ValueError: WER: groups 'en-US' and 'en_US' give the same output name (..._lang_en_US)
    """
    if group_by is None:
        if groups is not None or bins is not None:
            raise ValueError(f"{owner}: groups and bins need group_by (the input holding each row's label)")
        return []
    if not isinstance(group_by, str) or not group_by.isidentifier() or group_by in ("ref", "hyp"):
        raise ValueError(f"{owner}: group_by must name an input other than ref and hyp, got {group_by!r}")
    if (groups is None) == (bins is None):
        raise ValueError(f"{owner}: group_by {group_by!r} needs either groups (the labels) or bins (edges)")
    if bins is not None:
        edges = [float(edge) for edge in bins]
        if not edges or any(b <= a for a, b in zip(edges, edges[1:])) or not all(map(math.isfinite, edges)):
            raise ValueError(f"{owner}: bins must be increasing finite edges, got {bins!r}")
        return bin_labels(edges)
    labels = [str(label) for label in groups]
    if not labels or len(set(labels)) < len(labels):
        raise ValueError(f"{owner}: groups must be distinct labels, got {groups!r}")
    seen: dict[str, str] = {}
    for label in labels:
        key = output_label(label)
        if key in seen:
            raise ValueError(
                f"{owner}: groups {seen[key]!r} and {label!r} give the same output name (..._{group_by}_{key})"
            )
        seen[key] = label
    return labels


def group_fields(name: str, group_by: str, labels: Sequence[str], ci: bool) -> list[Field]:
    """The optional outputs of each label: the rate, its reference length, and the interval under ``ci``.

    >>> [f.name for f in group_fields("WER", "lang", ["en"], ci=True)]
    ['WER_lang_en', 'WER_lang_en_ref_len', 'WER_lang_en_ci_low', 'WER_lang_en_ci_high']
    """
    fields = []
    for label in labels:
        key = f"{name}_{group_by}_{output_label(label)}"
        fields += [Field(key, "number", label=f"{name} {group_by}={label} (%)", optional=True)]
        fields += [Field(f"{key}_ref_len", "number", optional=True)]
        if ci:
            fields += [Field(f"{key}_ci_{end}", "number", optional=True) for end in ("low", "high")]
    return fields


def label_of(value: Any, row: int, labels: Sequence[str], bins: Sequence[float] | None) -> int:
    """The index in ``labels`` of one row's group value (a label, or a number placed in ``bins``).

    Args:
        value: The row's value of the ``group_by`` input.
        row: The row's index in its batch, for the error.
        labels: The labels (``groups``, or the bins' labels).
        bins: The bin edges, or None for labels.

    Returns:
        The index of the row's label; with ``bins``, of the bin holding the value (the last one is open).

    Raises:
        RowError: an unknown label; with ``bins``, a value that is not a finite number (``inf``, ``nan``)
            or is below the first edge (the road names the utterance).

    >>> label_of("de", 0, ["en", "de"], None), label_of("7.5", 0, ["0-5", "5+"], [0, 5])
    (1, 1)
    >>> label_of("fr", 3, ["en", "de"], None)
    Traceback (most recent call last):
    ...
    lightscore.core.batch.RowError: row 3 of the batch: group label 'fr' is not one of en, de
    >>> label_of("inf", 0, ["0-5", "5+"], [0, 5])
    Traceback (most recent call last):
    ...
    lightscore.core.batch.RowError: row 0 of the batch: group value 'inf' is not a finite number
    """
    if bins is None:
        if value not in labels:
            raise RowError(row, f"group label {value!r} is not one of {', '.join(labels)}")
        return labels.index(value)
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise RowError(row, f"group value {value!r} is not a number (bins need one)") from None
    # A duration of inf or NaN is a broken input, not a long utterance: refused, as every input file refuses them.
    if not math.isfinite(number):
        raise RowError(row, f"group value {value!r} is not a finite number")
    if number < bins[0]:
        raise RowError(row, f"group value {value!r} is below the first bin edge {bins[0]:g}")
    return sum(number >= edge for edge in bins) - 1


# The group side of ErrorRate was a mixin; its methods are now the class's own (issue 37).
__getattr__ = moved_names(globals(), {"GroupedRates": "lightscore.metrics.error_rate_base.ErrorRate"})
