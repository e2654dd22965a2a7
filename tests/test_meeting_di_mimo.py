"""DI-cpWER, DI-tcpWER and MIMO-WER against meeteval: its documented examples, generated sessions (1-6 speakers,
extra and missing streams, empty ones, overlaps, UEM regions), the plain twins, merged states and the command."""

from __future__ import annotations

import json
import logging
import math
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from meeting_strategies import session
from test_meeting_wer import as_seglst

from lightscore.cli import main
from lightscore.core.batch import feed
from lightscore.metrics.meeting_di import DICPWER, DITCPWER
from lightscore.metrics.meeting_mimo import MIMOWER
from lightscore.segments import Segment, dumps, read_stm
from lightscore.text.meeting.di_assignment import dicp_counts, ditcp_counts
from lightscore.text.meeting.mimo import mimo_counts, mimo_matching
from lightscore.text.meeting.uem import in_regions

meeteval = pytest.importorskip("meeteval")
from meeteval.io import STM, SegLST  # noqa: E402
from meeteval.io.uem import UEM, UEMLine  # noqa: E402
from meeteval.wer import api  # noqa: E402
from meeteval.wer.wer.di_cp import greedy_di_cp_word_error_rate, greedy_di_tcp_word_error_rate  # noqa: E402
from meeteval.wer.wer.mimo import mimo_word_error_rate  # noqa: E402

for _name in ("preprocess", "error_rate"):  # meeteval warns about collar 0 and self-overlap on every call
    logging.getLogger(_name).setLevel(logging.ERROR)
FIELDS = ("errors", "length", "substitutions", "deletions", "insertions")
BIN = Path(sys.executable).parent


def counts(result) -> tuple:
    return tuple(getattr(result, f) for f in FIELDS)


def seglst(rows: list[tuple]) -> list[Segment]:
    return [Segment(spk, start, end, words) for spk, start, end, words in rows]


# meeteval's doctests of greedy_di_cp_word_error_rate / greedy_di_tcp_word_error_rate (meeteval/wer/wer/di_cp.py):
# segments a b | c d of speakers A and B, one second each.
DI_REF = seglst([("A", 0, 1, "a"), ("A", 1, 2, "b"), ("B", 2, 3, "c"), ("B", 3, 4, "d")])


@pytest.mark.parametrize(
    ("hyp", "expected"),
    [
        (DI_REF, (0, 4, 0, 0, 0, ("A", "A", "B", "B"))),
        (
            seglst([("A", 0, 1, "a"), ("B", 1, 2, "b"), ("A", 2, 3, "c"), ("B", 3, 4, "d")]),
            (0, 4, 0, 0, 0, ("A", "A", "B", "B")),
        ),
        (seglst([("A", 0, 2, "a b"), ("A", 2, 4, "b c d")]), (1, 4, 0, 0, 1, ("A", "B"))),
    ],
)
def test_meeteval_documented_dicp_examples(hyp, expected) -> None:
    assert tuple(dicp_counts(DI_REF, hyp)) == expected


@pytest.mark.parametrize(
    ("hyp", "expected"),
    [
        (DI_REF, (0, 4, 0, 0, 0, ("A", "A", "B", "B"))),
        (seglst([("A", 0, 2, "a b"), ("A", 1, 4, "b c d")]), (1, 4, 0, 0, 1, ("A", "B"))),
    ],
)
def test_meeteval_documented_ditcp_examples(hyp, expected) -> None:
    assert tuple(ditcp_counts(DI_REF, hyp, collar=0)) == expected


@pytest.mark.parametrize(
    ("ref", "hyp", "expected"),
    [  # meeteval's doctests of mimo_word_error_rate (meeteval/wer/wer/mimo.py), speakers and streams by index
        ([["a b c d e f"]], ["a b c d e f"], [(0, 0)]),
        ([["a b", "c d"], ["e f"]], ["a b", "e f c d"], [(1, 1), (0, 0), (0, 1)]),
        ([["a b", "c d"], ["e f"]], ["a b", "c d e f"], [(0, 0), (0, 1), (1, 1)]),
        ([["a b", "c d"], ["e f"]], ["c d", "a b e f"], [(0, 1), (1, 1), (0, 0)]),
    ],
)
def test_meeteval_documented_mimo_examples(ref, hyp, expected) -> None:
    vocab: dict[str, int] = {}
    as_ids = [[[vocab.setdefault(w, len(vocab)) for w in u.split()] for u in speaker] for speaker in ref]
    streams = [[vocab.setdefault(w, len(vocab)) for w in s.split()] for s in hyp]
    assert mimo_matching(as_ids, streams) == (0, expected)


