"""sclite's stm references and ctm hypotheses, and its rule for giving each reference segment its words.

An stm line is ``file channel speaker begin end [<labels>] transcript`` (the
transcript may hold ``IGNORE_TIME_SEGMENT_IN_SCORING``, `is_ignored`); a ctm line is ``file
channel begin duration word [confidence]``, and ``<ALT_BEGIN>`` / ``<ALT>`` /
``<ALT_END>`` lines (times ``*``) bound an alternation (what ``csrfilt`` makes
of ``{HE IS / HE HAS}``). Lines starting ``;;`` are comments.

sclite's DP mode chops the hypothesis per file and channel: it walks the
segments in time order and gives each one every remaining word whose midpoint
lies *before the segment's end* (the last segment takes the rest); an
alternation goes whole, by its latest midpoint; the words an
``IGNORE_TIME_SEGMENT_IN_SCORING`` segment gets are dropped, and the segment
too. Segments are named ``<speaker>-NNN`` in that order, as sclite's reports.
(`lightscore.segments.readers` reads stm and ctm for meeting metrics, without
channels, labels or alternations; this module keeps what sclite needs.)
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable
from operator import attrgetter, itemgetter
from typing import NamedTuple

import numpy as np

from lightscore._moved_names import moved_names
from lightscore.text.hubscr.spacing import single_spaced

__all__ = [
    "CONVERSATION",
    "IGNORE",
    "CtmItem",
    "StmCtmError",
    "StmSegment",
    "assign_words",
    "hyp_text",
    "is_ignored",
    "read_ctm_items",
    "read_stm_segments",
    "sort_ctm_lines",
]

IGNORE = "IGNORE_TIME_SEGMENT_IN_SCORING"

Timed = tuple[float, float, str]  # (begin, duration, word)


class StmCtmError(ValueError):
    """A malformed stm or ctm line; the message names the file and the line."""


class StmSegment(NamedTuple):
    """One stm reference segment as sclite scores it (not `lightscore.segments.Segment`, a meeting's segment)."""

    file: str
    channel: str
    speaker: str
    begin: float
    end: float
    labels: str
    text: str
    line: int


class CtmItem(NamedTuple):
    """One hypothesis word, or one alternation (several alternatives, each a list of timed words)."""

    alternatives: tuple[tuple[Timed, ...], ...]
    line: int

    @property
    def midpoint(self) -> float:
        """The latest midpoint of its words: an alternation is not split between segments."""
        if len(self.alternatives) == 1 and len(self.alternatives[0]) == 1:  # most items: one word
            begin, duration, _ = self.alternatives[0][0]
            return begin + duration / 2
        return max((begin + duration / 2 for alt in self.alternatives for begin, duration, _ in alt), default=0.0)


def _number(text: str, what: str, where: str, number: int) -> float:
    try:
        value = float(text)
    except ValueError:
        raise StmCtmError(f"{where} line {number}: {what} {text!r} is not a number") from None
    # issue 38: float() takes "nan" and "inf", which would scramble a ctm's time order (sclite has no such times)
    if not math.isfinite(value):
        raise StmCtmError(f"{where} line {number}: {what} {text!r} is not a finite number")
    return value


def _content(lines: Iterable[str]) -> Iterable[tuple[int, list[str], str]]:
    for number, raw in enumerate(lines, 1):
        fields = raw.split()
        if fields and not raw.lstrip().startswith(";;"):
            yield number, fields, raw


def _lines(path: str | os.PathLike, encoding: str = "utf-8") -> list[str]:
    with open(path, encoding=encoding) as f:
        return f.readlines()


def read_stm_segments(path: str | os.PathLike, encoding: str = "utf-8") -> list[StmSegment]:
    """The segments of an stm file (read as ``encoding``), in file order.

    Raises:
        StmCtmError: fewer than 5 fields, or a time that is not a number.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "ref.stm"
    >>> _ = p.write_text(";; x\\nf1 A spk1 0.0 1.5 <o,f0,male> uh huh\\n")
    >>> [segment] = read_stm_segments(p)
    >>> segment[:5], segment.labels, segment.text, segment.line
    (('f1', 'A', 'spk1', 0.0, 1.5), '<o,f0,male>', 'uh huh', 2)
    """
    where, segments = os.fspath(path), []
    new = tuple.__new__  # not StmSegment's own __new__, a Python function: one call per line saved
    with open(path, encoding=encoding) as f:
        rows = _stm_rows(f.read())
    for number, parts in rows:
        if len(parts) < 5:
            raise StmCtmError(f"{where} line {number}: an stm line needs 5 fields or more, got {' '.join(parts)!r}")
        try:
            begin, end = float(parts[3]), float(parts[4])
        except ValueError:
            begin, end = _number(parts[3], "begin", where, number), _number(parts[4], "end", where, number)
        rest = parts[5] if len(parts) > 5 else ""
        first, _, after = rest.partition(" ")
        labels = first if first[:1] == "<" and first[-1:] == ">" else ""
        segments.append(new(StmSegment, (*parts[:3], begin, end, labels, after if labels else rest, number)))
    return segments


def _stm_rows(text: str) -> list[tuple[int, list[str]]]:
    """Every line that is not blank or a ``;;`` comment: its number and ``[file, channel, speaker, begin, end, rest]``
    (fewer fields on a short line), the rest (labels and transcript) single-spaced.

    >>> _stm_rows(";; c\\nf A s 0 1 <l> a b\\n\\n"), _stm_rows("f  A s 0 1 a\\tb\\nf A")
    ([(2, ['f', 'A', 's', '0', '1', '<l> a b'])], [(1, ['f', 'A', 's', '0', '1', 'a b']), (2, ['f', 'A'])])
    """
    lines = text.split("\n")
    if single_spaced(text):  # most stm files: a line split once, its transcript kept whole
        return [(number, line.split(" ", 5)) for number, line in enumerate(lines, 1) if line and line[:2] != ";;"]
    rows = []
    for number, line in enumerate(lines, 1):
        fields = line.split()
        if fields and not fields[0].startswith(";;"):
            rows.append((number, [*fields[:5], " ".join(fields[5:])] if len(fields) > 5 else fields))
    return rows


def read_ctm_items(
    path: str | os.PathLike, lines: Iterable[str] | None = None, encoding: str = "utf-8", in_order: bool = False
) -> dict[tuple[str, str], list[CtmItem]]:
    """The items of a ctm file (read as ``encoding``, or of its ``lines``, e.g. filtered) per ``(file, channel)``,
    by time (``in_order``: as given, for lines sorted already, e.g. by `sort_ctm_lines`).

    Alternations stay whole.

    Raises:
        StmCtmError: fewer than 5 fields, a bad time, or an unbalanced ``<ALT_BEGIN>``.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "hyp.ctm"
    >>> _ = p.write_text("f1 A 0.5 0.25 hello 0.9\\nf1 A * * <ALT_BEGIN>\\nf1 A 1 0.5 a\\nf1 A * * <ALT>\\n"
    ...                  "f1 A 1 0.5 b\\nf1 A * * <ALT_END>\\n")
    >>> [hyp_text([item]) for item in read_ctm_items(p)[("f1", "A")]]
    ['hello', '{ a / b }']
    """
    where = os.fspath(path)
    items: dict[tuple[str, str], list[CtmItem]] = {}
    open_block: list[list[Timed]] | None = None
    start = 0
    for number, fields, _ in _content(_lines(path, encoding) if lines is None else lines):
        if len(fields) < 5:
            raise StmCtmError(f"{where} line {number}: a ctm line needs 5 fields or more, got {' '.join(fields)!r}")
        key, word = (fields[0], fields[1]), fields[4]
        if word == "<ALT_BEGIN>":
            open_block, start = [[]], number
        elif word == "<ALT>" and open_block is not None:
            open_block.append([])
        elif word == "<ALT_END>" and open_block is not None:
            alternatives = tuple(tuple(alt) for alt in open_block)
            items.setdefault(key, []).append(CtmItem(alternatives, start))
            open_block = None
        else:
            timed = (_number(fields[2], "begin", where, number), _number(fields[3], "duration", where, number), word)
            if open_block is not None:
                open_block[-1].append(timed)
            else:
                items.setdefault(key, []).append(CtmItem(((timed,),), number))
    if open_block is not None:
        raise StmCtmError(f"{where} line {start}: <ALT_BEGIN> is never closed by <ALT_END>")
    for key in items if not in_order else ():
        items[key].sort(key=lambda item: min((w[0] for alt in item.alternatives for w in alt), default=0.0))
    return items


def sort_ctm_lines(lines: Iterable[str]) -> list[str]:
    """hubscr's ``sortCTM``, which it runs on a ctm before csrfilt: by file, channel, then begin, stably.

    Comments and blank lines go; names are compared as strings, begins as Perl's numbers (``*``,
    an alternation mark's time, is 0: an alternation in the input falls apart, as in hubscr).

    >>> sort_ctm_lines(["f B 2 1 x", ";; c", "f A 1.50 1 y", "f A 1.5 1 z", "f A * * <ALT>", "e A 3 1 w"])
    ['e A 3 1 w', 'f A * * <ALT>', 'f A 1.50 1 y', 'f A 1.5 1 z', 'f B 2 1 x']
    """
    conversations: dict[str, dict[str, list[tuple[float, str]]]] = {}
    for line in lines:
        line = line.lstrip(" \t\n\r\f\v")
        fields = line.split()
        if fields and not line.startswith(";;"):
            channels = conversations.setdefault(fields[0], {})
            channels.setdefault(fields[1] if len(fields) > 1 else "", []).append((_perl_number(fields[2:3]), line))
    return [
        line.rstrip("\n")
        for file in sorted(conversations)
        for channel in sorted(conversations[file])
        for _, line in sorted(conversations[file][channel], key=itemgetter(0))
    ]


_PERL_NUMBER = re.compile(r"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan)", re.IGNORECASE)


def _perl_number(field: list[str]) -> float:
    """What Perl's ``<=>`` makes of a field (the first of ``field``; none: 0): its leading number, else 0."""
    found = _PERL_NUMBER.match(field[0]) if field else None
    return float(found.group()) if found else 0.0


def hyp_text(items: Iterable[CtmItem]) -> str:
    """A segment's hypothesis as sclite's network text: words, and alternations as ``{ a b / c }``.

    >>> hyp_text([CtmItem((((0.0, 1.0, "a"),),), 1), CtmItem((((1, 1, "b"), (1, 1, "c")), ((1, 1, "d"),)), 2)])
    'a { b c / d }'
    """
    parts = []
    for item in items:
        if len(item.alternatives) == 1:
            parts += [word for _, _, word in item.alternatives[0]]
        else:
            texts = [" ".join(word for _, _, word in alt) or "@" for alt in item.alternatives]
            parts.append("{ " + " / ".join(texts) + " }")
    return " ".join(parts)


def assign_words(
    segments: list[StmSegment],
    ctm: dict[tuple[str, str], list[CtmItem]],
    midpoints: dict[tuple[str, str], list[float]] | None = None,
) -> list[tuple[str, StmSegment, list[CtmItem]]]:
    """sclite's chopping of the hypothesis: ``(utterance id, segment, its items)`` per scored segment.

    Args:
        segments: From `read_stm_segments`.
        ctm: From `read_ctm_items`.
        midpoints: Each item's `CtmItem.midpoint`, per key of ``ctm``, when the reader has them already.

    Returns:
        One entry per segment whose text sclite does not ignore (`is_ignored`), in sclite's order
        (file, channel, then time), named ``<speaker>-NNN`` per speaker in that order.

    >>> seg = [StmSegment("f", "1", "s", 0, 1, "", "a", 1), StmSegment("f", "1", "s", 2, 3, "", "b", 2)]
    >>> words = {("f", "1"): [CtmItem((((0.9, 0.2, "x"),),), 1), CtmItem((((5.0, 0.2, "y"),),), 2)]}
    >>> [(utt, [hyp_text([i]) for i in items]) for utt, _, items in assign_words(seg, words)]
    [('s-000', []), ('s-001', ['x', 'y'])]
    """
    groups: dict[tuple[str, str], list[StmSegment]] = {}
    for segment in segments:
        groups.setdefault((segment.file, segment.channel), []).append(segment)
    counters: dict[str, int] = {}
    assigned = []
    for key in sorted(groups):
        ordered = sorted(groups[key], key=_BEGIN)
        items = ctm.get(key, [])
        mids = midpoints[key] if midpoints is not None and key in midpoints else [item.midpoint for item in items]
        stops = _stops(np.asarray(mids, dtype=np.float64), [segment.end for segment in ordered])
        stops[-1] = len(items)  # the last segment takes the rest
        for segment, start, stop in zip(ordered, [0, *stops], stops):
            if is_ignored(segment.text):
                continue
            speaker = segment.speaker
            number = counters[speaker] = counters.get(speaker, -1) + 1
            # sclite's "-NNN"; a table, not a format, per segment (formatting costs several times the rest)
            name = speaker + _NUMBERS[number] if number < len(_NUMBERS) else f"{speaker}-{number:03d}"
            assigned.append((name, segment, items[start:stop]))
    return assigned


def _stops(mids: np.ndarray, ends: list[float]) -> list[int]:
    """Where each segment's items end, segments in time order: sclite takes the items after the segment before's
    while their midpoint is before the segment's end, the end rounded to a 32-bit float as sclite reads it.

    >>> _stops(np.array([1.0, 2.0, 3.0]), [2.5, 1.5, 9.0]), _stops(np.array([3.0, 1.0, 2.0]), [2.5, 9.0])
    ([2, 2, 3], [0, 3])
    """
    # sclite reads an stm time as a C float (its TEXT_atof) and a ctm time as a double: 3.39 ends after a
    # word at 3.39, 1.3 before one at 1.3 (checked against sctk).
    found = np.asarray(ends, dtype=np.float32).astype(np.float64)
    if (mids[1:] >= mids[:-1]).all() and not np.isnan(found).any():
        # Midpoints in order: a bisection of each end, never back before the segment before's stop.
        return np.maximum.accumulate(np.searchsorted(mids, found, "left")).tolist()
    stops, stop, values = [], 0, mids.tolist()
    for end in found.tolist():
        while stop < len(values) and values[stop] < end:
            stop += 1
        stops.append(stop)
    return stops


_NUMBERS = [f"-{number:03d}" for number in range(1000)]
_BEGIN = attrgetter("begin")


def is_ignored(text: str) -> bool:
    """Whether sclite ignores a segment with this text: it *holds* ``IGNORE_TIME_SEGMENT_IN_SCORING`` or
    ``IGNORETIMESEGMENTINSCORING`` (SCTK's ``lvc_refe.stm`` spelling), A-Z in any case, even under ``-s``.

    sclite looks for the mark anywhere in the text, inside a word too (``xIGNORE_TIME_SEGMENT_IN_SCORINGy``),
    so a segment whose words merely include it is ignored whole. Other letters do not fold (a dotless ``ı``
    is not an ``I``), and a mixed spelling (``IGNORE_TIMESEGMENTINSCORING``) is no mark: both checked
    against ``sctk sclite``.

    Args:
        text: A segment's transcript.

    Returns:
        True when sclite drops the segment and the hypothesis words it gets.

    >>> is_ignored(" ignore_time_segment_in_scoring"), is_ignored("x IgnoreTimeSegmentInScoring y")
    (True, True)
    >>> is_ignored("IGNORE_TIME_SEGMENT"), is_ignored("IGNORE_TIMESEGMENTINSCORING")
    (False, False)
    """
    # Most texts are shorter than the mark: decided without a search.
    return len(text) >= len(_IGNORE_JOINED) and _IGNORE_MARK.search(text) is not None


_IGNORE_JOINED = IGNORE.replace("_", "")
# re.ASCII: only A-Z fold, as in sclite's byte-wise comparison (Unicode folding would take "ı" for "I").
_IGNORE_MARK = re.compile(f"{IGNORE}|{_IGNORE_JOINED}", re.IGNORECASE | re.ASCII)


Key = tuple[str, str]  # a conversation's (file, channel)
CONVERSATION = itemgetter(0, 1)  # a StmSegment's `Key`

# The names these had before: `lightscore.segments` holds a `Segment`, `read_stm` and `read_ctm` of its own.
__getattr__ = moved_names(
    globals(),
    {
        "Segment": "lightscore.text.hubscr.stm_ctm.StmSegment",
        "read_stm": "lightscore.text.hubscr.stm_ctm.read_stm_segments",
        "read_ctm": "lightscore.text.hubscr.stm_ctm.read_ctm_items",
    },
)
