"""Mergeable state: `MetricState`, the state registry every `lightscore.core.metric.BaseMetric` has.

A metric registers each state with ``add_state(name, default, "sum"|"cat")``;
``state()`` exports plain copies, ``merge_states`` combines ranks' or shards'
states by each reduce rule (pure), and ``load_state`` puts a merged one back.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from lightscore.core.contract import StateValue, metric_name

__all__ = ["REDUCES", "MetricState"]

REDUCES = ("sum", "cat")


class MetricState:
    """The state registry: ``add_state``, ``reset``, ``state``, ``merge_states``, ``load_state``.

    >>> class Hits(MetricState):
    ...     def __init__(self):
    ...         self.add_state("hits", 0, "sum")
    >>> Hits().merge_states([{"hits": 2}, {"hits": 3}])
    {'hits': 5}
    """

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
