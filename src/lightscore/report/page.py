"""The static HTML of the error report: the page around it, the summary, the comparison and the tables.

`lightscore.report.html.render_report` puts these pieces together. Every text
from the data goes through ``html.escape`` here; numbers keep their exact value
in ``data-value`` for tools and show rounded for people. The page's style and
script are the package files ``report/assets/report.css`` and
``report/assets/report.js``, inlined, so the page stays one self-contained file.
"""

from __future__ import annotations

import base64
import hashlib
import html
import math
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Any

__all__ = [
    "comparison_section",
    "details_list",
    "groups_section",
    "html_page",
    "summary_section",
    "table_section",
    "tables_row",
    "utterances_section",
]


@cache
def _asset(name: str) -> str:
    return resources.files("lightscore").joinpath("report", "assets", name).read_text(encoding="utf-8")


def html_page(title: str, body: str, data: str | None = None, css: str = "") -> str:
    """The whole page: heading, ``body``, the inlined style and, with ``data``, the utterances' JSON and the script.

    A Content-Security-Policy lets only the report's own script (by its hash) run
    and forbids every fetch: a token that slipped through escaping could still
    not run code or call home. A page without ``data`` has no script and allows none.

    Args:
        title: The page title and heading (escaped here).
        body: The HTML under the heading.
        data: JSON safe inside ``<script>`` (no ``<``, ``>`` or ``&``), or None for a static page.
        css: Style added after the report's own (a page's own classes).

    Returns:
        The page.

    >>> page = html_page("a <b>", "<p>hi</p>", "{}")
    >>> "<h1>a &lt;b&gt;</h1>" in page, page.count("<script")
    (True, 2)
    >>> html_page("static", "<p>hi</p>").count("<script")
    0
    """
    policy = "default-src 'none'; style-src 'unsafe-inline'"
    scripts = ""
    if data is not None:
        script = _asset("report.js")
        digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
        policy += f"; script-src 'sha256-{digest}'"
        scripts = f'<script type="application/json" id="report-data">{data}</script>\n<script>{script}</script>\n'
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{policy}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="lightscore">
<title>{_esc(title)}</title>
<style>{_asset("report.css") + css}</style>
</head>
<body>
<h1>{_esc(title)}</h1>
{body}
{scripts}</body>
</html>
"""


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


def _section(heading: str, content: str) -> str:
    return f"<section><h2>{_esc(heading)}</h2>{content}</section>"


def details_list(details: Mapping[str, Any] | None) -> str:
    """Facts shown under the title, as a definition list; nothing without any.

    Args:
        details: label -> value, e.g. ``{"reference": "ref.scp"}``.

    Returns:
        The ``<dl>``, or "".

    >>> details_list({"settings": "WER case=fold"})
    '<dl class="details"><dt>settings</dt><dd>WER case=fold</dd></dl>'
    """
    if not details:
        return ""
    items = "".join(f"<dt>{_esc(key)}</dt><dd>{_esc(value)}</dd>" for key, value in details.items())
    return f'<dl class="details">{items}</dl>'


def summary_section(rows: Sequence[Mapping[str, Any]], metric: str) -> str:
    """The summary table: a row per system with its rate, interval, counts and utterance errors.

    Each number is a ``<span id="<key>-<i>" data-value=...>`` (``rate``, ``ci-low``,
    ``ci-high``, ``sub``, ``del``, ``ins``, ``errors``, ``hit``, ``ref-len``, ``utts``,
    ``utt-err`` (a count), ``uer`` (a percentage)) for system ``i``.

    Args:
        rows: Per system: ``index``, ``name``, ``rate``, ``sub``, ``del``, ``ins``, ``hit``,
            ``ref_len``, ``utts``, ``utt_err`` (utterances with an error), ``uer`` (their
            percentage) and ``ci`` (``(low, high)``, None for none).
        metric: The rate's name, in the header.

    Returns:
        The section.

    >>> row = dict(index=0, name="A", rate=25.0, sub=1, hit=3, ref_len=4, utts=2, utt_err=1, uer=50.0, ci=(None, None))
    >>> '<span id="uer-0" data-value="50.0">50.00</span>' in summary_section([{**row, "del": 0, "ins": 0}], "WER")
    True
    """
    with_ci = any(row["ci"][0] is not None for row in rows)
    head = ["system", f"{metric} %", *(["95% interval"] if with_ci else [])]
    head += ["sub", "del", "ins", "errors", "hits", "ref tokens", "utterances", "with errors", "utt. error %"]
    lines = []
    for row in rows:
        i = row["index"]
        rate = _span(f"rate-{i}", row["rate"])
        cells = [f'<th scope="row">{_esc(row["name"])}</th>', f'<td class="rate">{rate}</td>']
        if with_ci:
            low, high = row["ci"]
            ci = f"[{_span(f'ci-low-{i}', low)}, {_span(f'ci-high-{i}', high)}]" if low is not None else ""
            cells.append(f"<td>{ci}</td>")
        errors = row["sub"] + row["del"] + row["ins"]
        values = [("sub", row["sub"]), ("del", row["del"]), ("ins", row["ins"]), ("errors", errors)]
        values += [("hit", row["hit"]), ("ref-len", row["ref_len"]), ("utts", row["utts"]), ("utt-err", row["utt_err"])]
        cells += [f"<td>{_span(f'{key}-{i}', value, 0)}</td>" for key, value in values]
        cells.append(f"<td>{_span(f'uer-{i}', row['uer'])}</td>")
        lines.append(f"<tr>{''.join(cells)}</tr>")
    header = "".join(f"<th>{_esc(h)}</th>" for h in head)
    table = f'<table id="summary" class="num"><thead><tr>{header}</tr></thead><tbody>{"".join(lines)}</tbody></table>'
    return _section("Summary", table)


def comparison_section(comparison: Mapping[str, Any], names: Sequence[str]) -> str:
    """The paired comparison of two systems: difference and interval, p-values, verdict, other facts.

    Args:
        comparison: ``difference`` (second minus first, as `lightscore.analysis.bootstrap.paired_bootstrap`),
            ``ci_low`` and ``ci_high`` (or ``ci`` as a pair), ``p_values`` (test -> p), ``verdict``;
            other keys are shown as they are.
        names: The two systems' names.

    Returns:
        The section (ids ``cmp-difference``, ``cmp-ci-low``, ``cmp-ci-high``, ``cmp-p-<k>``, ``cmp-verdict``).

    >>> 'id="cmp-verdict" class="verdict">B is better<' in comparison_section({"verdict": "B is better"}, "AB")
    True
    """
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
        label = " \u2212 ".join(reversed(names))  # second minus first
        rows.append(f"<tr><th>difference ({_esc(label)})</th><td>{value}{interval}</td></tr>")
    for k, (test, p) in enumerate((comparison.get("p_values") or {}).items()):
        rows.append(f"<tr><th>p-value, {_esc(test)}</th><td>{_span(f'cmp-p-{k}', p, 4)}</td></tr>")
    for key, value in comparison.items():
        if key not in ("difference", "ci_low", "ci_high", "p_values", "verdict"):
            rows.append(f"<tr><th>{_esc(key)}</th><td>{_number(value)}</td></tr>")
    verdict = comparison.get("verdict")
    if verdict is not None:
        rows.append(f'<tr><th>verdict</th><td id="cmp-verdict" class="verdict">{_esc(verdict)}</td></tr>')
    return _section("Paired comparison", f'<table id="comparison" class="kv">{"".join(rows)}</table>')


def table_section(heading: str, rows: Sequence[Any], table_id: str) -> str:
    """A titled table of rows: mappings or named tuples, whose keys (first-seen order) are the columns.

    Plain tuples, as `lightscore.analysis.breakdown.top_errors` gives them, get ``ref, hyp, count``
    (three values) or ``token, count`` (two).

    Args:
        heading: The section's title.
        rows: The rows.
        table_id: The ``id`` of the ``<table>``.

    Returns:
        The section.

    >>> page = table_section("Deletions", [("the", 3)], "top-1")
    >>> '<th>token</th><th>count</th>' in page, '<td data-key="count">3</td>' in page
    (True, True)
    """
    rows = [_row_mapping(row) for row in rows]
    columns = list(dict.fromkeys(key for row in rows for key in row))
    head = "".join(f"<th>{_esc(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(_cell(c, row.get(c, "")) for c in columns) + "</tr>" for row in rows)
    table = f'<table id="{_esc(table_id)}" class="num"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
    return _section(heading, table)


def groups_section(rows: Sequence[Mapping[str, Any]], metric: str) -> str:
    """The rates by group (an error rate's ``group_by``): a row per label, with its interval when there is one.

    Each number is a ``<span id="group-<key>-<k>" data-value=...>`` (``utts``, ``words``, ``rate``,
    ``ci-low``, ``ci-high``) for row ``k``; each row is ``<tr data-group=... data-label=...>``.
    A label whose references hold no token has no rate: its cells show "–".

    Args:
        rows: Per label: ``group`` (the ``group_by`` input, e.g. ``lang``), ``label``, ``utterances``,
            ``words`` (reference tokens), ``rate`` (percent, or None) and ``ci`` (``(low, high)`` or None).
        metric: The rate's name, in the header.

    Returns:
        The section, or "" without rows.

    >>> page = groups_section([{"group": "lang", "label": "en", "utterances": 2, "words": 8, "rate": 12.5}], "WER")
    >>> '<th>WER %</th>' in page, '<span id="group-rate-0" data-value="12.5">12.50</span>' in page
    (True, True)
    """
    if not rows:
        return ""
    with_ci = any(row.get("ci") for row in rows)
    head = ["group", "label", "utterances", "words", f"{metric} %", *(["interval"] if with_ci else [])]
    lines = []
    for k, row in enumerate(rows):
        group, label = _esc(row["group"]), _esc(row["label"])
        cells = [f'<td class="txt">{group}</td>', f'<th scope="row">{label}</th>']
        cells += [f"<td>{_span(f'group-{key}-{k}', row[name], 0)}</td>" for key, name in _GROUP_COUNTS]
        rate = _NO_RATE if row.get("rate") is None else _span(f"group-rate-{k}", row["rate"])
        cells.append(f'<td class="rate">{rate}</td>')
        if with_ci:
            low, high = row.get("ci") or (None, None)
            ci = "" if low is None else f"[{_span(f'group-ci-low-{k}', low)}, {_span(f'group-ci-high-{k}', high)}]"
            cells.append(f"<td>{ci}</td>")
        lines.append(f'<tr data-group="{group}" data-label="{label}">{"".join(cells)}</tr>')
    header = "".join(f"<th>{_esc(h)}</th>" for h in head)
    table = f'<table id="groups" class="num"><thead><tr>{header}</tr></thead><tbody>{"".join(lines)}</tbody></table>'
    return _section("Groups", table)


_GROUP_COUNTS = (("utts", "utterances"), ("words", "words"))
_NO_RATE = "\u2013"  # a label with no reference token: no rate, as the groups TSV leaves it blank


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


def tables_row(sections: Sequence[str]) -> str:
    """The smaller tables in a row that wraps, so the utterances start within the first screen.

    Args:
        sections: HTML sections; empty ones are left out.

    Returns:
        One ``<div class="tables">``, or "" without any section.

    >>> tables_row(["", "<section>x</section>"])
    '<div class="tables"><section>x</section></div>'
    """
    sections = [section for section in sections if section]
    return f'<div class="tables">{"".join(sections)}</div>' if sections else ""


def utterances_section(count: int, total: int) -> str:
    """The utterances' section: counts, legend, filter and sort controls, and the box the script draws into.

    Args:
        count: Utterances in the report.
        total: Utterances in the corpus (more than ``count`` when the report keeps the worst only).

    Returns:
        The section (ids ``utt-count``, ``utt-total``, ``utt-shown``, ``filter``, ``sort``, ``utts``...).

    >>> "the 2 with the most errors of" in utterances_section(2, 10)
    True
    """
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
