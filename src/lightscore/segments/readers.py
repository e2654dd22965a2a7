"""Meeting files to segments: STM, CTM, SegLST (meeteval's JSON) and RTTM, split per session.

Every reader returns ``{session_id: [Segment, ...]}`` in file order; a bad
line raises `SegmentError` naming the file, the line and the session. The
conventions follow meeteval's readers: an STM transcript is kept whole (a
``<label>`` field is not stripped), a CTM file is one speaker named by the
file's stem and each of its lines one word, and an RTTM keeps only its
``SPEAKER`` lines (no words). A speaker's turns may overlap each other in
every format: meeteval allows it, and md-eval and pyannote accept such RTTM
files (DER and JER merge them: `lightscore.analysis.diarization`);
`check_speaker_overlap` is there for callers who want them refused.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

__all__ = [
    "FORMATS",
    "Segment",
    "SegmentError",
    "check_speaker_overlap",
    "dumps",
    "loads",
    "read_ctm",
    "read_rttm",
    "read_segments",
    "read_seglst",
    "read_stm",
    "read_uem",
    "segments_from_entries",
]

FORMATS = ("stm", "ctm", "seglst", "rttm")
Sessions = dict[str, list["Segment"]]


class Segment(NamedTuple):
    """One speaker's stretch of talk: speaker id, start and end in seconds, and its words ("" in an RTTM).

    ``line`` is the line (or SegLST entry, from 1) it was read from, 0 when unknown; it names the
    segment in errors and takes no part in scoring.

    >>> Segment("spk1", 0.5, 1.25, "hello world")
    Segment(speaker='spk1', start=0.5, end=1.25, words='hello world', line=0)
    """

    speaker: str
    start: float
    end: float
    words: str = ""
    line: int = 0


class SegmentError(ValueError):
    """A meeting file or segment list that cannot be scored; the message names the file, line and session.

    >>> str(SegmentError("x.stm", 3, "s1", "end 1.0 is before start 2.0"))
    "x.stm line 3 (session 's1'): end 1.0 is before start 2.0"
    """

    def __init__(self, where: str, line: int, session: str | None, message: str) -> None:
        at = f" line {line}" if line else ""
        who = f" (session {session!r})" if session is not None else ""
        super().__init__(f"{where}{at}{who}: {message}")


def _time(text: str, what: str, where: str, number: int, session: str | None) -> float:
    try:
        value = float(text)
    except ValueError:
        raise SegmentError(where, number, session, f"{what} {text!r} is not a number") from None
    if not math.isfinite(value) or value < 0:
        raise SegmentError(where, number, session, f"{what} {text!r} is not a finite time >= 0")
    return value


def _segment(where: str, number: int, session: str, speaker: str, start: float, end: float, words: str) -> Segment:
    if end < start:
        raise SegmentError(where, number, session, f"end {end} is before start {start}")
    return Segment(speaker, start, end, " ".join(words.split()), number)


def _lines(path: Path) -> Iterable[tuple[int, list[str], str]]:
    """``(line number, fields, raw line)`` of the lines that are not blank or ``;;`` / ``#`` comments."""
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            stripped = raw.strip()
            if stripped and not stripped.startswith((";", "#")):
                yield number, stripped.split(), stripped


def read_stm(path: str | os.PathLike) -> Sessions:
    """Read ``session channel speaker start end transcript`` lines.

    Raises:
        SegmentError: fewer than 5 fields, a time that is not a number, end before start.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "ref.stm"
    >>> _ = p.write_text("s1 1 A 0.0 1.5 hello world\\ns1 1 B 1.0 2.0 hi\\n")
    >>> read_stm(p)["s1"][1]
    Segment(speaker='B', start=1.0, end=2.0, words='hi', line=2)
    """
    where, sessions = str(path), {}
    for number, fields, raw in _lines(Path(path)):
        if len(fields) < 5:
            raise SegmentError(where, number, None, f"an STM line needs 5 fields or more, got {raw!r}")
        session, _, speaker, start, end = fields[:5]
        words = raw.split(maxsplit=5)[5] if len(fields) > 5 else ""
        begin = _time(start, "start", where, number, session)
        stop = _time(end, "end", where, number, session)
        sessions.setdefault(session, []).append(_segment(where, number, session, speaker, begin, stop, words))
    return sessions


def read_ctm(path: str | os.PathLike) -> Sessions:
    """Read ``session channel start duration word [confidence]`` lines: one word each, the speaker the file's stem.

    Raises:
        SegmentError: fewer than 5 fields, a time that is not a number.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "spkA.ctm"
    >>> _ = p.write_text("s1 1 0.5 0.25 hello 0.9\\n")
    >>> read_ctm(p)
    {'s1': [Segment(speaker='spkA', start=0.5, end=0.75, words='hello', line=1)]}
    """
    where, speaker, sessions = str(path), Path(path).stem, {}
    for number, fields, raw in _lines(Path(path)):
        if len(fields) < 5:
            raise SegmentError(where, number, None, f"a CTM line needs 5 fields or more, got {raw!r}")
        session, _, start, duration, word = fields[:5]
        begin = _time(start, "start", where, number, session)
        length = _time(duration, "duration", where, number, session)
        sessions.setdefault(session, []).append(_segment(where, number, session, speaker, begin, begin + length, word))
    return sessions


