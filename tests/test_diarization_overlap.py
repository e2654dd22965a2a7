"""DER/JER on speakers whose own turns overlap, the overlap option and UEM regions, against the oracles.

``sctk md-eval`` reads such RTTM files (its check for them never runs) and counts a speaker once
wherever one of its turns is active: the merge. Its collars still sit around every turn as
written, and ``-1`` leaves out wherever two reference turns overlap, a speaker's own included.
pyannote.metrics places its collars and overlap the same way (``extrude`` counts turns), but on
an annotation whose turns overlap it counts a speaker's doubled time twice (shown below): it is
compared through its own regions (``uemify`` on the turns as given) scored on its own merge of
the turns (``Annotation.support()``).
"""

from __future__ import annotations

import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_diarization import annotation, md_eval, needs_mdeval, seconds, write_rttm

from lightscore.analysis.diarization import diarization_counts
from lightscore.core.batch import feed
from lightscore.metrics.meeting import DER, JER
from lightscore.segments import Segment, dumps, read_rttm, write_session_scps


@st.composite
def turns(draw, prefix: str, min_speakers: int, max_speakers: int = 4) -> list[Segment]:
    """Speakers whose turns start anywhere on a 10 ms grid, so a speaker's turns often overlap each other."""
    segments = []
    for k in range(draw(st.integers(min_speakers, max_speakers))):
        for _ in range(draw(st.integers(1, 4))):
            t, d = draw(st.integers(0, 800)), draw(st.integers(1, 400))
            segments.append(Segment(f"{prefix}{k}", t / 100, (t + d) / 100))
    return segments


def self_overlaps(segments: list[Segment]) -> int:
    """Turns that start before an earlier turn of their speaker ends (what the metric counts)."""
    count = 0
    for speaker in {s.speaker for s in segments}:
        reach = None
        for s in sorted((s.start, s.end) for s in segments if s.speaker == speaker and s.end > s.start):
            count += reach is not None and s[0] < reach
            reach = s[1] if reach is None else max(reach, s[1])
    return count


def test_rttm_with_a_speaker_overlapping_itself_is_read_and_scored_merged(tmp_path) -> None:
    """The example from issue 39: 'r0' talks 0-2 s and 1-3 s; md-eval merges them (3 s), and so do we."""
    (tmp_path / "ref.rttm").write_text(
        "SPEAKER s1 1 0.00 2.00 <NA> <NA> r0 <NA> <NA>\n"
        "SPEAKER s1 1 1.00 2.00 <NA> <NA> r0 <NA> <NA>\n"
        "SPEAKER s1 1 2.50 1.00 <NA> <NA> r1 <NA> <NA>\n"
    )
    (tmp_path / "hyp.rttm").write_text(
        "SPEAKER s1 1 0.00 1.50 <NA> <NA> x <NA> <NA>\nSPEAKER s1 1 0.50 3.00 <NA> <NA> x <NA> <NA>\n"
    )
    assert len(read_rttm(tmp_path / "ref.rttm")["s1"]) == 3  # kept as given
    scps = write_session_scps(tmp_path / "ref.rttm", tmp_path / "hyp.rttm", tmp_path / "scp")
    result = DER()(scps, "dev")
    # r0 0-3 and r1 2.5-3.5 (4 s); x 0-3.5 mapped to r0: 0.5 s missed (2.5-3), 0.5 s confused (3-3.5).
    assert (result["DER_scored"], result["DER_missed"], result["DER_confusion"], result["DER"]) == (4, 0.5, 0.5, 25)
    assert (result["DER_ref_self_overlaps"], result["DER_hyp_self_overlaps"]) == (1, 1)
    if md_eval_installed():
        totals, _ = md_eval(tmp_path, 0.0, False)
        assert totals == (4.0, 0.5, 0.0, 0.5)


def md_eval_installed() -> bool:
    from test_diarization import SCTK

    return SCTK is not None


@needs_mdeval
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(
    ref=turns("r", 1),
    hyp=turns("h", 0),
    collar=st.sampled_from([0.0, 0.25]),
    overlap=st.sampled_from(["score", "skip"]),
    with_uem=st.booleans(),
)
def test_self_overlapping_sessions_equal_md_eval(tmp_path_factory, ref, hyp, collar, overlap, with_uem) -> None:
    """Collars, ``-1`` and ``-u`` on self-overlapping turns: md-eval's totals under md-eval's own mapping."""
    d = tmp_path_factory.mktemp("md")
    write_rttm(d / "ref.rttm", {"s1": ref})
    write_rttm(d / "hyp.rttm", {"s1": hyp})
    uem = [(1.0, 4.0), (5.5, 9.0)] if with_uem else None
    if uem:
        (d / "s.uem").write_text("".join(f"s1 1 {s:.2f} {e:.2f}\n" for s, e in uem))
    totals, tool = md_eval(d, collar, overlap == "skip", uem=d / "s.uem" if uem else None)
    theirs = {r: h for (_, r), h in tool["map"].items()}
    options = dict(collar=collar, overlap=overlap, uem=uem, ticks_per_second=100)
    given_map = diarization_counts(ref, hyp, mapping=theirs, **options)
    ours = diarization_counts(ref, hyp, **options)
    if totals is not None:
        assert seconds(given_map) == totals
    kept = sum(tool["overlap"].get(("s1", r, h), 0.0) for r, h in ours.mapping)
    assert kept == pytest.approx(sum(tool["overlap"][("s1", r, h)] for r, h in theirs.items()), abs=1e-6)
    if collar == 0 and overlap == "score" and not uem and totals is not None:
        assert seconds(ours) == totals
    assert (ours.ref_self_overlaps, ours.hyp_self_overlaps) == (self_overlaps(ref), self_overlaps(hyp))


