"""rfilter1's cursor (SCTK ``GLMRules.txt``): a GLM's rules applied to a text, stopping only where one may match.

rfilter1 moves a cursor through the text and at each character applies the
first rule, in file order, whose source starts there with its left context just
before it and its right context just after it in the input; it writes the
target and skips the source, or else copies the character (``copy_no_hit``) or
drops it. `rewrite` gives the same text while visiting far fewer places: the
rules are indexed by their source's first characters, each distinct word of the
text learns once which rules could match in it (`_Rules`), and the cursor stops
only at the words some rule may match in. The parsed GLM (`Glm`, `GlmRule`) lives
here; `lightscore.text.hubscr.glm` reads GLM files and runs csrfilt's pipeline around this.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import accumulate, compress
from operator import itemgetter
from typing import NamedTuple

__all__ = ["Glm", "GlmRule", "rewrite"]

_UPPER = {code: code - 32 for code in range(ord("a"), ord("z") + 1)}  # A-Z only, as csrfilt's tr


class GlmRule(NamedTuple):
    """One rule: ``source => target / left __ right``, and the regex its input-dependent section needs."""

    source: str
    target: str
    left: str
    right: str
    applies_to: str | None
    line: int


@dataclass
class Glm:
    """A parsed GLM: its rules in file order and its header switches.

    Its rules are indexed per input type and purpose when first used (`_indexed`), and the index
    lives and dies with the GLM: rules changed after that are not seen.
    """

    path: str
    rules: list[GlmRule] = field(default_factory=list)
    copy_no_hit: bool = True
    case_sensitive: bool = False
    name: str = ""
    indexes: dict[tuple[str, str], _Rules] = field(default_factory=dict, repr=False, compare=False)


def _index(glm: Glm, input_type: str, purpose: str) -> tuple[dict[str, list[GlmRule]], bool]:
    """The rules that apply, indexed by their source's first two characters (one for a one-character source)."""
    fold = not glm.case_sensitive
    sections = {regex: _applies(regex, input_type, purpose) for regex in {r.applies_to for r in glm.rules}}
    kept = [r for r in glm.rules if r.source and sections[r.applies_to]]
    fields = [field for r in kept for field in (r.source, r.left, r.right)]
    folded = _fold("\n".join(fields), fold).split("\n") if fold else fields  # one translate for thousands of fields
    if len(folded) != len(fields):  # a field holding a line break (none read from a file does)
        folded = [_fold(field, fold) for field in fields]
    new, parts = tuple.__new__, iter(folded)  # a NamedTuple's _replace is Python code; a GLM has over a thousand rules
    rules = [
        new(type(r), (source, r.target, left, right, *r[4:])) for r, source, left, right in zip(kept, *[parts] * 3)
    ]
    by_key: dict[str, list[tuple[int, GlmRule]]] = {}
    for order, rule in enumerate(rules):
        by_key.setdefault(rule.source[:2], []).append((order, rule))
    # A two-character key also offers the one-character rules of its first character, in file order.
    singles = {key: entries for key, entries in by_key.items() if len(key) == 1}
    index = {key: [r for _, r in sorted(entries + singles.get(key[0], []))] for key, entries in by_key.items()}
    return index, fold


def _applies(regex: str | None, input_type: str, purpose: str) -> bool:
    """csrfilt's test of an input-dependent section: its regex found in the input type or the purpose."""
    return regex is None or bool(re.search(regex, input_type)) or bool(re.search(regex, purpose))


def _fold(text: str, fold: bool) -> str:
    return text.translate(_UPPER) if fold else text


