"""A self-contained HTML error report: the summary, optional tables, and every utterance's alignment.

`render_report` turns plain data (per system a name, its error-rate result
and its per-utterance alignments from `lightscore.metrics.alignment.align`)
into ONE HTML file with inline CSS and JavaScript that opens from disk and
fetches nothing. The summary and tables are plain HTML written here; the
utterances travel as compact JSON inside ``<script type="application/json">``
and the page's script draws one page of them at a time, so 100,000 utterances
open in a second or two (``docs/report.md`` has the sizes).

Every text from the data reaches the page escaped: ``html.escape`` in the
static part, ``\\u003c``-style escapes in the JSON, ``textContent`` in the
script, and a Content-Security-Policy that lets only the report's own script
run and forbids every fetch.

Stable ids for tests and tools: ``rate-<i>``, ``sub-<i>``, ``del-<i>``,
``ins-<i>``, ``hit-<i>``, ``ref-len-<i>``, ``utts-<i>``, ``utt-err-<i>``,
``uer-<i>``, ``ci-low-<i>``, ``ci-high-<i>`` per system ``i``; ``utt-count``
(utterances in the file), ``utt-total`` (in the corpus), ``utt-shown`` (after
the filter); ``cmp-*`` for the paired comparison; each drawn utterance is an
``<article class="utt" data-utt-id=... data-errors="3,1" data-differs="1">``;
``<html data-ready="1">`` once the first page is drawn.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import math
import os
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from .metrics.alignment import Pair
from .scp import atomic_open

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
) -> str:
    """The HTML text of a self-contained error report.

    Args:
        systems: one or two ``(name, result, utterances)``; ``result`` holds ``<metric>``,
            ``<metric>_sub/_del/_ins/_hit/_ref_len`` and optionally ``_utts``, ``_utt_err``,
            ``_ci_low``, ``_ci_high``; ``utterances`` is a list of ``(utt_id, alignment)``.
            Two systems must align the same utterance ids.
        title: the page title and heading.
        metric: the key of the rate in ``result`` ("WER", "CER"...); found from the keys when None.
        details: extra facts shown under the title, e.g. ``{"reference": "ref.scp"}``.
        speakers: rows of the per-speaker table, mappings or named tuples (`lightscore.breakdown.speaker_table`).
        top_errors: titled tables, e.g. ``{"Substitutions, A": [{"ref": "a", "hyp": "the", "count": 9}]}``;
            rows are mappings, named tuples or ``(ref, hyp, count)`` / ``(token, count)`` tuples.
        comparison: the paired test of two systems: ``difference`` (second minus first, as
            `lightscore.significance.paired_bootstrap`), ``ci_low`` and ``ci_high`` (or ``ci`` as a pair),
            ``p_values`` (test name -> p), ``verdict``; other keys are shown as they are.
        max_utterances: keep only this many utterances, those with the most errors (summed over
            the systems); the summary still describes the whole corpus.

    Returns:
        The page, one string.

    Raises:
        ValueError: no system or more than two, a result without the rate's keys, utterance ids
            that differ between the systems or repeat, or a bad alignment pair.

    >>> from lightscore.metrics.alignment import align
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
    body = [
        f"<h1>{_esc(title)}</h1>",
        _details(details),
        _summary_table(summary_rows, metric),
        _side_by_side(
            [_comparison(comparison, systems) if comparison else ""]
            + [_section("Speakers", _table(speakers, "speakers")) if speakers else ""]
            + [_section(name, _table(rows, f"top-{k}")) for k, (name, rows) in enumerate((top_errors or {}).items())]
        ),
        _utterances_section(len(utts), total),
    ]
    return _page(title, "\n".join(part for part in body if part), _json_for_script(data))


def write_report(path: str | os.PathLike, systems: Sequence, **options: Any) -> None:
    """Write `render_report` ``(systems, **options)`` to ``path`` atomically (temp file, then rename).

    >>> import tempfile, pathlib
    >>> from lightscore.metrics.alignment import align
    >>> result = {"WER": 0.0, "WER_sub": 0, "WER_del": 0, "WER_ins": 0, "WER_hit": 1, "WER_ref_len": 1}
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "report.html"
    >>> write_report(p, [("A", result, [("u1", align(["a"], ["a"]))])])
    >>> p.read_text().count("<script")
    2
    """
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
    missing = [key for key in (metric, *(f"{metric}_{c}" for c in _COUNTS)) if key not in system.result]
    if missing:
        raise ValueError(f"system {system.name!r}: the result has no {', '.join(missing)}")