def merged(segments: list[Segment]):
    """pyannote's own merge of a speaker's overlapping turns."""
    return annotation(segments).support()


def pyannote_region(metric, ref: list[Segment], hyp: list[Segment], uem=None, collar=0.0, skip=False):
    """pyannote's scored region (its ``uemify``: collars and overlap from the turns as given), a Timeline."""
    from pyannote.core import Segment as Span
    from pyannote.core import Timeline

    timeline = Timeline([Span(s, e) for s, e in uem]) if uem else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pyannote warns that it approximates the UEM
        return metric.uemify(
            annotation(ref), annotation(hyp), uem=timeline, collar=collar, skip_overlap=skip, returns_uem=True
        )[2]


@settings(max_examples=40, deadline=None)
@given(
    ref=turns("r", 1),
    hyp=turns("h", 0),
    collar=st.sampled_from([0.0, 0.5]),
    overlap=st.sampled_from(["score", "skip"]),
    with_uem=st.booleans(),
)
def test_pyannote_convention_equals_pyannote_metrics_on_merged_turns(ref, hyp, collar, overlap, with_uem) -> None:
    metrics = pytest.importorskip("pyannote.metrics.diarization")
    uem = [(1.0, 4.0), (5.5, 9.0)] if with_uem else None
    der_metric = metrics.DiarizationErrorRate()
    region = pyannote_region(der_metric, ref, hyp, uem, collar, overlap == "skip")
    der = der_metric(merged(ref), merged(hyp), uem=region, detailed=True)
    ours = diarization_counts(
        ref, hyp, collar=collar, overlap=overlap, uem=uem, convention="pyannote", ticks_per_second=100
    )
    theirs = (der["total"], der["missed detection"], der["false alarm"], der["confusion"])
    assert [x / 100 for x in ours[:4]] == pytest.approx(theirs, abs=1e-9)
    # JER under pyannote's pick among equally good mappings (as tests/test_diarization.py does).
    jer_metric = metrics.JaccardErrorRate()
    jer = jer_metric(merged(ref), merged(hyp), uem=region, detailed=True)
    their_map = jer_metric.mapper_(*jer_metric.uemify(merged(ref), merged(hyp), uem=region))
    given_map = diarization_counts(
        ref,
        hyp,
        collar=collar,
        overlap=overlap,
        uem=uem,
        convention="pyannote",
        ticks_per_second=100,
        mapping=their_map,
    )
    assert len(given_map.jer_speakers) == jer["speaker count"]
    assert sum(e / u for _, e, u in given_map.jer_speakers) == pytest.approx(jer["speaker error"], abs=1e-9)


