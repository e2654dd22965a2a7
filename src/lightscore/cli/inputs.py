"""What every command shares: the input checks, the options that build a metric, and the one JSON writer."""

from __future__ import annotations

import argparse
import json
import os
import stat
from collections.abc import Mapping
from typing import Any

__all__ = [
    "METRIC_OPTIONS",
    "OPTION_USERS",
    "check_input",
    "check_inputs",
    "check_options",
    "metric_options",
    "write_json",
]


def check_input(label: str, path: str) -> bool:
    """Raise unless ``path`` can be read as an SCP file; return True when it is a regular file.

    A pipe (FIFO, ``/dev/stdin`` fed by one) or a terminal is read as a stream, once:
    it can be scored, but gets no progress bar (counting its rows would consume it)
    and no artifact that re-reads the inputs.

    Raises:
        FileNotFoundError: nothing at ``path``.
        IsADirectoryError: ``path`` is a directory.
        ValueError: ``path`` is a socket or a block device.

    >>> check_input("REF", "/")
    Traceback (most recent call last):
    ...
    IsADirectoryError: REF /: is a directory, not an SCP file
    """
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise FileNotFoundError(f"{label} {path}: no such file") from None
    if stat.S_ISREG(mode):
        return True
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(f"{label} {path}: is a directory, not an SCP file")
    if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode):
        return False
    kind = "a socket" if stat.S_ISSOCK(mode) else "a block device" if stat.S_ISBLK(mode) else "not a file"
    raise ValueError(f"{label} {path}: is {kind}, not an SCP file")


def check_inputs(files: Mapping[str, str], rereads: str | None) -> bool:
    """Check every input; True when all are regular files. ``rereads`` names an option that needs them so."""
    regular = {label: check_input(label, path) for label, path in files.items()}
    streams = [label for label, ok in regular.items() if not ok]
    if len(streams) > 1 or (streams and len({os.path.realpath(p) for p in files.values()}) < len(files)):
        shown = ", ".join(f"{label} {files[label]}" for label in streams)
        raise ValueError(f"{shown}: only one input can be a stream (a pipe or standard input); save the others")
    first = next(iter(files))
    if first in streams:
        # The first file leads the lockstep read, and a repeated id in it is confirmed by reading it again.
        raise ValueError(
            f"{first} {files[first]} is a stream: only the hypothesis can be read from a pipe; save the reference"
        )
    if streams and rereads:
        label = streams[0]
        raise ValueError(f"{label} {files[label]} is a stream, read once; {rereads} reads it again: save it to a file")
    return not streams


def write_json(path: str | None, summary: Mapping[str, Any]) -> None:
    """With ``--json PATH``: the comparison as JSON, written atomically (no NaN: every value is a number)."""
    if not path:
        return
    from lightscore.scp.files import atomic_open

    with atomic_open(path) as f:
        json.dump(summary, f, indent=2, allow_nan=False)
        f.write("\n")
    print(f"json: {path}")


def metric_options(args: argparse.Namespace) -> dict[str, Any]:
    """The keywords of `lightscore.offline.compare.metric_by_name` the scoring options give (score, compare, report).

    Raises:
        ValueError: ``--bpemodel`` without ``--metric ter`` or the other way round; too few replicates for ``--ci``.
    """
    if args.metric == "ter" and args.bpemodel is None:
        raise ValueError("--metric ter needs --bpemodel M, the SentencePiece model whose pieces it counts")
    if args.metric != "ter" and args.bpemodel is not None:
        raise ValueError(f"--bpemodel is used only by --metric ter, not {args.metric}")
    if args.ci is not None:  # before scoring, not when the interval is computed
        from lightscore.analysis.bootstrap import check_replicates

        check_replicates(args.bootstrap, args.ci)
    return {name: getattr(args, name) for name in METRIC_OPTIONS}


# The options that build an error rate (metric_by_name's keywords besides metric and bpemodel): written once,
# because METRIC_OPTIONS passes them on and OPTION_USERS refuses them for any metric but an error rate.
_ERROR_RATE_BUILD = (
    "case",
    "aligner",
    "normalize",
    "substitutions",
    "fillers",
    "ci",
    "bootstrap",
    "seed",
    "block_bootstrap",
    "utt2spk",
)
# The options of _scoring_options that build the metric (lightscore.offline.compare.metric_by_name's keywords).
METRIC_OPTIONS = ("metric", "bpemodel", *_ERROR_RATE_BUILD)


