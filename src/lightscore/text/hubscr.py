"""NIST's conversational scoring (``hubscr.pl -l english -h hub5``) in one call: stm + ctm + GLM -> sclite's counts.

What ``hubscr`` runs, step for step: ``csrfilt -i stm -t ref -dh <glm>`` on the
reference and ``csrfilt -i ctm -t hyp -dh <glm>`` on the hypothesis
(`lightscore.text.glm`; a ctm word the GLM turns into several, or into an
alternation, is split into equal parts of its time, printed ``%.3f`` as csrfilt
prints them), then ``sclite -r ref stm -h hyp ctm -F -D``: each segment gets its
words (`lightscore.text.stm_ctm.assign_words`) and the two networks are aligned
(`lightscore.text.sclite_markup`), case folded A-Z as sclite does.

`hubscr` takes the short way to the same counts: the ctm goes through the GLM
word by word straight into its items' words and midpoints
(`lightscore.text.ctm_words`, no lines printed and read back), a hypothesis
becomes its network without being written as text, and every segment is aligned
at once (`lightscore.text.sclite_batch`). `hubscr_rows` gives the segments as text.
"""

from __future__ import annotations

import gc
import os
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from itertools import chain
from typing import NamedTuple

from lightscore.text.ctm_words import NUMERIC, Csrfilt, CtmShapes, Shape, filtered_items, numbered, shape_text, words_of
from lightscore.text.glm import Glm, csrfilt, csrfilt_lines, glm_path, read_glm
from lightscore.text.hubscr_languages import Language
from lightscore.text.hubscr_languages import language as hubscr_language
from lightscore.text.sclite_case import sclite_fold
from lightscore.text.sclite_encode import Encoded, Vocabulary, encode, join_arc
from lightscore.text.sclite_markup import count_encoded
from lightscore.text.stm_ctm import (
    CONVERSATION,
    Segment,
    assign_words,
    is_ignored,
    read_ctm,
    read_stm,
    sort_ctm_lines,
)
from lightscore.text.stm_ctm_names import check_ctm_conversations, check_ctm_names, check_stm_names

__all__ = ["SegmentCounts", "SegmentRow", "filter_ctm_lines", "hubscr", "hubscr_rows"]


class SegmentCounts(NamedTuple):
    """One scored reference segment: its sclite id, speaker, file, channel and counts."""

    utt_id: str
    speaker: str
    file: str
    channel: str
    sub: int
    dele: int
    ins: int
    ref_len: int


def filter_ctm_lines(
    lines: Iterable[str], glm: Glm, delete_hyphens: bool = True, upcase: bool = True, latin1: bool = False
) -> Iterator[str]:
    """csrfilt's ``-i ctm -t hyp`` on ctm lines: each word through the GLM, split words and alternations re-timed.

    Args:
        lines: ctm lines.
        glm: From `lightscore.text.glm.read_glm`.
        delete_hyphens: csrfilt's ``-dh`` (hubscr passes it).
        upcase, latin1: Not ``-s``, and ``-e`` (`lightscore.text.glm.csrfilt`).

    Yields:
        The filtered lines, as csrfilt writes them.

    >>> glm = read_glm(glm_path("en20030506"))
    >>> list(filter_ctm_lines(["f1 1 0.9 0.2 gonna"], glm))
    ['f1 1 0.900 0.100 GOING', 'f1 1 1.000 0.100 TO']
    """
    filtered: dict[str, str] = {}  # a conversation repeats its words: each is filtered once
    for line in lines:
        fields = line.split()
        if not fields or line.lstrip().startswith(";;") or len(fields) < 5 or fields[2] == "*":
            yield line.rstrip("\n")
            continue
        text = filtered.get(fields[4])
        if text is None:
            text = filtered[fields[4]] = csrfilt(fields[4], glm, "ctm", "hyp", upcase, delete_hyphens, latin1)
        words = text.replace("{", " { ").replace("}", " } ").split()
        if len(fields) == 5 and len(words) == 1:  # csrfilt prints a lone word without confidence untouched
            yield " ".join([*fields[:4], words[0]])
            continue
        conf = fields[5] if len(fields) > 5 else ""
        if not conf and words and NUMERIC.match(words[-1]):  # csrfilt's own test for a confidence field
            conf = words.pop()
        yield from _retimed(fields, " ".join(words), conf)


