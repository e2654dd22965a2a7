"""One line of an SCP file: parsing it, a rank's share of a file, the errors, and ids in messages.

`parse_line` splits ``utt_id value``; `parse_raw` decodes one raw line and
refuses what would be read wrong (not UTF-8, a lone carriage return);
`open_scp` skips a UTF-8 byte-order mark; `ScpShard` stands for one rank's rows
of a file; `check_name` (any name that becomes a path) and `check_utt_id` (an
utterance id) are the one rule for names, and `shown` is how ids appear in errors.
"""

from __future__ import annotations

import codecs
import os
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import BinaryIO

__all__ = [
    "SHOWN",
    "ScpError",
    "ScpMismatchError",
    "ScpShard",
    "check_name",
    "check_utt_id",
    "is_shard",
    "open_scp",
    "parse_line",
    "parse_raw",
    "shown",
]

SHOWN = 80  # characters of an id or value an error message shows


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
    >>> from lightscore.scp.files import read_scp
    >>> [utt_id for _, utt_id, _ in read_scp(ScpShard(p, 1, 2))]
    ['u1']
    >>> str(ScpShard(p, 1, 2)) == str(p)
    True
    """

    path: str | os.PathLike
    rank: int
    world: int
    rows: int | None = None  # set: the rank's rows are one contiguous block of this many (see `owns`)

    def __post_init__(self) -> None:
        if not 0 <= self.rank < self.world:
            raise ValueError(f"{self.path}: shard rank {self.rank} is not in 0..{self.world - 1}")

    def owns(self, row: int) -> bool:
        """Whether row ``row`` (0-based, blank lines not counted) is this rank's.

        Round robin by default (``row % world == rank``: ranks finish together);
        with ``rows`` set, the rank's rows are the contiguous block
        ``rank * rows // world`` up to ``(rank + 1) * rows // world``, so parts
        written per rank join in file order.

        >>> [ScpShard("x.scp", 1, 2).owns(i) for i in range(4)]
        [False, True, False, True]
        >>> [ScpShard("x.scp", 1, 2, rows=4).owns(i) for i in range(4)]
        [False, False, True, True]
        """
        if self.rows is None:
            return row % self.world == self.rank
        return self.rank * self.rows // self.world <= row < (self.rank + 1) * self.rows // self.world

    def __fspath__(self) -> str:
        return os.fspath(self.path)

    def __str__(self) -> str:
        return str(self.path)


def open_scp(path: str | os.PathLike) -> BinaryIO:
    """``path`` opened for reading bytes, past a UTF-8 byte-order mark if it starts with one."""
    f = open(path, "rb")
    if f.peek(3).startswith(codecs.BOM_UTF8):
        f.read(3)
    return f


def is_shard(path: str | os.PathLike) -> bool:
    """Whether ``path`` is an `ScpShard` that skips rows (world above 1)."""
    return isinstance(path, ScpShard) and path.world > 1


def parse_raw(path: str | os.PathLike, number: int, raw: bytes) -> tuple[str, str] | None:
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


def shown(text: str, quote: Callable[[object], str] = repr) -> str:
    """``text`` quoted for a message, cut to its first characters (and its length given) when long."""
    if len(text) <= SHOWN:
        return quote(text)
    return f"{quote(text[:SHOWN])}… ({len(text)} characters)"


def check_name(value: str, what: str, where: str = "") -> str:
    """Return ``value`` if it can name a file or folder on every common file system, else raise ValueError.

    The rule of every name lightscore turns into a path: an utterance id (`check_utt_id`),
    a test set, a column, a file stem. Refused: the empty name, ``.`` and ``..``,
    whitespace, a path separator, and characters a file name cannot hold or that C
    libraries cut a name at: NUL and the other control characters (Unicode ``Cc``),
    lone surrogates (``Cs``, not encodable as UTF-8).

    Args:
        value: The name to check.
        what: What the name is, for the message (``"test set name"``).
        where: What to name first in the message (a file, a dataset item), or "".

    Returns:
        ``value`` itself.

    Raises:
        ValueError: naming ``where``, ``what``, the name (its first 80 characters) and the rule.

    >>> check_name("dev-clean", "test set name")
    'dev-clean'
    >>> check_name("..", "test set name", "metrics.yaml")
    Traceback (most recent call last):
    ...
    ValueError: metrics.yaml: test set name '..' is not a plain token (empty, '.', '..', whitespace or a path separator)
    """
    # Printable ASCII (no space, no separator) is what almost every name is: one pass of C string tests.
    if value.isascii() and value.isprintable() and " " not in value and "/" not in value and "\\" not in value:
        if value not in ("", ".", ".."):
            return value
    prefix = f"{where}: " if where else ""
    bad = (
        not value
        or value in (".", "..")
        or any(c.isspace() for c in value)
        or "/" in value
        or "\\" in value
        or (os.altsep is not None and os.altsep in value)
    )
    at = next((i for i, c in enumerate(value) if unicodedata.category(c) in ("Cc", "Cs")), None)
    if bad:
        problem = "is not a plain token (empty, '.', '..', whitespace or a path separator)"
    elif at is not None:
        problem = (
            f"holds {_char_name(value[at])} at character {at + 1}, which a file name cannot hold "
            "(a NUL would cut it short, so two names could write one file)"
        )
    else:
        return value
    raise ValueError(f"{prefix}{what} {shown(value)} {problem}")


def _char_name(char: str) -> str:
    """``U+0000 (NUL)``-style name of a control character or surrogate."""
    names = {"\0": "NUL", "\r": "CR", "\n": "LF", "\t": "TAB", "\x1b": "ESC", "\x7f": "DEL"}
    code = f"U+{ord(char):04X}"
    return f"{code} ({names[char]})" if char in names else code


def check_utt_id(utt_id: str, where: str = "") -> str:
    """Return ``utt_id`` if it is a plain token usable as a file name (`check_name`), else raise ValueError.

    Args:
        utt_id: The utterance id.
        where: What to name first in the message (a file, a dataset item), or "".

    Returns:
        ``utt_id`` itself.

    Raises:
        ValueError: as `check_name`, naming the utterance id and ``where``.

    >>> check_utt_id("spk1-utt1")
    'spk1-utt1'
    >>> check_utt_id("../etc")
    Traceback (most recent call last):
    ...
    ValueError: utterance id '../etc' is not a plain token (empty, '.', '..', whitespace or a path separator)
    >>> check_utt_id("u\\x00a", "item 3")
    Traceback (most recent call last):
    ...
    ValueError: item 3: utterance id 'u\\x00a' holds U+0000 (NUL) at character 2, which a file name cannot hold ...
    """
    return check_name(utt_id, "utterance id", where)
