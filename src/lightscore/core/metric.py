"""`BaseMetric`: declared inputs and outputs, mergeable state, and the offline entry point.

Every number travels one road: ``update`` per batch adds to registered states,
``state()`` exports them, ``merge_states`` combines ranks or shards,
``load_state`` puts the merged state back and ``compute()`` turns it into the
result. A training callback, `lightscore.measure` and a sharded run all use it.
"""

from __future__ import annotations

import contextlib
import functools
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from lightscore._moved_names import moved_names
from lightscore.core.batch import RowError, check_batch, check_lengths, feed
from lightscore.core.contract import Field, Progress, StateValue, check_metric_contract, metric_name
from lightscore.core.runner import score_one
from lightscore.core.state import MetricState
from lightscore.scp.files import iter_row_batches, iter_rows

# RowError, check_batch, check_lengths and feed live in batch.py; they are re-exported here because a
# metric author meets them with BaseMetric (RowError is raised from update()).
__all__ = ["BaseMetric", "Progress", "RowError", "StateValue", "check_batch", "check_lengths", "feed"]


def _checked(update):
    @functools.wraps(update)
    def checked_update(self, **values):
        check_batch(self, values)
        return update(self, **values)

    checked_update.__lightscore_checked__ = True
    return checked_update


class BaseMetric(MetricState, ABC):
    """Base class of every metric: a declared contract plus mergeable state.

    A fixed contract (WER-style):

    >>> class ExampleMetric(BaseMetric):
    ...     inputs = (Field("ref", "text"), Field("hyp", "text"))
    ...     outputs = (Field("score", "number"),)
    ...     def update(self, **values):
    ...         pass
    ...     def compute(self):
    ...         return {"score": 0.0}
    >>> ExampleMetric().inputs[0]
    Field(name='ref', kind='text', label='Ref', optional=False, channels=1)

    A contract built from the instance's own configuration (VERSA-style) is set
    on ``self`` before ``super().__init__()``, which checks it:

    >>> class ExampleVersaMetric(BaseMetric):
    ...     def __init__(self, score_config):
    ...         self.score_config = score_config
    ...         self.inputs = (Field("hyp", "text"), Field("ref", "text", optional=True))
    ...         self.outputs = tuple(Field(name, "number") for name in score_config)
    ...         super().__init__()
    ...     def update(self, **values):
    ...         pass
    ...     def compute(self):
    ...         return {name: 0.0 for name in self.score_config}
    >>> [f.name for f in ExampleVersaMetric(["mcd", "f0"]).outputs]
    ['mcd', 'f0']

    A metric that declares nothing fails as soon as it is instantiated:

    >>> class Undeclared(BaseMetric):
    ...     def update(self, **values):
    ...         pass
    ...     def compute(self):
    ...         return {}
    >>> Undeclared()
    Traceback (most recent call last):
    ...
    TypeError: lightscore.core.metric.Undeclared declares neither inputs nor outputs: set both to tuples of Field
    """

    inputs: ClassVar[tuple[Field, ...]]
    outputs: ClassVar[tuple[Field, ...]]
    chunk_size: ClassVar[int] = 1000
    collect_artifacts: bool = False
    """True only while the runner scores files with an ``output_dir`` (``__call__``, `lightscore.measure`)."""
    artifact_inputs: Mapping[str, Any] | None = None
    """While ``collect_artifacts``: the ``data`` being scored (input name -> SCP), for `iter_inputs`."""
    artifact_part: tuple[int, int] | None = None
    """``(rank, world)`` while `write_artifacts` writes one rank's part; else None."""
    page_writer: ClassVar[Callable[..., None] | None] = None
    """Writes an HTML report page for `write_page`; None means the report layer's `write_report`."""
    batch_utt_ids: Sequence[str] | None = None
    """While ``update`` runs on a fed batch: its utterance ids, one per row; None when not known."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Wrap each subclass's own ``update`` so every batch is checked before it runs."""
        super().__init_subclass__(**kwargs)
        update = cls.__dict__.get("update")
        if update is not None and not getattr(update, "__isabstractmethod__", False):
            if not getattr(update, "__lightscore_checked__", False):
                cls.update = _checked(update)

    def __init__(self) -> None:
        check_metric_contract(self)

    # -- what the roads tell a metric -----------------------------------------------

    @contextlib.contextmanager
    def feeding(self, ids: Sequence[str] | None) -> Iterator[None]:
        """While the block runs, `batch_utt_ids` is ``ids``: how `feed` passes a batch's utterance ids.

        Args:
            ids: The batch's utterance ids, one per row, or None when not known.

        >>> from lightscore.metrics import WER
        >>> m = WER(per_utterance=True)
        >>> with m.feeding(["u1"]):
        ...     m.update(ref=["a b"], hyp=["a"])
        >>> m.utterance_counts, m.batch_utt_ids
        ([('u1', 0, 1, 0, 2)], None)
        """
        before = self.batch_utt_ids
        self.batch_utt_ids = None if ids is None else list(ids)
        try:
            yield
        finally:
            self.batch_utt_ids = before

    @contextlib.contextmanager
    def scoring_files(self, data: Mapping[str, Any] | None, part: tuple[int, int] | None = None) -> Iterator[None]:
        """While the runner scores ``data`` with an output_dir: `collect_artifacts` True, `artifact_inputs` set.

        ``data`` None (no output_dir) changes nothing. The runner enters it around
        the updates and again around `write_artifacts`, with ``part`` when each rank
        writes its part.

        Args:
            data: Input name -> SCP path (or shard) being scored, or None without an output_dir.
            part: ``(rank, world)`` while each rank writes its part of the artifacts.

        >>> from lightscore.metrics import WER
        >>> m = WER()
        >>> with m.scoring_files({"ref": "ref.scp", "hyp": "hyp.scp"}):
        ...     m.collect_artifacts, sorted(m.artifact_inputs)
        (True, ['hyp', 'ref'])
        >>> m.collect_artifacts, m.artifact_inputs
        (False, None)
        """
        before = self.collect_artifacts, self.artifact_inputs, self.artifact_part
        if data is not None:
            self.collect_artifacts = True
            self.artifact_inputs = dict(data)
            self.artifact_part = part
        try:
            yield
        finally:
            self.collect_artifacts, self.artifact_inputs, self.artifact_part = before

    # -- what a subclass implements ----------------------------------------------

    @abstractmethod
    def update(self, **values: Sequence[Any]) -> None:
        """Add one batch (one list or tuple per declared input, equal lengths) to the state.

        Every subclass's ``update`` is wrapped so that `check_batch` runs first.
        A problem with one row is raised as `RowError` (its utterance is then named).

        >>> from lightscore.metrics import WER
        >>> m = WER(); m.update(ref=["a b", "c"], hyp=["a b", "d"]); m.substitutions
        1
        >>> m.update(ref="a b", hyp="a b")
        Traceback (most recent call last):
        ...
        ValueError: lightscore.metrics.error_rate.WER.update(): input 'ref' must be a list or tuple, got str
        """

    @abstractmethod
    def compute(self) -> dict[str, float]:
        """Return the result from the state alone, with no file side effect.

        >>> from lightscore.metrics import WER
        >>> m = WER(); m.update(ref=["a b"], hyp=["a"]); m.compute()["WER"]
        50.0
        """

    def write_artifacts(self, test_dir: Path) -> None:
        """Write files for one test set after ``compute()``; a no-op by default.

        The offline runner calls it with an ``output_dir`` (``__call__``,
        `lightscore.measure`); ``test_dir`` is ``output_dir / test_name``, already
        created. While it runs, ``self.artifact_inputs`` holds the ``data``
        mapping, so an override can re-read the rows with `iter_inputs`.

        >>> from lightscore.metrics import WER
        >>> WER(alignment=False).write_artifacts(Path("exp/metrics/test-clean")) is None
        True
        """

    def write_page(self, path: str | Path, systems: Sequence[Any], **content: Any) -> None:
        """Write an HTML report page from `write_artifacts`, through `page_writer` when one is set.

        A metric hands its page's content over this seam, so no metric imports the
        report page; without a `page_writer` it is `lightscore.report.html.write_report`,
        loaded the first time a page is written.

        Args:
            path: The page's file.
            systems: ``(name, result, utterances)`` per system, as the page writer takes them.
            **content: The page writer's options (title, details, speakers, top_errors...).

        Raises:
            OSError: the page cannot be written.

        >>> import tempfile, pathlib
        >>> from lightscore.metrics import WER
        >>> result = {"WER": 0.0, "WER_sub": 0, "WER_del": 0, "WER_ins": 0, "WER_hit": 1, "WER_ref_len": 1}
        >>> page = pathlib.Path(tempfile.mkdtemp()) / "report.html"
        >>> WER().write_page(page, [("A", result, [])], title="WER report")
        >>> "WER report" in page.read_text()
        True
        """
        writer = BaseMetric.page_writer
        if writer is None:
            from lightscore.report.html import write_report as writer  # numpy and the page load only here
        writer(path, systems, **content)

    def writes_artifact_parts(self) -> bool:
        """Whether `write_artifacts` can write one rank's part of its files; False by default.

        When True and several ranks score a test set, every rank calls
        `write_artifacts` with ``artifact_part = (rank, world)`` and
        ``artifact_inputs`` holding its contiguous block of rows, then rank 0
        calls `join_artifact_parts`: the artifact is no longer written by one
        rank alone.

        >>> from lightscore.metrics import WER
        >>> WER().writes_artifact_parts(), WER(reports=True).writes_artifact_parts()
        (True, False)
        """
        return False

    def join_artifact_parts(self, test_dir: Path, world: int) -> None:
        """Join the ``world`` parts the ranks wrote in ``test_dir`` into whole files, in rank order (rank 0 runs it).

        A no-op by default; a metric whose `writes_artifact_parts` is True implements it.

        >>> from lightscore.metrics import CER
        >>> BaseMetric.join_artifact_parts(CER(), Path("exp/metrics/test-clean"), 2) is None
        True
        """

    def row_sample(self, row: Mapping[str, Any]) -> tuple[int, str, str, str] | None:
        """One row as the callback's worst-utterance log shows it: ``(errors, ref, hyp, alignment)``.

        None (the default) keeps this metric out of ``MetricCallback(log_samples=N)``;
        the error rates override it.

        Args:
            row: Declared input name -> this row's value.

        Returns:
            ``(errors, ref, hyp, alignment)``, or None for a metric that shows no rows.

        >>> from lightscore.metrics import WER
        >>> WER().row_sample({"ref": "the cat", "hyp": "the bat"})
        (1, 'the cat', 'the bat', 'the cat→bat')
        """
        return None

    # -- offline entry point -------------------------------------------------------

    def iter_inputs(self, data: Mapping[str, Any], *keys: str) -> Iterator[tuple[str, dict[str, str]]]:
        """Yield ``(utt_id, {key: value})`` from the SCP files ``data[key]``, read in lockstep.

        Streams the files in file order, never reading one whole.

        Args:
            data: Input name -> SCP path (as given to `__call__`).
            keys: The inputs to read, at least one.

        Raises:
            lightscore.scp.files.ScpMismatchError: (an AssertionError and a ValueError) when
                the ids differ at a row or a file ends early, and when no key is given.

        >>> import tempfile, pathlib
        >>> from lightscore.metrics import WER
        >>> d = pathlib.Path(tempfile.mkdtemp())
        >>> _ = (d / "ref.scp").write_text("utt1 the cat\\nutt2 a dog\\n")
        >>> _ = (d / "hyp.scp").write_text("utt1 the bat\\nutt2 a dog\\n")
        >>> data = {"ref": d / "ref.scp", "hyp": d / "hyp.scp"}
        >>> for utt_id, row in WER().iter_inputs(data, "ref", "hyp"):
        ...     print(utt_id, row["ref"], row["hyp"])
        utt1 the cat the bat
        utt2 a dog a dog
        """
        return iter_rows({key: data[key] for key in keys})

    def iter_batches(self, data: Mapping[str, Any]) -> Iterator[tuple[list[str], dict[str, list[str]]]]:
        """Yield ``(utt_ids, batch)`` of at most ``chunk_size`` rows of the declared inputs in ``data``.

        Args:
            data: Input name -> SCP path (or `lightscore.scp.files.ScpShard`).

        Raises:
            ValueError: ``data`` binds an input the metric does not declare.

        >>> import tempfile, pathlib
        >>> from lightscore.metrics import CER
        >>> d = pathlib.Path(tempfile.mkdtemp())
        >>> _ = (d / "ref.scp").write_text("u1 a\\nu2 b c\\nu3 d\\n")
        >>> m = CER(); m.chunk_size = 2
        >>> list(m.iter_batches({"ref": d / "ref.scp", "hyp": d / "ref.scp"}))
        [(['u1', 'u2'], {'ref': ['a', 'b c'], 'hyp': ['a', 'b c']}), (['u3'], {'ref': ['d'], 'hyp': ['d']})]
        """
        keys = [f.name for f in self.inputs if f.name in data]
        extra = [k for k in data if k not in keys]
        if extra:
            raise ValueError(f"{metric_name(self)}: data has undeclared input(s) {', '.join(extra)}")
        # Read in lockstep a chunk at a time: no dict per row on the way to update().
        yield from iter_row_batches({key: data[key] for key in keys}, self.chunk_size)

    def __call__(
        self,
        data: Mapping[str, Any],
        test_name: str,
        output_dir: str | Path | None = None,
        *,
        progress: Progress | None = None,
    ) -> dict:
        """Score one test set from SCP files: the offline runner's road with one process.

        Resets, feeds every ``chunk_size`` rows to ``update``, exports ``state()``,
        goes through `merged_result` (merge, load, compute, check) and, with an
        ``output_dir``, runs `write_artifacts` in ``output_dir / test_name``.

        Args:
            data: Each declared input name -> its SCP path.
            test_name: The test set (a folder name under ``output_dir``).
            output_dir: Where artifacts go; None writes none.
            progress: Called as ``progress(key, test_name, rows_done, rows_total)``.

        Returns:
            The checked result, ``{output: value}``.

        Raises:
            ValueError: bad rows, bad state or a result that breaks the contract.

        >>> import tempfile, pathlib
        >>> from lightscore.metrics import WER
        >>> d = pathlib.Path(tempfile.mkdtemp())
        >>> _ = (d / "ref.scp").write_text("u1 a b\\nu2 c\\n")
        >>> _ = (d / "hyp.scp").write_text("u1 a b\\nu2 d\\n")
        >>> WER()({"ref": d / "ref.scp", "hyp": d / "hyp.scp"}, "dev")["WER"]
        33.33333333333333
        """
        return score_one(self, data, test_name, output_dir, progress=progress)


# merged_result lived here until the merge road got its own module; the old path keeps working, with a warning.
__getattr__ = moved_names(globals(), {"merged_result": "lightscore.core.merge.merged_result"})
