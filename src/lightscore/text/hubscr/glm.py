"""NIST GLM filtering with ``csrfilt``'s semantics: string-rewriting rules applied to both sides before scoring.

A GLM (global mapping file, SCTK ``GLMRules.txt``) lists rules ``A => B`` or
``A => B / C __ D``; ``rfilter1`` moves a cursor through the text and at each
character applies the first rule, in file order, whose ``A`` starts there with
``C`` just before it and ``D`` just after it in the *input*; it writes ``B`` and
skips ``A``, or else copies the character (``copy_no_hit``, the default) or drops
it. ``case_sensitive = 'F'`` (NIST's GLMs) compares A-Z case-blind. Rules after
a ``;; INPUT_DEPENDENT_APPLICATION = "<regex>"`` line apply only when the regex
matches the input format or purpose (``ctm``, ``hyp``: NIST's contraction
alternations ``{HE IS / HE HAS}`` are for the hypothesis only).

`csrfilt` is ``csrfilt.sh``'s text pipeline around it: upper-case A-Z (unless
``-s``), space the parentheses of ``(optional)`` words, rewrite, then ``-dh``
(split hyphenated words, fragments kept), and mark every word of an
``(optional phrase)`` optional. NIST's English GLMs ship with lightscore
(`glm_path`, `GLMS`).
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from itertools import chain
from pathlib import Path

from lightscore.io.text_files import strip_bom
from lightscore.text.hubscr.glm_cursor import _UPPER, Glm, GlmRule, rewrite
from lightscore.text.hubscr.spacing import OTHER_SPACES, single_spaced

__all__ = ["GLMS", "Glm", "GlmError", "GlmRule", "csrfilt", "csrfilt_lines", "glm_path", "read_glm", "rewrite"]

GLMS = ("en20030506", "en20090415")
"""NIST's English GLMs shipped as package data (RT-03 and RT-04 scoring), usable by name."""

_UPPER_LATIN1 = {**_UPPER, **{code: code - 32 for code in range(0xE0, 0x100)}}  # csrfilt -e: tr/\340-\377/\300-\337/
_DEPENDENT = re.compile(r'^;;\s+INPUT_DEPENDENT_APPLICATION\s*=\s*"([^"]*)"')
_HEADER = re.compile(r"""^\*.*?(\w+)\W*["']([^"']*)["']""")
# C's isspace() in the C locale: where rfilter1 trims a rule's line and ends its marks (not Unicode's spaces).
_C_SPACE = frozenset(" \t\n\v\f\r")


class GlmError(ValueError):
    """A GLM file that cannot be read; the message names the file and the line."""


def glm_path(name: str | os.PathLike) -> Path:
    """The file of a GLM given by name (one of `GLMS`) or by path.

    Raises:
        GlmError: neither a shipped GLM nor a file.

    >>> glm_path("en20030506").name
    'en20030506.glm'
    """
    if str(name) in GLMS:
        return Path(__file__).parent / "glms" / f"{name}.glm"  # package data beside this module
    if not Path(name).is_file():
        raise GlmError(f"GLM {str(name)!r} is neither a file nor one of {', '.join(GLMS)}")
    return Path(name)


def _rule(body: str, applies_to: str | None, number: int) -> GlmRule | None:
    """The rule rfilter1 reads from one comment-free line holding ``=>``, or None when its source is empty.

    SCTK's ``r_process_data_line`` (rfilter1's grules2.c), step by step: the source is what stands
    before the first ``=>``; the target starts after the first space past the arrow, so ``A=>B C``
    rewrites ``A`` to ``C`` and ``A=>B`` to nothing. The line's last ``/``, unless a ``[`` opens
    after it before any ``]`` closes, ends the target; the first ``_`` after it is the slot
    between the left and the right context, each read as the target is (past the first space after
    the slash and after the slot). Every field loses one pair of ``[...]`` or ``"..."`` around it.

    Args:
        body: The line without its comment.
        applies_to: The input-dependent section's regex the rule is read under, or None.
        number: The line's number in the file.

    Returns:
        The rule, or None for an empty source (one that matches nowhere).

    >>> _rule("[HE'S] => [{HE IS / HE HAS}] / [ ] __ [ ]", None, 1)[:4]
    ("HE'S", '{HE IS / HE HAS}', ' ', ' ')
    >>> [_rule(body, None, 1)[:2] for body in ("KINDA=>KIND OF", "KINDA=> KIND OF", "A=>B", '"A B" => X / Y')]
    [('KINDA', 'OF'), ('KINDA', 'KIND OF'), ('A', ''), ('A B', 'X')]
    """
    arrow = body.index("=>")
    last = _last_visible(body)
    context = body.rfind("/")
    if context >= 0:
        close, opening = body.find("]", context), body.find("[", context)
        # rfilter1 compares the two pointers, a missing "]" (NULL) below any "[": then the slash is inside brackets.
        if opening >= 0 and close < opening:
            context = -1
    start = len(body) - len(body.lstrip("".join(_C_SPACE)))
    source = ""
    if start < arrow:
        source = _unwrapped(body, start, _back_over_spaces(body, arrow - 1, start))
    if not source:
        return None
    target_end = last if context < 0 else _back_over_spaces(body, context - 1, arrow)
    target = _after_mark(body, arrow, target_end)
    left = right = ""
    slot = body.find("_", context) if context >= 0 else -1
    if slot >= 0:
        left = _after_mark(body, context, _back_over_spaces(body, slot - 1, context))
        right = _after_mark(body, slot, last)
    return GlmRule(source, target, left, right, applies_to, number)


