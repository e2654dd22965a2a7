"""Writing a file atomically: a temporary file beside it, renamed onto it when complete.

A reader never sees a half-written file and a failure (or ``kill -9``) leaves
the old one. The new file gets the mode the umask gives, or keeps the mode of
the file it replaces. Temporary files ``.<name>.lightscore-tmp-<host>-<pid>-<random>``
are removed on an error and on SIGTERM, and leftovers of dead processes on this
host are removed the next time the file is written.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import stat
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO

__all__ = ["atomic_open", "check_writable", "temp_target"]


_TEMP_TAG = ".lightscore-tmp-"
# Temporary files this process is writing, removed on SIGTERM. No lock: set operations are atomic
# under the GIL, and the handler must not wait for a lock the main thread it interrupted may hold.
_live_temps: set[str] = set()


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike, mode: str = "w", encoding: str | None = "utf-8") -> Iterator[IO]:
    """Open a temporary file beside ``path``; rename it onto ``path`` only if the block succeeds.

    A reader never sees a half-written file, and a failure leaves the old one.
    The new file has the mode the umask gives (``0o666 & ~umask``), or the
    mode of the file it replaces. The temporary file
    ``.<name>.lightscore-tmp-<host>-<pid>-<random>`` is removed when the block
    raises, and on SIGTERM while a write runs in the main thread and SIGTERM
    has its default action (the handler then kills the process as that action
    would). Temporary files of ``path`` left by dead processes of this host
    (SIGKILL, power loss) are removed when ``path`` is next opened.

    Args:
        path: The file to write; its folder is created if missing.
        mode: ``"w"`` (text) or ``"wb"`` (bytes).
        encoding: The text encoding (ignored in binary mode).

    Returns:
        A context manager giving the open temporary file.

    Raises:
        OSError: The folder or the temporary file cannot be made, or the rename fails.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "out.txt"
    >>> with atomic_open(p) as f:
    ...     _ = f.write("done\\n")
    >>> p.read_text()
    'done\\n'
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_temps(path)
    with _temps_removed_on_sigterm():
        tmp, fd = _create_temp(path)
        try:
            with os.fdopen(fd, mode, encoding=None if "b" in mode else encoding) as f:
                yield f
            _keep_mode(path, tmp)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise
        finally:
            _live_temps.discard(tmp)


def temp_target(name: str) -> str | None:
    """The name of the file that the temporary file called ``name`` stands for; None if ``name`` is not one.

    Args:
        name: A file name (no folder), e.g. from an OSError's ``filename``.

    Returns:
        ``<name>`` for ``.<name>.lightscore-tmp-<host>-<pid>-<random>``, else None.

    >>> temp_target(".wer_alignment.lightscore-tmp-node1-4242-0badc0de"), temp_target("wer_alignment")
    ('wer_alignment', None)
    """
    if not name.startswith("."):
        return None
    target, tag, _ = name[1:].rpartition(_TEMP_TAG)
    return target if tag and target else None


def _host() -> str:
    return os.uname().nodename if hasattr(os, "uname") else ""


def _create_temp(path: Path) -> tuple[str, int]:
    """A new temporary file for ``path``, listed in ``_live_temps`` before it exists; its name and descriptor."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    while True:
        tmp = os.path.join(path.parent, f".{path.name}{_TEMP_TAG}{_host()}-{os.getpid()}-{secrets.token_hex(4)}")
        _live_temps.add(tmp)
        try:
            return tmp, os.open(tmp, flags, 0o666)  # the kernel applies the umask, as for any new file
        except BaseException as error:
            _live_temps.discard(tmp)
            if not isinstance(error, FileExistsError):  # a name taken already: draw another
                raise


def _keep_mode(path: Path, tmp: str) -> None:
    """Give ``tmp`` the permission bits of ``path`` when ``path`` exists."""
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return
    os.chmod(tmp, mode)


def _remove_stale_temps(path: Path) -> None:
    """Remove temporary files of ``path`` written by processes of this host that no longer run."""
    prefix = f".{path.name}{_TEMP_TAG}{_host()}-"
    with os.scandir(path.parent) as entries:
        for entry in entries:
            if not entry.name.startswith(prefix):
                continue
            pid, _, rest = entry.name[len(prefix) :].partition("-")  # "<pid>-<random>"
            if not pid.isdigit() or "-" in rest:
                continue
            if entry.path not in _live_temps and not _process_runs(int(pid)):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(entry.path)


def _process_runs(pid: int) -> bool:
    """Whether process ``pid`` runs (True when that cannot be told); this process counts as not running."""
    if os.name != "posix":
        return True  # os.kill(pid, 0) would terminate the process on Windows
    if pid == os.getpid():
        return False  # the pid of an earlier process, reused: this one's own temporary files are in _live_temps
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@contextlib.contextmanager
def _temps_removed_on_sigterm() -> Iterator[None]:
    """While the block runs, SIGTERM first removes the live temporary files, then kills as by default.

    Only in the main thread (the only one that may set handlers) and only over
    the default action: a handler the application set is its to run, and one
    that raises reaches ``atomic_open``'s clean-up.
    """
    install = (
        threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
    )
    previous = signal.signal(signal.SIGTERM, _on_sigterm) if install else None
    try:
        yield
    finally:
        if install:
            signal.signal(signal.SIGTERM, previous)


def _on_sigterm(signum: int, frame: object) -> None:
    for tmp in list(_live_temps):
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def check_writable(directory: Path) -> None:
    """Raise OSError naming ``directory`` unless a file can be created in it (checked before scoring).

    >>> import tempfile
    >>> check_writable(Path(tempfile.mkdtemp()))
    """
    try:
        fd, probe = tempfile.mkstemp(dir=directory, prefix=".lightscore-probe-")
    except OSError as e:
        raise OSError(e.errno, f"cannot write results into {directory}: {e.strerror}") from None
    os.close(fd)
    os.unlink(probe)
