"""PurityCoverage against pyannote.metrics: ``DiarizationPurity``, ``DiarizationCoverage`` and ``f_measure``.

pyannote.metrics 4 (the oracle installed) scores purity and coverage over whole annotations (a
speaker's time is that of its merged turns); the UEM, collar and overlap options are checked
against its ``uemify`` (the cropping its other diarization metrics apply) followed by the same two
metrics, on the annotations as given. pyannote 4 has no
``DiarizationPurityCoverageFMeasure``: the F-measure is checked against its ``f_measure``.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_diarization import annotation, write_rttm
from test_diarization_overlap import turns

from lightscore import measure
from lightscore.core.batch import feed
from lightscore.metrics import PurityCoverage
from lightscore.segments import Segment, dumps, write_session_scps

metrics = pytest.importorskip("pyannote.metrics.diarization")
UEM = [(1.0, 4.0), (5.5, 9.0)]


def pyannote_scores(sessions, collar=0.0, skip=False, uem=None, beta=1.0) -> dict[str, float]:
    """pyannote's corpus purity, coverage and F (percent) over ``(ref, hyp)`` sessions of segments."""
    from pyannote.core import Segment as Span
    from pyannote.core import Timeline
    from pyannote.metrics.base import f_measure

    purity, coverage = metrics.DiarizationPurity(), metrics.DiarizationCoverage()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pyannote warns that it approximates the UEM
        for ref, hyp in sessions:
            r, h = annotation(ref), annotation(hyp)
            if collar or skip or uem:
                timeline = Timeline([Span(s, e) for s, e in uem]) if uem else None
                r, h = purity.uemify(r, h, uem=timeline, collar=collar, skip_overlap=skip)
            purity(r, h)
            coverage(r, h)
    p, c = abs(purity), abs(coverage)
    return {"purity": p * 100, "coverage": c * 100, "purity_coverage_F": f_measure(p, c, beta=beta) * 100}


def ours(sessions, uem_file: Path | None = None, **options) -> dict[str, float]:
    metric = PurityCoverage(uem=uem_file, **options)
    feed(
        metric,
        {"ref": [dumps(r) for r, _ in sessions], "hyp": [dumps(h) for _, h in sessions]},
        [f"s{i}" for i in range(len(sessions))],
    )
    return metric.compute()


corpora = st.lists(st.tuples(turns("r", 0, 6), turns("h", 0, 6)), min_size=1, max_size=3)


@settings(max_examples=60, deadline=None)
@given(sessions=corpora, beta=st.sampled_from([1.0, 0.5, 2.0]))
def test_equals_pyannote_on_raw_annotations(sessions, beta) -> None:
    """No options: pyannote's purity and coverage on the annotations as given (a speaker's turns overlapping)."""
    result = ours(sessions, beta=beta)
    expected = pyannote_scores(sessions, beta=beta)
    for key, value in expected.items():
        assert result[key] == pytest.approx(value, abs=1e-9), key


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    sessions=corpora,
    collar=st.sampled_from([0.0, 0.5]),
    overlap=st.sampled_from(["score", "skip"]),
    with_uem=st.booleans(),
)
def test_options_equal_pyannote_uemify(tmp_path_factory, sessions, collar, overlap, with_uem) -> None:
    uem_file = None
    if with_uem:
        uem_file = tmp_path_factory.mktemp("uem") / "all.uem"
        uem_file.write_text("".join(f"s{i} 1 {s} {e}\n" for i in range(len(sessions)) for s, e in UEM))
    result = ours(sessions, uem_file, collar=collar, overlap=overlap)
    expected = pyannote_scores(sessions, collar=collar, skip=overlap == "skip", uem=UEM if with_uem else None)
    for key, value in expected.items():
        assert result[key] == pytest.approx(value, abs=1e-9), key


