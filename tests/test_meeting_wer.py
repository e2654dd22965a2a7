"""cpWER, ORC-WER and tcpWER against meeteval, the oracle run in the test: its Python API per generated session,
its documented examples, its CLI per corpus; and bad input named by file, line and session."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from meeting_strategies import session

from lightscore.core.batch import feed
from lightscore.metrics.meeting import CPWER, ORCWER, TCPWER
from lightscore.segments import (
    Segment,
    SegmentError,
    as_segments,
    check_speaker_overlap,
    dumps,
    read_rttm,
    read_stm,
    write_session_scps,
)
from lightscore.text.meeting.assignment import cp_counts, orc_counts

meeteval = pytest.importorskip("meeteval")
from meeteval.io import SegLST  # noqa: E402
from meeteval.wer.wer.cp import cp_word_error_rate  # noqa: E402
from meeteval.wer.wer.orc import orc_word_error_rate  # noqa: E402


def as_seglst(segments: list[Segment], session_id: str = "s") -> SegLST:
    return SegLST(
        [
            dict(session_id=session_id, speaker=s.speaker, start_time=s.start, end_time=s.end, words=s.words)
            for s in segments
        ]
    )


def oracle(ref: list[Segment], hyp: list[Segment], score=cp_word_error_rate, **options) -> tuple:
    er = score(as_seglst(ref), as_seglst(hyp), **options)
    fields = ("errors", "length", "substitutions", "deletions", "insertions")
    return (*(getattr(er, f) for f in fields), er.missed_speaker, er.falarm_speaker, er.scored_speaker, er.assignment)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ref=session("r", min_speakers=1), hyp=session("h"))
def test_session_counts_and_assignment_equal_meeteval(ref, hyp) -> None:
    assert tuple(cp_counts(ref, hyp)) == oracle(ref, hyp)


def orc_oracle(ref: list[Segment], hyp: list[Segment]) -> tuple:
    er = orc_word_error_rate(as_seglst(ref), as_seglst(hyp))
    return er.errors, er.length, er.substitutions, er.deletions, er.insertions, er.assignment


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ref=session("r", min_speakers=1), hyp=session("h", min_speakers=1, max_speakers=3))
def test_orc_counts_and_assignment_equal_meeteval(ref, hyp) -> None:
    """Ties included: start times on a quarter-second grid, repeated words, speakers with only empty segments.
    Up to 3 hypothesis streams: ORC's search grows with the product of the streams' lengths."""
    assert tuple(orc_counts(ref, hyp)) == orc_oracle(ref, hyp)


@pytest.mark.parametrize(
    ("ref", "hyp", "expected"),
    [  # meeteval's documented examples (orc_word_error_rate's docstring): (errors, length, S, D, I, streams)
        (["a b", "c d", "e f"], ["a b c d e f"], (0, 6, 0, 0, 0, (0, 0, 0))),
        (["a b", "c d", "e f"], ["a b", "c d e f"], (0, 6, 0, 0, 0, (0, 1, 1))),
        (["a", "c d", "e"], ["a c", "d e"], (2, 4, 0, 1, 1, (0, 0, 1))),
    ],
)
def test_meeteval_documented_orc_examples(ref, hyp, expected) -> None:
    ref_segments = [Segment("R", float(i), i + 1.0, words) for i, words in enumerate(ref)]
    hyp_segments = [Segment(str(i), 0.0, 1.0, words) for i, words in enumerate(hyp)]
    ours = orc_counts(ref_segments, hyp_segments)
    assert (*ours[:5], tuple(int(a) for a in ours.assignment)) == expected
    assert tuple(ours) == orc_oracle(ref_segments, hyp_segments)


def test_orc_with_no_hypothesis_deletes_everything() -> None:
    """meeteval fails an assertion on an empty hypothesis; lightscore deletes every reference word."""
    counts = orc_counts([Segment("A", 0, 1, "a b"), Segment("B", 1, 2, "c")], [])
    assert tuple(counts) == (3, 3, 0, 3, 0, (None, None))


@pytest.mark.parametrize(
    ("ref", "hyp", "expected"),
    [  # meeteval's documented examples (cp_word_error_rate's docstring)
        (["a b c", "d e f"], ["a b c", "d e f"], (0, 6, 0, 0, 0, 0, 0, 2)),
        (["a b", "c d"], ["a b", "c d", "e f"], (2, 4, 0, 0, 2, 0, 1, 2)),
        (["a", "b", "c d"], ["a", "b"], (2, 4, 0, 2, 0, 1, 0, 3)),
        (["a", "b", "c"], ["b", "c", "d", "a"], (1, 3, 0, 0, 1, 0, 1, 3)),
        (["a b"], ["z", "a e f"], (3, 2, 1, 0, 2, 0, 1, 1)),
        (["a b", "k"], [" ", "a e f"], (3, 3, 1, 1, 1, 0, 0, 2)),
    ],
)
def test_meeteval_documented_examples(ref, hyp, expected) -> None:
    ref_segments = [Segment(f"r{i}", 0, 1, words) for i, words in enumerate(ref)]
    hyp_segments = [Segment(f"h{i}", 0, 1, words) for i, words in enumerate(hyp)]
    assert tuple(cp_counts(ref_segments, hyp_segments))[:8] == expected
    assert tuple(cp_counts(ref_segments, hyp_segments)) == oracle(ref_segments, hyp_segments)


def write_stm(path: Path, sessions: dict[str, list[Segment]]) -> None:
    lines = [f"{sid} 1 {s.speaker} {s.start:.3f} {s.end:.3f} {s.words}" for sid, segs in sessions.items() for s in segs]
    path.write_text("\n".join(lines) + "\n")


def random_session(rng: random.Random, prefix: str, speakers: int) -> list[Segment]:
    segments = []
    for k in range(speakers):
        for _ in range(rng.randint(1, 4)):
            start = rng.randint(0, 40) / 4
            words = " ".join(rng.choice("a b c d the cat".split()) for _ in range(rng.randint(0, 6)))
            segments.append(Segment(f"{prefix}{k}", start, start + rng.randint(0, 12) / 4, words))
    rng.shuffle(segments)
    return segments


def test_corpus_equals_meeteval_cli(tmp_path) -> None:
    """Per-session and corpus numbers of ``CPWER`` fed from SCP rows equal ``meeteval-wer cpwer`` on the STM files."""
    rng = random.Random(24)
    corpus = {
        f"s{i}": (random_session(rng, "r", rng.randint(1, 6)), random_session(rng, "h", rng.randint(1, 6)))
        for i in range(40)
    }
    write_stm(tmp_path / "ref.stm", {sid: ref for sid, (ref, _) in corpus.items()})
    write_stm(tmp_path / "hyp.stm", {sid: hyp for sid, (_, hyp) in corpus.items()})
    cli = Path(sys.executable).with_name("meeteval-wer")
    subprocess.run(
        [str(cli), "cpwer", "-r", tmp_path / "ref.stm", "-h", tmp_path / "hyp.stm"], check=True, capture_output=True
    )
    average = json.loads((tmp_path / "hyp_cpwer.json").read_text())
    per_reco = json.loads((tmp_path / "hyp_cpwer_per_reco.json").read_text())
    metric = CPWER()
    result = metric(write_session_scps(tmp_path / "ref.stm", tmp_path / "hyp.stm", tmp_path / "scp"), "dev")
    assert result["cpWER"] == pytest.approx(average["error_rate"] * 100, abs=1e-12)
    for name in ("errors", "length", "substitutions", "deletions", "insertions", "missed_speaker", "falarm_speaker"):
        assert result[f"cpWER_{name}"] == average[name], name
    for sid, errors, length, sub, dele, ins, *_, assignment in metric.session_results():
        theirs = per_reco[sid]
        assert (errors, length, sub, dele, ins) == tuple(
            theirs[k] for k in ("errors", "length", "substitutions", "deletions", "insertions")
        )
        assert [tuple(pair) for pair in assignment] == [tuple(pair) for pair in theirs["assignment"]]


def test_two_shards_merge_to_one_and_inline_json_equals_files(tmp_path) -> None:
    corpus = {
        "s1": ([Segment("A", 0, 2, "hello there"), Segment("B", 1, 3, "good morning")], [Segment("x", 0, 3, "hello")]),
        "s2": ([Segment("A", 0, 1, "a b c")], [Segment("y", 0, 1, "a b d"), Segment("z", 2, 3, "e")]),
        "s3": ([Segment("C", 5, 6, "one two")], []),
    }
    whole = CPWER()
    feed(
        whole,
        {"ref": [dumps(r) for r, _ in corpus.values()], "hyp": [dumps(h) for _, h in corpus.values()]},
        list(corpus),
    )
    parts = []
    for ids in (["s3", "s1"], ["s2"]):
        part = CPWER()
        feed(part, {"ref": [dumps(corpus[i][0]) for i in ids], "hyp": [dumps(corpus[i][1]) for i in ids]}, ids)
        parts.append(part.state())
    merged = CPWER()
    merged.load_state(merged.merge_states(parts))
    assert merged.compute() == whole.compute()
    assert merged.session_results() == whole.session_results()
    write_stm(tmp_path / "ref.stm", {sid: r for sid, (r, _) in corpus.items()})
    write_stm(tmp_path / "hyp.stm", {sid: h for sid, (_, h) in corpus.items() if h})
    from_files = CPWER()(write_session_scps(tmp_path / "ref.stm", tmp_path / "hyp.stm", tmp_path / "scp"), "dev")
    assert from_files == whole.compute()
    assert whole.compute()["cpWER_length"] == 9 and whole.compute()["cpWER_missed_speaker"] == 2


def test_bad_input_names_file_line_and_session(tmp_path) -> None:
    (tmp_path / "ref.stm").write_text("s1 1 A 0.0 1.0 hi\ns1 1 B 2.0 x there\n")
    with pytest.raises(SegmentError, match=r"ref.stm line 2 \(session 's1'\): end 'x' is not a number"):
        read_stm(tmp_path / "ref.stm")
    (tmp_path / "ref.stm").write_text("s1 1 A 0.0 1.0 hi\n")
    (tmp_path / "hyp.stm").write_text("s9 1 X 0.0 1.0 hi\n")
    with pytest.raises(SegmentError, match=r"hyp.stm \(session 's9'\): the reference .* has no such session"):
        write_session_scps(tmp_path / "ref.stm", tmp_path / "hyp.stm", tmp_path / "scp")
    (tmp_path / "ref.scp").write_text(f"s2 {tmp_path / 'ref.stm'}\n")
    with pytest.raises(ValueError, match=r"CPWER: utterance 's2' .*cpWER: .*ref.stm \(session 's2'\): the file has no"):
        CPWER()({"ref": tmp_path / "ref.scp", "hyp": tmp_path / "ref.scp"}, "dev")
    with pytest.raises(ValueError, match="references hold no words"):
        CPWER().compute()


def test_format_option_reads_files_without_a_suffix(tmp_path) -> None:
    (tmp_path / "ref").write_text("s1 1 A 0 1 a b\n")
    (tmp_path / "scp").write_text(f"s1 {tmp_path / 'ref'}\n")
    result = CPWER(format="stm")({"ref": tmp_path / "scp", "hyp": tmp_path / "scp"}, "dev")
    assert result["cpWER"] == 0.0 and result["cpWER_length"] == 2
    with pytest.raises(ValueError, match="format 'txt' is not one of stm, ctm, seglst, rttm"):
        CPWER(format="txt")


@pytest.mark.slow
def test_two_gloo_ranks_equal_one(tmp_path) -> None:
    """Sessions sharded over 2 real gloo ranks (SCP rows, and inline JSON per step) give one process's numbers."""
    from ddp_scripts.launch import free_port, run_scripts
    from ddp_scripts.meeting_ddp import metrics

    rng = random.Random(5)

    def turns(prefix: str) -> list[Segment]:
        out = []
        for k in range(rng.randint(1, 4)):
            t = rng.randint(0, 2000)
            for _ in range(rng.randint(1, 4)):
                length = rng.randint(100, 3000)
                words = " ".join(rng.choice("a b c d the cat".split()) for _ in range(rng.randint(1, 5)))
                out.append(Segment(f"{prefix}{k}", t / 1000, (t + length) / 1000, words))
                t += length + rng.randint(0, 2000)
        return out

    corpus = {f"s{i}": (turns("r"), turns("h")) for i in range(11)}
    write_stm(tmp_path / "ref.stm", {sid: r for sid, (r, _) in corpus.items()})
    write_stm(tmp_path / "hyp.stm", {sid: h for sid, (_, h) in corpus.items()})
    scps = write_session_scps(tmp_path / "ref.stm", tmp_path / "hyp.stm", tmp_path)
    steps = [[sid, dumps(r), dumps(h)] for sid, (r, h) in corpus.items()]
    (tmp_path / "steps.json").write_text(json.dumps(steps))
    out = tmp_path / "out"
    out.mkdir()
    port = free_port()
    runs = run_scripts(
        [["meeting_ddp.py", str(tmp_path), str(out), str(rank), "2", str(port)] for rank in (0, 1)], port
    )
    for run in runs:
        assert run.returncode == 0, run.stderr[-3000:]
    ranks = [json.loads((out / f"rank{rank}.json").read_text()) for rank in (0, 1)]
    for key, metric in metrics().items():
        expected = [metric(scps, "dev"), metric.session_results()]
        expected = json.loads(json.dumps(expected))  # tuples as lists, like the ranks' JSON
        for record in ranks:
            assert record["measure"][key] == expected, key
            assert record["steps"][key] == expected, key
    assert ranks[0]["measure"]["cpwer"][0]["cpWER_sessions"] == 11


