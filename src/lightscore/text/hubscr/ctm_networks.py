"""A ctm hypothesis as sclite's network over a `lightscore.text.sclite.encode.Vocabulary`, without its text.

`lightscore.text.hubscr.pipeline` keeps a ctm as numbers into a table of shapes
(`lightscore.text.hubscr.ctm_words`): a shape is what csrfilt made of one ctm word (a
word, several, or an alternation). `all_indices` gives every shape its
vocabulary indices once; `hyp_network` strings a segment's items into the
`Encoded` network ``encode(fold(shape_text(...)))`` would give, without writing
that text and reading it back.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from lightscore.text.hubscr.ctm_words import Shape, shape_text
from lightscore.text.sclite.encode import Encoded, Vocabulary, encode, join_arc

__all__ = ["all_indices", "fold_all", "hyp_network"]


def fold_all(texts: list[str], fold: Callable[[str], str]) -> list[str]:
    """``[fold(text) for text in texts]`` in one call (sclite's folding goes character by character).

    >>> fold_all(["A", "B\\0C"], str.lower)
    ['a', 'b\\x00c']
    """
    folded = fold("\0".join(texts)).split("\0")
    return folded if len(folded) == len(texts) else [fold(text) for text in texts]  # a text holds a NUL


def hyp_network(
    ids: list[int], shapes: list[Shape], entries: list, fold: Callable[[str], str], vocabulary: Vocabulary
) -> Encoded:
    """``encode(fold(shape_text(...)))`` of the items ``ids`` number in ``shapes``, built from their vocabulary
    ``entries`` (`all_indices`): an alternation's branches fork and join as written.

    Plain twin: ``encode(fold(shape_text(...)))``.

    A shape holding a word with a brace or slash (entry None), which the text route reads as
    markup, sends the whole hypothesis there.
    """
    found = list(map(entries.__getitem__, ids))
    if _INT.issuperset(map(type, found)):  # every item one word: a line
        return tuple.__new__(Encoded, (found, None, [], None))  # not Encoded's own __new__, a Python function
    if None in found:
        return encode(fold(shape_text([shapes[k] for k in ids])), vocabulary)
    odd = [k for k, entry in enumerate(found) if entry.__class__ is not int]
    words: list[int] = []
    jumps: list[int] = []
    merges: list[tuple[int, list[int]]] = []
    current: list[int] = []  # the arcs before the next word, when they are not just the last one
    forked, start = False, 0
    for k in [*odd, len(found)]:
        if k > start:  # a run of one-word items
            if current:
                join_arc(len(words) + 1, current, jumps, merges)
                current = []
            words += found[start:k]
        if k == len(found):
            break
        start, entry = k + 1, found[k]
        if entry.__class__ is list:  # an alternation: every branch forks from the arcs before
            start_arcs, ends, forked = current or [len(words)], [], True
            for branch in entry:
                join_arc(len(words) + 1, start_arcs, jumps, merges)
                words += branch
                ends.append(len(words))
            current = ends
            continue
        if entry and current:
            join_arc(len(words) + 1, current, jumps, merges)
            current = []
        words += entry
    ends = (current or [len(words)]) if forked else None
    return Encoded(words, jumps if forked else None, merges, ends)


def all_indices(shapes: list[Shape], fold: Callable[[str], str], vocabulary: Vocabulary) -> list:
    """Each shape's `_indices`: the one-word shapes (most) folded and looked up together.

    >>> v = Vocabulary(False, False)
    >>> all_indices([(("A",),), (("b", "c"),), (("A",),)], str.lower, v), [w.text for w in v.words[1:]]
    ([1, (2, 3), 1], ['a', 'b', 'c'])
    >>> all_indices([(("x{",),), (("b",),)], str.lower, v)  # markup in a word: each on its own
    [None, 2]
    """
    single = [shape for shape in shapes if len(shape) == 1 and len(shape[0]) == 1]
    words = [shape[0][0] for shape in single]
    if _MARKUP.search("".join(words)):
        single = []
    known: dict[Shape, object] = dict(zip(single, vocabulary.ids(fold_all(words, fold)) if single else ()))
    return [known[shape] if shape in known else _indices(shape, fold, vocabulary) for shape in shapes]


def _indices(shape: Shape, fold: Callable[[str], str], vocabulary: Vocabulary) -> int | tuple | list | None:
    """A shape's vocabulary indices: an int for one word, a tuple for plain words, a list of branches for an
    alternation (``@`` for an empty one), None when a word holds markup."""
    if any(_MARKUP.search(word) for alt in shape for word in alt):
        return None
    if len(shape) == 1:
        indices = tuple(vocabulary.ids([fold(word) for word in shape[0]]))
        return indices[0] if len(indices) == 1 else indices
    return [tuple(vocabulary.ids([fold(word) for word in alt] or ["@"])) for alt in shape]


_MARKUP = re.compile(r"[{}/]")
_INT = frozenset((int,))
