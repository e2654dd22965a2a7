"""``lightscore score --metric per|case_er|pnc_wer|word_timing``: punctuation, case and word timing.

``per``, ``case_er`` and ``pnc_wer`` read two SCP files of texts as written (``utt_id text``); ``--marks``
chooses the marks. ``pnc_wer --report DIR`` also writes ``DIR/pnc_wer_report.html`` (the alignment, the
error classes, the most frequent case and punctuation differences). ``word_timing`` reads two ctm files
(a ctm's first field is the utterance id), or two SCP files whose values name ctm files or hold SegLST
JSON; ``--emit FILE`` (``utt_id seconds ...``, one time per hypothesis word) adds the emission latency.
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lightscore.cli.families import _as_given
from lightscore.cli.inputs import check_inputs
from lightscore.cli.output import format_rows
from lightscore.text.recognition.punctuation import mark_name

__all__ = ["parse_tolerances", "run_pnc_report", "run_pnc_timing_score"]

_COUNTS = ("cor", "sub", "del", "ins", "ref_len")  # PER_cor ... PER_ref_len; per mark, the first four
_NAMES = {"per": "PunctuationErrorRate", "case_er": "CaseErrorRate", "pnc_wer": "PnCWER", "word_timing": "WordTiming"}


def parse_tolerances(text: str) -> tuple[int, ...]:
    """``--tolerances 50,100,200`` as whole milliseconds.

    Raises:
        ValueError: a value that is not a whole number of milliseconds.

    >>> parse_tolerances("50, 100,200")
    (50, 100, 200)
    >>> parse_tolerances("50,0.1")
    Traceback (most recent call last):
    ...
    ValueError: --tolerances 50,0.1: '0.1' is not a whole number of milliseconds (e.g. 50,100,200)
    """
    values = []
    for part in text.split(","):
        try:
            values.append(int(part))
        except ValueError:
            raise ValueError(
                f"--tolerances {text}: {part.strip()!r} is not a whole number of milliseconds (e.g. 50,100,200)"
            ) from None
    return tuple(values)


def _options(args: argparse.Namespace) -> dict[str, Any]:
    """The metric's options from the command line (`lightscore.cli.inputs.check_options` refused the others)."""
    if args.metric == "word_timing":
        options: dict[str, Any] = {"emission": getattr(args, "emit", None) is not None}
        if getattr(args, "tolerances", None) is not None:
            options["tolerances"] = parse_tolerances(args.tolerances)
        return options
    options = {} if getattr(args, "marks", None) is None else {"marks": args.marks}
    if args.metric == "pnc_wer" and getattr(args, "report", None) is not None:
        options["report_html"] = True
    return options


def _timing_data(args: argparse.Namespace, tmp: str) -> dict[str, Any]:
    """The SCP files WordTiming reads: ctm files become a row per reference utterance; SCP files stay as given."""
    from lightscore.scp import read_scp, write_scp
    from lightscore.segments import write_session_scps

    if Path(args.ref).suffix == ".ctm" and Path(args.hyp).suffix == ".ctm":
        data: dict[str, Any] = dict(write_session_scps(args.ref, args.hyp, tmp, fmt="ctm"))
    else:
        data = {"ref": args.ref, "hyp": args.hyp}
    if getattr(args, "emit", None) is not None:
        check_inputs({"EMIT": args.emit}, None)
        emitted = {utt: value for _, utt, value in read_scp(args.emit)}
        ids = [utt for _, utt, _ in read_scp(data["ref"])]
        missing = [utt for utt in ids if utt not in emitted]
        if missing:
            raise ValueError(f"--emit {args.emit}: no emission times for utterance {missing[0]!r}")
        extra = sorted(set(emitted) - set(ids))
        if extra:
            raise ValueError(f"--emit {args.emit}: utterance {extra[0]!r} is not in the reference {args.ref}")
        data["emit"] = write_scp(Path(tmp) / "emit.scp", ((utt, emitted[utt]) for utt in ids))
    return data


def _print_result(metric: Any, result: Mapping[str, Any], hyp: str) -> None:
    """The result as sections of ``name value`` rows: the rate first, then the classes or marks."""
    print(f"{metric.name}  {Path(hyp).name}")
    if metric.name == "PnC_WER":
        rates = [[key, result[key]] for key in ("PnC_WER", "PnC_normalized_WER")]
        classes = [["class", "errors", "share %"]]
        for key in ("word", "case", "punct", "case_punct"):
            classes.append([key, result[f"PnC_{key}_errors"], result.get(f"PnC_{key}_share", "-")])
        print(format_rows(rates))
        print("error classes")
        print(format_rows(classes))
    elif metric.name == "PER":
        keys = ("PER", "PER_over_ref", *(f"PER_{c}" for c in _COUNTS))
        print(format_rows([[key, result.get(key, "-")] for key in keys]))
        rows = [["mark", "PER", *_COUNTS[:4]]]
        for mark in metric.marks:
            name = mark_name(mark)
            rows.append([mark, result.get(f"PER_{name}", "-"), *(result[f"PER_{name}_{c}"] for c in _COUNTS[:4])])
        print("per mark")
        print(format_rows(rows))
    else:
        print(format_rows([[key, value] for key, value in result.items()]))
    print(f"settings: {metric.settings()}")


def run_pnc_timing_score(args: argparse.Namespace) -> int:
    """Score one HYP against REF with PunctuationErrorRate, CaseErrorRate, PnCWER or WordTiming; print the result.

    Args:
        args: ``score``'s arguments (``ref``, ``hyp``, ``metric``; ``marks``, ``tolerances``, ``emit``, ``report``).

    Returns:
        0.

    Raises:
        ValueError: an option the metric does not read, or an input that cannot be scored (named).
    """
    from lightscore import metrics
    from lightscore.core.runner import write_artifacts_of

    check_inputs({"REF": args.ref, "HYP": args.hyp}, None)
    metric = getattr(metrics, _NAMES[args.metric])(**_options(args))
    report = getattr(args, "report", None)
    with tempfile.TemporaryDirectory() as tmp:
        data = _timing_data(args, tmp) if args.metric == "word_timing" else {"ref": args.ref, "hyp": args.hyp}
        given = {str(data[k]): v for k, v in (("ref", args.ref), ("hyp", args.hyp)) if str(data[k]) != v}
        try:
            result = metric(data, "")
            if report is not None:
                write_artifacts_of(metric, data, "", report)
        except Exception as e:
            raise _as_given(e, given) from e
    _print_result(metric, result, args.hyp)
    if report is not None:
        print(f"report: {Path(report) / 'pnc_wer_report.html'}")
    return 0


def run_pnc_report(args: argparse.Namespace) -> int:
    """``lightscore report REF HYP --metric pnc_wer -o PAGE``: PnC-WER's page (the error classes) for one system.

    Raises:
        ValueError: a second hypothesis (the page shows one system), or an input that cannot be scored.
    """
    from lightscore.metrics import PnCWER

    if getattr(args, "hyp_b", None):
        raise ValueError("the pnc_wer report shows one system: give REF HYP, not HYP_B")
    check_inputs({"REF": args.ref, "HYP": args.hyp}, "report")
    metric = PnCWER(**_options(args))
    data = {"ref": args.ref, "hyp": args.hyp}
    metric(data, "")
    with metric.scoring_files(data):
        title = "PnC-WER report" if args.title == "Error report" else args.title
        metric.write_report_page(args.output, title=title, max_utterances=args.max_utterances)
    print(f"report: {args.output}")
    return 0
