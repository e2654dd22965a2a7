"""Greedy ORC-WER, tcORC-WER and greedy tcORC-WER against meeteval, the oracle run in the test: its documented
examples (doctests and README), its Python API on generated sessions, its corpus API through the metrics; the
compiled searches against their plain twins (the same loops run by Python); N instances merged equal one."""

from __future__ import annotations

import logging

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from meeting_strategies import session, timed_words
from test_meeting_wer import as_seglst

from lightscore.core.batch import feed
from lightscore.metrics.meeting_orc import TCORCWER, GreedyORCWER, GreedyTCORCWER
from lightscore.segments import Segment
from lightscore.text.meeting import greedy_orc, orc_search, tc_bands, tc_orc, tc_pair
from lightscore.text.meeting.assignment import orc_counts
from lightscore.text.meeting.greedy_orc import greedy_orc_counts
from lightscore.text.meeting.tc_orc import greedy_tc_orc_counts, tc_orc_counts

meeteval = pytest.importorskip("meeteval")
from meeteval.io import SegLST  # noqa: E402
from meeteval.wer import api  # noqa: E402
from meeteval.wer.matching.greedy_combination_matching import (  # noqa: E402
    greedy_time_constrained_combination_matching,
)
from meeteval.wer.wer.orc import greedy_orc_word_error_rate  # noqa: E402
from meeteval.wer.wer.time_constrained_orc import (  # noqa: E402
    greedy_time_constrained_orc_wer,
    time_constrained_orc_wer,
)

logging.getLogger("preprocess").setLevel(logging.ERROR)  # meeteval warns about collars on every session

TIMINGS = st.sampled_from(["character_based", "character_based_points", "equidistant_intervals", "full_segment"])
COLLARS = st.sampled_from([0.0, 0.25, 1.0, 5.0])


def oracle(score, ref: list[Segment], hyp: list[Segment], **options) -> tuple:
    """meeteval's counts and assignment; its ``'dummy'`` stream (no hypothesis stream at all) is lightscore's None."""
    er = score(as_seglst(ref), as_seglst(hyp), **options)
    assignment = tuple(None if a == "dummy" else a for a in er.assignment)
    return er.errors, er.length, er.substitutions, er.deletions, er.insertions, assignment


def listed(ref: list[str], hyp: list[str] | dict[str, str]) -> tuple[list[Segment], list[Segment]]:
    """meeteval's list inputs as segments: reference segments in order, each hypothesis stream one segment."""
    names = hyp if isinstance(hyp, dict) else {str(i): words for i, words in enumerate(hyp)}
    return (
        [Segment("R", float(i), i + 1.0, words) for i, words in enumerate(ref)],
        [Segment(name, 0.0, 1.0, words) for name, words in names.items()],
    )


# meeteval's documented examples, with their inputs and expected values: (errors, length, S, D, I, streams).
GREEDY_ORC_DOCTESTS = [  # greedy_orc_word_error_rate's docstring
    (["a b", "c d", "e f"], ["a b c d e f"], (0, 6, 0, 0, 0, ("0", "0", "0"))),
    (["a b", "c d", "e f"], ["a b", "c d e f"], (0, 6, 0, 0, 0, ("0", "1", "1"))),
    (["a", "c d e"], ["a c", "d e"], (2, 4, 0, 1, 1, ("0", "1"))),
    (["a", "c d e"], {"A": "a c", "B": "d e"}, (2, 4, 0, 1, 1, ("A", "B"))),
    # the README's ORC-WER example: the greedy search finds the same assignment
    (
        ["The quick brown fox", "jumps over the lazy dog"],
        ["The kwick brown fox", "jump over lazy "],
        (4, 9, 2, 2, 0, ("0", "1")),
    ),
]


@pytest.mark.parametrize(("ref", "hyp", "expected"), GREEDY_ORC_DOCTESTS)
def test_meeteval_documented_greedy_orc_examples(ref, hyp, expected) -> None:
    ref_segments, hyp_segments = listed(ref, hyp)
    assert tuple(greedy_orc_counts(ref_segments, hyp_segments)) == expected
    assert tuple(greedy_orc_counts(ref_segments, hyp_segments)) == oracle(
        greedy_orc_word_error_rate, ref_segments, hyp_segments
    )


