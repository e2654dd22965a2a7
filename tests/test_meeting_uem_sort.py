"""UEM scoring regions (cpWER, tcpWER and the other word error rates) and tcpWER's sort options, against meeteval."""

from __future__ import annotations

import logging
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from meeting_strategies import session
from test_meeting_wer import as_seglst

from lightscore.core.batch import feed
from lightscore.metrics.meeting_wer import CPWER, TCPWER
from lightscore.segments import Segment, dumps
from lightscore.text.meeting.assignment import cp_counts
from lightscore.text.meeting.time_constrained import pseudo_word_times, tcp_counts
from lightscore.text.meeting.uem import in_regions

meeteval = pytest.importorskip("meeteval")
from meeteval.io.uem import UEM, UEMLine  # noqa: E402
from meeteval.wer import api  # noqa: E402
from meeteval.wer.wer.cp import cp_word_error_rate  # noqa: E402
from meeteval.wer.wer.time_constrained import tcp_word_error_rate  # noqa: E402

# meeteval warns about collar 0, word order and self-overlap on every call
for _name in ("preprocess", "error_rate"):
    logging.getLogger(_name).setLevel(logging.ERROR)
FIELDS = ("errors", "length", "substitutions", "deletions", "insertions")
SORTS = st.sampled_from(["segment", "word", True, False])


def counts(result) -> tuple:
    return tuple(getattr(result, f) for f in FIELDS)


def test_in_regions_equals_meeteval_documented_example() -> None:
    """meeteval's ``SegLST.filter_by_uem`` doctest: partly inside is kept, ends touching count, other sessions kept."""
    segs = [
        Segment("A", 2, 6, "w"),
        Segment("A", 8, 12, "w"),
        Segment("B", 14, 16, "w"),
        Segment("A", 18, 22, "w"),
        Segment("A", 24, 28, "w"),
    ]
    assert [s.start for s in in_regions(segs, [(10.0, 20.0)])] == [8, 14, 18]
    assert in_regions(segs, None) == segs
    assert [s.start for s in in_regions(segs, [(6.0, 8.0)])] == [2, 8]  # touching at either end is inside


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ref=session("r", min_speakers=1),
    hyp=session("h"),
    begin=st.integers(0, 40),
    width=st.integers(0, 40),
    collar=st.sampled_from([0.0, 0.5, 5.0]),
)
def test_uem_region_equals_meeteval(ref, hyp, begin, width, collar) -> None:
    """cpWER and tcpWER on the segments in the region equal meeteval's ``uem=`` (regions on the quarter grid)."""
    region = (begin / 4, (begin + width) / 4)
    uem = UEM([UEMLine("s", 1, *region)])
    kept_ref, kept_hyp = in_regions(ref, [region]), in_regions(hyp, [region])
    # meeteval's api filters with SegLST.filter_by_uem, then scores (its multi-file checks refuse empty sessions)
    their_ref, their_hyp = as_seglst(ref).filter_by_uem(uem), as_seglst(hyp).filter_by_uem(uem)
    assert len(their_ref) == len(kept_ref) and len(their_hyp) == len(kept_hyp)
    ours = cp_counts(kept_ref, kept_hyp)
    theirs = cp_word_error_rate(their_ref, their_hyp)
    assert (*counts(ours), ours.assignment) == (*counts(theirs), theirs.assignment)
    ours = tcp_counts(kept_ref, kept_hyp, collar)
    theirs = tcp_word_error_rate(their_ref, their_hyp, collar=collar)
    assert (*counts(ours), ours.assignment) == (*counts(theirs), theirs.assignment)


def random_session(rng: random.Random, prefix: str) -> list[Segment]:
    segments = [Segment(f"{prefix}0", 12, 14, "a b")]  # in every region: meeteval refuses an emptied session
    for _ in range(rng.randint(1, 8)):
        start = rng.randint(0, 60) / 2
        words = " ".join(rng.choice("a b c d the cat".split()) for _ in range(rng.randint(0, 5)))
        segments.append(Segment(f"{prefix}{rng.randrange(3)}", start, start + rng.randint(1, 8) / 2, words))
    return segments


def write_uem(path: Path, regions: dict[str, tuple[float, float]]) -> None:
    path.write_text("".join(f"{session} 1 {begin} {end}\n" for session, (begin, end) in regions.items()))