def _retimed(fields: list[str], data: str, conf: str) -> Iterator[str]:
    head, begin, duration = " ".join(fields[:2]), float(fields[2]), float(fields[3])
    sets = data.split("/")
    tail = f" {conf}" if conf else ""
    if len(sets) > 1:
        yield f"{head} * * <ALT_BEGIN>"
    for k, part in enumerate(sets):
        words = part.replace("{", " ").replace("}", " ").split()
        step = duration / len(words) if words else duration
        for i, word in enumerate(words):
            yield f"{head} {begin + step * i:.3f} {step:.3f} {word}{tail}"
        if len(sets) > 1 and k != len(sets) - 1:
            yield f"{head} * * <ALT>"
    if len(sets) > 1:
        yield f"{head} * * <ALT_END>"


class SegmentRow(NamedTuple):
    """One scored segment as text: its sclite id, speaker, file, channel, and both sides as sclite's network texts."""

    utt_id: str
    speaker: str
    file: str
    channel: str
    ref: str
    hyp: str


def _scored(
    stm: str | os.PathLike, ctm: str | os.PathLike, glm: str | os.PathLike | None, case: str | None, lang: Language
) -> tuple[list[tuple[str, Segment, list[int]]], list[Shape], Callable[[str], str]]:
    """The segments hubscr scores with their ctm items (numbers into the table of shapes), the table, and the
    case folding of the words."""
    rules = read_glm(glm_path(glm), lang.encoding) if glm is not None else None
    segments = read_stm(stm, lang.encoding)
    texts, found = [s.text for s in segments], None
    if rules is not None:
        scored = [k for k, text in enumerate(texts) if not is_ignored(text)]
        filtered = csrfilt_lines([texts[k] for k in scored], rules, "stm", "ref", lang.upcase, True, lang.latin1)
        for k, text in zip(scored, filtered):
            texts[k] = text
        found = filtered_items(ctm, Csrfilt(rules, lang.upcase, lang.latin1), lang.encoding)
    if found is None:
        if rules is not None:
            read_ctm(ctm, encoding=lang.encoding)  # the file's own mistakes, named at its own lines
            with open(ctm, encoding=lang.encoding) as f:
                filtered = filter_ctm_lines(sort_ctm_lines(f), rules, True, lang.upcase, lang.latin1)
                items = read_ctm(ctm, list(filtered), in_order=True)
        else:
            items = read_ctm(ctm, encoding=lang.encoding)
        table, ids = numbered({key: [words_of(item) for item in its] for key, its in items.items()})
        found = CtmShapes(table, ids, {key: [item.midpoint for item in its] for key, its in items.items()})
    case = case or lang.case
    fold = (lambda text: text) if case == "sensitive" else (lambda text: sclite_fold(text, case))
    references = _folded_keys(set(map(CONVERSATION, segments)), fold)
    check_stm_names(segments, references, stm)
    segments = _fold_names(segments, fold, texts)
    keys = _folded_keys(found.ids, fold)
    check_ctm_names(keys, ctm, lang.encoding)
    check_ctm_conversations(keys, references.values(), ctm, stm, lang.encoding)
    ids = {keys[key]: numbers for key, numbers in found.ids.items()}
    midpoints = {keys[key]: mids for key, mids in found.midpoints.items()}
    return assign_words(segments, ids, midpoints), found.shapes, fold  # type: ignore[arg-type]


