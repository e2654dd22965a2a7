"""Hypothesis strategies the meeting tests share: generated sessions and timed word lists, built to hit ties.

Start times on a quarter-second grid (boundaries that touch exactly), overlapping segments, empty word
lists, speakers with only empty segments, a small vocabulary (repeated words), negative starts.
"""

from __future__ import annotations

from hypothesis import strategies as st

from lightscore.segments import Segment

WORDS = st.sampled_from(["a", "b", "c", "d", "the", "cat"])


@st.composite
def session(draw, prefix: str, min_speakers: int = 0, max_speakers: int = 6) -> list[Segment]:
    """1-6 speakers (0 allowed for a hypothesis), overlapping segments, empty word lists, ties in start time."""
    speakers = draw(st.integers(min_speakers, max_speakers))
    segments = []
    for k in range(speakers):
        for _ in range(draw(st.integers(1, 4))):
            start = draw(st.integers(0, 40)) / 4
            words = " ".join(draw(st.lists(WORDS, max_size=6)))
            segments.append(Segment(f"{prefix}{k}", start, start + draw(st.integers(0, 12)) / 4, words))
    return draw(st.permutations(segments))


@st.composite
def timed_words(draw, max_size: int = 12) -> list[tuple[str, float, float]]:
    """``(word, start, end)`` lists: sorted or not, negative starts (meeteval then fills the whole matrix),
    points and intervals on a quarter-second grid (exact ties), empty words."""
    words = []
    for _ in range(draw(st.integers(0, max_size))):
        start = draw(st.integers(-8, 40)) / 4
        words.append((draw(st.sampled_from(["", "a", "b", "c"])), start, start + draw(st.integers(0, 8)) / 4))
    if draw(st.booleans()):
        words.sort(key=lambda w: w[1])
    return words
