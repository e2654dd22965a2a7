"""DER and JER against the oracles run in the test: ``sctk md-eval`` on generated RTTM/UEM files, and pyannote.metrics.

md-eval maps speakers over the whole UEM and scores outside the collars, so when two mappings
tie on overlap its pick (decided by Perl float noise) can change the collared number: those tests
score md-eval's own mapping (its ``-M`` file) and check separately that ours is as good.
"""

from __future__ import annotations

import csv
import random
import re
import shutil
import subprocess
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lightscore.analysis.diarization import diarization_counts
from lightscore.metrics.meeting import DER, JER
from lightscore.segments import Segment, SegmentError, read_rttm, write_session_scps

SCTK = shutil.which("sctk")
needs_mdeval = pytest.mark.skipif(SCTK is None, reason="sctk (md-eval) is not installed")
FIELDS = ("SCORED SPEAKER TIME", "MISSED SPEAKER TIME", "FALARM SPEAKER TIME", "SPEAKER ERROR TIME")


@st.composite
def session(draw, prefix: str, min_speakers: int) -> list[Segment]:
    """Speakers with non-overlapping turns of their own on a 10 ms grid; speakers overlap each other."""
    segments = []
    for k in range(draw(st.integers(min_speakers, 5))):
        t = draw(st.integers(0, 500))
        for _ in range(draw(st.integers(1, 4))):
            d = draw(st.integers(1, 600))
            segments.append(Segment(f"{prefix}{k}", t / 100, (t + d) / 100))
            t += d + draw(st.integers(0, 400))
    return segments