def _fold_names(segments: list[Segment], fold: Callable[[str], str], texts: list[str]) -> list[Segment]:
    """The segments with their files, channels and speakers folded (sclite folds whole lines, ids too), and these
    texts (the filtered ones).

    >>> [s[:3] + s[6:7] for s in _fold_names([Segment("F1", "A", "S", 0, 1, "", "x", 1)], str.lower, ["Y"])]
    [('f1', 'a', 's', 'Y')]
    >>> [s[:3] for s in _fold_names([Segment("F\\0G", "A", "S", 0, 1, "", "x", 1)], str.lower, ["x"])]
    [('f\\x00g', 'a', 's')]
    """
    names = _fold_all(list(chain.from_iterable((s.file, s.channel, s.speaker) for s in segments)), fold)
    new = tuple.__new__  # not Segment's own __new__, a Python function
    return [
        new(Segment, (file, channel, speaker, s.begin, s.end, s.labels, text, s.line))
        for file, channel, speaker, s, text in zip(names[0::3], names[1::3], names[2::3], segments, texts)
    ]


def _folded_keys(keys: Iterable[tuple[str, str]], fold: Callable[[str], str]) -> dict[tuple[str, str], tuple[str, str]]:
    """Each ``(file, channel)`` of ``keys`` and its folded form, folded in one call.

    >>> _folded_keys([("F", "A"), ("g", "B")], str.lower)
    {('F', 'A'): ('f', 'a'), ('g', 'B'): ('g', 'b')}
    """
    keys = list(keys)
    names = _fold_all(list(chain.from_iterable(keys)), fold)
    return dict(zip(keys, zip(names[0::2], names[1::2])))


def _fold_all(texts: list[str], fold: Callable[[str], str]) -> list[str]:
    """``[fold(text) for text in texts]`` in one call (sclite's folding goes character by character).

    >>> _fold_all(["A", "B\\0C"], str.lower)
    ['a', 'b\\x00c']
    """
    folded = fold("\0".join(texts)).split("\0")
    return folded if len(folded) == len(texts) else [fold(text) for text in texts]  # a text holds a NUL


def hubscr_rows(
    stm: str | os.PathLike,
    ctm: str | os.PathLike,
    glm: str | os.PathLike | None = "en20030506",
    case: str | None = None,
    language: str = "english",
) -> list[SegmentRow]:
    """The segments ``hubscr`` scores, filtered and chopped: ``WER(markup=True, ...)`` on them gives its counts.

    The hypothesis text writes a ctm alternation as ``{ a b / c }``; both texts are case-folded
    as sclite folds them (``case``: a localization of `lightscore.text.sclite_case`, or ``sensitive``).

    Args:
        stm: The reference.
        ctm: The hypothesis.
        glm: A GLM by name (`lightscore.text.glm.GLMS`) or path, or None to filter nothing.
        case: ``generic`` (A-Z, sclite's default), another localization, or ``sensitive`` (``-s``);
            None: the language's.
        language: hubscr's ``-l`` (`lightscore.text.hubscr_languages`).

    Returns:
        One `SegmentRow` per scored segment, in sclite's order.

    Raises:
        lightscore.text.stm_ctm.StmCtmError: a malformed stm or ctm line.
        lightscore.text.glm.GlmError: an unknown GLM.
        ValueError: a language not scored here.
    """
    lang = hubscr_language(language)
    with _collector_paused():
        scored, shapes, fold = _scored(stm, ctm, glm, case, lang)
        return [
            SegmentRow(
                utt_id, seg.speaker, seg.file, seg.channel, fold(seg.text), fold(shape_text([shapes[k] for k in ids]))
            )
            for utt_id, seg, ids in scored
        ]