def rewrite(text: str, glm: Glm, input_type: str = "trn", purpose: str = "") -> str:
    """``rfilter1``: apply ``glm``'s rules to ``text`` with the cursor algorithm of SCTK's ``GLMRules.txt``.

    Plain twin: `lightscore.text.hubscr.reference.rfilter1`.

    Args:
        text: The text, as csrfilt hands it over (already padded with spaces).
        glm: From `lightscore.text.hubscr.glm.read_glm`.
        input_type: ``trn``, ``stm``, ``ctm``... (for input-dependent sections).
        purpose: ``ref`` or ``hyp`` (csrfilt's ``-t``), or "".

    Returns:
        The rewritten text.

    >>> from lightscore.text.hubscr.glm import glm_path, read_glm
    >>> rewrite(" UH HUH GONNA ", read_glm(glm_path("en20030506")))
    ' %HESITATION %HESITATION GOING TO '
    """
    rules = _indexed(glm, input_type.lower(), purpose.lower())
    segments = text.split(" ")
    if rules.at_space or not glm.copy_no_hit:  # the cursor stops at every word (and every space)
        return _Walk(text, segments, segments, rules, glm.copy_no_hit).run(range(len(segments)))
    written, marked = rules.written(segments)
    stops = _stops(segments, written, marked)
    return _Walk(text, segments, written, rules, True).run(stops) if stops else " ".join(written)


def _stops(segments: list[str], written: Sequence[str], marked: bool) -> list[int]:
    """The segments the cursor must visit, in order: the first (no space before it) and the last (none after it)
    unless empty, and those `_Rules.written` marks ``_COMPLEX`` (when ``marked``)."""
    stops = [0] if segments[0] else []
    number = -1
    while marked:
        try:
            number = written.index(_COMPLEX, number + 1)
        except ValueError:
            break
        stops.append(number)
    return [*stops, len(segments) - 1] if segments[-1] else stops


class _Walk:
    """rfilter1's cursor over the segments it must stop at; between them whole words go out as written."""

    def __init__(self, text: str, segments: list[str], written: Sequence[str], rules: _Rules, copy: bool) -> None:
        self.text, self.segments, self.written, self.rules, self.copy = text, segments, written, rules, copy
        self.probe = _fold(text, rules.fold)
        self.out: list[str] = []
        self.cursor = 0  # the text before it is written or skipped

    def run(self, stops: Iterable[int]) -> str:
        """The rewritten text, the cursor visiting the segments numbered ``stops`` (ascending)."""
        text, segments, written, last = self.text, self.segments, self.written, len(self.segments) - 1
        done = start = 0  # the segments before ``done`` are written or visited; segment ``done`` starts at ``start``
        for number in stops:
            if number < done:  # visited already, where a rule's source ended inside it
                continue
            position = start
            if number > done:  # only with copy_no_hit: every segment is a stop otherwise
                position += sum(map(len, segments[done:number])) + number - done
                self.out += (text[self.cursor : start], " ".join(written[done:number]), " ")
                self.cursor = position
            self.visit(number, position)
            done, start = number + 1, position + len(segments[number]) + 1
            while done <= last and self.cursor > start:  # a source reached into the next segments
                end = start + len(segments[done])
                if self.cursor <= end:  # and ended in this one: the rest of it is the cursor's
                    self.visit(done, start)
                done, start = done + 1, end + 1
        if self.copy:
            self.out += (text[self.cursor : start], " ".join(written[done:]))  # past the end when all are done
        return "".join(self.out)

    def visit(self, number: int, position: int) -> None:
        """Apply the rules that may match in segment ``number`` (at ``position``), and at the space after it."""
        rules, probe = self.rules, self.probe
        end = position + len(self.segments[number])
        word, followed = probe[position:end], number < len(self.segments) - 1
        found = rules.words[followed].get(word) or rules.candidates(word, followed)
        if found is not _NOTHING:
            starts, inside = found
            self.fire(position, starts if number else inside[0][1])  # every segment but the first follows a space
            for offset, possible in inside[1:]:
                self.fire(position + offset, possible)
        if followed and rules.at_space:  # a rule whose source begins with a space
            index = rules.index if end and probe[end - 1] == " " else rules.anywhere
            self.fire(end, index.get(probe[end : end + 2], index.get(" ", ())))

    def fire(self, at: int, possible: list[GlmRule] | tuple) -> None:
        """Apply the first of ``possible`` that matches at ``at``, unless the cursor is past it."""
        if at >= self.cursor:
            rule = _first(self.probe, at, possible)
            if rule is not None:
                self.out += (self.text[self.cursor : at], rule.target) if self.copy else (rule.target,)
                self.cursor = at + len(rule.source)


