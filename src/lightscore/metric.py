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

from .contract import Field, check_metric_contract, check_result, metric_name
from .scp import iter_row_batches, iter_rows

StateValue = int | float | list[Any]
REDUCES = ("sum", "cat")


def _check_batch(metric: BaseMetric, values: Mapping[str, Any]) -> None:
    """Raise ValueError unless ``values`` is one well-formed batch for ``metric``."""
    name = metric_name(metric)
    declared = {f.name: f for f in metric.inputs}
    for key, value in values.items():
        if key not in declared:
            raise ValueError(f"{name}.update(): input {key!r} is not declared (declared: {', '.join(declared)})")
        if not isinstance(value, (list, tuple)):
            raise ValueError(f"{name}.update(): input {key!r} must be a list or tuple, got {type(value).__name__}")
    for key, field in declared.items():
        if not field.optional and key not in values:
            raise ValueError(f"{name}.update(): required input {key!r} is missing")
    lengths = {key: len(value) for key, value in values.items()}
    if len(set(lengths.values())) > 1:
        shown = ", ".join(f"{k}={n}" for k, n in lengths.items())
        raise ValueError(f"{name}.update(): inputs have unequal lengths ({shown})")


def _checked(update):
    @functools.wraps(update)
    def checked_update(self, **values):
        _check_batch(self, values)
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

        >>> m = WordCount()
        >>> m.add_state("scores", [], "cat")
        >>> m.state()
        {'words': 0, 'scores': []}
        >>> m.add_state("words", 0, "sum")
        Traceback (most recent call last):
        ...
        ValueError: state 'words' is already registered
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

        >>> m = WordCount(); m.update(hyp=["a b"]); m.reset(); m.state()
        {'words': 0}
        """
        for name, (default, _) in self._registry().items():
            setattr(self, name, copy.deepcopy(default))

    def state(self) -> dict[str, StateValue]:
        """Return a deep copy of every registered state, by name ({} when none).

        >>> m = WordCount(); m.update(hyp=["a b", "c"]); m.state()
        {'words': 3}
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

        >>> WordCount().merge_states([{"words": 2}, {"words": 3}])
        {'words': 5}
        >>> WordCount().merge_states([])
        {'words': 0}
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

        >>> m = WordCount()
        >>> m.load_state(m.merge_states([{"words": 2}, {"words": 3}]))
        >>> m.compute()
        {'words': 5}
        """
        self._check_keys(state, "load_state()")
        for name in self._registry():
            setattr(self, name, copy.deepcopy(state[name]))

    # -- what a subclass implements ----------------------------------------------

    @abstractmethod
    def update(self, **values: Sequence[Any]) -> None:
        """Add one batch (one list or tuple per declared input, equal lengths) to the state.

        >>> m = WordCount(); m.update(hyp=["a b", "c"]); m.words
        3
        >>> m.update(hyp="a b")
        Traceback (most recent call last):
        ...
        ValueError: lightscore.metric.WordCount.update(): input 'hyp' must be a list or tuple, got str
        """

    @abstractmethod
    def compute(self) -> dict[str, float]:
        """Return the result from the state alone, with no file side effect.

        >>> m = WordCount(); m.update(hyp=["a b"]); m.compute()
        {'words': 2}
        """

    def write_artifacts(self, test_dir: Path) -> None:
        """Write files for one test set after ``compute()``; a no-op by default.

        Runs only from ``__call__`` with an ``output_dir``; ``test_dir`` is
        ``output_dir / test_name``, already created. While it runs,
        ``self.artifact_inputs`` holds the ``data`` mapping, so an override can
        re-read the rows with `iter_inputs`.

        >>> WordCount().write_artifacts(Path("exp/metrics/test-clean")) is None
        True
        """

    # -- offline entry point -------------------------------------------------------

    def iter_inputs(self, data: Mapping[str, Any], *keys: str) -> Iterator[tuple[str, dict[str, str]]]:
        """Yield ``(utt_id, {key: value})`` from the SCP files ``data[key]``, read in lockstep.

        Streams the files in file order, never reading one whole; raises an
        AssertionError (also a ValueError) when the ids differ at a row or a
        file ends early, and when no key is given.

        >>> import tempfile, pathlib
        >>> d = pathlib.Path(tempfile.mkdtemp())
        >>> _ = (d / "ref.scp").write_text("utt1 the cat\\nutt2 a dog\\n")
        >>> _ = (d / "hyp.scp").write_text("utt1 the bat\\nutt2 a dog\\n")
        >>> data = {"ref": d / "ref.scp", "hyp": d / "hyp.scp"}
        >>> for utt_id, row in WordCount().iter_inputs(data, "ref", "hyp"):
        ...     print(utt_id, row["ref"], row["hyp"])
        utt1 the cat the bat
        utt2 a dog a dog
        >>> for utt_id, row in WordCount().iter_inputs(data, "ref"):
        ...     print(utt_id, row["ref"])
        utt1 the cat
        utt2 a dog
        """
        return iter_rows({key: data[key] for key in keys})

    def iter_batches(self, data: Mapping[str, Any]) -> Iterator[tuple[list[str], dict[str, list[str]]]]:
        """Yield ``(utt_ids, batch)`` of at most ``chunk_size`` rows of the declared inputs in ``data``.

        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "hyp.scp"
        >>> _ = p.write_text("u1 a\\nu2 b c\\nu3 d\\n")
        >>> m = WordCount(); m.chunk_size = 2
        >>> list(m.iter_batches({"hyp": p}))
        [(['u1', 'u2'], {'hyp': ['a', 'b c']}), (['u3'], {'hyp': ['d']})]
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
        progress: Callable[[int], None] | None = None,
    ) -> dict:
        """Score one test set from SCP files: reset, update per chunk, compute, write artifacts.

        ``data`` maps each declared input name to an SCP path. With an
        ``output_dir``, `write_artifacts` runs with ``output_dir / test_name``.
        ``progress``, when given, is called with the number of rows of each
        chunk once ``update`` has taken it.

        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "hyp.scp"
        >>> _ = p.write_text("u1 a b\\nu2 c\\n")
        >>> WordCount()({"hyp": p}, "test-clean", progress=print)
        2
        {'words': 3}
        """
        self.collect_artifacts = output_dir is not None
        try:
            self.update_rows(data, progress=progress)
            return self.finish(data, test_name, output_dir)
        finally:
            self.collect_artifacts = False

    def update_rows(self, data: Mapping[str, Any], *, progress: Callable[[int], None] | None = None) -> None:
        """Reset, then ``update`` with every row of the SCP files in ``data``, ``chunk_size`` rows at a time.

        The first half of `__call__`. A sharded `lightscore.measure` runs it on
        every rank with `lightscore.scp.ScpShard` paths, merges the ranks'
        states, then calls `finish` once.

        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "hyp.scp"
        >>> _ = p.write_text("u1 a b\\nu2 c\\n")
        >>> m = WordCount(); m.update_rows({"hyp": p}); m.state()
        {'words': 3}
        """
        self.reset()
        for ids, batch in self.iter_batches(data):
            self.update(**batch)
            if progress is not None:
                progress(len(ids))

    def finish(self, data: Mapping[str, Any], test_name: str, output_dir: str | Path | None = None) -> dict:
        """The second half of `__call__`: ``compute()``, checked, then `write_artifacts` when given an ``output_dir``.

        >>> m = WordCount(); m.load_state({"words": 5}); m.finish({}, "test-clean")
        {'words': 5}
        """
        result = check_result(self, self.compute())
        if output_dir is not None:
            test_dir = Path(output_dir) / test_name
            test_dir.mkdir(parents=True, exist_ok=True)
            self.artifact_inputs = dict(data)
            try:
                self.write_artifacts(test_dir)
            finally:
                self.artifact_inputs = None
        return result


class WordCount(BaseMetric):
    """A tiny metric for the examples above: counts hypothesis words.

    >>> m = WordCount(); m.update(hyp=["a b c"]); m.compute()
    {'words': 3}
    """

    inputs = (Field("hyp", "text"),)
    outputs = (Field("words", "number"),)

    def __init__(self) -> None:
        self.add_state("words", 0, "sum")
        super().__init__()

    def update(self, *, hyp: Sequence[str]) -> None:
        self.words += sum(len(text.split()) for text in hyp)

    def compute(self) -> dict[str, int]:
        return {"words": self.words}
