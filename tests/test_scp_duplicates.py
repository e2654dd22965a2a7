"""SCP files: a repeated utterance id is refused, naming the file, the id and both lines.

In lockstep, by rows and by batches, on every rank of a sharded read, sorted or not; the check
costs at most 8 bytes a line (nothing for a sorted file) and lets unique ids with colliding hashes pass.
"""

from __future__ import annotations

import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lightscore import ScpError
from lightscore.scp import (
    ScpShard,
    iter_row_batches,
    iter_rows,
    parse_line,
    read_scp,
)
from lightscore.scp import ids as scp_ids

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
