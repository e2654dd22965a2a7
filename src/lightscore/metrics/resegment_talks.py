"""`Resegmented`'s rows: one talk each, from a step's values or from SCP files keyed by talk and by segment.

A row of `lightscore.metrics.resegment.Resegmented` is one talk: its hypothesis (the whole talk's
text) and its reference segments. A reference value holds the segments as a JSON array of strings
(one line: what an SCP file can hold) or one segment per line. In files the references usually
come one segment per row, with a map from segment to talk (`talk_batches`):

    hyp.scp    talk1 the whole talk's text as the system wrote it
    ref.scp    talk1_0001 the first reference segment
               talk1_0002 the second
    talks.scp  talk1_0001 talk1
               talk1_0002 talk1
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from typing import Any

from lightscore.scp.files import ScpShard, read_scp

__all__ = ["segment_list", "segment_value", "talk_batches"]


def segment_list(value: str) -> list[str]:
    """A talk's segments from one value: a JSON array of strings, else one segment per line.

    Args:
        value: The row's value.

    Returns:
        The segments, in order; ``""`` gives one empty segment, as an empty line of a reference file.

    >>> segment_list('["a b", "c"]'), segment_list("a b\\nc"), segment_list("[laughter] yes")
    (['a b', 'c'], ['a b', 'c'], ['[laughter] yes'])
    """
    if value.lstrip().startswith("["):
        try:
            parsed = json.loads(value)
        except ValueError:
            parsed = None
        if isinstance(parsed, list) and all(isinstance(s, str) for s in parsed):
            return parsed
    return value.split("\n")


def segment_value(segments: list[str]) -> str:
    """The one-line value `segment_list` reads back: a JSON array (non-ASCII kept as it is).

    >>> segment_value(["a b", "c"])
    '["a b", "c"]'
    """
    return json.dumps(segments, ensure_ascii=False)


def _whole(path: Any) -> str | os.PathLike:
    """The whole file behind ``path``: a talk's segments may sit anywhere in the reference file."""
    return path.path if isinstance(path, ScpShard) else path


def _read_map(path: Any, what: str) -> dict[str, tuple[int, str]]:
    """``id -> (line, value)`` of a whole SCP file; an id given twice is an error naming both lines."""
    rows: dict[str, tuple[int, str]] = {}
    for line, key, value in read_scp(_whole(path)):
        if key in rows:
            raise ValueError(f"{_whole(path)}:{line}: {what} {key!r} comes twice (first at line {rows[key][0]})")
        rows[key] = (line, value)
    return rows


def talk_batches(data: Mapping[str, Any], size: int) -> Iterator[tuple[list[str], dict[str, list[str]]]]:
    """Batches of talk rows from ``hyp`` (by talk), ``ref`` (by segment) and ``talk`` (segment -> talk).

    The hypothesis file leads (this rank's rows of it, for a shard); each rank reads the whole
    reference and map files, so a talk's segments are found wherever they are. A talk's segments
    keep the reference file's order.

    Args:
        data: ``hyp``, ``ref`` and ``talk``: SCP paths or `ScpShard`s.
        size: Talks per batch.

    Returns:
        An iterator of ``(talk ids, {"hyp": texts, "ref": JSON arrays, "ref_ids": JSON arrays})``.

    Raises:
        ValueError: naming the file and line: an id given twice, a reference segment the map does not name
            or maps to no talk, a talk with no reference segment; and a talk with segments but no hypothesis
            line. Map rows of segments the reference does not hold are left alone.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "hyp.scp").write_text("t1 a b c\\n")
    >>> _ = (d / "ref.scp").write_text("s1 a b\\ns2 c\\n")
    >>> _ = (d / "talks.scp").write_text("s1 t1\\ns2 t1\\n")
    >>> next(talk_batches({"hyp": d / "hyp.scp", "ref": d / "ref.scp", "talk": d / "talks.scp"}, 10))
    (['t1'], {'hyp': ['a b c'], 'ref': ['["a b", "c"]'], 'ref_ids': ['["s1", "s2"]']})
    """
    talk_of = _read_map(data["talk"], "segment")
    for segment, (line, talk) in talk_of.items():
        if not talk:
            raise ValueError(f"{_whole(data['talk'])}:{line}: segment {segment!r} names no talk")
    segments: dict[str, list[tuple[str, str]]] = {}
    for segment, (line, text) in _read_map(data["ref"], "segment").items():  # in file order
        if segment not in talk_of:
            raise ValueError(f"{_whole(data['ref'])}:{line}: segment {segment!r} has no talk in {_whole(data['talk'])}")
        segments.setdefault(talk_of[segment][1], []).append((segment, text))
    hyps = _read_map(data["hyp"], "talk")
    for talk in segments:
        if talk not in hyps:
            raise ValueError(f"talk {talk!r} has reference segments but no line in {_whole(data['hyp'])}")
    ids: list[str] = []
    batch: dict[str, list[str]] = {"hyp": [], "ref": [], "ref_ids": []}
    for line, talk, text in read_scp(data["hyp"]):
        if talk not in segments:
            raise ValueError(f"{_whole(data['hyp'])}:{line}: talk {talk!r} has no reference segment")
        ids.append(talk)
        batch["hyp"].append(text)
        batch["ref"].append(segment_value([t for _, t in segments[talk]]))
        batch["ref_ids"].append(segment_value([s for s, _ in segments[talk]]))
        if len(ids) == size:
            yield ids, batch
            ids, batch = [], {"hyp": [], "ref": [], "ref_ids": []}
    if ids:
        yield ids, batch
