"""SCP files: ``utt_id value`` per line, read as a stream and written atomically.

A line is the utterance id, the first run of whitespace, then the value
(stripped). A line holding only an id has the empty value ""; blank lines are
skipped; LF and CRLF endings are accepted, and a UTF-8 byte-order mark at the
start of a file is skipped. A carriage return followed by anything but a line
feed (old Mac CR-only endings) is refused: read by lines, such a file would be
one utterance. An utterance id that comes twice in the files read in lockstep
(`iter_rows`, `iter_row_batches`) is refused: at once when the first file is
sorted by id up to there (nothing is kept while the ids increase, as Kaldi,
ESPnet and `write_scp` files do), else when it has been read to its end (the
check then keeps 8 bytes per line).

Writes go to a temporary file ``.<name>.lightscore-tmp-<host>-<pid>-<random>``
beside the target, renamed onto it when complete; see `atomic_open`.
"""

from __future__ import annotations

import itertools
import os
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from lightscore.io.atomic import atomic_open
from lightscore.scp.ids import Row, SeenIds
from lightscore.scp.lines import (
    ScpError,
    ScpMismatchError,
    ScpShard,
    check_utt_id,
    is_shard,
    open_scp,
    parse_line,
    parse_raw,
    shown,
)

# The public names of the SCP format live here; the line parser, the repeat check and the atomic
# writer are in scp_lines.py, scp_ids.py and atomic.py.
__all__ = [
    "Row",
    "ScpError",
    "ScpMismatchError",
    "ScpShard",
    "atomic_open",
    "check_utt_id",
    "count_scp_rows",
    "iter_row_batches",
    "iter_rows",
    "parse_line",
    "read_scp",
    "write_scp",
]


def read_scp(path: str | os.PathLike) -> Iterator[Row]:
    """Stream ``(line_number, utt_id, value)`` from an SCP file (or an `ScpShard` of one), one line at a time.

    Args:
        path: The SCP file, or an `ScpShard` for one rank's rows.

    Returns:
        An iterator of ``(line_number, utt_id, value)``; line numbers count every physical line.

    Raises:
        FileNotFoundError: ``path`` does not exist (at the first ``next()``).
        ScpError: A line is not UTF-8 or holds a lone carriage return.

    Ids are not checked for repeats here (a plain line reader); `iter_rows` and
    `iter_row_batches` check them.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "hyp.scp"
    >>> _ = p.write_bytes(b"utt1 the cat\\r\\n\\nutt2\\n")
    >>> list(read_scp(p))
    [(1, 'utt1', 'the cat'), (3, 'utt2', '')]
    """
    return _read(path, None)


def count_scp_rows(path: str | os.PathLike) -> int:
    """The rows of an SCP file (or an `ScpShard` of one): its lines that are not blank.

    Cheaper than reading them: most lines are told rows by their first byte,
    without decoding; ids are not checked for repeats.

    Args:
        path: The SCP file, or an `ScpShard` for one rank's rows.

    Returns:
        How many rows ``path`` holds.

    Raises:
        FileNotFoundError: ``path`` does not exist.
        ScpError: A line that does not start with a visible ASCII character is not UTF-8.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "hyp.scp"
    >>> _ = p.write_text("u1 a\\n\\n u2 b\\nu3\\n")
    >>> count_scp_rows(p), count_scp_rows(ScpShard(p, 1, 2))
    (3, 1)
    """
    shard = path if isinstance(path, ScpShard) else ScpShard(path, 0, 1)
    with open_scp(path) as f:
        return sum(1 for _ in _own_lines(shard, enumerate(f, 1), None))


def _read(path: str | os.PathLike, seen: SeenIds | None) -> Iterator[Row]:
    """The rows of ``path`` (this rank's, for a shard); for a shard, every row's id, other ranks' too, goes to ``seen``.

    The ids reach ``seen`` in file order: `_own_lines` gives it the ids of the
    rows it skips before it yields the next row of this rank, whose id is given
    here. The rows of a whole file are given to ``seen`` by the caller, a batch at a time.
    """
    with open_scp(path) as f:
        lines = enumerate(f, 1)
        add = None
        if is_shard(path):
            lines = _own_lines(path, lines, seen)
            add = seen.add if seen is not None else None
        for number, raw in lines:
            parsed = parse_raw(path, number, raw)
            if parsed is not None:
                if add is not None:
                    add(number, parsed[0])
                yield number, parsed[0], parsed[1]


