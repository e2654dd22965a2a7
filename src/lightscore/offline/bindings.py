"""Binding an entry's inputs to one test set's files: SCP stems, ``dataset:<column>`` files, sclite files.

An artifact stem ``hyp`` -> ``<test>/hyp.scp``; ``dataset:text`` -> the column
file `lightscore.offline.dataset_columns.DatasetColumns` wrote; ``ref.stm`` and
``hyp.ctm`` (or two ``.trn``) -> SCP files made from them
(`lightscore.offline.sclite_bindings`), with the metric that scores them as sclite.
"""

from __future__ import annotations

from pathlib import Path

from lightscore.core.metric import BaseMetric
from lightscore.offline.config import DATASET_PREFIX, Entry, sclite_metric
from lightscore.offline.dataset_columns import DatasetColumns
from lightscore.scp.lines import check_name

__all__ = ["resolve_inputs", "resolve_sclite", "scp_file"]


def scp_file(test_dir: Path, stem: str) -> Path:
    """``<test_dir>/<stem>.scp``; when missing, the error lists the .scp files that are there."""
    path = test_dir / f"{stem}.scp"
    if path.is_file():
        return path
    if not test_dir.is_dir():
        raise FileNotFoundError(f"{path}: no such file ({test_dir} does not exist)")
    there = sorted(p.name for p in test_dir.glob("*.scp"))
    raise FileNotFoundError(f"{path}: no such file; {test_dir} holds {', '.join(there) or 'no .scp files'}")


def resolve_inputs(entry: Entry, test_name: str, inference_dir: Path, columns: DatasetColumns) -> dict[str, Path]:
    """``data`` for one test set: each declared input name -> its SCP file.

    Raises:
        ValueError: the test set's folder name is not a plain token (only this test set fails).
        FileNotFoundError: an SCP file is missing.
    """
    check_name(test_name, "test set folder name", f"{inference_dir}")
    data = {}
    for name, source in entry.sources.items():
        if entry.sclite is not None and name in ("ref", "hyp"):
            continue  # resolve_sclite binds them
        if source.startswith(DATASET_PREFIX):
            data[name] = columns.scp(test_name, source[len(DATASET_PREFIX) :])
        else:
            data[name] = scp_file(inference_dir / test_name, source)
    return data


def resolve_sclite(
    entry: Entry, test_name: str, inference_dir: Path, columns: DatasetColumns, write: bool
) -> tuple[dict[str, Path], BaseMetric]:
    """An entry bound to sclite files: one test set's SCP files and its metric (stm speakers as ``utt2spk``).

    Args:
        write: Turn the files into SCP files (rank 0); the other ranks read what rank 0 wrote.
    """
    assert entry.sclite is not None
    data = resolve_inputs(entry, test_name, inference_dir, columns)  # the entry's other inputs (a group label)
    files, options = entry.sclite.bind(entry.sources, inference_dir / test_name, write)
    return {**data, **files}, sclite_metric(entry.sclite, options, f"{entry.key} on {test_name}")
