"""What a metric reads and returns: `Field`, and the checks of a declaration.

A metric declares ``inputs`` (what it reads) and ``outputs`` (what it returns)
as tuples of `Field`. `check_metric_contract` checks such a declaration, and
`check_metric_inputs` checks how a metrics config binds the inputs to sources.
"""

from __future__ import annotations

import keyword
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "KINDS",
    "Field",
    "Progress",
    "StateValue",
    "check_metric_contract",
    "check_metric_inputs",
    "check_result",
    "metric_name",
    "normalize_bindings",
]

KINDS = ("text", "audio", "number", "segments")
StateValue = int | float | list[Any]
"""One registered state's value: a number ("sum") or a list ("cat"); plain and picklable."""
Progress = Callable[[str, str, int, int], None]
"""``progress(key, test_name, rows_done, rows_total)``: the one progress signature."""


@dataclass(frozen=True)
class Field:
    """One declared input or output of a metric.

    ``kind`` says what the value holds: "text" (the value itself), "audio"
    (a path to a WAV file), "number", or "segments" (one session of a meeting:
    a list of segments from a training step, or in an SCP file a path to a
    session file or one line of SegLST JSON; `lightscore.segments`).
    ``channels`` is for audio: 1 reads the first channel as 1-D, N exactly N
    channels, None all of them.

    >>> Field("ref", "text")
    Field(name='ref', kind='text', label='Ref', optional=False, channels=1)
    >>> Field("prompt_speech", "audio").label
    'Prompt speech'
    >>> Field("ref", "video")
    Traceback (most recent call last):
    ...
    ValueError: Field 'ref': kind 'video' is not one of 'text', 'audio', 'number', 'segments'
    """

    name: str
    kind: str
    label: str = ""
    optional: bool = False
    channels: int | None = 1

    def __post_init__(self) -> None:
        # The name becomes a keyword argument of update(), so a reserved word cannot be one.
        if not isinstance(self.name, str) or not self.name.isidentifier() or keyword.iskeyword(self.name):
            raise ValueError(f"Field name {self.name!r} is not a Python identifier")
        if self.kind not in KINDS:
            known = ", ".join(repr(k) for k in KINDS)
            raise ValueError(f"Field {self.name!r}: kind {self.kind!r} is not one of {known}")
        channels_ok = self.channels is None or (
            isinstance(self.channels, int) and not isinstance(self.channels, bool) and self.channels >= 1
        )
        if not channels_ok:
            raise ValueError(f"Field {self.name!r}: channels must be None or an int >= 1, got {self.channels!r}")
        if not self.label:
            object.__setattr__(self, "label", self.name.replace("_", " ").capitalize())


def metric_name(metric: Any) -> str:
    """The class path that names a metric in messages and results.

    >>> metric_name(Field("a", "text"))
    'lightscore.core.contract.Field'
    """
    cls = type(metric)
    return f"{cls.__module__}.{cls.__qualname__}"


def _check_fields(metric: Any, attr: str) -> tuple[Field, ...]:
    fields = getattr(metric, attr, None)
    name = metric_name(metric)
    if not isinstance(fields, tuple) or not all(isinstance(f, Field) for f in fields):
        raise TypeError(f"{name}.{attr} must be a tuple of Field, got {fields!r}")
    if not fields:
        raise TypeError(f"{name}.{attr} is empty: declare at least one Field")
    names = [f.name for f in fields]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise TypeError(f"{name}.{attr} repeats the name(s) {', '.join(repeated)}")
    return fields


def check_metric_contract(metric: Any) -> None:
    """Raise TypeError unless ``metric`` declares well-formed inputs and outputs.

    Inputs: a non-empty tuple of `Field`, names unique, no required input after
    an optional one. Outputs: a non-empty tuple of `Field` of kind "number".

    >>> class NoContract:
    ...     pass
    >>> check_metric_contract(NoContract())
    Traceback (most recent call last):
    ...
    TypeError: lightscore.core.contract.NoContract declares neither inputs nor outputs: set both to tuples of Field
    """
    name = metric_name(metric)
    if getattr(metric, "inputs", None) is None and getattr(metric, "outputs", None) is None:
        raise TypeError(f"{name} declares neither inputs nor outputs: set both to tuples of Field")
    inputs = _check_fields(metric, "inputs")
    outputs = _check_fields(metric, "outputs")
    seen_optional = None
    for field in inputs:
        if field.optional:
            seen_optional = field.name
        elif seen_optional is not None:
            raise TypeError(
                f"{name}.inputs: required input {field.name!r} comes after optional input {seen_optional!r}"
            )
    for field in outputs:
        if field.kind != "number":
            raise TypeError(f"{name}.outputs: {field.name!r} has kind {field.kind!r}; outputs must be 'number'")