def test_meeteval_documented_mimo_stm_example() -> None:
    """The STM doctest: speaker A's two segments go to different streams; names are meeteval's."""
    ref = "X 1 A 0.0 1.0 a b\nX 1 A 1.0 2.0 c d\nX 1 B 0.0 2.0 e f\n"
    hyp = "X 1 1 0.0 2.0 c d\nX 1 0 0.0 2.0 a b e f\n"
    theirs = mimo_word_error_rate(STM.parse(ref), STM.parse(hyp))
    ours = mimo_counts(
        seglst([("A", 0, 1, "a b"), ("A", 1, 2, "c d"), ("B", 0, 2, "e f")]),
        seglst([("1", 0, 2, "c d"), ("0", 0, 2, "a b e f")]),
    )
    assert (*counts(ours), list(ours.assignment)) == (*counts(theirs), theirs.assignment)
    assert list(ours.assignment) == [("A", "0"), ("B", "0"), ("A", "1")]


REGION = st.none() | st.tuples(st.integers(0, 40), st.integers(0, 40)).map(lambda t: (t[0] / 4, (t[0] + t[1]) / 4))


def with_region(ref: list[Segment], hyp: list[Segment], region) -> tuple[list, list, SegLST, SegLST]:
    """Both sides cut to ``region`` our way and meeteval's (``SegLST.filter_by_uem``, what its ``uem=`` runs)."""
    theirs = as_seglst(ref), as_seglst(hyp)
    if region is None:
        return ref, hyp, *theirs
    uem = UEM([UEMLine("s", 1, *region)])
    return in_regions(ref, [region]), in_regions(hyp, [region]), *(side.filter_by_uem(uem) for side in theirs)


def _names(assignment) -> tuple:
    return tuple("dummy" if a is None else a for a in assignment)  # meeteval names "no speaker" 'dummy'


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ref=session("r"), hyp=session("h"), region=REGION)
def test_dicp_equals_meeteval(ref, hyp, region) -> None:
    """0-6 speakers a side (extra, missing and empty streams), overlaps, ties, UEM regions: counts and assignment."""
    ref, hyp, their_ref, their_hyp = with_region(ref, hyp, region)
    theirs = greedy_di_cp_word_error_rate(their_ref, their_hyp)
    ours = dicp_counts(ref, hyp)
    assert (*counts(ours), _names(ours.assignment)) == (*counts(theirs), tuple(theirs.assignment))
    assert dicp_counts(ref, hyp, compiled=False) == ours


SORTS = st.sampled_from(["segment", True, False])  # meeteval refuses "word" here (segments stay whole)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ref=session("r"),
    hyp=session("h"),
    region=REGION,
    collar=st.sampled_from([0.0, 0.5, 5.0]),
    reference_sort=SORTS,
    hypothesis_sort=SORTS,
)
def test_ditcp_equals_meeteval(ref, hyp, region, collar, reference_sort, hypothesis_sort) -> None:
    """As DI-cpWER, with collars and the sort options: the same counts and assignment, or both refuse (True)."""
    ref, hyp, their_ref, their_hyp = with_region(ref, hyp, region)
    sorts = dict(reference_sort=reference_sort, hypothesis_sort=hypothesis_sort)
    try:
        theirs = greedy_di_tcp_word_error_rate(their_ref, their_hyp, collar=collar, **sorts)
    except ValueError as e:
        assert "contradicts" in str(e)
        with pytest.raises(ValueError, match="contradicts the segment-level order"):
            ditcp_counts(ref, hyp, collar, **sorts)
        return
    ours = ditcp_counts(ref, hyp, collar, **sorts)
    assert (*counts(ours), _names(ours.assignment)) == (*counts(theirs), tuple(theirs.assignment))


def test_ditcp_refuses_the_word_sort() -> None:
    with pytest.raises(ValueError, match="ditcpWER: hypothesis_sort 'word' is not supported"):
        DITCPWER(collar=5, hypothesis_sort="word")
    assert "reference_sort=False" in DITCPWER(collar=5, reference_sort=False).settings()


def mimo_states(ref: list[Segment], hyp: list[Segment]) -> int:
    utterances: dict[str, int] = {}
    words: dict[str, int] = {}
    for seg in ref:
        utterances[seg.speaker] = utterances.get(seg.speaker, 0) + 1
    for seg in hyp:
        words[seg.speaker] = words.get(seg.speaker, 0) + len(seg.words.split())
    return math.prod(n + 1 for n in utterances.values()) * math.prod(n + 1 for n in words.values())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(ref=session("r", min_speakers=1), hyp=session("h", min_speakers=1), region=REGION)