def _last_visible(body: str) -> int:
    """The place of the line's last character that is not a space (rfilter1's ``prtrim``)."""
    return _back_over_spaces(body, len(body) - 1, 0)


def _back_over_spaces(body: str, end: int, start: int) -> int:
    """``end`` moved back over spaces, never below ``start``."""
    while end > start and body[end] in _C_SPACE:
        end -= 1
    return end


def _after_mark(body: str, mark: int, end: int) -> str:
    """The field after the mark at ``mark`` (the arrow, the slash or the slot) up to ``end`` (included).

    rfilter1 skips the mark's whole run of non-space characters (a field glued to the mark goes
    with it), then the spaces; nothing is left unless that run ends before ``end``.
    """
    start = mark
    while start < end and body[start] not in _C_SPACE:
        start += 1
    if start >= end:
        return ""
    while body[start] in _C_SPACE:
        start += 1
    return _unwrapped(body, start, end)


def _unwrapped(body: str, start: int, end: int) -> str:
    """``body[start:end + 1]`` without one pair of ``[...]`` or ``"..."`` around it."""
    if (body[start] == "[" and body[end] == "]") or (body[start] == '"' and body[end] == '"'):
        start, end = start + 1, end - 1
    return body[start : end + 1]


def read_glm(path: str | os.PathLike, encoding: str = "utf-8") -> Glm:
    """Parse a GLM file (`glm_path` names a shipped one), read as ``encoding`` (bytes that are not kept apart).

    The first token of the first line is the comment mark; ``*`` lines are the header. A UTF-8
    byte-order mark before it is skipped (`lightscore.io.text_files.strip_bom`, as for rule files):
    rfilter1 would make it part of the mark, and every trailing ``;;`` comment a target word.
    A file read before is not parsed again while it is unchanged (same size and modification time).

    Each rule is read as rfilter1 reads it (`_rule`), ``A=>B`` without spaces too. What rfilter1
    refuses is refused: an empty file, a file without a rule (rfilter1 crashes on it), and a line
    holding more than a comment but no ``=>`` (rfilter1: "no arrow").

    Args:
        path: The GLM file.
        encoding: Its encoding (``utf-8``; ``latin-1`` for hubscr's Spanish and Italian).

    Returns:
        The rules and the header's switches.

    Raises:
        GlmError: an empty file, a file without a rule, or a line without an arrow (file and line named).

    >>> glm = read_glm(glm_path("en20030506"))
    >>> glm.copy_no_hit, glm.case_sensitive, glm.rules[0][:4]
    (True, False, ('HUH-UH', '%BCNACK', ' ', ' '))
    >>> read_glm(glm_path("en20030506")) is glm
    True
    """
    found = os.stat(path)
    return _read_glm(os.fspath(path), encoding, found.st_mtime_ns, found.st_size)


@lru_cache(maxsize=8)
def _read_glm(path: str, encoding: str, mtime_ns: int, size: int) -> Glm:
    """`read_glm` of the file as it is at ``mtime_ns`` and ``size`` (the cache's key)."""
    data = strip_bom(Path(path).read_bytes())
    if not data:
        raise GlmError(f"{path}: the GLM is empty (rfilter1 refuses it: 'file is empty')")
    text = data.decode(encoding, errors="surrogateescape").splitlines()
    comment = (text[0].split() or [";;"])[0]
    glm, applies_to = Glm(str(path)), None
    for number, line in enumerate(text, 1):
        dependent = _DEPENDENT.match(line)
        if dependent:
            applies_to = dependent[1].lower()
        header = _HEADER.match(line)
        if header:
            key, value = header[1].lower(), header[2].strip().upper()
            if key in ("copy_no_hit", "case_sensitive"):
                setattr(glm, key, value in ("T", "YES", "TRUE"))
            elif key == "name":
                glm.name = header[2]
            continue
        body = _strip_comment(line, comment)
        if not body.strip():
            continue
        if "=>" not in body:
            raise GlmError(f"{path} line {number}: {_no_arrow(line)} (rfilter1 refuses the file: 'no arrow')")
        rule = _rule(body, applies_to, number)
        if rule is not None:
            glm.rules.append(rule)
    if not glm.rules:
        raise GlmError(f"{path}: no rule in the GLM (rfilter1 cannot run one; comment mark {comment!r})")
    return glm


