"""The meeting report: per session, the reference and hypothesis speakers' streams side by side, errors marked.

`render_sessions` turns what a multi-speaker word error rate (cpWER, ORC-WER,
tcpWER) scored into ONE static HTML file: the corpus summary, a table of the
sessions (errors, length, rate, assignment), then each session's streams, one
column per speaker: the reference speakers first, then the hypothesis speakers
in the order of the reference speakers they were assigned to. Every segment
shows its times and words; a word is marked S, D or I (`session_streams`).

The page has no script at all: a Content-Security-Policy forbids scripts and
fetches, and every text from the data is escaped.

Stable ids for tests and tools: ``rate``, ``errors``, ``length``,
``sessions`` (the corpus); ``sessions-table``; per session ``k`` (in the
table's order) a ``<section id="session-<k>" data-session=...
data-marked-errors=...>`` with ``s<k>-errors``, ``s<k>-length``, ``s<k>-rate``
and one ``<div class="stream" data-side="ref|hyp" data-speaker=...>`` per
speaker.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from lightscore.io.atomic import atomic_open

# The error report's own helpers, so both pages format and escape alike.
from lightscore.report.page import _esc, _span, details_list, html_page, table_section
from lightscore.text.alignment import align

__all__ = ["Column", "SessionView", "Shown", "Word", "render_sessions", "session_streams", "write_sessions_report"]


class Word(NamedTuple):
    """One word of a segment: its text, its mark (C, S, D, I) and, for S, the word on the other side."""

    text: str
    mark: str
    other: str | None = None


class Shown(NamedTuple):
    """One segment as the page shows it."""

    start: float
    end: float
    words: list[Word]


class Column(NamedTuple):
    """One speaker's stream: ``side`` is "ref" or "hyp"; ``partner`` names the speaker(s) it was aligned with."""

    side: str
    speaker: str
    partner: str
    segments: list[Shown]


class SessionView(NamedTuple):
    """One session of the page: its id, the metric's record of it, and its segments (`lightscore.segments.Segment`).

    ``record`` holds ``errors``, ``length``, optionally ``substitutions``, ``deletions``,
    ``insertions``, and ``assignment``: ``[[ref_speaker, hyp_speaker], ...]`` (cpWER, tcpWER;
    None for a missed or extra speaker) or one hypothesis speaker per reference segment in
    input order (ORC-WER, MIMO-WER); optionally ``order``, the reference segments' indices in the
    order the metric read them into the streams (MIMO-WER's search; default: by start time).
    """

    session: str
    record: Mapping[str, Any]
    ref: Sequence[Any]
    hyp: Sequence[Any]


def _by_start(segments: Sequence[Any]) -> list[int]:
    # Stable, as the metrics sort: segments that start together keep their input order.
    return sorted(range(len(segments)), key=lambda i: segments[i].start)


def _speakers(segments: Sequence[Any], order: Sequence[int]) -> list[str]:
    return list(dict.fromkeys(segments[i].speaker for i in order))


def _routes(ref: Sequence[Any], assignment: Sequence[Any]) -> dict[int, str | None]:
    """Reference segment index -> the hypothesis speaker its words were aligned with (None: nobody)."""
    if assignment and isinstance(assignment[0], (list, tuple)):
        partner = {r: h for r, h in assignment if r is not None}
        return {i: partner.get(seg.speaker) for i, seg in enumerate(ref)}
    return {i: assignment[i] if i < len(assignment) else None for i in range(len(ref))}