@pytest.mark.parametrize(("metric", "tool", "options"), [(CPWER, api.cpwer, {}), (TCPWER, api.tcpwer, {"collar": 1})])
def test_metric_uem_file_equals_meeteval(tmp_path, metric, tool, options) -> None:
    """A UEM file: listed sessions scored in their region, an unlisted one whole; per session and corpus."""
    rng = random.Random(7)
    sessions = {f"s{k}": (random_session(rng, "r"), random_session(rng, "h")) for k in range(6)}
    regions = {f"s{k}": (rng.randint(0, 10), rng.randint(12, 30)) for k in range(5)}  # s5 is not listed
    write_uem(tmp_path / "all.uem", regions)
    m = metric(uem=str(tmp_path / "all.uem"), **options)
    ids = list(sessions)
    feed(m, {"ref": [dumps(sessions[s][0]) for s in ids], "hyp": [dumps(sessions[s][1]) for s in ids]}, ids)
    result = m.compute()
    uem = UEM([UEMLine(s, 1, float(b), float(e)) for s, (b, e) in regions.items()])
    ref = sum((as_seglst(sessions[s][0], s) for s in ids), as_seglst([]))
    hyp = sum((as_seglst(sessions[s][1], s) for s in ids), as_seglst([]))
    theirs = tool(ref, hyp, uem=uem, **options)
    for record in m.session_results():
        assert tuple(record[1:6]) == counts(theirs[record[0]]), record[0]
    assert result[f"{m.name}_errors"] == sum(t.errors for t in theirs.values())
    assert result[f"{m.name}_length"] == sum(t.length for t in theirs.values())
    everything = sum(len(seg.words.split()) for ref_segments, _ in sessions.values() for seg in ref_segments)
    assert result[f"{m.name}_length"] < everything  # the regions dropped words
    assert f"uem={tmp_path / 'all.uem'}" in m.settings()
    without = metric(**options)
    feed(without, {"ref": [dumps(sessions["s5"][0])], "hyp": [dumps(sessions["s5"][1])]}, ["s5"])
    assert without.session_results()[0][1:6] == [r for r in m.session_results() if r[0] == "s5"][0][1:6]


def test_bad_uem_names_the_file_and_line(tmp_path) -> None:
    (tmp_path / "bad.uem").write_text("s1 1 0 10\ns1 1 x 20\n")
    with pytest.raises(ValueError, match=r"cpWER: uem: .*bad.uem line 2 \(session 's1'\): start 'x' is not a number"):
        CPWER(uem=str(tmp_path / "bad.uem"))
    with pytest.raises(ValueError, match=r"tcpWER: uem: .*no/such.uem"):
        TCPWER(collar=5, uem="no/such.uem")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ref=session("r", min_speakers=1),
    hyp=session("h"),
    collar=st.sampled_from([0.0, 0.5, 5.0]),
    reference_sort=SORTS,
    hypothesis_sort=SORTS,
)
def test_sort_options_equal_meeteval(ref, hyp, collar, reference_sort, hypothesis_sort) -> None:
    """Every pair of sort options: the same counts and assignment as meeteval, or both refuse (``True``)."""
    sorts = dict(reference_sort=reference_sort, hypothesis_sort=hypothesis_sort)
    try:
        theirs = tcp_word_error_rate(as_seglst(ref), as_seglst(hyp), collar=collar, **sorts)
    except ValueError as e:
        assert "contradicts" in str(e)
        with pytest.raises(ValueError, match="contradicts the segment-level order"):
            tcp_counts(ref, hyp, collar, **sorts)
        return
    ours = tcp_counts(ref, hyp, collar, **sorts)
    assert (*counts(ours), ours.assignment) == (*counts(theirs), theirs.assignment)


def test_sort_options_change_the_number_as_meeteval_documents() -> None:
    """meeteval's ``_preprocess_single`` example: overlapping segments of one speaker, sorted each way."""
    segments = [Segment("A", 1, 3, "c d"), Segment("A", 0, 3, "a b")]
    order = {
        sort: [w for w, _, _ in pseudo_word_times(segments, "character_based", sort=sort)["A"]]
        for sort in ("segment", "word", False)
    }
    assert order == {"segment": ["a", "b", "c", "d"], "word": ["a", "c", "b", "d"], False: ["c", "d", "a", "b"]}
    with pytest.raises(ValueError, match="speaker 'A': 2 of 4 times"):
        pseudo_word_times(segments, "character_based", sort=True)
    hyp = [Segment("x", 0, 3, "a c b d")]
    for sort, errors in (("segment", 2), ("word", 0)):
        m = TCPWER(collar=0, reference_sort=sort)
        feed(m, {"ref": [segments], "hyp": [hyp]}, ["s1"])
        assert m.compute()["tcpWER_errors"] == errors
        expected = tcp_word_error_rate(as_seglst(segments), as_seglst(hyp), collar=0, reference_sort=sort)
        assert expected.errors == errors


def test_bad_sort_option_is_refused() -> None:
    with pytest.raises(ValueError, match="tcpWER: reference_sort 'start' is not one of 'segment', 'word', True, False"):
        TCPWER(collar=5, reference_sort="start")
    with pytest.raises(ValueError, match="hypothesis_sort 1 is not one of"):
        TCPWER(collar=5, hypothesis_sort=1)
    metric = TCPWER(5, reference_sort="word", hypothesis_sort=False)
    assert "reference_sort=word hypothesis_sort=False" in metric.settings()
