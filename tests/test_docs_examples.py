"""The ``>>>`` examples of the docs pages run as doctests, so the numbers the pages show stay true.

Each fenced block holding ``>>>`` is one doctest (the fence itself is not part of the expected
output). docs/sclite.md's examples read the user's own stm/ctm files, so that page is left out.
"""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = ("meetings.md", "recognition-practice.md")
FENCE = re.compile(r"^```[a-z]*\n(.*?)^```", re.S | re.M)


def blocks(page: str) -> list[tuple[int, str]]:
    """Each fenced block with a ``>>>`` example, with the line it starts on."""
    text = (DOCS / page).read_text(encoding="utf-8")
    return [(text[: m.start()].count("\n") + 2, m.group(1)) for m in FENCE.finditer(text) if ">>>" in m.group(1)]


@pytest.mark.parametrize("page", PAGES)
def test_the_examples_of_a_docs_page_print_what_it_shows(page, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # an example that writes files writes them here
    found = blocks(page)
    assert found, f"docs/{page} has no >>> example"
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    names: dict = {}  # one namespace per page: later blocks use what earlier ones built
    for line, block in found:
        test = doctest.DocTestParser().get_doctest(block, names, f"docs/{page}", f"docs/{page}", line)
        runner.run(test, clear_globs=False)
        names.update(test.globs)  # a DocTest runs in a copy of the names it was given
    assert runner.summarize(verbose=False).failed == 0
