"""Meeting sessions as segments (speaker, start, end, words): file readers and the value of one SCP row.

A meeting metric (`lightscore.metrics.meeting`) reads one session per row. In
``measure()`` the row is an SCP line ``session_id value``, where ``value`` is a
meeting file (STM, CTM, SegLST JSON or RTTM) holding that session, or ``""``
for an empty session; `write_session_scps` writes such SCPs for whole
reference and hypothesis files. In a Lightning ``validation_step`` the value
is the session's list of segments (`Segment`, SegLST dicts or ``(speaker,
start, end, words)`` tuples) or one JSON string of them (`dumps`).
`as_segments` turns any of these into the session's list of `Segment`.

>>> from lightscore.segments import Segment, dumps, session_segments
>>> session_segments(dumps([Segment("A", 0.0, 1.0, "hi")]), "s1")
[Segment(speaker='A', start=0.0, end=1.0, words='hi', line=1)]
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lightscore.scp import write_scp
from lightscore.segments.readers import (
    FORMATS,
    Segment,
    SegmentError,
    check_speaker_overlap,
    dumps,
    file_format,
    loads,
    read_ctm,
    read_rttm,
    read_seglst,
    read_segments,
    read_stm,
    read_uem,
    segments_from_entries,
)

__all__ = [
    "FORMATS",
    "as_segments",
    "Segment",
    "SegmentError",
    "check_speaker_overlap",
    "dumps",
    "file_format",
    "loads",
    "read_ctm",
    "read_rttm",
    "read_segments",
    "read_seglst",
    "read_stm",
    "read_uem",
    "session_segments",
    "write_session_scps",
]

_cache: dict[tuple[str, str, float, int], dict[str, list[Segment]]] = {}


def _cached(path: str, fmt: str | None) -> dict[str, list[Segment]]:
    """The sessions of ``path``, parsed once while the file is unchanged: one file serves every row naming it."""
    stat = os.stat(path)
    key = (os.path.abspath(path), file_format(path, fmt), stat.st_mtime, stat.st_size)
    if key not in _cache:
        if len(_cache) >= 8:  # a run reads a few files (ref and hyp per test set): keep memory bounded
            _cache.pop(next(iter(_cache)))
        _cache[key] = read_segments(path, fmt)
    return _cache[key]


def session_segments(value: str, session: str, fmt: str | None = None) -> list[Segment]:
    """The segments of ``session`` from one row's value: inline JSON (`dumps`), a meeting file, or "" (none).

    Args:
        value: ``[...]`` SegLST JSON, a path to a file holding the session, or "" for an empty session.
        session: The row's session id.
        fmt: The file's format when its suffix does not tell (one of `FORMATS`).

    Returns:
        The session's segments in file order.

    Raises:
        SegmentError: a malformed file or JSON, or a file without ``session``.

    >>> session_segments("", "s1")
    []
    >>> session_segments("no/such.stm", "s1")
    Traceback (most recent call last):
    ...
    lightscore.segments.readers.SegmentError: no/such.stm (session 's1'): no such file
    """
    text = value.strip()
    if not text:
        return []
    if text.startswith("["):
        return loads(text, session)
    if not os.path.isfile(text):
        raise SegmentError(text, 0, session, "no such file")
    sessions = _cached(text, fmt)
    if session not in sessions:
        known = ", ".join(sorted(sessions)[:5])
        raise SegmentError(text, 0, session, f"the file has no segments of this session (it has {known})")
    return sessions[session]


def as_segments(value: Any, session: str, fmt: str | None = None, side: str = "segments") -> list[Segment]:
    """The segments of ``session`` from one row's value: a list of segments, or a string (`session_segments`).

    A list's items may be `Segment`, SegLST dicts (``speaker``, ``start_time``, ``end_time``,
    ``words``) or ``(speaker, start, end[, words])`` tuples; each is checked like a file's line.

    Args:
        value: The row's value.
        session: The row's session id.
        fmt: The file's format when a path's suffix does not tell.
        side: ``"ref"`` or ``"hyp"``, naming the value in errors.

    Raises:
        SegmentError: a value that is neither, or a bad segment (named by its position from 1).

    >>> as_segments([("A", 0, 1.5, "hi there")], "s1")
    [Segment(speaker='A', start=0.0, end=1.5, words='hi there', line=1)]
    >>> as_segments([("A", 2, 1)], "s1", side="hyp")
    Traceback (most recent call last):
    ...
    lightscore.segments.readers.SegmentError: hyp segments line 1 (session 's1'): end 1.0 is before start 2.0
    """
    if isinstance(value, str):
        return session_segments(value, session, fmt)
    where = f"{side} segments"
    if not isinstance(value, (list, tuple)):
        shown = "None" if value is None else type(value).__name__
        raise SegmentError(where, 0, session, f"a session's segments must be a list or a string, got {shown}")
    entries = []
    for number, item in enumerate(value, 1):
        if isinstance(item, Mapping):
            entries.append(item)
        elif isinstance(item, (tuple, list)) and 3 <= len(item) <= 5:
            entries.append(dict(zip(("speaker", "start_time", "end_time", "words"), item)))
        else:
            kind = type(item).__name__
            raise SegmentError(where, number, session, f"a segment is a Segment, a dict or a tuple, got {kind}")
    return segments_from_entries(entries, where, session)


def write_session_scps(
    ref: str | os.PathLike,
    hyp: str | os.PathLike | Sequence[str | os.PathLike],
    out_dir: str | os.PathLike,
    fmt: str | None = None,
) -> dict[str, Path]:
    """Write ``ref.scp`` and ``hyp.scp`` (one ``session path`` row per reference session) for whole meeting files.

    A session the hypothesis lacks gets an empty value (nothing was recognized or detected
    there). One row's value names one file, so several hypothesis files must hold disjoint
    sessions (one CTM per speaker: convert them to one SegLST file first).

    Args:
        ref: The reference file.
        hyp: The hypothesis file, or several files holding disjoint sessions.
        out_dir: Where the two SCP files go.
        fmt: The files' format when their suffixes do not tell.

    Returns:
        ``{"ref": path, "hyp": path}``, ready to bind in a metrics YAML.

    Raises:
        SegmentError: a malformed file, a hypothesis session missing from the reference, or
            one session in two hypothesis files.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "ref.stm").write_text("s1 1 A 0 1 a\\ns2 1 A 0 1 b\\n")
    >>> _ = (d / "hyp.stm").write_text("s1 1 X 0 1 a\\n")
    >>> scps = write_session_scps(d / "ref.stm", d / "hyp.stm", d / "scp")
    >>> scps["hyp"].read_text().splitlines()[1]
    's2'
    """
    hyps = [hyp] if isinstance(hyp, (str, os.PathLike)) else list(hyp)
    ref_sessions = list(_cached(str(ref), fmt))
    hyp_of: dict[str, str] = {}
    for path in hyps:
        for session in _cached(str(path), fmt):
            if session in hyp_of:
                raise SegmentError(str(path), 0, session, f"the session is also in {hyp_of[session]}")
            if session not in ref_sessions:
                raise SegmentError(str(path), 0, session, f"the reference {ref} has no such session")
            hyp_of[session] = str(path)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    return {
        "ref": write_scp(out / "ref.scp", ((s, str(ref)) for s in ref_sessions)),
        "hyp": write_scp(out / "hyp.scp", ((s, hyp_of.get(s, "")) for s in ref_sessions)),
    }
