"""Objects built from ``_target_`` configs (hydra), checked before anything is called.

A metrics YAML is code: its ``_target_`` names a Python callable that runs.
`build_target` resolves the target first and refuses it unless ``allowed``
accepts it, so ``_target_: builtins.open`` in a metric entry fails before it
can truncate a file. Errors come back on one line, naming the config place.
hydra is imported inside the functions.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["build_callable", "build_pluggable", "build_target", "callable_target", "one_line", "resolve_target"]


def one_line(cause: BaseException) -> str:
    """``Type: message`` on one line (hydra's import errors span several).

    >>> one_line(ImportError("No module named 'x'\\n  more"))
    "ImportError: No module named 'x' more"
    """
    return f"{type(cause).__name__}: " + " ".join(str(cause).split())


def resolve_target(target: Any, where: str) -> Any:
    """Import what the dotted path ``target`` names, without calling it.

    Raises:
        ValueError: ``target`` is not a non-empty string, or cannot be imported.

    >>> resolve_target("lightscore.metrics.WER", "metrics[0].metric").__name__
    'WER'
    >>> resolve_target("no.such.Thing", "metrics[0].metric")
    Traceback (most recent call last):
    ...
    ValueError: metrics[0].metric: cannot import _target_ no.such.Thing: ...
    """
    if not isinstance(target, str) or not target:
        raise ValueError(f"{where}: needs a _target_ (a dotted path such as lightscore.metrics.WER), got {target!r}")
    parts = target.split(".")
    # The longest importable module prefix, then attributes: what hydra's own lookup does, without its log lines.
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError as e:
            if cut == 1:
                raise ValueError(f"{where}: cannot import _target_ {target}: {one_line(e)}") from None
            continue
        try:
            for name in parts[cut:]:
                obj = getattr(obj, name)
        except AttributeError as e:
            raise ValueError(f"{where}: cannot import _target_ {target}: {one_line(e)}") from None
        return obj
    raise AssertionError("unreachable")


def build_target(
    node: Mapping[str, Any], where: str, *, allowed: Callable[[Any], bool], what: str, recursive: bool = True
) -> Any:
    """Build ``node`` with hydra once its ``_target_`` is resolved and accepted by ``allowed``.

    Args:
        node: A mapping (or DictConfig) with ``_target_`` and keyword arguments.
        where: The config place, for errors.
        allowed: Says whether the resolved target may be called.
        what: What an allowed target is, for the error (e.g. "a lightscore BaseMetric subclass").
        recursive: Whether nested ``_target_`` configs are built too.

    Returns:
        What the target returned.

    Raises:
        TypeError: the target is not allowed, or rejected its arguments.
        ValueError: the target cannot be imported, or failed while building.

    >>> import fractions
    >>> build_target({"_target_": "fractions.Fraction", "numerator": 1, "denominator": 3}, "x",
    ...              allowed=lambda t: t is fractions.Fraction, what="Fraction")
    Fraction(1, 3)
    >>> build_target({"_target_": "builtins.open", "file": "x"}, "metrics[0].metric",
    ...              allowed=lambda t: False, what="a lightscore BaseMetric subclass")
    Traceback (most recent call last):
    ...
    TypeError: metrics[0].metric: _target_ builtins.open is not a lightscore BaseMetric subclass; refused, not called
    """
    target = node.get("_target_") if hasattr(node, "get") else None
    if not allowed(resolve_target(target, where)):
        raise TypeError(f"{where}: _target_ {target} is not {what}; refused, not called")
    from hydra.errors import InstantiationException
    from hydra.utils import instantiate

    try:
        return instantiate(node, _convert_="all", _recursive_=recursive)
    except InstantiationException as e:
        cause = e.__cause__ or e
        kind = TypeError if isinstance(cause, TypeError) else ValueError
        raise kind(f"{where}: cannot build {target}: {one_line(cause)}") from cause


def callable_target(target: Any, partial: bool = False) -> bool:
    """Whether a resolved ``_target_`` may be built into something called per item (a recognizer, an embedder).

    Checked before anything is called.

    A class whose instances are callable is built with the config's arguments;
    a plain Python function only with ``_partial_: true`` (it is then called
    per utterance, never at build time). Anything else (``builtins.open``,
    ``os.remove``, a function without ``_partial_``) is refused.

    Args:
        target: The resolved class or function.
        partial: Whether the config says ``_partial_: true``.

    Returns:
        True for a class with ``__call__``, or a plain function with ``partial``.

    >>> class Model:
    ...     def __call__(self, wave, rate):
    ...         return ""
    >>> def recognize(wave, rate):
    ...     return ""
    >>> callable_target(Model), callable_target(recognize, partial=True)
    (True, True)
    >>> import os
    >>> callable_target(open), callable_target(os.remove, partial=True), callable_target(recognize)
    (False, False, False)
    """
    if inspect.isclass(target):
        return any("__call__" in vars(klass) for klass in target.__mro__ if klass is not object)
    return partial and inspect.isfunction(target)


def build_callable(config: Any, where: str, what: str) -> Any:
    """Build a ``_target_`` config into something called per item: a class with ``__call__`` or a partial function.

    The one way recognizers and embedders are built from a config: `build_target`
    refused by `callable_target` before anything is called.

    Args:
        config: The ``_target_`` mapping (``_partial_: true`` for a plain function).
        where: Where the config is, for the error.
        what: What the target must be, in words, for the error.

    Returns:
        The built object or the partial function.

    Raises:
        TypeError: a target that is not allowed (nothing is called).
        ValueError: a target that does not resolve, or failed while building.

    >>> build_callable({"_target_": "os.remove", "_partial_": True}, "embedder", "a class")
    Traceback (most recent call last):
    ...
    TypeError: embedder: _target_ os.remove is not a class; refused, not called
    """
    partial = bool(config.get("_partial_", False))
    return build_target(config, where, allowed=lambda target: callable_target(target, partial), what=what)


def build_pluggable(
    value: Any, names: Mapping[str, Callable[[], Any]], where: str, *, kind: str, call: str, classes: str
) -> Any:
    """A part a metric calls per item (a recognizer, a speaker embedder): a name, a ``_target_`` config or a callable.

    The one rule for every pluggable part: a name of ``names`` is built by its factory, a mapping
    goes through `build_callable` (resolved, and refused before anything is called), and a callable
    is used as it is.

    Args:
        value: A name of ``names``, a mapping with ``_target_``, or a callable.
        names: The names a config may use, each mapped to a factory taking no arguments.
        where: The config place, put before every error.
        kind: What the part is, for the errors (``"recognizer"``).
        call: How the part is called, for the errors (``"(wave, sample_rate) -> text"``).
        classes: What a class given as ``_target_`` must be, for the errors (``"a recognizer class"``).

    Returns:
        The callable part.

    Raises:
        TypeError: an unknown name, a mapping without ``_target_``, a refused target, or something not callable.
        ValueError: a target that cannot be imported or fails while building.

    >>> build_pluggable("upper", {"upper": lambda: str.upper}, "casing", kind="casing", call="(text) -> text",
    ...                 classes="a casing class")("a")
    'A'
    >>> build_pluggable(5, {}, "metrics[0].casing", kind="casing", call="(text) -> text", classes="a casing class")
    Traceback (most recent call last):
    ...
    TypeError: metrics[0].casing: a casing must be a name, a callable (text) -> text or a _target_ config; got 5
    """
    if isinstance(value, str):
        if value not in names:
            raise TypeError(
                f"{where}: unknown {kind} {value!r}; known names: {', '.join(names)} "
                "(or pass a callable or a _target_ config)"
            )
        return names[value]()
    if isinstance(value, Mapping):  # an omegaconf DictConfig is one too
        if "_target_" not in value:
            raise TypeError(f"{where}: {kind} config {dict(value)!r} has no _target_")
        what = f"{classes} (instances called as {call}) or, with _partial_: true, a Python function"
        value = build_callable(value, where, what)
    if not callable(value):
        article = "an" if kind[:1] in "aeiou" else "a"
        raise TypeError(
            f"{where}: {article} {kind} must be a name, a callable {call} or a _target_ config; got {value!r}"
        )
    return value
