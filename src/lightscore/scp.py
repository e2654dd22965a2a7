"""SCP files: ``utt_id value`` per line, read as a stream and written atomically.

A line is the utterance id, the first run of whitespace, then the value
(stripped). A line holding only an id has the empty value ""; blank lines are
skipped; CRLF endings are accepted.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable, Iterator, Mapping
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


def read_scp(path: str | os.PathLike) -> Iterator[tuple[int, str, str]]:
    """Stream ``(line_number, utt_id, value)`` from an SCP file, one line at a time.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "hyp.scp"
    >>> _ = p.write_bytes(b"utt1 the cat\\r\\n\\nutt2\\n")
    >>> list(read_scp(p))
    [(1, 'utt1', 'the cat'), (3, 'utt2', '')]
    """
    with open(path, "rb") as f:
        for number, raw in enumerate(f, 1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise ScpError(f"{path}:{number}: line is not UTF-8 ({e.reason} at byte {e.start})") from None
            parsed = parse_line(line)
            if parsed is not None:
                yield number, parsed[0], parsed[1]


def iter_rows(paths: Mapping[str, str | os.PathLike]) -> Iterator[tuple[str, dict[str, str]]]:
    """Read several SCP files in lockstep, in file order; yield ``(utt_id, {key: value})``.

    Raises `ScpMismatchError` naming both files, the line numbers and both ids
    when the ids differ at a row or one file ends before another.

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
    for number, utt_id, value in first:
        row = {first_key: value}
        for key, reader in others:
            other = next(reader, None)
            if other is None:
                raise ScpMismatchError(
                    f"{paths[key]} ended before {paths[first_key]}: "
                    f"{paths[first_key]}:{number} has id {utt_id!r}, {paths[key]} has no more lines"
                )
            if other[1] != utt_id:
                raise ScpMismatchError(
                    f"utterance ids differ: {paths[first_key]}:{number} has {utt_id!r}, "
                    f"{paths[key]}:{other[0]} has {other[1]!r}"
                )
            row[key] = other[2]
        yield utt_id, row
    for key, reader in others:
        extra = next(reader, None)
        if extra is not None:
            raise ScpMismatchError(
                f"{paths[first_key]} ended before {paths[key]}: "
                f"{paths[key]}:{extra[0]} has id {extra[1]!r}, {paths[first_key]} has no more lines"
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