def test_meeteval_readme_orc_example() -> None:
    """The README's low-level ORC-WER example: 4 errors of 9 words, 2 substitutions, 2 deletions, streams (0, 1)."""
    ref, hyp = listed(["The quick brown fox", "jumps over the lazy dog"], ["The kwick brown fox", "jump over lazy "])
    assert tuple(orc_counts(ref, hyp)) == (4, 9, 2, 2, 0, ("0", "1"))


def test_meeteval_documented_stm_example() -> None:
    """The STM example of orc_word_error_rate's and greedy_orc_word_error_rate's docstrings: ('0', '0', '1')."""
    ref = [Segment("A", 0.0, 1.0, "a b"), Segment("B", 0.0, 2.0, "e f"), Segment("A", 1.0, 2.0, "c d")]
    hyp = [Segment("1", 0.0, 2.0, "c d"), Segment("0", 0.0, 2.0, "a b e f")]
    expected = (0, 6, 0, 0, 0, ("0", "0", "1"))
    assert tuple(greedy_orc_counts(ref, hyp)) == expected
    assert tuple(orc_counts(ref, hyp)) == expected


def seg(words: str, speaker: str = "A") -> Segment:
    return Segment(speaker, 0.0, 1.0, words)


@pytest.mark.parametrize("score", [orc_counts, greedy_orc_counts])
def test_meeteval_documented_empty_reference_segment(score) -> None:
    """The docstrings' last example: an empty reference segment, one hypothesis word: 1 insertion, stream 'A'."""
    assert tuple(score([seg("")], [seg("a")])) == (1, 0, 0, 0, 1, ("A",))


TC_DOCTESTS = [  # time_constrained_orc_wer's and greedy_time_constrained_orc_wer's docstrings, collar 5
    ([], [], (0, 0, 0, 0, 0, ())),
    ([], [seg("a")], (1, 0, 0, 0, 1, ())),
    ([seg("a")], [], (1, 1, 0, 1, 0, (None,))),  # meeteval's stream 'dummy'
    ([seg("")], [seg("a")], (1, 0, 0, 0, 1, ("A",))),
    ([seg("a b")], [seg("a d")], (1, 2, 1, 0, 0, ("A",))),
]


@pytest.mark.parametrize(("ref", "hyp", "expected"), TC_DOCTESTS)
@pytest.mark.parametrize(
    ("ours", "theirs"),
    [(tc_orc_counts, time_constrained_orc_wer), (greedy_tc_orc_counts, greedy_time_constrained_orc_wer)],
)
def test_meeteval_documented_tc_orc_examples(ref, hyp, expected, ours, theirs) -> None:
    assert tuple(ours(ref, hyp, collar=5)) == expected
    assert oracle(theirs, ref, hyp, collar=5) == expected


@pytest.mark.parametrize(
    ("segments", "streams", "initial", "expected"),
    [  # greedy_time_constrained_combination_matching's docstring: (distance, assignment)
        ([[(0, 0, 1), (1, 1, 2)]], [[(0, 0, 1), (1, 1, 2)]], [0], (0, [0])),
        ([[(0, 0, 1)], [(1, 1, 2)]], [[(0, 0, 1)], [(1, 1, 2)]], [0, 0], (0, [0, 1])),
    ],
)
def test_meeteval_documented_greedy_matching(segments, streams, initial, expected) -> None:
    assert greedy_orc.greedy_matching(segments, streams, initial) == expected
    assert greedy_time_constrained_combination_matching(segments, streams, initial) == expected