def _no_arrow(line: str) -> str:
    """What is wrong with a line that holds neither a header, a comment nor an arrow."""
    if line.startswith("*"):
        return f"a header line needs a quoted value (* key = 'value'), got {line.strip()[:80]!r}"
    return f"a rule needs an arrow (A => B), got {line.strip()[:80]!r}"


def _strip_comment(line: str, comment: str) -> str:
    """``line`` without its comment, a comment mark inside ``[...]`` or ``'...'`` kept."""
    k = line.find(comment)
    if k < 0 or ("[" not in line[:k] and "'" not in line[:k]):  # no mark, or none can hide inside a string
        return line if k < 0 else line[:k]
    inside = ""
    for k, char in enumerate(line):
        if inside:
            inside = "" if char == inside else inside
        elif char == "[" or (char == "'" and line.find("'", k + 1) > 0):
            inside = "]" if char == "[" else "'"
        elif line.startswith(comment, k):
            return line[:k]
    return line


def csrfilt(
    text: str,
    glm: Glm,
    input_type: str = "trn",
    purpose: str = "",
    upcase: bool = True,
    delete_hyphens: bool = False,
    latin1: bool = False,
) -> str:
    """One transcript through ``csrfilt.sh -i <input_type> -t <purpose> [-s] [-dh] [-e] <glm>``.

    Args:
        text: The transcript (a trn or stm text, or one ctm word).
        glm: From `read_glm`.
        input_type: csrfilt's ``-i``: ``trn``, ``stm``, ``ctm`` or ``txt``.
        purpose: csrfilt's ``-t``: ``ref``, ``hyp`` or "".
        upcase: Upper-case A-Z first (csrfilt without ``-s``).
        delete_hyphens: ``-dh``: ``a-b`` becomes ``a b`` (``wor-`` and ``-ord`` stay fragments).
        latin1: ``-e`` ("extended ASCII"): upper-casing takes Latin-1's ``à``-``þ`` (and ``÷``, ``ÿ``) to
            ``À``-``ß`` as well, code by code, as csrfilt's byte-wise ``tr`` does to a file read as Latin-1.

    Returns:
        The filtered text, words separated by single spaces.

    >>> glm = read_glm(glm_path("en20030506"))
    >>> csrfilt("he's gonna (um) e-mail", glm, "ctm", "hyp", delete_hyphens=True)
    '{HE IS / HE HAS} GOING TO (%HESITATION) E MAIL'
    """
    return csrfilt_lines([text], glm, input_type, purpose, upcase, delete_hyphens, latin1)[0]


def csrfilt_lines(
    texts: list[str],
    glm: Glm,
    input_type: str = "trn",
    purpose: str = "",
    upcase: bool = True,
    delete_hyphens: bool = False,
    latin1: bool = False,
) -> list[str]:
    """`csrfilt` of every text, as csrfilt filters a file's lines one by one, in a few whole-string steps.

    With ``copy_no_hit`` (every NIST GLM) the texts go through `rewrite` together, one line
    each: no rule (one line of the GLM) holds a line break, so none matches across one.

    Args:
        texts: The transcripts, each on one line.
        glm, input_type, purpose, upcase, delete_hyphens, latin1: As for `csrfilt`.

    Returns:
        The filtered texts.

    >>> csrfilt_lines(["gonna", "uh huh"], read_glm(glm_path("en20030506")), "stm", "ref")
    ['GOING TO', '%HESITATION %HESITATION']
    """
    # csrfilt pads every text twice; a ctm word arrives without its own spaces.
    pad = " " if input_type != "ctm" else ""
    if not _single_spaced(texts):  # an stm reader's texts are; anything else is made so
        texts = [" ".join(text.split()) for text in texts]
    joined = f"{pad} " + f" {pad}\n{pad} ".join(texts) + f" {pad}"
    if upcase:
        joined = joined.translate(_UPPER_LATIN1 if latin1 else _UPPER)
    joined = joined.replace("(", "( ").replace(")", " )")
    if glm.copy_no_hit:
        joined = rewrite(joined, glm, input_type, purpose)
    else:  # only the rules' targets are kept: each line on its own, or the lines' ends would be lost
        joined = "\n".join([rewrite(line, glm, input_type, purpose) for line in joined.split("\n")])
    if delete_hyphens and "-" in joined:
        joined = _split_hyphens(joined)
    if not joined.isascii() or any(space in joined for space in OTHER_SPACES):
        return [_words(line) for line in joined.split("\n")]
    # The common text: its padding dropped, spaces collapsed and optional words marked for all lines at once.
    joined = joined.strip(" ").replace(f" {pad}\n{pad} ", "\n")
    if "  " in joined:
        joined = _SPACES.sub(" ", joined)
    joined = joined.replace(" \n", "\n").replace("\n ", "\n")
    if "(" in joined or ")" in joined:
        joined = _optional_lines(joined)
    return joined.split("\n")


