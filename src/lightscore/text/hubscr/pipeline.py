"""NIST's conversational scoring (``hubscr.pl -l english -h hub5``) in one call: stm + ctm + GLM -> sclite's counts.

What ``hubscr`` runs, step for step: ``csrfilt -i stm -t ref -dh <glm>`` on the
reference and ``csrfilt -i ctm -t hyp -dh <glm>`` on the hypothesis
(`lightscore.text.hubscr.glm`; a ctm word the GLM turns into several, or into an
alternation, is split into equal parts of its time, printed ``%.3f`` as csrfilt
prints them), then ``sclite -r ref stm -h hyp ctm -F -D``: each segment gets its
words (`lightscore.text.hubscr.stm_ctm.assign_words`) and the two networks are aligned
(`lightscore.text.sclite.markup`), case folded A-Z as sclite does.

`hubscr` takes the short way to the same counts: the ctm goes through the GLM
word by word straight into its items' words and midpoints
(`lightscore.text.hubscr.ctm_words`, no lines printed and read back), a hypothesis
becomes its network without being written as text, and every segment is aligned
at once (`lightscore.text.sclite.batch`). `hubscr_rows` gives the segments as text.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from itertools import chain
from typing import NamedTuple

from lightscore.text.hubscr.ctm_networks import fold_all, hyp_networks
from lightscore.text.hubscr.ctm_words import (
    NUMERIC,
    Csrfilt,
    CtmShapes,
    Shape,
    filtered_items,
    numbered,
    shape_text,
    words_of,
)
from lightscore.text.hubscr.glm import Glm, csrfilt, csrfilt_lines, glm_path, read_glm
from lightscore.text.hubscr.languages import language as hubscr_language
from lightscore.text.hubscr.names import check_ctm_conversations, check_ctm_names, check_stm_names
from lightscore.text.hubscr.stm_ctm import (
    CONVERSATION,
    StmSegment,
    assign_words,
    is_ignored,
    read_ctm_items,
    read_stm_segments,
    sort_ctm_lines,
)
from lightscore.text.sclite.case import sclite_fold
from lightscore.text.sclite.encode import Encoded, Vocabulary, encode
from lightscore.text.sclite.markup import count_encoded

__all__ = ["HubscrReference", "SegmentCounts", "SegmentRow", "filter_ctm_lines", "hubscr", "hubscr_rows"]


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
        glm: From `lightscore.text.hubscr.glm.read_glm`.
        delete_hyphens: csrfilt's ``-dh`` (hubscr passes it).
        upcase, latin1: Not ``-s``, and ``-e`` (`lightscore.text.hubscr.glm.csrfilt`).

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


class HubscrReference:
    """An stm reference read, GLM-filtered and case-folded once, to score any number of ctm hypotheses against.

    Kaldi's recipes run ``hubscr`` once per LM weight and insertion penalty, on the same
    reference; here the reference, the GLM and its words' networks are made once.
    `hubscr` is ``HubscrReference(stm, ...).score(ctm)``.

    Args:
        stm: The reference.
        glm: A GLM by name (`lightscore.text.hubscr.glm.GLMS`) or path, or None to filter nothing.
        case: The localization of sclite's case folding (``generic``: A-Z), or ``sensitive`` (``-s``);
            None: the language's.
        optional_deletable: sclite's ``-D`` (hubscr passes it).
        fragments: sclite's ``-F`` (hubscr passes it).
        language: hubscr's ``-l``: english, spanish, italian or arabic (`lightscore.text.hubscr.languages`).

    Raises:
        lightscore.text.hubscr.stm_ctm.StmCtmError: a malformed stm line.
        lightscore.text.hubscr.glm.GlmError: an unknown GLM.
        ValueError: a language not scored here.

    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "ref.stm").write_text("f A s1 0 2 we gonna go\\n")
    >>> _ = (folder / "a.ctm").write_text("f A 0.1 0.2 we\\nf A 0.5 0.2 gonna\\nf A 1.0 0.2 go\\n")
    >>> _ = (folder / "b.ctm").write_text("f A 0.1 0.2 we\\nf A 0.5 0.2 going\\n")
    >>> reference = HubscrReference(folder / "ref.stm")
    >>> [[c[4:] for c in reference.score(folder / name)] for name in ("a.ctm", "b.ctm")]
    [[(0, 0, 0, 4)], [(0, 2, 0, 4)]]
    """

    def __init__(
        self,
        stm: str | os.PathLike,
        glm: str | os.PathLike | None = "en20030506",
        case: str | None = None,
        optional_deletable: bool = True,
        fragments: bool = True,
        language: str = "english",
    ) -> None:
        self.stm = stm
        self._lang = lang = hubscr_language(language)
        with _collector_paused():
            self._rules = read_glm(glm_path(glm), lang.encoding) if glm is not None else None
            segments = read_stm_segments(stm, lang.encoding)
            texts = [s.text for s in segments]
            if self._rules is not None:
                scored = [k for k, text in enumerate(texts) if not is_ignored(text)]
                upcase, latin1 = lang.upcase, lang.latin1
                filtered = csrfilt_lines([texts[k] for k in scored], self._rules, "stm", "ref", upcase, True, latin1)
                for k, text in zip(scored, filtered):
                    texts[k] = text
            case = case or lang.case
            self._fold = (lambda text: text) if case == "sensitive" else (lambda text: sclite_fold(text, case))
            references = _folded_keys(set(map(CONVERSATION, segments)), self._fold)
            check_stm_names(segments, references, stm)
            self._conversations = list(references.values())
            self._segments = _fold_names(segments, self._fold, texts)
        self._vocabulary = Vocabulary(optional_deletable, fragments)
        # The scored segments' networks, made at the first score: which segments are scored, and in what order,
        # the stm alone decides (`assign_words`), so every ctm's segments line up with them.
        self._refs: list[Encoded] | None = None

    def score(self, ctm: str | os.PathLike) -> list[SegmentCounts]:
        """Score ``ctm`` as ``hubscr`` does: one `SegmentCounts` per scored segment, in sclite's order.

        Raises:
            lightscore.text.hubscr.stm_ctm.StmCtmError: a malformed ctm line, or a conversation the stm has not.
            lightscore.text.sclite.markup.MarkupError: a transcript the markup cannot read.
        """
        vocabulary, fold = self._vocabulary, self._fold
        with _collector_paused():  # the corpus is freed with these locals, before the collector is back
            scored, shapes = self._assigned(ctm)
            if self._refs is None:
                self._refs = [encode(text, vocabulary) for text in fold_all([seg.text for _, seg, _ in scored], fold)]
            hyps = hyp_networks([ids for _, _, ids in scored], shapes, fold, vocabulary)
            new = tuple.__new__  # not SegmentCounts' own __new__, a Python function
            return [
                new(SegmentCounts, (utt_id, seg.speaker, seg.file, seg.channel, *counts))
                for (utt_id, seg, _), counts in zip(scored, count_encoded(list(zip(self._refs, hyps)), vocabulary))
            ]

    def rows(self, ctm: str | os.PathLike) -> list[SegmentRow]:
        """The segments ``score`` aligns, as text (`hubscr_rows`)."""
        fold = self._fold
        with _collector_paused():
            scored, shapes = self._assigned(ctm)
            return [
                SegmentRow(
                    utt_id,
                    seg.speaker,
                    seg.file,
                    seg.channel,
                    fold(seg.text),
                    fold(shape_text([shapes[k] for k in ids])),
                )
                for utt_id, seg, ids in scored
            ]

    def _assigned(self, ctm: str | os.PathLike) -> tuple[list[tuple[str, StmSegment, list[int]]], list[Shape]]:
        """The scored segments with their ctm items (numbers into the table of shapes), and the table."""
        lang, rules, found = self._lang, self._rules, None
        if rules is not None:
            found = filtered_items(ctm, Csrfilt(rules, lang.upcase, lang.latin1), lang.encoding)
        if found is None:
            if rules is not None:
                read_ctm_items(ctm, encoding=lang.encoding)  # the file's own mistakes, named at its own lines
                with open(ctm, encoding=lang.encoding) as f:
                    filtered = filter_ctm_lines(sort_ctm_lines(f), rules, True, lang.upcase, lang.latin1)
                    items = read_ctm_items(ctm, list(filtered), in_order=True)
            else:
                items = read_ctm_items(ctm, encoding=lang.encoding)
            table, ids = numbered({key: [words_of(item) for item in its] for key, its in items.items()})
            found = CtmShapes(table, ids, {key: [item.midpoint for item in its] for key, its in items.items()})
        keys = _folded_keys(found.ids, self._fold)
        check_ctm_names(keys, ctm, lang.encoding)
        check_ctm_conversations(keys, self._conversations, ctm, self.stm, lang.encoding)
        ids = {keys[key]: numbers for key, numbers in found.ids.items()}
        midpoints = {keys[key]: mids for key, mids in found.midpoints.items()}
        return assign_words(self._segments, ids, midpoints), found.shapes  # type: ignore[arg-type]


def _fold_names(segments: list[StmSegment], fold: Callable[[str], str], texts: list[str]) -> list[StmSegment]:
    """The segments with their files, channels and speakers folded (sclite folds whole lines, ids too), and these
    texts (the filtered ones).

    >>> [s[:3] + s[6:7] for s in _fold_names([StmSegment("F1", "A", "S", 0, 1, "", "x", 1)], str.lower, ["Y"])]
    [('f1', 'a', 's', 'Y')]
    >>> [s[:3] for s in _fold_names([StmSegment("F\\0G", "A", "S", 0, 1, "", "x", 1)], str.lower, ["x"])]
    [('f\\x00g', 'a', 's')]
    """
    names = fold_all(list(chain.from_iterable((s.file, s.channel, s.speaker) for s in segments)), fold)
    new = tuple.__new__  # not StmSegment's own __new__, a Python function
    return [
        new(StmSegment, (file, channel, speaker, s.begin, s.end, s.labels, text, s.line))
        for file, channel, speaker, s, text in zip(names[0::3], names[1::3], names[2::3], segments, texts)
    ]


def _folded_keys(keys: Iterable[tuple[str, str]], fold: Callable[[str], str]) -> dict[tuple[str, str], tuple[str, str]]:
    """Each ``(file, channel)`` of ``keys`` and its folded form, folded in one call.

    >>> _folded_keys([("F", "A"), ("g", "B")], str.lower)
    {('F', 'A'): ('f', 'a'), ('g', 'B'): ('g', 'b')}
    """
    keys = list(keys)
    names = fold_all(list(chain.from_iterable(keys)), fold)
    return dict(zip(keys, zip(names[0::2], names[1::2])))


def hubscr_rows(
    stm: str | os.PathLike,
    ctm: str | os.PathLike,
    glm: str | os.PathLike | None = "en20030506",
    case: str | None = None,
    language: str = "english",
) -> list[SegmentRow]:
    """The segments ``hubscr`` scores, filtered and chopped: ``WER(markup=True, ...)`` on them gives its counts.

    The hypothesis text writes a ctm alternation as ``{ a b / c }``; both texts are case-folded
    as sclite folds them (``case``: a localization of `lightscore.text.sclite.case`, or ``sensitive``).

    Args:
        stm: The reference.
        ctm: The hypothesis.
        glm: A GLM by name (`lightscore.text.hubscr.glm.GLMS`) or path, or None to filter nothing.
        case: ``generic`` (A-Z, sclite's default), another localization, or ``sensitive`` (``-s``);
            None: the language's.
        language: hubscr's ``-l`` (`lightscore.text.hubscr.languages`).

    Returns:
        One `SegmentRow` per scored segment, in sclite's order.

    Raises:
        lightscore.text.hubscr.stm_ctm.StmCtmError: a malformed stm or ctm line.
        lightscore.text.hubscr.glm.GlmError: an unknown GLM.
        ValueError: a language not scored here.
    """
    return HubscrReference(stm, glm, case, language=language).rows(ctm)


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

    All segments are aligned together (`lightscore.text.sclite.markup.count_encoded`); a hypothesis goes from its
    ctm items straight to its network, without being written as text first.

    Args:
        stm: The reference.
        ctm: The hypothesis.
        glm, case, optional_deletable, fragments, language: As `HubscrReference` takes them (hubscr passes
            ``-D`` and ``-F``; ``language`` is its ``-l``). Several ctm files against one stm: use it.

    Returns:
        One `SegmentCounts` per scored segment, in sclite's order.

    Raises:
        lightscore.text.hubscr.stm_ctm.StmCtmError: a malformed stm or ctm line.
        lightscore.text.hubscr.glm.GlmError: an unknown GLM.
        lightscore.text.sclite.markup.MarkupError: a transcript the markup cannot read.
        ValueError: a language not scored here.
    """
    return HubscrReference(stm, glm, case, optional_deletable, fragments, language).score(ctm)


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
