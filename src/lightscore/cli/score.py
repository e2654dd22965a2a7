"""``lightscore score``: an error rate of REF against one HYP, or against several in turn (a sweep).

One HYP: its Kaldi summary line, the rate, the settings, and with ``--alignment``
or ``--report`` the files. Several (Kaldi's recipes score one decoding per LM
weight and insertion penalty): each one's lines under ``hyp: FILE``, then the
lowest rate as ``best:``; an stm reference is read and GLM-filtered once for all
of them (`lightscore.text.hubscr.pipeline.HubscrReference`). A HYP that cannot be scored
is named on stderr while the others go on, and the exit status is 1.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from lightscore.cli.families import run_meeting_score, run_translation_score
from lightscore.cli.inputs import check_input, check_inputs, metric_options
from lightscore.cli.output import ProgressBar, format_rows
from lightscore.io.atomic import temp_target
from lightscore.text.choices import (
    ERROR_RATES,
    LATENCY_METRICS,
    MEETING_METRICS,
    PNC_TIMING_METRICS,
    RECOGNITION_PRACTICE,
    TRANSLATION_METRICS,
)

__all__ = ["run_score"]

Scored = tuple[Any, Mapping[str, Any], str]  # a metric, its result, and how its input was made


def run_score(args: argparse.Namespace) -> int:
    """``lightscore score REF HYP [HYP ...]``; exit 1 if a HYP could not be scored or an artifact not written."""
    hyps = args.hyp
    if args.metric in RECOGNITION_PRACTICE:  # oracle_wer's HYP files are the ranks of one n-best list, not a sweep
        from lightscore.cli.recognition import run_recognition_score

        return run_recognition_score(args)
    if len(hyps) > 1:
        return _score_sweep(args, hyps)
    args.hyp = hyps[0]
    from lightscore.cli.resegment import resegment_asked, run_resegment_score

    if resegment_asked(args):
        return run_resegment_score(args)
    if args.metric in TRANSLATION_METRICS:
        return run_translation_score(args)
    if args.metric in MEETING_METRICS:
        return run_meeting_score(args)
    if args.metric in PNC_TIMING_METRICS:
        from lightscore.cli.pnc_timing import run_pnc_timing_score

        return run_pnc_timing_score(args)
    if args.metric in LATENCY_METRICS:
        from lightscore.cli.latency import run_latency_score

        return run_latency_score(args)
    options = metric_options(args)
    if _counts_segments(args, options):
        metric, result, prepared = next(_segments_sweep(args, options, [args.hyp], catch=False))[1]
        _print_score(metric, result, prepared, args.ci)
        return 0
    metric, result, prepared, data = _error_rate(args, options)
    _print_score(metric, result, prepared, args.ci)
    for folder in dict.fromkeys(d for d in (args.alignment, args.report) if d):
        metric.reports = folder == args.report  # the alignment folder gets the alignment alone
        _write_artifacts(metric, data, folder)
        print(f"{'report' if folder == args.report else 'alignment'}: {folder}")
    if args.report is not None:
        _print_report_tables(metric, args.report)
    return 0


def _error_rate(args: argparse.Namespace, options: dict[str, Any]) -> tuple[Any, Mapping[str, Any], str, dict]:
    """Score ``args.hyp`` against ``args.ref`` (SCP, trn, or stm/ctm through SCP files): the metric, its result,
    how the input was made, and the files it read."""
    from lightscore.offline.compare import metric_by_name

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
    return metric, result, prepared, data


def _score_sweep(args: argparse.Namespace, hyps: Sequence[str]) -> int:
    """Several HYP files against REF, each printed as it is scored, then the best; exit 1 if one failed."""
    from lightscore.text.alignment import kaldi_summary

    if args.metric not in ERROR_RATES:
        raise ValueError(f"several HYP files are scored by an error rate ({', '.join(ERROR_RATES)}), not {args.metric}")
    if args.alignment or args.report:
        raise ValueError(f"{_rereads(args)} writes one hypothesis's files: give one HYP")
    check_input("REF", args.ref)
    options = metric_options(args)
    args.hyp = hyps[0]
    sweep = _segments_sweep if _counts_segments(args, options) else _files_sweep
    best: tuple[str, Mapping[str, Any], str] | None = None
    failed = []
    for hyp, scored in sweep(args, options, hyps):
        print(f"hyp: {hyp}")
        if isinstance(scored, Exception):
            said = str(scored) if hyp in str(scored) else f"{hyp}: {scored}"  # the readers' errors name their file
            print(f"lightscore: error: {said}", file=sys.stderr)
            print("not scored\n")
            failed.append(hyp)
            continue
        metric, result, prepared = scored
        _print_score(metric, result, prepared, args.ci)
        print()
        if best is None or result[metric.name] < best[1][metric.name]:
            best = (hyp, result, metric.name)
    if best is not None:
        print(f"best: {kaldi_summary(best[2], best[1])} {best[0]}")
    if failed:
        print(f"lightscore: error: not scored: {' '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


def _segments_sweep(
    args: argparse.Namespace, options: dict[str, Any], hyps: Sequence[str], catch: bool = True
) -> Iterator[tuple[str, Scored | Exception]]:
    """``REF.stm HYP.ctm ...``: hubscr's counts straight into a metric per ctm (no SCP files), the stm read and
    filtered once. With ``catch``, a ctm that cannot be scored is yielded as its error (the stm's errors raise)."""
    from lightscore.offline.compare import metric_by_name
    from lightscore.offline.sclite_inputs import add_segments, segments_reference, stm_note, stm_options

    _sclite_options(options, stm_options(args.language))
    reference = segments_reference(metric_by_name(**options), args.ref, args.glm, args.language)
    prepared = stm_note(args.glm, args.language)
    for hyp in hyps:
        try:
            check_input("HYP", hyp)
            metric = metric_by_name(**options)
            add_segments(metric, reference, hyp)
            yield hyp, (metric, metric.compute(), prepared)
        except Exception as e:
            if not catch:
                raise
            yield hyp, e


def _files_sweep(
    args: argparse.Namespace, options: dict[str, Any], hyps: Sequence[str]
) -> Iterator[tuple[str, Scored | Exception]]:
    """Each HYP scored as the only one would be; one that cannot be scored is yielded as its error."""
    for hyp in hyps:
        try:
            metric, result, prepared, _ = _error_rate(argparse.Namespace(**{**vars(args), "hyp": hyp}), dict(options))
            yield hyp, (metric, result, prepared)
        except Exception as e:
            yield hyp, e


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
        inputs = sclite_scps(args.ref, args.hyp, scratch, found, args.glm, args.language, options.get("case"))
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