# Which --metric families read each option; an option given for another metric is refused, never ignored.
_ERROR_RATE = "the error rates"
_TRANSLATION = "the translation metrics"
_PNC = "per, case_er and pnc_wer"
_PNC_PAGE = "pnc_wer"
_TIMING = "word_timing"
_KEYWORDS = "keywords"
_CHARDIFF = "keywords and oracle_wer"
_MEETING_WER = "the meeting word error rates"
_MEETING_TIMED = "the time-constrained WERs and the diarization metrics"
_MEETING_UEM = "the meeting metrics"
_MEETING_SORTED = "the time-constrained WERs"
_LATENCY = "simul_latency"
_RESEGMENTED = "the translation metrics, wer and cer"
OPTION_USERS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(
        (
            *_ERROR_RATE_BUILD,
            "markup",
            "optional_deletable",
            "fragments",
            "format",
            "glm",
            "language",
            "alignment",
            "level",
        ),
        (_ERROR_RATE,),
    ),
    # der and jer: families.py says it is not theirs
    "report": (_ERROR_RATE, _MEETING_WER, _MEETING_TIMED, _PNC_PAGE, _KEYWORDS),
    **dict.fromkeys(("ref2", "tokenize", "lowercase"), (_TRANSLATION,)),
    "collar": (_MEETING_TIMED,),
    "marks": (_PNC,),
    **dict.fromkeys(("tolerances", "emit"), (_TIMING,)),
    **dict.fromkeys(("keywords", "oov"), (_KEYWORDS,)),
    "chardiff": (_CHARDIFF,),
    "uem": (_MEETING_UEM,),
    **dict.fromkeys(("reference_sort", "hypothesis_sort"), (_MEETING_SORTED,)),
    **dict.fromkeys(("latency_source", "latency_unit", "computation_aware", "no_use_ref_len"), (_LATENCY,)),
    **dict.fromkeys(("resegment", "talks", "reseg_tokenize"), (_RESEGMENTED,)),
}
"""Option (argparse ``dest``) -> the metric families that read it."""


_TIME_CONSTRAINED = ("tcpwer", "tcorcwer", "greedy_tcorcwer", "ditcpwer")
_DIARIZATION = ("der", "jer", "purity_coverage")
_WORD_ERRORS = ("cpwer", "orcwer", "greedy_orcwer", "dicpwer", "mimower", *_TIME_CONSTRAINED)
_MEETING_FAMILIES = {
    _MEETING_WER: _WORD_ERRORS,
    _MEETING_TIMED: (*_TIME_CONSTRAINED, *_DIARIZATION),
    _MEETING_UEM: (*_WORD_ERRORS, *_DIARIZATION),
    _MEETING_SORTED: _TIME_CONSTRAINED,
}


_PNC_FAMILIES = {_PNC: ("per", "case_er", "pnc_wer"), _PNC_PAGE: ("pnc_wer",), _TIMING: ("word_timing",)}


def _family_names(metric: str) -> set[str]:
    """The families in `OPTION_USERS` that ``metric`` belongs to.

    >>> sorted(_family_names("ditcpwer"))  # doctest: +NORMALIZE_WHITESPACE
    ['the meeting metrics', 'the meeting word error rates', 'the time-constrained WERs',
     'the time-constrained WERs and the diarization metrics']
    """
    from lightscore.text.choices import ERROR_RATES, TRANSLATION_METRICS

    if metric in ERROR_RATES:
        return {_ERROR_RATE, *((_RESEGMENTED,) if metric in ("wer", "cer") else ())}
    if metric in TRANSLATION_METRICS:
        return {_TRANSLATION, _RESEGMENTED}
    families = {
        **_MEETING_FAMILIES,
        **_PNC_FAMILIES,
        _KEYWORDS: ("keywords",),
        _CHARDIFF: ("keywords", "oracle_wer"),
        _LATENCY: ("simul_latency",),
    }
    return {family for family, metrics in families.items() if metric in metrics}


def check_options(args: argparse.Namespace, defaults: Mapping[str, Any], flags: Mapping[str, str]) -> None:
    """Refuse an option given a value other than its default that ``--metric`` does not read.

    Args:
        args: The parsed arguments of ``score``, ``compare`` or ``report``.
        defaults: Each option's default in that command (argparse ``dest`` -> value).
        flags: Each option's name on the command line (``dest`` -> ``--case``).

    Raises:
        ValueError: naming the option, the metric and the metrics that read it.

    >>> args = argparse.Namespace(metric="bleu", case="fold", tokenize=None)
    >>> check_options(args, {"case": None, "tokenize": None}, {"case": "--case", "tokenize": "--tokenize"})
    Traceback (most recent call last):
    ...
    ValueError: --case is used by the error rates, not bleu (--metric bleu)
    """
    families = _family_names(args.metric)
    for dest, users in OPTION_USERS.items():
        if dest not in defaults or getattr(args, dest, defaults[dest]) == defaults[dest]:
            continue
        if not families & set(users):
            raise ValueError(
                f"{flags[dest]} is used by {' and '.join(users)}, not {args.metric} (--metric {args.metric})"
            )