def meeteval_cli(tool: str, ref: Path, hyp: Path, *options: str) -> tuple[dict, dict]:
    cli = Path(sys.executable).with_name("meeteval-wer")
    subprocess.run([str(cli), tool, "-r", ref, "-h", hyp, *options], check=True, capture_output=True)
    return (
        json.loads(hyp.with_name(f"hyp_{tool}.json").read_text()),
        json.loads(hyp.with_name(f"hyp_{tool}_per_reco.json").read_text()),
    )


@pytest.mark.parametrize(
    ("tool", "metric", "options"),
    [("orcwer", ORCWER(), ()), ("tcpwer", TCPWER(collar=5), ("--collar", "5"))],
    ids=["orcwer", "tcpwer"],
)
def test_orc_and_tcp_corpus_equal_meeteval_cli(tmp_path, tool, metric, options) -> None:
    """Per-session counts and assignments, and the corpus numbers, of SCP rows equal ``meeteval-wer`` on STM files.

    Times are in milliseconds, so the file's decimals (meeteval reads them as Decimal) and our floats
    put every pseudo word at the same place."""
    rng = random.Random(7)
    corpus = {f"s{i}": (turns(rng, "r", 4), turns(rng, "h", 3)) for i in range(30)}
    write_stm(tmp_path / "ref.stm", {sid: ref for sid, (ref, _) in corpus.items()})
    write_stm(tmp_path / "hyp.stm", {sid: hyp for sid, (_, hyp) in corpus.items()})
    average, per_reco = meeteval_cli(tool, tmp_path / "ref.stm", tmp_path / "hyp.stm", *options)
    result = metric(write_session_scps(tmp_path / "ref.stm", tmp_path / "hyp.stm", tmp_path / "scp"), "dev")
    assert result[metric.name] == pytest.approx(average["error_rate"] * 100, abs=1e-12)
    for name in ("errors", "length", "substitutions", "deletions", "insertions"):
        assert result[f"{metric.name}_{name}"] == average[name], name
    for record in metric.session_results():
        theirs = per_reco[record[0]]
        fields = ("errors", "length", "substitutions", "deletions", "insertions")
        assert tuple(record[1:6]) == tuple(theirs[k] for k in fields), record[0]
        mine = [tuple(a) if isinstance(a, list) else a for a in record[-1]]
        assert mine == [tuple(a) if isinstance(a, list) else a for a in theirs["assignment"]], record[0]


