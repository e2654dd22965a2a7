"""The commands ``measure``, ``compare`` and ``report``, one ``run_*`` each (``score`` is `lightscore.cli.score`).

`lightscore.cli.parser.build_parser` binds each subcommand to its ``run_*``; every
one takes the parsed arguments and returns the exit status. The library is
imported inside each command, so the parser loads the standard library alone.
Results go to stdout, progress bars (tqdm) and errors to stderr.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from lightscore.analysis.verdict import p_text
from lightscore.cli.families import compare_family_sets, run_meeting_compare, run_translation_compare
from lightscore.cli.inputs import check_inputs, metric_options, write_json
from lightscore.cli.output import ProgressBar, format_comparison, format_rows, format_table
from lightscore.text.choices import ERROR_RATES, MEETING_METRICS, TRANSLATION_METRICS

__all__ = ["run_compare", "run_compare_sets", "run_measure", "run_report"]


# -- measure ------------------------------------------------------------------------


def run_measure(args: argparse.Namespace) -> int:
    """``lightscore measure``: progress to stderr, the result table and the metrics.json path to stdout.

    Stopped by Ctrl-C or SIGTERM, it prints the finished pairs' results (written to metrics.json) before
    `main` exits with 130 or 143.
    """
    from lightscore.offline.interrupts import MeasureInterrupted
    from lightscore.offline.results import MeasureError
    from lightscore.offline.stage import measure

    bar = ProgressBar(sys.stderr)
    try:
        results = measure(args.config, overrides=args.overrides, progress=bar, scoreboard=args.scoreboard)
    except (MeasureError, MeasureInterrupted) as e:  # the finished pairs' results are shown, then the error
        bar.close()
        _print_results(e.results)
        raise
    finally:
        bar.close()
    _print_results(results)
    return 0


def _print_results(results: Any) -> None:
    if int(os.environ.get("RANK", "0")) != 0:
        return  # under torchrun every rank holds the merged results; rank 0 alone reports them
    if results:
        print(format_table(results))
    print(f"metrics.json: {results.path}")


# -- compare ------------------------------------------------------------------------------


def run_compare(args: argparse.Namespace) -> int:
    """``lightscore compare``: both systems, the five paired tests and the verdict; ``--json OUT`` keeps all."""
    from lightscore.offline.compare import compare

    if args.sets or args.dirs:
        return run_compare_sets(args)
    if args.table:
        raise ValueError("--table writes the table of a comparison across test sets: give --set or --dirs")
    if args.hyp_b is None:
        raise ValueError("compare needs REF HYP_A HYP_B, or --set NAME REF HYP_A HYP_B per test set, or --dirs")
    if args.metric in TRANSLATION_METRICS:
        return run_translation_compare(args)
    if args.metric in MEETING_METRICS:
        return run_meeting_compare(args)
    options = metric_options(args)
    check_inputs({"REF": args.ref, "HYP_A": args.hyp_a, "HYP_B": args.hyp_b}, "compare")
    summary = compare(args.ref, args.hyp_a, args.hyp_b, **options, level=args.level)
    print(format_comparison(summary))
    write_json(args.json, summary)
    return 0


def run_compare_sets(args: argparse.Namespace) -> int:
    """``lightscore compare --set ...`` or ``--dirs A B``: a row per test set, then pooled and macro."""
    from lightscore.offline.compare_sets import TestSet, compare_sets, sets_from_dirs
    from lightscore.report.scoreboard import write_scoreboard

    if args.ref is not None or (args.sets and args.dirs):
        raise ValueError("give the test sets one way: REF HYP_A HYP_B, --set NAME REF HYP_A HYP_B (repeated) or --dirs")
    if args.metric not in (*ERROR_RATES, *TRANSLATION_METRICS, *MEETING_METRICS):
        raise ValueError(
            f"--metric {args.metric}: compare across test sets is for the error rates, the translation metrics "
            "and the meeting metrics"
        )
    options = metric_options(args) if args.metric in ERROR_RATES else {}
    if args.sets:
        sets = [TestSet(*values) for values in args.sets]
    else:
        sets = sets_from_dirs(*args.dirs, ref=args.ref_name, hyp=args.hyp_name)
    for test in sets:
        try:
            check_inputs({"REF": test.ref, "HYP_A": test.hyp_a, "HYP_B": test.hyp_b}, "compare across test sets")
        except (ValueError, OSError) as e:
            raise type(e)(f"test set {test.name!r}: {e}") from e
    if args.metric in ERROR_RATES:
        summary = compare_sets(sets, **options, level=args.level)
    else:
        summary = compare_family_sets(args, sets)
    print(format_sets_comparison(summary))
    write_json(args.json, summary)
    if args.table:
        print("table: " + ", ".join(str(path) for path in write_scoreboard(args.table, summary["rows"])))
    return 0


def format_sets_comparison(summary: Mapping[str, Any]) -> str:
    """What ``lightscore compare --set ...`` prints: settings, how it resampled, the table, the pooled verdict."""
    boot = summary["bootstrap"]
    seeds = ", ".join(f"{name} {seed}" for name, seed in boot["seeds"].items())
    block = " (whole speakers)" if boot["block_bootstrap"] else ""
    method = boot.get("method", "stratified by test set (pooled and macro resample every set on its own)")
    lines = [
        f"settings: {summary['settings']}",
        f"paired bootstrap: {boot['replicates']} replicates{block}, {method}; seeds: {seeds}",
    ]
    name, ci = summary["metric"], summary["ci"]
    head = ("test", "utts", "ref tokens", f"{name} A", f"{name} B", "B - A", f"{ci:.0%} interval", "p", "verdict")
    rows = [head]
    for row in summary["rows"]:
        interval = f"[{row['ci_low']:+.2f}, {row['ci_high']:+.2f}]"
        cells = (row["utterances"], row["ref_tokens"], row[f"{name}_a"], row[f"{name}_b"], f"{row['difference']:+.2f}")
        rows.append((row["test"], *cells, interval, p_text(row["p"], 4), row["verdict"]))
    lines.append(format_rows(rows))
    lines.append(f"verdict (pooled): {summary['verdict']}")
    return "\n".join(lines)


# -- report ------------------------------------------------------------------------------


def run_report(args: argparse.Namespace) -> int:
    """``lightscore report``: the HTML report of one system, or of two with their paired comparison."""
    if args.metric == "pnc_wer":  # its own page: the word, case and punctuation classes (docs/recognition-practice.md)
        from lightscore.cli.pnc_timing import run_pnc_report

        return run_pnc_report(args)
    from lightscore.analysis.breakdown import speaker_table, top_errors
    from lightscore.offline.compare import check_same_ids, check_test_options, compare_scored, score_system
    from lightscore.report.html import write_report

    options = metric_options(args)
    files = {"REF": args.ref, "HYP": args.hyp, **({"HYP_B": args.hyp_b} if args.hyp_b else {})}
    check_inputs(files, "report")
    if args.hyp_b:
        check_same_ids(args.ref, args.hyp, args.hyp_b)
    two = bool(args.hyp_b)
    ci = 0.95 if two and args.ci is None else args.ci
    options["ci"] = ci
    if two:
        check_test_options(ci, args.bootstrap, args.level)
    systems = [score_system(args.ref, args.hyp, "A", **options)]
    if two:
        systems.append(score_system(args.ref, args.hyp_b, "B", **options))
    comparison = None
    if two:
        summary = compare_scored(
            *systems,
            ci=ci,
            bootstrap=args.bootstrap,
            seed=args.seed,
            block_bootstrap=args.block_bootstrap,
            level=args.level,
        )
        comparison = _report_comparison(summary)
    metric = systems[0].metric
    tables = {}
    for system in systems:
        top = top_errors(system.alignments)
        suffix = f", {system.name}" if two else ""
        tables.update({f"{kind.capitalize()}{suffix}": rows for kind, rows in top.items()})
    details = {"reference": args.ref, "A": args.hyp, **({"B": args.hyp_b} if two else {})}
    details["settings"] = metric.settings()
    write_report(
        args.output,
        [(s.name, s.result, list(s.alignments.items())) for s in systems],
        title=args.title,
        metric=metric.name,
        details=details,
        speakers=speaker_table(systems[-1].records) if not two else _speakers_side_by_side(systems),
        top_errors=tables,
        comparison=comparison,
        max_utterances=args.max_utterances,
    )
    print(f"report: {args.output}")
    return 0


def _report_comparison(summary: Mapping[str, Any]) -> dict[str, Any]:
    from lightscore.offline.compare import TEST_NAMES

    boot = summary["bootstrap"]
    labels = {**TEST_NAMES, "mcnemar": "McNemar (exact)"}  # the page has room to say which p
    return {
        "difference": boot["difference"],
        "ci": boot["ci"],
        "P(B better)": boot["p_b_better"],
        "p_values": {label: summary[key]["p"] for key, label in labels.items()},
        "verdict": summary["verdict"],
    }


def _speakers_side_by_side(systems: Sequence[Any]) -> list[dict[str, Any]]:
    """One row per speaker with both systems' rates (worst in A first)."""
    from lightscore.analysis.breakdown import speaker_table

    a, b = ({row.speaker: row for row in speaker_table(s.records)} for s in systems)
    return [
        {"speaker": spk, "utterances": row.utterances, "words": row.words, "rate A": row.rate, "rate B": b[spk].rate}
        for spk, row in a.items()
    ]