def session_streams(
    ref: Sequence[Any], hyp: Sequence[Any], assignment: Sequence[Any], order: Sequence[int] | None = None
) -> tuple[list[Column], int]:
    """Each speaker's column with every word marked, and the number of marked errors.

    Each hypothesis speaker's words (segments by start time) are aligned with the reference
    words assigned to it (`lightscore.text.alignment.align`, minimum edits, so for cpWER and
    ORC-WER the marked errors are the session's errors); an unassigned reference word is a
    deletion, an unassigned hypothesis word an insertion. tcpWER's collar is not applied to the
    marks: its counts (in the table) may be higher.

    Args:
        ref: The reference segments (``speaker``, ``start``, ``end``, ``words``).
        hyp: The hypothesis segments.
        assignment: As `SessionView` ``record["assignment"]``.
        order: As `SessionView` ``record["order"]``: the order a stream's reference words are aligned in.

    Returns:
        The reference columns, then the hypothesis columns in assigned order; the errors marked.

    >>> from lightscore.segments import Segment
    >>> ref = [Segment("A", 0, 1, "hello world"), Segment("B", 1, 2, "good morning")]
    >>> hyp = [Segment("x", 0, 1, "good morning"), Segment("y", 0, 1, "hello word")]
    >>> columns, errors = session_streams(ref, hyp, [["A", "y"], ["B", "x"]])
    >>> [(c.side, c.speaker, c.partner) for c in columns], errors
    ([('ref', 'A', 'y'), ('ref', 'B', 'x'), ('hyp', 'y', 'A'), ('hyp', 'x', 'B')], 1)
    >>> columns[2].segments[0].words
    [Word(text='hello', mark='C', other=None), Word(text='word', mark='S', other='world')]
    """
    ref_order, hyp_order = _by_start(ref), _by_start(hyp)
    ref_marks = [[Word(w, "D") for w in ref[i].words.split()] for i in range(len(ref))]
    hyp_marks = [[Word(w, "I") for w in hyp[i].words.split()] for i in range(len(hyp))]
    routes = _routes(ref, assignment)
    errors = 0
    for speaker in _speakers(hyp, hyp_order):
        read = ref_order if order is None else order
        ref_items = [(i, k) for i in read if routes[i] == speaker for k in range(len(ref_marks[i]))]
        hyp_items = [(i, k) for i in hyp_order if hyp[i].speaker == speaker for k in range(len(hyp_marks[i]))]
        errors += _mark(ref_items, hyp_items, ref_marks, hyp_marks)
    errors += sum(len(ref_marks[i]) for i in ref_order if routes[i] is None)  # aligned with no stream
    return _columns(ref, hyp, ref_marks, hyp_marks, routes), errors


def _mark(ref_items: list, hyp_items: list, ref_marks: list, hyp_marks: list) -> int:
    """Align one hypothesis stream with its reference words; set both sides' marks; return the errors."""
    ref_words = [ref_marks[i][k].text for i, k in ref_items]
    hyp_words = [hyp_marks[i][k].text for i, k in hyp_items]
    r = h = errors = 0
    for ref_word, hyp_word, mark in align(ref_words, hyp_words):
        errors += mark != "C"
        if ref_word is not None:
            i, k = ref_items[r]
            ref_marks[i][k] = Word(ref_word, mark, hyp_word if mark == "S" else None)
            r += 1
        if hyp_word is not None:
            i, k = hyp_items[h]
            hyp_marks[i][k] = Word(hyp_word, mark, ref_word if mark == "S" else None)
            h += 1
    return errors


def _columns(ref: Sequence, hyp: Sequence, ref_marks: list, hyp_marks: list, routes: dict) -> list[Column]:
    """Reference speakers in order of first appearance; each hypothesis speaker after the first it took words of."""
    ref_order, hyp_order = _by_start(ref), _by_start(hyp)
    ref_speakers = _speakers(ref, ref_order)
    fed_by: dict[str, list[str]] = {}
    for i in ref_order:
        if routes[i] is not None and ref[i].speaker not in fed_by.setdefault(routes[i], []):
            fed_by[routes[i]].append(ref[i].speaker)
    hyp_speakers = _speakers(hyp, hyp_order)
    rank = {s: k for k, s in enumerate(ref_speakers)}
    hyp_speakers.sort(key=lambda s: min((rank[r] for r in fed_by.get(s, ())), default=len(rank)))
    feeds: dict[str, list[str]] = {}
    for i in ref_order:
        if routes[i] is not None and routes[i] not in feeds.setdefault(ref[i].speaker, []):
            feeds[ref[i].speaker].append(routes[i])

    def stream(side: str, segments: Sequence, order: list[int], marks: list, speaker: str, partner: list) -> Column:
        shown = [Shown(segments[i].start, segments[i].end, marks[i]) for i in order if segments[i].speaker == speaker]
        return Column(side, speaker, "+".join(partner), shown)

    columns = [stream("ref", ref, ref_order, ref_marks, s, feeds.get(s, [])) for s in ref_speakers]
    return columns + [stream("hyp", hyp, hyp_order, hyp_marks, s, fed_by.get(s, [])) for s in hyp_speakers]