_COUNTS = ("sub", "del", "ins", "hit", "ref_len")


def _utterance_records(systems: Sequence[ReportSystem]) -> tuple[list[list], list[list[int]]]:
    """One JSON record per utterance, ``[utt_id, differs, alignment_0, alignment_1?]``, and the errors per system."""
    first = systems[0]
    encoded, errors = [], []
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
    row = {key: result[f"{metric}_{key}"] for key in _COUNTS}
    row.update(index=i, name=system.name, rate=result[metric])
    # The corpus's utterance counts come from the result; without them, from the alignments given.
    row["utts"] = result.get(f"{metric}_utts", len(errors))
    row["utt_err"] = result.get(f"{metric}_utt_err", sum(1 for e in errors if e))
    row["ci"] = (result.get(f"{metric}_ci_low"), result.get(f"{metric}_ci_high"))
    return row


def _json_for_script(data: Any) -> str:
    """JSON that can sit inside ``<script>``: no ``<``, ``>`` or ``&`` survives, so no ``</script>`` either."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


# --- static HTML ----------------------------------------------------------------------------------


def _esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _number(value: Any, decimals: int = 2) -> str:
    """Integers with thousands separators, other numbers with ``decimals`` places, the rest as text."""
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(_number(item, decimals) for item in value) + "]"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return _esc(value)
    if isinstance(value, int) or decimals == 0:
        return f"{round(value):,}" if math.isfinite(value) else _esc(value)
    if not math.isfinite(value):
        return _esc(value)
    if value != 0 and abs(value) < 10**-decimals:
        return f"{value:.2e}"  # a tiny p-value keeps its size instead of showing 0.0000
    return f"{value:,.{decimals}f}"


def _span(span_id: str, value: Any, decimals: int = 2) -> str:
    """A number with its exact value in ``data-value`` for tools, rounded for people."""
    return f'<span id="{_esc(span_id)}" data-value="{_esc(value)}">{_number(value, decimals)}</span>'


def _details(details: Mapping[str, Any] | None) -> str:
    if not details:
        return ""
    items = "".join(f"<dt>{_esc(key)}</dt><dd>{_esc(value)}</dd>" for key, value in details.items())
    return f'<dl class="details">{items}</dl>'


def _summary_table(rows: Sequence[Mapping[str, Any]], metric: str) -> str:
    with_ci = any(low is not None for row in rows for low in row["ci"][:1])
    head = ["system", f"{metric} %", *(["95% interval"] if with_ci else [])]
    head += ["sub", "del", "ins", "errors", "hits", "ref tokens", "utterances", "with errors", "utt. error %"]
    lines = []
    for row in rows:
        i = row["index"]
        errors = row["sub"] + row["del"] + row["ins"]
        uer = row["utt_err"] / row["utts"] * 100 if row["utts"] else 0.0
        rate = _span(f"rate-{i}", row["rate"])
        cells = [f'<th scope="row">{_esc(row["name"])}</th>', f'<td class="rate">{rate}</td>']
        if with_ci:
            low, high = row["ci"]
            ci = f"[{_span(f'ci-low-{i}', low)}, {_span(f'ci-high-{i}', high)}]" if low is not None else ""
            cells.append(f"<td>{ci}</td>")
        values = [("sub", row["sub"]), ("del", row["del"]), ("ins", row["ins"]), ("errors", errors)]
        values += [("hit", row["hit"]), ("ref-len", row["ref_len"]), ("utts", row["utts"]), ("utt-err", row["utt_err"])]
        cells += [f"<td>{_span(f'{key}-{i}', value, 0)}</td>" for key, value in values]
        cells.append(f"<td>{_span(f'uer-{i}', uer)}</td>")
        lines.append(f"<tr>{''.join(cells)}</tr>")
    header = "".join(f"<th>{_esc(h)}</th>" for h in head)
    table = f'<table id="summary" class="num"><thead><tr>{header}</tr></thead><tbody>{"".join(lines)}</tbody></table>'
    return _section("Summary", table)


def _comparison(comparison: Mapping[str, Any], systems: Sequence[ReportSystem]) -> str:
    # lightscore.significance.paired_bootstrap's convention: the second system minus the first.
    names = " \u2212 ".join(s.name for s in reversed(systems))
    comparison = dict(comparison)
    if isinstance(comparison.get("ci"), (tuple, list)):  # paired_bootstrap's (low, high)
        comparison["ci_low"], comparison["ci_high"] = comparison.pop("ci")
    rows = []
    if "difference" in comparison:
        value = _span("cmp-difference", comparison["difference"])
        interval = ""
        if comparison.get("ci_low") is not None:
            low, high = _span("cmp-ci-low", comparison["ci_low"]), _span("cmp-ci-high", comparison["ci_high"])
            interval = f" &nbsp;[{low}, {high}]"
        rows.append(f"<tr><th>difference ({_esc(names)})</th><td>{value}{interval}</td></tr>")
    for k, (test, p) in enumerate((comparison.get("p_values") or {}).items()):
        rows.append(f"<tr><th>p-value, {_esc(test)}</th><td>{_span(f'cmp-p-{k}', p, 4)}</td></tr>")
    for key, value in comparison.items():
        if key not in ("difference", "ci_low", "ci_high", "p_values", "verdict"):
            rows.append(f"<tr><th>{_esc(key)}</th><td>{_number(value)}</td></tr>")
    verdict = comparison.get("verdict")
    if verdict is not None:
        rows.append(f'<tr><th>verdict</th><td id="cmp-verdict" class="verdict">{_esc(verdict)}</td></tr>')
    return _section("Paired comparison", f'<table id="comparison" class="kv">{"".join(rows)}</table>')


def _table(rows: Sequence[Any], table_id: str) -> str:
    """A table of rows: mappings or named tuples, whose keys (first-seen order) are the columns.

    Plain tuples, as `lightscore.breakdown.top_errors` gives them, get ``ref, hyp, count``
    (three values) or ``token, count`` (two).
    """
    rows = [_row_mapping(row) for row in rows]
    columns = list(dict.fromkeys(key for row in rows for key in row))
    head = "".join(f"<th>{_esc(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(_cell(c, row.get(c, "")) for c in columns) + "</tr>" for row in rows)
    return f'<table id="{_esc(table_id)}" class="num"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _row_mapping(row: Any) -> Mapping[str, Any]:
    if isinstance(row, Mapping):
        return row
    if hasattr(row, "_asdict"):
        return row._asdict()
    names = {3: ("ref", "hyp", "count"), 2: ("token", "count")}.get(len(row), [f"{k + 1}" for k in range(len(row))])
    return dict(zip(names, row))


def _cell(key: str, value: Any) -> str:
    # Numbers right-aligned so their digits line up; names and words left-aligned.
    numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
    css = "" if numeric else ' class="txt"'
    return f'<td data-key="{_esc(key)}"{css}>{_number(value)}</td>'


def _side_by_side(sections: Sequence[str]) -> str:
    """The smaller tables in a row that wraps, so the utterances start within the first screen."""
    sections = [section for section in sections if section]
    return f'<div class="tables">{"".join(sections)}</div>' if sections else ""


def _section(heading: str, content: str) -> str:
    return f"<section><h2>{_esc(heading)}</h2>{content}</section>"


def _utterances_section(count: int, total: int) -> str:
    if count == total:
        kept = f'<span id="utt-total" data-value="{total}" hidden>{total}</span>'
    else:
        kept = f' (the {count:,} with the most errors of <span id="utt-total" data-value="{total}">{total:,}</span>)'
    return f"""<section id="utterances"><h2>Utterances</h2>
