"""SCP files: ``utt_id value`` per line, read as a stream and written atomically.

A line is the utterance id, the first run of whitespace, then the value
(stripped). A line holding only an id has the empty value ""; blank lines are
skipped; CRLF endings are accepted.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO


class ScpError(ValueError):
    """A malformed SCP file: the message names the file and the line."""


class ScpMismatchError(AssertionError, ValueError):
    """SCP files read in lockstep disagree: different ids at a row, or different lengths.

    An AssertionError as the `BaseMetric.iter_inputs` documentation promises,
    and a ValueError because it is bad input; always raised explicitly, so
    ``python -O`` cannot strip it.
    """


def parse_line(line: str) -> tuple[str, str] | None:
    """Split one SCP line into ``(utt_id, value)``; None for a blank line.

    >>> parse_line("utt1  the cat\\r\\n")
    ('utt1', 'the cat')
    >>> parse_line("utt2")
    ('utt2', '')
    >>> parse_line("   ") is None
    True
    """
    parts = line.split(None, 1)
    if not parts:
        return None
    return parts[0], parts[1].strip() if len(parts) > 1 else ""


@dataclass(frozen=True)
class ScpShard:
    """One rank's share of an SCP file: the rows ``i`` (blank lines not counted) with ``i % world == rank``.

    It stands wherever an SCP path does (``data`` of a metric, `read_scp`,
    `iter_rows`); opened or printed, it is the file itself, so messages name
    the real file and line. Rows of other ranks are skipped without decoding
    them.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "hyp.scp"
    >>> _ = p.write_text("u0 a\\n\\nu1 b\\nu2 c\\n")
    >>> [utt_id for _, utt_id, _ in read_scp(ScpShard(p, 1, 2))]
    ['u1']
    >>> str(ScpShard(p, 1, 2)) == str(p)
    True
    """

    path: str | os.PathLike
    rank: int
    world: int

    def __post_init__(self) -> None:
        if not 0 <= self.rank < self.world:
            raise ValueError(f"{self.path}: shard rank {self.rank} is not in 0..{self.world - 1}")

    def __fspath__(self) -> str:
        return os.fspath(self.path)

    def __str__(self) -> str:
        return str(self.path)


def read_scp(path: str | os.PathLike) -> Iterator[tuple[int, str, str]]:
    """Stream ``(line_number, utt_id, value)`` from an SCP file (or an `ScpShard` of one), one line at a time.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "hyp.scp"
    >>> _ = p.write_bytes(b"utt1 the cat\\r\\n\\nutt2\\n")
    >>> list(read_scp(p))
    [(1, 'utt1', 'the cat'), (3, 'utt2', '')]
    """
    with open(path, "rb") as f:
        lines = enumerate(f, 1)
        if isinstance(path, ScpShard) and path.world > 1:
            lines = _own_lines(path, lines)
        for number, raw in lines:
            parsed = _parse(path, number, raw)
            if parsed is not None:
                yield number, parsed[0], parsed[1]


def count_scp_rows(path: str | os.PathLike) -> int:
    """The rows of an SCP file (or an `ScpShard` of one): its lines that are not blank.

    Cheaper than reading them: most lines are told rows by their first byte,
    without decoding.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "hyp.scp"
    >>> _ = p.write_text("u1 a\\n\\n u2 b\\nu3\\n")
    >>> count_scp_rows(p), count_scp_rows(ScpShard(p, 1, 2))
    (3, 1)
    """
    shard = path if isinstance(path, ScpShard) else ScpShard(path, 0, 1)
    with open(path, "rb") as f:
        return sum(1 for _ in _own_lines(shard, enumerate(f, 1)))


def _own_lines(shard: ScpShard, lines: Iterator[tuple[int, bytes]]) -> Iterator[tuple[int, bytes]]:
    """The numbered lines of ``shard``'s rows; another rank's row is skipped without decoding it."""
    row = -1
    for number, raw in lines:
        # A visible ASCII first byte makes a row; any other line is parsed to tell whether it is blank.
        if not 32 < raw[0] < 127 and _parse(shard, number, raw) is None:
            continue
        row += 1
        if row % shard.world == shard.rank:
            yield number, raw


def _parse(path: str | os.PathLike, number: int, raw: bytes) -> tuple[str, str] | None:
    """`parse_line` of one raw line; `ScpError` naming the file and line when it is not UTF-8."""
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ScpError(f"{path}:{number}: line is not UTF-8 ({e.reason} at byte {e.start})") from None
    return parse_line(line)


def iter_rows(paths: Mapping[str, str | os.PathLike]) -> Iterator[tuple[str, dict[str, str]]]:
    """Read several SCP files in lockstep, in file order, one row at a time; yield ``(utt_id, {key: value})``.

    Raises `ScpMismatchError` naming both files, the line numbers and both ids
    when the ids differ at a row or one file ends before another.
    (`iter_row_batches` is the same read, a batch at a time, for ``update``.)

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "ref.scp").write_text("u1 a b\\nu2 c\\n")
    >>> _ = (d / "hyp.scp").write_text("u1 a x\\nu2 c\\n")
    >>> [row for _, row in iter_rows({"ref": d / "ref.scp", "hyp": d / "hyp.scp"})]
    [{'ref': 'a b', 'hyp': 'a x'}, {'ref': 'c', 'hyp': 'c'}]
    """
    if not paths:  # checked here, not at the first next(), so the caller sees it at once
        raise ScpMismatchError("iter_inputs needs at least one input key")
    return _lockstep(paths)


def _lockstep(paths: Mapping[str, str | os.PathLike]) -> Iterator[tuple[str, dict[str, str]]]:
    keys = list(paths)
    readers = [read_scp(paths[k]) for k in keys]
    first_key, first = keys[0], readers[0]
    others = list(zip(keys[1:], readers[1:]))
    for lead in first:
        row = {first_key: lead[2]}
        for key, reader in others:
            other = next(reader, None)
            if other is None or other[1] != lead[1]:
                raise _mismatch(paths, first_key, lead, key, other)
            row[key] = other[2]
        yield lead[1], row
    for key, reader in others:
        extra = next(reader, None)
        if extra is not None:
            raise _mismatch(paths, first_key, None, key, extra)


def iter_row_batches(
    paths: Mapping[str, str | os.PathLike], size: int
) -> Iterator[tuple[list[str], dict[str, list[str]]]]:
    """Read several SCP files in lockstep, ``size`` rows at a time: yield ``(utt_ids, {key: values})``.

    The ids of a batch are compared in one list comparison; a difference
    raises `ScpMismatchError` before the batch that holds it comes out. With
    no path at all it raises at once, not at the first ``next()``.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "ref.scp").write_text("u1 a b\\nu2 c\\nu3 d\\n")
    >>> _ = (d / "hyp.scp").write_text("u1 a x\\nu2 c\\nu3 e\\n")
    >>> list(iter_row_batches({"ref": d / "ref.scp", "hyp": d / "hyp.scp"}, 2))
    [(['u1', 'u2'], {'ref': ['a b', 'c'], 'hyp': ['a x', 'c']}), (['u3'], {'ref': ['d'], 'hyp': ['e']})]
    """
    if not paths:
        raise ScpMismatchError("iter_inputs needs at least one input key")
    return _batches(paths, size)


def _batches(paths: Mapping[str, str | os.PathLike], size: int) -> Iterator[tuple[list[str], dict[str, list[str]]]]:
    keys = list(paths)
    readers = {key: read_scp(paths[key]) for key in keys}
    while True:
        chunks = {key: list(itertools.islice(reader, size)) for key, reader in readers.items()}
        lead = chunks[keys[0]]
        ids = [utt_id for _, utt_id, _ in lead]
        differences = []  # (row, key order) of each file's first difference from the first file
        for order, key in enumerate(keys[1:]):
            other = [utt_id for _, utt_id, _ in chunks[key]]
            if other != ids:
                row = next((i for i, (a, b) in enumerate(zip(ids, other)) if a != b), min(len(ids), len(other)))
                differences.append((row, order, key))
        if differences:
            row, _, key = min(differences)
            other = chunks[key]
            raise _mismatch(
                paths, keys[0], lead[row] if row < len(lead) else None, key, other[row] if row < len(other) else None
            )
        if not ids:
            return
        yield ids, {key: [value for _, _, value in chunk] for key, chunk in chunks.items()}


Row = tuple[int, str, str]  # (line number, utterance id, value), as read_scp yields them


def _mismatch(
    paths: Mapping[str, str | os.PathLike], first_key: str, first: Row | None, key: str, other: Row | None
) -> ScpMismatchError:
    """The error for a row of the first file against the same row of ``key``; None: that file has no more lines."""
    if other is None:
        return ScpMismatchError(
            f"{paths[key]} ended before {paths[first_key]}: "
            f"{paths[first_key]}:{first[0]} has id {first[1]!r}, {paths[key]} has no more lines"
        )
    if first is None:
        return ScpMismatchError(
            f"{paths[first_key]} ended before {paths[key]}: "
            f"{paths[key]}:{other[0]} has id {other[1]!r}, {paths[first_key]} has no more lines"
        )
    return ScpMismatchError(
        f"utterance ids differ: {paths[first_key]}:{first[0]} has {first[1]!r}, "
        f"{paths[key]}:{other[0]} has {other[1]!r}"
    )


def check_utt_id(utt_id: str, where: str = "", what: str = "utterance id") -> str:
    """Return ``utt_id`` if it is a plain token usable as a file name, else raise ValueError.

    ``what`` names the token in the message (a test set name obeys the same rule).

    >>> check_utt_id("spk1-utt1")
    'spk1-utt1'
    >>> check_utt_id("../etc")
    Traceback (most recent call last):
    ...
    ValueError: utterance id '../etc' is not a plain token (empty, '.', '..', whitespace or a path separator)
    >>> check_utt_id("..", "metrics.yaml", what="test set name")
    Traceback (most recent call last):
    ...
    ValueError: metrics.yaml: test set name '..' is not a plain token (empty, '.', '..', whitespace or a path separator)
    """
    bad = (
        not utt_id
        or utt_id in (".", "..")
        or any(c.isspace() for c in utt_id)
        or "/" in utt_id
        or "\\" in utt_id
        or (os.altsep is not None and os.altsep in utt_id)
    )
    if bad:
        prefix = f"{where}: " if where else ""
        raise ValueError(
            f"{prefix}{what} {utt_id!r} is not a plain token (empty, '.', '..', whitespace or a path separator)"
        )
    return utt_id


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike, mode: str = "w", encoding: str | None = "utf-8") -> Iterator[IO]:
    """Open a temporary file beside ``path``; rename it onto ``path`` only if the block succeeds.

    A reader never sees a half-written file, and a failure leaves the old one.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "out.txt"
    >>> with atomic_open(p) as f:
    ...     _ = f.write("done\\n")
    >>> p.read_text()
    'done\\n'
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, mode, encoding=None if "b" in mode else encoding) as f:
            yield f
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_scp(path: str | os.PathLike, rows: Iterable[tuple[str, str]]) -> Path:
    """Write ``(utt_id, value)`` rows as an SCP file, atomically; return the path.

    >>> import tempfile, pathlib
    >>> p = write_scp(pathlib.Path(tempfile.mkdtemp()) / "hyp.scp", [("u1", "a b"), ("u2", "")])
    >>> p.read_text()
    'u1 a b\\nu2\\n'
    """
    with atomic_open(path) as f:
        for utt_id, value in rows:
            check_utt_id(utt_id, str(path))
            value = " ".join(str(value).split("\n")).strip()
            f.write(f"{utt_id} {value}\n" if value else f"{utt_id}\n")
    return Path(path)
