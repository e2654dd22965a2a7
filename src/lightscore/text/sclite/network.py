"""sclite's reading of a transcript as a network: alternations ``{ a / b c / @ }``, ``@``, ``(word)``, ``wor-``.

SCTK's ``Network_create_from_TEXT`` splits a text at whitespace, except that a
token opening with ``{`` runs to its matching ``}``; an alternation's
alternatives are split at ``/`` on its own depth and read the same way, so they
nest. Each branch forks from the arcs before the alternation and the branches'
last arcs all lead to what follows, in the order written (sclite keeps the first
of equally cheap predecessors). `lightscore.text.sclite.markup` aligns two such
networks.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:  # rapidfuzz, which alignment loads, is not needed to read a network
    from lightscore.text.alignment import Pair

__all__ = [
    "GAP_COST",
    "NULL_COST",
    "NULL_PAIR_COST",
    "OPTIONAL_COST",
    "SUB_COST",
    "MarkupError",
    "Network",
    "Word",
    "equal_words",
    "f32",
    "gap_cost",
    "pair_cost",
    "parse_reference",
    "path_pairs",
    "read_words",
    "walk_back",
]


class MarkupError(ValueError):
    """A reference sclite's markup cannot read (an unclosed ``{``, an empty alternation)."""


class Word(NamedTuple):
    """One word of a network: as written, as compared, and what sclite makes of it.

    >>> read_words("(uh) @ wor-", optional=True, fragments=True)  # doctest: +NORMALIZE_WHITESPACE
    [Word(text='(uh)', key=b'uh', null=False, optional=True, fragment=False),
     Word(text='@', key=b'@', null=True, optional=False, fragment=False),
     Word(text='wor-', key=b'wor-', null=False, optional=False, fragment=True)]
    """

    text: str
    key: bytes  # the compared form: UTF-8 (sclite compares bytes), without an optional word's parentheses
    null: bool
    optional: bool
    fragment: bool  # -F and a leading or trailing hyphen: may match a longer word


def f32(value: float) -> float:
    """``value`` rounded to single precision: sclite's cells are C floats, and ``@``'s 0.001 is not exact in them.

    >>> f32(0.001) == 0.001
    False
    """
    return struct.unpack("f", struct.pack("f", value))[0]


# sclite's wwd_WORD costs: "@" inserted or deleted, an optionally deletable word, any other gap, "@" against "@", a
# substitution (a correct word costs 0).
NULL_COST, OPTIONAL_COST, GAP_COST, NULL_PAIR_COST, SUB_COST = f32(0.001), 2.0, 3.0, 1.0, 4.0


def equal_words(w1: Word, w2: Word) -> bool:
    """sclite's ``equal_WORD2``: bytes equal, or with ``-F`` a fragment's spelling up to its hyphen.

    >>> equal_words(*read_words("wor- word", fragments=True)), equal_words(*read_words("wor- word"))
    (True, False)
    """
    k1, k2 = w1.key, w2.key
    if w1.fragment or w2.fragment:
        for frag, other in ((k1, k2), (k2, k1)):
            if len(frag) > 1 and frag[:1] == b"-":
                return len(other) >= len(frag) - 1 and other.endswith(frag[1:])
            if len(frag) > 1 and frag[-1:] == b"-":
                return other[: len(frag) - 1] == frag[:-1] and len(other) >= len(frag) - 1
    return k1 == k2


def gap_cost(word: Word) -> float:
    """What inserting or deleting ``word`` costs sclite."""
    return NULL_COST if word.null else OPTIONAL_COST if word.optional else GAP_COST


def pair_cost(ref: Word, hyp: Word) -> float:
    """What aligning ``ref`` with ``hyp`` costs sclite: 1 for ``@`` against ``@``, 0 when equal, else 4.

    >>> pair_cost(*read_words("a a")), pair_cost(*read_words("a b")), pair_cost(*read_words("@ @"))
    (0.0, 4.0, 1.0)
    """
    if ref.null and hyp.null:
        return NULL_PAIR_COST
    return 0.0 if equal_words(ref, hyp) else SUB_COST


def _word(text: str, optional: bool, fragments: bool) -> Word:
    if len(text) > 1 and text[-1] == "*":  # sclite's new_WORD drops one trailing "*"
        text = text[:-1]
    deletable = optional and len(text) > 1 and text[0] == "(" and text[-1] == ")"
    key = (text[1:-1] if deletable else text).encode("utf-8")
    # decode_fragment: a hyphen first or last, or last inside an optional word's parentheses.
    fragment = fragments and (text[:1] == "-" or text[-1:] == "-" or (deletable and text[-2:-1] == "-"))
    return Word(text, key, text == "@", deletable, fragment)


def read_words(text: str, optional: bool = False, fragments: bool = False) -> list[Word]:
    """A text without alternations as sclite's words (`parse_reference` reads alternations too).

    Args:
        text: Whitespace-separated words.
        optional: ``-D``: ``(word)`` is optionally deletable.
        fragments: ``-F``: words may be fragments.

    Returns:
        One `Word` per word.
    """
    return [_word(token, optional, fragments) for token in text.split()]


# A network: arcs in topological order, each (word, predecessor arcs); arc 0 is the head (no word).
Network = tuple[list[tuple[Word | None, list[int]]], list[int]]