<p class="note"><span id="utt-count" data-value="{count}">{count:,}</span> utterances in this report{kept};
<span id="utt-shown">0</span> match the filter.</p>
<div class="legend" aria-label="legend">
<span class="cell C"><span>word</span><span>word</span><span class="m">&nbsp;</span></span> correct
<span class="cell S"><span>ref</span><span>hyp</span><span class="m">S</span></span> substitution
<span class="cell D"><span>ref</span><span class="gap">***</span><span class="m">D</span></span> deletion
<span class="cell I"><span class="gap">***</span><span>hyp</span><span class="m">I</span></span> insertion
<span class="hint">top row: reference, bottom row: hypothesis; ␣ is a space</span>
</div>
<div class="controls">
<label>filter <input id="filter" type="search" placeholder="utterance id or word" size="28"></label>
<label>sort <select id="sort"></select></label>
<label><input id="errors-only" type="checkbox"> with errors only</label>
<label id="differs-label" hidden><input id="differs-only" type="checkbox"> systems differ only</label>
<span class="pager"><button id="prev" type="button">&#8249; prev</button>
<span id="page-info"></span>
<button id="next" type="button">next &#8250;</button></span>
</div>
<div id="utts"></div>
<noscript>The utterances need JavaScript; the summary above does not.</noscript>
</section>"""


def _page(title: str, body: str, data: str) -> str:
    digest = base64.b64encode(hashlib.sha256(_SCRIPT.encode()).digest()).decode()
    # Only this script may run (its hash), nothing may be fetched: a token that slipped through
    # escaping could still not run code or call home.
    policy = f"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{digest}'"
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{policy}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="lightscore">
<title>{_esc(title)}</title>
<style>{_CSS}</style>
</head>
<body>
{body}
<script type="application/json" id="report-data">{data}</script>
<script>{_SCRIPT}</script>
</body>
</html>
"""


