"""A self-contained HTML error report: the summary, optional tables, and every utterance's alignment.

`render_report` turns plain data (per system a name, its error-rate result
and its per-utterance alignments from `lightscore.text.alignment.align`)
into ONE HTML file with inline CSS and JavaScript that opens from disk and
fetches nothing. The summary and tables are plain HTML
(`lightscore.report.page`); the utterances travel as compact JSON inside ``<script type="application/json">``
and the page's script draws one page of them at a time, so 100,000 utterances
open in a second or two (``docs/report.md`` has the sizes).

Every text from the data reaches the page escaped: ``html.escape`` in the
static part, ``\\u003c``-style escapes in the JSON, ``textContent`` in the
script, and a Content-Security-Policy that lets only the report's own script
run and forbids every fetch.

Stable ids for tests and tools: ``rate-<i>``, ``sub-<i>``, ``del-<i>``,
``ins-<i>``, ``hit-<i>``, ``ref-len-<i>``, ``utts-<i>``, ``utt-err-<i>``,
``uer-<i>`` (``utt-err`` counts utterances with an error, ``uer`` is their
percentage), ``ci-low-<i>``, ``ci-high-<i>`` per system ``i``; ``group-*-<k>`` for
the rates by group (``<table id="groups">``); ``utt-count``
(utterances in the file), ``utt-total`` (in the corpus), ``utt-shown`` (after
the filter); ``cmp-*`` for the paired comparison; each drawn utterance is an
``<article class="utt" data-utt-id=... data-errors="3,1" data-differs="1">``;
``<html data-ready="1">`` once the first page is drawn.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from lightscore.report.page import (
    comparison_section,
    details_list,
    groups_section,
    html_page,
    summary_section,
    table_section,
    tables_row,
    utterances_section,
)
from lightscore.report.sessions import write_sessions_report
from lightscore.scp.files import atomic_open
from lightscore.text.alignment import Pair
from lightscore.text.counting import COUNTS

__all__ = ["ReportSystem", "encode_alignment", "render_report", "write_report"]

Utterance = tuple[str, Sequence[Pair]]


class ReportSystem(NamedTuple):
    """One system of a report: its name, its result dict and its ``(utt_id, alignment)`` list.

    Any 3-tuple ``(name, result, utterances)`` does as well.
    """

    name: str
    result: Mapping[str, Any]
    utterances: Sequence[Utterance]


def encode_alignment(utt_id: str, pairs: Sequence[Pair]) -> tuple[list, int]:
    """The compact JSON form of one alignment, and its number of errors.

    A correct token is the string itself; an error is ``[ref, hyp]`` with None
    for the missing side (S, D and I follow from which side is None); a pair
    marked C whose tokens differ (a case-folded rate) is ``[ref, hyp, "C"]``.

    Raises:
        ValueError: a mark that is not C/S/D/I, or one that disagrees with its tokens
            (a D with a hypothesis token...); the message names the utterance.

    >>> encode_alignment("u1", [("the", "the", "C"), ("cat", "bat", "S"), ("sat", None, "D"), (None, "on", "I")])
    (['the', ['cat', 'bat'], ['sat', None], [None, 'on']], 3)
    """
    # Most pairs are correct: one comprehension encodes them; only the rest are checked one by one.
    out: list = [ref if mark == "C" and ref == hyp and ref is not None else None for ref, hyp, mark in pairs]
    errors = 0
    for position in [k for k, code in enumerate(out) if code is None]:
        ref, hyp, mark = pairs[position]
        if (ref is None, hyp is None) != _MISSING.get(mark):
            raise ValueError(
                f"utterance {utt_id!r}: pair {position} {(ref, hyp, mark)!r} is not a valid alignment pair "
                "(C and S need both tokens, D no hypothesis token, I no reference token)"
            )
        out[position] = [ref, hyp, "C"] if mark == "C" else [ref, hyp]
        errors += mark != "C"
    return out, errors


_MISSING = {"C": (False, False), "S": (False, False), "D": (False, True), "I": (True, False)}


def render_report(
    systems: Sequence[ReportSystem | tuple[str, Mapping[str, Any], Sequence[Utterance]]],
    *,
    title: str = "Error report",
    metric: str | None = None,
    details: Mapping[str, Any] | None = None,
    speakers: Sequence[Mapping[str, Any]] | None = None,
    top_errors: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
    comparison: Mapping[str, Any] | None = None,
    max_utterances: int | None = None,
    groups: Sequence[Mapping[str, Any]] | None = None,
) -> str:
    """The HTML text of a self-contained error report.

    Args:
        systems: one or two ``(name, result, utterances)``; ``result`` holds ``<metric>``,
            ``<metric>_sub/_del/_ins/_hit/_ref_len`` and optionally ``_utts``, ``_utt_err`` (the
            percentage of utterances with an error, as the error rates' ``compute()`` returns it),
            ``_ci_low``, ``_ci_high``: an error rate's result as it is; ``utterances`` is a list of
            ``(utt_id, alignment)``.
            Two systems must align the same utterance ids.
        title: the page title and heading.
        metric: the key of the rate in ``result`` ("WER", "CER"...); found from the keys when None.
        details: extra facts shown under the title, e.g. ``{"reference": "ref.scp"}``.
        speakers: rows of the per-speaker table, mappings or named tuples (`analysis.breakdown.speaker_table`).
        top_errors: titled tables, e.g. ``{"Substitutions, A": [{"ref": "a", "hyp": "the", "count": 9}]}``;
            rows are mappings, named tuples or ``(ref, hyp, count)`` / ``(token, count)`` tuples.
        comparison: the paired test of two systems: ``difference`` (second minus first, as
            `lightscore.analysis.significance.paired_bootstrap`), ``ci_low`` and ``ci_high`` (or ``ci`` as a pair),
            ``p_values`` (test name -> p), ``verdict``; other keys are shown as they are.
        max_utterances: keep only this many utterances, those with the most errors (summed over
            the systems); the summary still describes the whole corpus.
        groups: the rates by group (`lightscore.report.page.groups_section`): per label ``group``,
            ``label``, ``utterances``, ``words``, ``rate`` and ``ci``.

    Returns:
        The page, one string.

    Raises:
        ValueError: no system or more than two, a result without the rate's keys, utterance ids
            that differ between the systems or repeat, or a bad alignment pair.

    >>> from lightscore.text.alignment import align
    >>> result = {"WER": 50.0, "WER_sub": 1, "WER_del": 0, "WER_ins": 0, "WER_hit": 1, "WER_ref_len": 2}
    >>> page = render_report([("A", result, [("u1", align(["a", "b"], ["a", "c"]))])], title="demo")
    >>> page.startswith("<!DOCTYPE html>"), '<span id="rate-0" data-value="50.0">50.00</span>' in page
    (True, True)
    """
    systems = [ReportSystem(*system) for system in systems]
    if not 1 <= len(systems) <= 2:
        raise ValueError(f"a report shows one or two systems, got {len(systems)}")
    metric = metric or _find_metric(systems[0])
    for system in systems:
        _check_result(system, metric)
    utts, errors = _utterance_records(systems)
    summary_rows = [_summary_row(i, system, metric, errors[i]) for i, system in enumerate(systems)]
    total = len(utts)
    if max_utterances is not None and total > max_utterances:
        order = sorted(range(total), key=lambda k: -sum(errors[i][k] for i in range(len(systems))))
        utts = [utts[k] for k in sorted(order[:max_utterances])]
    data = {"systems": [s.name for s in systems], "utts": utts, "total": total}
    tables = [comparison_section(comparison, [s.name for s in systems]) if comparison else ""]
    tables += [table_section("Speakers", speakers, "speakers") if speakers else ""]
    tables += [groups_section(groups, metric) if groups else ""]
    tables += [table_section(name, rows, f"top-{k}") for k, (name, rows) in enumerate((top_errors or {}).items())]
    body = [details_list(details), summary_section(summary_rows, metric), tables_row(tables)]
    body.append(utterances_section(len(utts), total))
    return html_page(title, "\n".join(part for part in body if part), _json_for_script(data))


def write_report(path: str | os.PathLike, systems: Sequence, *, view: str = "utterances", **options: Any) -> None:
    """Write `render_report` ``(systems, **options)`` to ``path`` atomically (temp file, then rename).

    ``view="sessions"`` writes the meeting report instead (`lightscore.report.sessions.render_sessions`).

    >>> import tempfile, pathlib
    >>> from lightscore.text.alignment import align
    >>> result = {"WER": 0.0, "WER_sub": 0, "WER_del": 0, "WER_ins": 0, "WER_hit": 1, "WER_ref_len": 1}
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "report.html"
    >>> write_report(p, [("A", result, [("u1", align(["a"], ["a"]))])])
    >>> p.read_text().count("<script")
    2
    """
    if view == "sessions":
        write_sessions_report(path, systems, **options)
        return
    page = render_report(systems, **options)
    with atomic_open(path) as f:
        f.write(page)


# --- data ---------------------------------------------------------------------------------------


def _find_metric(system: ReportSystem) -> str:
    names = [key for key in system.result if f"{key}_sub" in system.result]
    if len(names) != 1:
        raise ValueError(f"system {system.name!r}: cannot tell the rate from the keys {sorted(system.result)}")
    return names[0]


def _check_result(system: ReportSystem, metric: str) -> None:
    missing = [key for key in (metric, *(f"{metric}_{c}" for c in COUNTS)) if key not in system.result]
    if missing:
        raise ValueError(f"system {system.name!r}: the result has no {', '.join(missing)}")


def _utterance_records(systems: Sequence[ReportSystem]) -> tuple[list[list], list[list[int]]]:
    """One JSON record per utterance, ``[utt_id, differs, alignment_0, alignment_1?]``, and the errors per system."""
    first = systems[0]
    encoded = []
    errors = []
    for system in systems:
        by_id: dict[str, Sequence[Pair]] = {}
        for utt_id, pairs in system.utterances:
            if utt_id in by_id:
                raise ValueError(f"system {system.name!r}: utterance {utt_id!r} appears twice")
            by_id[utt_id] = pairs
        if system is not first:
            extra = by_id.keys() - {utt_id for utt_id, _ in first.utterances}
            if extra or len(by_id) != len(first.utterances):
                utt = sorted(extra)[0] if extra else _first_missing(first, by_id)
                raise ValueError(f"systems {first.name!r} and {system.name!r} differ at utterance {utt!r}")
        pairs_in_order = [(utt_id, by_id[utt_id]) for utt_id, _ in first.utterances]
        codes = [encode_alignment(utt_id, pairs) for utt_id, pairs in pairs_in_order]
        encoded.append([code for code, _ in codes])
        errors.append([count for _, count in codes])
    records = []
    for k, (utt_id, _) in enumerate(first.utterances):
        alignments = [column[k] for column in encoded]
        differs = int(any(a != alignments[0] for a in alignments))
        records.append([utt_id, differs, *alignments])
    return records, errors


def _first_missing(first: ReportSystem, by_id: Mapping[str, Any]) -> str:
    return next(utt_id for utt_id, _ in first.utterances if utt_id not in by_id)


def _summary_row(i: int, system: ReportSystem, metric: str, errors: Sequence[int]) -> dict[str, Any]:
    result = system.result
    row = {key: result[f"{metric}_{key}"] for key in COUNTS}
    row.update(index=i, name=system.name, rate=result[metric])
    # The corpus's utterance counts come from the result (``_utt_err`` a percentage, as the error
    # rates return it); without them, from the alignments given.
    utts = result.get(f"{metric}_utts", len(errors))
    if f"{metric}_utt_err" in result:
        row["uer"] = result[f"{metric}_utt_err"]
        row["utt_err"] = round(row["uer"] * utts / 100)
    else:
        row["utt_err"] = sum(1 for e in errors if e)
        row["uer"] = row["utt_err"] / utts * 100 if utts else 0.0
    row["utts"] = utts
    row["ci"] = (result.get(f"{metric}_ci_low"), result.get(f"{metric}_ci_high"))
    return row


def _json_for_script(data: Any) -> str:
    """JSON that can sit inside ``<script>``: no ``<``, ``>`` or ``&`` survives, so no ``</script>`` either."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
