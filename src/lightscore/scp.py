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

import codecs
import contextlib
import itertools
import operator
import os
import secrets
import signal
import stat
import threading
import unicodedata
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, BinaryIO

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

Row = tuple[int, str, str]  # (line number, utterance id, value), as read_scp yields them

_SHOWN = 80  # characters of an id or value an error message shows
_SMALL = 65_536  # up to this many ids, the duplicate check uses a Python set instead of numpy
_id_hash = hash  # a name of its own so a test can force hash collisions


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

    Args:
        line: One line, with or without its line ending.

    Returns:
        The id (up to the first whitespace) and the stripped rest, or None when the line is blank.

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
    the real file and line. Rows of other ranks are not parsed, but their ids
    are read for the duplicate check, so every rank sees an id repeated
    across shards.

    Raises:
        ValueError: ``rank`` is not in ``0..world - 1``.

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
    with _open(path) as f:
        return sum(1 for _ in _own_lines(shard, enumerate(f, 1), None))


def _open(path: str | os.PathLike) -> BinaryIO:
    """``path`` opened for reading bytes, past a UTF-8 byte-order mark if it starts with one."""
    f = open(path, "rb")
    if f.peek(3).startswith(codecs.BOM_UTF8):
        f.read(3)
    return f


def _read(path: str | os.PathLike, seen: _SeenIds | None) -> Iterator[Row]:
    """The rows of ``path`` (this rank's, for a shard); for a shard, every row's id, other ranks' too, goes to ``seen``.

    The ids reach ``seen`` in file order: `_own_lines` gives it the ids of the
    rows it skips before it yields the next row of this rank, whose id is given
    here. The rows of a whole file are given to ``seen`` by the caller, a batch at a time.
    """
    with _open(path) as f:
        lines = enumerate(f, 1)
        add = None
        if _is_shard(path):
            lines = _own_lines(path, lines, seen)
            add = seen.add if seen is not None else None
        for number, raw in lines:
            parsed = _parse(path, number, raw)
            if parsed is not None:
                if add is not None:
                    add(number, parsed[0])
                yield number, parsed[0], parsed[1]


def _is_shard(path: str | os.PathLike) -> bool:
    """Whether ``path`` is an `ScpShard` that skips rows (world above 1)."""
    return isinstance(path, ScpShard) and path.world > 1


def _own_lines(
    shard: ScpShard, lines: Iterator[tuple[int, bytes]], seen: _SeenIds | None
) -> Iterator[tuple[int, bytes]]:
    """The numbered lines of ``shard``'s rows; another rank's row is not parsed, only its id given to ``seen``."""
    add = seen.add if seen is not None else None
    row = -1
    for number, raw in lines:
        # A visible ASCII first byte makes a row; any other line is parsed to tell whether it is blank.
        if not 32 < raw[0] < 127 and _parse(shard, number, raw) is None:
            continue
        row += 1
        if row % shard.world == shard.rank:
            yield number, raw
        elif add is not None:
            # Decoded, not split as bytes: bytes.split does not end an id at U+00A0, U+001C and the other
            # Unicode whitespace str.split ends it at, and checking for those would cost what decoding costs.
            try:
                add(number, raw.decode("utf-8").split(None, 1)[0])
            except UnicodeDecodeError:
                _parse(shard, number, raw)  # raises the error naming the line


def _parse(path: str | os.PathLike, number: int, raw: bytes) -> tuple[str, str] | None:
    """`parse_line` of one raw line; `ScpError` naming the file and line when it is not UTF-8 or has a lone CR."""
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ScpError(
            f"{path}:{number}: line is not UTF-8 ({e.reason} at byte {e.start}){_utf16_note(number, raw)}"
        ) from None
    # Lines end at LF, so a CR before the last two characters is followed by something other than LF.
    if "\r" in line and (at := line.find("\r")) < len(line) - 2:
        raise ScpError(
            f"{path}:{number}: carriage return not followed by a line feed at character {at + 1}: "
            "old Mac (CR-only) line endings are not supported, and a value cannot hold a line break "
            "(convert the file with: tr '\\r' '\\n')"
        )
    return parse_line(line)


