"""WordTiming (issue 40, part E): numpy on generated times with known shifts is the oracle.

Reference words get generated times (whole milliseconds); the hypothesis keeps some of them, shifted by
known amounts, and replaces the others by a word that matches nothing. numpy, given the kept words'
shifts directly, gives the offsets' mean, median, 90th percentile, bias and shares within the
tolerances, and the latency statistics; WordTiming must equal them. Two instances over a split of the
utterances, merged, must equal one instance, percentiles included.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lightscore.core.batch import RowError
from lightscore.metrics import WordTiming

SHIFT = st.integers(-400, 400)


@st.composite
def utterances(draw):
    """Rows of (ref words, hyp words, emission times) and the kept words' known start, end and latency shifts."""
    rows, starts, ends, lats = [], [], [], []
    for u in range(draw(st.integers(1, 4))):
        n = draw(st.integers(1, 8))
        gaps = draw(st.lists(st.integers(0, 300), min_size=n, max_size=n))
        lengths = draw(st.lists(st.integers(1, 600), min_size=n, max_size=n))
        ref, t = [], 1000  # ms: room for negative shifts
        for k in range(n):
            t += gaps[k]
            ref.append((f"w{u}_{k}", t, t + lengths[k]))
            t += lengths[k]
        keep = draw(st.lists(st.booleans(), min_size=n, max_size=n))
        hyp, emit = [], []
        for k, (word, start, end) in enumerate(ref):
            if not keep[k]:
                # replaced in place by a word nothing matches: the alignment's least-cost path is then the
                # diagonal alone (a deletion and an insertion cost 2, a substitution 1), so the matches are known
                hyp.append(("zzz", start, end))
                emit.append(end)
                continue
            ds, de, lat = draw(SHIFT), draw(SHIFT), draw(st.integers(-200, 1500))
            new_start = start + ds
            new_end = max(new_start, end + de)  # a word ends after it starts
            starts.append(new_start - start)
            ends.append(new_end - end)
            lats.append(lat)
            hyp.append((word, new_start, new_end))
            emit.append(end + lat)
        seconds = [[(w, s / 1000, e / 1000) for w, s, e in words] for words in (ref, hyp)]
        rows.append((*seconds, [e / 1000 for e in emit]))
    return rows, np.array(starts), np.array(ends), np.array(lats)


def _feed(metric, rows):
    metric.update(ref=[r for r, _, _ in rows], hyp=[h for _, h, _ in rows], emit=[e for _, _, e in rows])
    return metric


@settings(max_examples=60, deadline=None)
@given(utterances(), st.integers(0, 4))
def test_word_timing_equals_numpy_on_known_shifts(generated, cut):
    rows, starts, ends, lats = generated
    if starts.size == 0:
        with pytest.raises(ValueError, match="no hypothesis word matched"):
            _feed(WordTiming(emission=True), rows).compute()
        return
    r = _feed(WordTiming(emission=True), rows).compute()
    assert r["timing_matched_words"] == starts.size
    assert r["timing_ref_words"] == sum(len(ref) for ref, _, _ in rows)
    for side, shifts in (("start", starts), ("end", ends)):
        size = np.abs(shifts)
        assert r[f"{side}_offset_mean_ms"] == pytest.approx(size.mean(), abs=1e-9)
        assert r[f"{side}_offset_median_ms"] == pytest.approx(np.median(size), abs=1e-9)
        assert r[f"{side}_offset_p90_ms"] == pytest.approx(np.percentile(size, 90), abs=1e-9)
        assert r[f"{side}_bias_ms"] == pytest.approx(shifts.mean(), abs=1e-9)
        for t in (50, 100, 200):
            assert r[f"{side}_within_{t}ms"] == pytest.approx(100 * np.mean(size <= t))
            assert r[f"{side}_precision_{t}ms"] == pytest.approx(100 * np.sum(size <= t) / r["timing_hyp_words"])
            assert r[f"{side}_recall_{t}ms"] == pytest.approx(100 * np.sum(size <= t) / r["timing_ref_words"])
    assert r["latency_mean_ms"] == pytest.approx(lats.mean(), abs=1e-9)
    assert r["latency_median_ms"] == pytest.approx(np.median(lats), abs=1e-9)
    assert r["latency_p90_ms"] == pytest.approx(np.percentile(lats, 90), abs=1e-9)
    # two instances over a split of the utterances, merged: the same state and the very same numbers
    a, b = _feed(WordTiming(emission=True), rows[:cut]), _feed(WordTiming(emission=True), rows[cut:])
    merged = WordTiming(emission=True)
    merged.load_state(merged.merge_states([a.state(), b.state()]))
    assert merged.compute() == r


