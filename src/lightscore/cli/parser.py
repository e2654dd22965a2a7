"""The ``lightscore`` command line: the parser and `main`; the commands are in `lightscore.cli.commands`.

Only the standard library and lightscore's light modules load at start (the choices
come from `lightscore.text.choices` and `lightscore.text.aligners`, where they are
defined); each command imports what it needs, so ``lightscore score --help`` touches
neither torch, numpy nor hydra.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

from lightscore.cli.commands import run_compare, run_measure, run_report
from lightscore.cli.inputs import check_options
from lightscore.cli.score import run_score
from lightscore.text.aligners import ALIGNERS
from lightscore.text.choices import (
    CASES,
    ERROR_RATES,
    LATENCY_METRICS,
    MEETING_METRICS,
    NORMALIZERS,
    PNC_TIMING_METRICS,
    RECOGNITION_PRACTICE,
    TRANSLATION_METRICS,
)
from lightscore.text.hubscr.languages import LANGUAGES
from lightscore.text.sclite.trn import SCLITE_FORMATS

__all__ = ["build_parser", "main"]

MEETING_SORTS = ("segment", "word", "true", "false")  # meeteval's reference_sort / hypothesis_sort values

MEASURE_HELP = """\
Score every metric of a metrics YAML on its test sets and write <inference_dir>/metrics.json.
The config keys (inference_dir, dataset.test, metrics, dataset_artifacts) are in docs/measure.md."""

SCORE_HELP = """\
Score two SCP files (utt_id text per line, same ids in the same order) and print
the Kaldi-style summary line, the rate, the settings line and the utterance error rate.
Several HYP files (one decoding per LM weight, as Kaldi's recipes sweep them) are each
scored against REF in turn, under "hyp: FILE", and the lowest rate is printed last as
"best: ... FILE"; an stm reference is read and GLM-filtered once for all of them."""

COMPARE_HELP = """\
Is HYP_B better than HYP_A? Score both against REF and run the paired bootstrap, MAPSSWE,
McNemar, sign and Wilcoxon tests (docs/comparing-systems.md). With --set (repeated) or --dirs:
a row per test set, then the pooled and macro rows, from a bootstrap stratified by test set
(docs/scoreboard.md)."""

REPORT_HELP = """\
Write a self-contained HTML error report of HYP (and HYP_B, with the paired comparison)
against REF: summary, speakers, most frequent errors and every utterance's alignment."""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``lightscore`` command.

    Returns:
        The parser; each subcommand sets ``run``, the function that runs it.

    >>> args = build_parser().parse_args(["score", "ref.scp", "hyp.scp", "--metric", "cer", "--ci", "0.9"])
    >>> args.metric, args.case, args.aligner, args.ci, args.debug, args.run.__name__
    ('cer', None, 'unit', 0.9, False, 'run_score')
    """
    parser = argparse.ArgumentParser(
        prog="lightscore", description="Speech and text metrics, re-scored offline from SCP files."
    )
    parser.add_argument("--debug", action="store_true", help="show the full traceback of an error")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    # SUPPRESS: `--debug` after the subcommand must not reset one given before it.
    debug = argparse.ArgumentParser(add_help=False)
    debug.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="show the full traceback")

    def command(name: str, parents: list, **texts: str) -> argparse.ArgumentParser:
        return commands.add_parser(name, parents=[debug, *parents], **texts)

    measure = command("measure", [], help="score a metrics YAML", description=MEASURE_HELP)
    measure.add_argument("config", metavar="CONFIG", help="the metrics YAML (e.g. conf/metrics.yaml)")
    board = "also write <inference_dir>/scoreboard.{md,csv,json}: a row per test set, then pooled and macro"
    measure.add_argument("--scoreboard", action="store_true", help=board)
    # default=[]: without it argparse calls the optional overrides required when CONFIG is missing.
    overrides = "optional OmegaConf dot-list overrides, e.g. inference_dir=exp/decode"
    measure.add_argument("overrides", nargs="*", default=[], metavar="KEY=VALUE", help=overrides)
    measure.set_defaults(run=run_measure)

    score = command("score", [_scoring_options()], help="score a REF and a HYP SCP file", description=SCORE_HELP)
    several = "hypothesis SCP file; several: each scored against REF in turn (an LM-weight sweep), then the best"
    score.add_argument("hyp", metavar="HYP", nargs="+", help=several)
    alignment = "also write DIR/<metric>_alignment (summary + sclite-style blocks)"
    score.add_argument("--alignment", metavar="DIR", help=alignment)
    report = "write the alignment, speaker, top-error and worst-utterance files into DIR and print the tables"
    score.add_argument("--report", metavar="DIR", help=report)
    # sclite's inputs (docs/sclite.md): trn files, or an stm reference with a ctm hypothesis.
    formats = "scp; trn (sclite's, markup read); stm (REF.stm HYP.ctm, scored as hubscr). Default: from the suffixes"
    score.add_argument("--format", choices=SCLITE_FORMATS, help=formats)
    glm = "stm/ctm: filter both sides with a GLM as hubscr (en20030506, en20090415 or a file)"
    score.add_argument("--glm", metavar="GLM", help=glm)
    language = "stm/ctm: hubscr's -l (csrfilt's and sclite's case switches; default english)"
    score.add_argument("--language", choices=LANGUAGES, default="english", help=language)
    score.add_argument("--markup", action="store_true", help="read sclite's markup ({ a / b }, @) in SCP text too")
    score.add_argument("-D", "--optional-deletable", action="store_true", help="sclite -D: (word) may be left out")
    score.add_argument("-F", "--fragments", action="store_true", help="sclite -F: a fragment wor- matches word")
    _add_score_only_options(score)
    score.set_defaults(run=run_score)

    compare = command(
        "compare",
        [_scoring_options(ref_optional=True), _test_options()],
        help="is HYP_B better than HYP_A?",
        description=COMPARE_HELP,
    )
    compare.add_argument("hyp_a", metavar="HYP_A", nargs="?", help="hypothesis SCP file of system A")
    compare.add_argument("hyp_b", metavar="HYP_B", nargs="?", help="hypothesis SCP file of system B")
    compare.add_argument("--json", metavar="OUT", help="also write every number to OUT as JSON")
    _add_test_set_options(compare)
    compare.set_defaults(run=run_compare, ci=0.95)

    report = command(
        "report", [_scoring_options(), _test_options()], help="write an HTML error report", description=REPORT_HELP
    )
    report.add_argument("hyp", metavar="HYP", help="hypothesis SCP file (system A)")
    report.add_argument("hyp_b", metavar="HYP_B", nargs="?", help="optional second hypothesis file (system B)")
    report.add_argument("-o", "--output", metavar="HTML", required=True, help="the report file to write")
    keep = "keep the N utterances with the most errors (default: all)"
    report.add_argument("--max-utterances", type=int, metavar="N", help=keep)
    report.add_argument("--title", default="Error report", help="the page title")
    report.set_defaults(run=run_report)
    for sub in (score, compare, report):  # what check_options compares against: the command's own defaults
        actions = [action for action in sub._actions if action.option_strings]
        sub.set_defaults(
            option_defaults={action.dest: sub.get_default(action.dest) for action in actions},
            option_flags={action.dest: max(action.option_strings, key=len) for action in actions},
        )
    return parser


def _add_score_only_options(score: argparse.ArgumentParser) -> None:
    """``score``'s options for SimulEval's logs and for re-segmenting whole talks (``compare`` and ``report`` take
    neither)."""
    add = score.add_argument
    latency = "simul_latency (docs/translation.md): ATD's source, SimulEval's log: speech (default); text"
    add("--latency-source", choices=("speech", "text"), default="speech", help=latency)
    add("--latency-unit", choices=("word", "char"), default="word", help="simul_latency: the reference's length unit")
    add("--computation-aware", action="store_true", help="simul_latency: also the _CA measures (from elapsed)")
    add("--no-use-ref-len", action="store_true", help="simul_latency: the target length is the hypothesis'")
    reseg = "score: HYP holds whole talks; re-segment each to REF's segments as mweralign does (docs/translation.md)"
    add("--resegment", action="store_true", help=reseg)
    add("--talks", metavar="MAP", help="--resegment: SCP file 'segment_id talk_id' (default: REF is one talk)")
    add("--reseg-tokenize", default="none", metavar="TOK", help="--resegment: none (default), cj or a .model file")


def _add_test_set_options(compare: argparse.ArgumentParser) -> None:
    """``compare`` across test sets (lightscore.offline.compare_sets): instead of REF HYP_A HYP_B."""
    add = compare.add_argument
    one = "a test set: its name, reference and both hypothesis files (repeat for each set, instead of REF HYP_A HYP_B)"
    add("--set", nargs=4, action="append", dest="sets", metavar=("NAME", "REF", "HYP_A", "HYP_B"), help=one)
    dirs = "two measure() inference folders: the test sets are their sub-folders holding --hyp-name"
    add("--dirs", nargs=2, metavar=("DIR_A", "DIR_B"), help=dirs)
    add("--ref-name", default="ref.scp", metavar="FILE", help="with --dirs: the reference in DIR_A/<set>/ (ref.scp)")
    add("--hyp-name", default="hyp.scp", metavar="FILE", help="with --dirs: the hypotheses' file name (hyp.scp)")
    add("--table", metavar="STEM", help="with --set or --dirs: also write the table to STEM.md, STEM.csv, STEM.json")


def _scoring_options(ref_optional: bool = False) -> argparse.ArgumentParser:
    """What ``score``, ``compare`` and ``report`` share: REF, which rate, how texts compare, the bootstrap.

    A new parser per subcommand: parents share their actions, so one subcommand's
    ``set_defaults`` would change the others' defaults. ``ref_optional``: ``compare --set`` needs no REF.
    """
    options = argparse.ArgumentParser(add_help=False)
    options.add_argument("ref", metavar="REF", nargs="?" if ref_optional else None, help="reference SCP file")
    add = options.add_argument
    metrics = "the error rate, or a translation metric equal to sacrebleu's (docs/translation.md; default: wer)"
    metrics += "; cpwer, orcwer, tcpwer, dicpwer, mimower, der... score meeting files (STM, CTM, SegLST, RTTM: "
    metrics += "docs/meetings.md)"
    metrics += "; keywords, oracle_wer, per, case_er, pnc_wer, word_timing: docs/recognition-practice.md"
    metrics += "; simul_latency: docs/translation.md"
    families = (*TRANSLATION_METRICS, *MEETING_METRICS, *RECOGNITION_PRACTICE, *PNC_TIMING_METRICS, *LATENCY_METRICS)
    add("--metric", choices=(*ERROR_RATES, *families), default="wer", help=metrics)
    add("--collar", type=float, metavar="S", help="the time-constrained WERs (required), der, jer: seconds")
    add("--uem", metavar="FILE", help="meeting metrics: a UEM file, each session's scoring region (docs/meetings.md)")
    sort = "tcpwer, ditcpwer, tcorcwer, greedy_tcorcwer: meeteval's %s_sort (default: segment)"
    add("--reference-sort", choices=MEETING_SORTS, metavar="SORT", help=sort % "reference")
    add("--hypothesis-sort", choices=MEETING_SORTS, metavar="SORT", help=sort % "hypothesis")
    add("--ref2", metavar="FILE", action="append", default=[], help="a further reference (translation; repeatable)")
    add("--tokenize", help="BLEU's tokenizer, as sacrebleu's --tokenize (13a, intl, zh, char, none...)")
    add("--lowercase", action="store_true", help="translation metrics: lower-case both sides (sacrebleu's -lc)")
    add("--bpemodel", metavar="M", help="SentencePiece model whose pieces TER counts (needed by ter)")
    case = "fold: lower-case both sides first; sclite, sclite_<localization>: sclite's folding"
    case += "; default: sclite with --aligner sclite, else sensitive"
    add("--case", choices=CASES, default=None, metavar="CASE", help=f"{case}; one of {', '.join(CASES)}")
    aligner = "unit: unit-cost edit distance (jiwer); sclite: sclite's weighted alignment (default: unit)"
    add("--aligner", choices=ALIGNERS, default="unit", help=aligner)
    normalize = "normalise both sides with Whisper's rules first (docs/normalizers.md; default: none)"
    add("--normalize", choices=NORMALIZERS, default="none", help=normalize)
    add("--substitutions", metavar="FILE", help="whole-word replacements, 'from<TAB>to' per line")
    add("--fillers", metavar="FILE", help="words to drop, one per line")
    add("--ci", type=_level, metavar="LEVEL", help="bootstrap confidence interval of the rate, e.g. 0.95")
    replicates = "bootstrap replicates (default 1000; a 95%% interval needs 40 at least)"
    add("--bootstrap", type=_replicates, default=1000, metavar="N", help=replicates)
    add("--seed", type=int, default=0, metavar="S", help="bootstrap seed (default: 0)")
    add("--block-bootstrap", action="store_true", help="resample whole speakers instead of utterances")
    add("--utt2spk", metavar="FILE", help="Kaldi utt2spk file (default: the speaker is the id up to its first '-')")
    marks = "per: the marks scored (default .,?)"
    marks += "; case_er, pnc_wer: the marks peeled off words (default: all punctuation)"
    add("--marks", metavar="CHARS", help=marks)
    add("--tolerances", metavar="MS,...", help="word_timing: tolerances in whole milliseconds (default 50,100,200)")
    add("--keywords", metavar="FILE", help="keywords: the keyword (biasing) list, one word per line")
    add("--oov", metavar="FILE", help="keywords: the OOV list (each line's first field), for OOV-WER and OOV-CER")
    chardiff = "keywords, oracle_wer: texterrors' character-aware alignment (its --use-chardiff)"
    add("--chardiff", action="store_true", help=chardiff)
    add("--emit", metavar="FILE", help="word_timing: SCP of emission times, 'utt_id seconds ...' per hypothesis word")
    return options


def _test_options() -> argparse.ArgumentParser:
    """What ``compare`` and ``report`` (with HYP_B) share: the level of the paired tests."""
    options = argparse.ArgumentParser(add_help=False)
    level = "significance level of the tests, between 0 and 1 (default: 0.05)"
    options.add_argument("--level", type=_level, default=0.05, help=level)
    return options


def _option_type(convert: Callable[[str], Any], ok: Callable[[Any], bool], rule: str, example: str) -> Callable:
    """An argparse ``type``: ``convert`` the text, refusing it (``"<text> is not <rule>"``) unless ``ok``."""

    def parse(text: str) -> Any:
        try:
            value = convert(text)
        except ValueError:
            value = None
        if value is None or not ok(value):
            raise argparse.ArgumentTypeError(f"{text} is not {rule} (e.g. {example})")
        return value

    return parse


# NaN fails every comparison, so nan is refused as 0 and 1.5 are.
_level = _option_type(float, lambda value: 0 < value < 1, "between 0 and 1", "0.95")
# The least a --ci or --level needs is checked by the command (lightscore.analysis.bootstrap.min_replicates).
_replicates = _option_type(int, lambda value: value >= 2, "a whole number of replicates above 1", "1000")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``lightscore`` command with ``argv``; an error is one line on stderr unless ``--debug``.

    Args:
        argv: The arguments after ``lightscore`` (default: ``sys.argv[1:]``).

    Returns:
        The exit status: 0 ok, 1 error, 130 interrupted by Ctrl-C, 143 by SIGTERM during ``measure`` (bad usage
        exits with 2 from argparse).

    >>> import contextlib, io
    >>> with contextlib.redirect_stderr(io.StringIO()) as err:
    ...     main(["score", "no/such/ref.scp", "no/such/hyp.scp"])
    1
    >>> err.getvalue()
    'lightscore: error: REF no/such/ref.scp: no such file\\n'
    """
    args = build_parser().parse_args(argv)
    try:
        if hasattr(args, "option_defaults"):
            check_options(args, args.option_defaults, args.option_flags)
        return args.run(args)
    except KeyboardInterrupt as e:
        # measure() says what it kept and which signal stopped it (SIGTERM: 143); a bare Ctrl-C is 130.
        print(f"lightscore: interrupted{f': {e}' if str(e) else ''}", file=sys.stderr)
        return getattr(e, "exit_status", 130)
    except Exception as e:
        if args.debug:
            raise
        print(f"lightscore: error: {e}", file=sys.stderr)
        return 1