def read_rttm(path: str | os.PathLike) -> Sessions:
    """Read the ``SPEAKER session channel start duration <NA> <NA> speaker ...`` lines of an RTTM file.

    A speaker's turns that overlap each other are kept as given (md-eval and pyannote accept them;
    DER and JER merge them).

    Raises:
        SegmentError: fewer than 8 fields, or a time that is not a number.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "ref.rttm"
    >>> _ = p.write_text("SPEAKER s1 1 0.00 1.50 <NA> <NA> A <NA> <NA>\\n")
    >>> read_rttm(p)
    {'s1': [Segment(speaker='A', start=0.0, end=1.5, words='', line=1)]}
    """
    where, sessions = str(path), {}
    for number, fields, raw in _lines(Path(path)):
        if fields[0].upper() != "SPEAKER":
            continue
        if len(fields) < 8:
            raise SegmentError(where, number, None, f"an RTTM SPEAKER line needs 8 fields or more, got {raw!r}")
        session, start, duration, speaker = fields[1], fields[3], fields[4], fields[7]
        begin = _time(start, "start", where, number, session)
        length = _time(duration, "duration", where, number, session)
        sessions.setdefault(session, []).append(_segment(where, number, session, speaker, begin, begin + length, ""))
    return sessions


def check_speaker_overlap(segments: Sequence[Segment], where: str, session: str) -> None:
    """Raise `SegmentError` when two segments of one speaker overlap (touching is fine).

    >>> check_speaker_overlap([Segment("A", 0, 2, "", 1), Segment("A", 1, 3, "", 2)], "ref.rttm", "s1")
    Traceback (most recent call last):
    ...
    lightscore.segments.readers.SegmentError: ref.rttm line 2 (session 's1'): speaker 'A' overlaps itself: \
1..3 starts before the segment of line 1 (0..2) ends
    """
    last: dict[str, Segment] = {}
    for seg in sorted(segments, key=lambda s: (s.start, s.end)):
        before = last.get(seg.speaker)
        if before is not None and seg.start < before.end:
            message = (
                f"speaker {seg.speaker!r} overlaps itself: {seg.start:g}..{seg.end:g} starts before the segment"
                f" of line {before.line} ({before.start:g}..{before.end:g}) ends"
            )
            raise SegmentError(where, seg.line, session, message)
        if before is None or seg.end > before.end:
            last[seg.speaker] = seg


def _from_entries(entries: Any, where: str, session: str | None = None) -> Sessions:
    """SegLST entries (dicts with session_id, speaker, start_time, end_time, words) to sessions."""
    if not isinstance(entries, list):
        raise SegmentError(where, 0, session, f"SegLST must be a JSON list of segments, got {type(entries).__name__}")
    sessions: Sessions = {}
    for number, entry in enumerate(entries, 1):
        if not isinstance(entry, Mapping):
            raise SegmentError(where, number, session, f"segment {number} is a {type(entry).__name__}, not an object")
        sid = str(entry.get("session_id", session if session is not None else ""))
        missing = [key for key in ("speaker", "start_time", "end_time") if key not in entry]
        if missing:
            raise SegmentError(where, number, sid, f"segment {number} lacks {', '.join(missing)}")
        if entry["speaker"] is None or not str(entry["speaker"]).strip():
            raise SegmentError(where, number, sid, f"segment {number} has no speaker ({entry['speaker']!r})")
        begin = _time(str(entry["start_time"]), "start_time", where, number, sid)
        stop = _time(str(entry["end_time"]), "end_time", where, number, sid)
        words = entry.get("words", "")
        words = " ".join(words) if isinstance(words, list) else str(words)
        sessions.setdefault(sid, []).append(_segment(where, number, sid, str(entry["speaker"]), begin, stop, words))
    return sessions


def segments_from_entries(entries: Sequence[Mapping[str, Any]], where: str, session: str) -> list[Segment]:
    """One session's segments from SegLST-style dicts; a ``session_id`` other than ``session`` is an error.

    Raises:
        SegmentError: a malformed entry (named by its position from 1), or one of another session.

    >>> segments_from_entries([{"speaker": "A", "start_time": 0, "end_time": 1}], "hyp segments", "s1")
    [Segment(speaker='A', start=0.0, end=1.0, words='', line=1)]
    """
    sessions = _from_entries(list(entries), where, session)
    other = [sid for sid in sessions if sid != session]
    if other:
        raise SegmentError(where, 0, session, f"holds segments of session {other[0]!r}")
    return sessions.get(session, [])


