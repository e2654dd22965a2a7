"""tcpWER against meeteval, pair by pair and per session: its time-constrained Levenshtein distance, pruned and
whole, the traceback's S/D/I and the speaker assignment, on generated sessions and the benchmark's kind."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from meeting_strategies import session, timed_words
from test_meeting_wer import oracle

from lightscore.segments import Segment
from lightscore.text.meeting.time_constrained import tcp_counts

meeteval = pytest.importorskip("meeteval")
from meeteval.wer.wer.time_constrained import tcp_word_error_rate  # noqa: E402

TIMINGS = st.sampled_from(["character_based", "character_based_points", "equidistant_intervals", "full_segment"])


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ref=session("r", min_speakers=1),
    hyp=session("h"),
    collar=st.sampled_from([0.0, 0.25, 0.5, 1.0, 5.0]),
    ref_timing=TIMINGS,
    hyp_timing=st.sampled_from(["character_based_points", "equidistant_points", "character_based"]),
)
def test_tcp_counts_and_assignment_equal_meeteval(ref, hyp, collar, ref_timing, hyp_timing) -> None:
    """Boundaries that touch exactly (quarter-second grid) and collars that reach below 0 (meeteval then
    does not prune its matrix): the breakdown's tie-breaking follows both paths."""
    options = dict(reference_pseudo_word_level_timing=ref_timing, hypothesis_pseudo_word_level_timing=hyp_timing)
    ours = tcp_counts(ref, hyp, collar, ref_timing, hyp_timing)
    assert tuple(ours) == oracle(ref, hyp, tcp_word_error_rate, collar=collar, **options)


@settings(max_examples=500, deadline=None)
@given(ref=timed_words(), hyp=timed_words())
def test_tc_levenshtein_equals_meeteval(ref, hyp) -> None:
    """Pair by pair: the distance (meeteval's assignment matrix) and the traceback's S/D/I, banded or whole."""
    from meeteval.wer.matching.cy_levenshtein import (
        time_constrained_levenshtein_distance,
        time_constrained_levenshtein_distance_with_alignment,
    )

    from lightscore.text.meeting.tc_bands import stream, whole_matrices
    from lightscore.text.meeting.time_constrained import tc_levenshtein

    ref_kept = [w for w in ref if w[0]]
    hyp_kept = [w for w in hyp if w[0]]
    args = ([w for w, _, _ in ref_kept], [w for w, _, _ in hyp_kept])
    times = ([(s, e) for _, s, e in ref_kept], [(s, e) for _, s, e in hyp_kept])
    theirs = time_constrained_levenshtein_distance_with_alignment(*args, *times)
    expected = (theirs["total"], theirs["substitutions"], theirs["deletions"], theirs["insertions"])
    assert tc_levenshtein(ref, hyp) == expected
    assert expected[0] == time_constrained_levenshtein_distance(*args, *times)
    if ref_kept and hyp_kept:  # every matrix filled whole: the assignment's distances of unsorted streams
        vocab: dict[str, int] = {}
        r = stream(ref, vocab)
        h = stream(hyp, vocab)
        whole = time_constrained_levenshtein_distance(*args, *times, prune=False)
        assert whole_matrices([r], [h]).distances[0, 0] == whole


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ref=session("r", min_speakers=1), hyp=session("h"), collar=st.sampled_from([0.0, 1.0, 5.0]))
def test_tcp_without_kept_rows_equals_meeteval(ref, hyp, collar) -> None:
    """Rows too many to keep (`KEEP_CELLS`): assigned pairs are filled again; the counts stay meeteval's."""
    from lightscore.text.meeting import tc_bands

    keep = tc_bands.KEEP_CELLS
    tc_bands.KEEP_CELLS = 0
    try:
        ours = tcp_counts(ref, hyp, collar)
    finally:
        tc_bands.KEEP_CELLS = keep
    assert tuple(ours) == oracle(ref, hyp, tcp_word_error_rate, collar=collar)


def test_tcp_long_generated_sessions_equal_meeteval() -> None:
    """Sessions like the benchmark's (2-6 speakers, ~40 turns, jittered, collar 5 reaching below 0) and the
    same without negative starts (banded): a few hundred words per stream, wide bands, many pairs."""
    rng = random.Random(7)
    vocabulary = "the a of to and in is that".split()
    for offset in (0.0, 6.0):
        for speakers in (1, 2, 4, 6):
            ref = []
            hyp = []
            for k in range(speakers):
                t = offset + rng.uniform(0, 5)
                for _ in range(40 // speakers * 2):
                    length = rng.uniform(0.5, 8)
                    words = [rng.choice(vocabulary) for _ in range(max(1, int(length * 2.5)))]
                    guess = " ".join(w if rng.random() > 0.1 else rng.choice(vocabulary) for w in words)
                    ref.append(Segment(f"spk{k}", t, t + length, " ".join(words)))
                    hyp.append(Segment(f"sys{(k + 1) % speakers if rng.random() < 0.3 else k}", t, t + length, guess))
                    t += length + rng.uniform(0.7, 10)
            for collar in (0.25, 5.0):
                assert tuple(tcp_counts(ref, hyp, collar)) == oracle(ref, hyp, tcp_word_error_rate, collar=collar)