def _single_spaced(texts: list[str]) -> bool:
    """Whether every text is ``" ".join(text.split())`` already: `single_spaced` of them joined, none holding a break.

    >>> _single_spaced(["a b", "", "c"]), _single_spaced(["a  b"]), _single_spaced(["a\\nb"]), _single_spaced(["a "])
    (True, False, False, False)
    """
    joined = "\n".join(texts)
    return joined.count("\n") == len(texts) - 1 and single_spaced(joined)


def _words(line: str) -> str:
    """A filtered line's words, single-spaced, each word of an ``(optional phrase)`` optional on its own."""
    return _optional_words(line) if "(" in line or ")" in line else " ".join(line.split())


def _split_hyphens(text: str) -> str:
    """csrfilt's ``-dh``, ``_HYPHEN``: a hyphen between two characters of a word becomes a space.

    Without a double hyphen every hyphen stands alone, so each is decided by its two neighbours
    (the regex's matches cannot overlap): one pass over the hyphens instead of a regex over every character.

    >>> _split_hyphens(" E-MAIL WOR- -ORD (X-)"), _split_hyphens("A--B (--B")
    (' E MAIL WOR- -ORD (X-)', 'A -B (- B')
    """
    parts = text.split("-")
    if "" in parts[1:-1]:  # a double hyphen (a search for "--" would cost a pass over the text)
        return _HYPHEN.sub(r"\1 ", text)
    joints = [
        "-" if before[-1:] in _NOT_BEFORE or after[:1] in _NOT_AFTER else " " for before, after in zip(parts, parts[1:])
    ]
    return "".join(chain.from_iterable(zip(parts, [*joints, ""])))


def _optional_words(text: str) -> str:
    """csrfilt's last steps on a text with parentheses: each word of an (optional phrase) optional on its own."""
    while True:
        text, done = _PHRASE.subn(r"\1) ( \2", text, count=1)
        if not done:
            break
    text = _CLOSE.sub(")", _OPEN.sub("(", text))
    return " ".join(text.split())


def _optional_lines(text: str) -> str:
    """`_optional_words` of every line of ``text`` at once, its lines ASCII words one space apart.

    There ``\\s`` is a space, so the phrases csrfilt's sed loop splits word by word are runs of words
    after ``"( "``, each split in one step, and the spaces inside parentheses are single.

    >>> _optional_lines("A ( B C D ) E\\n( F ) (G H ( I J")
    'A (B) (C) (D) E\\n(F) (G H (I) (J'
    """
    text = _PHRASES.sub(_phrase_words, text)
    return text.replace("( ", "(").replace(" )", ")")


def _phrase_words(phrase: re.Match) -> str:
    return "( " + phrase[0][2:].replace(" ", " ) ( ")


# csrfilt's sed lines: a hyphen inside a word (-dh: a fragment's edge hyphen stays), the second word of an
# (optional phrase), and the spaces inside an optional word's parentheses.
_HYPHEN = re.compile(r"([^\( \n])-(?=[^\) \n])")  # a line break: the end of a line of `csrfilt_lines`
_NOT_BEFORE, _NOT_AFTER = frozenset(("", "(", " ", "\n")), frozenset(("", ")", " ", "\n"))
_SPACES = re.compile(" {2,}")
_PHRASE = re.compile(r"(\(\s+[^()\s]+\s+)([^()\s]+)")
_OPEN, _CLOSE = re.compile(r"\(\s+"), re.compile(r"\s+\)")
_PHRASES = re.compile(r"\( [^() \n]+(?: [^() \n]+)+")  # `_PHRASE`'s phrases in single-spaced ASCII lines