def test_word_timing_hand_worked():
    # ref: a 0.00-0.40, b 0.50-0.90, c 1.00-1.50      hyp: a 0.03-0.45, x 0.50-0.90, c 0.90-1.62
    # matched: a, c (b/x a substitution).  start offsets +30, -100 ms; end offsets +50, +120 ms.
    # |start|: mean 65, median 65, P90 = 30 + 0.9 * 70 = 93; bias (30 - 100) / 2 = -35
    # within 50 ms: start 1 of 2 (50 %), end 1 of 2 (50 %, 50 is on the boundary: within)
    m = WordTiming(tolerances=(50,))
    m.update(
        ref=[[("a", 0.0, 0.4), ("b", 0.5, 0.9), ("c", 1.0, 1.5)]],
        hyp=[[{"word": "a", "start": 0.03, "end": 0.45}, {"word": "x", "start": 0.5, "end": 0.9}, ("c", 0.9, 1.62)]],
    )
    r = m.compute()
    assert (r["timing_matched_words"], r["start_offset_mean_ms"], r["start_offset_median_ms"]) == (2, 65.0, 65.0)
    assert r["start_offset_p90_ms"] == pytest.approx(93.0) and r["start_bias_ms"] == -35.0
    assert (r["start_within_50ms"], r["end_within_50ms"], r["end_bias_ms"]) == (50.0, 50.0, 85.0)
    # precision and recall: 1 word on time (a) of 3 hypothesis and of 3 reference words
    assert r["start_precision_50ms"] == r["start_recall_50ms"] == pytest.approx(100 / 3)


def test_word_timing_reads_ctm_files_by_utterance(tmp_path):
    (tmp_path / "ref.ctm").write_text("u1 1 0.00 0.40 hi\nu1 1 0.50 0.40 there\nu2 1 0.0 1.0 yes\n")
    # the hypothesis ctm out of time order: its words are sorted by start, as hubscr sorts a ctm
    (tmp_path / "hyp.ctm").write_text("u1 1 0.60 0.40 there\nu2 1 0.0 1.2 yes\nu1 1 0.02 0.40 hi\n")
    (tmp_path / "ref.scp").write_text(f"u1 {tmp_path}/ref.ctm\nu2 {tmp_path}/ref.ctm\n")
    (tmp_path / "hyp.scp").write_text(f"u1 {tmp_path}/hyp.ctm\nu2 {tmp_path}/hyp.ctm\n")
    # start offsets 20, 100, 0 ms; end offsets 20, 100, 200 ms
    r = WordTiming()({"ref": tmp_path / "ref.scp", "hyp": tmp_path / "hyp.scp"}, "dev")
    assert r["start_offset_mean_ms"] == pytest.approx(40.0) and r["end_offset_median_ms"] == pytest.approx(100.0)
    (tmp_path / "hyp.scp").write_text(f"u1 {tmp_path}/hyp.ctm\nu2 {tmp_path}/other.ctm\n")
    with pytest.raises(ValueError, match=r"utterance 'u2'.*other.ctm.*no such file"):
        WordTiming()({"ref": tmp_path / "ref.scp", "hyp": tmp_path / "hyp.scp"}, "dev")


