"""Ctrl-C (SIGINT) and SIGTERM during ``measure()``: stop, keep what finished, say so.

A stuck decoder (a recognizer that never returns) is stopped with Ctrl-C, and SLURM
sends SIGTERM before it kills a job. Either one becomes a `MeasureInterrupted`
(a `KeyboardInterrupt`) where the scoring loop is, so ``measure()`` can write the
results of the jobs that finished before it leaves; ``lightscore measure`` then
exits with 128 + the signal's number (130 for SIGINT, 143 for SIGTERM), as a shell
reports a process the signal stopped.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from typing import Any

__all__ = ["MeasureInterrupted", "Stopped", "signals_stop_scoring"]


class Stopped(KeyboardInterrupt):
    """SIGINT or SIGTERM arrived while jobs were scored; ``signum`` says which."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class MeasureInterrupted(KeyboardInterrupt):
    """``measure()`` was stopped by a signal after writing the results of the jobs that finished.

    ``results`` holds them (``results.path`` is metrics.json), ``written`` whether they reached it,
    ``exit_status`` is 128 + the signal's number.

    >>> e = MeasureInterrupted(signal.SIGTERM, {"wer": {"dev": {"WER": 1.0}}}, 1, 3, True)
    >>> e.exit_status, str(e)
    (143, 'stopped by SIGTERM after 1 of 3 metric runs; their results are written')
    """

    def __init__(self, signum: int, results: Any, finished: int, total: int, written: bool) -> None:
        self.signum = int(signum)
        self.results = results
        self.written = written
        self.exit_status = 128 + self.signum
        kept = "their results are written" if written else "their results could NOT be written"
        super().__init__(f"stopped by {signal.Signals(signum).name} after {finished} of {total} metric runs; {kept}")


def _stop(signum: int, frame: object) -> None:
    raise Stopped(signum)


@contextlib.contextmanager
def signals_stop_scoring() -> Iterator[None]:
    """While the block runs, SIGINT and SIGTERM raise `Stopped` in the main thread.

    Only a signal whose handler is Python's default is taken over (an application's own handler
    stays), and only in the main thread (the only one that may set handlers); both are restored
    after the block, so a second signal while the results are written acts as it would by default.

    >>> with signals_stop_scoring():
    ...     signal.getsignal(signal.SIGTERM) is _stop
    True
    >>> signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    True
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {}
    for signum in (signal.SIGINT, signal.SIGTERM):
        handler = signal.getsignal(signum)
        if handler in (signal.SIG_DFL, signal.default_int_handler):
            previous[signum] = signal.signal(signum, _stop)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
