"""The ``lightscore`` command: ``measure``, ``score``, ``compare`` and ``report``.

Only the standard library loads at start; each subcommand imports what it
needs, so ``lightscore score --help`` touches neither torch nor hydra.
Results go to stdout, progress bars (tqdm) and errors to stderr.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import stat
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

__all__ = ["ProgressBar", "build_parser", "check_input", "format_rows", "format_table", "main"]

MEASURE_HELP = """\
Score every metric of a metrics YAML on its test sets and write <inference_dir>/metrics.json.
The config keys (inference_dir, dataset.test, metrics, dataset_artifacts) are in docs/measure.md."""

SCORE_HELP = """\
Score two SCP files (utt_id text per line, same ids in the same order) and print
the Kaldi-style summary line, the rate, the settings line and the utterance error rate."""

COMPARE_HELP = """\
Is HYP_B better than HYP_A? Score both against REF and run the paired bootstrap, MAPSSWE,
McNemar, sign and Wilcoxon tests (docs/comparing-systems.md)."""

REPORT_HELP = """\
Write a self-contained HTML error report of HYP (and HYP_B, with the paired comparison)
against REF: summary, speakers, most frequent errors and every utterance's alignment."""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``lightscore`` command.

    >>> args = build_parser().parse_args(["score", "ref.scp", "hyp.scp", "--metric", "cer", "--ci", "0.9"])
    >>> args.metric, args.case, args.aligner, args.ci, args.debug
    ('cer', 'sensitive', 'unit', 0.9, False)
    """
    parser = argparse.ArgumentParser(
        prog="lightscore", description="Speech and text metrics, re-scored offline from SCP files."
    )
    parser.add_argument("--debug", action="store_true", help="show the full traceback of an error")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    # SUPPRESS: `--debug` after the subcommand must not reset one given before it.
    debug = argparse.ArgumentParser(add_help=False)
    debug.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="show the full traceback")

    measure = commands.add_parser("measure", parents=[debug], help="score a metrics YAML", description=MEASURE_HELP)
    measure.add_argument("config", metavar="CONFIG", help="the metrics YAML (e.g. conf/metrics.yaml)")
    # default=[]: without it argparse calls the optional overrides required when CONFIG is missing.
    measure.add_argument(
        "overrides",
        nargs="*",
        default=[],
        metavar="KEY=VALUE",
        help="optional OmegaConf dot-list overrides, e.g. inference_dir=exp/decode",
    )
    measure.set_defaults(run=run_measure)

    score = commands.add_parser(
        "score", parents=[debug, _scoring_options()], help="score a REF and a HYP SCP file", description=SCORE_HELP
    )
    score.add_argument("ref", metavar="REF", help="reference SCP file")
    score.add_argument("hyp", metavar="HYP", help="hypothesis SCP file")
    score.add_argument(
        "--alignment", metavar="DIR", help="also write DIR/<metric>_alignment (summary + sclite-style blocks)"
    )
    score.add_argument(
        "--report",
        metavar="DIR",
        help="write the alignment, speaker, top-error and worst-utterance files into DIR and print the tables",
    )
    score.set_defaults(run=run_score)

    compare = commands.add_parser(
        "compare", parents=[debug, _scoring_options()], help="is HYP_B better than HYP_A?", description=COMPARE_HELP
    )
    compare.add_argument("ref", metavar="REF", help="reference SCP file")
    compare.add_argument("hyp_a", metavar="HYP_A", help="hypothesis SCP file of system A")
    compare.add_argument("hyp_b", metavar="HYP_B", help="hypothesis SCP file of system B")
    compare.add_argument("--level", type=float, default=0.05, help="significance level (default: 0.05)")
    compare.add_argument("--json", metavar="OUT", help="also write every number to OUT as JSON")
    compare.set_defaults(run=run_compare, ci=0.95)

    report = commands.add_parser(
        "report", parents=[debug, _scoring_options()], help="write an HTML error report", description=REPORT_HELP
    )
    report.add_argument("ref", metavar="REF", help="reference SCP file")
    report.add_argument("hyp", metavar="HYP", help="hypothesis SCP file (system A)")
    report.add_argument("hyp_b", metavar="HYP_B", nargs="?", help="optional second hypothesis file (system B)")
    report.add_argument("-o", "--output", metavar="HTML", required=True, help="the report file to write")
    report.add_argument("--level", type=float, default=0.05, help="significance level with HYP_B (default: 0.05)")
    report.add_argument(
        "--max-utterances", type=int, metavar="N", help="keep the N utterances with the most errors (default: all)"
    )
    report.add_argument("--title", default="Error report", help="the page title")
    report.set_defaults(run=run_report)
    return parser


def _scoring_options() -> argparse.ArgumentParser:
    """The options ``score``, ``compare`` and ``report`` share: which rate, how texts compare, the bootstrap.

    A new parser per subcommand: parents share their actions, so one subcommand's
    ``set_defaults`` would change the others' defaults.
    """
    options = argparse.ArgumentParser(add_help=False)
    options.add_argument("--metric", choices=("wer", "cer", "ter"), default="wer", help="the error rate (default: wer)")
    options.add_argument("--bpemodel", metavar="M", help="SentencePiece model whose pieces TER counts (needed by ter)")
    options.add_argument(
        "--case", choices=("sensitive", "fold"), default="sensitive", help="fold: lower-case both sides first"
    )
    options.add_argument(
        "--aligner",
        choices=("unit", "sclite"),
        default="unit",
        help="unit: unit-cost edit distance (jiwer); sclite: sclite's weighted alignment (default: unit)",
    )
    options.add_argument(
        "--normalize",
        choices=("none", "whisper_english", "whisper_basic"),
        default="none",
        help="normalise both sides with Whisper's rules first (docs/normalizers.md; default: none)",
    )
    options.add_argument("--substitutions", metavar="FILE", help="whole-word replacements, 'from<TAB>to' per line")
    options.add_argument("--fillers", metavar="FILE", help="words to drop, one per line")
    options.add_argument(
        "--ci", type=_level, metavar="LEVEL", help="bootstrap confidence interval of the rate, e.g. 0.95"
    )
    options.add_argument("--bootstrap", type=int, default=1000, metavar="N", help="bootstrap replicates (default 1000)")
    options.add_argument("--seed", type=int, default=0, metavar="S", help="bootstrap seed (default: 0)")
    options.add_argument("--block-bootstrap", action="store_true", help="resample whole speakers instead of utterances")
    options.add_argument(
        "--utt2spk", metavar="FILE", help="Kaldi utt2spk file (default: the speaker is the id up to its first '-')"
    )
    return options


def _level(text: str) -> float:
    value = float(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not between 0 and 1 (e.g. 0.95)")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; return the exit status (0 ok, 1 error, 2 bad usage, 130 interrupted)."""
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except KeyboardInterrupt:
        print("lightscore: interrupted", file=sys.stderr)
        return 130
    except Exception as e:
        if args.debug:
            raise
        print(f"lightscore: error: {e}", file=sys.stderr)
        return 1


