"""Timing and reporting shared by the benchmark scripts.

Methods are timed side by side: every repeat runs each method once, in a
rotated order, so a busy neighbour slows all of them alike and the ratios of
the medians stay fair on a shared machine.

>>> times = time_side_by_side({"a": lambda: None, "b": lambda: None}, repeats=3)
>>> sorted(times), len(times["a"])
(['a', 'b'], 3)
"""

from __future__ import annotations

import contextlib
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version


def time_side_by_side(
    methods: Mapping[str, Callable[[], object]], repeats: int = 7, warmup: bool = True
) -> dict[str, list[float]]:
    """Wall-clock seconds of ``repeats`` calls of every method, interleaved; one untimed warm-up call each."""
    if warmup:
        for fn in methods.values():
            fn()
    names = list(methods)
    times: dict[str, list[float]] = {name: [] for name in names}
    for rep in range(repeats):
        for name in names[rep % len(names) :] + names[: rep % len(names)]:
            start = time.perf_counter()
            methods[name]()
            times[name].append(time.perf_counter() - start)
    return times


@dataclass
class Row:
    """One line of a result table: a method, its size and its timings."""

    method: str
    n: int
    seconds: Sequence[float]
    unit: str = "pairs"

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)

    @property
    def per_item(self) -> float:
        return self.median / self.n


def table(rows: Sequence[Row], baseline: str, ratio_label: str = "time / baseline", ms: bool = False) -> str:
    """A Markdown table: method, N, median and min-max time, throughput, per-item time relative to ``baseline``.

    >>> print(table([Row("x", 10, [1.0, 2.0, 3.0]), Row("y", 10, [4.0])], baseline="x"))
    | method | N | median s | min-max s | pairs/s | time / baseline |
    |---|---:|---:|---:|---:|---:|
    | x | 10 | 2.000 | 1.000-3.000 | 5 | 1.00 |
    | y | 10 | 4.000 | 4.000-4.000 | 2 | 2.00 |
    """
    base = next(row for row in rows if row.method == baseline).per_item
    unit, scale, label = rows[0].unit, (1000 if ms else 1), ("ms" if ms else "s")
    lines = [
        f"| method | N | median {label} | min-max {label} | {unit}/s | {ratio_label} |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        low, high = min(row.seconds) * scale, max(row.seconds) * scale
        lines.append(
            f"| {row.method} | {row.n:,} | {row.median * scale:.3f} | {low:.3f}-{high:.3f} "
            f"| {row.n / row.median:,.0f} | {row.per_item / base:.2f} |"
        )
    return "\n".join(lines)


def verdict(label: str, value: float, target: float, higher_is_better: bool) -> str:
    """One target line: the measured ratio, the target and MET / NOT MET with the margin.

    >>> verdict("speed-up over x", 6.0, 5.0, higher_is_better=True)
    '- speed-up over x: 6.00x (target >= 5x): MET'
    >>> verdict("time / floor", 3.0, 2.5, higher_is_better=False)
    '- time / floor: 3.00x (target <= 2.5x): NOT MET, 20% over'
    """
    met = value >= target if higher_is_better else value <= target
    sign = ">=" if higher_is_better else "<="
    line = f"- {label}: {value:.2f}x (target {sign} {target:g}x): {'MET' if met else 'NOT MET'}"
    if not met:
        line += f", {abs(value / target - 1):.0%} {'short' if higher_is_better else 'over'}"
    return line


def load_average() -> str:
    """The 1-minute load average, to show how busy the machine was during a run."""
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except OSError:
        return "n/a"


def machine() -> str:
    """The machine a result was measured on: CPU, core count, Python and package versions."""
    lines = [f"- python {platform.python_version()} on {platform.platform()}", f"- nproc: {os.cpu_count()}"]
    try:
        lscpu = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout.splitlines()
        model = next((line.split(":", 1)[1].strip() for line in lscpu if line.startswith("Model name")), "?")
        lines.append(f"- cpu: {model}")
    except (OSError, subprocess.CalledProcessError):
        pass
    versions = []
    for package in ("torch", "rapidfuzz", "jiwer", "torchmetrics", "numpy"):
        with contextlib.suppress(PackageNotFoundError):
            versions.append(f"{package} {version(package)}")
    lines.append("- " + ", ".join(versions))
    return "\n".join(lines)


def header(title: str) -> None:
    """Print the title of a benchmark with the load average at its start."""
    print(f"## {title}\n")
    print(f"load average at start: {load_average()} on {os.cpu_count()} cores\n", flush=True)


def python() -> str:
    """The interpreter running the benchmarks (the project's virtualenv under `make bench`)."""
    return sys.executable


def compile_bytecode() -> None:
    """Compile lightscore's modules to bytecode, as pip does when it installs a package.

    Under ``PYTHONDONTWRITEBYTECODE=1`` (set on this machine) an editable install whose modules
    changed since they were last compiled compiles them again from source in every fresh
    interpreter, ~50 ms on `lightscore.text.hubscr.pipeline`'s imports: a cost no installed package pays.
    """
    import compileall

    import lightscore

    compileall.compile_dir(os.path.dirname(lightscore.__file__), quiet=1)
