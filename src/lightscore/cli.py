"""The ``lightscore`` command: ``lightscore measure`` and ``lightscore score``.

Only the standard library loads at start; each subcommand imports what it
needs, so ``lightscore score --help`` touches neither torch nor hydra.
Results go to stdout, progress bars and errors to stderr.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

__all__ = ["ProgressBar", "build_parser", "format_table", "main"]

MEASURE_HELP = """\
Score every metric of a metrics YAML on its test sets and write <inference_dir>/metrics.json.
The config keys (inference_dir, dataset.test, metrics, dataset_artifacts) are in docs/measure.md."""

SCORE_HELP = """\
Score two SCP files (utt_id text per line, same ids in the same order) and print
the Kaldi-style summary line, then the rate."""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``lightscore`` command.

    >>> args = build_parser().parse_args(["score", "ref.scp", "hyp.scp", "--metric", "cer"])
    >>> args.metric, args.case, args.debug
    ('cer', 'sensitive', False)
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
    measure.add_argument(
        "overrides", nargs="*", metavar="KEY=VALUE", help="OmegaConf dot-list overrides, e.g. inference_dir=exp/decode"
    )
    measure.set_defaults(run=run_measure)

    score = commands.add_parser("score", parents=[debug], help="score a REF and a HYP SCP file", description=SCORE_HELP)
    score.add_argument("ref", metavar="REF", help="reference SCP file")
    score.add_argument("hyp", metavar="HYP", help="hypothesis SCP file")
    score.add_argument("--metric", choices=("wer", "cer", "ter"), default="wer", help="the error rate (default: wer)")
    score.add_argument("--bpemodel", metavar="M", help="SentencePiece model whose pieces TER counts (needed by ter)")
    score.add_argument(
        "--case", choices=("sensitive", "fold"), default="sensitive", help="fold: lower-case both sides first"
    )
    score.add_argument(
        "--alignment", metavar="DIR", help="also write DIR/<metric>_alignment (summary + sclite-style blocks)"
    )
    score.set_defaults(run=run_score)
    return parser


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
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
        lines = ["  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
        blocks.append("\n".join([key, *lines]))
    return "\n\n".join(blocks)


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    return f"{value:.2f}" if isinstance(value, float) else str(value)


class ProgressBar:
    """A bar per (metric, test set) on a stream: redrawn in place on a terminal, one final line otherwise.

    >>> import io
    >>> out = io.StringIO()
    >>> bar = ProgressBar(out, width=10)
    >>> bar("WER", "dev", 0, 4); bar("WER", "dev", 2, 4); bar("WER", "dev", 4, 4); bar.close()
    >>> out.getvalue()
    'dev  WER  [##########]  4/4\\n'
    """

    def __init__(self, stream: IO[str], width: int = 30) -> None:
        self.stream = stream
        self.width = width
        self.live = stream.isatty()
        self.current: tuple[str, str] | None = None
        self.line = ""

    def __call__(self, key: str, test_name: str, done: int, total: int) -> None:
        if (key, test_name) != self.current:
            self.close()
            self.current = (key, test_name)
        filled = self.width * done // total if total else self.width
        self.line = f"{test_name}  {key}  [{'#' * filled}{'.' * (self.width - filled)}]  {done}/{total}"
        if self.live:
            self.stream.write("\r" + self.line)
            self.stream.flush()

    def close(self) -> None:
        """End the current bar's line."""
        if self.current is None:
            return
        self.stream.write("\n" if self.live else self.line + "\n")
        self.stream.flush()
        self.current = None


# -- score ------------------------------------------------------------------------------


def run_score(args: argparse.Namespace) -> int:
    """``lightscore score``: one error rate of two SCP files."""
    from .metrics import CER, TER, WER
    from .metrics.alignment import kaldi_summary

    if args.metric == "ter" and args.bpemodel is None:
        raise ValueError("--metric ter needs --bpemodel M, the SentencePiece model whose pieces it counts")
    if args.metric != "ter" and args.bpemodel is not None:
        raise ValueError(f"--bpemodel is used only by --metric ter, not {args.metric}")
    for label, path in (("REF", args.ref), ("HYP", args.hyp)):
        if not Path(path).is_file():
            raise FileNotFoundError(f"{label} {path}: no such file")
    if args.metric == "ter":
        metric = TER(args.bpemodel, case=args.case)
    else:
        metric = {"wer": WER, "cer": CER}[args.metric](case=args.case)
    # test_name "": the metric writes its alignment into DIR itself (DIR / "" is DIR).
    result = metric({"ref": args.ref, "hyp": args.hyp}, "", args.alignment)
    print(kaldi_summary(metric.name, result))
    print(f"{metric.name} {result[metric.name]}")
    if args.alignment:
        print(f"alignment: {args.alignment}")
    return 0
