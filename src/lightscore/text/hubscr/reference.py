"""hubscr's steps written to be read: the plain versions the family's fast paths must equal.

Nothing here is fast. The fast modules name the function here they compute (``Plain twin:`` in their
docstrings), and tests/test_hubscr_twins.py holds them equal on generated input; ``sctk hubscr`` and
``csrfilt`` stay the outside oracles (tests/test_hubscr_*.py, tests/test_glm.py).

- `rfilter1`: csrfilt's rule filter as SCTK's ``GLMRules.txt`` describes it, every rule tried at every
  character. The twin of `lightscore.text.hubscr.glm_cursor.rewrite`.
"""

from __future__ import annotations

import re

from lightscore.text.hubscr.glm_cursor import _UPPER, Glm

__all__ = ["rfilter1"]


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
