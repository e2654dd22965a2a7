"""The ctm hypothesis read straight through the GLM (`text.hubscr.ctm_words`) against csrfilt's printed route."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_glm import OTHER, RULE_WORDS

from lightscore.text.hubscr.ctm_words import (
    Csrfilt,
    _line_by_line,
    filtered_words,
    words_of,
)
from lightscore.text.hubscr.glm import GLMS, glm_path, read_glm
from lightscore.text.hubscr.pipeline import filter_ctm_lines
from lightscore.text.hubscr.stm_ctm import StmSegment, assign_words, read_ctm_items, sort_ctm_lines


def ctm_lines(rng: random.Random, count: int) -> list[str]:
    """ctm lines with GLM words (split, alternated, deleted), times of 1 to 6 decimals, with and without confidence."""
    vocabulary = [*rng.sample(RULE_WORDS, 80), *OTHER, "%HESITATION", "UH", "{", "a/b"]
    lines = [";; generated", ""]
    for k in range(count):
        decimals = rng.randint(1, 6)
        channel = rng.choice("AB")
        conf = f" {rng.random():.2f}" if rng.random() < 0.6 else rng.choice(["", "", " 1"])
        at, length = rng.uniform(0, 50), rng.uniform(0.01, 2)
        lines.append(f"f{k % 3} {channel} {at:.{decimals}f} {length:.{decimals}f} {rng.choice(vocabulary)}{conf}")
    return lines


@pytest.mark.parametrize("name", GLMS)
@pytest.mark.parametrize("seed", range(6))
def test_ctm_read_directly_equals_the_printed_route(name: str, seed: int, tmp_path: Path) -> None:
    """`filtered_words` equals csrfilt's printed lines read back by `read_ctm_items`: words, order and midpoints."""
    glm = read_glm(glm_path(name))
    path = tmp_path / "hyp.ctm"
    path.write_text("\n".join(ctm_lines(random.Random(seed), 400)) + "\n", encoding="utf-8")
    found = filtered_words(path, glm)
    assert found is not None
    assert found == printed_route(path, glm)


def printed_route(path: Path, glm) -> tuple[dict, dict]:
    """hubscr's route: the ctm sorted (`sort_ctm_lines`), csrfilt's printed lines read back by `read_ctm_items` in that
    order: each conversation's words and midpoints."""
    with open(path, encoding="utf-8") as f:
        printed = read_ctm_items(path, list(filter_ctm_lines(sort_ctm_lines(f), glm)), in_order=True)
    return (
        {key: [words_of(item) for item in items] for key, items in printed.items()},
        {key: [item.midpoint for item in items] for key, items in printed.items()},
    )


@pytest.mark.parametrize("name", GLMS)
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("conf", [True, False])
def test_ctm_of_even_lines_read_directly_equals_the_printed_route(
    name: str, seed: int, conf: bool, tmp_path: Path
) -> None:
    """Every line the same fields, times of at most 3 decimals: the direct read equals the printed route.

    Durations of a few milliseconds split in 2-4 words put ``round(x, 3)`` on halves, where a rounding
    other than Python's would differ.
    """
    rng = random.Random(seed)
    glm = read_glm(glm_path(name))
    vocabulary = [*rng.sample(RULE_WORDS, 80), *OTHER, "%HESITATION", "UH", "gonna", "he's"]
    lines = [";; generated"]
    for k in range(600):
        decimals, tiny = rng.randint(0, 3), rng.random() < 0.3
        length = rng.randint(1, 9) / 1000 if tiny else rng.uniform(0.01, 2)
        tail = f" {rng.random():.2f}" if conf else ""
        lines.append(
            f"f{k % 3} {rng.choice('AB')} {rng.uniform(0, 50):.{decimals}f} {length:.3f} {rng.choice(vocabulary)}{tail}"
        )
    path = tmp_path / "hyp.ctm"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    rows = [line.split() for line in lines[1:]]
    found = filtered_words(path, glm)
    assert found == _line_by_line(rows, Csrfilt(glm), ({}, {}))
    assert found == printed_route(path, glm)


def test_ctm_alternations_in_the_input_take_the_printed_route(tmp_path: Path) -> None:
    path = tmp_path / "hyp.ctm"
    path.write_text("f1 A * * <ALT_BEGIN>\nf1 A 1 0.5 a\nf1 A * * <ALT>\nf1 A 1 0.5 b\nf1 A * * <ALT_END>\n")
    assert filtered_words(path, read_glm(glm_path("en20030506"))) is None


def taken_by_walking(ends: list[float], mids: list[float]) -> list[int]:
    """sclite's chopping written plainly: a segment takes items while their midpoint is before its end."""
    counts, position = [], 0
    for k, end in enumerate(ends):
        stop = position
        while stop < len(mids) and (k == len(ends) - 1 or mids[stop] < end):
            stop += 1
        counts.append(stop - position)
        position = stop
    return counts


@given(
    ends=st.lists(st.integers(0, 20), min_size=1, max_size=8),
    mids=st.lists(st.integers(0, 20), max_size=30),
    ordered=st.booleans(),
)
def test_segments_take_the_items_sclite_gives_them(ends: list[int], mids: list[int], ordered: bool) -> None:
    """`assign_words` (a bisection where midpoints are in order, else a walk) equals the plain rule."""
    mids = sorted(mids) if ordered else mids
    segments = [StmSegment("f", "A", "s", k, end / 2, "", f"w{k}", k) for k, end in enumerate(ends)]
    items = [(("x",),)] * len(mids)
    assigned = assign_words(segments, {("f", "A"): items}, {("f", "A"): [m / 2 for m in mids]})
    assert [len(taken) for _, _, taken in assigned] == taken_by_walking(
        [s.end for s in segments], [m / 2 for m in mids]
    )