def normalize_bindings(inputs: Any) -> dict[str, str]:
    """Turn an entry's ``inputs:`` (a mapping or a list of names) into name -> source.

    >>> normalize_bindings(["ref", "hyp"])
    {'ref': 'ref', 'hyp': 'hyp'}
    >>> normalize_bindings({"ref": "dataset:text", "hyp": "hyp"})
    {'ref': 'dataset:text', 'hyp': 'hyp'}
    """
    if inputs is None:
        return {}
    if isinstance(inputs, Mapping):
        return {str(k): str(v) for k, v in inputs.items()}
    if isinstance(inputs, Sequence) and not isinstance(inputs, str):  # a list, a tuple or OmegaConf's ListConfig
        return {str(k): str(k) for k in inputs}
    raise ValueError(f"inputs: must be a mapping of name -> source or a list of names, got {inputs!r}")


def _fix_block(metric: Any) -> str:
    lines = ["inputs:"]
    for f in metric.inputs:
        note = "  # optional" if f.optional else ""
        lines.append(f"  {f.name}: {f.name}{note}")
    return "\n".join(lines)


def check_metric_inputs(metric: Any, entry: Mapping[str, Any]) -> dict[str, str]:
    """Check a metrics-config entry's ``inputs:`` against the metric; return name -> source.

    Every required declared input must be bound and no undeclared name may be;
    the ValueError shows the declared inputs and an ``inputs:`` block that fits.

    >>> class M:
    ...     inputs = (Field("ref", "text"), Field("hyp", "text"))
    ...     outputs = (Field("score", "number"),)
    >>> check_metric_inputs(M(), {"inputs": {"ref": "dataset:text", "hyp": "hyp"}})
    {'ref': 'dataset:text', 'hyp': 'hyp'}
    >>> check_metric_inputs(M(), {"inputs": ["hyp"]})
    Traceback (most recent call last):
    ...
    ValueError: lightscore.core.contract.M: required input(s) ref not bound.
    Declared inputs: ref (text), hyp (text).
    An inputs: block that fits:
    inputs:
      ref: ref
      hyp: hyp
    """
    bindings = normalize_bindings(entry.get("inputs"))
    declared = {f.name: f for f in metric.inputs}
    problems = []
    missing = [n for n, f in declared.items() if not f.optional and n not in bindings]
    if missing:
        problems.append(f"required input(s) {', '.join(missing)} not bound")
    unknown = [n for n in bindings if n not in declared]
    if unknown:
        problems.append(f"input(s) {', '.join(unknown)} not declared")
    if problems:
        listing = ", ".join(f"{f.name} ({f.kind}{', optional' if f.optional else ''})" for f in metric.inputs)
        raise ValueError(
            f"{metric_name(metric)}: {'; '.join(problems)}.\nDeclared inputs: {listing}.\n"
            f"An inputs: block that fits:\n{_fix_block(metric)}"
        )
    return bindings


def check_result(metric: Any, result: Any) -> dict[str, int | float]:
    """Check what ``compute()`` returned against the declared outputs.

    Every required output must be present (an output declared ``optional`` may be
    absent), no undeclared key may be, and each value must be a finite int or
    float (not a bool).

    >>> class M:
    ...     outputs = (Field("WER", "number"),)
    >>> check_result(M(), {"WER": 4.3})
    {'WER': 4.3}
    >>> check_result(M(), {"WER": float("nan")})
    Traceback (most recent call last):
    ...
    ValueError: lightscore.core.contract.M.compute() returned WER=nan: not a finite number
    """
    name = metric_name(metric)
    if not isinstance(result, Mapping):
        raise ValueError(f"{name}.compute() returned {type(result).__name__}, not a dict")
    declared = {f.name: f for f in metric.outputs}
    for key, field in declared.items():
        if key not in result and not field.optional:
            raise ValueError(f"{name}.compute() did not return the declared output {key!r}")
    for key, value in result.items():
        if key not in declared:
            raise ValueError(f"{name}.compute() returned {key!r}, which is not a declared output")
        is_number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if not is_number or not math.isfinite(value):
            raise ValueError(f"{name}.compute() returned {key}={value!r}: not a finite number")
    return dict(result)