def _own_lines(
    shard: ScpShard, lines: Iterator[tuple[int, bytes]], seen: SeenIds | None
) -> Iterator[tuple[int, bytes]]:
    """The numbered lines of ``shard``'s rows; another rank's row is not parsed, only its id given to ``seen``."""
    add = seen.add if seen is not None else None
    rank, world = shard.rank, shard.world  # `ScpShard.owns`, inlined: this runs once per line
    first = None if shard.rows is None else rank * shard.rows // world
    stop = None if shard.rows is None else (rank + 1) * shard.rows // world
    row = -1
    for number, raw in lines:
        # A visible ASCII first byte makes a row; any other line is parsed to tell whether it is blank.
        if not 32 < raw[0] < 127 and parse_raw(shard, number, raw) is None:
            continue
        row += 1
        if (row % world == rank) if first is None else (first <= row < stop):
            yield number, raw
        elif add is not None:
            # Decoded, not split as bytes: bytes.split does not end an id at U+00A0, U+001C and the other
            # Unicode whitespace str.split ends it at, and checking for those would cost what decoding costs.
            try:
                add(number, raw.decode("utf-8").split(None, 1)[0])
            except UnicodeDecodeError:
                parse_raw(shard, number, raw)  # raises the error naming the line


def iter_rows(paths: Mapping[str, str | os.PathLike]) -> Iterator[tuple[str, dict[str, str]]]:
    """Read several SCP files in lockstep, in file order, one row at a time; yield ``(utt_id, {key: value})``.

    (`iter_row_batches` is the same read, a batch at a time, for ``update``.)

    Args:
        paths: Input key -> SCP file (or `ScpShard`); the first file leads.

    Returns:
        An iterator of ``(utt_id, {key: value})``, lazily: nothing is opened before the first ``next()``.

    Raises:
        ScpMismatchError: ``paths`` is empty (at once); the ids differ at a row, or one
            file ends before another (naming both files, the line numbers and both ids).
        ScpError: A malformed line, or an id repeated in the first file (at once if the ids
            increased up to it, else once the file has ended).

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "ref.scp").write_text("u1 a b\\nu2 c\\n")
    >>> _ = (d / "hyp.scp").write_text("u1 a x\\nu2 c\\n")
    >>> [row for _, row in iter_rows({"ref": d / "ref.scp", "hyp": d / "hyp.scp"})]
    [{'ref': 'a b', 'hyp': 'a x'}, {'ref': 'c', 'hyp': 'c'}]
    """
    if not paths:  # checked here, not at the first next(), so the caller sees it at once
        raise ScpMismatchError("reading SCP files in lockstep needs at least one input key, got none")
    return _lockstep(paths)


def _lockstep(paths: Mapping[str, str | os.PathLike]) -> Iterator[tuple[str, dict[str, str]]]:
    # Only the first file's ids are checked for repeats: the others must equal them row by row.
    keys = list(paths)
    seen = SeenIds(paths[keys[0]])
    add = None if seen.by_reader else seen.add
    readers = [_read(paths[keys[0]], seen)] + [_read(paths[k], None) for k in keys[1:]]
    first_key, first = keys[0], readers[0]
    others = list(zip(keys[1:], readers[1:]))
    for lead in first:
        if add is not None:
            add(lead[0], lead[1])
        row = {first_key: lead[2]}
        for key, reader in others:
            other = next(reader, None)
            if other is None or other[1] != lead[1]:
                raise _mismatch(paths, first_key, lead, key, other)
            row[key] = other[2]
        yield lead[1], row
    seen.check()
    for key, reader in others:
        extra = next(reader, None)
        if extra is not None:
            raise _mismatch(paths, first_key, None, key, extra)


def iter_row_batches(
    paths: Mapping[str, str | os.PathLike], size: int
) -> Iterator[tuple[list[str], dict[str, list[str]]]]:
    """Read several SCP files in lockstep, ``size`` rows at a time: yield ``(utt_ids, {key: values})``.

    The ids of a batch are compared in one list comparison; a difference
    raises before the batch that holds it comes out, and an id repeated in the
    first file raises before its last batch comes out (before the batch that
    repeats it when the ids increased up to there, as in a sorted file).

    Args:
        paths: Input key -> SCP file (or `ScpShard`); the first file leads.
        size: Rows per batch (the last batch may be shorter).

    Returns:
        An iterator of ``(utt_ids, {key: values})``, lazily: nothing is opened before the first ``next()``.

    Raises:
        ScpMismatchError: ``paths`` is empty (at once); the ids differ at a row, or one
            file ends before another (naming both files, the line numbers and both ids).
        ScpError: A malformed line, or an id repeated in the first file.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "ref.scp").write_text("u1 a b\\nu2 c\\nu3 d\\n")
    >>> _ = (d / "hyp.scp").write_text("u1 a x\\nu2 c\\nu3 e\\n")
    >>> list(iter_row_batches({"ref": d / "ref.scp", "hyp": d / "hyp.scp"}, 2))
    [(['u1', 'u2'], {'ref': ['a b', 'c'], 'hyp': ['a x', 'c']}), (['u3'], {'ref': ['d'], 'hyp': ['e']})]
    """
    if not paths:
        raise ScpMismatchError("reading SCP files in lockstep needs at least one input key, got none")
    return _batches(paths, size)


