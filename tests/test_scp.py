"""SCP files: parsing, streaming, line endings and byte-order marks, lockstep reading with clear errors.

Duplicate utterance ids are in ``test_scp_duplicates.py``; writing (``write_scp``, ``atomic_open``) in
``test_scp_writing.py``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import tracemalloc

import pytest
from example_metrics import WordCount

from lightscore import ScpError, ScpMismatchError
from lightscore.scp import (
    check_utt_id,
    count_scp_rows,
    iter_row_batches,
    iter_rows,
    parse_line,
    read_scp,
    write_scp,
)


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
        from lightscore.metrics import WER
        try:
            list(WER().iter_inputs({{"ref": {str(ref)!r}, "hyp": {str(hyp)!r}}}, "ref", "hyp"))
        except AssertionError as e:
            print("raised:", e)
        """
    )
    out = subprocess.run([sys.executable, "-O", "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.startswith("raised: utterance ids differ")


# -- line endings, byte-order marks -------------------------------------------------------------


def test_cr_only_line_endings_are_refused(write_scp_file):
    path = write_scp_file("hyp.scp", b"u1 a b\ru2 c\ru3 d\r")
    with pytest.raises(ScpError, match=rf"{path}:1: carriage return .* at character 7") as info:
        list(iter_rows({"hyp": path}))
    assert "old Mac" in str(info.value)


def test_a_100k_line_cr_only_file_is_refused_at_once(write_scp_file):
    path = write_scp_file("hyp.scp", b"".join(b"u%d some words here\r" % i for i in range(100_000)))
    with pytest.raises(ScpError, match="carriage return"):
        list(iter_row_batches({"ref": path, "hyp": path}, 1000))


def test_crlf_and_a_trailing_cr_at_the_end_of_the_file_still_read(write_scp_file):
    path = write_scp_file("hyp.scp", b"u1 a\r\nu2 b\r")
    assert [(u, v) for _, u, v in read_scp(path)] == [("u1", "a"), ("u2", "b")]


def test_write_scp_turns_a_carriage_return_in_a_value_into_a_space(tmp_path):
    path = write_scp(tmp_path / "hyp.scp", [("u1", "a\rb\r\nc")])
    assert path.read_bytes() == b"u1 a b  c\n"
    assert [v for _, _, v in read_scp(path)] == ["a b  c"]


def test_utf8_bom_at_the_start_is_skipped_so_ids_match(write_scp_file):
    ref = write_scp_file("ref.scp", "\ufeffu1 a\nu2 b\n")
    hyp = write_scp_file("hyp.scp", "u1 a\nu2 c\n")
    assert list(iter_rows({"ref": ref, "hyp": hyp})) == [
        ("u1", {"ref": "a", "hyp": "a"}),
        ("u2", {"ref": "b", "hyp": "c"}),
    ]
    assert count_scp_rows(ref) == 2


def test_bom_elsewhere_is_named_in_the_mismatch(write_scp_file):
    ref = write_scp_file("ref.scp", "u1 a\n\ufeffu2 b\n")
    hyp = write_scp_file("hyp.scp", "u1 a\nu2 b\n")
    with pytest.raises(ScpMismatchError, match="byte-order mark"):
        list(iter_rows({"ref": ref, "hyp": hyp}))


def test_utf16_file_is_named_as_utf16(write_scp_file):
    path = write_scp_file("hyp.scp", "u1 a\n".encode("utf-16"))
    with pytest.raises(ScpError, match=rf"{path}:1: line is not UTF-8 .*UTF-16 byte-order mark"):
        list(read_scp(path))


# -- error messages ------------------------------------------------------------------------------


def test_ids_differing_only_in_unicode_normalisation_are_shown_apart(write_scp_file):
    ref = write_scp_file("ref.scp", "caf\u00e9 a\n")  # NFC
    hyp = write_scp_file("hyp.scp", "cafe\u0301 a\n")  # NFD
    with pytest.raises(ScpMismatchError) as info:
        list(iter_row_batches({"ref": ref, "hyp": hyp}, 10))
    assert_mismatch(info, "utterance ids differ", "'caf\\xe9'", "'cafe\\u0301'", "Unicode normalisation (NFC vs NFD)")


def test_a_huge_id_is_cut_short_in_the_mismatch(write_scp_file):
    huge = "x" * 1_000_000
    ref = write_scp_file("ref.scp", f"{huge}\n")
    hyp = write_scp_file("hyp.scp", "u1 a\n")
    for read in (lambda d: list(iter_rows(d)), lambda d: list(iter_row_batches(d, 4))):
        with pytest.raises(ScpMismatchError) as info:
            read({"ref": ref, "hyp": hyp})
        assert len(str(info.value)) < 400
        assert_mismatch(info, f"{ref}:1", "'" + "x" * 80 + "'… (1000000 characters)", "'u1'")


def test_a_huge_bad_id_is_cut_short_by_check_utt_id():
    with pytest.raises(ValueError) as info:
        check_utt_id("a b" * 100_000, "hyp.scp")
    assert len(str(info.value)) < 300
    assert "… (300000 characters) is not a plain token" in str(info.value)


@pytest.mark.parametrize("read", [iter_rows, lambda paths: iter_row_batches(paths, 10)])
def test_no_paths_error_names_no_other_function(read):
    with pytest.raises(ScpMismatchError, match="at least one input key") as info:
        read({})
    assert "iter_inputs" not in str(info.value)
