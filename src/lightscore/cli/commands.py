"""The commands of ``lightscore``: ``measure``, ``score``, ``compare`` and ``report``, one ``run_*`` each.

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
from pathlib import Path
from typing import Any

from lightscore.analysis.verdict import p_text
from lightscore.cli.families import run_meeting_score, run_translation_compare, run_translation_score
from lightscore.cli.inputs import check_inputs, write_json
from lightscore.cli.output import ProgressBar, format_comparison, format_rows, format_table
from lightscore.io.atomic import temp_target
from lightscore.text.choices import ERROR_RATES, MEETING_METRICS, TRANSLATION_METRICS

__all__ = ["run_compare", "run_compare_sets", "run_measure", "run_report", "run_score"]


# -- measure ------------------------------------------------------------------------


def run_measure(args: argparse.Namespace) -> int:
    """``lightscore measure``: progress to stderr, the result table and the metrics.json path to stdout."""
    from lightscore.offline.results import MeasureError
    from lightscore.offline.stage import measure

    bar = ProgressBar(sys.stderr)
    try:
        results = measure(args.config, overrides=args.overrides, progress=bar, scoreboard=args.scoreboard)
    except MeasureError as e:
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


# -- the input files ------------------------------------------------------------------------


def _metric_options(args: argparse.Namespace) -> dict[str, Any]:
    if args.metric == "ter" and args.bpemodel is None:
        raise ValueError("--metric ter needs --bpemodel M, the SentencePiece model whose pieces it counts")
    if args.metric != "ter" and args.bpemodel is not None:
        raise ValueError(f"--bpemodel is used only by --metric ter, not {args.metric}")
    if args.ci is not None:  # before scoring, not when the interval is computed
        from lightscore.analysis.bootstrap import check_replicates

        check_replicates(args.bootstrap, args.ci)
    return {name: getattr(args, name) for name in _METRIC_OPTIONS}


# The options of _scoring_options that build the metric (lightscore.offline.compare.metric_by_name's keywords).
_METRIC_OPTIONS = ("metric", "bpemodel", "case", "aligner", "normalize", "substitutions", "fillers", "ci",
                   "bootstrap", "seed", "block_bootstrap", "utt2spk")  # fmt: skip


# -- score ------------------------------------------------------------------------------


def run_score(args: argparse.Namespace) -> int:
    """``lightscore score``: one error rate of two SCP files; exit 1 if an artifact could not be written."""
    from lightscore.offline.compare import metric_by_name

    if args.metric in TRANSLATION_METRICS:
        return run_translation_score(args)
    if args.metric in MEETING_METRICS:
        return run_meeting_score(args)
    options = _metric_options(args)
    if _counts_segments(args, options):
        return _score_segments(args, options)
    prepared = _sclite_inputs(args, options)
    regular = check_inputs({"REF": args.ref, "HYP": args.hyp}, _rereads(args))
    report = args.report is not None
    metric = metric_by_name(**options, per_utterance=report, reports=report)
    data = {"ref": args.ref, "hyp": args.hyp}
    bar = ProgressBar(sys.stderr) if regular else None
    name = metric.name
    try:
        progress = None if bar is None else lambda key, test, done, total: bar(name, Path(args.hyp).name, done, total)
        result = metric(data, "", progress=progress)  # no output_dir: a folder that cannot be written loses no result
    except BaseException:
        if bar is not None:
            bar.close(show=False)  # the error says where it stopped
        raise
    if bar is not None:
        bar.close()
    _print_score(metric, result, prepared, args.ci)
    for folder in dict.fromkeys(d for d in (args.alignment, args.report) if d):
        metric.reports = folder == args.report  # the alignment folder gets the alignment alone
        _write_artifacts(metric, data, folder)
        print(f"{'report' if folder == args.report else 'alignment'}: {folder}")
    if report:
        _print_report_tables(metric, args.report)
    return 0


def _print_score(metric: Any, result: Mapping[str, Any], prepared: str, ci: float | None) -> None:
    """The lines ``lightscore score`` prints: Kaldi's summary, the rate, its settings, input, utterances, interval."""
    from lightscore.text.alignment import kaldi_summary

    name = metric.name
    print(kaldi_summary(name, result))
    print(f"{name} {result[name]}")
    print(f"settings: {metric.settings()}")
    if prepared:
        print(f"input: {prepared}")
    print(f"utterances: {result[f'{name}_utts']}, with errors: {result[f'{name}_utt_err']:.2f}%")
    if ci is not None:
        print(f"{ci:.0%} interval: [{result[f'{name}_ci_low']:.2f}, {result[f'{name}_ci_high']:.2f}]")


def _counts_segments(args: argparse.Namespace, options: Mapping[str, Any]) -> bool:
    """Whether an stm/ctm pair can be scored from hubscr's counts alone: no file to write, nothing that reads texts."""
    from lightscore.offline.sclite_inputs import counts_directly, input_format

    if args.alignment or args.report:
        return False
    return input_format(args.ref, args.hyp, args.format) == "stm" and counts_directly(options)


def _score_segments(args: argparse.Namespace, options: dict[str, Any]) -> int:
    """``lightscore score REF.stm HYP.ctm``: hubscr's counts straight into the metric (no SCP files)."""
    from lightscore.offline.compare import metric_by_name
    from lightscore.offline.sclite_inputs import score_segments, stm_options

    _sclite_options(options, stm_options(args.language))
    metric = metric_by_name(**options)
    prepared = score_segments(metric, args.ref, args.hyp, args.glm, args.language)
    _print_score(metric, metric.compute(), prepared, args.ci)
    return 0