def parse_reference(text: str, optional: bool = False, fragments: bool = False) -> Network:
    """A transcript with sclite's markup (a reference, or a trn hypothesis) as a network: ``(arcs, final arcs)``.

    Args:
        text: The reference; ``{`` opens an alternation when it begins a token.
        optional: ``-D``: ``(word)`` is optionally deletable.
        fragments: ``-F``: words may be fragments.

    Returns:
        ``arcs``, one ``(word, predecessors)`` each in topological order (arc 0 the head, no word),
        and the arcs that end the reference.

    Raises:
        MarkupError: an alternation that is never closed or holds no alternative.

    >>> arcs, ends = parse_reference("{ a / b c } d")
    >>> [(w.text if w else None, preds) for w, preds in arcs], ends
    ([(None, []), ('a', [0]), ('b', [0]), ('c', [2]), ('d', [1, 3])], [4])
    """
    arcs: list[tuple[Word | None, list[int]]] = [(None, [])]
    ends = _build(_elements(text), [0], arcs, optional, fragments, text)
    return arcs, ends


def walk_back(back: list[list[tuple[int, int]]], a: int, b: int) -> list[tuple[int, int, str]]:
    """The path through two networks that ends at cell ``(a, b)``: ``(ref arc, hyp arc, move)`` from the start.

    Each cell's back pointer names the cell it was reached from: the same reference arc means an
    insertion (I), the same hypothesis arc a deletion (D), neither a substitution (S). The fast
    alignment (`lightscore.text.sclite.markup`) and its plain twin both walk their pointers here.

    Args:
        back: ``back[a][b]``, the cell before ``(a, b)`` on its cheapest path; ``(0, 0)`` is the start.
        a: The reference arc the path ends at.
        b: The hypothesis arc it ends at.

    Returns:
        The moves, from the start.

    >>> walk_back([[(0, 0), (0, 0)], [(0, 0), (0, 0)], [(1, 0), (1, 1)]], 2, 1)
    [(1, 1, 'S'), (2, 1, 'D')]
    """
    path = []
    while a > 0 or b > 0:
        before_a, before_b = back[a][b]
        path.append((a, b, "I" if a == before_a else "D" if b == before_b else "S"))
        a, b = before_a, before_b
    path.reverse()
    return path


def path_pairs(ref: Network, hyp: Network, path: Iterable[tuple[int, int, str]]) -> list[Pair]:
    """A path through two networks as sclite prints it: ``(ref text | None, hyp text | None, mark)`` pairs.

    ``@`` leaves no pair; an optionally deletable word left out is ``(word, None, "C")`` (an inserted
    one ``(None, word, "C")``), as sclite counts them correct; a substitution is correct where the
    words are equal (`equal_words`: with fragments read, a fragment against a word it begins or ends).
    The fast alignment (`lightscore.text.sclite.markup`) and its plain twin
    (`lightscore.text.sclite.reference`) find their paths apart and both read them here.

    Args:
        ref: The reference network.
        hyp: The hypothesis network.
        path: ``(ref arc, hyp arc, move)`` from the start, moves S (diagonal), D or I.

    Returns:
        One pair per position, mark C, S, D or I.

    >>> ref, hyp = parse_reference("a (b) @", optional=True), parse_reference("x @")
    >>> path_pairs(ref, hyp, [(1, 1, "S"), (2, 1, "D"), (3, 2, "S")])
    [('a', 'x', 'S'), ('(b)', None, 'C')]
    """
    pairs: list[Pair] = []
    for a, b, move in path:
        word, got = ref[0][a][0], hyp[0][b][0]
        if move == "D" and word is not None and not word.null:
            pairs.append((word.text, None, "C" if word.optional else "D"))
        elif move == "I" and got is not None and not got.null:
            pairs.append((None, got.text, "C" if got.optional else "I"))
        elif move == "S" and word is not None and got is not None and not (word.null and got.null):
            pairs.append((word.text, got.text, "C" if equal_words(word, got) else "S"))
    return pairs


def _elements(text: str) -> list:
    """Words (str) and alternations (list of alternatives, each a text), as sclite's tokenizer splits them."""
    if "{" not in text:  # most transcripts: words only
        return text.split()
    elements: list = []
    position, size = 0, len(text)
    while position < size:
        if text[position].isspace():
            position += 1
            continue
        if text[position] != "{":
            stop = position
            while stop < size and not text[stop].isspace():
                stop += 1
            elements.append(text[position:stop])
            position = stop
            continue
        depth, stop = 0, position
        while stop < size:
            depth += {"{": 1, "}": -1}.get(text[stop], 0)
            stop += 1
            if depth == 0:
                break
        if depth:
            raise MarkupError(f"the alternation at character {position + 1} is never closed: {text!r}")
        elements.append(_alternatives(text[position + 1 : stop - 1], text))
        position = stop
    return elements


def _alternatives(inner: str, text: str) -> list[str]:
    """The texts between ``/`` at depth 0 of an alternation's inside; blank ones are skipped, as sclite does."""
    if "{" in inner:
        parts = _split_top_level(inner)
    else:  # no nesting: every "/" splits
        parts = inner.split("/")
    parts = [part for part in parts if part.strip()]
    if not parts:
        raise MarkupError(f"an alternation holds no alternative (write @ for nothing): {text!r}")
    return parts


def _split_top_level(inner: str) -> list[str]:
    """``inner`` split at the ``/`` outside nested braces."""
    parts, depth, start = [], 0, 0
    for k, char in enumerate(inner):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if char == "/" and depth == 0:
            parts.append(inner[start:k])
            start = k + 1
    parts.append(inner[start:])
    return parts


def _build(elements: list, preds: list[int], arcs: list, optional: bool, fragments: bool, text: str) -> list[int]:
    """Append ``elements``' arcs after ``preds``; return the arcs they end with (every branch's, in order)."""
    for element in elements:
        if isinstance(element, str):
            arcs.append((_word(element, optional, fragments), preds))
            preds = [len(arcs) - 1]
            continue
        ends: list[int] = []
        for alternative in element:
            ends += _build(_elements(alternative), preds, arcs, optional, fragments, text)
        preds = ends
    return preds
