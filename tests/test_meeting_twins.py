"""The meeting family's fast paths against their plain twins (`lightscore.text.meeting.reference`), on generated
sessions: empty streams and words, ties, overlapping and touching times, negative starts, collars.

The twins are independent of meeteval (the oracle tests in test_meeting_wer.py and test_meeting_tcp.py hold the
fast paths to it); here each fast function must give the plain one's numbers exactly: counts, assignments, and
the whole time-constrained matrices cell for cell.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from meeting_strategies import session, timed_words

from lightscore.text.meeting import assignment, orc_search, reference, tc_bands
from lightscore.text.meeting.time_constrained import tc_levenshtein, tcp_counts

pytest.importorskip("kaldialign")  # the S/D/I breakdown both twins report

IDS = st.lists(st.integers(0, 3), max_size=5)


@settings(max_examples=200, deadline=None)
@given(dims=st.lists(st.integers(1, 4), min_size=1, max_size=4))
def test_orc_start_costs_equal_plain(dims) -> None:
    """Empty streams (a dimension of 1) make meeteval's start state skip strides: both keep its numbers."""
    assert orc_search.start_costs(np.array(dims)).tolist() == reference.orc_start_costs(dims)


@settings(max_examples=300, deadline=None)
@given(utterances=st.lists(IDS, max_size=5), streams=st.lists(IDS, min_size=1, max_size=3))
def test_orc_matching_equals_plain(utterances, streams) -> None:
    """Empty utterances and streams, a vocabulary of 4 words: many equal-cost assignments, the same one chosen."""
    assert assignment.orc_matching(utterances, streams) == reference.orc_matching(utterances, streams)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ref=session("r", min_speakers=1), hyp=session("h"))
def test_cp_counts_equal_plain(ref, hyp) -> None:
    assert assignment.cp_counts(ref, hyp) == reference.cp_counts(ref, hyp)


@settings(max_examples=300, deadline=None)
@given(ref=st.lists(st.sampled_from("abc"), max_size=8), hyp=st.lists(st.sampled_from("abc"), max_size=8))
def test_levenshtein_equals_rapidfuzz(ref, hyp) -> None:
    from rapidfuzz.distance import Levenshtein

    assert reference.levenshtein(ref, hyp) == Levenshtein.distance(ref, hyp)


@settings(max_examples=400, deadline=None)
@given(ref=timed_words(), hyp=timed_words())
def test_tc_levenshtein_equals_plain(ref, hyp) -> None:
    assert tc_levenshtein(ref, hyp) == reference.tc_levenshtein(ref, hyp)


@settings(max_examples=200, deadline=None)
@given(refs=st.lists(timed_words(), min_size=1, max_size=3), hyps=st.lists(timed_words(), min_size=1, max_size=3))
def test_whole_matrices_equal_plain_unpruned(refs, hyps) -> None:
    """Every reference stream against every hypothesis stream side by side: each is the plain whole matrix."""
    vocab: dict[str, int] = {}
    sr = [s for s in (tc_bands.stream(w, vocab) for w in refs) if len(s.ids)]
    sh = [s for s in (tc_bands.stream(w, vocab) for w in hyps) if len(s.ids)]
    if not sr or not sh:
        return
    whole = tc_bands.whole_matrices(sr, sh)
    for r, a in enumerate(sr):
        for h, b in enumerate(sh):
            matrix = reference.tc_matrix(tc_bands.timed(a), tc_bands.timed(b), prune=False)
            assert whole.distances[r, h] == matrix[-1][-1]
            cell = whole.cell(r, h, (len(a.ids), len(b.ids)))
            assert [[cell(i, j) for j in range(len(b.ids) + 1)] for i in range(len(a.ids) + 1)] == matrix


TIMINGS = st.sampled_from(["character_based", "character_based_points", "equidistant_intervals", "full_segment"])


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ref=session("r", min_speakers=1),
    hyp=session("h"),
    collar=st.sampled_from([0.0, 0.25, 1.0, 5.0]),
    ref_timing=TIMINGS,
    hyp_timing=TIMINGS,
    keep_rows=st.booleans(),
)
def test_tcp_counts_equal_plain(ref, hyp, collar, ref_timing, hyp_timing, keep_rows) -> None:
    """Collars that reach below 0 (whole fills), sorted and unsorted streams; with and without kept rows."""
    keep = tc_bands.KEEP_CELLS
    tc_bands.KEEP_CELLS = keep if keep_rows else 0
    try:
        fast = tcp_counts(ref, hyp, collar, ref_timing, hyp_timing)
    finally:
        tc_bands.KEEP_CELLS = keep
    assert fast == reference.tcp_counts(ref, hyp, collar, ref_timing, hyp_timing)
