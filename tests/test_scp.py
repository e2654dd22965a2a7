"""SCP files: parsing, streaming, lockstep reading with clear errors, atomic writes."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import textwrap
import threading
import tracemalloc

import pytest
from example_metrics import WordCount
from hypothesis import given, settings
from hypothesis import strategies as st

from lightscore import ScpError, ScpMismatchError
from lightscore.scp import (
    ScpShard,
    atomic_open,
    check_utt_id,
    count_scp_rows,
    iter_row_batches,
    iter_rows,
    parse_line,
    read_scp,
    write_scp,
)
from lightscore.scp import ids as scp_ids


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
    expected = [(u, " ".join(v.split("\n")).replace("\r", " ").strip()) for u, v in pairs]
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


# -- duplicate utterance ids ----------------------------------------------------------------


def test_duplicate_id_is_refused_naming_the_file_the_id_and_both_lines(write_scp_file):
    ref = write_scp_file("ref.scp", "u1 a\nu2 b\n\nu1 c\nu3 d\n")
    hyp = write_scp_file("hyp.scp", "u1 a\nu2 b\nu1 c\nu3 d\n")
    data = {"ref": ref, "hyp": hyp}
    expected = rf"{ref}: utterance id 'u1' appears twice, at lines 1 and 4"
    with pytest.raises(ScpError, match=expected):
        list(iter_rows(data))
    with pytest.raises(ScpError, match=expected):
        list(iter_row_batches(data, 2))
    # read_scp is the plain line reader: it does not check.
    assert [u for _, u, _ in read_scp(ref)] == ["u1", "u2", "u1", "u3"]


def test_duplicate_id_at_a_batch_boundary_and_in_the_last_full_batch(write_scp_file):
    path = write_scp_file("hyp.scp", "u1 a\nu2 b\nu3 c\nu2 d\n")
    for size in (1, 2, 3, 4, 5):
        with pytest.raises(ScpError, match="'u2' appears twice, at lines 2 and 4"):
            list(iter_row_batches({"hyp": path}, size))


def test_duplicate_ids_across_shards_are_caught_by_every_rank(write_scp_file):
    # Rank 0 reads u1, u3 and rank 1 reads u2, u1: each shard alone has no repeated id.
    path = write_scp_file("hyp.scp", "u1 a\nu2 b\nu3 c\nu1 d\n")
    for rank in (0, 1):
        shard = ScpShard(path, rank, 2)
        with pytest.raises(ScpError, match=rf"{path}: utterance id 'u1' appears twice, at lines 1 and 4"):
            list(iter_row_batches({"hyp": shard, "ref": shard}, 1))
        with pytest.raises(ScpError, match="at lines 1 and 4"):
            list(iter_rows({"hyp": shard}))


def test_unique_ids_pass_even_when_their_hashes_collide(write_scp_file, monkeypatch):
    # Python's str hash is salted per process, so a real 64-bit collision cannot be made on demand:
    # a constant hash makes every id collide, and the confirming second read must clear them all.
    # Out of order from the second id on, so every id is hashed (a sorted file stores no hash).
    order = ["u4", "u0", "u3", "u1", "u2"]
    path = write_scp_file("hyp.scp", [(u, "a") for u in order])
    monkeypatch.setattr(scp_ids, "_id_hash", lambda utt_id: 7)
    assert [ids for ids, _ in iter_row_batches({"hyp": path}, 2)] == [["u4", "u0"], ["u3", "u1"], ["u2"]]
    assert [u for u, _ in iter_rows({"hyp": path})] == order


def test_duplicate_check_on_a_long_file_uses_8_bytes_a_line(write_scp_file):
    # Past the small-file threshold the hashes are sorted with numpy; a Python set would cost ~60 bytes a line.
    lines = 100_000
    content = b"".join(b"utt%07d w\n" % i for i in range(lines))
    path = write_scp_file("hyp.scp", content + b"utt0012345 w\n")
    import numpy  # noqa: F401  (imported before tracing: its import is not the reader's memory)

    tracemalloc.start()
    try:
        with pytest.raises(ScpError, match=r"'utt0012345' appears twice, at lines 12346 and 100001"):
            for _ in iter_row_batches({"hyp": path}, 1000):
                pass
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 20 * lines, f"peak {peak} bytes for {lines} lines"


def read_all(paths, size=None):
    """Every row of ``paths`` in lockstep: by rows, or by batches of ``size``."""
    if size is None:
        return [utt_id for utt_id, _ in iter_rows(paths)]
    return [utt_id for ids, _ in iter_row_batches(paths, size) for utt_id in ids]


def peak_bytes(paths, size):
    """The peak of memory traced while reading ``paths`` in batches of ``size`` (and dropping them)."""
    import numpy  # noqa: F401  (imported before tracing: its import is not the reader's memory)

    tracemalloc.start()
    try:
        for _ in iter_row_batches(paths, size):
            pass
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("world", [1, 2])
def test_a_sorted_file_stores_nothing_for_the_duplicate_check(write_scp_file, world):
    # The same 100,000 ids sorted and reversed: only the reversed file keeps 8 bytes a line of hashes
    # (each rank checks every row of the file, the other ranks' too).
    lines = [b"utt%07d w\n" % i for i in range(100_000)]
    ascending = ScpShard(write_scp_file("ascending.scp", b"".join(lines)), world - 1, world)
    descending = ScpShard(write_scp_file("descending.scp", b"".join(reversed(lines))), world - 1, world)
    sorted_peak = peak_bytes({"hyp": ascending}, 100)
    unsorted_peak = peak_bytes({"hyp": descending}, 100)
    assert sorted_peak < 100_000, f"peak {sorted_peak} bytes for a sorted file of 100,000 lines"
    assert unsorted_peak > 800_000, f"peak {unsorted_peak} bytes: the hashes were not measured"


@pytest.mark.parametrize("size", [None, 1, 2, 3, 5])
def test_a_duplicate_next_to_its_twin_in_a_sorted_file_is_refused_at_once(write_scp_file, size):
    # Refused with the batch that holds it: line 7, not UTF-8, is in a later batch, and its error
    # would come first were the check left to the end of the file.
    path = write_scp_file("hyp.scp", b"a1 x\nb2 x\n\nb2 y\nc3 z\nc4 z\ncaf\xe9 z\n")
    with pytest.raises(ScpError, match=rf"^{path}: utterance id 'b2' appears twice, at lines 2 and 4$"):
        read_all({"hyp": path}, size)
    # The rows before the duplicate come out first.
    rows_out = iter_rows({"hyp": path})
    assert next(rows_out)[0] == "a1"
    assert next(rows_out)[0] == "b2"
    with pytest.raises(ScpError, match="at lines 2 and 4"):
        next(rows_out)


@pytest.mark.parametrize(
    "ids, twice",
    [
        # The twin before the first id out of order (u0 at line 4), the repeat after it.
        (["u1", "u2", "u3", "u0", "u2"], "'u2' appears twice, at lines 2 and 5"),
        # The repeat is the first id out of order.
        (["u1", "u2", "u3", "u1"], "'u1' appears twice, at lines 1 and 4"),
        # Both after the first id out of order (u1 at line 2).
        (["u5", "u1", "u3", "u2", "u3"], "'u3' appears twice, at lines 3 and 5"),
        # Out of order, then increasing again, then the repeat: the hashes are kept from line 2 on.
        (["u2", "u1", "u3", "u4", "u5", "u6", "u1"], "'u1' appears twice, at lines 2 and 7"),
    ],
)
@pytest.mark.parametrize("world", [1, 2, 3])
def test_a_duplicate_in_an_unsorted_file_is_refused_by_every_rank(write_scp_file, ids, twice, world):
    path = write_scp_file("hyp.scp", [(u, "x") for u in ids])
    for rank in range(world):
        data = {"hyp": ScpShard(path, rank, world), "ref": ScpShard(path, rank, world)}
        for size in (None, 1, 2, 10):
            with pytest.raises(ScpError, match=rf"^{path}: utterance id {twice}$"):
                read_all(data, size)


@pytest.mark.parametrize("world", [2, 3])
def test_adjacent_duplicate_in_another_ranks_rows_of_a_sorted_file(write_scp_file, world):
    # u3 at lines 3 and 4: rows 2 and 3, never both in one rank's rows; every rank refuses it at once,
    # before line 6 (not UTF-8) is read.
    path = write_scp_file("hyp.scp", b"u1 a\nu2 b\nu3 c\nu3 d\nu4 e\nu5 \xff\n")
    for rank in range(world):
        shard = ScpShard(path, rank, world)
        for size in (None, 1, 5):
            with pytest.raises(ScpError, match=rf"^{path}: utterance id 'u3' appears twice, at lines 3 and 4$"):
                read_all({"hyp": shard}, size)


def test_sorted_shards_without_duplicates_read_their_own_rows(write_scp_file):
    path = write_scp_file("hyp.scp", [(f"u{i:02d}", f"v{i}") for i in range(10)])
    for world in (1, 2, 3):
        rows_read = [read_all({"hyp": ScpShard(path, rank, world)}, 4) for rank in range(world)]
        assert sorted(u for ids in rows_read for u in ids) == [f"u{i:02d}" for i in range(10)]
        assert rows_read[world - 1][0] == f"u{world - 1:02d}"


@pytest.mark.parametrize("space", ["\u00a0", "\u3000", "\x1c", "\x1f"])
def test_an_id_ended_by_unicode_whitespace_is_compared_as_read(write_scp_file, space):
    # str.split ends the id at this whitespace (bytes.split would not): both lines have the id 'a',
    # although the lines, and their first runs without ASCII whitespace, increase.
    path = write_scp_file("hyp.scp", f"a{space}x 1\na{space}y 2\n")
    assert [u for _, u, _ in read_scp(path)] == ["a", "a"]
    for rank in range(2):
        with pytest.raises(ScpError, match="'a' appears twice, at lines 1 and 2"):
            read_all({"hyp": ScpShard(path, rank, 2)}, 1)
    with pytest.raises(ScpError, match="'a' appears twice, at lines 1 and 2"):
        read_all({"hyp": path})


def first_repeat(ids):
    """(id, first line, repeating line) of the first id that repeats an earlier one, or None."""
    first = {}
    for line, utt_id in enumerate(ids, 1):
        if utt_id in first:
            return utt_id, first[utt_id], line
        first[utt_id] = line
    return None


# Ids with non-ASCII letters, and a no-break space that ends an id (and may start a line).
tokens = st.lists(st.text(alphabet="abz\u00e9\u4e00\u00a0", min_size=1, max_size=3), max_size=12)


@settings(max_examples=150, deadline=None)
@given(st.one_of(tokens, tokens.map(sorted)), st.integers(1, 3), st.integers(1, 4))
def test_duplicates_are_found_exactly_sorted_or_not(tmp_path_factory, tokens, world, size):
    path = tmp_path_factory.mktemp("dup") / "hyp.scp"
    lines = [f"{token} x\n" for token in tokens]
    path.write_text("".join(lines), encoding="utf-8")
    ids = [parse_line(line)[0] for line in lines]
    repeat = first_repeat(ids)
    for rank in range(world):
        shard = ScpShard(path, rank, world)
        if repeat is None:
            assert read_all({"hyp": shard}, size) == ids[rank::world]
        else:
            utt_id, first, second = repeat
            with pytest.raises(ScpError) as info:
                read_all({"hyp": shard}, size)
            assert str(info.value) == f"{path}: utterance id {utt_id!r} appears twice, at lines {first} and {second}"


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


# -- file modes ------------------------------------------------------------------------------


@pytest.mark.parametrize("umask, expected", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_new_files_get_the_mode_the_umask_gives(tmp_path, umask, expected):
    previous = os.umask(umask)
    try:
        path = write_scp(tmp_path / "hyp.scp", [("u1", "a")])
        with atomic_open(tmp_path / "out.bin", "wb") as f:
            f.write(b"x")
    finally:
        os.umask(previous)
    assert stat.S_IMODE(path.stat().st_mode) == expected
    assert stat.S_IMODE((tmp_path / "out.bin").stat().st_mode) == expected


def test_replacing_a_file_keeps_its_mode(tmp_path):
    path = tmp_path / "hyp.scp"
    path.write_text("u1 old\n")
    path.chmod(0o604)  # no umask gives this: it must come from the old file
    previous = os.umask(0o077)
    try:
        write_scp(path, [("u1", "new")])
    finally:
        os.umask(previous)
    assert path.read_text() == "u1 new\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o604


# -- temporary files -------------------------------------------------------------------------


def temp_files(folder):
    return sorted(p.name for p in folder.iterdir() if ".lightscore-tmp-" in p.name)


def test_temporary_file_has_a_recognisable_name_and_goes_away(tmp_path):
    with atomic_open(tmp_path / "hyp.scp") as f:
        f.write("u1 a\n")
        (name,) = temp_files(tmp_path)
        assert name.startswith(f".hyp.scp.lightscore-tmp-{os.uname().nodename}-{os.getpid()}-")
    assert temp_files(tmp_path) == []


def test_sigterm_during_a_write_removes_the_temporary_file(tmp_path):
    path = tmp_path / "hyp.scp"
    path.write_text("u1 old\n")
    code = textwrap.dedent(
        f"""
        import time
        from lightscore.scp import atomic_open
        with atomic_open({str(path)!r}) as f:
            f.write("x" * 5_000_000)
            f.flush()
            print("writing", flush=True)
            time.sleep(60)
        """
    )
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout.readline() == "writing\n"
        assert len(temp_files(tmp_path)) == 1
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == -signal.SIGTERM  # killed as by the default handler
    finally:
        process.kill()
        process.stdout.close()
    assert temp_files(tmp_path) == []
    assert path.read_text() == "u1 old\n"


def test_the_sigterm_handler_is_there_only_during_a_write(tmp_path):
    before = signal.getsignal(signal.SIGTERM)
    with atomic_open(tmp_path / "out.txt") as f:
        during = signal.getsignal(signal.SIGTERM)
        f.write("x")
    assert signal.getsignal(signal.SIGTERM) == before
    if before == signal.SIG_DFL:
        assert callable(during)


def test_stale_temporary_files_of_dead_processes_are_removed(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(dead.stdout)
    host = os.uname().nodename
    names = {
        "dead": f".hyp.scp.lightscore-tmp-{host}-{dead_pid}-0badc0de",
        "alive": f".hyp.scp.lightscore-tmp-{host}-{os.getppid()}-0badc0de",
        "other host": f".hyp.scp.lightscore-tmp-not-{host}-{dead_pid}-0badc0de",
        "other target": f".ref.scp.lightscore-tmp-{host}-{dead_pid}-0badc0de",
    }
    for name in names.values():
        (tmp_path / name).write_text("half")
    write_scp(tmp_path / "hyp.scp", [("u1", "a")])
    left = {kind for kind, name in names.items() if (tmp_path / name).exists()}
    assert left == {"alive", "other host", "other target"}
    assert (tmp_path / "hyp.scp").read_text() == "u1 a\n"


def test_atomic_open_in_a_worker_thread_leaves_the_handler_alone(tmp_path):
    # Only the main thread may set signal handlers; a write elsewhere must still work.
    before = signal.getsignal(signal.SIGTERM)
    seen = []

    def write():
        with atomic_open(tmp_path / "out.txt") as f:
            seen.append(signal.getsignal(signal.SIGTERM))
            f.write("done\n")

    worker = threading.Thread(target=write)
    worker.start()
    worker.join()
    assert seen == [before]
    assert (tmp_path / "out.txt").read_text() == "done\n"
    assert temp_files(tmp_path) == []