@pytest.mark.parametrize(
    ("streams", "initial", "expected"),
    [  # _greedy_correct_assignment's docstring (one sweep pass, substitutions costing 1): (assignment, distance)
        (3, [0, 1, 2], ([0, 1, 2], 0)),
        (3, [1, 0, 0], ([0, 1, 2], 0)),
        (2, [1, 0, 0], ([0, 1, 0], 3)),
    ],
)
def test_meeteval_documented_greedy_sweeps(streams, initial, expected) -> None:
    words, bounds = orc_search.flatten([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    hyp, hyp_bounds = orc_search.flatten([[1, 2, 3], [4, 5, 6], [7, 8, 9]][:streams])
    times = (np.zeros(len(words)), np.ones(len(words)))
    hyp_times = (np.zeros(len(hyp)), np.ones(len(hyp)))
    cost, assignment = greedy_orc.sweeps(
        words, *times, bounds, hyp, *hyp_times, hyp_bounds, np.array(initial, dtype=np.int64), 1
    )
    assert (assignment.tolist(), int(cost)) == expected


def test_meeteval_documented_initial_assignment() -> None:
    """initialize_assignment's docstring ('cp'): speakers A (words a b) and B (c) onto streams A (c) and B (a b)
    give [1, 0]; with speakers A (a), C (b), B (c) the Hungarian leaves A over, sent to its nearest stream: [0, 0]
    (the distances are Levenshtein's, the last column and row against nothing)."""
    assert greedy_orc.initial_streams([0, 1], [[2, 0, 2], [0, 2, 1], [1, 2, 0]]) == [1, 0]
    assert greedy_orc.initial_streams([0, 2], [[1, 1, 1], [1, 1, 1], [0, 2, 1], [1, 2, 0]]) == [0, 0]


# Generated sessions against meeteval's Python API: 1-6 reference speakers; no, fewer, as many or more streams;
# speakers with only empty segments; overlapping segments; ties on a quarter-second grid.
HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large]


@settings(max_examples=60, deadline=None, suppress_health_check=HEALTH)
@given(ref=session("r", min_speakers=1), hyp=session("h"))
def test_greedy_orc_equals_meeteval(ref, hyp) -> None:
    assert tuple(greedy_orc_counts(ref, hyp)) == oracle(greedy_orc_word_error_rate, ref, hyp)


def same_or_both_refuse(ours, theirs) -> None:
    """Both give the same counts and assignment, or both refuse the session with a ValueError (a sort of True
    and word times that run backwards)."""
    try:
        expected = theirs()
    except ValueError:
        with pytest.raises(ValueError):
            ours()
        return
    assert tuple(ours()) == expected


REF_SORTS = st.sampled_from(["segment", True, False])  # meeteval refuses "word" for tcORC-WER's reference
HYP_SORTS = st.sampled_from(["segment", "word", True, False])


@settings(max_examples=60, deadline=None, suppress_health_check=HEALTH)
@given(
    ref=session("r", min_speakers=1),
    hyp=session("h", max_speakers=4),
    collar=COLLARS,
    timing=TIMINGS,
    ref_sort=REF_SORTS,
    hyp_sort=HYP_SORTS,
)
def test_tc_orc_equals_meeteval(ref, hyp, collar, timing, ref_sort, hyp_sort) -> None:
    """Up to 4 streams: the exact search's state grows with the product of the streams' windows."""
    options = dict(reference_pseudo_word_level_timing=timing, reference_sort=ref_sort, hypothesis_sort=hyp_sort)
    same_or_both_refuse(
        lambda: tc_orc_counts(ref, hyp, collar, **options),
        lambda: oracle(time_constrained_orc_wer, ref, hyp, collar=collar, **options),
    )


@settings(max_examples=60, deadline=None, suppress_health_check=HEALTH)
@given(
    ref=session("r", min_speakers=1),
    hyp=session("h"),
    collar=COLLARS,
    timing=TIMINGS,
    sorts=st.tuples(REF_SORTS, REF_SORTS),
)
def test_greedy_tc_orc_equals_meeteval(ref, hyp, collar, timing, sorts) -> None:
    options = dict(hypothesis_pseudo_word_level_timing=timing, reference_sort=sorts[0], hypothesis_sort=sorts[1])
    same_or_both_refuse(
        lambda: greedy_tc_orc_counts(ref, hyp, collar, **options),
        lambda: oracle(greedy_time_constrained_orc_wer, ref, hyp, collar=collar, **options),
    )


@pytest.mark.parametrize(
    ("ours", "theirs", "option"),
    [
        (tc_orc_counts, time_constrained_orc_wer, "reference_sort"),
        (greedy_tc_orc_counts, greedy_time_constrained_orc_wer, "reference_sort"),
        (greedy_tc_orc_counts, greedy_time_constrained_orc_wer, "hypothesis_sort"),
    ],
)
def test_word_sort_refused_where_meeteval_refuses_it(ours, theirs, option) -> None:
    ref, hyp = [seg("a b")], [seg("a")]
    with pytest.raises(ValueError, match="word"):
        theirs(as_seglst(ref), as_seglst(hyp), collar=1, **{option: "word"})
    with pytest.raises(ValueError, match=f"{option} 'word' is not supported"):
        ours(ref, hyp, 1, **{option: "word"})


# The compiled searches against their plain twins (the same loops run by Python): small inputs, many ties.
IDS = st.lists(st.integers(0, 3), max_size=4)


@settings(max_examples=40, deadline=None)
@given(utterances=st.lists(IDS, max_size=4), streams=st.lists(IDS, min_size=1, max_size=3))
def test_orc_search_equals_its_plain_twin(utterances, streams) -> None:
    compiled = orc_search.orc_matching(utterances, streams)
    assert compiled == orc_search.orc_matching(utterances, streams, compiled=False)
    assert orc_search.start_costs(np.array([len(s) + 1 for s in streams])).tolist() == (
        orc_search.start_costs.py_func(np.array([len(s) + 1 for s in streams])).tolist()
    )


@st.composite
def timed_lists(draw, count: st.SearchStrategy, size: int = 4) -> list[list[tuple[int, float, float]]]:
    """Lists of ``(word id, start, end)`` on a quarter-second grid, sorted or not, negative starts included."""
    out = []
    for _ in range(draw(count)):
        words = [
            (w, start / 4, start / 4 + d / 4)
            for w, start, d in draw(
                st.lists(st.tuples(st.integers(0, 3), st.integers(-4, 24), st.integers(0, 8)), max_size=size)
            )
        ]
        if draw(st.booleans()):
            words.sort(key=lambda w: w[1])
        out.append(words)
    return out


@settings(max_examples=40, deadline=None)
@given(segments=timed_lists(st.integers(0, 4)), streams=timed_lists(st.integers(1, 3)), data=st.data())
def test_greedy_sweeps_equal_their_plain_twin(segments, streams, data) -> None:
    initial = data.draw(st.lists(st.integers(0, len(streams) - 1), min_size=len(segments), max_size=len(segments)))
    compiled = greedy_orc.greedy_matching(segments, streams, initial)
    assert compiled == greedy_orc.greedy_matching(segments, streams, initial, compiled=False)


@settings(max_examples=40, deadline=None)
@given(segments=timed_lists(st.integers(0, 4)), streams=timed_lists(st.integers(1, 3)))
def test_tc_orc_search_equals_its_plain_twin(segments, streams) -> None:
    spoken = [s for s in segments if s]  # the search takes segments that hold words
    assert tc_orc.tc_orc_matching(spoken, streams) == tc_orc.tc_orc_matching(spoken, streams, compiled=False)


@settings(max_examples=60, deadline=None)
@given(ref=timed_words(), hyp=timed_words())
def test_tc_pair_equals_tc_matrix_and_walk(ref, hyp) -> None:
    """The compiled pair against the plain matrix fill and traceback (tc_bands), pruned and whole."""
    ref = [(w, s, e) for w, s, e in ref if w]
    hyp = [(w, s, e) for w, s, e in hyp if w]
    vocab = {"a": 0, "b": 1, "c": 2}
    ref_ids = [(vocab[w], s, e) for w, s, e in ref]
    hyp_ids = [(vocab[w], s, e) for w, s, e in hyp]
    compiled = tc_pair.pair_breakdown(ref_ids, hyp_ids)
    assert compiled == tc_pair.pair_breakdown(ref_ids, hyp_ids, compiled=False)
    if ref and hyp:
        prune = tc_bands.starts_sorted([s for _, s, _ in ref], 0.0) and tc_bands.starts_sorted(
            [s for _, s, _ in hyp], 0.0
        )
        matrix = tc_bands.tc_matrix(ref, hyp, prune=prune)
        assert compiled == (matrix[-1][-1], *tc_bands.walk(lambda i, j: matrix[i][j], ref, hyp))


@settings(max_examples=15, deadline=None, suppress_health_check=HEALTH)
@given(ref=session("r", min_speakers=1, max_speakers=3), hyp=session("h", max_speakers=3))
def test_session_counts_equal_their_plain_twins(ref, hyp) -> None:
    assert greedy_orc_counts(ref, hyp) == greedy_orc_counts(ref, hyp, compiled=False)
    assert tc_orc_counts(ref, hyp, 1.0) == tc_orc_counts(ref, hyp, 1.0, compiled=False)
    assert greedy_tc_orc_counts(ref, hyp, 1.0) == greedy_tc_orc_counts(ref, hyp, 1.0, compiled=False)


# The metrics: corpus and per-session results against meeteval's corpus API; N instances merged equal one.
def corpus(sessions: int = 12, seed: int = 3) -> tuple[dict[str, list[Segment]], dict[str, list[Segment]]]:
    import random

    rng = random.Random(seed)
    refs: dict[str, list[Segment]] = {}
    hyps: dict[str, list[Segment]] = {}
    for i in range(sessions):
        t = 0.0
        sid = f"s{i:02d}"
        refs[sid], hyps[sid] = [], []
        for _ in range(rng.randint(1, 8)):
            words = " ".join(rng.choice(["a", "b", "c", "the", "cat"]) for _ in range(rng.randint(0, 5)))
            refs[sid].append(Segment(f"spk{rng.randint(0, 2)}", t, t + 2, words))
            hyps[sid].append(Segment(f"ch{rng.randint(0, 2)}", max(0.0, t + rng.uniform(-1, 1)), t + 2, words))
            t += rng.uniform(0, 3)
    return refs, hyps


def seglst(sessions: dict[str, list[Segment]]) -> SegLST:
    return SegLST([{**row, "session_id": sid} for sid, segments in sessions.items() for row in as_seglst(segments)])


@pytest.mark.parametrize(
    ("metric", "tool", "options"),
    [
        (GreedyORCWER, "greedy_orcwer", {}),
        (TCORCWER, "tcorcwer", {"collar": 1.0}),
        (GreedyTCORCWER, "greedy_tcorcwer", {"collar": 1.0}),
    ],
)
def test_metric_equals_meeteval_and_merged_halves_equal_one(tmp_path, metric, tool, options) -> None:
    """Per session and corpus against meeteval's API, with a UEM file (two sessions not listed); the rows split
    over two instances and merged equal one instance."""
    from meeteval.io.uem import UEM, UEMLine

    refs, hyps = corpus()
    ids = list(refs)
    regions = {sid: (float(k % 3), 6.0 + k) for k, sid in enumerate(ids[:-2])}
    uem_file = tmp_path / "some.uem"
    uem_file.write_text("".join(f"{sid} 1 {begin} {end}\n" for sid, (begin, end) in regions.items()))
    whole = metric(uem=str(uem_file), **options)
    feed(whole, {"ref": [refs[s] for s in ids], "hyp": [hyps[s] for s in ids]}, ids)
    halves = []
    for part in (ids[::2], ids[1::2]):
        m = metric(uem=str(uem_file), **options)
        feed(m, {"ref": [refs[s] for s in part], "hyp": [hyps[s] for s in part]}, part)
        halves.append(m.state())
    merged = metric(uem=str(uem_file), **options)
    merged.load_state(merged.merge_states(halves))
    assert merged.compute() == whole.compute()
    assert merged.session_results() == whole.session_results()
    uem = UEM([UEMLine(sid, 1, begin, end) for sid, (begin, end) in regions.items()])
    theirs = getattr(api, tool)(seglst(refs), seglst(hyps), uem=uem, **options)
    name = whole.name
    result = whole.compute()
    total = sum(theirs.values())
    assert result[f"{name}_errors"] == total.errors and result[f"{name}_length"] == total.length
    assert result[name] == pytest.approx(total.error_rate * 100, abs=1e-12)
    for record in whole.session_results():
        er = theirs[record[0]]
        assert record[1:-1] == [er.errors, er.length, er.substitutions, er.deletions, er.insertions]
        assert tuple(record[-1]) == er.assignment


def test_bad_options_and_sessions_are_named() -> None:
    with pytest.raises(ValueError, match="tcorcWER: collar must be a number >= 0, got -1"):
        TCORCWER(collar=-1)
    with pytest.raises(ValueError, match="tcorcWER: reference_sort 'word' is not supported"):
        TCORCWER(collar=1, reference_sort="word")
    with pytest.raises(ValueError, match="greedy_tcorcWER: hypothesis_sort 'word' is not supported"):
        GreedyTCORCWER(collar=1, hypothesis_sort="word")
    with pytest.raises(ValueError, match="greedy_tcorcWER: hypothesis_pseudo_word_level_timing 'points'"):
        GreedyTCORCWER(collar=1, hypothesis_pseudo_word_level_timing="points")
    m = TCORCWER(collar=1, reference_pseudo_word_level_timing="none")
    with pytest.raises(ValueError, match="tcorcWER: session 'sess7': pseudo-word-level timing 'none'"):
        feed(m, {"ref": [[Segment("A", 0, 1, "two words")]], "hyp": [[Segment("x", 0, 1, "a")]]}, ["sess7"])
