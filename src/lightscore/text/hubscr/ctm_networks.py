"""A ctm hypothesis as sclite's networks over a `lightscore.text.sclite.encode.Vocabulary`.

`lightscore.text.hubscr.pipeline` keeps a ctm as numbers into a table of shapes
(`lightscore.text.hubscr.ctm_words`): a shape is what csrfilt made of one ctm word (a
word, several, or an alternation). `hyp_networks` writes each segment's items as the
text sclite would read (`lightscore.text.hubscr.ctm_words.shape_text`), folds the texts
together (`fold_all`) and encodes them. Building the networks from the shapes without
their text paid 1.3x on a whole ``hubscr()`` run, under the 1.5x a fast path must pay
(issue 37), and gave way to this.
"""

from __future__ import annotations

from collections.abc import Callable

from lightscore.text.hubscr.ctm_words import Shape, shape_text
from lightscore.text.sclite.encode import Encoded, Vocabulary, encode

__all__ = ["fold_all", "hyp_networks"]


def fold_all(texts: list[str], fold: Callable[[str], str]) -> list[str]:
    """``[fold(text) for text in texts]`` in one call (sclite's folding goes character by character).

    >>> fold_all(["A", "B\\0C"], str.lower)
    ['a', 'b\\x00c']
    """
    folded = fold("\0".join(texts)).split("\0")
    return folded if len(folded) == len(texts) else [fold(text) for text in texts]  # a text holds a NUL


def hyp_networks(
    segments: list[list[int]], shapes: list[Shape], fold: Callable[[str], str], vocabulary: Vocabulary
) -> list[Encoded]:
    """Each segment's hypothesis network: ``encode(fold(shape_text(...)))`` of the items it numbers in ``shapes``.

    Args:
        segments: Per segment, its items as numbers into ``shapes``.
        shapes: What csrfilt made of each distinct ctm word (`lightscore.text.hubscr.ctm_words.numbered`).
        fold: sclite's case folding (`lightscore.text.sclite.case.sclite_fold` with its localization).
        vocabulary: The words seen so far; new ones are added.

    Returns:
        One network per segment.

    Raises:
        lightscore.text.sclite.network.MarkupError: a word holding a brace or a slash that is not markup sclite reads.

    >>> v = Vocabulary(False, False)
    >>> [net.words for net in hyp_networks([[0, 1], []], [(("A",),), (("b", "c"),)], str.lower, v)]
    [[1, 2, 3], []]
    """
    texts = fold_all([shape_text([shapes[k] for k in ids]) for ids in segments], fold)
    return [encode(text, vocabulary) for text in texts]
