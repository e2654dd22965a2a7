"""Transcripts with sclite's markup as integer networks, for `lightscore.text.sclite.batch` to align many at once.

A network here is ``(words, jumps, merges, ends)``: ``words[k]`` is the
vocabulary index of arc ``k + 1`` (arc 0 is the head); every arc follows the
arc before it except those ``jumps`` (one other predecessor) and ``merges``
(several) list; ``ends`` are the final arcs. It is `lightscore.text.sclite.network.parse_reference`'s
network without one Python object per arc: a corpus repeats its words, so each
distinct token becomes a `Word` once (`Vocabulary`).

The common shapes are read with one ``split``: words, and alternations whose
braces and slashes stand at the edges of tokens (``{HE IS / HE HAS}``,
``{ a b / @ }``); any other text (a brace inside a word, ``/`` outside an
alternation, markup sclite refuses) goes through `parse_reference` itself, so
the network, and any `MarkupError`, is the same.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np

from lightscore.text.sclite.network import Network, Word, _word, gap_cost, parse_reference

__all__ = ["Encoded", "Vocabulary", "encode", "encode_parsed", "join_arc", "network"]

# A "{" after a character of a word, a "}" before one, a "/" touching one: sclite's reading is not the split's.
_INSIDE = re.compile(r"[^\s{]\{|\}[^\s}]|\S/|/\S")


class Encoded(NamedTuple):
    """One network as vocabulary indices: the arcs that do not just follow the arc before, and the final arcs.

    ``jumps`` is flat, ``[arc, predecessor, arc, predecessor, ...]`` for the arcs with one predecessor
    that is not the arc before (None: a plain line, no merges either); ``merges`` holds
    ``(arc, predecessors)`` for the arcs with several; ``ends`` is None for the last arc.
    """

    words: list[int]
    jumps: list[int] | None
    merges: list[tuple[int, list[int]]]
    ends: list[int] | None


class Vocabulary:
    """The distinct words of a batch: a `Word` once per token, and per word the numbers the alignment needs.

    Index 0 is padding (and the head arc): no word, gap cost 3.

    >>> vocabulary = Vocabulary(optional=True, fragments=False)
    >>> [vocabulary.words[k].text for k in vocabulary.ids("(uh) yes (uh)".split())]
    ['(uh)', 'yes', '(uh)']
    """

    def __init__(self, optional: bool, fragments: bool) -> None:
        self.optional, self.fragments = optional, fragments
        self.words: list[Word] = [Word("", b"", False, False, False)]
        self._by_token: dict[str, int] = {}
        self._by_word: dict[Word, int] = {}
        self._keys: dict[bytes, int] = {}
        self.key_ids: list[int] = [-1]
        # An alternation's inside -> its branches' indices, None when it has no word (`encode`).
        self.groups: dict[str, list[list[int]] | None] = {}

    def add(self, word: Word) -> int:
        """The index of ``word``, added if new."""
        index = self._by_word.get(word)
        if index is None:
            index = self._by_word[word] = len(self.words)
            self.words.append(word)
            self.key_ids.append(self._keys.setdefault(word.key, len(self._keys)))
        return index

    def ids(self, tokens: list[str]) -> list[int]:
        """The indices of the words ``tokens`` spell (as sclite's ``new_WORD`` reads them)."""
        known = self._by_token
        try:
            return list(map(known.__getitem__, tokens))
        except KeyError:
            for token in tokens:
                if token not in known:
                    known[token] = self.add(_word(token, self.optional, self.fragments))
            return [known[token] for token in tokens]

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Per word: compared key id, gap cost (float32, as sclite adds it), null, optional, fragment."""
        words = self.words
        gaps = np.array([3.0] + [gap_cost(w) for w in words[1:]], dtype=np.float32)
        flags = np.array([(w.null, w.optional, w.fragment) for w in words], dtype=bool).reshape(-1, 3)
        return np.array(self.key_ids, dtype=np.int64), gaps, flags[:, 0], flags[:, 1], flags[:, 2]


def encode(text: str, vocabulary: Vocabulary) -> Encoded:
    """``text`` read as sclite reads a transcript, as an `Encoded` network over ``vocabulary``.

    Plain twin: `encode_parsed` (`lightscore.text.sclite.network.parse_reference`'s network).

    Raises:
        MarkupError: markup sclite cannot read (from `parse_reference`).

    >>> vocabulary = Vocabulary(False, False)
    >>> encode("{ a / b c } d", vocabulary)
    Encoded(words=[1, 2, 3, 4], jumps=[2, 0], merges=[(4, [1, 3])], ends=[4])
    >>> encode("a b", vocabulary)
    Encoded(words=[1, 2], jumps=None, merges=[], ends=None)
    """
    if "{" not in text:
        # A line, most transcripts: built without Encoded's own __new__, a Python function.
        return tuple.__new__(Encoded, (vocabulary.ids(text.split()), None, [], None))
    if not _INSIDE.search(text):
        flat = _flat_groups(text, vocabulary)
        if flat is not None:
            return flat
    tokens = text.split()
    read = _alternations(text, tokens)
    if read is not None:
        words, jumps, merges, ends = read
        return Encoded(vocabulary.ids(words), jumps, merges, ends)
    return encode_parsed(text, vocabulary)


def encode_parsed(text: str, vocabulary: Vocabulary) -> Encoded:
    """`encode` the plain way: `parse_reference`'s network, its arcs' predecessors listed as `Encoded` lists them.

    The plain twin of `encode`'s shortcuts (one ``split`` for a line, `_flat_groups`, `_alternations`),
    and its road for any text they do not read.

    Raises:
        MarkupError: markup sclite cannot read.

    >>> encode_parsed("{ a / b c } d", Vocabulary(False, False))
    Encoded(words=[1, 2, 3, 4], jumps=[2, 0], merges=[(4, [1, 3])], ends=[4])
    """
    arcs, ends = parse_reference(text, vocabulary.optional, vocabulary.fragments)
    jumps: list[int] = []
    merges: list[tuple[int, list[int]]] = []
    for arc, (_, preds) in enumerate(arcs):
        if arc and len(preds) > 1:
            merges.append((arc, preds))
        elif arc and preds[0] != arc - 1:
            jumps += (arc, preds[0])
    return Encoded([vocabulary.add(word) for word, _ in arcs[1:]], jumps, merges, ends)  # type: ignore[arg-type]


def network(encoded: Encoded, vocabulary: Vocabulary) -> Network:
    """``encoded`` as `lightscore.text.sclite.network.parse_reference` gives it (arcs with their words).

    >>> v = Vocabulary(False, False)
    >>> network(encode("{ a / b c } d", v), v) == parse_reference("{ a / b c } d")
    True
    """
    preds = [[arc - 1] for arc in range(len(encoded.words) + 1)]
    jumps = encoded.jumps or []
    for k in range(0, len(jumps), 2):
        preds[jumps[k]] = [jumps[k + 1]]
    for arc, before in encoded.merges:
        preds[arc] = before
    arcs: list[tuple[Word | None, list[int]]] = [(None, [])]
    arcs += [(vocabulary.words[w], preds[arc]) for arc, w in enumerate(encoded.words, 1)]
    return arcs, encoded.ends if encoded.ends is not None else [len(encoded.words)]


def _alternations(text: str, tokens: list[str]) -> tuple[list[str], list[int], list, list[int]] | None:
    """``(words, jumps, merges, ends)`` of tokens whose braces open or close them and whose slashes stand alone.

    None when a brace or slash stands elsewhere, or sclite would refuse the markup (the full reader then).

    A stack of open alternations, each ``[predecessors at its start, ends so far, current branch not blank]``:
    a branch's last arcs join the ends when the branch closes (blank branches are skipped, as sclite skips them).
    ``jumps`` and ``merges`` list the arcs whose predecessors are not just the arc before (`Encoded`).
    """
    if _INSIDE.search(text):
        return None  # a brace or slash inside a word: the full reader
    words: list[str] = []
    jumps: list[int] = []
    merges: list[tuple[int, list[int]]] = []
    current: list[int] = [0]
    stack: list[list] = []
    for token in tokens:
        if token == "/":
            if not stack:
                return None  # a word "/" outside an alternation: the full reader
            top = stack[-1]
            if top[2]:
                top[1] += current
            current, top[2] = top[0], False
            continue
        word = token
        if word[0] == "{":
            word = word.lstrip("{")
            for _ in range(len(token) - len(word)):
                if stack:
                    stack[-1][2] = True
                stack.append([current, [], False])
        closes = len(word)
        word = word.rstrip("}")
        closes -= len(word)
        if word:
            if stack:
                stack[-1][2] = True
            if len(current) > 1:
                merges.append((len(words) + 1, current))
            elif current[0] != len(words):
                jumps += (len(words) + 1, current[0])
            words.append(word)
            current = [len(words)]
        for _ in range(closes):
            if not stack:
                return None
            _, ends, nonblank = stack.pop()
            if nonblank:
                ends += current
            if not ends:
                return None  # an empty alternation: the full reader names it
            current = ends
    return None if stack else (words, jumps, merges, current)


def _flat_groups(text: str, vocabulary: Vocabulary) -> Encoded | None:
    """`encode` of words and alternations none of which holds another (``a { b c / d } e``), else None.

    The text is cut at its braces rather than read token by token, and each distinct inside of
    an alternation is read once per vocabulary (`Vocabulary.groups`): a corpus repeats them.
    None (the token reader then) for a nested or unclosed alternation, a ``}`` or ``/`` outside
    one, or an alternation with no word at all. Braces and slashes must stand at the edges of
    tokens (the caller checks `_INSIDE`).

    >>> v = Vocabulary(False, False)
    >>> _flat_groups("x {a / / b c} {d / @}", v)
    Encoded(words=[1, 2, 3, 4, 5, 6], jumps=[3, 1], merges=[(5, [2, 4]), (6, [2, 4])], ends=[5, 6])
    >>> _flat_groups("{ a { b } }", v) is None
    True
    """
    pieces = text.split("{")
    head = pieces[0]
    if "}" in head or "/" in head:
        return None
    words = vocabulary.ids(head.split())
    jumps: list[int] = []
    merges: list[tuple[int, list[int]]] = []
    before: list[int] | None = None  # the arcs before the next word, when not just the last one
    groups = vocabulary.groups
    for piece in pieces[1:]:
        inside, closed, rest = piece.partition("}")
        if not closed or "}" in rest or "/" in rest:
            return None
        if inside not in groups:
            # A blank branch is skipped, as sclite skips it; none left: the full reader names the error.
            found = [vocabulary.ids(tokens) for tokens in (part.split() for part in inside.split("/")) if tokens]
            groups[inside] = found or None
        branches = groups[inside]
        if branches is None:
            return None
        start, ends = before or [len(words)], []
        for branch in branches:
            join_arc(len(words) + 1, start, jumps, merges)
            words += branch
            ends.append(len(words))
        tail = rest.split()
        before = ends
        if tail:
            join_arc(len(words) + 1, ends, jumps, merges)
            words += vocabulary.ids(tail)
            before = None
    return Encoded(words, jumps, merges, before or [len(words)])


def join_arc(arc: int, before: list[int], jumps: list[int], merges: list[tuple[int, list[int]]]) -> None:
    """Record ``arc``'s predecessors ``before`` in `Encoded`'s ``jumps`` or ``merges``, unless just the arc before it.

    >>> jumps, merges = [], []
    >>> join_arc(3, [2], jumps, merges), join_arc(4, [1], jumps, merges), join_arc(5, [2, 4], jumps, merges)
    (None, None, None)
    >>> jumps, merges
    ([4, 1], [(5, [2, 4])])
    """
    if len(before) > 1:
        merges.append((arc, before))
    elif before[0] != arc - 1:
        jumps += (arc, before[0])
