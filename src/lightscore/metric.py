"""`BaseMetric`: declared inputs and outputs, mergeable state, and the offline entry point.

Every number travels one road: ``update`` per batch adds to registered states,
``state()`` exports them, ``merge_states`` combines ranks or shards,
``load_state`` puts the merged state back and ``compute()`` turns it into the
result. A training callback, `lightscore.measure` and a sharded run all use it.
"""

from __future__ import annotations

import copy
import functools
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, Literal

from .batch import RowError, check_batch, check_lengths, feed
from .contract import Field, check_metric_contract, check_result, metric_name
from .scp import iter_row_batches, iter_rows

# RowError, check_batch, check_lengths and feed live in batch.py; they are re-exported here because a
# metric author meets them with BaseMetric (RowError is raised from update()).
__all__ = [
    "BaseMetric",
    "Progress",
    "RowError",
    "StateValue",
    "check_batch",
    "check_lengths",
    "feed",
    "merged_result",
]

StateValue = int | float | list[Any]
Progress = Callable[[str, str, int, int], None]
"""``progress(key, test_name, rows_done, rows_total)``: the one progress signature."""
REDUCES = ("sum", "cat")


def merged_result(metric: BaseMetric, states: Sequence[Mapping[str, StateValue]]) -> dict:
    """The one road from states to a result: merge, load into ``metric``, compute, check.

    Every caller goes through here: `lightscore.lightning.MetricCallback` at an
    epoch end, `lightscore.measure` (one process or many), the offline runner
    and `lightscore.distributed.gather_and_merge`. ``states`` are the ranks' or
    shards' ``state()`` dicts, or the one process's own.

    Args:
        metric: The metric whose reduce rules merge the states; it is left
            holding the merged state.
        states: One ``state()`` dict per rank or shard, in rank order.

    Returns:
        ``compute()``'s result, checked against the declared outputs.

    Raises:
        ValueError: a state of the wrong shape, or a result that breaks the contract.

    >>> from lightscore.metrics import WER
    >>> a, b = WER(), WER()
    >>> a.update(ref=["the cat"], hyp=["the cat"]); b.update(ref=["a dog"], hyp=["a"])
    >>> merged_result(WER(), [a.state(), b.state()])["WER"]
    25.0
    """
    merged_result.calls += 1
    metric.load_state(metric.merge_states(states))
    return check_result(metric, metric.compute())


merged_result.calls = 0  # counted so tests can show every road passes through here


def _checked(update):
    @functools.wraps(update)
    def checked_update(self, **values):
        check_batch(self, values)
        return update(self, **values)

    checked_update.__lightscore_checked__ = True
    return checked_update


