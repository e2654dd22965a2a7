"""SCP files: parsing, streaming, lockstep reading with clear errors, atomic writes."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lightscore import ScpError, ScpMismatchError
from lightscore.metric import WordCount
from lightscore.scp import atomic_open, check_utt_id, parse_line, read_scp, write_scp


@pytest.fixture
def metric():
    """Any metric: iter_inputs is a BaseMetric method and needs an instance."""
    return WordCount()


def rows(metric, data, *keys):
    return list(metric.iter_inputs(data, *keys))


# -- parsing ----------------------------------------------------------------------------


def test_whitespace_runs_between_id_and_value(metric, write_scp_file):
    path = write_scp_file("hyp.scp", "u1 a b\nu2\t\tc  d\nu3 \t e\t\n   u4    f   \n")
    # The first run of whitespace separates id and value; the value is stripped but
    # keeps its inner whitespace as written.
    assert rows(metric, {"hyp": path}, "hyp") == [
        ("u1", {"hyp": "a b"}),
        ("u2", {"hyp": "c  d"}),
        ("u3", {"hyp": "e"}),
        ("u4", {"hyp": "f"}),
    ]


def test_id_only_line_is_the_empty_value(metric, write_scp_file):
    path = write_scp_file("hyp.scp", "u1\nu2   \nu3\t\r\nu4 x\n")
    assert rows(metric, {"hyp": path}, "hyp") == [
        ("u1", {"hyp": ""}),
        ("u2", {"hyp": ""}),
        ("u3", {"hyp": ""}),
        ("u4", {"hyp": "x"}),
    ]


def test_blank_lines_are_skipped_and_line_numbers_stay_physical(write_scp_file):
    path = write_scp_file("hyp.scp", "\nu1 a\n\n   \n\t\r\nu2 b\n\n")
    assert list(read_scp(path)) == [(2, "u1", "a"), (6, "u2", "b")]


def test_crlf_endings(metric, write_scp_file):
    ref = write_scp_file("ref.scp", b"u1 the cat\r\nu2\r\nu3 a dog\r\n")
    hyp = write_scp_file("hyp.scp", b"u1 the bat\nu2 x\nu3 a dog")  # LF, last line without newline
    assert rows(metric, {"ref": ref, "hyp": hyp}, "ref", "hyp") == [
        ("u1", {"ref": "the cat", "hyp": "the bat"}),
        ("u2", {"ref": "", "hyp": "x"}),
        ("u3", {"ref": "a dog", "hyp": "a dog"}),
    ]


def test_utf8_values(metric, write_scp_file):
    path = write_scp_file("hyp.scp", [("u1", "größe Straße"), ("u2", "日本語 テキスト")])
    assert [row["hyp"] for _, row in rows(metric, {"hyp": path}, "hyp")] == ["größe Straße", "日本語 テキスト"]


def test_parse_line():
    assert parse_line("utt1  the cat\r\n") == ("utt1", "the cat")
    assert parse_line("utt2") == ("utt2", "")
    assert parse_line(" \t\r\n") is None
    assert parse_line("") is None


def test_empty_file_yields_nothing(metric, write_scp_file):
    ref = write_scp_file("ref.scp", "")
    hyp = write_scp_file("hyp.scp", "\n\n")
    assert rows(metric, {"ref": ref, "hyp": hyp}, "ref", "hyp") == []


def test_files_are_read_in_file_order_not_sorted(metric, write_scp_file):
    ref = write_scp_file("ref.scp", [("u3", "c"), ("u1", "a"), ("u2", "b")])
    hyp = write_scp_file("hyp.scp", [("u3", "C"), ("u1", "A"), ("u2", "B")])
    assert [utt for utt, _ in rows(metric, {"ref": ref, "hyp": hyp}, "ref", "hyp")] == ["u3", "u1", "u2"]


def test_three_files_in_lockstep_in_key_order(metric, write_scp_file):
    data = {
        "hyp": write_scp_file("hyp.scp", [("u1", "h1"), ("u2", "h2")]),
        "ref1": write_scp_file("ref1.scp", [("u1", "r1"), ("u2", "")]),
        "ref2": write_scp_file("ref2.scp", [("u1", "s1"), ("u2", "s2")]),
    }
    assert rows(metric, data, "ref2", "hyp") == [
        ("u1", {"ref2": "s1", "hyp": "h1"}),
        ("u2", {"ref2": "s2", "hyp": "h2"}),
    ]
    assert rows(metric, data, "hyp", "ref1", "ref2")[1] == ("u2", {"hyp": "h2", "ref1": "", "ref2": "s2"})


# -- streaming ------------------------------------------------------------------------


def test_iter_inputs_is_lazy_rows_come_out_before_a_later_bad_line(metric, write_scp_file):
    good = b"".join(b"u%d word %d\n" % (i, i) for i in range(1, 50_001))
    path = write_scp_file("hyp.scp", good + b"u50001 caf\xe9\n")
    iterator = metric.iter_inputs({"hyp": path}, "hyp")
    # The first rows come out although line 50001 is not UTF-8: nothing read it yet.
    assert next(iterator) == ("u1", {"hyp": "word 1"})
    assert next(iterator) == ("u2", {"hyp": "word 2"})
    with pytest.raises(ScpError, match=r"hyp\.scp:50001: line is not UTF-8"):
        for _ in iterator:
            pass


def test_iter_inputs_opens_nothing_until_iterated(metric, tmp_path):
    iterator = metric.iter_inputs({"hyp": tmp_path / "missing.scp"}, "hyp")
    with pytest.raises(FileNotFoundError):
        next(iterator)


def test_iter_inputs_memory_does_not_grow_with_the_file(metric, write_scp_file):
    # 2,000 lines of 10 kB each: a 20 MB pair of files, streamed row by row.
    value = ("x" * 9_999).encode()
    content = b"".join(b"u%d %s\n" % (i, value) for i in range(2_000))
    data = {"ref": write_scp_file("ref.scp", content), "hyp": write_scp_file("hyp.scp", content)}
    assert os.path.getsize(data["ref"]) > 20_000_000
    tracemalloc.start()
    try:
        count = sum(1 for _ in metric.iter_inputs(data, "ref", "hyp"))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == 2_000
    assert peak < 1_000_000, f"peak {peak} bytes: the files were not streamed"


# -- errors --------------------------------------------------------------------------


def test_non_utf8_line_names_the_file_and_line(metric, write_scp_file):
    ref = write_scp_file("ref.scp", [("u1", "a"), ("u2", "b"), ("u3", "c")])
    hyp = write_scp_file("hyp.scp", b"u1 a\n\nu2 b\xff\xfe\nu3 c\n")
    iterator = metric.iter_inputs({"ref": ref, "hyp": hyp}, "ref", "hyp")
    assert next(iterator) == ("u1", {"ref": "a", "hyp": "a"})
    with pytest.raises(ScpError) as info:
        next(iterator)
    assert isinstance(info.value, ValueError)
    assert f"{hyp}:3:" in str(info.value)
    assert "not UTF-8" in str(info.value)


def assert_mismatch(info, *words):
    assert isinstance(info.value, AssertionError)
    assert isinstance(info.value, ValueError)
    for word in words:
        assert word in str(info.value), (word, str(info.value))


def test_different_ids_at_the_same_row(metric, write_scp_file):
    ref = write_scp_file("ref.scp", "u1 a\n\nu2 b\nu3 c\n")
    hyp = write_scp_file("hyp.scp", "u1 a\nu9 b\nu3 c\n")
    iterator = metric.iter_inputs({"ref": ref, "hyp": hyp}, "ref", "hyp")
    assert next(iterator)[0] == "u1"
    with pytest.raises(ScpMismatchError) as info:
        next(iterator)
    assert_mismatch(info, "utterance ids differ", f"{ref}:3", f"{hyp}:2", "'u2'", "'u9'")


def test_id_mismatch_in_a_third_file(metric, write_scp_file):
    data = {
        "hyp": write_scp_file("hyp.scp", "u1 a\n"),
        "ref1": write_scp_file("ref1.scp", "u1 a\n"),
        "ref2": write_scp_file("ref2.scp", "v1 a\n"),
    }
    with pytest.raises(ScpMismatchError) as info:
        rows(metric, data, "hyp", "ref1", "ref2")
    assert_mismatch(info, str(data["hyp"]), str(data["ref2"]), ":1", "'u1'", "'v1'")


def test_other_file_ends_early(metric, write_scp_file):
    ref = write_scp_file("ref.scp", "u1 a\nu2 b\nu3 c\n")
    hyp = write_scp_file("hyp.scp", "u1 a\nu2 b\n")
    with pytest.raises(ScpMismatchError) as info:
        rows(metric, {"ref": ref, "hyp": hyp}, "ref", "hyp")
    assert_mismatch(info, f"{hyp} ended before {ref}", f"{ref}:3", "'u3'")


def test_first_file_ends_early(metric, write_scp_file):
    ref = write_scp_file("ref.scp", "u1 a\nu2 b\n")
    hyp = write_scp_file("hyp.scp", "u1 a\nu2 b\n\nu3 c\n")
    with pytest.raises(ScpMismatchError) as info:
        rows(metric, {"ref": ref, "hyp": hyp}, "ref", "hyp")
    assert_mismatch(info, f"{ref} ended before {hyp}", f"{hyp}:4", "'u3'")


def test_no_keys(metric, write_scp_file):
    data = {"hyp": write_scp_file("hyp.scp", "u1 a\n")}
    with pytest.raises(ScpMismatchError, match="at least one input key") as info:
        metric.iter_inputs(data)  # raised by the call itself, before any iteration
    assert_mismatch(info)


def test_mismatch_is_raised_under_python_O(write_scp_file):
    # Raised explicitly, never with `assert`, so `python -O` still reports it.
    ref = write_scp_file("ref.scp", "u1 a\n")
    hyp = write_scp_file("hyp.scp", "u2 a\n")
    code = textwrap.dedent(
        f"""
        from lightscore.metric import WordCount
        try:
            list(WordCount().iter_inputs({{"ref": {str(ref)!r}, "hyp": {str(hyp)!r}}}, "ref", "hyp"))
        except AssertionError as e:
            print("raised:", e)
        """
    )
    out = subprocess.run([sys.executable, "-O", "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.startswith("raised: utterance ids differ")


# -- writing ----------------------------------------------------------------------------


def test_write_scp_then_read_back(tmp_path):
    path = write_scp(tmp_path / "sub" / "hyp.scp", [("u1", "a  b"), ("u2", ""), ("u3", " two\nlines ")])
    assert path.read_text() == "u1 a  b\nu2\nu3 two lines\n"
    assert [(u, v) for _, u, v in read_scp(path)] == [("u1", "a  b"), ("u2", ""), ("u3", "two lines")]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.from_regex(r"[A-Za-z0-9_\-]{1,12}", fullmatch=True), st.text(max_size=30)),
        max_size=8,
    )
)
def test_write_scp_read_scp_round_trip(tmp_path_factory, pairs):
    path = write_scp(tmp_path_factory.mktemp("rt") / "x.scp", pairs)
    expected = [(u, " ".join(v.split("\n")).strip()) for u, v in pairs]
    assert [(u, v) for _, u, v in read_scp(path)] == expected


@pytest.mark.parametrize("bad", ["", ".", "..", "a b", "a/b", "a\\b", "a\tb"])
def test_check_utt_id_rejects(bad):
    with pytest.raises(ValueError, match="is not a plain token"):
        check_utt_id(bad, "hyp.scp")


def test_write_scp_rejects_a_bad_id_and_keeps_the_old_file(tmp_path):
    path = write_scp(tmp_path / "hyp.scp", [("u1", "old")])
    with pytest.raises(ValueError, match=r"hyp\.scp: utterance id 'u 2'"):
        write_scp(path, [("u1", "new"), ("u 2", "x")])
    assert path.read_text() == "u1 old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hyp.scp"]


def test_atomic_open_failure_leaves_no_file(tmp_path):
    path = tmp_path / "out.txt"
    with pytest.raises(RuntimeError):
        with atomic_open(path) as f:
            f.write("half")
            raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []
