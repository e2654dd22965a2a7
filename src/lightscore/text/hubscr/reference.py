"""hubscr's steps written to be read: the plain versions the family's fast paths must equal.

Nothing here is fast. The fast modules name the function here they compute (``Plain twin:`` in their
docstrings), and tests/test_hubscr_twins.py holds them equal on generated input; ``sctk hubscr`` and
``csrfilt`` stay the outside oracles (tests/test_hubscr_*.py, tests/test_glm.py).

- `rfilter1`: csrfilt's rule filter as SCTK's ``GLMRules.txt`` describes it, every rule tried at every
  character. The twin of `lightscore.text.hubscr.glm_cursor.rewrite`.
- `plain_fields`: a ctm's columns from ``str.split`` of its lines. The twin of
  `lightscore.text.hubscr.ctm_fields.ctm_fields` (the byte-level reader).

>>> plain_fields("f A 1 2 x\\nf B 3 4 y\\n").column(4)
['x', 'y']
"""

from __future__ import annotations

import re

import numpy as np

from lightscore.text.hubscr.glm_cursor import _UPPER, Glm

__all__ = ["PlainFields", "plain_fields", "rfilter1"]


def rfilter1(text: str, glm: Glm, input_type: str = "trn", purpose: str = "") -> str:
    """rfilter1's cursor, character by character: at each one the first rule in file order that matches.

    A rule applies when its input-dependent section's regex (if any) is found in ``input_type`` or
    ``purpose``. It matches where the text starts with its source, the text before ends with its left
    context and the text after starts with its right context (A-Z folded unless the GLM is case
    sensitive); the cursor then writes its target and skips the source. Elsewhere the character is copied
    (``copy_no_hit``) or dropped.

    Args:
        text: The text, as csrfilt hands it over (padded with spaces).
        glm: From `lightscore.text.hubscr.glm.read_glm`.
        input_type: ``trn``, ``stm``, ``ctm``...
        purpose: ``ref`` or ``hyp``, or "".

    Returns:
        The rewritten text.

    >>> from lightscore.text.hubscr.glm import glm_path, read_glm
    >>> rfilter1(" UH HUH GONNA ", read_glm(glm_path("en20030506")), "ctm", "hyp")
    ' %HESITATION %HESITATION GOING TO '
    """

    def fold(field: str) -> str:
        return field if glm.case_sensitive else field.translate(_UPPER)

    rules = []
    for rule in glm.rules:
        section = rule.applies_to
        applies = section is None or re.search(section, input_type.lower()) or re.search(section, purpose.lower())
        if rule.source and applies:
            rules.append((fold(rule.source), rule.target, fold(rule.left), fold(rule.right)))
    probe, out, cursor = fold(text), [], 0
    while cursor < len(text):
        for source, target, left, right in rules:
            if (
                probe.startswith(source, cursor)
                and probe.endswith(left, 0, cursor)
                and probe.startswith(right, cursor + len(source))
            ):
                out.append(target)
                cursor += len(source)
                break
        else:
            if glm.copy_no_hit:
                out.append(text[cursor])
            cursor += 1
    return "".join(out)


# A time read by `PlainFields.times`: digits (15 at most), and at most one dot followed by at most three.
_PLAIN_TIME = re.compile(r"(?=\.?[0-9])[0-9]*(?:\.[0-9]{0,3})?")
# Unicode whitespace beyond ASCII's: a ctm holding any is left to the line reader (its lines may split differently).
_OTHER_SPACE = re.compile("[\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")


class PlainFields:
    """A ctm's lines split into fields, every line as wide: what `lightscore.text.hubscr.ctm_fields.Fields` answers.

    Args:
        rows: The fields of each line that is not blank or a ``;;`` comment.
    """

    def __init__(self, rows: list[list[str]]) -> None:
        self.rows = rows

    @property
    def width(self) -> int:
        """Fields per line."""
        return len(self.rows[0])

    def column(self, k: int) -> list[str]:
        """Field ``k`` of every line.

        >>> plain_fields("f A 1 2 wörd\\nf B 3 4 x\\n").column(4)
        ['wörd', 'x']
        """
        return [row[k] for row in self.rows]

    def times(self, k: int) -> np.ndarray | None:
        """Column ``k`` as float64 when every field is a plain number of at most 3 decimals and 15 digits, else None.

        >>> plain_fields("f A 1 2.5 x\\nf A .25 3. y\\n").times(3).tolist()
        [2.5, 3.0]
        >>> plain_fields("f A 1.0005 2 x\\n").times(2) is None
        True
        """
        column = self.column(k)
        if not all(map(_PLAIN_TIME.fullmatch, column)):
            return None
        # 15 digits at most (exact in a double); only a field of 16 characters or more may have more.
        if max(map(len, column)) > 15 and any(len(field) - field.count(".") > 15 for field in column):
            return None
        return np.array(column, dtype=np.float64)  # numpy's own reading of each string, float()'s double

    def runs(self, *columns: int) -> tuple[dict[tuple[str, ...], int], np.ndarray]:
        """Each distinct tuple of these columns numbered in order of appearance, and every line's number.

        >>> plain_fields("a 1 0 1 x\\na 1 1 1 y\\nb 1 0 1 z\\na 1 2 1 w\\n").runs(0, 1)
        ({('a', '1'): 0, ('b', '1'): 1}, array([0, 0, 1, 0]))
        """
        keys: dict[tuple[str, ...], int] = {}
        numbers = [keys.setdefault(key, len(keys)) for key in zip(*map(self.column, columns))]
        return keys, np.array(numbers, dtype=np.int64)


def plain_fields(text: str) -> PlainFields | None:
    """The fields of the text's lines (``\\n``-separated, split as ``str.split`` splits), blank lines and ``;;``
    comments left out, when every line has as many; else None, and None for a text holding non-ASCII whitespace.

    Args:
        text: A ctm file's text.

    Returns:
        Its `PlainFields`, or None.

    >>> plain_fields("f A 1 2 x\\nf B 3 4 y 0.5\\n") is None
    True
    """
    if _OTHER_SPACE.search(text):
        return None
    rows = [fields for fields in map(str.split, text.split("\n")) if fields and not fields[0].startswith(";;")]
    if not rows or any(len(fields) != len(rows[0]) for fields in rows):
        return None
    return PlainFields(rows)