# --- HTML --------------------------------------------------------------------------------------

_CSS = """.streams{display:flex;gap:10px;align-items:flex-start;overflow-x:auto;padding-bottom:6px}
.side{display:flex;gap:6px;padding:6px;border:1px solid var(--line);border-radius:6px}
.side>h3{writing-mode:vertical-rl;transform:rotate(180deg);margin:0;font-size:13px;color:var(--muted)}
.stream{min-width:180px;max-width:360px}.stream>h4{margin:0 0 4px;font-size:13px}
.stream>h4 small{color:var(--muted);font-weight:400}
.seg{border-left:3px solid var(--line);padding:2px 6px;margin:0 0 6px;background:var(--bg2)}
.seg time{display:block;color:var(--muted);font-size:11px;font-variant-numeric:tabular-nums}
.w{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px;padding:0 2px;border-radius:3px}
.w.S,.w.D,.w.I{font-weight:600}"""


_LEGEND = (
    '<p class="legend"><span class="w S">word</span> substitution (hover: the other side\'s word) '
    '<span class="w D">word</span> deletion <span class="w I">word</span> insertion <span class="hint">marks: '
    "each hypothesis speaker's words aligned with the reference words assigned to it (no time collar)</span></p>"
)


def assignment_text(assignment: Sequence[Any]) -> str:
    """The assignment in one line: ``A→y, B→x, –→z`` (speaker pairs) or ``x, x, y`` (a stream per segment).

    >>> assignment_text([["A", "y"], [None, "z"]]), assignment_text(["x", None])
    ('A→y, –→z', 'x, –')
    """
    if assignment and isinstance(assignment[0], (list, tuple)):
        return ", ".join(f"{r or '–'}→{h or '–'}" for r, h in assignment)
    return ", ".join(str(h or "–") for h in assignment)


def _rate(record: Mapping[str, Any]) -> float | None:
    return record["errors"] / record["length"] * 100 if record["length"] else None


def _session_row(metric: str, view: SessionView) -> dict[str, Any]:
    record = view.record
    row: dict[str, Any] = {"session": view.session, "errors": record["errors"], "length": record["length"]}
    rate = _rate(record)
    row[f"{metric} %"] = "–" if rate is None else rate
    row.update({key: record[key] for key in ("substitutions", "deletions", "insertions") if key in record})
    row["assignment"] = assignment_text(record.get("assignment", ()))
    return row


def _words(words: list[Word]) -> str:
    out = []
    for word in words:
        hint = f' title="{_esc(word.mark)}: {_esc(word.other)}"' if word.mark == "S" else f' title="{word.mark}"'
        out.append(f'<span class="w {word.mark}"{hint if word.mark != "C" else ""}>{_esc(word.text)}</span>')
    return " ".join(out)


def _stream_html(column: Column) -> str:
    partner = f" <small>↔ {_esc(column.partner)}</small>" if column.partner else " <small>(unassigned)</small>"
    segments = "".join(
        f'<div class="seg" data-start="{seg.start!r}" data-end="{seg.end!r}">'
        f"<time>{seg.start:.2f}–{seg.end:.2f} s</time>{_words(seg.words)}</div>"
        for seg in column.segments
    )
    return (
        f'<div class="stream" data-side="{column.side}" data-speaker="{_esc(column.speaker)}">'
        f"<h4>{_esc(column.speaker)}{partner}</h4>{segments}</div>"
    )


