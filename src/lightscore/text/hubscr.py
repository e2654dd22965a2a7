"""NIST's conversational scoring (``hubscr.pl -l english -h hub5``) in one call: stm + ctm + GLM -> sclite's counts.

What ``hubscr`` runs, step for step: ``csrfilt -i stm -t ref -dh <glm>`` on the
reference and ``csrfilt -i ctm -t hyp -dh <glm>`` on the hypothesis
(`lightscore.text.glm`; a ctm word the GLM turns into several, or into an
alternation, is split into equal parts of its time, printed ``%.3f`` as csrfilt
prints them), then ``sclite -r ref stm -h hyp ctm -F -D``: each segment gets its
words (`lightscore.text.stm_ctm.assign_words`) and the two networks are aligned
(`lightscore.text.sclite_markup`), case folded A-Z as sclite does.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from typing import NamedTuple

from lightscore.text.glm import Glm, csrfilt, glm_path, read_glm
from lightscore.text.sclite_case import sclite_fold
from lightscore.text.sclite_markup import markup_counts, parse_reference
from lightscore.text.stm_ctm import IGNORE, assign_words, hyp_text, read_ctm, read_stm

__all__ = ["SegmentCounts", "SegmentRow", "filter_ctm_lines", "hubscr", "hubscr_rows"]

_NUMERIC = re.compile(r"^[0-9.-]*$")


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


def filter_ctm_lines(lines: Iterable[str], glm: Glm, delete_hyphens: bool = True) -> Iterator[str]:
    """csrfilt's ``-i ctm -t hyp`` on ctm lines: each word through the GLM, split words and alternations re-timed.

    Args:
        lines: ctm lines.
        glm: From `lightscore.text.glm.read_glm`.
        delete_hyphens: csrfilt's ``-dh`` (hubscr passes it).

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
            text = filtered[fields[4]] = csrfilt(fields[4], glm, "ctm", "hyp", delete_hyphens=delete_hyphens)
        words = text.replace("{", " { ").replace("}", " } ").split()
        if len(fields) == 5 and len(words) == 1:  # csrfilt prints a lone word without confidence untouched
            yield " ".join([*fields[:4], words[0]])
            continue
        conf = fields[5] if len(fields) > 5 else ""
        if not conf and words and _NUMERIC.match(words[-1]):  # csrfilt's own test for a confidence field
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


def hubscr_rows(
    stm: str | os.PathLike, ctm: str | os.PathLike, glm: str | os.PathLike | None = "en20030506", case: str = "generic"
) -> list[SegmentRow]:
    """The segments ``hubscr`` scores, filtered and chopped: ``WER(markup=True, ...)`` on them gives its counts.

    The hypothesis text writes a ctm alternation as ``{ a b / c }``; both texts are case-folded
    as sclite folds them (``case``: a localization of `lightscore.text.sclite_case`, or ``sensitive``).

    Args:
        stm: The reference.
        ctm: The hypothesis.
        glm: A GLM by name (`lightscore.text.glm.GLMS`) or path, or None to filter nothing.
        case: ``generic`` (A-Z, sclite's default), another localization, or ``sensitive`` (``-s``).

    Returns:
        One `SegmentRow` per scored segment, in sclite's order.

    Raises:
        lightscore.text.stm_ctm.StmCtmError: a malformed stm or ctm line.
        lightscore.text.glm.GlmError: an unknown GLM.
    """
    rules = read_glm(glm_path(glm)) if glm is not None else None
    segments = read_stm(stm)
    if rules is not None:
        segments = [
            s if s.text.strip().upper() == IGNORE else s._replace(text=csrfilt(s.text, rules, "stm", "ref", True, True))
            for s in segments
        ]
        with open(ctm, encoding="utf-8") as f:
            words = read_ctm(ctm, list(filter_ctm_lines(f, rules)))
    else:
        words = read_ctm(ctm)
    fold = (lambda text: text) if case == "sensitive" else (lambda text: sclite_fold(text, case))
    # sclite folds whole lines: ids, files and channels too.
    segments = [s._replace(file=fold(s.file), channel=fold(s.channel), speaker=fold(s.speaker)) for s in segments]
    words = {(fold(f), fold(c)): items for (f, c), items in words.items()}
    return [
        SegmentRow(utt_id, seg.speaker, seg.file, seg.channel, fold(seg.text), fold(hyp_text(items)))
        for utt_id, seg, items in assign_words(segments, words)
    ]


def hubscr(
    stm: str | os.PathLike,
    ctm: str | os.PathLike,
    glm: str | os.PathLike | None = "en20030506",
    case: str = "generic",
    optional_deletable: bool = True,
    fragments: bool = True,
) -> list[SegmentCounts]:
    """Score a ctm hypothesis against an stm reference as ``hubscr`` (English, hub5) does.

    Args:
        stm: The reference.
        ctm: The hypothesis.
        glm: A GLM by name (`lightscore.text.glm.GLMS`) or path, or None to filter nothing.
        case: The localization of sclite's case folding (``generic``: A-Z), or ``sensitive`` (``-s``).
        optional_deletable: sclite's ``-D`` (hubscr passes it).
        fragments: sclite's ``-F`` (hubscr passes it).

    Returns:
        One `SegmentCounts` per scored segment, in sclite's order.

    Raises:
        lightscore.text.stm_ctm.StmCtmError: a malformed stm or ctm line.
        lightscore.text.glm.GlmError: an unknown GLM.
        lightscore.text.sclite_markup.MarkupError: a transcript the markup cannot read.
    """
    found = []
    for row in hubscr_rows(stm, ctm, glm, case):
        counts = markup_counts(
            parse_reference(row.ref, optional_deletable, fragments),
            parse_reference(row.hyp, optional_deletable, fragments),
        )
        found.append(SegmentCounts(row.utt_id, row.speaker, row.file, row.channel, *counts))
    return found
