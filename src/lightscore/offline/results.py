"""The results of a run: `MeasureResults`, `MeasureError`, and ``metrics.json`` read, merged and written.

``metrics.json`` maps a result key to test sets to outputs:
``{key: {test_name: {output: value}}}``. A run replaces what it scored and
keeps everything else that was there, also what a concurrent run on the same
folder wrote meanwhile: the re-read, merge and replace happen under an advisory
lock (`save_results`).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from lightscore.report.scoreboard import FAILED, RESERVED
from lightscore.scp.files import atomic_open

__all__ = [
    "LOCK_NAME",
    "MeasureError",
    "MeasureResults",
    "check_results_shape",
    "locked",
    "merge_results",
    "read_metrics_json",
    "save_results",
    "write_metrics_json",
]

LOCK_NAME = ".metrics.json.lock"


class MeasureResults(dict):
    """``{key: {test_name: {output: value}}}`` of one run; ``path`` is the metrics.json written.

    >>> r = MeasureResults({"wer": {"dev": {"WER": 12.5}}}); r["wer"]["dev"]["WER"], r.path
    (12.5, None)
    """

    path: Path | None = None


class MeasureError(RuntimeError):
    """Some (metric, test set) pairs failed, or metrics.json could not be written; ``results`` holds the rest.

    ``failures`` lists ``(key, test_name, exception)``; ``written`` says whether
    the other results reached ``results.path``.

    >>> e = MeasureError([("wer", "dev", ValueError("bad line"))], MeasureResults())
    >>> print(e)
    1 metric run(s) failed; the other results are in None:
      wer on dev: ValueError: bad line
    """

    def __init__(
        self, failures: Sequence[tuple[str, str, BaseException]], results: MeasureResults, written: bool = True
    ) -> None:
        self.failures = list(failures)
        self.results = results
        self.written = written
        where = f"are in {results.path}" if written else f"could NOT be written to {results.path}, they follow"
        lines = [f"{len(self.failures)} metric run(s) failed; the other results {where}:"]
        lines += [f"  {key} on {test}: {type(e).__name__}: {e}" for key, test, e in self.failures]
        super().__init__("\n".join(lines))


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _names_failed_sets(test: str, outputs: Mapping[str, Any]) -> bool:
    """Whether ``outputs`` is a pooled or macro row not computed: ``{"failed": [test set names]}``."""
    failed = outputs.get(FAILED)
    return (
        test in RESERVED
        and list(outputs) == [FAILED]
        and isinstance(failed, list)
        and all(isinstance(name, str) for name in failed)
    )


def check_results_shape(results: Any, where: str) -> dict[str, dict]:
    """Return ``results`` if it is ``{key: {test_name: {output: finite number}}}``, else raise ValueError.

    The one exception: a ``pooled`` or ``macro`` row not computed because test sets failed is
    ``{"failed": [their names]}`` (docs/scoreboard.md).

    >>> check_results_shape({"cer": {"test": 5}}, "metrics.json")
    Traceback (most recent call last):
    ...
    ValueError: metrics.json: cer.test is 5, not {output: value}; expected {key: {test_name: {output: value}}}
    """
    expected = "expected {key: {test_name: {output: value}}}"
    if not isinstance(results, dict):
        raise ValueError(f"{where}: holds a {type(results).__name__}; {expected}")
    for key, tests in results.items():
        if not isinstance(tests, dict):
            raise ValueError(f"{where}: {key} is {tests!r}, not {{test_name: ...}}; {expected}")
        for test, outputs in tests.items():
            if not isinstance(outputs, dict):
                raise ValueError(f"{where}: {key}.{test} is {outputs!r}, not {{output: value}}; {expected}")
            if _names_failed_sets(test, outputs):
                continue
            bad = next((name for name, value in outputs.items() if not _is_number(value)), None)
            if bad is not None:
                raise ValueError(f"{where}: {key}.{test}.{bad} is {outputs[bad]!r}, not a finite number")
    return results


def read_metrics_json(path: Path) -> dict[str, dict]:
    """The results already in ``path`` ({} when there is none); a malformed file is an error, not overwritten.

    Raises:
        ValueError: not JSON (NaN and Infinity included), or not ``{key: {test_name: {output: number}}}``.

    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "metrics.json"
    >>> read_metrics_json(p)
    {}
    >>> _ = p.write_text('{"wer": {"dev": {"WER": NaN}}}')
    >>> read_metrics_json(p)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: .../metrics.json: not valid JSON (NaN is not standard JSON); fix or remove it, ...
    """
    if not path.exists():
        return {}
    if not path.is_file():
        raise ValueError(f"{path}: is not a file; remove it (a test set may not be named metrics.json)")

    def refuse(constant: str) -> None:
        raise ValueError(f"{constant} is not standard JSON")

    try:
        old = json.loads(path.read_text(encoding="utf-8"), parse_constant=refuse)
    except (ValueError, UnicodeDecodeError) as e:
        raise ValueError(f"{path}: not valid JSON ({e}); fix or remove it, it would be overwritten") from None
    return check_results_shape(old, str(path))


def merge_results(
    old: Mapping[str, Mapping], new: Mapping[str, Mapping], drop: Iterable[tuple[str, str]] = ()
) -> dict[str, dict]:
    """Keys and test sets of ``old`` that ``new`` did not score are kept, but for the ``(key, test)`` rows in ``drop``.

    >>> merge_results({"WER": {"a": {"WER": 1}, "b": {"WER": 2}}}, {"WER": {"b": {"WER": 3}}, "CER": {"a": {"CER": 4}}})
    {'WER': {'a': {'WER': 1}, 'b': {'WER': 3}}, 'CER': {'a': {'CER': 4}}}
    >>> merge_results({"WER": {"a": {"WER": 1}, "b": {"WER": 2}}}, {}, drop=[("WER", "b")])
    {'WER': {'a': {'WER': 1}}}
    """
    merged = {key: dict(tests) for key, tests in old.items()}
    for key, test in drop:
        merged.get(key, {}).pop(test, None)
    for key, tests in new.items():
        merged.setdefault(key, {}).update(tests)
    return {key: tests for key, tests in merged.items() if tests}


def write_metrics_json(path: Path, results: Mapping[str, Any]) -> None:
    """Write ``results`` to ``path`` atomically, indent 2, standard JSON only (no NaN).

    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "metrics.json"
    >>> write_metrics_json(p, {"wer": {"dev": {"WER": 12.5}}}); p.read_text()
    '{\\n  "wer": {\\n    "dev": {\\n      "WER": 12.5\\n    }\\n  }\\n}\\n'
    """
    text = json.dumps(check_results_shape(dict(results), str(path)), indent=2, allow_nan=False) + "\n"
    with atomic_open(path) as f:
        f.write(text)


@contextlib.contextmanager
def locked(directory: Path) -> Iterator[None]:
    """Hold an advisory lock on ``directory/.metrics.json.lock`` (fcntl.flock) for the block.

    Two runs on one inference_dir take turns at re-read, merge and replace of
    metrics.json, so neither loses the other's results.

    >>> import tempfile
    >>> with locked(Path(tempfile.mkdtemp())):
    ...     pass
    """
    with open(directory / LOCK_NAME, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def save_results(path: Path, results: Mapping[str, Any], drop: Iterable[tuple[str, str]] = ()) -> None:
    """Merge ``results`` into the metrics.json at ``path`` under the lock: re-read, merge, atomic replace.

    Only the pairs this run scored replace what is there, and the ``(key, test)`` rows in ``drop`` (a
    pair that failed this run, an old pooled row) are removed; everything else in the file, also
    what a concurrent run wrote meanwhile, is kept.

    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "metrics.json"
    >>> save_results(p, {"wer": {"dev": {"WER": 1.0}}}); save_results(p, {"cer": {"dev": {"CER": 2.0}}})
    >>> sorted(read_metrics_json(p))
    ['cer', 'wer']
    """
    with locked(path.parent):
        write_metrics_json(path, merge_results(read_metrics_json(path), results, drop))