def _utf16_note(number: int, raw: bytes) -> str:
    """A hint when the first line starts with a UTF-16 byte-order mark; else ""."""
    if number == 1 and raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "; the file starts with a UTF-16 byte-order mark: save it as UTF-8"
    return ""


class _SeenIds:
    """Finds an utterance id that comes twice in one file, given the file's ids in order with their line numbers.

    While each id is greater than the one before (string order), none can
    repeat, so nothing is kept: a sorted file costs one comparison a row. An
    id equal to the one before is refused at once (with its batch, from `extend`). At the first id smaller
    than the one before, the file is read again up to that line to hash the
    ids so far, and from then on every id is kept as an 8-byte hash (8 MB per
    million lines), checked when the file has ended; a repeated hash is
    confirmed by reading the file again, so a hash collision never raises,
    and that read finds both line numbers.
    """

    __slots__ = ("by_reader", "hashes", "last", "last_line", "path")

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = path
        self.by_reader = _is_shard(path)  # a shard's reader gives every row's id to `add`; else the caller does
        self.last = ""  # the previous id while the ids increase; "" sorts before any id
        self.last_line = 0
        self.hashes: array | None = None  # the ids' hashes, from the first id out of order on

    def add(self, number: int, utt_id: str) -> None:
        """Take the id of the file's next row, at line ``number``."""
        if self.hashes is not None:
            self.hashes.append(_id_hash(utt_id))
        elif utt_id > self.last:
            self.last, self.last_line = utt_id, number
        elif utt_id == self.last:
            raise _duplicate(self.path, utt_id, self.last_line, number)
        else:
            self.hashes = _hashes_before(self.path, number)
            self.hashes.append(_id_hash(utt_id))

    def extend(self, rows: list[Row], ids: list[str]) -> None:
        """Take the file's next rows, whose ids are ``ids``: `add` for each, in C while they increase."""
        if self.hashes is None and ids and self.last < ids[0] and all(map(operator.lt, ids, ids[1:])):
            self.last, self.last_line = ids[-1], rows[-1][0]
        elif self.hashes is not None:
            self.hashes.extend(map(_id_hash, ids))
        else:
            for number, utt_id, _ in rows:
                self.add(number, utt_id)

    def check(self) -> None:
        """Raise `ScpError` for the first id that really comes twice (nothing to do while the ids increased)."""
        if self.hashes is None:
            return
        repeated = _repeated(self.hashes)
        self.hashes = array("q")
        if repeated:
            _raise_first_duplicate(self.path, repeated)


def _hashes_before(path: str | os.PathLike, number: int) -> array:
    """The hashes of the ids on the lines of ``path`` before line ``number`` (the whole file for a shard)."""
    hashes = array("q")
    with _open(path) as f:
        for line, raw in zip(range(1, number), f):  # range first: zip stops without reading line ``number``
            parsed = _parse(path, line, raw)
            if parsed is not None:
                hashes.append(_id_hash(parsed[0]))
    return hashes


def _repeated(hashes: array) -> set[int]:
    """The values that occur more than once in ``hashes`` (sorted in place)."""
    if len(hashes) <= _SMALL:
        return {h for h, n in Counter(hashes).items() if n > 1}
    import numpy as np  # here, not at the top: `import lightscore` stays light

    view = np.frombuffer(hashes, dtype=np.int64)
    view.sort()  # in place: no copy of a million-line file's hashes
    same = view[1:] == view[:-1]
    repeated = set(view[1:][same].tolist())
    del view  # the array can grow again only once no view of its buffer is left
    return repeated