def _session_html(k: int, metric: str, view: SessionView) -> str:
    columns, marked = session_streams(view.ref, view.hyp, view.record.get("assignment", ()), view.record.get("order"))
    record = view.record
    numbers = [("errors", record["errors"], 0), ("length", record["length"], 0)]
    facts = " · ".join(f"{name} {_span(f's{k}-{name}', value, d)}" for name, value, d in numbers)
    rate = _rate(record)
    facts += f" · {metric} " + (_span(f"s{k}-rate", rate) + " %" if rate is not None else "–")
    facts += f" · assignment {_esc(assignment_text(record.get('assignment', ())))}"
    sides = []
    for side, label in (("ref", "reference"), ("hyp", "hypothesis")):
        streams = "".join(_stream_html(c) for c in columns if c.side == side)
        sides.append(f'<div class="side {side}"><h3>{label}</h3>{streams}</div>')
    return (
        f'<section id="session-{k}" class="session" data-session="{_esc(view.session)}" '
        f'data-marked-errors="{marked}"><h2>Session {_esc(view.session)}</h2><p class="note">{facts}</p>'
        f'<div class="streams">{"".join(sides)}</div></section>'
    )


def render_sessions(
    systems: Sequence[tuple[str, Mapping[str, Any], Sequence[SessionView | tuple]]],
    *,
    title: str = "Meeting report",
    metric: str,
    details: Mapping[str, Any] | None = None,
) -> str:
    """The HTML text of a self-contained meeting report of one system.

    Args:
        systems: one ``(name, result, sessions)``: ``result`` holds ``<metric>``, ``<metric>_errors``,
            ``<metric>_length`` and ``<metric>_sessions`` (the metric's result as it is); ``sessions``
            one `SessionView` (or 4-tuple) per session.
        title: the page title and heading.
        metric: the rate's name in ``result`` ("cpWER", "orcWER", "tcpWER").
        details: extra facts shown under the title.

    Returns:
        The page, one string.

    Raises:
        ValueError: not exactly one system, or a result without the rate's keys.

    >>> from lightscore.segments import Segment
    >>> result = {"cpWER": 50.0, "cpWER_errors": 1, "cpWER_length": 2, "cpWER_sessions": 1}
    >>> view = ("s1", {"errors": 1, "length": 2, "assignment": [["A", "x"]]}, [Segment("A", 0, 1, "a b")],
    ...         [Segment("x", 0, 1, "a c")])
    >>> page = render_sessions([("sys", result, [view])], metric="cpWER")
    >>> 'data-session="s1"' in page, '<span class="w S" title="S: b">c</span>' in page, "<script" in page
    (True, True, False)
    """
    if len(systems) != 1:
        raise ValueError(f"a meeting report shows one system, got {len(systems)}")
    name, result, sessions = systems[0]
    missing = [key for key in (metric, f"{metric}_errors", f"{metric}_length") if key not in result]
    if missing:
        raise ValueError(f"system {name!r}: the result has no {', '.join(missing)}")
    views = [SessionView(*view) for view in sessions]
    summary = [("rate", result[metric], 2), ("errors", result[f"{metric}_errors"], 0)]
    summary += [
        ("length", result[f"{metric}_length"], 0),
        ("sessions", result.get(f"{metric}_sessions", len(views)), 0),
    ]
    facts = " · ".join(f"{key} {_span(key, value, d)}" for key, value, d in summary)
    body = [
        details_list({"system": name, **(details or {})}),
        f'<p class="note">{_esc(metric)}: {facts}</p>',
        _LEGEND,
        table_section("Sessions", [_session_row(metric, v) for v in views], "sessions-table"),
        *(_session_html(k, metric, view) for k, view in enumerate(views)),
    ]
    return html_page(title, "\n".join(part for part in body if part), css=_CSS)


def write_sessions_report(path: str | os.PathLike, systems: Sequence, **options: Any) -> None:
    """Write `render_sessions` ``(systems, **options)`` to ``path`` atomically (temp file, then rename).

    >>> import tempfile, pathlib
    >>> result = {"cpWER": 0.0, "cpWER_errors": 0, "cpWER_length": 0, "cpWER_sessions": 0}
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "report.html"
    >>> write_sessions_report(p, [("sys", result, [])], metric="cpWER")
    >>> "<h1>Meeting report</h1>" in p.read_text()
    True
    """
    page = render_sessions(systems, **options)
    with atomic_open(path) as f:
        f.write(page)