def test_mimo_equals_meeteval(ref, hyp, region) -> None:
    """MIMO's search grows with every side's product: sessions whose search meeteval runs in a blink."""
    ref, hyp, their_ref, their_hyp = with_region(ref, hyp, region)
    states = mimo_states(ref, hyp)
    assume(hyp and states < 20_000)
    ours = mimo_counts(ref, hyp)
    try:
        theirs = mimo_word_error_rate(their_ref, their_hyp)
    except AssertionError as e:  # meeteval's own check: its search's distance against its re-count
        distance, recount = e.args[0]
        assert counts(ours) == counts(recount) and ours.errors < distance
    else:
        assert (*counts(ours), list(ours.assignment)) == (*counts(theirs), theirs.assignment)
    if states < 2_000:  # the plain twin runs the same loops in Python
        assert mimo_counts(ref, hyp, compiled=False) == ours


def test_mimo_where_meeteval_fails_its_own_check() -> None:
    """Empty streams before two one-word streams: meeteval's search says 3 errors, its own re-count 2.

    Our search follows meeteval's and reports the same distance and assignment, so the count we return is the
    re-count of that assignment, the 2 insertions any assignment must make.
    """
    ref = [Segment("r0", 0, 0, "")]
    hyp = [Segment("h0", 0, 0, ""), Segment("h1", 0.25, 0.25, "a"), Segment("h2", 0, 0, ""), Segment("h3", 0, 0, "a")]
    with pytest.raises(AssertionError, match=r"\(3, ErrorRate\(errors=2"):
        mimo_word_error_rate(as_seglst(ref), as_seglst(hyp))
    assert mimo_matching([[[]]], [[], [], [1], [1]]) == (3, [(0, 0)])
    assert tuple(mimo_counts(ref, hyp)) == (2, 0, 0, 0, 2, (("r0", "h0"),))


def test_mimo_edges() -> None:
    """No hypothesis: every word deleted (meeteval fails); more than 10 speakers: refused, as meeteval does."""
    ref = seglst([("A", 0, 1, "a b"), ("B", 1, 2, "")])
    assert tuple(mimo_counts(ref, [])) == (2, 2, 0, 2, 0, (("A", None), ("B", None)))
    many = [Segment(f"s{k}", k, k + 1, "a") for k in range(11)]
    with pytest.raises(ValueError, match="at most 10 speakers per side .* this session has 11"):
        mimo_counts(many, ref)
    with pytest.raises(ValueError, match="mimoWER: session 's1': MIMO-WER scores at most 10 speakers"):
        feed(MIMOWER(), {"ref": [many], "hyp": [ref]}, ["s1"])


def random_session(rng: random.Random, prefix: str, speakers: int) -> list[Segment]:
    segments = [Segment(f"{prefix}0", 12, 14, "a b")]  # inside every region below: meeteval refuses empty sessions
    for _ in range(rng.randint(1, 5)):
        start = rng.randint(0, 60) / 2
        words = " ".join(rng.choice("a b c d the cat".split()) for _ in range(rng.randint(0, 4)))
        segments.append(Segment(f"{prefix}{rng.randrange(speakers)}", start, start + rng.randint(1, 6) / 2, words))
    return segments


METRICS = [
    (DICPWER, {}, api.greedy_dicpwer),
    (DITCPWER, {"collar": 1.0}, api.greedy_ditcpwer),
    (MIMOWER, {}, api.mimower),
]


@pytest.mark.parametrize(("metric", "options", "tool"), METRICS)
def test_metrics_equal_meeteval_api_with_uem_and_merge(tmp_path, metric, options, tool) -> None:
    """Per session and corpus with a UEM file (one session not listed); rows split over two instances, merged."""
    rng = random.Random(11)
    sessions = {f"s{k}": (random_session(rng, "r", 3), random_session(rng, "h", 2)) for k in range(6)}
    regions = {f"s{k}": (rng.randint(0, 10), rng.randint(14, 30)) for k in range(5)}
    (tmp_path / "all.uem").write_text("".join(f"{s} 1 {b} {e}\n" for s, (b, e) in regions.items()))
    ids = list(sessions)
    batch = {"ref": [dumps(sessions[s][0]) for s in ids], "hyp": [dumps(sessions[s][1]) for s in ids]}
    one = metric(uem=str(tmp_path / "all.uem"), **options)
    feed(one, batch, ids)
    halves = [metric(uem=str(tmp_path / "all.uem"), **options) for _ in range(2)]
    feed(halves[0], {k: v[:2] for k, v in batch.items()}, ids[:2])
    feed(halves[1], {k: v[2:] for k, v in batch.items()}, ids[2:])
    halves[0].load_state(halves[0].merge_states([halves[0].state(), halves[1].state()]))
    assert halves[0].compute() == one.compute()
    assert halves[0].session_results() == one.session_results()
    uem = UEM([UEMLine(s, 1, float(b), float(e)) for s, (b, e) in regions.items()])
    ref = sum((as_seglst(sessions[s][0], s) for s in ids), as_seglst([]))
    hyp = sum((as_seglst(sessions[s][1], s) for s in ids), as_seglst([]))
    theirs = tool(ref, hyp, uem=uem, **options)
    for record in one.session_results():
        expected = theirs[record[0]]
        assert tuple(record[1:6]) == counts(expected), record[0]
        assert [tuple(a) if isinstance(a, list) else a for a in record[-1]] == list(expected.assignment)
    total = sum(theirs.values())
    assert one.compute()[one.name] == pytest.approx(total.error_rate * 100, abs=1e-12)


