"""One scoreboard across test sets: a row per test set, then the pooled and macro rows, as Markdown, CSV and JSON.

The pooled row is the metric's result on the merged states of every test set (the
same as scoring the concatenated sets); the macro row is the mean over test sets of
each output, as leaderboards average per-dataset WERs. Both are made by the callers
(`lightscore.offline` and `lightscore.lightning`); this module only averages and writes.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

from lightscore.io.atomic import atomic_open

__all__ = [
    "FAILED",
    "MACRO",
    "POOLED",
    "RESERVED",
    "failed_note",
    "macro_average",
    "render_markdown",
    "scoreboard_rows",
    "write_scoreboard",
]

POOLED = "pooled"
MACRO = "macro"
RESERVED = (POOLED, MACRO)
"""Row names of the combined results; no test set may be called so."""
FAILED = "failed"
"""The one field of a pooled or macro row not computed because test sets failed: their names, as a list."""


def failed_note(failed: Sequence[str]) -> str:
    """What a scoreboard cell shows for a pooled or macro row that was not computed because ``failed`` sets failed.

    >>> failed_note(["other", "noisy"])
    'not computed: other, noisy failed'
    """
    return f"not computed: {', '.join(failed)} failed"


def macro_average(per_test: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    """The mean over test sets of each output every test set has.

    Args:
        per_test: test name -> that test set's result.

    Returns:
        output -> mean; {} when there is no test set.

    >>> macro_average({"a": {"WER": 10.0, "WER_sub": 1}, "b": {"WER": 20.0, "WER_sub": 4}})
    {'WER': 15.0, 'WER_sub': 2.5}
    """
    results = list(per_test.values())
    if not results:
        return {}
    shared = [key for key in results[0] if all(key in r for r in results)]
    return {key: math.fsum(r[key] for r in results) / len(results) for key in shared}


def scoreboard_rows(
    per_test: Mapping[str, Mapping[str, float]], pooled: Mapping[str, float] | None = None
) -> list[dict[str, float | str]]:
    """One row per test set (in the given order), then ``pooled`` and the macro row when there are several sets.

    Args:
        per_test: test name -> result.
        pooled: The result over all test sets' merged states, or None.

    Returns:
        Rows ``{"test": name, output: value, ...}``.

    >>> rows = scoreboard_rows({"a": {"WER": 10.0}, "b": {"WER": 30.0}}, pooled={"WER": 25.0})
    >>> [(row["test"], row["WER"]) for row in rows]
    [('a', 10.0), ('b', 30.0), ('pooled', 25.0), ('macro', 20.0)]
    """
    rows: list[dict[str, float | str]] = [{"test": name, **result} for name, result in per_test.items()]
    if len(per_test) > 1:
        if pooled is not None:
            rows.append({"test": POOLED, **pooled})
        rows.append({"test": MACRO, **macro_average(per_test)})
    return rows


def _columns(rows: Sequence[Mapping[str, float | str]]) -> list[str]:
    return list(dict.fromkeys(key for row in rows for key in row))


def _shown(value: float | str | None) -> str:
    if isinstance(value, float):
        return f"{value:.4f}".rstrip("0").rstrip(".") if math.isfinite(value) else str(value)
    return "" if value is None else str(value)


def render_markdown(rows: Sequence[Mapping[str, float | str]]) -> str:
    """The rows as a Markdown table (floats to 4 decimals; ``|`` and line breaks in names escaped).

    >>> print(render_markdown([{"test": "a", "WER": 12.5}, {"test": "b", "WER": 7.25}]))
    | test | WER |
    |---|---|
    | a | 12.5 |
    | b | 7.25 |
    """
    columns = _columns(rows)

    def cell(value: float | str | None) -> str:
        return _shown(value).replace("|", "\\|").replace("\r", " ").replace("\n", " ")

    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(row.get(c)) for c in columns) + " |" for row in rows]
    return "\n".join(lines)


def write_scoreboard(stem: str | Path, rows: Sequence[Mapping[str, float | str]]) -> list[Path]:
    """Write ``<stem>.md``, ``<stem>.csv`` and ``<stem>.json`` atomically; return their paths.

    >>> import tempfile
    >>> stem = Path(tempfile.mkdtemp()) / "scoreboard"
    >>> [p.name for p in write_scoreboard(stem, [{"test": "a", "WER": 1.0}])]
    ['scoreboard.md', 'scoreboard.csv', 'scoreboard.json']
    """
    stem = Path(stem)
    columns = _columns(rows)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    texts = {".md": render_markdown(rows) + "\n", ".csv": buffer.getvalue(), ".json": json.dumps(list(rows), indent=1)}
    paths = []
    for suffix, text in texts.items():
        path = stem.with_name(stem.name + suffix)
        with atomic_open(path) as f:
            f.write(text)
        paths.append(path)
    return paths