def read_seglst(path: str | os.PathLike) -> Sessions:
    """Read a SegLST file (meeteval's JSON: a list of segments with ``session_id``, ``speaker``, times, ``words``).

    Raises:
        SegmentError: not JSON, not a list, a segment without speaker or times.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "hyp.json"
    >>> _ = p.write_text('[{"session_id": "s1", "speaker": "A", "start_time": 0, "end_time": 1, "words": "hi"}]')
    >>> read_seglst(p)
    {'s1': [Segment(speaker='A', start=0.0, end=1.0, words='hi', line=1)]}
    """
    where = str(path)
    try:
        entries = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise SegmentError(where, e.lineno, None, f"not valid JSON: {e.msg}") from None
    return _from_entries(entries, where)


def read_uem(path: str | os.PathLike) -> dict[str, list[tuple[float, float]]]:
    """Read a UEM file (``session channel start end`` per line): each session's scoring regions in seconds.

    Raises:
        SegmentError: fewer than 4 fields, a bad time, end not after start, or regions that overlap.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "all.uem"
    >>> _ = p.write_text("s1 1 0.0 30.0\\ns1 1 40 50\\n")
    >>> read_uem(p)
    {'s1': [(0.0, 30.0), (40.0, 50.0)]}
    """
    where, regions = str(path), {}
    lines: dict[str, list[tuple[float, float, int]]] = {}
    for number, fields, raw in _lines(Path(path)):
        if len(fields) < 4:
            raise SegmentError(where, number, None, f"a UEM line needs 4 fields, got {raw!r}")
        session = fields[0]
        start, end = (_time(fields[k], what, where, number, session) for k, what in ((2, "start"), (3, "end")))
        if end <= start:
            raise SegmentError(where, number, session, f"end {end:g} is not after start {start:g}")
        lines.setdefault(session, []).append((start, end, number))
    for session, spans in lines.items():
        spans.sort()
        for (_, e0, n0), (s1, _, n1) in zip(spans, spans[1:]):
            if s1 < e0:
                raise SegmentError(where, n1, session, f"the region starts before the one of line {n0} ends")
        regions[session] = [(s, e) for s, e, _ in spans]
    return regions


READERS = {"stm": read_stm, "ctm": read_ctm, "seglst": read_seglst, "rttm": read_rttm}
SUFFIXES = {".stm": "stm", ".ctm": "ctm", ".json": "seglst", ".seglst": "seglst", ".rttm": "rttm"}


def file_format(path: str | os.PathLike, fmt: str | None = None) -> str:
    """The format of ``path``: ``fmt`` when given, else from its suffix.

    Raises:
        ValueError: an unknown ``fmt``, or a suffix that names no format.

    >>> file_format("dev/ref.stm"), file_format("hyp.json"), file_format("x.txt", "rttm")
    ('stm', 'seglst', 'rttm')
    """
    if fmt is not None:
        if fmt not in READERS:
            raise ValueError(f"segment format {fmt!r} is not one of {', '.join(FORMATS)}")
        return fmt
    suffix = Path(path).suffix.lower()
    if suffix not in SUFFIXES:
        raise ValueError(f"{path}: cannot tell the format from the suffix {suffix!r}; give one of {', '.join(FORMATS)}")
    return SUFFIXES[suffix]


def read_segments(path: str | os.PathLike, fmt: str | None = None) -> Sessions:
    """Read a meeting file in any of `FORMATS` (``fmt``, or told by the suffix) into ``{session: segments}``.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "ref.stm"
    >>> _ = p.write_text("s2 1 A 0 1 a\\ns1 1 A 0 1 b\\n")
    >>> list(read_segments(p))
    ['s2', 's1']
    """
    return READERS[file_format(path, fmt)](path)


def dumps(segments: Iterable[Segment]) -> str:
    """One session's segments as one line of SegLST JSON: the value a Lightning step returns per session.

    >>> dumps([Segment("A", 0.0, 1.5, "hello")])
    '[{"speaker": "A", "start_time": 0.0, "end_time": 1.5, "words": "hello"}]'
    """
    entries = [{"speaker": s.speaker, "start_time": s.start, "end_time": s.end, "words": s.words} for s in segments]
    return json.dumps(entries, ensure_ascii=False)


def loads(text: str, session: str, where: str = "inline segments") -> list[Segment]:
    """The segments of one session from `dumps`'s JSON (``session_id`` keys, when present, must be ``session``).

    Raises:
        SegmentError: not JSON, or a malformed segment (named by its position from 1).

    >>> loads('[{"speaker": "A", "start_time": 0, "end_time": 1}]', "s1")
    [Segment(speaker='A', start=0.0, end=1.0, words='', line=1)]
    """
    try:
        entries = json.loads(text)
    except json.JSONDecodeError as e:
        raise SegmentError(where, 0, session, f"not valid SegLST JSON: {e.msg}") from None
    if not isinstance(entries, list):
        return _from_entries(entries, where, session).get(session, [])  # raises: not a list
    return segments_from_entries(entries, where, session)