def _first(probe: str, at: int, rules: list[GlmRule] | tuple) -> GlmRule | None:
    """The first of ``rules`` whose source starts at ``at`` with its left and right contexts around it."""
    for rule in rules:
        if (
            probe.startswith(rule.source, at)
            and (not rule.left or (at >= len(rule.left) and probe.startswith(rule.left, at - len(rule.left))))
            and (not rule.right or probe.startswith(rule.right, at + len(rule.source)))
        ):
            return rule
    return None


class _Rules:
    """The rules that apply to one input type and purpose, and per distinct word the few that could match in it.

    rfilter1's cursor tries every rule at every character. A rule matches only where the text starts with its
    source, or past the word's end its source with the text (where three characters begin a source, ``heads``,
    or a source of one or two stands, ``short``), and after a space if its left context ends with one.
    """

    def __init__(self, glm: Glm, input_type: str, purpose: str) -> None:
        self.index, self.fold = _index(glm, input_type, purpose)
        anywhere = {key: [r for r in rules if not r.left.endswith(" ")] for key, rules in self.index.items()}
        self.anywhere = {key: rules for key, rules in anywhere.items() if rules}
        self.at_space = any(key[:1] == " " for key in self.index)
        sources = {r.source for rules in self.index.values() for r in rules}
        self.heads = {source[:n] for source in sources for n in (1, 2, 3)}
        self.short = {source for source in sources if len(source) <= 2}
        self.inside = _inside_pattern({r.source for rules in self.anywhere.values() for r in rules})
        self.words: tuple[dict[str, tuple], dict[str, tuple]] = ({}, {})  # per word: not followed, followed
        self.known: dict[str, str] = {}  # per word met, `_written`
        self.complex: set[str] = set()  # the words `_written` leaves to the cursor

    def written(self, segments: list[str]) -> tuple[Sequence[str], bool]:
        """Per segment what the cursor writes for it between two spaces (less the second; `_written`), and whether
        any is ``_COMPLEX``."""
        distinct = set(segments)
        new = distinct.difference(self.known)
        if new:
            self._learn(list(new))
        # itemgetter looks every segment up from C, without map's call per segment (one segment: no tuple)
        written = itemgetter(*segments)(self.known) if len(segments) > 1 else (self.known[segments[0]],)
        return written, not self.complex.isdisjoint(distinct)

    def _learn(self, words: list[str]) -> None:
        probes = _fold(" ".join(words), self.fold).split(" ")  # words hold no space
        self.known.update(zip(words, words))
        for word, probe in compress(zip(words, probes), map(self._maybe(probes).__contains__, probes)):
            self.known[word] = written = self._written(word, probe)
            if written is _COMPLEX:
                self.complex.add(word)

    def _written(self, word: str, probe: str) -> str:
        """What the cursor writes for ``word`` (folded: ``probe``) between two spaces, less the second, or
        ``_COMPLEX`` when the text around decides (a source, or a context, reaching past the spaces)."""
        found = self.candidates(probe, True)
        if found is _NOTHING:
            return word
        (starts, inside), rest, out, cursor = found, probe + " ", [], 0
        for at, possible in ((0, starts), *inside[1:]):
            for rule in possible if at >= cursor else ():
                fires = _decides(rule, rest, at)
                if fires is None:
                    return _COMPLEX
                if fires:
                    out += (word[cursor:at], rule.target)
                    cursor = at + len(rule.source)
                    break
        written = "".join(out) + (word + " ")[cursor:]
        return written[:-1] if written[-1:] == " " else _COMPLEX

    def _maybe(self, words: list[str]) -> set[str]:
        """The followed ``words`` some rule may match in (`_find` decides), found for all at once: the ones a
        rule's source may start at, and those ``inside`` finds a source's beginning in after their first character.
        """
        heads, short = self.heads, self.short
        found = {word for word in words if (rest := word + " ")[:3] in heads or rest[:2] in short or rest[:1] in short}
        joined = " ".join(words) + " "  # each word followed by a space, as a followed word's rest is
        ends = [match.end() for match in self.inside.finditer(joined)]
        if ends:
            starts = list(accumulate([len(word) + 1 for word in words], initial=0))
            found.update(words[bisect_right(starts, end) - 1] for end in ends)
        return found

    def candidates(self, word: str, followed: bool) -> tuple[list[GlmRule], list[tuple[int, list[GlmRule]]]]:
        """Rules that may match at ``word``'s start after a space, and ``(offset, rules)`` for every offset where
        some may, offset 0's first (the rules there that need no space before them), worked out once per word."""
        known = self.words[followed]
        found = known.get(word)
        if found is None:
            found = known[word] = self._find(word, followed)
        return found

    def _find(self, word: str, followed: bool) -> tuple[list[GlmRule], list[tuple[int, list[GlmRule]]]]:
        rest, heads, short = word + (" " if followed else ""), self.heads, self.short
        offsets = [
            k for k in range(len(word)) if rest[k : k + 3] in heads or rest[k : k + 2] in short or rest[k] in short
        ]
        at_start = offsets[:1] == [0]
        starts = _possible(self.index, rest, followed) if at_start else []
        first = _possible(self.anywhere, rest, followed) if at_start else []
        inside = [(k, rules) for k in offsets if k and (rules := _possible(self.anywhere, rest[k:], followed))]
        return (starts, [(0, first), *inside]) if starts or first or inside else _NOTHING