# -- measure ------------------------------------------------------------------------


def run_measure(args: argparse.Namespace) -> int:
    """``lightscore measure``: progress to stderr, the result table and the metrics.json path to stdout."""
    from .offline import measure
    from .results import MeasureError

    bar = ProgressBar(sys.stderr)
    try:
        results = measure(args.config, overrides=args.overrides, progress=bar)
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


def format_table(results: Mapping[str, Mapping[str, Mapping[str, float]]]) -> str:
    """One table per result key: a row per test set, a column per output.

    >>> print(format_table({"WER": {"dev": {"WER": 12.5, "WER_sub": 3}, "test": {"WER": 8.0, "WER_sub": 2}}}))
    WER
      test set  WER    WER_sub
      dev       12.50  3
      test      8.00   2
    """
    blocks = []
    for key, tests in results.items():
        outputs = list(dict.fromkeys(name for result in tests.values() for name in result))
        rows = [["test set", *outputs]]
        rows += [[test, *(_cell(result.get(name)) for name in outputs)] for test, result in tests.items()]
        blocks.append("\n".join([key, format_rows(rows)]))
    return "\n\n".join(blocks)


def format_rows(rows: Sequence[Sequence[Any]], indent: str = "  ") -> str:
    """Rows of cells as aligned columns, two spaces apart; floats with two decimals.

    >>> print(format_rows([["speaker", "rate"], ["spk1", 12.5], ["spk10", 3]]))
      speaker  rate
      spk1     12.50
      spk10    3
    """
    cells = [[_cell(value) for value in row] for row in rows]
    widths = [max(len(row[i]) for row in cells if i < len(row)) for i in range(max(map(len, cells)))]
    return "\n".join(indent + "  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells)


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    return f"{value:.2f}" if isinstance(value, float) else str(value)


class ProgressBar:
    """A tqdm bar per (metric, test set) on a stream, with rows done, rate and time left.

    On a terminal the bar is redrawn in place; on anything else (a log file, a
    pipe) each bar is written once, as one line, when its pair is done, so logs
    hold no carriage returns. Called as ``progress(key, test_name, rows_done, rows_total)``.
    Without tqdm (it comes with Lightning) it shows nothing.

    >>> out = io.StringIO()
    >>> bar = ProgressBar(out)
    >>> bar("WER", "dev", 0, 4); bar("WER", "dev", 2, 4); bar("WER", "dev", 4, 4); bar.close()
    >>> out.getvalue().startswith("dev  WER: 100%|") and " 4/4 [" in out.getvalue()
    True
    """

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.live = stream.isatty()
        self.current: tuple[str, str] | None = None
        self.bar: Any = None

    def __call__(self, key: str, test_name: str, done: int, total: int) -> None:
        if (key, test_name) != self.current:
            self.close()
            self.current = (key, test_name)
            self.bar = _tqdm(total, "  ".join(part for part in (test_name, key) if part), self.stream, self.live)
        if self.bar is not None:
            self.bar.update(done - self.bar.n)

    def close(self, show: bool = True) -> None:
        """End the current bar (its one line, off a terminal, unless ``show`` is False)."""
        if self.bar is not None:
            if not self.live and show:
                self.stream.write(str(self.bar) + "\n")
                self.stream.flush()
            self.bar.close()
        self.bar, self.current = None, None


def _tqdm(total: int, desc: str, stream: IO[str], live: bool) -> Any:
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    # Off a terminal the bar draws into a sink; close() writes its final state once.
    return tqdm(total=total, desc=desc, unit="rows", file=stream if live else io.StringIO(), leave=live)


# -- the input files ------------------------------------------------------------------------


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


def _check_inputs(files: Mapping[str, str], rereads: str | None) -> bool:
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


def _metric_options(args: argparse.Namespace) -> dict[str, Any]:
    if args.metric == "ter" and args.bpemodel is None:
        raise ValueError("--metric ter needs --bpemodel M, the SentencePiece model whose pieces it counts")
    if args.metric != "ter" and args.bpemodel is not None:
        raise ValueError(f"--bpemodel is used only by --metric ter, not {args.metric}")
    return dict(
        metric=args.metric,
        bpemodel=args.bpemodel,
        case=args.case,
        aligner=args.aligner,
        normalize=args.normalize,
        substitutions=args.substitutions,
        fillers=args.fillers,
        ci=args.ci,
        bootstrap=args.bootstrap,
        seed=args.seed,
        block_bootstrap=args.block_bootstrap,
        utt2spk=args.utt2spk,
    )


# -- score ------------------------------------------------------------------------------


def run_score(args: argparse.Namespace) -> int:
    """``lightscore score``: one error rate of two SCP files; exit 1 if an artifact could not be written."""
    from .compare import build_metric
    from .metrics.alignment import kaldi_summary

    options = _metric_options(args)
    regular = _check_inputs({"REF": args.ref, "HYP": args.hyp}, _rereads(args))
    report = args.report is not None
    metric = build_metric(**options, per_utterance=report, reports=report)
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
    print(kaldi_summary(name, result))
    print(f"{name} {result[name]}")
    print(f"settings: {metric.settings()}")
    print(f"utterances: {result[f'{name}_utts']}, with errors: {result[f'{name}_utt_err']:.2f}%")
    if args.ci is not None:
        print(f"{args.ci:.0%} interval: [{result[f'{name}_ci_low']:.2f}, {result[f'{name}_ci_high']:.2f}]")
    for folder in dict.fromkeys(d for d in (args.alignment, args.report) if d):
        metric.reports = folder == args.report  # the alignment folder gets the alignment alone
        _write_artifacts(metric, data, folder)
        print(f"{'report' if folder == args.report else 'alignment'}: {folder}")
    if report:
        _print_report_tables(args.report, metric.name)
    return 0


def _rereads(args: argparse.Namespace) -> str | None:
    return "--alignment" if args.alignment else "--report" if args.report else None


_TEMP_NAME = re.compile(r"^\.(.+)\.lightscore-tmp-[^/]*$")  # lightscore.scp.atomic_open's temporary file


def _write_artifacts(metric: Any, data: Mapping[str, str], folder: str) -> None:
    """Write the metric's files into ``folder``; an OSError names the file that could not be written."""
    from .runner import write_artifacts_of

    try:
        write_artifacts_of(metric, data, "", folder)
    except OSError as e:
        where = Path(e.filename) if e.filename else None
        temp = _TEMP_NAME.match(where.name) if where else None
        if temp:
            raise OSError(f"{where.with_name(temp.group(1))}: cannot be written ({e.strerror})") from e
        # The folder itself failed: the first file the metric writes is the one that could not be.
        first = "alignment" if metric.alignment else "speakers.tsv"
        cause = f"{where}: {e.strerror}" if where else str(e)
        raise OSError(f"{Path(folder) / f'{metric.name.lower()}_{first}'}: cannot be written ({cause})") from e


def _print_report_tables(folder: str, name: str, top: int = 10) -> None:
    """Print the speaker table and the most frequent errors, as written into ``folder``."""
    stem = Path(folder) / name.lower()
    speakers = _read_tsv(Path(f"{stem}_speakers.tsv"))
    print("\nSpeakers\n" + format_rows([[_number(cell) for cell in row] for row in speakers]))
    header, *errors = _read_tsv(Path(f"{stem}_top_errors.tsv"))
    print("\nTop errors")
    for kind in ("substitution", "deletion", "insertion"):
        rows = [row for row in errors if row[0].startswith(kind)][:top]
        shown = [(f"{ref} -> {hyp}" if kind == "substitution" else ref or hyp, count) for _, ref, hyp, count in rows]
        print(format_rows([(kind, "count"), *shown]) + ("" if kind == "insertion" else "\n"))


def _read_tsv(path: Path) -> list[list[str]]:
    return [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()]


def _number(cell: str) -> Any:
    try:
        return int(cell)
    except ValueError:
        try:
            return float(cell)
        except ValueError:
            return cell


# -- compare ------------------------------------------------------------------------------


def run_compare(args: argparse.Namespace) -> int:
    """``lightscore compare``: both systems, the five paired tests and the verdict; ``--json OUT`` keeps all."""
    from .compare import compare
    from .scp import atomic_open

    options = _metric_options(args)
    _check_inputs({"REF": args.ref, "HYP_A": args.hyp_a, "HYP_B": args.hyp_b}, "compare")
    summary = compare(args.ref, args.hyp_a, args.hyp_b, **options, level=args.level)
    print(format_comparison(summary))
    if args.json:
        with atomic_open(args.json) as f:
            json.dump(summary, f, indent=2, allow_nan=False)
            f.write("\n")
        print(f"json: {args.json}")
    return 0


def format_comparison(summary: Mapping[str, Any]) -> str:
    """The text ``lightscore compare`` prints for a `lightscore.compare.compare` result."""
    name, ci = summary["metric"], summary["ci"]
    lines = [f"settings: {summary['settings']}"]
    for key in ("a", "b"):
        result = summary[key]
        interval = f"  {ci:.0%} interval [{result[f'{name}_ci_low']:.2f}, {result[f'{name}_ci_high']:.2f}]"
        lines.append(f"{key.upper()} {summary['files'][key]}: {name} {result[name]:.2f}{interval}")
    boot = summary["bootstrap"]
    low, high = boot["ci"]
    block = ", by speaker" if boot["block_bootstrap"] else ""
    lines.append(
        f"difference B - A: {boot['difference']:+.2f} points, {ci:.0%} interval [{low:+.2f}, {high:+.2f}], "
        f"P(B better) = {boot['p_b_better']:.3f} ({boot['replicates']} replicates{block})"
    )
    rows = [("test", "statistic", "p", "verdict")]
    p_boot = f"< {1 / boot['replicates']:.2g}" if boot["p"] == 0 else _p(boot["p"])  # below its resolution
    rows.append(("paired bootstrap", f"difference {boot['difference']:+.2f}", p_boot, boot["verdict"]))
    mp = summary["mapsswe"]
    rows.append(("MAPSSWE", f"z = {_z(mp['z'])} ({mp['segments']} segments)", _p(mp["p"]), mp["verdict"]))
    mn = summary["mcnemar"]
    rows.append(("McNemar", f"A only {mn['a_only']}, B only {mn['b_only']}", _p(mn["p"]), mn["verdict"]))
    si = summary["sign"]
    signs = f"N+ {si['n_plus']}, N- {si['n_minus']}, N0 {si['n_zero']} ({si['difference']})"
    rows.append(("sign", signs, _p(si["p"]), si["verdict"]))
    wi = summary["wilcoxon"]
    rows.append(("Wilcoxon", f"W = {wi['w']:g}, z = {_z(wi['z'])}", _p(wi["p"]), wi["verdict"]))
    lines.append(f"{summary['utterances']} utterances, {len(summary['speakers'])} speakers\n" + format_rows(rows))
    lines.append(f"verdict: {summary['verdict']}")
    return "\n".join(lines)


def _p(p: float) -> str:
    return f"{p:.4f}" if p >= 0.001 else f"{p:.1e}"


def _z(z: float | None) -> str:
    return "inf" if z is None else f"{z:.3f}"


# -- report ------------------------------------------------------------------------------


def run_report(args: argparse.Namespace) -> int:
    """``lightscore report``: the HTML report of one system, or of two with their paired comparison."""
    from .breakdown import speaker_table, top_errors
    from .compare import check_same_ids, compare_scored, score_system
    from .report_html import write_report

    options = _metric_options(args)
    files = {"REF": args.ref, "HYP": args.hyp, **({"HYP_B": args.hyp_b} if args.hyp_b else {})}
    _check_inputs(files, "report")
    if args.hyp_b:
        check_same_ids(args.ref, args.hyp, args.hyp_b)
    two = bool(args.hyp_b)
    ci = 0.95 if two and args.ci is None else args.ci
    options["ci"] = ci
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
        [(s.name, _counted(s), list(s.alignments.items())) for s in systems],
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


def _counted(system: Any) -> dict[str, Any]:
    """The result as the report reads it: ``<name>_utt_err`` a count of utterances, not the percentage."""
    return {**system.result, f"{system.metric.name}_utt_err": system.metric.error_utterances}


def _report_comparison(summary: Mapping[str, Any]) -> dict[str, Any]:
    boot = summary["bootstrap"]
    return {
        "difference": boot["difference"],
        "ci": boot["ci"],
        "P(B better)": boot["p_b_better"],
        "p_values": {TEST: summary[key]["p"] for key, TEST in _TEST_LABELS.items()},
        "verdict": summary["verdict"],
    }


_TEST_LABELS = {
    "bootstrap": "paired bootstrap",
    "mapsswe": "MAPSSWE",
    "mcnemar": "McNemar (exact)",
    "sign": "sign",
    "wilcoxon": "Wilcoxon",
}


def _speakers_side_by_side(systems: Sequence[Any]) -> list[dict[str, Any]]:
    """One row per speaker with both systems' rates (worst in A first)."""
    from .breakdown import speaker_table

    a, b = ({row.speaker: row for row in speaker_table(s.records)} for s in systems)
    return [
        {"speaker": spk, "utterances": row.utterances, "words": row.words, "rate A": row.rate, "rate B": b[spk].rate}
        for spk, row in a.items()
    ]