_CSS = """
:root{--fg:#1d2125;--muted:#5f6b76;--line:#d9dee3;--bg2:#f5f7f9;
--s:#fbe3b8;--s2:#b26a00;--d:#f8cdd0;--d2:#b3261e;--i:#cfe2fb;--i2:#1a56b0}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;
color:var(--fg);margin:0 auto;padding:16px 24px 40px;max-width:1400px}
h1{font-size:20px;margin:0 0 6px}h2{font-size:16px;margin:22px 0 8px}
.details{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:0;color:var(--muted)}
.details dd{margin:0;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}
table{border-collapse:collapse;font-size:13px}
th,td{padding:3px 9px;border-bottom:1px solid var(--line);text-align:left;white-space:nowrap}
thead th{background:var(--bg2);font-weight:600;border-bottom:2px solid var(--line)}
table.num td{text-align:right;font-variant-numeric:tabular-nums}table.num td.txt{text-align:left}
td.rate{font-weight:700}
table.kv th{font-weight:600;color:var(--muted)}
.verdict{font-weight:700}
section{overflow-x:auto}
.tables{display:flex;flex-wrap:wrap;gap:0 28px;align-items:flex-start}
.note{color:var(--muted);margin:4px 0 8px}
.legend{display:flex;flex-wrap:wrap;align-items:center;gap:6px 10px;margin:6px 0 10px;font-size:13px}
.legend .hint{color:var(--muted)}
.controls{display:flex;flex-wrap:wrap;align-items:center;gap:8px 16px;padding:8px 10px;background:var(--bg2);
border:1px solid var(--line);border-radius:6px;position:sticky;top:0;z-index:1}
.controls input,.controls select,.controls button{font:inherit}
.pager{margin-left:auto;display:flex;gap:8px;align-items:center}
.utt{border-bottom:1px solid var(--line);padding:8px 2px}
.utt header{display:flex;flex-wrap:wrap;gap:4px 18px;align-items:baseline;margin-bottom:4px}
.uid{font-family:ui-monospace,Menlo,Consolas,monospace;font-weight:600}
.stat{color:var(--muted);font-size:12px;font-variant-numeric:tabular-nums}
.stat b{color:var(--fg)}
.differs{font-size:11px;font-weight:700;color:#fff;background:#6a4fb3;border-radius:3px;padding:0 5px}
.aln{display:flex;flex-wrap:wrap;align-items:flex-start;margin:2px 0}
.sys{font-size:11px;font-weight:700;color:var(--muted);min-width:5em;padding-top:2px;margin-right:4px}
.cell{display:inline-flex;flex-direction:column;padding:0 3px;margin:0 1px 3px 0;border-radius:3px;
font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px;line-height:1.35;vertical-align:top}
.cell>span{white-space:pre}
.cell .m{font:700 10px/1.2 system-ui,sans-serif;text-align:center;min-height:12px}
.C>span:nth-child(2){color:var(--muted)}
.S{background:var(--s);box-shadow:inset 0 -2px 0 var(--s2)}.S .m{color:var(--s2)}
.D{background:var(--d);box-shadow:inset 0 -2px 0 var(--d2)}.D .m{color:var(--d2)}
.I{background:var(--i);box-shadow:inset 0 -2px 0 var(--i2)}.I .m{color:var(--i2)}
.gap{color:var(--muted)}
.empty{color:var(--muted);font-style:italic}
@media print{.controls{position:static}.utt{break-inside:avoid}}
"""

