"""A ctm hypothesis through csrfilt's GLM filter, read straight into what sclite's scoring needs of it.

``hubscr`` runs ``csrfilt -i ctm -t hyp -dh`` and sclite reads the printed lines
back (`lightscore.text.hubscr.pipeline.filter_ctm_lines`, then
`lightscore.text.hubscr.stm_ctm.read_ctm_items`). Scoring needs only each item's words and
its midpoint (`lightscore.text.hubscr.stm_ctm.assign_words`), so `filtered_words`
goes there directly: each distinct word is filtered once into its *shape* (its
alternatives, each a tuple of words), and a line's times are worked out only as
far as its items' latest midpoints. A word csrfilt splits gets equal parts of its
time, rounded as its ``%.3f`` prints them (``round(x, 3)`` is the same correctly
rounded number). Items are in the order of their lines' begins as written, file
order among equals: hubscr sorts the ctm so before csrfilt splits any word.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from math import isfinite
from typing import NamedTuple

import numpy as np

from lightscore.text.hubscr.ctm_fields import ctm_rows
from lightscore.text.hubscr.glm import Glm, csrfilt_lines
from lightscore.text.hubscr.stm_ctm import CtmItem

__all__ = [
    "ALT_MARKS",
    "NUMERIC",
    "CtmShapes",
    "Csrfilt",
    "Shape",
    "filtered_items",
    "filtered_words",
    "numbered",
    "shape_text",
    "words_of",
]

Shape = tuple[tuple[str, ...], ...]  # an item's alternatives, each its words (one alternative: plain words)
Key = tuple[str, str]  # a conversation: (file, channel)


class CtmShapes(NamedTuple):
    """A ctm's items as numbers into a table of shapes (a corpus repeats its words: each shape is one object).

    ``ids[key][k]`` is the ``shapes`` entry of conversation ``key``'s item ``k`` (by time), ``midpoints[key][k]``
    its `lightscore.text.hubscr.stm_ctm.CtmItem.midpoint`.
    """

    shapes: list[Shape]
    ids: dict[Key, list[int]]
    midpoints: dict[Key, list[float] | np.ndarray]

    def by_key(self) -> dict[Key, list[Shape]]:
        """Each conversation's items as shapes.

        >>> CtmShapes([(("a",),), (("b",),)], {("f", "A"): [1, 0, 1]}, {}).by_key()
        {('f', 'A'): [(('b',),), (('a',),), (('b',),)]}
        """
        shapes = self.shapes
        return {key: [shapes[k] for k in ids] for key, ids in self.ids.items()}

    def midpoint_lists(self) -> dict[Key, list[float]]:
        """Each conversation's midpoints as a list (the numpy reader keeps arrays).

        >>> CtmShapes([], {}, {("f", "A"): np.array([0.5, 1.0])}).midpoint_lists()
        {('f', 'A'): [0.5, 1.0]}
        """
        return {key: np.asarray(mids, dtype=np.float64).tolist() for key, mids in self.midpoints.items()}


def numbered(shapes: dict[Key, list[Shape]]) -> tuple[list[Shape], dict[Key, list[int]]]:
    """Each distinct shape of these conversations numbered once, and every item's number.

    >>> numbered({("f", "A"): [(("a",),), (("b",),), (("a",),)]})
    ([(('a',),), (('b',),)], {('f', 'A'): [0, 1, 0]})
    """
    numbers: dict[Shape, int] = {}
    ids = {key: [numbers.setdefault(shape, len(numbers)) for shape in items] for key, items in shapes.items()}
    return list(numbers), ids


ALT_MARKS = frozenset(("<ALT_BEGIN>", "<ALT>", "<ALT_END>"))
NUMERIC = re.compile(r"^[0-9.-]*$")  # csrfilt's test for a confidence field
_MARKS = re.compile(r"[{}/]|^$")  # a text that is not one plain word


class _Filtered(NamedTuple):
    """What csrfilt makes of one ctm word: 0 its line untouched, 1 words one by one, 2 an alternation."""

    kind: int
    items: tuple[Shape, ...]  # kind 0 and 1: one single-word shape per word; kind 2: the alternation
    lengths: tuple[int, ...]  # kind 2: the distinct numbers of words of its alternatives


_PRINTED = _Filtered(-1, (), ())  # csrfilt writes something sclite would read as markup: the printed route


class Csrfilt(NamedTuple):
    """A GLM and the switches csrfilt filters a hypothesis with (hubscr always adds ``-dh``)."""

    glm: Glm
    upcase: bool = True  # not -s
    latin1: bool = False  # -e

    def lines(self, texts: list[str]) -> list[str]:
        """`lightscore.text.hubscr.glm.csrfilt_lines` of ctm words, ``-i ctm -t hyp -dh``."""
        return csrfilt_lines(texts, self.glm, "ctm", "hyp", self.upcase, True, self.latin1)


def _filter_all(words: Iterable[str], conf: bool, csrfilt: Csrfilt, known: dict[str, _Filtered]) -> None:
    """Every word not yet ``known`` through csrfilt, all together (one line each, as csrfilt takes a word's
    line on its own: no GLM rule holds a line break), read as `_read` reads it."""
    new = [word for word in dict.fromkeys(words) if word not in known]
    for word, text in zip(new, csrfilt.lines(new) if new else ()):
        known[word] = _read(text, conf)


def _read(text: str, conf: bool) -> _Filtered:
    """`lightscore.text.hubscr.pipeline.filter_ctm_lines`'s reading of what csrfilt made of a word (of a line with or
    without a confidence field)."""
    if conf and " " not in text and not _MARKS.search(text):  # one word, retimed (most of a ctm with confidences)
        return _PRINTED if text in ALT_MARKS else _Filtered(1, (((text,),),), ())
    words = text.replace("{", " { ").replace("}", " } ").split()
    if not conf and len(words) == 1:
        return _PRINTED if words[0] in ALT_MARKS else _Filtered(0, (((words[0],),),), ())
    if not conf and words and NUMERIC.match(words[-1]):
        words.pop()
    parts = [tuple(part.replace("{", " ").replace("}", " ").split()) for part in " ".join(words).split("/")]
    if any(w in ALT_MARKS for part in parts for w in part):
        return _PRINTED
    if len(parts) == 1:
        return _Filtered(1, tuple(((w,),) for w in parts[0]), ())
    return _Filtered(2, (tuple(parts),), tuple(sorted({len(part) for part in parts})))


def filtered_words(
    path: str | os.PathLike, glm: Glm | Csrfilt, encoding: str = "utf-8"
) -> tuple[dict[Key, list[Shape]], dict[Key, list[float]]] | None:
    """The filtered ctm's items as shapes, per ``(file, channel)`` in `read_ctm_items`'s order, and their midpoints.

    `filtered_items` with each item's shape in place of its number.
    """
    found = filtered_items(path, glm, encoding)
    return None if found is None else (found.by_key(), found.midpoint_lists())


def filtered_items(path: str | os.PathLike, glm: Glm | Csrfilt, encoding: str = "utf-8") -> CtmShapes | None:
    """The filtered ctm's items, per ``(file, channel)`` in `read_ctm_items`'s order, as numbers into a table of shapes.

    Args:
        path: The ctm file.
        glm: From `lightscore.text.hubscr.glm.read_glm`, or with csrfilt's switches (`Csrfilt`).
        encoding: The file's.

    Returns:
        The items, or None when a line needs the printed route (``*`` times, an alternation or a
        malformed line in the input, or a time that is not a number): that route gives its
        result and its errors.
    """
    with open(path, encoding=encoding) as f:
        text = f.read()
    csrfilt = glm if isinstance(glm, Csrfilt) else Csrfilt(glm)
    known: tuple[dict[str, _Filtered], dict[str, _Filtered]] = ({}, {})  # without, with a confidence field
    found = _line_by_line(ctm_rows(text), csrfilt, known)
    return None if found is None else CtmShapes(*numbered(found[0]), found[1])


def _line_by_line(rows: list[list[str]], csrfilt: Csrfilt, known: tuple[dict, dict]) -> tuple[dict, dict] | None:
    """`filtered_words` one line at a time, for any ctm (mixed fields, times with more decimals, ``*``)."""
    found: dict[tuple[str, str], list[tuple[float, float, Shape]]] = {}
    items: list[tuple[float, float, Shape]] = []
    file = channel = None
    for conf in (False, True):
        _filter_all(
            [fields[4] for fields in rows if len(fields) >= 5 and (len(fields) > 5) == conf], conf, csrfilt, known[conf]
        )
    for fields in rows:
        if len(fields) < 5 or fields[2] == "*" or fields[4] in ALT_MARKS:
            return None
        filtered = known[len(fields) > 5][fields[4]]
        if filtered is _PRINTED:
            return None
        try:
            begin, duration = float(fields[2]), float(fields[3])
        except ValueError:
            return None
        if not (isfinite(begin) and isfinite(duration)):  # "nan", "inf": the printed route's reader refuses them
            return None
        if fields[0] != file or fields[1] != channel:  # a ctm keeps a conversation's lines together
            file, channel = fields[0], fields[1]
            items = found.setdefault((file, channel), [])
        # Each item keeps its line's begin as written: hubscr sorts the lines by it before csrfilt.
        if filtered.kind == 0:  # printed untouched: the times as written
            items.append((begin, begin + duration / 2, filtered.items[0]))
        else:  # retimed, printed "%.3f"
            at, length = round(begin, 3), round(duration, 3)  # length: of a word that stays one
            if filtered.kind == 2:
                items.append((begin, _span(at, length, begin, duration, filtered.lengths)[1], filtered.items[0]))
            elif len(filtered.items) == 1:
                items.append((begin, at + length / 2, filtered.items[0]))
            else:
                step = duration / len(filtered.items) if filtered.items else duration
                length = round(step, 3)
                for i, shape in enumerate(filtered.items):
                    items.append((begin, round(begin + step * i, 3) + length / 2, shape))
    for items in found.values():
        items.sort(key=_by_begin)  # stable: a line's parts, and lines of one begin, stay in file order
    return {key: [e[2] for e in items] for key, items in found.items()}, {
        key: [e[1] for e in items] for key, items in found.items()
    }


def _span(at: float, length: float, begin: float, duration: float, lengths: tuple[int, ...]) -> tuple[float, float]:
    """An alternation's earliest begin and latest midpoint (`CtmItem.midpoint`) from its alternatives' lengths.

    Each alternative starts at ``begin``; a word's midpoint grows with its place, so an
    alternative's last word has its latest. With no word at all both are 0, as in `read_ctm_items`.
    ``at`` and ``length`` are ``begin`` and ``duration`` rounded (a one-word alternative's times).

    >>> _span(1.0, 0.5, 1.0, 0.5, (1, 2))
    (1.0, 1.375)
    """
    latest = []
    for n in lengths:
        if n == 1:
            latest.append(at + length / 2)
        elif n:
            step = duration / n
            latest.append(round(begin + step * (n - 1), 3) + round(step, 3) / 2)
    return (at, max(latest)) if latest else (0.0, 0.0)


def _by_begin(entry: tuple[float, float, Shape]) -> float:
    return entry[0]


def words_of(item: CtmItem) -> Shape:
    """A `CtmItem`'s shape: its words without their times.

    >>> words_of(CtmItem((((0.0, 1.0, "a"), (1.0, 1.0, "b")), ()), 1))
    (('a', 'b'), ())
    """
    return tuple(tuple(word for _, _, word in alt) for alt in item.alternatives)


def shape_text(shapes: list[Shape]) -> str:
    """`lightscore.text.hubscr.stm_ctm.hyp_text` of shapes: words, and alternations as ``{ a b / c }`` (``@`` for none).

    >>> shape_text([(("a",),), (("b", "c"), ())])
    'a { b c / @ }'
    """
    texts = _shape_texts
    try:
        return " ".join(filter(None, [texts[shape] for shape in shapes]))
    except KeyError:
        for shape in shapes:
            if shape not in texts:
                if len(texts) > 100_000:  # a bound for long-running processes; a corpus repeats far fewer
                    texts.clear()
                texts[shape] = _shape_text(shape)
        return " ".join(filter(None, [texts[shape] for shape in shapes]))


_shape_texts: dict[Shape, str] = {}  # a corpus repeats its items: each distinct shape is written once


def _shape_text(shape: Shape) -> str:
    if len(shape) == 1:
        return " ".join(shape[0])
    return "{ " + " / ".join(" ".join(alt) or "@" for alt in shape) + " }"