def turns(rng: random.Random, prefix: str, speakers: int) -> list[Segment]:
    """Up to ``speakers`` speakers with millisecond turns that may overlap other speakers (and, rarely, themselves)."""
    out = []
    for k in range(rng.randint(1, speakers)):
        t = rng.randint(0, 3000)
        for _ in range(rng.randint(1, 4)):
            length = rng.randint(200, 4000)
            words = " ".join(rng.choice("a b c d the cat".split()) for _ in range(rng.randint(0, 6)))
            out.append(Segment(f"{prefix}{k}", t / 1000, (t + length) / 1000, words))
            t += length + rng.randint(-300, 3000)
    return out


def test_lists_of_segments_equal_json_and_files(tmp_path) -> None:
    """Kind "segments": a list of Segment, SegLST dicts or tuples, inline JSON and an STM file give one result."""
    ref = [Segment("A", 0.0, 2.0, "hello there"), Segment("B", 1.0, 3.0, "good morning")]
    hyp = [Segment("x", 0.0, 3.0, "hello there good")]
    write_stm(tmp_path / "ref.stm", {"s1": ref})
    write_stm(tmp_path / "hyp.stm", {"s1": hyp})
    as_dicts = [{"speaker": s.speaker, "start_time": s.start, "end_time": s.end, "words": s.words} for s in hyp]
    values = [
        (ref, hyp),
        ([tuple(s[:4]) for s in ref], as_dicts),
        (dumps(ref), dumps(hyp)),
        (str(tmp_path / "ref.stm"), str(tmp_path / "hyp.stm")),
    ]
    for make in (CPWER, ORCWER, lambda: TCPWER(collar=1)):
        results = []
        for ref_value, hyp_value in values:
            metric = make()
            feed(metric, {"ref": [ref_value], "hyp": [hyp_value]}, ["s1"])
            results.append((metric.compute(), metric.session_results()))
        assert all(r == results[0] for r in results), metric.name


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (None, r"hyp segments \(session 's1'\): a session's segments must be a list or a string, got None"),
        ([("A", 0, 1, "a"), 7], r"hyp segments line 2 \(session 's1'\): a segment is a Segment, a dict or a tuple"),
        ([("", 0, 1, "a")], r"hyp segments line 1 \(session 's1'\): segment 1 has no speaker \(''\)"),
        ([{"speaker": None, "start_time": 0, "end_time": 1}], r"line 1 \(session 's1'\): segment 1 has no speaker"),
        ([("A", 0, "x")], r"hyp segments line 1 \(session 's1'\): end_time 'x' is not a number"),
        ([("A", 2, 1)], r"hyp segments line 1 \(session 's1'\): end 1.0 is before start 2.0"),
        ([{"session_id": "s2", "speaker": "A", "start_time": 0, "end_time": 1}], r"holds segments of session 's2'"),
    ],
)
def test_bad_segment_lists_name_session_and_segment(value, message) -> None:
    with pytest.raises(SegmentError, match=message):
        as_segments(value, "s1", side="hyp")
    with pytest.raises(ValueError, match=rf"CPWER: utterance 's1': cpWER: .*{message}"):
        feed(CPWER(), {"ref": [[("A", 0, 1, "a")]], "hyp": [value]}, ["s1"])