_SCRIPT = r"""
"use strict";
(function () {
  const started = performance.now();
  const block = document.getElementById("report-data");
  const data = JSON.parse(block.textContent);
  block.textContent = "";  // the parsed copy is enough: the page need not hold the text twice
  const names = data.systems, utts = data.utts, n = utts.length, ns = names.length;
  const $ = (id) => document.getElementById(id);
  // Per utterance and system: errors and reference length, in typed arrays so sorting 100k stays fast.
  const errs = names.map(() => new Int32Array(n)), refLen = new Int32Array(n);
  for (let k = 0; k < n; k++) {
    for (let s = 0; s < ns; s++) {
      const a = utts[k][2 + s];
      let e = 0, r = 0;
      for (let j = 0; j < a.length; j++) {
        const p = a[j];
        if (typeof p === "string") { r++; continue; }
        if (p[0] !== null) r++;
        if (p.length === 2) e++;
      }
      errs[s][k] = e;
      if (s === 0) refLen[k] = r;
    }
  }
  const rate = (s, k) => refLen[k] ? errs[s][k] / refLen[k] * 100 : (errs[s][k] ? Infinity : 0);
  const byIndex = (a, b) => a - b;
  const sorts = {};
  if (ns === 2) {
    sorts.differ = ["differences first (" + names[0] + " vs " + names[1] + ")", (a, b) =>
      utts[b][1] - utts[a][1] ||
      Math.abs(errs[0][b] - errs[1][b]) - Math.abs(errs[0][a] - errs[1][a]) ||
      (errs[0][b] + errs[1][b]) - (errs[0][a] + errs[1][a]) || a - b];
  }
  names.forEach((name, s) => {
    sorts["errors" + s] = ["most errors" + (ns > 1 ? ", " + name : ""), (a, b) => errs[s][b] - errs[s][a] || a - b];
    sorts["rate" + s] = ["highest rate" + (ns > 1 ? ", " + name : ""), (a, b) => rate(s, b) - rate(s, a) || a - b];
  });
  sorts.id = ["utterance id", (a, b) => (utts[a][0] < utts[b][0] ? -1 : utts[a][0] > utts[b][0] ? 1 : a - b)];
  sorts.file = ["file order", byIndex];
  const select = $("sort");
  for (const key of Object.keys(sorts)) {
    const o = document.createElement("option");
    o.value = key; o.textContent = sorts[key][0];
    select.appendChild(o);
  }
  select.value = ns === 2 ? "differ" : "errors0";
  if (ns === 2) $("differs-label").hidden = false;

  let haystack = null;  // lower-cased "id\u0001tok\u0001tok...", built on the first filter
  const tokenText = (k) => {
    const parts = [utts[k][0]];
    for (let s = 0; s < ns; s++) for (const p of utts[k][2 + s]) {
      if (typeof p === "string") parts.push(p);
      else parts.push(...p.slice(0, 2).filter((t) => t !== null));
    }
    return parts.join("\u0001").toLowerCase();
  };
  let view = [], page = 0, pageSize = 50;
  function update() {
    const terms = $("filter").value.toLowerCase().split(/\s+/).filter(Boolean);
    const errorsOnly = $("errors-only").checked, differsOnly = ns === 2 && $("differs-only").checked;
    if (terms.length && !haystack) haystack = Array.from({length: n}, (_, k) => tokenText(k));
    view = [];
    for (let k = 0; k < n; k++) {
      if (errorsOnly && !errs.some((e) => e[k])) continue;
      if (differsOnly && !utts[k][1]) continue;
      if (terms.length && !terms.every((t) => haystack[k].includes(t))) continue;
      view.push(k);
    }
    view.sort(sorts[select.value][1]);
    page = 0;
    $("utt-shown").textContent = view.length.toLocaleString("en-US");
    $("utt-shown").dataset.value = view.length;
    draw();
  }
  const span = (cls, text) => {
    const e = document.createElement("span");
    e.className = cls; e.textContent = text;
    return e;
  };
  const show = (t) => (t === " " ? "\u2423" : t);
  const KIND = {S: "substitution", D: "deletion", I: "insertion", C: "correct"};
  function cell(p) {
    let ref, hyp, mark;
    if (typeof p === "string") { ref = hyp = p; mark = "C"; }
    else { ref = p[0]; hyp = p[1]; mark = p.length === 3 ? "C" : ref === null ? "I" : hyp === null ? "D" : "S"; }
    const c = document.createElement("span");
    c.className = "cell " + mark;
    for (const t of [ref, hyp]) {
      const e = document.createElement("span");
      if (t === null) { e.className = "gap"; e.textContent = "***"; } else e.textContent = show(t);
      c.appendChild(e);
    }
    const m = document.createElement("span");
    m.className = "m"; m.textContent = mark === "C" ? "\u00a0" : mark;
    c.appendChild(m);
    if (mark !== "C") c.title = KIND[mark];
    return c;
  }
  function stat(s, k) {
    const e = document.createElement("span");
    e.className = "stat";
    const b = document.createElement("b");
    const r = rate(s, k);
    b.textContent = (ns > 1 ? names[s] + " " : "") + (r === Infinity ? "\u221e" : r.toFixed(1)) + "%";
    e.appendChild(b);
    e.append(" " + errs[s][k] + " err / " + refLen[k] + " ref");
    return e;
  }
  function article(k) {
    const u = utts[k];
    const el = document.createElement("article");
    el.className = "utt";
    el.dataset.uttId = u[0];
    el.dataset.errors = names.map((_, s) => errs[s][k]).join(",");
    el.dataset.differs = u[1];
    const h = document.createElement("header");
    const id = document.createElement("span");
    id.className = "uid"; id.textContent = u[0];
    h.appendChild(id);
    for (let s = 0; s < ns; s++) h.appendChild(stat(s, k));
    if (ns === 2 && u[1]) h.appendChild(span("differs", "differ"));
    el.appendChild(h);
    for (let s = 0; s < ns; s++) {
      const row = document.createElement("div");
      row.className = "aln"; row.dataset.system = s;
      const label = document.createElement("span");
      label.className = "sys"; label.textContent = names[s];
      row.appendChild(label);
      const a = u[2 + s];
      if (!a.length) row.appendChild(span("empty", "(empty)"));
      for (const p of a) row.appendChild(cell(p));
      el.appendChild(row);
    }
    return el;
  }
  function draw() {
    const pages = Math.max(1, Math.ceil(view.length / pageSize));
    page = Math.min(Math.max(page, 0), pages - 1);
    const box = $("utts"), frag = document.createDocumentFragment();
    for (const k of view.slice(page * pageSize, (page + 1) * pageSize)) frag.appendChild(article(k));
    box.replaceChildren(frag);
    $("page-info").textContent = "page " + (page + 1) + " of " + pages;
    $("prev").disabled = page === 0; $("next").disabled = page >= pages - 1;
  }
  let timer = null;
  $("filter").addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(update, 150); });
  for (const id of ["sort", "errors-only", "differs-only"]) $(id).addEventListener("change", update);
  $("prev").addEventListener("click", () => { page--; draw(); window.scrollTo(0, $("utterances").offsetTop); });
  $("next").addEventListener("click", () => { page++; draw(); window.scrollTo(0, $("utterances").offsetTop); });
  update();
  document.documentElement.dataset.renderMs = Math.round(performance.now() - started);
  document.documentElement.dataset.ready = "1";
})();
"""
