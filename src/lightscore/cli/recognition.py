"""``lightscore score --metric keywords|oracle_wer``: texterrors' keyword, OOV and oracle-WER numbers.

    lightscore score REF HYP --metric keywords --keywords FILE [--oov FILE] [--chardiff] [--report DIR]
    lightscore score REF NBEST --metric oracle_wer [--chardiff]             # texterrors' n-best file
    lightscore score REF HYP1 HYP2 ... --metric oracle_wer [--chardiff]     # one file per rank (ESPnet)

One NBEST file is texterrors' ``--oracle-wer`` input: an utterance id repeated on one line per hypothesis,
best-ranked first. Several files are one per rank, as ESPnet writes ``1best_recog/text``, ``2best_recog/text``...:
each holds every utterance of REF. Printed: one ``name: value`` line per result, then the keyword table or the
pick histogram. ``--report DIR`` writes ``DIR/report.html`` (texterrors' alignment of every utterance, and each
keyword's hits, misses and false alarms) and ``DIR/keywords.tsv``.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lightscore.cli.inputs import check_inputs
from lightscore.cli.output import format_rows

__all__ = ["read_nbest", "run_recognition_score"]


def run_recognition_score(args: argparse.Namespace) -> int:
    """Score ``args.ref`` against ``args.hyp`` (one file, or for oracle_wer a list of them); print the result."""
    hyps = [args.hyp] if isinstance(args.hyp, str) else list(args.hyp)
    if args.metric == "oracle_wer":
        return _oracle_wer(args, hyps)
    if len(hyps) != 1:
        raise ValueError("--metric keywords scores one HYP file")
    if args.keywords is None and args.oov is None:
        raise ValueError("--metric keywords needs --keywords FILE (a keyword list) or --oov FILE (an OOV list)")
    from lightscore.metrics.keywords import KeywordErrorRate

    check_inputs({"REF": args.ref, "HYP": hyps[0]}, "--report" if args.report else None)
    metric = KeywordErrorRate(keywords=args.keywords, oov=args.oov, chardiff=args.chardiff)
    data = {"ref": args.ref, "hyp": hyps[0]}
    result = metric(data, "")
    _print_result(result)
    print(f"settings: {metric.settings()}")
    table = metric.keyword_table()
    if table:
        print("keywords:")
        print(format_rows([["keyword", "hits", "misses", "false_alarms"], *table]))
    if args.report:
        _write_report(metric, result, data, Path(args.report))
        print(f"report: {args.report}")
    return 0


def _print_result(result: Mapping[str, float]) -> None:
    """One ``name: value`` line per output: rates with two decimals, fractions with four, counts whole."""
    for name, value in result.items():
        if isinstance(value, int):
            print(f"{name}: {value}")
        elif name.startswith("keyword_"):
            print(f"{name}: {value:.4f}")
        else:
            print(f"{name}: {value:.2f}")


def _write_report(metric: Any, result: Mapping[str, float], data: Mapping[str, str], folder: Path) -> None:
    """``folder/report.html``: every utterance as texterrors aligns it, the keyword table; ``folder/keywords.tsv``."""
    from lightscore.scp import iter_rows
    from lightscore.text.recognition.chardiff import align_words

    utterances = []
    counts = {"sub": 0, "del": 0, "ins": 0, "hit": 0}
    for utt_id, row in iter_rows(data):
        pairs = []
        for r, h in align_words(row["ref"].split(), row["hyp"].split(), metric.chardiff).pairs:
            mark = "C" if r == h else "I" if r is None else "D" if h is None else "S"
            counts[{"C": "hit", "S": "sub", "D": "del", "I": "ins"}[mark]] += 1
            pairs.append((r, h, mark))
        utterances.append((utt_id, pairs))
    page_result = {"WER": result["keywords_WER"], **{f"WER_{k}": v for k, v in counts.items()}}
    page_result["WER_ref_len"] = result["keywords_ref_words"]
    rows = [{"keyword": k, "hits": h, "misses": m, "false alarms": f} for k, h, m, f in metric.keyword_table()]
    folder.mkdir(parents=True, exist_ok=True)
    metric.write_artifacts(folder)
    details = {"settings": metric.settings(), "reference": data["ref"], "hypothesis": data["hyp"]}
    details.update({k: f"{v:.4g}" for k, v in result.items() if k != "keywords_WER" and isinstance(v, float)})
    metric.write_page(
        folder / "report.html",
        [(Path(data["hyp"]).name, page_result, utterances)],
        title="Keyword report",
        details=details,
        top_errors={"Keyword hits, misses and false alarms": rows},
    )


def read_nbest(path: str) -> dict[str, list[str]]:
    """texterrors' n-best file: ``utt_id hypothesis`` lines, an id repeated once per hypothesis, best first.

    Returns:
        Each utterance's hypotheses in file order (the ids in order of first appearance).

    Raises:
        ValueError: a line without an id (naming the file and line).

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "nbest.txt"
    >>> _ = p.write_text("u1 the cat\\nu1 a cat\\nu2\\nu2 dog\\n")
    >>> read_nbest(str(p))
    {'u1': ['the cat', 'a cat'], 'u2': ['', 'dog']}
    """
    from lightscore.scp import read_scp

    lists: dict[str, list[str]] = {}
    for _, utt_id, value in read_scp(path):
        lists.setdefault(utt_id, []).append(value)
    return lists


def _oracle_wer(args: argparse.Namespace, hyps: Sequence[str]) -> int:
    """``--metric oracle_wer``: one n-best file (repeated ids) or one file per rank."""
    from lightscore.metrics.oracle_wer import OracleWER
    from lightscore.scp import read_scp

    check_inputs({"REF": args.ref, **{f"HYP{k}": h for k, h in enumerate(hyps, 1)}}, None)
    if len(hyps) > 1:
        metric = OracleWER(nbest=len(hyps), chardiff=args.chardiff)
        result = metric({"ref": args.ref, **{f"hyp{k}": h for k, h in enumerate(hyps, 1)}}, "")
    else:
        lists = read_nbest(hyps[0])
        refs: dict[str, tuple[int, str]] = {}
        for number, utt_id, value in read_scp(args.ref):
            if utt_id in refs:
                raise ValueError(f"{args.ref}:{number}: utterance {utt_id!r} repeats line {refs[utt_id][0]}")
            refs[utt_id] = (number, value)
        for number, utt_id, _ in read_scp(hyps[0]):
            if utt_id not in refs:
                raise ValueError(f"{hyps[0]}:{number}: utterance {utt_id!r} is not in REF {args.ref}")
        for utt_id, (number, _) in refs.items():
            if utt_id not in lists:
                raise ValueError(f"{args.ref}:{number}: utterance {utt_id!r} has no hypothesis in {hyps[0]}")
        nbest = max(map(len, lists.values()), default=1)
        metric = OracleWER(nbest=nbest, chardiff=args.chardiff)
        # a shorter list repeats its last hypothesis: the first of the least cost is picked, so never a repeat
        padded = {utt_id: hyp_list + hyp_list[-1:] * (nbest - len(hyp_list)) for utt_id, hyp_list in lists.items()}
        ids = list(refs)
        columns = {f"hyp{k}": [padded[utt_id][k - 1] for utt_id in ids] for k in range(1, nbest + 1)}
        metric.update(ref=[refs[utt_id][1] for utt_id in ids], **columns)
        result = metric.compute()
    _print_result({k: v for k, v in result.items() if not k.startswith("picked_rank")})
    print(f"settings: {metric.settings()}")
    print("picked:")
    picks = [[f"rank {k}", result[f"picked_rank{k}"]] for k in range(1, metric.nbest + 1)]
    print(format_rows([["rank", "utterances"], *picks]))
    return 0