def write_rttm(path: Path, sessions: dict[str, list[Segment]]) -> Path:
    lines = [
        f"SPEAKER {sid} 1 {s.start:.2f} {s.end - s.start:.2f} <NA> <NA> {s.speaker} <NA> <NA>"
        for sid, segments in sessions.items()
        for s in segments
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def md_eval(d: Path, collar: float, skip_overlap: bool, uem: Path | None = None) -> tuple[tuple | None, dict]:
    """md-eval's four speaker times (None when nothing was scored: it then prints no totals) and its mapping."""
    cmd = [SCTK, "md-eval", "-r", d / "ref.rttm", "-s", d / "hyp.rttm", "-c", str(collar), "-M", d / "map.csv"]
    cmd += (["-1"] if skip_overlap else []) + (["-u", uem] if uem else [])
    out = subprocess.run(cmd, capture_output=True, text=True, check=False).stdout
    with open(d / "map.csv") as f:
        rows = list(csv.DictReader(f))
    mapping = {(r["File"], r["RefSpeaker"]): r["SysSpeaker"] for r in rows if r["isMapped"] == "mapped"}
    overlap = {(r["File"], r["RefSpeaker"], r["SysSpeaker"]): float(r["timeOverlap"]) for r in rows}
    found = [re.search(rf"{name} =\s*([\d.]+)", out) for name in FIELDS]
    return (tuple(float(m.group(1)) for m in found) if all(found) else None), {"map": mapping, "overlap": overlap}


def seconds(counts) -> tuple:
    return tuple(round(x / 100, 2) for x in counts[:4])


@needs_mdeval
@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(ref=session("r", 1), hyp=session("h", 0), collar=st.sampled_from([0.0, 0.25]), skip=st.booleans())
def test_session_equals_md_eval(tmp_path_factory, ref, hyp, collar, skip) -> None:
    d = tmp_path_factory.mktemp("md")
    write_rttm(d / "ref.rttm", {"s1": ref})
    write_rttm(d / "hyp.rttm", {"s1": hyp})
    totals, tool = md_eval(d, collar, skip)
    theirs = {r: h for (_, r), h in tool["map"].items()}
    given_map = diarization_counts(ref, hyp, collar=collar, skip_overlap=skip, ticks_per_second=100, mapping=theirs)
    ours = diarization_counts(ref, hyp, collar=collar, skip_overlap=skip, ticks_per_second=100)
    if totals is not None:
        assert seconds(given_map) == totals
    # Our mapping is optimal too: it keeps as much overlap (md-eval's own matrix) as md-eval's pick.
    kept = sum(tool["overlap"].get(("s1", r, h), 0.0) for r, h in ours.mapping)
    assert kept == pytest.approx(sum(tool["overlap"][("s1", r, h)] for r, h in theirs.items()), abs=1e-6)
    if collar == 0 and not skip and totals is not None:  # one region: every optimal mapping scores the same
        assert seconds(ours) == totals


@needs_mdeval
def test_corpus_with_uem_equals_md_eval(tmp_path) -> None:
    """``DER`` over SCP rows (RTTM + UEM files, a missing hypothesis session) equals md-eval's corpus totals."""
    rng = random.Random(7)

    def turns(prefix: str, speakers: int) -> list[Segment]:
        out = []
        for k in range(speakers):
            t = rng.randint(0, 3000)
            for _ in range(rng.randint(1, 6)):
                length = rng.randint(50, 4000)
                out.append(Segment(f"{prefix}{k}", t / 1000, (t + length) / 1000))
                t += length + rng.randint(0, 3000)
        return out

    ref = {f"sess{i}": turns("r", rng.randint(1, 5)) for i in range(12)}
    hyp = {sid: turns("h", rng.randint(1, 5)) for sid in list(ref)[:-1]}  # the last session: nothing detected
    write_rttm(tmp_path / "ref.rttm", ref)
    write_rttm(tmp_path / "hyp.rttm", hyp)
    (tmp_path / "all.uem").write_text("".join(f"{sid} 1 0.50 {20 + i}.00\n" for i, sid in enumerate(list(ref)[::2])))
    scps = write_session_scps(tmp_path / "ref.rttm", tmp_path / "hyp.rttm", tmp_path / "scp")
    for collar, skip in ((0.0, False), (0.25, False), (0.25, True)):
        totals, tool = md_eval(tmp_path, collar, skip, uem=tmp_path / "all.uem")
        metric = DER(collar=collar, skip_overlap=skip, uem=tmp_path / "all.uem")
        result = metric(scps, "dev")
        ours = tuple(round(result[f"DER_{k}"], 2) for k in ("scored", "missed", "falarm", "confusion"))
        assert ours == totals
        mapped = {(sid, r): h for sid, *_, mapping in metric.session_results() for r, h in mapping}
        assert mapped == tool["map"]  # ms times: no ties, the same mapping


def annotation(segments: list[Segment]):
    from pyannote.core import Annotation
    from pyannote.core import Segment as Span

    a = Annotation()
    for i, s in enumerate(segments):
        a[Span(s.start, s.end), i] = s.speaker
    return a


@settings(max_examples=60, deadline=None)
@given(ref=session("r", 1), hyp=session("h", 0), collar=st.sampled_from([0.0, 0.5]), skip=st.booleans())
def test_pyannote_convention_equals_pyannote_metrics(ref, hyp, collar, skip) -> None:
    metrics = pytest.importorskip("pyannote.metrics.diarization")
    r, h = annotation(ref), annotation(hyp)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pyannote warns that it approximates the UEM
        der = metrics.DiarizationErrorRate(collar=collar, skip_overlap=skip)(r, h, detailed=True)
        jer_metric = metrics.JaccardErrorRate(collar=collar, skip_overlap=skip)
        jer = jer_metric(r, h, detailed=True)
        their_map = jer_metric.mapper_(*jer_metric.uemify(r, h, collar=collar, skip_overlap=skip))
    ours = diarization_counts(ref, hyp, collar=collar, skip_overlap=skip, convention="pyannote", ticks_per_second=100)
    theirs = (der["total"], der["missed detection"], der["false alarm"], der["confusion"])
    assert [x / 100 for x in ours[:4]] == pytest.approx(theirs, abs=1e-9)
    # JER depends on the mapping when overlaps tie: score pyannote's pick, and ours when it is the same.
    given_map = diarization_counts(
        ref, hyp, collar=collar, skip_overlap=skip, convention="pyannote", ticks_per_second=100, mapping=their_map
    )
    assert len(given_map.jer_speakers) == jer["speaker count"]
    assert sum(e / u for _, e, u in given_map.jer_speakers) == pytest.approx(jer["speaker error"], abs=1e-9)
    if dict(ours.mapping) == their_map:
        assert ours.jer_speakers == given_map.jer_speakers


def test_metrics_from_inline_segments_and_shards_merge_exactly() -> None:
    from lightscore.core.batch import feed
    from lightscore.segments import dumps

    rng = random.Random(3)
    sessions = []
    for i in range(9):
        ref = [
            Segment(f"r{k}", a / 1000, (a + rng.randint(100, 5000)) / 1000)
            for k, a in enumerate(rng.sample(range(9000), 3))
        ]
        hyp = [
            Segment(f"h{k}", a / 1000, (a + rng.randint(100, 5000)) / 1000)
            for k, a in enumerate(rng.sample(range(9000), 2))
        ]
        sessions.append((f"s{i}", dumps(ref), dumps(hyp)))
    for make in (lambda: DER(collar=0.25), lambda: JER(convention="pyannote", collar=0.5)):
        whole = make()
        feed(whole, {"ref": [s[1] for s in sessions], "hyp": [s[2] for s in sessions]}, [s[0] for s in sessions])
        states = []
        for rank in (0, 1):
            part, mine = make(), sessions[rank::2]
            feed(part, {"ref": [s[1] for s in mine], "hyp": [s[2] for s in mine]}, [s[0] for s in mine])
            states.append(part.state())
        merged = make()
        merged.load_state(merged.merge_states(states[::-1]))
        assert merged.compute() == whole.compute()
        assert merged.session_results() == whole.session_results()


def test_bad_input_names_file_line_and_session(tmp_path) -> None:
    (tmp_path / "ref.rttm").write_text("SPEAKER s1 1 0.00 x <NA> <NA> A <NA> <NA>\n")
    with pytest.raises(SegmentError, match=r"ref.rttm line 1 \(session 's1'\): duration 'x' is not a number"):
        read_rttm(tmp_path / "ref.rttm")
    (tmp_path / "bad.uem").write_text("s1 1 5.0 2.0\n")
    with pytest.raises(ValueError, match=r"DER: uem: .*bad.uem line 1 \(session 's1'\): end 2 is not after start 5"):
        DER(uem=tmp_path / "bad.uem")
    with pytest.raises(ValueError, match="DER: collar must be a number >= 0"):
        DER(collar=-1)
    with pytest.raises(ValueError, match="no reference speech in the scored region"):
        DER().compute()


def test_a_time_too_large_for_ticks_names_the_side_speaker_and_session(tmp_path) -> None:
    # Issue 38 (round 4): a time of 1e308 s ended in a bare OverflowError naming nothing.
    (tmp_path / "ref.rttm").write_text("SPEAKER s1 1 0.00 2.00 <NA> <NA> A <NA> <NA>\n")
    (tmp_path / "hyp.rttm").write_text("SPEAKER s1 1 0.00 1e308 <NA> <NA> B <NA> <NA>\n")
    scps = write_session_scps(tmp_path / "ref.rttm", tmp_path / "hyp.rttm", tmp_path)
    with pytest.raises(ValueError, match=r"'s1'.*hypothesis speaker 'B': time 1e\+308 s is not a finite number"):
        DER()(scps, "dev")
