"""The results of a run: `MeasureResults`, `MeasureError`, and ``metrics.json`` read, merged and written.

``metrics.json`` maps a result key to test sets to outputs:
``{key: {test_name: {output: value}}}``. A run replaces what it scored and
keeps everything else that was there.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .scp import atomic_open

__all__ = ["MeasureError", "MeasureResults", "merge_results", "read_metrics_json", "write_metrics_json"]


class MeasureResults(dict):
    """``{key: {test_name: {output: value}}}`` of one run; ``path`` is the metrics.json written.

    >>> r = MeasureResults({"wer": {"dev": {"WER": 12.5}}}); r["wer"]["dev"]["WER"], r.path
    (12.5, None)
    """

    path: Path | None = None


class MeasureError(RuntimeError):
    """Some (metric, test set) pairs failed; the others' results are in ``results`` and on disk.

    ``failures`` lists ``(key, test_name, exception)``.

    >>> e = MeasureError([("wer", "dev", ValueError("bad line"))], MeasureResults())
    >>> print(e)
    1 metric run(s) failed; the other results are in None:
      wer on dev: ValueError: bad line
    """

    def __init__(self, failures: Sequence[tuple[str, str, BaseException]], results: MeasureResults) -> None:
        self.failures = list(failures)
        self.results = results
        lines = [f"{len(self.failures)} metric run(s) failed; the other results are in {results.path}:"]
        lines += [f"  {key} on {test}: {type(e).__name__}: {e}" for key, test, e in self.failures]
        super().__init__("\n".join(lines))


def read_metrics_json(path: Path) -> dict[str, dict]:
    """The results already in ``path`` ({} when there is none); a malformed file is an error, not overwritten."""
    if not path.exists():
        return {}
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        raise ValueError(f"{path}: not valid JSON ({e}); fix or remove it, it would be overwritten") from None
    if not isinstance(old, dict) or not all(isinstance(v, dict) for v in old.values()):
        raise ValueError(f"{path}: expected {{key: {{test_name: {{output: value}}}}}}; fix or remove it")
    return old


def merge_results(old: Mapping[str, Mapping], new: Mapping[str, Mapping]) -> dict[str, dict]:
    """Keys and test sets of ``old`` that ``new`` did not score are kept.

    >>> merge_results({"WER": {"a": {"WER": 1}, "b": {"WER": 2}}}, {"WER": {"b": {"WER": 3}}, "CER": {"a": {"CER": 4}}})
    {'WER': {'a': {'WER': 1}, 'b': {'WER': 3}}, 'CER': {'a': {'CER': 4}}}
    """
    merged = {key: dict(tests) for key, tests in old.items()}
    for key, tests in new.items():
        merged.setdefault(key, {}).update(tests)
    return merged


def write_metrics_json(path: Path, results: Mapping[str, Any]) -> None:
    """Write ``results`` to ``path`` atomically, indent 2."""
    with atomic_open(path) as f:
        json.dump(results, f, indent=2)
        f.write("\n")
