"""sacrebleu's 13a tokens of ASCII text as exact 64-bit keys, found with numpy instead of one Python string per word.

Splitting a batch into Python strings and looking each up in a dict costs
more than all of BLEU's n-gram counting. For ASCII text (the common case of
English and many other targets) numpy reads the bytes instead: whitespace as
``str.split`` sees it ends a word, and a word of at most 9 characters that
none of 13a's rules touch (`lightscore.text.mt.token_ids` explains why a word
can be tokenized alone) is its own token, whose key is its 9 characters packed
7 bits each (no character is 0: the callers leave text holding NUL to the dict
road). Only the other words, those 13a splits and those longer than 9
characters, go through Python, once per distinct word (`AsciiKeys.words`
caches their pieces' keys). Two tokens get equal keys exactly when they are
equal strings.

>>> keys, lengths = AsciiKeys().keys("a b,c\\n\\nb", 3)
>>> lengths.tolist(), bool(keys[1] == keys[4]), len(set(keys.tolist()))
([4, 0, 1], True, 4)
"""

from __future__ import annotations

import numpy as np

from lightscore.text.mt.sacrebleu_api import TOUCHED_13A, word_pieces_13a

__all__ = ["AsciiKeys", "SHORT"]

SHORT = 9
"""Longest word whose key is its packed characters (9 x 7 bits fit 63)."""

_LONG_FLAG = np.uint64(1 << 63)  # keys of long pieces: this bit, then their number in AsciiKeys.long
# bytes.translate table: 0 for whitespace as str.split sees it, 2 for a character 13a's rules act on, else 1
_KINDS = bytes(0 if chr(c).isspace() else 2 if c < 128 and TOUCHED_13A.search(chr(c)) else 1 for c in range(256))
_MASKS = np.array([(1 << 8 * n) - 1 for n in range(8)] + [(1 << 64) - 1], np.uint64)  # the first n bytes
# 8 bits -> 7 bits a character in three steps: pairs into 14 bits, quads into 28, all eight into 56
_SQUEEZE = [
    (np.uint64(0x007F007F007F007F), np.uint64(1)),
    (np.uint64(0x00003FFF00003FFF), np.uint64(2)),
    (np.uint64(0x000000000FFFFFFF), np.uint64(4)),
]


class AsciiKeys:
    """13a token keys of ASCII text; keeps the pieces of each word numpy cannot take alone.

    Args:
        limit: Words kept in the cache before it is cleared (call `clear_if_full` between batches).
    """

    def __init__(self, limit: int = 1 << 20) -> None:
        self.limit = limit
        self.clear()

    def clear(self) -> None:
        """Forget every cached word (keys of different batches are never compared)."""
        self.words: dict[str, tuple[int, ...]] = {}  # a word -> its pieces' keys
        self.long: dict[str, int] = {}  # a piece longer than SHORT -> its number

    def clear_if_full(self) -> None:
        """`clear` when the cache holds more than ``limit`` words."""
        if len(self.words) + len(self.long) > self.limit:
            self.clear()

    def keys(self, text: str, n_lines: int) -> tuple[np.ndarray, np.ndarray]:
        """The key of every 13a token of ``text`` (lines joined by newlines) and the tokens of each line.

        Plain twin: `lightscore.text.mt.reference.tokenize_13a` per line, each token numbered.

        Args:
            text: ASCII, no NUL, 13a's whole-line replacements done, ``n_lines - 1`` newlines.
            n_lines: The number of lines.

        Returns:
            uint64 keys (line after line), int64 tokens per line.
        """
        raw = text.encode("ascii")
        if not raw:
            return np.zeros(0, np.uint64), np.zeros(n_lines, np.int64)
        kind = np.frombuffer(raw.translate(_KINDS), np.int8)  # per byte: 0 space, 1 plain, 2 touched by 13a
        edges = np.diff((kind != 0).view(np.int8), prepend=np.int8(0), append=np.int8(0))
        starts = np.flatnonzero(edges == 1)
        ends = np.flatnonzero(edges == -1)
        line = np.searchsorted(np.flatnonzero(np.frombuffer(raw, np.uint8) == 10), starts)  # newlines before
        length = ends - starts
        slow = length > SHORT
        # the words holding a character 13a's rules act on (such characters are few: no pass over every word)
        slow[np.searchsorted(starts, np.flatnonzero(kind == 2), side="right") - 1] = True
        pieces = np.ones(len(starts), np.int64)
        fast = np.flatnonzero(~slow)
        slow = np.flatnonzero(slow)
        slow_keys = [self._word_keys(text[s:e]) for s, e in zip(starts[slow].tolist(), ends[slow].tolist())]
        pieces[slow] = [len(k) for k in slow_keys]
        first = np.cumsum(pieces) - pieces  # where each word's keys start in the output
        out = np.empty(int(pieces.sum()), np.uint64)
        out[first[fast]] = _packed(raw, starts[fast], length[fast])
        if slow_keys:
            count = pieces[slow]
            at = np.repeat(first[slow] - np.cumsum(count) + count, count) + np.arange(int(count.sum()))
            out[at] = np.fromiter((k for ks in slow_keys for k in ks), np.uint64, int(count.sum()))
        return out, np.bincount(line, weights=pieces, minlength=n_lines).astype(np.int64)

    def _word_keys(self, word: str) -> tuple[int, ...]:
        keys = self.words.get(word)
        if keys is None:
            keys = self.words[word] = tuple(map(self._piece_key, word_pieces_13a(word)))
        return keys

    def _piece_key(self, piece: str) -> int:
        if len(piece) > SHORT:
            return int(_LONG_FLAG) | self.long.setdefault(piece, len(self.long))
        return sum(byte << 7 * k for k, byte in enumerate(piece.encode("ascii")))


def _packed(raw: bytes, starts: np.ndarray, length: np.ndarray) -> np.ndarray:
    """Each word's characters (at most `SHORT`) 7 bits each, the first lowest; none past the word's end.

    The 8 bytes from a word's start are read as one little-endian integer, cut to the word's
    length, then squeezed from 8 to 7 bits a character (ASCII leaves the top bit 0); a 9th
    character goes to bits 56-62.
    """
    padded = raw + bytes(16)
    octets = np.ndarray((len(raw),), "<u8", padded, 0, (1,))[starts]  # unaligned 8-byte reads
    x = octets & _MASKS[np.minimum(length, 8)]
    for keep, shift in _SQUEEZE:
        x = (x & keep) | ((x & ~keep) >> shift)
    ninth = np.frombuffer(padded, np.uint8)[starts + 8].astype(np.uint64)
    return x | np.where(length > 8, ninth, 0).astype(np.uint64) << np.uint64(56)