def _batches(paths: Mapping[str, str | os.PathLike], size: int) -> Iterator[tuple[list[str], dict[str, list[str]]]]:
    keys = list(paths)
    seen = SeenIds(paths[keys[0]])  # the first file's ids only, as in _lockstep
    readers = {key: _read(paths[key], seen if key == keys[0] else None) for key in keys}
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
        if not seen.by_reader:
            seen.extend(lead, ids)
        if len(ids) < size:  # the first file has ended
            seen.check()
        if not ids:
            return
        yield ids, {key: [value for _, _, value in chunk] for key, chunk in chunks.items()}


def _mismatch(
    paths: Mapping[str, str | os.PathLike], first_key: str, first: Row | None, key: str, other: Row | None
) -> ScpMismatchError:
    """The error for a row of the first file against the same row of ``key``; None: that file has no more lines."""
    if other is None:
        return ScpMismatchError(
            f"{paths[key]} ended before {paths[first_key]}: "
            f"{paths[first_key]}:{first[0]} has id {shown(first[1])}, {paths[key]} has no more lines"
        )
    if first is None:
        return ScpMismatchError(
            f"{paths[first_key]} ended before {paths[key]}: "
            f"{paths[key]}:{other[0]} has id {shown(other[1])}, {paths[first_key]} has no more lines"
        )
    a, b = first[1], other[1]
    same_text = unicodedata.normalize("NFC", a) == unicodedata.normalize("NFC", b)
    show = ascii if same_text else repr
    notes = ["they differ only in Unicode normalisation (NFC vs NFD)"] if same_text else []
    notes += [f"{shown(x, show)} holds a byte-order mark (U+FEFF)" for x in (a, b) if "\ufeff" in x]
    return ScpMismatchError(
        f"utterance ids differ: {paths[first_key]}:{first[0]} has {shown(a, show)}, "
        f"{paths[key]}:{other[0]} has {shown(b, show)}" + "".join(f"; {note}" for note in notes)
    )


def write_scp(path: str | os.PathLike, rows: Iterable[tuple[str, str]]) -> Path:
    """Write ``(utt_id, value)`` rows as an SCP file, atomically (`atomic_open`); return the path.

    A value's line feeds and carriage returns become spaces and its ends are
    stripped, so the file reads back one row per pair.

    Args:
        path: The SCP file to write.
        rows: ``(utt_id, value)`` pairs, in the order to write them; a value may be any object (``str()``).

    Returns:
        ``path`` as a `Path`.

    Raises:
        ValueError: An id is not a plain token (`check_utt_id`), or a row cannot be written as UTF-8 (a lone
            surrogate: the file, the line and the utterance are named); the old file, if any, is left as it was.

    >>> import tempfile, pathlib
    >>> p = write_scp(pathlib.Path(tempfile.mkdtemp()) / "hyp.scp", [("u1", "a b"), ("u2", ""), ("u3", "x\\ry")])
    >>> p.read_text()
    'u1 a b\\nu2\\nu3 x y\\n'
    >>> write_scp(p, [("u1", "a"), ("u2", "b\\ud800")])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: .../hyp.scp: line 2, utterance 'u2', column 5: a lone surrogate '\\ud800' ...
    >>> p.read_text()  # left as it was
    'u1 a b\\nu2\\nu3 x y\\n'
    """
    with atomic_open(path) as f:
        for line, (utt_id, value) in enumerate(rows, 1):
            check_utt_id(utt_id, str(path))
            value = " ".join(str(value).split("\n")).replace("\r", " ").strip()
            text = f"{utt_id} {value}\n" if value else f"{utt_id}\n"
            try:
                f.write(text)
            except UnicodeEncodeError as e:
                raise ValueError(
                    f"{path}: line {line}, utterance {utt_id!r}, column {e.start + 1}: a lone surrogate "
                    f"{ascii(text[e.start])} (text decoded with errors='surrogateescape'?), which UTF-8 cannot "
                    "write; fix the text or decode it strictly"
                ) from None
    return Path(path)
