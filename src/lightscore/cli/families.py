"""``lightscore score|compare`` for the other families: translation (sacrebleu) and meetings (meeteval, md-eval)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from lightscore.cli.inputs import check_inputs, write_json
from lightscore.cli.output import format_table

__all__ = ["run_meeting_score", "run_translation_compare", "run_translation_score"]


def _translation_options(args: argparse.Namespace) -> dict[str, Any]:
    """The metric options a translation run takes from the command line (sacrebleu's names)."""
    options: dict[str, Any] = {"lowercase": args.lowercase or None}
    if args.tokenize is not None:
        if args.metric != "bleu":
            raise ValueError(f"--tokenize is BLEU's option, not {args.metric}'s")
        options["tokenize"] = args.tokenize
    return options


def run_translation_score(args: argparse.Namespace) -> int:
    """``lightscore score --metric bleu|chrf|chrf++|transter REF HYP [--ref2 R2 ...]``: the score and its signature."""
    from lightscore.offline.compare_translation import score_translation

    refs = [args.ref, *args.ref2]
    check_inputs({"REF": args.ref, "HYP": args.hyp, **{f"REF{k}": r for k, r in enumerate(args.ref2, 2)}}, None)
    metric, result = score_translation(args.metric, refs, args.hyp, **_translation_options(args))
    print(format_table({metric.outputs[0].name: {Path(args.hyp).name: result}}))
    print(f"signature: {metric.signature()}")
    return 0


def run_translation_compare(args: argparse.Namespace) -> int:
    """``lightscore compare --metric bleu REF HYP_A HYP_B``: sacrebleu's paired bootstrap and randomization tests."""
    from lightscore.analysis.verdict import p_text
    from lightscore.offline.compare_translation import compare_translations

    refs = [args.ref, *args.ref2]
    check_inputs({"REF": args.ref, "HYP_A": args.hyp_a, "HYP_B": args.hyp_b}, "compare")
    summary = compare_translations(args.metric, refs, args.hyp_a, args.hyp_b, seed=12345, **_translation_options(args))
    key, bs, ar = summary["metric"], summary["paired_bs"], summary["paired_ar"]
    print(f"{key}  A {summary['A']:.4f}  B {summary['B']:.4f}  ({summary['signature']})")
    print(f"paired bootstrap: B mean {bs['mean']:.4f} (+/- {bs['ci']:.4f}), p = {p_text(bs['p_value'])}")
    print(f"paired approximate randomization: p = {p_text(ar['p_value'])}")
    write_json(args.json, summary)
    return 0


def run_meeting_score(args: argparse.Namespace) -> int:
    """``lightscore score --metric cpwer|orcwer|tcpwer|der|jer REF HYP``: whole meeting files, a session per row."""
    import tempfile

    from lightscore import metrics
    from lightscore.segments import write_session_scps

    check_inputs({"REF": args.ref, "HYP": args.hyp}, "a meeting metric")
    name = {"cpwer": "CPWER", "orcwer": "ORCWER", "tcpwer": "TCPWER", "der": "DER", "jer": "JER"}[args.metric]
    if args.collar is None and args.metric == "tcpwer":
        raise ValueError("--metric tcpwer needs --collar S (meeteval's collar, in seconds)")
    options = {} if args.collar is None else {"collar": args.collar}
    if options and args.metric in ("cpwer", "orcwer"):
        raise ValueError(f"--collar is used by tcpwer, der and jer, not {args.metric}")
    report = getattr(args, "report", None)
    if report is not None:
        if args.metric not in ("cpwer", "orcwer", "tcpwer"):
            raise ValueError(f"--report writes the session view of cpwer, orcwer and tcpwer, not {args.metric}")
        options["report_html"] = True
    metric = getattr(metrics, name)(**options)
    with tempfile.TemporaryDirectory() as tmp:
        data = write_session_scps(args.ref, args.hyp, tmp)
        try:
            result = metric(data, "")
            if report is not None:
                import lightscore.offline  # noqa: F401  (installs the page writer the session view uses)
                from lightscore.core.runner import write_artifacts_of

                write_artifacts_of(metric, data, "", report)
        except Exception as e:
            raise _as_given(e, {str(data["ref"]): args.ref, str(data["hyp"]): args.hyp}) from e
    print(format_table({metric.outputs[0].name: {Path(args.hyp).name: result}}))
    print(f"settings: {metric.settings()}")
    if report is not None:
        print(f"report: {Path(report) / f'{metric.name.lower()}_report.html'}")
    return 0


def _as_given(error: Exception, files: dict[str, str]) -> Exception:
    """``error`` naming the user's files instead of the temporary SCP files (deleted by then) made from them.

    >>> _as_given(ValueError("DER: utterance 's1' (/tmp/x/ref.scp, /tmp/x/hyp.scp): bad"),
    ...           {"/tmp/x/ref.scp": "ref.stm", "/tmp/x/hyp.scp": "hyp.rttm"})
    ValueError("DER: utterance 's1' (ref.stm, hyp.rttm): bad")
    """
    text = str(error)
    for temporary, given in files.items():
        text = text.replace(temporary, given)
    if text == str(error):
        return error
    try:
        return type(error)(text)
    except TypeError:  # an exception whose constructor takes more than a message
        return ValueError(text)
