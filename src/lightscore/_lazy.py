"""Names a package offers but loads on first use (PEP 562), listed by ``dir()`` all the same.

A package face (``lightscore``, ``lightscore.metrics``, a family of ``lightscore.text``) names what it
offers without importing it, so ``import lightscore.metrics`` stays light and a missing extra fails only
when its metric is asked for.

>>> import types
>>> face = types.ModuleType("face")
>>> face.__getattr__, face.__dir__ = lazy_exports(face.__dict__, {"sqrt": "math", "loads": "json"})
>>> "loads" in dir(face), face.sqrt(9.0)
(True, 3.0)
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    namespace: dict[str, Any], exports: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """Make a package's ``__getattr__`` and ``__dir__`` for names that live in other modules.

    Args:
        namespace: the package's ``globals()``; a name, once loaded, is kept there.
        exports: each offered name → the module that defines it.

    Returns:
        ``(__getattr__, __dir__)`` to assign in the package.

    Raises:
        AttributeError: (from ``__getattr__``) a name the package does not offer.
    """

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *exports})

    return __getattr__, __dir__
