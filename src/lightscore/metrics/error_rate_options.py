"""An error rate's interface: its options, checked before anything is counted, and its declared outputs.

`check_type` and `check_choice` are the option checks every metric shares (the translation
metrics too). `check_options` is what `lightscore.metrics.error_rate_base.ErrorRate` runs
first; each error names the metric and the option (``WER: aligner 'kaldi' is
not one of unit, sclite``). `error_rate_outputs` declares the result's keys: the
rate, its `COUNTS`, its utterances and, with ``ci``, the interval.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lightscore.core.contract import Field
from lightscore.text.aligners import ALIGNERS
from lightscore.text.choices import CASES  # defined there: the command line reads it without numpy
from lightscore.text.counting import COUNTS

__all__ = ["ALIGNERS", "CASES", "COUNTS", "EXTRAS", "check_choice", "check_options", "check_type", "error_rate_outputs"]

EXTRAS = ("mer", "wil", "wip", "macro")
"""Optional outputs of an error rate: jiwer's match error rate, word information lost and preserved
(from the pooled counts), and the macro rate (the mean of the per-utterance rates)."""


def error_rate_outputs(name: str, ci: bool = False, extras: Sequence[str] = ()) -> tuple[Field, ...]:
    """The declared outputs of an error rate called ``name``: the rate, its counts, its utterances.

    Args:
        name: The rate's name ("WER", "CER", "TER").
        ci: Also declare ``<name>_ci_low`` and ``<name>_ci_high`` (a metric built with ``ci``).
        extras: Names from `EXTRAS`, declared as ``<name>_<extra>`` (percent) after the interval.

    Returns:
        The output fields: ``<name>``, ``_sub``, ``_del``, ``_ins``, ``_hit``, ``_ref_len``,
        ``_utts`` (utterances scored), ``_utt_err`` (percent of them with an error), the interval,
        then the extras.

    >>> [f.name for f in error_rate_outputs("WER")]  # doctest: +NORMALIZE_WHITESPACE
    ['WER', 'WER_sub', 'WER_del', 'WER_ins', 'WER_hit', 'WER_ref_len', 'WER_utts', 'WER_utt_err']
    >>> [f.name for f in error_rate_outputs("CER", ci=True)][-2:]
    ['CER_ci_low', 'CER_ci_high']
    >>> [f.name for f in error_rate_outputs("WER", extras=("mer", "macro"))][-2:]
    ['WER_mer', 'WER_macro']
    """
    fields = [Field(name, "number", label=f"{name} (%)"), *(Field(f"{name}_{count}", "number") for count in COUNTS)]
    fields += [Field(f"{name}_utts", "number"), Field(f"{name}_utt_err", "number", label=f"{name} utt. errors (%)")]
    if ci:
        fields += [Field(f"{name}_ci_low", "number"), Field(f"{name}_ci_high", "number")]
    fields += [Field(f"{name}_{extra}", "number", label=f"{name} {extra} (%)") for extra in extras]
    return tuple(fields)


def check_type(owner: str, name: str, value: Any, kinds: tuple[type, ...], what: str) -> None:
    """Raise TypeError unless ``value`` is one of ``kinds``; a bool is no int here.

    Args:
        owner: Who checks (the metric's name), first in the message.
        name: The option's name.
        value: Its value.
        kinds: The accepted types.
        what: The accepted types in words, for the message.

    Raises:
        TypeError: ``value`` is none of ``kinds``.

    >>> check_type("WER", "seed", True, (int,), "an int")
    Traceback (most recent call last):
    ...
    TypeError: WER: seed must be an int, got bool True
    """
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        raise TypeError(f"{owner}: {name} must be {what}, got {type(value).__name__} {value!r}")


def check_choice(owner: str, name: str, value: Any, choices: Sequence[str]) -> None:
    """Raise unless ``value`` is one of the strings ``choices``.

    Args:
        owner: Who checks (the metric's name).
        name: The option's name.
        value: Its value.
        choices: The accepted strings.

    Raises:
        TypeError: ``value`` is not a string.
        ValueError: ``value`` is not one of ``choices`` (the message lists them).

    >>> check_choice("WER", "aligner", "kaldi", ALIGNERS)
    Traceback (most recent call last):
    ...
    ValueError: WER: aligner 'kaldi' is not one of unit, sclite
    """
    check_type(owner, name, value, (str,), "a string")
    if value not in choices:
        raise ValueError(f"{owner}: {name} {value!r} is not one of {', '.join(choices)}")


def check_options(owner: str, **options: Any) -> None:
    """Check the options `lightscore.metrics.error_rate_base.ErrorRate` takes (all of them, by keyword).

    The grouping options (``group_by``, ``groups``, ``bins``) are checked by
    `lightscore.metrics.error_rate_groups.check_groups`.

    Args:
        owner: The metric's name, first in every message.
        **options: case, alignment, aligner, normalize, substitutions, fillers, per_utterance,
            ci, bootstrap, seed, block_bootstrap, utt2spk, reports, report_html, extras.

    Raises:
        TypeError: an option of the wrong type (``alignment="false"`` is not a bool).
        ValueError: an unknown case, aligner or normalizer, ``ci`` outside (0, 1),
            ``bootstrap`` < 1, a negative ``seed``, ``block_bootstrap`` without ``ci``,
            or an ``utt2spk`` that is not a file.

    >>> check_options("CER", case="fold", aligner="unit", normalize="none", ci=1.5)
    Traceback (most recent call last):
    ...
    ValueError: CER: ci 1.5 is not between 0 and 1 (e.g. 0.95)
    """
    # Imported here: importlib.metadata alone costs ``lightscore score --help`` 16 ms.
    from lightscore.text.normalize import NAMES as NORMALIZERS

    o = {"ci": None, "bootstrap": 1, "seed": 0, "block_bootstrap": False, "utt2spk": None, **options}
    check_choice(owner, "case", o["case"], CASES)
    check_choice(owner, "aligner", o["aligner"], ALIGNERS)
    check_choice(owner, "normalize", o["normalize"], NORMALIZERS)
    for flag in ("alignment", "per_utterance", "block_bootstrap", "reports", "report_html"):
        check_type(owner, flag, o.get(flag, False), (bool,), "a bool")
    path = (str, os.PathLike)
    nothing = type(None)
    check_type(owner, "substitutions", o.get("substitutions"), (*path, Mapping, nothing), "a path or a mapping")
    check_type(owner, "fillers", o.get("fillers"), (*path, list, tuple, set, frozenset, nothing), "a path or a list")
    check_type(owner, "ci", o["ci"], (float, nothing), "a float such as 0.95, or None")
    check_type(owner, "bootstrap", o["bootstrap"], (int,), "an int")
    check_type(owner, "seed", o["seed"], (int,), "an int")
    check_type(owner, "utt2spk", o["utt2spk"], (*path, nothing), "a path or None")
    if o["ci"] is not None and not 0 < o["ci"] < 1:
        raise ValueError(f"{owner}: ci {o['ci']!r} is not between 0 and 1 (e.g. 0.95)")
    if o["bootstrap"] < 1 or o["seed"] < 0:
        raise ValueError(f"{owner}: bootstrap must be >= 1 and seed >= 0, got {o['bootstrap']} and {o['seed']}")
    if o["ci"] is not None:
        from lightscore.analysis.bootstrap import check_replicates  # numpy: only for a metric with an interval

        try:
            check_replicates(o["bootstrap"], o["ci"])
        except ValueError as e:
            raise ValueError(f"{owner}: {e}") from None
    if o["block_bootstrap"] and o["ci"] is None:
        raise ValueError(f"{owner}: block_bootstrap resamples speakers for ci, which is not set")
    extras = o.get("extras", ())
    check_type(owner, "extras", extras, (list, tuple), "a list of names")
    for extra in extras:
        check_choice(owner, "extras item", extra, EXTRAS)
    if o["utt2spk"] is not None and not Path(o["utt2spk"]).is_file():
        raise ValueError(f"{owner}: utt2spk {str(o['utt2spk'])!r} is not a file")