def test_bad_files_and_options_are_named(tmp_path) -> None:
    (tmp_path / "ref.stm").write_text("s1 1 A 0.0 1.0 hi\n")
    (tmp_path / "sys.rttm").write_text(
        "SPEAKER s1 1 0.0 2.0 <NA> <NA> A <NA> <NA>\nSPEAKER s1 1 1.5 1.0 <NA> <NA> A <NA> <NA>\n"
    )
    # Issue 39: a speaker overlapping itself is read as written (DER merges it as md-eval does) ...
    turns = read_rttm(tmp_path / "sys.rttm")["s1"]
    assert [(s.speaker, s.start, s.end) for s in turns] == [("A", 0.0, 2.0), ("A", 1.5, 2.5)]
    # ... and refused only where a caller asks for it, naming the file, line and session.
    with pytest.raises(SegmentError, match=r"sys.rttm line 2 \(session 's1'\): speaker 'A' overlaps itself"):
        check_speaker_overlap(turns, str(tmp_path / "sys.rttm"), "s1")
    (tmp_path / "ref.scp").write_text(f"s1 {tmp_path / 'ref.stm'}\ns7 {tmp_path / 'ref.stm'}\n")
    with pytest.raises(ValueError, match=r"utterance 's7' .*tcpWER: .*ref.stm \(session 's7'\): the file has no"):
        TCPWER(collar=5)({"ref": tmp_path / "ref.scp", "hyp": tmp_path / "ref.scp"}, "dev")
    with pytest.raises(ValueError, match=r"tcpWER: session 's1': pseudo-word-level timing 'none' needs one word"):
        feed(
            TCPWER(collar=1, reference_pseudo_word_level_timing="none"),
            {"ref": [[("A", 0, 1, "a b")]], "hyp": [[]]},
            ["s1"],
        )
    with pytest.raises(ValueError, match="tcpWER: collar must be a number >= 0, got -1"):
        TCPWER(collar=-1)
    many = [(f"h{k}", 0, 1, " ".join(["a"] * 30)) for k in range(6)]
    with pytest.raises(ValueError, match=r"orcWER: session 's1': ORC-WER would search .* states \(6 streams"):
        feed(ORCWER(), {"ref": [[("A", 0, 1, "a")]], "hyp": [many]}, ["s1"])
