"""SimulEval's ``instances.log``: one JSON object per line, one per instance it translated.

SimulEval 1.1.4 writes, for a text output (``Instance.summarize``)::

    {"index": 0, "prediction": "das ist", "delays": [1840.0, 2480.0], "elapsed": [1902.3, 2551.0],
     "prediction_length": 2, "reference": "das ist gut", "source": [...], "source_length": 3000.0}

``delays`` are words of a text source or milliseconds of a speech source,
``elapsed`` the computation-aware times (milliseconds; all zeros for a text
source), ``source_length`` the source's length in the delays' unit, and
``reference`` the reference text (``null`` without one). `read_instance_log`
reads the fields the latency measures need and checks them, naming the file and
line. A speech output's log (with ``durations`` and ``intervals``) is refused:
its EndOffset needs the output's own timing, which lightscore does not build.

>>> import json, tempfile, os
>>> line = {"index": 0, "delays": [1, 2], "elapsed": [0, 0], "source_length": 2, "reference": "a b"}
>>> with tempfile.TemporaryDirectory() as tmp:
...     path = os.path.join(tmp, "instances.log")
...     with open(path, "w") as f:
...         _ = f.write(json.dumps(line) + "\\n")
...     [(r.index, r.delays, r.source_length, r.reference) for r in read_instance_log(path)]
[(0, [1, 2], 2, 'a b')]
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lightscore.io.text_files import strip_bom
from lightscore.text.mt.simul_latency import Number, parse_times

__all__ = ["InstanceRecord", "read_instance_log"]


@dataclass(frozen=True)
class InstanceRecord:
    """One instance of an ``instances.log``: what the latency measures read.

    ``reference`` is None when the log holds ``null`` or no reference (SimulEval
    then scores against the hypothesis' length). ``line`` is the 1-based line number.
    """

    index: int
    delays: list[Number]
    elapsed: list[Number]
    source_length: Number
    reference: str | None
    prediction: str
    line: int


def read_instance_log(path: str | os.PathLike[str]) -> list[InstanceRecord]:
    """Every instance of a SimulEval ``instances.log``, in the file's order (blank lines skipped).

    Args:
        path: The log file.

    Returns:
        One `InstanceRecord` per line.

    Raises:
        ValueError: naming the file and line: not UTF-8, not a JSON object, a
            missing or malformed field, an index seen before, a speech output's log.
        OSError: the file cannot be read.
    """
    data = strip_bom(Path(path).read_bytes())
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise ValueError(f"{path}, line {line}: not UTF-8 ({e.reason})") from None
    records = []
    seen: dict[int, int] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        where = f"{path}, line {number}"
        record = _record(raw, number, where)
        if record.index in seen:
            raise ValueError(f"{where}: index {record.index} is on line {seen[record.index]} too")
        seen[record.index] = number
        records.append(record)
    return records


def _record(raw: str, number: int, where: str) -> InstanceRecord:
    """One line as an `InstanceRecord`; a ValueError starting with ``where`` for anything malformed."""
    try:
        info = json.loads(raw)
    except json.JSONDecodeError as e:
        raise ValueError(f"{where}: not JSON ({e.msg} at column {e.colno})") from None
    if not isinstance(info, dict):
        raise ValueError(f"{where}: not a JSON object")
    if info.get("intervals") or info.get("durations"):
        raise ValueError(
            f"{where}: a speech output's log (durations, intervals): its latency needs the output's timing, "
            "which lightscore does not build; score a text output's log"
        )
    missing = [key for key in ("index", "delays", "source_length") if key not in info]
    if missing:
        raise ValueError(f"{where}: no {', '.join(repr(k) for k in missing)} (SimulEval writes every instance's)")
    index = info["index"]
    if isinstance(index, bool) or not isinstance(index, int):
        raise ValueError(f"{where}: index {index!r} is not an integer")
    try:
        delays = parse_times(_list(info["delays"], "delays"), "delays")
        elapsed = parse_times(_list(info.get("elapsed") or [], "elapsed"), "elapsed")
        source_length = parse_times([info["source_length"]], "source_length")[0]
    except ValueError as e:
        raise ValueError(f"{where} (index {index}): {e}") from None
    reference = info.get("reference")
    if reference is not None and not isinstance(reference, str):
        raise ValueError(f"{where} (index {index}): reference {reference!r} is not a string or null")
    prediction = info.get("prediction", "")
    return InstanceRecord(index, delays, elapsed, source_length, reference, str(prediction), number)


def _list(value: Any, name: str) -> list[Any]:
    """``value`` if it is a JSON array, else a ValueError naming ``name`` (a JSON string of numbers is not one)."""
    if not isinstance(value, list):
        raise ValueError(f"{name} must be a JSON array of numbers, got {value!r}")
    return value
