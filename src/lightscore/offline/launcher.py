"""A rank whose launcher is gone exits: the torchrun agent killed (``kill -9``, an OOM kill) leaves no orphans.

torchrun's agent is the parent of every rank it starts. When it dies without stopping
them, the ranks are re-parented (to init or a sub-reaper) and would wait for minutes: at
the rendezvous (its bound, 300 s by default) or in a collective whose peer is gone
(torch's 30 minutes). `exit_when_orphaned` watches the parent from a daemon thread and
ends the process within about a second of the parent's death, from any state, also
while the main thread is blocked inside a gloo call where no Python signal handler runs.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Iterator

__all__ = ["ORPHAN_EXIT_STATUS", "POLL_SECONDS", "exit_when_orphaned", "launched_by_torchrun"]

POLL_SECONDS = 0.5
"""How often the watcher asks for the parent's pid."""
ORPHAN_EXIT_STATUS = 129
"""128 + SIGHUP: the process that controlled this one hung up."""


def launched_by_torchrun() -> bool:
    """Whether torchrun's agent started this process (it sets ``TORCHELASTIC_RUN_ID`` for its ranks).

    >>> launched_by_torchrun() == ("TORCHELASTIC_RUN_ID" in os.environ)
    True
    """
    return "TORCHELASTIC_RUN_ID" in os.environ


def _watch(parent: int, stop: threading.Event) -> None:
    while not stop.wait(POLL_SECONDS):
        if os.getppid() != parent:
            rank = os.environ.get("RANK", "?")
            print(
                f"lightscore: rank {rank}: its launcher (torchrun, pid {parent}) is gone; exiting "
                f"(metrics.json keeps what earlier runs wrote)",
                file=sys.stderr,
                flush=True,
            )
            # os._exit: the main thread may be blocked in a gloo collective that no exception could reach.
            os._exit(ORPHAN_EXIT_STATUS)


@contextlib.contextmanager
def exit_when_orphaned(enabled: bool = True) -> Iterator[None]:
    """While the block runs, end this process (status 129) within a second once its parent process is gone.

    Only on POSIX and only when ``enabled`` (``measure()`` passes `launched_by_torchrun`): a process
    started by hand (``nohup``) must outlive its shell. The parent is the one at the start of the block
    (torchrun's agent may itself be pid 1 in a container).

    Args:
        enabled: Watch at all.

    >>> with exit_when_orphaned():
    ...     "the parent is alive"
    'the parent is alive'
    """
    if not enabled or os.name != "posix":
        yield
        return
    parent = os.getppid()
    stop = threading.Event()
    watcher = threading.Thread(target=_watch, args=(parent, stop), name="lightscore-orphan-watch", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        stop.set()