_NOTHING: tuple = ([], [(0, [])])  # a word no rule can match in
_COMPLEX = "\x00"  # `_Rules.written` of a word the cursor must visit (any segment may be visited: the same text)


def _decides(rule: GlmRule, rest: str, at: int) -> bool | None:
    """Whether ``rule`` matches at ``at`` in ``rest`` (a word and its space, after a space), or None when the text
    beyond decides."""
    source = _agrees(rest[at:], rule.source)
    right = _agrees(rest[at + len(rule.source) :], rule.right) if source else source
    found = (source, _agrees((" " + rest[:at])[::-1], rule.left[::-1]), right)  # the left context read backwards
    return False if False in found else None if None in found else True


def _agrees(known: str, wanted: str) -> bool | None:
    """Whether a text that begins with ``known`` begins with ``wanted``; None when what follows ``known`` decides.

    >>> _agrees("AB ", "AB"), _agrees("AB ", "AC"), _agrees("AB ", "AB CD"), _agrees("AB ", "AB_")
    (True, False, None, False)
    """
    if len(wanted) <= len(known):
        return known.startswith(wanted)
    return None if wanted.startswith(known) else False


def _inside_pattern(sources: set[str]) -> re.Pattern:
    """A regex whose matches end where one of ``sources`` may begin inside a word (after a non-space).

    A source agrees with a followed word's rest from offset k when the rest starts with it or it
    starts with the rest (the word's end and its space): either way the text there begins with the
    source's first three characters, or with all of a shorter source, or the rest is two
    characters, the second a space. Grouped by first character: the regex engine tries every
    branch of an alternation in turn.

    >>> [m.end() for m in _inside_pattern({"ALLRIGHT", "T. ", "OK"}).finditer("XALL XT. ZOK OK ")]
    [1, 6, 10]
    """
    heads = {s[:3] for s in sources} | {s[:2] for s in sources if s[1:2] == " "}
    by_first: dict[str, set[str]] = {}
    for head in heads:
        by_first.setdefault(head[0], set()).add(head[1:])
    branches = [
        re.escape(first) + "(?:" + "|".join(map(re.escape, sorted(rests, key=len, reverse=True))) + ")"
        for first, rests in sorted(by_first.items())
    ]
    return re.compile("[^ ](?=" + "|".join(branches) + ")") if branches else re.compile("(?!)")


def _possible(index: dict[str, list[GlmRule]], rest: str, followed: bool) -> list[GlmRule]:
    """The rules of ``index`` whose source agrees with ``rest`` (a word's end, and its space when ``followed``)."""
    rules = index.get(rest[:2], index.get(rest[:1], ()))
    return [r for r in rules if rest.startswith(r.source) or (followed and r.source.startswith(rest))]


def _indexed(glm: Glm, input_type: str, purpose: str) -> _Rules:
    """The GLM's `_Rules` for this input type and purpose, made once and kept on the GLM itself (a table keyed
    by ``id(glm)`` handed a freed GLM's rules to a new one that got its address)."""
    rules = glm.indexes.get((input_type, purpose))
    if rules is None:
        rules = glm.indexes[input_type, purpose] = _Rules(glm, input_type, purpose)
    return rules
