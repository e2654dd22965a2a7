"""The worst utterances of an epoch, chosen the same on every rank, and logged to each Lightning logger.

`WorstSamples` keeps one rank's N utterances with the most errors (ties broken
by utterance id, so every rank and every run agrees); `worst` merges the
ranks' lists; `log_samples` writes the rows to every logger the trainer has,
in that logger's own form:

- ``TensorBoardLogger``: a Markdown table (``add_text``) under the tag;
- ``WandbLogger``: a W&B table (``log_table``) under the tag;
- ``CSVLogger``: ``<log_dir>/<tag>_epoch<N>.tsv`` beside its ``metrics.csv``, written by
  `lightscore.io.tsv.write_tsv` (a text with a tab or a line break is quoted: ``csv`` reads it back).

A logger it does not know gets nothing, with one warning naming it. An
alignment is shown on one line: a correct word as it is, a substitution
``ref→hyp``, a deletion ``-ref``, an insertion ``+hyp``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from lightscore.io.tsv import write_tsv

__all__ = ["COLUMNS", "Sample", "WorstSamples", "log_samples", "markdown_table", "worst"]

COLUMNS = ("utt_id", "errors", "ref", "hyp", "alignment")


class Sample(NamedTuple):
    """One utterance of a worst-utterance table."""

    utt_id: str
    errors: int
    ref: str
    hyp: str
    alignment: str


def _key(sample: Sample) -> tuple[int, str]:
    return -sample.errors, sample.utt_id


class WorstSamples:
    """The ``n`` utterances with the most errors seen so far on this rank (ties: smaller id first).

    >>> keep = WorstSamples(2)
    >>> for utt_id, errors in [("u3", 1), ("u1", 4), ("u2", 4), ("u0", 0)]:
    ...     keep.add(Sample(utt_id, errors, "", "", ""))
    >>> [(s.utt_id, s.errors) for s in keep.samples()]
    [('u1', 4), ('u2', 4)]
    """

    def __init__(self, n: int) -> None:
        self.n = n
        self._samples: list[Sample] = []

    def add(self, sample: Sample) -> None:
        """Offer one utterance; memory stays at most ``2 n`` samples."""
        self._samples.append(sample)
        if len(self._samples) > 2 * self.n:
            self._samples = self.samples()

    def samples(self) -> list[Sample]:
        """The kept utterances, most errors first."""
        return sorted(self._samples, key=_key)[: self.n]


def worst(per_rank: Iterable[Sequence[Sample]], n: int) -> list[Sample]:
    """The ``n`` worst of every rank's own ``n`` worst: the same list on every rank.

    >>> a = [Sample("u2", 3, "", "", "")]; b = [Sample("u1", 3, "", "", ""), Sample("u9", 1, "", "", "")]
    >>> [s.utt_id for s in worst([a, b], 2)]
    ['u1', 'u2']
    """
    return sorted((Sample(*s) for samples in per_rank for s in samples), key=_key)[:n]


def _cell(text: Any) -> str:
    # Every line break (CR, LF, CRLF, U+2028...) becomes a space, as save_dir does: a table row is one line.
    return " ".join(str(text).replace("|", "\\|").splitlines())


def markdown_table(samples: Sequence[Sample]) -> str:
    """The samples as a Markdown table (TensorBoard renders it).

    >>> print(markdown_table([Sample("u1", 1, "a b", "a", "a -b")]))
    | utt_id | errors | ref | hyp | alignment |
    |---|---|---|---|---|
    | u1 | 1 | a b | a | a -b |
    """
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(_cell(value) for value in sample) + " |" for sample in samples]
    return "\n".join(lines)


def _file_name(tag: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", tag).strip("_")


def log_samples(loggers: Sequence[Any], tag: str, samples: Sequence[Sample], epoch: int, step: int) -> list[Any]:
    """Log ``samples`` to each logger in its own form; return the loggers that got nothing.

    Call it on rank 0 only (Lightning's W&B and TensorBoard loggers write from rank 0).

    >>> import tempfile
    >>> from lightning.pytorch.loggers import CSVLogger
    >>> logger = CSVLogger(tempfile.mkdtemp())
    >>> log_samples([logger], "val/WER_worst", [Sample("u1", 1, "a b", "a", "a -b")], epoch=0, step=5)
    []
    >>> (Path(logger.log_dir) / "val_WER_worst_epoch0.tsv").read_text().splitlines()[1]
    'u1\\t1\\ta b\\ta\\ta -b'
    """
    from lightning.pytorch.loggers import CSVLogger, TensorBoardLogger, WandbLogger

    unknown = []
    for logger in loggers:
        if isinstance(logger, TensorBoardLogger):
            logger.experiment.add_text(tag, markdown_table(samples), global_step=step)
        elif isinstance(logger, WandbLogger):
            logger.log_table(key=tag, columns=list(COLUMNS), data=[list(s) for s in samples], step=step)
        elif isinstance(logger, CSVLogger):
            write_tsv(Path(logger.log_dir) / f"{_file_name(tag)}_epoch{epoch}.tsv", COLUMNS, samples)
        else:
            unknown.append(logger)
    return unknown
