"""Start the scripts of this directory as real processes, each run on its own free port."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
# Variables a surrounding launcher may have set; a child must not think it is already a rank.
RANK_VARIABLES = ("RANK", "LOCAL_RANK", "WORLD_SIZE", "NODE_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")


def free_port() -> int:
    """A TCP port nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def child_env(port: int) -> dict[str, str]:
    """This environment for a child: one thread per process (2 cores), the given master port."""
    env = {k: v for k, v in os.environ.items() if k not in RANK_VARIABLES}
    env.update(OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    return env


def run_scripts(commands: list[list[str]], port: int, timeout: float = 300) -> list[subprocess.CompletedProcess]:
    """Run ``python HERE/<command>`` for each command at once; wait for all, killing all on a timeout.

    Output goes to temporary files, not pipes: a rank blocked on a full pipe could
    hang the collective its peers wait in.
    """
    with tempfile.TemporaryDirectory() as logs:
        procs = []
        for i, cmd in enumerate(commands):
            out, err = open(Path(logs) / f"{i}.out", "w+"), open(Path(logs) / f"{i}.err", "w+")
            argv = [sys.executable, str(HERE / cmd[0]), *cmd[1:]]
            # A session of its own, so a timeout can end the ranks a launcher started too.
            proc = subprocess.Popen(argv, env=child_env(port), stdout=out, stderr=err, start_new_session=True)
            procs.append((cmd, proc, out, err))
        try:
            return [_finish(cmd, proc, out, err, timeout) for cmd, proc, out, err in procs]
        finally:
            for _, proc, out, err in procs:
                if proc.poll() is None:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
                out.close()
                err.close()


def _finish(cmd: list[str], proc: subprocess.Popen, out, err, timeout: float) -> subprocess.CompletedProcess:
    proc.wait(timeout=timeout)
    out.seek(0)
    err.seek(0)
    return subprocess.CompletedProcess(cmd, proc.returncode, out.read(), err.read())