def test_pyannote_s_own_examples() -> None:
    """pyannote.metrics' tests/test_diarization.py (purity 0.6666, coverage 0.7096) and its issue 55 example."""
    reference = [Segment("A", 0, 10), Segment("B", 12, 20), Segment("A", 24, 27), Segment("C", 30, 40)]
    hypothesis = [
        Segment("a", 2, 13),
        Segment("d", 13, 14),
        Segment("b", 14, 20),
        Segment("c", 22, 38),
        Segment("d", 38, 40),
    ]
    result = ours([(reference, hypothesis)])
    assert round(result["purity"] / 100, 3) == pytest.approx(0.6666, abs=5e-4)  # pyannote's test, decimal=3
    assert round(result["coverage"] / 100, 3) == pytest.approx(0.7096, abs=5e-4)
    assert (result["purity_correct"], result["purity_total"]) == (24, 36)  # 8 + 2 + 6 + 8 of 11 + 3 + 6 + 16
    assert (result["coverage_correct"], result["coverage_total"]) == (22, 31)
    assert result == pytest.approx({**result, **pyannote_scores([(reference, hypothesis)])}, abs=1e-12)
    # Issue 55: one cluster over a (1-2 s) and b (3-5 s); pyannote 4 counts the silence 2-3 s in the cluster.
    issue = ([Segment("a", 1, 2), Segment("b", 3, 5)], [Segment("A", 1, 5)])
    assert ours([issue])["purity"] == 50.0 == pyannote_scores([issue])["purity"]


def test_empty_sides_score_as_pyannote() -> None:
    nobody = ours([([], [])])
    assert (nobody["purity"], nobody["coverage"], nobody["purity_coverage_F"]) == (100.0, 100.0, 100.0)
    silent_hyp = ours([([Segment("A", 0, 5)], [])])
    assert (silent_hyp["purity"], silent_hyp["coverage"]) == (100.0, 0.0)
    assert silent_hyp == pytest.approx({**silent_hyp, **pyannote_scores([([Segment("A", 0, 5)], [])])})


def test_split_over_two_instances_equals_one() -> None:
    sessions = [
        ([Segment("A", 0, 4), Segment("A", 3, 6), Segment("B", 5, 9)], [Segment("x", 0, 7), Segment("y", 6.5, 9)]),
        ([Segment("A", 0, 2), Segment("C", 1, 3)], [Segment("x", 0, 1), Segment("x", 0.5, 3)]),
        ([Segment("D", 1, 5)], []),
        ([], [Segment("z", 0, 1.25)]),
    ]

    named = [(f"s{i}", r, h) for i, (r, h) in enumerate(sessions)]
    whole = PurityCoverage(collar=0.5)
    feed(whole, {"ref": [dumps(r) for _, r, _ in named], "hyp": [dumps(h) for *_, h in named]}, [n for n, *_ in named])
    parts = []
    for rank in (0, 1):
        part = PurityCoverage(collar=0.5)
        mine = named[rank::2]
        feed(part, {"ref": [dumps(r) for _, r, _ in mine], "hyp": [dumps(h) for *_, h in mine]}, [n for n, *_ in mine])
        parts.append(part.state())
    merged_metric = PurityCoverage(collar=0.5)
    merged_metric.load_state(merged_metric.merge_states(parts[::-1]))
    assert merged_metric.compute() == whole.compute()
    assert merged_metric.session_results() == whole.session_results()
    assert (
        whole.compute()["purity_coverage_ref_self_overlaps"],
        whole.compute()["purity_coverage_hyp_self_overlaps"],
    ) == (
        1,
        1,
    )


