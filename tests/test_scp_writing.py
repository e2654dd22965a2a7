"""SCP writing: ``write_scp`` round trips and id checks, and ``atomic_open``'s file modes and temporary files.

A failed or killed write (SIGTERM) leaves the old file and no temporary file; stale temporary files of
dead processes are removed.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import textwrap
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lightscore.scp import (
    atomic_open,
    check_utt_id,
    read_scp,
    write_scp,
)

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