def hubscr(
    stm: str | os.PathLike,
    ctm: str | os.PathLike,
    glm: str | os.PathLike | None = "en20030506",
    case: str | None = None,
    optional_deletable: bool = True,
    fragments: bool = True,
    language: str = "english",
) -> list[SegmentCounts]:
    """Score a ctm hypothesis against an stm reference as ``hubscr -h hub5 -l <language>`` does.

    All segments are aligned together (`lightscore.text.sclite_markup.count_encoded`); a hypothesis goes from its
    ctm items straight to its network, without being written as text first.

    Args:
        stm: The reference.
        ctm: The hypothesis.
        glm: A GLM by name (`lightscore.text.glm.GLMS`) or path, or None to filter nothing.
        case: The localization of sclite's case folding (``generic``: A-Z), or ``sensitive`` (``-s``);
            None: the language's.
        optional_deletable: sclite's ``-D`` (hubscr passes it).
        fragments: sclite's ``-F`` (hubscr passes it).
        language: hubscr's ``-l``: english, spanish, italian or arabic (`lightscore.text.hubscr_languages`).

    Returns:
        One `SegmentCounts` per scored segment, in sclite's order.

    Raises:
        lightscore.text.stm_ctm.StmCtmError: a malformed stm or ctm line.
        lightscore.text.glm.GlmError: an unknown GLM.
        lightscore.text.sclite_markup.MarkupError: a transcript the markup cannot read.
        ValueError: a language not scored here.
    """
    lang = hubscr_language(language)
    with _collector_paused():  # the corpus is freed with _counts' locals, before the collector is back
        return _counts(*_scored(stm, ctm, glm, case, lang), Vocabulary(optional_deletable, fragments))


def _counts(
    scored: list[tuple[str, Segment, list[int]]],
    shapes: list[Shape],
    fold: Callable[[str], str],
    vocabulary: Vocabulary,
) -> list[SegmentCounts]:
    """Every scored segment's counts, all aligned at once."""
    refs = [encode(text, vocabulary) for text in _fold_all([seg.text for _, seg, _ in scored], fold)]
    entries = _all_indices(shapes, fold, vocabulary)
    pairs = list(zip(refs, [_hyp_network(ids, shapes, entries, fold, vocabulary) for _, _, ids in scored]))
    new = tuple.__new__  # not SegmentCounts' own __new__, a Python function
    return [
        new(SegmentCounts, (utt_id, seg.speaker, seg.file, seg.channel, *counts))
        for (utt_id, seg, _), counts in zip(scored, count_encoded(pairs, vocabulary))
    ]


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cycle collector off for the block, then as it was.

    Reading a corpus allocates hundreds of thousands of small tuples and lists, none in a
    cycle; the collector would walk them again and again (a tenth of the time) for nothing.

    >>> with _collector_paused():
    ...     gc.isenabled()
    False
    >>> gc.isenabled()
    True
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _hyp_network(
    ids: list[int], shapes: list[Shape], entries: list, fold: Callable[[str], str], vocabulary: Vocabulary
) -> Encoded:
    """``encode(fold(shape_text(...)))`` of the items ``ids`` number in ``shapes``, built from their vocabulary
    ``entries`` (`_all_indices`): an alternation's branches fork and join as written.

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


def _all_indices(shapes: list[Shape], fold: Callable[[str], str], vocabulary: Vocabulary) -> list:
    """Each shape's `_indices`: the one-word shapes (most) folded and looked up together.

    >>> v = Vocabulary(False, False)
    >>> _all_indices([(("A",),), (("b", "c"),), (("A",),)], str.lower, v), [w.text for w in v.words[1:]]
    ([1, (2, 3), 1], ['a', 'b', 'c'])
    >>> _all_indices([(("x{",),), (("b",),)], str.lower, v)  # markup in a word: each on its own
    [None, 2]
    """
    single = [shape for shape in shapes if len(shape) == 1 and len(shape[0]) == 1]
    words = [shape[0][0] for shape in single]
    if _MARKUP.search("".join(words)):
        single = []
    known: dict[Shape, object] = dict(zip(single, vocabulary.ids(_fold_all(words, fold)) if single else ()))
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