def test_measure_binds_uem_relative_to_the_working_directory(tmp_path, monkeypatch) -> None:
    """A metrics-YAML entry with ``uem: all.uem`` (relative, as the other paths are) for DER, JER and PurityCoverage."""
    ref = {"s1": [Segment("A", 0, 6), Segment("A", 5, 8), Segment("B", 7, 12)], "s2": [Segment("C", 0, 4)]}
    hyp = {"s1": [Segment("x", 0, 9), Segment("y", 9, 12)], "s2": [Segment("z", 0, 3)]}
    write_rttm(tmp_path / "ref.rttm", ref)
    write_rttm(tmp_path / "hyp.rttm", hyp)
    write_session_scps(tmp_path / "ref.rttm", tmp_path / "hyp.rttm", tmp_path / "exp" / "dev")
    (tmp_path / "all.uem").write_text("s1 1 1.00 10.00\ns2 1 1.00 10.00\n")
    monkeypatch.chdir(tmp_path)
    targets = {
        "lightscore.metrics.DER": {"uem": "all.uem"},
        "lightscore.metrics.JER": {"uem": "all.uem", "convention": "pyannote"},
        "lightscore.metrics.PurityCoverage": {"uem": "all.uem", "collar": 0.5},
    }
    entries = [{"metric": {"_target_": t, **args}, "inputs": ["ref", "hyp"]} for t, args in targets.items()]
    results = measure({"inference_dir": "exp", "metrics": entries})
    found = {k: v for per_metric in results.values() for k, v in per_metric["dev"].items()}
    expected = pyannote_scores([(ref[s], hyp[s]) for s in ("s1", "s2")], collar=0.5, uem=[(1.0, 10.0)])
    for key, value in expected.items():
        assert found[key] == pytest.approx(value, abs=1e-9), key
    # DER inside the UEM: s1 1-10 s (A 1-8 with its two turns merged, B 7-10), s2 1-4 s.
    assert (found["DER_scored"], found["DER_ref_self_overlaps"], found["DER_sessions"]) == (7 + 3 + 3, 1, 2)
    written = json.loads((tmp_path / "exp" / "metrics.json").read_text())
    assert written["lightscore.metrics.meeting_purity.PurityCoverage"]["dev"]["purity"] == found["purity"]


def test_command_line_with_uem_and_collar_equals_pyannote_on_its_own_rttm_reader(tmp_path, capsys) -> None:
    """``lightscore score REF HYP --metric purity_coverage --uem FILE --collar S`` against pyannote's load_rttm."""
    from pyannote.core import Segment as Span
    from pyannote.core import Timeline
    from pyannote.database.util import load_rttm

    from lightscore.cli import main

    ref = {"s1": [Segment("A", 0, 6), Segment("A", 5, 8), Segment("B", 7, 12)], "s2": [Segment("C", 0, 4)]}
    hyp = {"s1": [Segment("x", 0, 9), Segment("y", 8.5, 12)], "s2": [Segment("z", 0, 3), Segment("w", 2, 4)]}
    write_rttm(tmp_path / "ref.rttm", ref)
    write_rttm(tmp_path / "hyp.rttm", hyp)
    (tmp_path / "all.uem").write_text("s1 1 1.00 10.00\ns2 1 0.50 4.00\n")
    argv = ["score", str(tmp_path / "ref.rttm"), str(tmp_path / "hyp.rttm"), "--metric", "purity_coverage"]
    assert main([*argv, "--uem", str(tmp_path / "all.uem"), "--collar", "0.5"]) == 0
    row = capsys.readouterr().out.splitlines()[2].split()
    purity, coverage = metrics.DiarizationPurity(), metrics.DiarizationCoverage()
    refs, hyps = load_rttm(tmp_path / "ref.rttm"), load_rttm(tmp_path / "hyp.rttm")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for session, (start, end) in (("s1", (1.0, 10.0)), ("s2", (0.5, 4.0))):
            r, h = purity.uemify(refs[session], hyps[session], uem=Timeline([Span(start, end)]), collar=0.5)
            purity(r, h)
            coverage(r, h)
    assert [float(x) for x in row[1:3]] == [round(abs(purity) * 100, 2), round(abs(coverage) * 100, 2)]
    assert row[-2:] == ["1", "0"]  # A's two turns merged; the hypothesis' x and y are two speakers
