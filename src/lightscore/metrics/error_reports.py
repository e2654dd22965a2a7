"""The files an error rate writes beside its result: the alignment file, the TSV breakdowns, the HTML page.

`write_error_artifacts` is the body of
`lightscore.metrics.error_rate_base.ErrorRate.write_artifacts`: it re-reads the rows
the runner scored (``metric.artifact_inputs``), aligns each with the metric's
own normalizer, case, tokenizer and aligner, and writes, in ``test_dir``:

- ``<name>_alignment``: a Kaldi summary line, a ``# settings: ...`` line, then an
  sclite-style block per utterance with an error;
- with ``reports``: ``<name>_speakers.tsv`` (`lightscore.analysis.breakdown.speaker_table`),
  ``<name>_top_errors.tsv`` (every substitution, deletion and insertion with its
  count, most frequent first) and ``<name>_worst.tsv`` (the utterances with the
  most errors, with their alignment as REF / HYP / Eval lines);
- with ``report_html``: ``<name>_report.html`` (through ``BaseMetric.write_page``).

Every file is written atomically (`lightscore.io.atomic.atomic_open`).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator, Mapping
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from lightscore.analysis.breakdown import SpeakerRow, UttCounts, speaker_table, top_errors, worst_utterances, write_tsv
from lightscore.io.atomic import atomic_open
from lightscore.metrics.error_group_page import group_page_rows
from lightscore.text.alignment import Pair, kaldi_summary, pra_block, pra_lines, show_token

# ``metric`` below is an `ErrorRate`; it is not imported: the class imports this module to write its files.

__all__ = ["WORST_UTTERANCES", "error_rows", "join_alignment_parts", "write_error_artifacts"]

WORST_UTTERANCES = 100  # rows of <name>_worst.tsv


def write_error_artifacts(
    metric: Any, test_dir: str | os.PathLike, result: Mapping[str, Any]
) -> list[tuple[str, str, str, int]]:
    """Write the alignment file and, when the metric asks for them, the TSV reports and the HTML page.

    Args:
        metric: An error rate holding the merged state, with ``artifact_inputs`` set by the runner.
        test_dir: The test set's output folder, already created.
        result: The metric's result (``compute()``, or its counts alone when no page shows the interval).

    Returns:
        With ``reports``, the rows of ``<name>_top_errors.tsv`` (kind, ref, hyp, count); else [].

    Raises:
        ValueError: as `lightscore.metrics.error_rate_base.ErrorRate.utterance_records`.
        OSError: a file that cannot be written.

    >>> import tempfile
    >>> from lightscore.metrics import WER
    >>> d = Path(tempfile.mkdtemp())
    >>> _ = (d / "ref.scp").write_text("u1 the cat\\n"); _ = (d / "hyp.scp").write_text("u1 the bat\\n")
    >>> m = WER(); m.update(ref=["the cat"], hyp=["the bat"])
    >>> m.artifact_inputs = {"ref": d / "ref.scp", "hyp": d / "hyp.scp"}
    >>> write_error_artifacts(m, d, m.compute())
    []
    >>> print((d / "wer_alignment").read_text())
    %WER 50.00 [ 1 / 2, 0 ins, 0 del, 1 sub ]
    # settings: WER case=sensitive aligner=unit normalize=none
    <BLANKLINE>
    id: u1
    Scores: (#C #S #D #I) 1 1 0 0
    REF:  the cat
    HYP:  the bat
    Eval:     S
    <BLANKLINE>
    """
    stem = str(Path(test_dir) / metric.name.lower())
    records = metric.utterance_records() if metric.per_utterance else []
    worst = worst_utterances(records, WORST_UTTERANCES) if metric.reports else []
    worst_ids = {record.utt_id for record in worst}
    errors: list[list[Pair]] = []  # the error pairs only: top_errors needs no correct token
    worst_pairs: dict[str, list[Pair]] = {}
    every: list[tuple[str, list[Pair]]] = []
    rank = metric.artifact_part[0] if metric.artifact_part else None
    with atomic_open(_alignment_path(stem, rank)) if metric.alignment else nullcontext() as f:
        if f is not None and not rank:  # the whole file, or rank 0's part, starts with the summary
            f.write(f"{kaldi_summary(metric.name, result)}\n# settings: {metric.settings()}\n")
        for utt_id, pairs in _alignments(metric, correct_too=metric.report_html):
            if f is not None and pairs is not None and any(mark != "C" for _, _, mark in pairs):
                f.write("\n" + pra_block(utt_id, pairs))
            if pairs is None:
                continue
            if metric.reports:
                errors.append([pair for pair in pairs if pair[2] != "C"])
                if utt_id in worst_ids:
                    worst_pairs[utt_id] = pairs
            if metric.report_html:
                every.append((utt_id, pairs))
    top: list[tuple[str, str, str, int]] = []
    if metric.group_by is not None and (metric.reports or metric.report_html):
        _write_groups(metric, stem, result)
    if metric.reports:
        top = _write_reports(stem, records, worst, worst_pairs, errors)
    if metric.report_html:
        _write_html(metric, stem, result, records, every, errors)
    return top


def _alignment_path(stem: str, rank: int | None) -> str:
    """``<stem>_alignment``, or one rank's hidden part of it."""
    if rank is None:
        return f"{stem}_alignment"
    folder, name = os.path.split(stem)
    return os.path.join(folder, f".{name}_alignment.part{rank}")


def join_alignment_parts(metric: Any, test_dir: str | os.PathLike, world: int) -> None:
    """Join the ranks' parts of ``<name>_alignment`` in rank order (their rows are contiguous blocks), atomically.

    >>> import tempfile
    >>> from lightscore.metrics import WER
    >>> d = Path(tempfile.mkdtemp())
    >>> _ = (d / ".wer_alignment.part0").write_text("%WER ...\\n")
    >>> _ = (d / ".wer_alignment.part1").write_text("id: u9\\n")
    >>> join_alignment_parts(WER(), d, 2); (d / "wer_alignment").read_text(), sorted(p.name for p in d.iterdir())
    ('%WER ...\\nid: u9\\n', ['wer_alignment'])
    """
    stem = str(Path(test_dir) / metric.name.lower())
    parts = [Path(_alignment_path(stem, rank)) for rank in range(world)]
    with atomic_open(_alignment_path(stem, None)) as out:
        for part in parts:
            with open(part, encoding="utf-8") as f:
                shutil.copyfileobj(f, out)
    for part in parts:
        part.unlink()


def _alignments(metric: Any, correct_too: bool) -> Iterator[tuple[str, list[Pair] | None]]:
    """``(utt_id, pairs)`` per row of the artifact inputs; pairs None for a correct row unless ``correct_too``."""
    for utt_id, row in metric.iter_inputs(metric.artifact_inputs, "ref", "hyp"):
        ref_tokens, hyp_tokens = metric.tokens(row["ref"]), metric.tokens(row["hyp"])
        if ref_tokens != hyp_tokens:
            yield utt_id, metric.align_tokens(ref_tokens, hyp_tokens)
        elif correct_too:
            yield utt_id, [(token, token, "C") for token in ref_tokens]
        else:
            yield utt_id, None


def _write_reports(
    stem: str,
    records: list[UttCounts],
    worst: list[UttCounts],
    worst_pairs: Mapping[str, list[Pair]],
    errors: list[list[Pair]],
) -> list[tuple[str, str, str, int]]:
    write_tsv(f"{stem}_speakers.tsv", SpeakerRow._fields, speaker_table(records))
    top = list(error_rows(top_errors(errors, n=None)))
    write_tsv(f"{stem}_top_errors.tsv", ("kind", "ref", "hyp", "count"), top)
    header = (*UttCounts._fields, "errors", "rate", "ref_aligned", "hyp_aligned", "eval")
    rows = [(*r, r.errors, r.rate, *pra_lines(worst_pairs.get(r.utt_id, []))) for r in worst]
    write_tsv(f"{stem}_worst.tsv", header, rows)
    return top


def _write_groups(metric: Any, stem: str, result: Mapping[str, Any]) -> None:
    """``<name>_groups.tsv``: each label of ``group_by`` with its rate and reference tokens (blank when it has none)."""
    from lightscore.metrics.error_rate_groups import output_label

    rows = []
    for label in metric.group_labels:
        key = f"{metric.name}_{metric.group_by}_{output_label(label)}"
        low, high = result.get(f"{key}_ci_low", ""), result.get(f"{key}_ci_high", "")
        rows.append((label, result.get(key, ""), result.get(f"{key}_ref_len", 0), low, high))
    write_tsv(f"{stem}_groups.tsv", (metric.group_by, metric.name, "ref_len", "ci_low", "ci_high"), rows)


def _write_html(
    metric: Any,
    stem: str,
    result: Mapping[str, Any],
    records: list[UttCounts],
    utterances: list[tuple[str, list[Pair]]],
    errors: list[list[Pair]],
) -> None:
    top = top_errors(errors, n=10)
    tables = {"Substitutions": top["substitutions"], "Deletions": top["deletions"], "Insertions": top["insertions"]}
    hyp = (metric.artifact_inputs or {}).get("hyp")
    system = Path(hyp).name if isinstance(hyp, (str, os.PathLike)) else "hyp"
    metric.write_page(
        f"{stem}_report.html",
        [(system, result, utterances)],
        title=f"{metric.name} report",
        metric=metric.name,
        details={"settings": metric.settings()},
        speakers=speaker_table(records),
        top_errors=tables,
        groups=group_page_rows(metric, result),
    )


def error_rows(top: Mapping[str, list[tuple]]) -> Iterator[tuple]:
    """`lightscore.analysis.breakdown.top_errors` as ``(kind, ref, hyp, count)`` rows; a space token shows as ``<sp>``.

    Args:
        top: What `lightscore.analysis.breakdown.top_errors` returned.

    Returns:
        The rows of ``<name>_top_errors.tsv``: substitutions, then deletions, then insertions.

    >>> list(error_rows({"substitutions": [("a", "b", 2)], "deletions": [(" ", 1)], "insertions": []}))
    [('substitution', 'a', 'b', 2), ('deletion', '<sp>', None, 1)]
    """
    for ref, hyp, count in top["substitutions"]:
        yield "substitution", show_token(ref), show_token(hyp), count
    for ref, count in top["deletions"]:
        yield "deletion", show_token(ref), None, count
    for hyp, count in top["insertions"]:
        yield "insertion", None, show_token(hyp), count
