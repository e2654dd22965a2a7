"""``lightscore score REF HYP --resegment``: talk-level hypotheses re-segmented to REF's segments, then scored.

REF is an SCP file of reference segments (``segment_id text``); HYP holds whole talks (``talk_id text``).
``--talks MAP`` maps each segment to its talk (``segment_id talk_id``); without it REF is one talk and
HYP's rows are joined into its hypothesis, as mweralign joins its hypothesis file's lines without a
docid file. The re-segmentation is `lightscore.metrics.Resegmented`'s; the re-segmented hypothesis and
its references are written as SCP files in ``<HYP>.resegmented/`` beside HYP.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

from lightscore.cli.inputs import check_inputs
from lightscore.cli.output import format_table

__all__ = ["resegment_asked", "run_resegment_score"]


def resegment_asked(args: argparse.Namespace) -> bool:
    """Whether ``score`` was given ``--resegment`` or one of its options (refused without it).

    >>> resegment_asked(argparse.Namespace(resegment=False, talks=None, reseg_tokenize="none"))
    False
    """
    return bool(getattr(args, "resegment", False) or getattr(args, "talks", None)) or (
        getattr(args, "reseg_tokenize", "none") != "none"
    )


def _options(args: argparse.Namespace) -> dict[str, Any]:
    """The wrapped metric's options from the command line: sacrebleu's for translation, the error rate's for WER."""
    from lightscore.text.choices import TRANSLATION_METRICS

    if args.metric in TRANSLATION_METRICS:
        options: dict[str, Any] = {"lowercase": True} if args.lowercase else {}
        if args.tokenize is not None:
            if args.metric != "bleu":
                raise ValueError(f"--tokenize is BLEU's option, not {args.metric}'s")
            options["tokenize"] = args.tokenize
        return options
    if args.metric in ("wer", "cer"):
        from lightscore.cli.inputs import metric_options

        options = metric_options(args)
        del options["metric"], options["bpemodel"]
        return options
    raise ValueError(f"--resegment scores {', '.join(TRANSLATION_METRICS)}, wer or cer, not --metric {args.metric}")


def _one_talk(ref: str, hyp: str, folder: Path) -> dict[str, Path]:
    """Without ``--talks``: REF's segments are one talk, HYP's rows joined its hypothesis (SCP files in ``folder``)."""
    from lightscore.scp.files import read_scp, write_scp

    rows = list(read_scp(hyp))
    talk = rows[0][1] if len(rows) == 1 else "talk"
    files = {"hyp": folder / "hyp.scp", "ref": Path(ref), "talk": folder / "talks.scp"}
    write_scp(files["hyp"], [(talk, " ".join(text for _, _, text in rows))])
    write_scp(files["talk"], ((segment, talk) for _, segment, _ in read_scp(ref)))
    return files


def run_resegment_score(args: argparse.Namespace) -> int:
    """``lightscore score REF HYP --resegment [--metric bleu|chrf|transter|wer] [--talks MAP] [--reseg-tokenize T]``.

    Prints the score table, the settings, and where the re-segmented hypothesis went.

    Raises:
        ValueError: ``--talks`` or ``--reseg-tokenize`` without ``--resegment``; a metric it cannot wrap;
            bad files (named with their line and talk).
    """
    from lightscore.metrics.resegment import Resegmented

    if not args.resegment:
        raise ValueError("--talks and --reseg-tokenize are options of --resegment")
    files = {"REF": args.ref, "HYP": args.hyp, **({"MAP": args.talks} if args.talks else {})}
    check_inputs(files, "--resegment")
    metric = Resegmented(args.metric, reseg_tokenize=args.reseg_tokenize, **_options(args))
    hyp = Path(args.hyp)
    out = hyp.parent / f"{hyp.name.removesuffix('.scp')}.resegmented"
    with tempfile.TemporaryDirectory() as tmp:
        if args.talks:
            data = {"hyp": hyp, "ref": Path(args.ref), "talk": Path(args.talks)}
        else:
            data = _one_talk(args.ref, args.hyp, Path(tmp))
        result = metric(data, out.name, out.parent)
    print(format_table({metric.name: {hyp.name: result}}))
    print(f"settings: {metric.settings()}")
    print(f"resegmented: {out / f'resegmented_{metric.tokenizer.label}.scp'}")
    return 0