def _raise_first_duplicate(path: str | os.PathLike, repeated: set[int]) -> None:
    """Read every line of ``path`` again; `ScpError` at the first id with a hash in ``repeated`` seen twice."""
    first: dict[str, int] = {}
    with _open(path) as f:
        for number, raw in enumerate(f, 1):
            parsed = _parse(path, number, raw)
            if parsed is not None and _id_hash(parsed[0]) in repeated:
                earlier = first.setdefault(parsed[0], number)
                if earlier != number:
                    raise _duplicate(path, parsed[0], earlier, number)


def _duplicate(path: str | os.PathLike, utt_id: str, first: int, second: int) -> ScpError:
    """The error for ``utt_id`` found at lines ``first`` and ``second`` of ``path``."""
    return ScpError(f"{path}: utterance id {_shown(utt_id)} appears twice, at lines {first} and {second}")


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
    seen = _SeenIds(paths[keys[0]])
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
    seen = _SeenIds(paths[keys[0]])  # the first file's ids only, as in _lockstep
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
            f"{paths[first_key]}:{first[0]} has id {_shown(first[1])}, {paths[key]} has no more lines"
        )
    if first is None:
        return ScpMismatchError(
            f"{paths[first_key]} ended before {paths[key]}: "
            f"{paths[key]}:{other[0]} has id {_shown(other[1])}, {paths[first_key]} has no more lines"
        )
    a, b = first[1], other[1]
    same_text = unicodedata.normalize("NFC", a) == unicodedata.normalize("NFC", b)
    show = ascii if same_text else repr
    notes = ["they differ only in Unicode normalisation (NFC vs NFD)"] if same_text else []
    notes += [f"{_shown(x, show)} holds a byte-order mark (U+FEFF)" for x in (a, b) if "\ufeff" in x]
    return ScpMismatchError(
        f"utterance ids differ: {paths[first_key]}:{first[0]} has {_shown(a, show)}, "
        f"{paths[key]}:{other[0]} has {_shown(b, show)}" + "".join(f"; {note}" for note in notes)
    )


def _shown(text: str, quote: Callable[[object], str] = repr) -> str:
    """``text`` quoted for a message, cut to its first characters (and its length given) when long."""
    if len(text) <= _SHOWN:
        return quote(text)
    return f"{quote(text[:_SHOWN])}… ({len(text)} characters)"


def check_utt_id(utt_id: str, where: str = "", what: str = "utterance id") -> str:
    """Return ``utt_id`` if it is a plain token usable as a file name, else raise ValueError.

    Args:
        utt_id: The token to check.
        where: What to name first in the message (a file), or "".
        what: What the token is, in the message (a test set name obeys the same rule).

    Returns:
        ``utt_id`` itself.

    Raises:
        ValueError: ``utt_id`` is empty, ``.`` or ``..``, or holds whitespace or a path
            separator; the message shows at most its first 80 characters.

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
            f"{prefix}{what} {_shown(utt_id)} is not a plain token (empty, '.', '..', whitespace or a path separator)"
        )
    return utt_id


_TEMP_TAG = ".lightscore-tmp-"
# Temporary files this process is writing, removed on SIGTERM. No lock: set operations are atomic
# under the GIL, and the handler must not wait for a lock the main thread it interrupted may hold.
_live_temps: set[str] = set()


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike, mode: str = "w", encoding: str | None = "utf-8") -> Iterator[IO]:
    """Open a temporary file beside ``path``; rename it onto ``path`` only if the block succeeds.

    A reader never sees a half-written file, and a failure leaves the old one.
    The new file has the mode the umask gives (``0o666 & ~umask``), or the
    mode of the file it replaces. The temporary file
    ``.<name>.lightscore-tmp-<host>-<pid>-<random>`` is removed when the block
    raises, and on SIGTERM while a write runs in the main thread and SIGTERM
    has its default action (the handler then kills the process as that action
    would). Temporary files of ``path`` left by dead processes of this host
    (SIGKILL, power loss) are removed when ``path`` is next opened.

    Args:
        path: The file to write; its folder is created if missing.
        mode: ``"w"`` (text) or ``"wb"`` (bytes).
        encoding: The text encoding (ignored in binary mode).

    Returns:
        A context manager giving the open temporary file.

    Raises:
        OSError: The folder or the temporary file cannot be made, or the rename fails.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "out.txt"
    >>> with atomic_open(p) as f:
    ...     _ = f.write("done\\n")
    >>> p.read_text()
    'done\\n'
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_temps(path)
    with _temps_removed_on_sigterm():
        tmp, fd = _create_temp(path)
        try:
            with os.fdopen(fd, mode, encoding=None if "b" in mode else encoding) as f:
                yield f
            _keep_mode(path, tmp)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise
        finally:
            _live_temps.discard(tmp)


