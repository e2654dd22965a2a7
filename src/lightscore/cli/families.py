"""``lightscore score|compare`` for the other families: translation (sacrebleu) and meetings (meeteval, md-eval)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from lightscore.cli.inputs import check_inputs, write_json
from lightscore.cli.output import format_table

__all__ = [
    "MEETING_CLASSES",
    "meeting_options",
    "run_meeting_score",
    "run_translation_compare",
    "run_translation_score",
]


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


def compare_family_sets(args: argparse.Namespace, sets: list) -> dict[str, Any]:
    """``lightscore compare --metric bleu|...|cpwer|... --set ...``: the translation or meeting comparison across sets.

    Translation: sacrebleu's paired tests per set, set ``k`` seeded ``12345 + k`` (the first set's row is
    ``lightscore compare`` on that set alone); meetings: the paired bootstrap over sessions, set ``k`` seeded ``k``.
    ``--ci``, ``--bootstrap``, ``--seed`` and ``--level`` are the error rates' options
    (`lightscore.cli.inputs.check_options` refuses them here): these families take their defaults.
    """
    from lightscore.text.choices import TRANSLATION_METRICS

    if args.metric in TRANSLATION_METRICS:
        from lightscore.analysis.mt_significance import SACREBLEU_SEED
        from lightscore.offline.compare_translation import compare_translation_sets

        if args.ref2:
            raise ValueError("--ref2 adds a reference to one set: across test sets each set has its one REF")
        options = _translation_options(args)
        return compare_translation_sets(args.metric, sets, seed=SACREBLEU_SEED, **options)
    from lightscore.offline.compare_meetings import compare_meeting_sets

    return compare_meeting_sets(sets, _meeting_builder(args))


def _meeting_builder(args: argparse.Namespace) -> Any:
    """A function building the ``--metric`` meeting metric with the command line's options (checked now)."""
    import functools

    from lightscore import metrics

    metric_class = getattr(metrics, MEETING_CLASSES[args.metric])
    return functools.partial(metric_class, **meeting_options(args, metric_class))


def run_meeting_compare(args: argparse.Namespace) -> int:
    """``lightscore compare --metric cpwer|der|... REF HYP_A HYP_B``: both systems, a paired bootstrap over sessions."""
    from lightscore.analysis.verdict import p_text
    from lightscore.offline.compare_meetings import compare_meetings

    check_inputs({"REF": args.ref, "HYP_A": args.hyp_a, "HYP_B": args.hyp_b}, "a meeting metric")
    summary = compare_meetings(_meeting_builder(args), args.ref, args.hyp_a, args.hyp_b)
    name, boot = summary["metric"], summary["bootstrap"]
    low, high = boot["ci"]
    print(f"settings: {summary['settings']}")
    print(f"{name}  A {summary['a'][name]:.2f}  B {summary['b'][name]:.2f}  ({summary['utterances']} sessions)")
    print(
        f"paired bootstrap over sessions: B - A {boot['difference']:+.2f}, 95% interval "
        f"[{low:+.2f}, {high:+.2f}], p = {p_text(boot['p'])}"
    )
    print(f"verdict: {summary['verdict']}")
    write_json(args.json, summary)
    return 0


# Each meeting --metric name (lightscore.text.choices.MEETING_METRICS) and its class in lightscore.metrics.
MEETING_CLASSES = {
    "cpwer": "CPWER",
    "orcwer": "ORCWER",
    "tcpwer": "TCPWER",
    "der": "DER",
    "jer": "JER",
    "greedy_orcwer": "GreedyORCWER",
    "tcorcwer": "TCORCWER",
    "greedy_tcorcwer": "GreedyTCORCWER",
    "dicpwer": "DICPWER",
    "ditcpwer": "DITCPWER",
    "mimower": "MIMOWER",
    "purity_coverage": "PurityCoverage",
}
_SORTS = {"segment": "segment", "word": "word", "true": True, "false": False}  # the command line's words -> meeteval's


def meeting_options(args: argparse.Namespace, metric_class: type) -> dict[str, Any]:
    """The keywords the command line gives a meeting metric's class: the options given, each one it takes.

    ``lightscore.cli.inputs.check_options`` has refused the options of other families; an option the
    class itself does not take is refused here, in one line.

    Args:
        args: The parsed ``score`` arguments.
        metric_class: The metric's class (`MEETING_CLASSES`).

    Returns:
        The keywords to build it with.

    Raises:
        ValueError: an option the metric does not take, or no ``--collar`` for a metric that needs one.

    >>> from lightscore.metrics.meeting_wer import TCPWER
    >>> args = argparse.Namespace(metric="tcpwer", collar=5.0, uem=None, reference_sort="true", hypothesis_sort=None)
    >>> meeting_options(args, TCPWER)
    {'collar': 5.0, 'reference_sort': True}
    >>> meeting_options(argparse.Namespace(metric="tcpwer", collar=None), TCPWER)
    Traceback (most recent call last):
    ...
    ValueError: --metric tcpwer needs --collar S (meeteval's collar, in seconds)
    """
    import inspect

    parameters = inspect.signature(metric_class).parameters
    given = {name: getattr(args, name, None) for name in ("collar", "uem", "reference_sort", "hypothesis_sort")}
    given = {name: value for name, value in given.items() if value is not None}
    for name in ("reference_sort", "hypothesis_sort"):
        if name in given:
            given[name] = _SORTS[given[name]]
    collar = parameters.get("collar")
    if "collar" not in given and collar is not None and collar.default is inspect.Parameter.empty:
        raise ValueError(f"--metric {args.metric} needs --collar S (meeteval's collar, in seconds)")
    for name in given:
        if name not in parameters:
            flag = "--" + name.replace("_", "-")
            raise ValueError(f"{flag} is not an option of {metric_class.__name__} (--metric {args.metric})")
    return given


def run_meeting_score(args: argparse.Namespace) -> int:
    """``lightscore score --metric cpwer|tcpwer|dicpwer|mimower|der|... REF HYP``: a session per row.

    The options: ``--collar``, ``--uem``, ``--reference-sort``/``--hypothesis-sort`` (`meeting_options`) and
    ``--report DIR`` (the session view of the word error rates).
    """
    import inspect
    import tempfile

    from lightscore import metrics
    from lightscore.segments import write_session_scps

    check_inputs({"REF": args.ref, "HYP": args.hyp}, "a meeting metric")
    metric_class = getattr(metrics, MEETING_CLASSES[args.metric])
    options = meeting_options(args, metric_class)
    report = getattr(args, "report", None)
    if report is not None:
        if "report_html" not in inspect.signature(metric_class).parameters:
            raise ValueError(f"--report writes the session view of the meeting word error rates, not {args.metric}")
        options["report_html"] = True
    metric = metric_class(**options)
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