class BaseMetric(ABC):
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
    TypeError: lightscore.metric.Undeclared declares neither inputs nor outputs: set both to tuples of Field
    """

    inputs: ClassVar[tuple[Field, ...]]
    outputs: ClassVar[tuple[Field, ...]]
    chunk_size: ClassVar[int] = 1000
    collect_artifacts: bool = False
    artifact_inputs: Mapping[str, Any] | None = None
    artifact_part: tuple[int, int] | None = None  # (rank, world) while write_artifacts writes one rank's part

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Wrap each subclass's own ``update`` so every batch is checked before it runs."""
        super().__init_subclass__(**kwargs)
        update = cls.__dict__.get("update")
        if update is not None and not getattr(update, "__isabstractmethod__", False):
            if not getattr(update, "__lightscore_checked__", False):
                cls.update = _checked(update)

    def __init__(self) -> None:
        check_metric_contract(self)

    # -- state -----------------------------------------------------------------

    def _registry(self) -> dict[str, tuple[StateValue, str]]:
        return self.__dict__.setdefault("_state_registry", {})

    def add_state(self, name: str, default: StateValue, reduce: Literal["sum", "cat"]) -> None:
        """Register a state and set ``self.<name>`` to a copy of ``default``.

        May be called before or after ``super().__init__()``.

        Args:
            name: The attribute the state lives in.
            default: Its empty value: an int or float for "sum", a list for "cat".
            reduce: How ranks' values combine: "sum" adds, "cat" concatenates.

        Raises:
            ValueError: a name taken, an unknown reduce, or a default of the wrong type.

        >>> from lightscore.metrics import WER
        >>> m = WER()
        >>> m.add_state("lengths", [], "cat")
        >>> m.state()["lengths"]
        []
        >>> m.add_state("hits", 0, "sum")
        Traceback (most recent call last):
        ...
        ValueError: state 'hits' is already registered
        """
        registry = self._registry()
        if name in registry:
            raise ValueError(f"state {name!r} is already registered")
        if hasattr(self, name):
            raise ValueError(f"state {name!r} would hide the existing attribute {name!r}")
        if reduce not in REDUCES:
            raise ValueError(f"state {name!r}: reduce {reduce!r} is not one of 'sum', 'cat'")
        is_number = isinstance(default, (int, float)) and not isinstance(default, bool)
        if (reduce == "sum" and not is_number) or (reduce == "cat" and not isinstance(default, list)):
            kind = "an int or float" if reduce == "sum" else "a list"
            raise ValueError(f"state {name!r}: a {reduce!r} default must be {kind}, got {default!r}")
        registry[name] = (copy.deepcopy(default), reduce)
        setattr(self, name, copy.deepcopy(default))

    def reset(self) -> None:
        """Set every registered state back to a copy of its default.

        >>> from lightscore.metrics import WER
        >>> m = WER(); m.update(ref=["a b"], hyp=["a"]); m.reset(); m.state()["deletions"]
        0
        """
        for name, (default, _) in self._registry().items():
            setattr(self, name, copy.deepcopy(default))

    def state(self) -> dict[str, StateValue]:
        """Return a deep copy of every registered state, by name ({} when none).

        Returns:
            State name -> a copy of its value: plain numbers and lists, picklable.

        >>> from lightscore.metrics import WER
        >>> m = WER(); m.update(ref=["a b"], hyp=["a"]); m.state()  # doctest: +NORMALIZE_WHITESPACE
        {'substitutions': 0, 'deletions': 1, 'insertions': 0, 'hits': 1, 'ref_len': 2,
         'utterances': 1, 'error_utterances': 1}
        """
        return {name: copy.deepcopy(getattr(self, name)) for name in self._registry()}

    def _check_keys(self, state: Mapping[str, Any], what: str) -> None:
        registered, given = set(self._registry()), set(state)
        if registered != given:
            missing = ", ".join(sorted(registered - given)) or "-"
            extra = ", ".join(sorted(given - registered)) or "-"
            raise ValueError(f"{metric_name(self)}.{what}: state lacks [{missing}] and has unknown [{extra}]")

    def merge_states(self, states: Sequence[Mapping[str, StateValue]]) -> dict[str, StateValue]:
        """Combine per-rank state dicts by each state's reduce rule; ``self`` is not changed.

        "sum" states are added, "cat" states concatenated in the order given.

        Args:
            states: ``state()`` dicts of this metric, in rank (or shard) order.

        Returns:
            The merged state dict.

        Raises:
            ValueError: a state lacks a registered name or has an unknown one.

        >>> from lightscore.metrics import WER
        >>> a, b = WER(), WER()
        >>> a.update(ref=["a b"], hyp=["a"]); b.update(ref=["c"], hyp=["d"])
        >>> merged = WER().merge_states([a.state(), b.state()])
        >>> merged["ref_len"], merged["deletions"], merged["substitutions"]
        (3, 1, 1)
        >>> WER().merge_states([])["ref_len"]
        0
        """
        for state in states:
            self._check_keys(state, "merge_states()")
        merged: dict[str, StateValue] = {}
        for name, (default, reduce) in self._registry().items():
            if reduce == "sum":
                merged[name] = sum((s[name] for s in states), copy.deepcopy(default))
            else:
                merged[name] = copy.deepcopy(default) + [x for s in states for x in s[name]]
        return merged

    def load_state(self, state: Mapping[str, StateValue]) -> None:
        """Set every registered state from ``state``, such as a merged one.

        Raises:
            ValueError: ``state`` lacks a registered name or has an unknown one.

        >>> from lightscore.metrics import WER
        >>> a = WER(); a.update(ref=["a b"], hyp=["a"])
        >>> m = WER(); m.load_state(a.state()); m.compute()["WER"]
        50.0
        """
        self._check_keys(state, "load_state()")
        for name in self._registry():
            setattr(self, name, copy.deepcopy(state[name]))

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

    # -- offline entry point -------------------------------------------------------

    def iter_inputs(self, data: Mapping[str, Any], *keys: str) -> Iterator[tuple[str, dict[str, str]]]:
        """Yield ``(utt_id, {key: value})`` from the SCP files ``data[key]``, read in lockstep.

        Streams the files in file order, never reading one whole.

        Args:
            data: Input name -> SCP path (as given to `__call__`).
            keys: The inputs to read, at least one.

        Raises:
            lightscore.scp.ScpMismatchError: (an AssertionError and a ValueError) when
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
            data: Input name -> SCP path (or `lightscore.scp.ScpShard`).

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
        from .runner import score_one  # the runner drives metrics over files; it builds on this module

        return score_one(self, data, test_name, output_dir, progress=progress)
