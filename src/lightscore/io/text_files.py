"""What every reader of a user's text file does first: a UTF-8 byte-order mark at its start is not text.

Editors on Windows save UTF-8 with a byte-order mark (``EF BB BF``). Read as text it becomes a
``U+FEFF`` glued to the first word, so a first rule never matches, a first ``;;`` comment mark
is a different mark, and a first utterance id is a different id. Rule files
(`lightscore.text.normalize`) and GLMs (`lightscore.text.hubscr.glm`) skip it here.
"""

from __future__ import annotations

import codecs

__all__ = ["strip_bom"]


def strip_bom(data: bytes) -> bytes:
    """``data`` without the UTF-8 byte-order mark it may start with (one only, and only at the start).

    Args:
        data: A file's bytes, before they are decoded.

    Returns:
        The bytes after the mark; ``data`` itself when it has none.

    >>> strip_bom(b"\\xef\\xbb\\xbf;; comment"), strip_bom(b"a \\xef\\xbb\\xbf")
    (b';; comment', b'a \\xef\\xbb\\xbf')
    """
    return data.removeprefix(codecs.BOM_UTF8)