def _sclite_inputs(args: argparse.Namespace, options: dict[str, Any]) -> str:
    """trn, or stm + ctm: score SCP files written to a temporary folder, with the options that score them as sclite.

    ``args.ref``, ``args.hyp`` and ``options`` are changed in place (lightscore.offline.sclite_inputs); returns
    how the files were made ("" for SCP input), printed beside the settings.
    """
    from lightscore.offline.sclite_inputs import input_format, sclite_scps

    found, prepared = input_format(args.ref, args.hyp, args.format), ""
    flags = {"markup": args.markup, "optional_deletable": args.optional_deletable, "fragments": args.fragments}
    if found != "stm" and (args.glm is not None or args.language != "english"):
        option = "--glm" if args.glm is not None else "--language"
        raise ValueError(f"{option} is hubscr's, for an stm reference and a ctm hypothesis: give REF.stm HYP.ctm")
    if found != "scp":
        if options["metric"] != "wer":
            raise ValueError(f"--metric {options['metric']}: trn and stm/ctm input is scored by wer (sclite's markup)")
        import atexit
        import shutil
        import tempfile

        scratch = tempfile.mkdtemp(prefix="lightscore-sclite-")
        atexit.register(shutil.rmtree, scratch, True)  # the inputs are re-read for --alignment and --report
        inputs = sclite_scps(args.ref, args.hyp, scratch, found, args.glm, args.language)
        args.ref, args.hyp = str(inputs.ref), str(inputs.hyp)
        if options.get("utt2spk") is None and inputs.utt2spk is not None:
            options["utt2spk"] = str(inputs.utt2spk)
        _sclite_options(options, inputs.options)
        prepared = inputs.prepared
    if any(flags.values()) and options["metric"] != "wer":
        raise ValueError(f"--markup, -D and -F are read by --metric wer, not {options['metric']}")
    options.update({key: True for key, on in flags.items() if on})
    return prepared


def _sclite_options(options: dict[str, Any], sclite: Mapping[str, Any]) -> None:
    """Add the options that score sclite's files; the user's ``--case`` stays (hubscr's texts come folded as
    sclite folds them), else the format's (Arabic's sclite keeps the case)."""
    options.update({key: value for key, value in sclite.items() if key != "case" or options.get("case") is None})


def _rereads(args: argparse.Namespace) -> str | None:
    return "--alignment" if args.alignment else "--report" if args.report else None


def _write_artifacts(metric: Any, data: Mapping[str, str], folder: str) -> None:
    """Write the metric's files into ``folder``; an OSError names the file that could not be written."""
    from lightscore.core.runner import write_artifacts_of

    try:
        write_artifacts_of(metric, data, "", folder)
    except OSError as e:
        where = Path(e.filename) if e.filename else None
        target = temp_target(where.name) if where else None
        if target:
            raise OSError(f"{where.with_name(target)}: cannot be written ({e.strerror})") from e
        # The folder itself failed: the first file the metric writes is the one that could not be.
        first = "alignment" if metric.alignment else "speakers.tsv"
        cause = f"{where}: {e.strerror}" if where else str(e)
        raise OSError(f"{Path(folder) / f'{metric.name.lower()}_{first}'}: cannot be written ({cause})") from e


def _print_report_tables(metric: Any, folder: str, top: int = 10) -> None:
    """Print the speaker table (from the metric's merged records) and the most frequent errors."""
    from lightscore.analysis.breakdown import SpeakerRow, speaker_table

    speakers = speaker_table(metric.utterance_records())
    print("\nSpeakers\n" + format_rows([SpeakerRow._fields, *speakers]))
    errors = metric.top_error_rows  # what write_artifacts just wrote to the top-errors TSV
    print("\nTop errors")
    for kind in ("substitution", "deletion", "insertion"):
        rows = [row for row in errors if row[0] == kind][:top]
        shown = [(f"{ref} -> {hyp}" if kind == "substitution" else ref or hyp, int(n)) for _, ref, hyp, n in rows]
        print(format_rows([(kind, "count"), *shown]) + ("" if kind == "insertion" else "\n"))


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
    options = _metric_options(args)
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
    if args.metric not in ERROR_RATES:
        raise ValueError(f"--metric {args.metric}: compare across test sets is for the error rates")
    options = _metric_options(args)
    if args.sets:
        sets = [TestSet(*values) for values in args.sets]
    else:
        sets = sets_from_dirs(*args.dirs, ref=args.ref_name, hyp=args.hyp_name)
    for test in sets:
        try:
            check_inputs({"REF": test.ref, "HYP_A": test.hyp_a, "HYP_B": test.hyp_b}, "compare across test sets")
        except (ValueError, OSError) as e:
            raise type(e)(f"test set {test.name!r}: {e}") from e
    summary = compare_sets(sets, **options, level=args.level)
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
    lines = [
        f"settings: {summary['settings']}",
        f"paired bootstrap: {boot['replicates']} replicates{block}, stratified by test set (pooled and macro "
        f"resample every set on its own); seeds: {seeds}",
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
    from lightscore.analysis.breakdown import speaker_table, top_errors
    from lightscore.offline.compare import check_same_ids, check_test_options, compare_scored, score_system
    from lightscore.report.html import write_report

    options = _metric_options(args)
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
            *systems, ci=ci, bootstrap=args.bootstrap, seed=args.seed, block_bootstrap=args.block_bootstrap,
            level=args.level,
        )  # fmt: skip
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
