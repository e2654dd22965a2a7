"""Whether an ASCII text's lines are already split as `str.split` splits them: words one space apart.

Readers that would split every line into words and join them again (an stm
transcript, csrfilt's filtered lines) can take such a text as it is: for it,
``line.split(" ")`` is ``line.split()`` and ``" ".join(line.split())`` is the line.
"""

from __future__ import annotations

__all__ = ["OTHER_SPACES", "single_spaced"]

OTHER_SPACES = "\t\x0b\x0c\r\x1c\x1d\x1e\x1f"
"""What else besides the space and the line break `str.split` splits ASCII text at."""


def single_spaced(text: str) -> bool:
    """Whether every line of ``text`` is ASCII words one space apart, none starting or ending with a space.

    Args:
        text: Lines joined by line breaks (empty lines allowed).

    Returns:
        True when ``line == " ".join(line.split())`` for every line, found in a few whole-text scans.

    >>> single_spaced("a b\\n\\nc"), single_spaced("a  b"), single_spaced("a\\tb"), single_spaced("a \\nb")
    (True, False, False, False)
    >>> single_spaced("é b")  # other Unicode text: `str.split` knows more spaces than these
    False
    """
    if not text.isascii() or any(space in text for space in OTHER_SPACES):
        return False
    return not (text[:1] == " " or text[-1:] == " " or "  " in text or " \n" in text or "\n " in text)