def write_stm(path: Path, seed: int, speakers: int) -> None:
    rng = random.Random(seed)
    lines = []
    for s in range(3):
        for seg in random_session(rng, "A" if seed % 2 else "x", speakers):
            lines.append(f"sess{s} 1 {seg.speaker} {seg.start:.2f} {seg.end:.2f} {seg.words}")
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize(
    ("metric", "tool", "options"),
    [("dicpwer", "greedy_dicpwer", []), ("ditcpwer", "greedy_ditcpwer", ["--collar", "5"]), ("mimower", "mimower", [])],
)
def test_command_equals_meeteval_wer(tmp_path, capsys, metric, tool, options) -> None:
    """``lightscore score --metric M REF HYP [--uem]`` and ``meeteval-wer`` on the same STM files."""
    write_stm(tmp_path / "ref.stm", 1, 3)
    write_stm(tmp_path / "hyp.stm", 2, 2)
    (tmp_path / "all.uem").write_text("sess0 1 2 20\nsess2 1 10 25\n")
    uem = ["--uem", str(tmp_path / "all.uem")]
    assert (
        main(["score", str(tmp_path / "ref.stm"), str(tmp_path / "hyp.stm"), "--metric", metric, *options, *uem]) == 0
    )
    out = capsys.readouterr().out
    subprocess.run(
        [str(BIN / "meeteval-wer"), tool, "-r", "ref.stm", "-h", "hyp.stm", *options, "--uem", "all.uem"],
        cwd=tmp_path,
        capture_output=True,
        check=True,
    )
    expected = json.loads((tmp_path / f"hyp_{tool}.json").read_text())
    assert f" {expected['errors']} " in out and f" {expected['length']} " in out
    assert f"{100 * expected['error_rate']:.2f}" in out


def test_command_refuses_options_a_metric_does_not_take(tmp_path) -> None:
    write_stm(tmp_path / "ref.stm", 1, 2)
    files = [str(tmp_path / "ref.stm"), str(tmp_path / "ref.stm")]
    with pytest.raises(ValueError, match="--metric ditcpwer needs --collar"):
        main(["score", *files, "--metric", "ditcpwer", "--debug"])
    with pytest.raises(ValueError, match=r"--reference-sort is used by the time-constrained WERs, not dicpwer"):
        main(["score", *files, "--metric", "dicpwer", "--reference-sort", "true", "--debug"])
    with pytest.raises(ValueError, match="ditcpWER: reference_sort 'word' is not supported"):
        main(["score", *files, "--metric", "ditcpwer", "--collar", "5", "--reference-sort", "word", "--debug"])
    with pytest.raises(ValueError, match="--collar is used by the time-constrained WERs .*, not mimower"):
        main(["score", *files, "--metric", "mimower", "--collar", "5", "--debug"])
    with pytest.raises(ValueError, match="--uem is used by the meeting metrics, not wer"):
        main(["score", *files, "--uem", str(tmp_path / "ref.stm"), "--debug"])


def test_report_session_view_marks_the_di_and_mimo_errors(tmp_path, capsys) -> None:
    """``--report``: the session views of DI-cpWER (hypothesis segments under the speakers they went to) and
    MIMO-WER (each utterance in its stream, in the order the search read them) mark exactly the errors."""
    write_stm(tmp_path / "ref.stm", 3, 3)
    write_stm(tmp_path / "hyp.stm", 4, 2)
    for metric, name in (("dicpwer", "dicpWER"), ("mimower", "mimoWER")):
        out_dir = tmp_path / metric
        files = [str(tmp_path / "ref.stm"), str(tmp_path / "hyp.stm")]
        assert main(["score", *files, "--metric", metric, "--report", str(out_dir)]) == 0
        capsys.readouterr()
        page = (out_dir / f"{metric}_report.html").read_text(encoding="utf-8")
        m = {"dicpwer": DICPWER, "mimower": MIMOWER}[metric]()
        ref, hyp = read_stm(tmp_path / "ref.stm"), read_stm(tmp_path / "hyp.stm")
        feed(m, {"ref": list(ref.values()), "hyp": [hyp[s] for s in ref]}, list(ref))
        for record in m.session_results():
            assert f'data-session="{record[0]}" data-marked-errors="{record[1]}"' in page, (name, record[0])
            assert f'<td data-key="session" class="txt">{record[0]}</td><td data-key="errors">{record[1]}</td>' in page
