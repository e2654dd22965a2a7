"""``lightscore score --metric simul_latency REF INSTANCES.LOG``: SimulEval's latency of a SimulEval run.

INSTANCES.LOG is the ``instances.log`` SimulEval writes into its ``--output``
folder (`lightscore.text.mt.instance_log`). REF gives the references whose
length AL, LAAL and AP use: a text file with one reference per line, line *i*
for instance *i*, as SimulEval's ``--target``; or ``-`` for the references the
log holds. The options are SimulEval's: ``--latency-source`` (ATD's token
lengths; ``speech``, the default, is what SimulEval reports from a log, whatever
the source), ``--latency-unit`` (``--eval-latency-unit``), ``--computation-aware``
and ``--no-use-ref-len``.

`write_latency_scps` turns a log into the SCP files ``measure()`` binds.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lightscore.cli.inputs import check_inputs
from lightscore.cli.output import format_rows
from lightscore.core.batch import RowError
from lightscore.text.mt.instance_log import InstanceRecord, read_instance_log
from lightscore.text.mt.simul_latency import reference_length

__all__ = ["latency_rows", "run_latency_score", "write_latency_scps"]


def run_latency_score(args: argparse.Namespace) -> int:
    """Score one SimulEval ``instances.log``: each measure's corpus value (3 decimals, as SimulEval prints them)."""
    from lightscore.metrics.simul_latency import SimulLatency

    files = {"INSTANCES.LOG": args.hyp} if args.ref == "-" else {"REF": args.ref, "INSTANCES.LOG": args.hyp}
    check_inputs(files, None)
    metric = SimulLatency(
        source=args.latency_source,
        computation_aware=args.computation_aware,
        unit=args.latency_unit,
        use_ref_len=not args.no_use_ref_len,
    )
    records = read_instance_log(args.hyp)
    references = _references(args.ref, records)
    batch = latency_rows(records, references, args.latency_unit, metric.computation_aware)
    try:
        metric.update(**batch)
    except RowError as e:
        record = records[e.row]
        raise ValueError(f"{args.hyp}, line {record.line} (index {record.index}): {e.message}") from None
    result = metric.compute()
    print(format_rows([list(result), [_shown(value) for value in result.values()]]))
    print(f"settings: {metric.settings()}")
    return 0


def latency_rows(
    records: Sequence[InstanceRecord], references: Sequence[str | None], unit: str, computation_aware: bool
) -> dict[str, list[Any]]:
    """The `SimulLatency` batch of a log's instances: delays, source lengths, reference lengths (and elapsed).

    A reference of None (none in the log, REF ``-``) gives a ``ref_length`` of None: the hypothesis' length.

    >>> record = InstanceRecord(0, [1, 2], [0, 0], 2, None, "x y", 1)
    >>> latency_rows([record], ["a b c"], "word", False)
    {'delays': [[1, 2]], 'source_length': [2], 'ref_length': [3]}
    """
    batch: dict[str, list[Any]] = {
        "delays": [r.delays for r in records],
        "source_length": [r.source_length for r in records],
        "ref_length": [None if ref is None else reference_length(ref, unit) for ref in references],
    }
    if computation_aware:
        batch["elapsed"] = [r.elapsed for r in records]
    return batch


def _references(ref: str, records: Sequence[InstanceRecord]) -> list[str | None]:
    """Each record's reference: the log's own (REF ``-``), else line ``index + 1`` of REF."""
    if ref == "-":
        return [r.reference for r in records]
    from lightscore.io.text_files import strip_bom

    lines = strip_bom(Path(ref).read_bytes()).decode("utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the file's last line feed ends the last reference, it does not start one
    references: list[str | None] = []
    for r in records:
        if not 0 <= r.index < len(lines):
            raise ValueError(f"{ref}: no line {r.index + 1} for instance {r.index} (the file has {len(lines)} lines)")
        references.append(lines[r.index].removesuffix("\r"))
    return references


def _shown(value: Any) -> str:
    """A corpus value as SimulEval prints it (3 decimals); a count as it is."""
    return str(value) if isinstance(value, int) else f"{value:.3f}"


def write_latency_scps(
    log: str | os.PathLike[str],
    folder: str | os.PathLike[str],
    ref: str = "-",
    unit: str = "word",
) -> dict[str, Path]:
    """Write a log's instances as the SCP files a metrics YAML binds: ``delays``, ``elapsed``, ``source_length``, ...

    The utterance id of instance *i* is ``i``; ``ref_length.scp`` holds each
    reference's length counted in ``unit`` (no line for an instance without one:
    write it only when every instance has one).

    Args:
        log: SimulEval's ``instances.log``.
        folder: The test set's folder (created if missing).
        ref: REF as on the command line: a file of references, or ``-``.
        unit: "word" or "char".

    Returns:
        Input name -> the SCP file written.
    """
    from lightscore.scp.files import write_scp

    records = read_instance_log(log)
    references = _references(ref, records)
    batch = latency_rows(records, references, unit, computation_aware=True)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    ids = [str(r.index) for r in records]
    written = {}
    for name, values in batch.items():
        if name == "ref_length" and any(v is None for v in values):
            continue
        rows = [(i, " ".join(map(str, v)) if isinstance(v, list) else str(v)) for i, v in zip(ids, values)]
        written[name] = write_scp(folder / f"{name}.scp", rows)
    return written