def _host() -> str:
    return os.uname().nodename if hasattr(os, "uname") else ""


def _create_temp(path: Path) -> tuple[str, int]:
    """A new temporary file for ``path``, listed in ``_live_temps`` before it exists; its name and descriptor."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    while True:
        tmp = os.path.join(path.parent, f".{path.name}{_TEMP_TAG}{_host()}-{os.getpid()}-{secrets.token_hex(4)}")
        _live_temps.add(tmp)
        try:
            return tmp, os.open(tmp, flags, 0o666)  # the kernel applies the umask, as for any new file
        except BaseException as error:
            _live_temps.discard(tmp)
            if not isinstance(error, FileExistsError):  # a name taken already: draw another
                raise


def _keep_mode(path: Path, tmp: str) -> None:
    """Give ``tmp`` the permission bits of ``path`` when ``path`` exists."""
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return
    os.chmod(tmp, mode)


def _remove_stale_temps(path: Path) -> None:
    """Remove temporary files of ``path`` written by processes of this host that no longer run."""
    prefix = f".{path.name}{_TEMP_TAG}{_host()}-"
    with os.scandir(path.parent) as entries:
        for entry in entries:
            if not entry.name.startswith(prefix):
                continue
            pid, _, rest = entry.name[len(prefix) :].partition("-")  # "<pid>-<random>"
            if not pid.isdigit() or "-" in rest:
                continue
            if entry.path not in _live_temps and not _process_runs(int(pid)):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(entry.path)


def _process_runs(pid: int) -> bool:
    """Whether process ``pid`` runs (True when that cannot be told); this process counts as not running."""
    if os.name != "posix":
        return True  # os.kill(pid, 0) would terminate the process on Windows
    if pid == os.getpid():
        return False  # the pid of an earlier process, reused: this one's own temporary files are in _live_temps
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@contextlib.contextmanager
def _temps_removed_on_sigterm() -> Iterator[None]:
    """While the block runs, SIGTERM first removes the live temporary files, then kills as by default.

    Only in the main thread (the only one that may set handlers) and only over
    the default action: a handler the application set is its to run, and one
    that raises reaches ``atomic_open``'s clean-up.
    """
    install = (
        threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
    )
    previous = signal.signal(signal.SIGTERM, _on_sigterm) if install else None
    try:
        yield
    finally:
        if install:
            signal.signal(signal.SIGTERM, previous)


def _on_sigterm(signum: int, frame: object) -> None:
    for tmp in list(_live_temps):
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


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
        ValueError: An id is not a plain token (`check_utt_id`); the old file, if any, is left as it was.

    >>> import tempfile, pathlib
    >>> p = write_scp(pathlib.Path(tempfile.mkdtemp()) / "hyp.scp", [("u1", "a b"), ("u2", ""), ("u3", "x\\ry")])
    >>> p.read_text()
    'u1 a b\\nu2\\nu3 x y\\n'
    """
    with atomic_open(path) as f:
        for utt_id, value in rows:
            check_utt_id(utt_id, str(path))
            value = " ".join(str(value).split("\n")).replace("\r", " ").strip()
            f.write(f"{utt_id} {value}\n" if value else f"{utt_id}\n")
    return Path(path)
