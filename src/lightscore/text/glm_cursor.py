"""rfilter1's cursor (SCTK ``GLMRules.txt``): a GLM's rules applied to a text, stopping only where one may match.

rfilter1 moves a cursor through the text and at each character applies the
first rule, in file order, whose source starts there with its left context just
before it and its right context just after it in the input; it writes the
target and skips the source, or else copies the character (``copy_no_hit``) or
drops it. `rewrite` gives the same text while visiting far fewer places: the
rules are indexed by their source's first characters, each distinct word of the
text learns once which rules could match in it (`_Rules`), and the cursor stops
only at the words some rule may match in. The parsed GLM (`Glm`, `GlmRule`) lives
here; `lightscore.text.glm` reads GLM files and runs csrfilt's pipeline around this.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import accumulate, chain, compress
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
    """A parsed GLM: its rules in file order and its header switches."""

    path: str
    rules: list[GlmRule] = field(default_factory=list)
    copy_no_hit: bool = True
    case_sensitive: bool = False
    name: str = ""


def _index(glm: Glm, input_type: str, purpose: str) -> tuple[dict[str, list[GlmRule]], bool]:
    """The rules that apply, indexed by their source's first two characters (one for a one-character source)."""
    fold = not glm.case_sensitive
    sections = {regex: _applies(regex, input_type, purpose) for regex in {r.applies_to for r in glm.rules}}
    new = tuple.__new__  # a NamedTuple's _replace is Python code; a GLM has over a thousand rules
    rules = [
        new(type(r), (_fold(r.source, fold), r.target, _fold(r.left, fold), _fold(r.right, fold), *r[4:]))
        for r in glm.rules
        if r.source and sections[r.applies_to]
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

    Args:
        text: The text, as csrfilt hands it over (already padded with spaces).
        glm: From `lightscore.text.glm.read_glm`.
        input_type: ``trn``, ``stm``, ``ctm``... (for input-dependent sections).
        purpose: ``ref`` or ``hyp`` (csrfilt's ``-t``), or "".

    Returns:
        The rewritten text.

    >>> from lightscore.text.glm import glm_path, read_glm
    >>> rewrite(" UH HUH GONNA ", read_glm(glm_path("en20030506")))
    ' %HESITATION %HESITATION GOING TO '
    """
    rules = _indexed(glm, input_type.lower(), purpose.lower())
    probe = _fold(text, rules.fold)
    out, cursor = [], 0
    segments = probe.split(" ")
    last = len(segments) - 1
    known = rules.words
    for number, position in rules.visits(segments):
        word, followed = segments[number], number < last
        found = known[followed].get(word) or rules.candidates(word, followed)
        if found is not _NOTHING:
            starts, inside = found
            if position >= cursor:
                rule = _first(probe, position, starts if position and probe[position - 1] == " " else inside[0][1])
                if rule is not None:
                    out += (text[cursor:position], rule.target) if glm.copy_no_hit else (rule.target,)
                    cursor = position + len(rule.source)
            for offset, possible in inside[1:]:
                at = position + offset
                if at >= cursor:
                    rule = _first(probe, at, possible)
                    if rule is not None:
                        out += (text[cursor:at], rule.target) if glm.copy_no_hit else (rule.target,)
                        cursor = at + len(rule.source)
        position += len(word)
        if followed and rules.at_space and position >= cursor:  # a rule whose source begins with a space
            index = rules.index if position and probe[position - 1] == " " else rules.anywhere
            rule = _first(probe, position, index.get(probe[position : position + 2], index.get(" ", ())))
            if rule is not None:
                out += (text[cursor:position], rule.target) if glm.copy_no_hit else (rule.target,)
                cursor = position + len(rule.source)
    if glm.copy_no_hit:
        out.append(text[cursor:])
    return "".join(out)


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
        self.hits: set[str] = set()  # the followed words some rule may match in

    def visits(self, segments: list[str]) -> Iterator[tuple[int, int]]:
        """``(number, position)`` of the segments the cursor must stop at: those some rule may match in, and the
        last (which no space follows), or every one when a rule's source begins with a space."""
        if self.at_space:
            numbers: Iterable[int] = range(len(segments))
        else:
            new = set(segments)
            new.difference_update(self.words[True])
            for word in self._maybe(list(new)):
                self.candidates(word, True)
            self.words[True].update(dict.fromkeys(new.difference(self.words[True]), _NOTHING))
            numbers = chain(
                compress(range(len(segments) - 1), map(self.hits.__contains__, segments)), (len(segments) - 1,)
            )
        done = position = 0  # the segments before ``done`` start before ``position``
        for number in numbers:
            position += sum(map(len, segments[done:number])) + number - done
            done = number
            yield number, position

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
            if followed and found is not _NOTHING:
                self.hits.add(word)
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


_indexes: dict[tuple[int, str, str], _Rules] = {}


def _indexed(glm: Glm, input_type: str, purpose: str) -> _Rules:
    key = (id(glm), input_type, purpose)
    if key not in _indexes:
        _indexes[key] = _Rules(glm, input_type, purpose)
    return _indexes[key]
