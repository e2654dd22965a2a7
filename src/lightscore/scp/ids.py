"""Finding an utterance id that comes twice in an SCP file, in bounded memory.

`SeenIds` takes a file's ids in order: while they increase (a sorted file)
nothing is kept; from the first id out of order, 8-byte hashes are kept and
checked at the end of the file, and a repeated hash is confirmed by reading
the file again, so a hash collision never raises.
"""

from __future__ import annotations

import operator
import os
from array import array
from collections import Counter

from lightscore.scp.lines import ScpError, is_shard, open_scp, parse_raw, shown

__all__ = ["Row", "SeenIds", "duplicate_error"]

Row = tuple[int, str, str]  # (line number, utterance id, value), as read_scp yields them

_SMALL = 65_536  # up to this many ids, the duplicate check uses a Python set instead of numpy
_id_hash = hash  # a name of its own so a test can force hash collisions


class SeenIds:
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
        self.by_reader = is_shard(path)  # a shard's reader gives every row's id to `add`; else the caller does
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
            raise duplicate_error(self.path, utt_id, self.last_line, number)
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
            _raise_firstduplicate_error(self.path, repeated)


def _hashes_before(path: str | os.PathLike, number: int) -> array:
    """The hashes of the ids on the lines of ``path`` before line ``number`` (the whole file for a shard)."""
    hashes = array("q")
    with open_scp(path) as f:
        for line, raw in zip(range(1, number), f):  # range first: zip stops without reading line ``number``
            parsed = parse_raw(path, line, raw)
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


def _raise_firstduplicate_error(path: str | os.PathLike, repeated: set[int]) -> None:
    """Read every line of ``path`` again; `ScpError` at the first id with a hash in ``repeated`` seen twice."""
    first: dict[str, int] = {}
    with open_scp(path) as f:
        for number, raw in enumerate(f, 1):
            parsed = parse_raw(path, number, raw)
            if parsed is not None and _id_hash(parsed[0]) in repeated:
                earlier = first.setdefault(parsed[0], number)
                if earlier != number:
                    raise duplicate_error(path, parsed[0], earlier, number)


def duplicate_error(path: str | os.PathLike, utt_id: str, first: int, second: int) -> ScpError:
    """The error for ``utt_id`` found at lines ``first`` and ``second`` of ``path``."""
    return ScpError(f"{path}: utterance id {shown(utt_id)} appears twice, at lines {first} and {second}")