def test_pyannote_on_unmerged_turns_counts_a_speaker_twice() -> None:
    """Why the comparison merges: raw, pyannote scores 2-3 s of one speaker as two speakers (one missed)."""
    metrics = pytest.importorskip("pyannote.metrics.diarization")
    ref = [Segment("A", 0, 3), Segment("A", 2, 4)]
    hyp = [Segment("x", 0, 4)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        raw = metrics.DiarizationErrorRate()(annotation(ref), annotation(hyp), detailed=True)
        support = metrics.DiarizationErrorRate()(merged(ref), merged(hyp), detailed=True)
    ours = diarization_counts(ref, hyp, convention="pyannote", ticks_per_second=1)
    assert (raw["total"], raw["missed detection"]) == (5.0, 1.0)
    assert (support["total"], support["missed detection"]) == (4.0, 0.0) == (ours.scored, ours.missed)


@pytest.mark.parametrize("convention", [pytest.param("md-eval", marks=needs_mdeval), "pyannote"])
def test_overlap_option_is_skip_overlap_and_each_tool_s_flag(tmp_path, convention) -> None:
    """``overlap="skip"`` equals ``skip_overlap=True``, md-eval ``-1`` and pyannote's ``skip_overlap=True``."""
    ref = [Segment("A", 0, 6), Segment("A", 5, 7), Segment("B", 6.5, 10), Segment("C", 12, 15)]
    hyp = [Segment("x", 0, 5), Segment("y", 5, 11), Segment("z", 11, 15)]
    rows = {"ref": [dumps(ref)], "hyp": [dumps(hyp)]}
    results = {}
    for name, options in {
        "score": {"overlap": "score"},
        "skip": {"overlap": "skip"},
        "flag": {"skip_overlap": True},
        "default": {},
    }.items():
        for make in (DER, JER):
            metric = make(convention=convention, **options)
            feed(metric, rows, ["s1"])
            results[name, make.name] = metric.compute()
    for kind in ("DER", "JER"):
        assert results["skip", kind] == results["flag", kind]
        assert results["default", kind] == results["score", kind]
    if convention == "md-eval":
        write_rttm(tmp_path / "ref.rttm", {"s1": ref})
        write_rttm(tmp_path / "hyp.rttm", {"s1": hyp})
        for overlap, flag in (("score", False), ("skip", True)):
            totals, _ = md_eval(tmp_path, 0.0, flag)
            der = results[overlap, "DER"]
            assert tuple(round(der[f"DER_{k}"], 2) for k in ("scored", "missed", "falarm", "confusion")) == totals
    else:
        metrics = pytest.importorskip("pyannote.metrics.diarization")
        for overlap, flag in (("score", False), ("skip", True)):
            for kind, make in (("DER", metrics.DiarizationErrorRate), ("JER", metrics.JaccardErrorRate)):
                region = pyannote_region(make(), ref, hyp, skip=flag)
                value = make()(merged(ref), merged(hyp), uem=region)
                assert results[overlap, kind][kind] == pytest.approx(value * 100, abs=1e-9)
    # Both leave out A's own overlap (5-6 s, A once) and A with B (6.5-7 s, two speakers).
    assert results["score", "DER"]["DER_scored"] - results["skip", "DER"]["DER_scored"] == 1 + 2 * 0.5


def test_the_overlap_option_is_checked() -> None:
    with pytest.raises(ValueError, match=r"DER: overlap 'keep' is not one of score, skip"):
        DER(overlap="keep")
    with pytest.raises(ValueError, match=r"JER: overlap='score' contradicts skip_overlap=True"):
        JER(overlap="score", skip_overlap=True)
    assert DER(overlap="skip").skip_overlap is True and DER(skip_overlap=True).overlap == "skip"


def test_self_overlap_counts_merge_across_instances() -> None:
    """Sessions split over two instances: the merged state gives one instance's numbers and counts."""
    sessions = [
        ("s1", [Segment("A", 0, 4), Segment("A", 3, 6), Segment("B", 5, 9)], [Segment("x", 0, 9)]),
        ("s2", [Segment("A", 0, 2)], [Segment("x", 0, 1), Segment("x", 0.5, 2), Segment("x", 1.5, 3)]),
        ("s3", [Segment("C", 1, 5), Segment("C", 1, 5)], []),
    ]

    def fed(make, part):
        metric = make()
        feed(
            metric, {"ref": [dumps(r) for _, r, _ in part], "hyp": [dumps(h) for *_, h in part]}, [s for s, *_ in part]
        )
        return metric

    for make in (lambda: DER(collar=0.25), lambda: JER(convention="pyannote")):
        whole = fed(make, sessions)
        merged_metric = make()
        merged_metric.load_state(
            merged_metric.merge_states([fed(make, sessions[2:]).state(), fed(make, sessions[:2]).state()])
        )
        assert merged_metric.compute() == whole.compute()
        name = whole.name
        assert (whole.compute()[f"{name}_ref_self_overlaps"], whole.compute()[f"{name}_hyp_self_overlaps"]) == (2, 2)
    der = fed(lambda: DER(collar=0.25), sessions)
    assert [record[5:7] for record in der.session_results()] == [[1, 0], [0, 2], [1, 0]]


@needs_mdeval
def test_command_line_uem_on_self_overlapping_rttm_equals_md_eval(tmp_path, capsys) -> None:
    """``lightscore score REF HYP --metric der --uem FILE`` on self-overlapping RTTMs: md-eval ``-u``'s times."""
    from lightscore.cli import main

    ref = {"s1": [Segment("r0", 0, 2), Segment("r0", 1, 3), Segment("r1", 2.5, 3.5)], "s2": [Segment("r2", 0, 4)]}
    hyp = {"s1": [Segment("x", 0, 1.5), Segment("x", 0.5, 3.5)], "s2": [Segment("y", 1, 5)]}
    write_rttm(tmp_path / "ref.rttm", ref)
    write_rttm(tmp_path / "hyp.rttm", hyp)
    (tmp_path / "all.uem").write_text("s1 1 0.50 3.20\ns2 1 0.00 4.50\n")
    totals, _ = md_eval(tmp_path, 0.0, False, uem=tmp_path / "all.uem")
    argv = ["score", str(tmp_path / "ref.rttm"), str(tmp_path / "hyp.rttm"), "--metric", "der"]
    assert main([*argv, "--uem", str(tmp_path / "all.uem")]) == 0
    row = capsys.readouterr().out.splitlines()[2].split()
    # hyp.rttm  DER  scored  missed  falarm  confusion  sessions  ref_self_overlaps  hyp_self_overlaps
    assert tuple(float(x) for x in row[2:6]) == totals == (3.2 + 4.0, 1.5, 0.5, 0.2)
    assert row[7:] == ["1", "1"]