def test_word_timing_refuses_bad_input():
    with pytest.raises(TypeError, match="whole milliseconds"):
        WordTiming(tolerances=(12.5,))
    with pytest.raises(RowError, match="hyp word 1 .*end 0.1 is before start 0.2"):
        WordTiming().update(ref=[[("a", 0, 1)]], hyp=[[("a", 0.2, 0.1)]])
    with pytest.raises(RowError, match="2 emission times for 1 hypothesis words"):
        WordTiming(emission=True).update(ref=[[("a", 0, 1)]], hyp=[[("a", 0, 1)]], emit=[[0.5, 0.6]])


def test_cli_ctm_pair_with_emission_and_measure(tmp_path, capsys):
    from lightscore import measure
    from lightscore.cli.parser import main

    (tmp_path / "ref.ctm").write_text("u1 1 0.00 0.40 hi\nu1 1 0.50 0.40 there\nu2 1 0.0 1.0 yes\n")
    (tmp_path / "hyp.ctm").write_text("u1 1 0.02 0.40 hi\nu1 1 0.60 0.40 there\nu2 1 0.0 1.2 yes\n")
    (tmp_path / "emit.scp").write_text("u2 1.3\nu1 0.6 1.1\n")  # any order: read by id
    ref, hyp = str(tmp_path / "ref.ctm"), str(tmp_path / "hyp.ctm")
    args = [
        "score",
        ref,
        hyp,
        "--metric",
        "word_timing",
        "--tolerances",
        "20,100",
        "--emit",
        str(tmp_path / "emit.scp"),
    ]
    assert main(args) == 0
    out = capsys.readouterr().out
    # start offsets 20, 100, 0: within 20 ms 2 of 3; latencies 0.6-0.4, 1.1-0.9, 1.3-1.0 = 200, 200, 300 ms
    assert "start_within_20ms       66.67" in out and "latency_mean_ms         233.33" in out
    assert main(["score", ref, hyp, "--metric", "word_timing", "--marks", "."]) == 1
    assert "--marks is used by" in capsys.readouterr().err
    (tmp_path / "emit3.scp").write_text("u1 0.6 1.1\nu2 1.3\nu9 2.0\n")
    assert main(["score", ref, hyp, "--metric", "word_timing", "--emit", str(tmp_path / "emit3.scp")]) == 1
    assert "utterance 'u9' is not in the reference" in capsys.readouterr().err
    test = tmp_path / "exp" / "dev"
    test.mkdir(parents=True)
    (test / "ref_words.scp").write_text(f"u1 {ref}\nu2 {ref}\n")
    (test / "hyp_words.scp").write_text(f"u1 {hyp}\nu2 {hyp}\n")
    (test / "emit.scp").write_text("u1 0.6 1.1\nu2 1.3\n")
    entry = {"_target_": "lightscore.metrics.WordTiming", "tolerances": [20, 100], "emission": True}
    inputs = {"ref": "ref_words", "hyp": "hyp_words", "emit": "emit"}
    config = {"inference_dir": str(tmp_path / "exp"), "metrics": [{"metric": entry, "inputs": inputs, "name": "wt"}]}
    result = measure(config)["wt"]["dev"]
    assert result["start_within_20ms"] == pytest.approx(200 / 3) and result["latency_p90_ms"] == pytest.approx(280.0)


def test_word_timing_reads_seglst_lines_and_refuses_a_segment_of_several_words(tmp_path):
    # an SCP value may be one line of SegLST JSON, one word per entry (as the callback's save_dir writes it)
    line = '[{"speaker": "A", "start_time": 0.5, "end_time": 0.9, "words": "hi"}]'
    m = WordTiming()
    with m.feeding(["u1"]):
        m.update(ref=[line], hyp=[[("hi", 0.55, 0.9)]])
    assert m.compute()["start_offset_mean_ms"] == pytest.approx(50.0)
    two = '[{"speaker": "A", "start_time": 0.5, "end_time": 0.9, "words": "hi there"}]'
    with pytest.raises(RowError, match="a timed word holds one word, got 'hi there'"), m.feeding(["u1"]):
        m.update(ref=[two], hyp=[[("hi", 0.55, 0.9)]])
