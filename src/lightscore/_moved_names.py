"""Public names that moved out of a module that stays: the old module still offers them, with a warning.

`lightscore._moved` answers for whole modules that moved. This is its counterpart for single names: a
module whose class was folded into another keeps a PEP 562 ``__getattr__`` from `moved_names`, so
``from old.module import Name`` gives the object at its new home and a DeprecationWarning naming it.

>>> import types, warnings
>>> old = types.ModuleType("old")
>>> old.__getattr__ = moved_names(old.__dict__, {"dumps": "json.dumps"})
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     old.dumps([1])
'[1]'
>>> str(caught[0].message)
'old.dumps moved to json.dumps; import it from there'
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["moved_names"]


def moved_names(namespace: dict[str, Any], moves: Mapping[str, str]) -> Callable[[str], Any]:
    """Make a module's ``__getattr__`` for names that now live elsewhere.

    The new home is given as a dotted path and imported only when the old name is asked for, so an old
    module below its name's new home (in the import graph) does not import upward. ``dir()`` leaves the
    moved names out, as it leaves out moved modules: tools that walk a module (doctest collection) would
    otherwise set off the warning.

    Args:
        namespace: the old module's ``globals()``.
        moves: each old name → ``"package.module.NewName"``, its new home.

    Returns:
        The ``__getattr__`` to assign in the old module.

    Raises:
        AttributeError: (from ``__getattr__``) a name the module neither holds nor moved.
    """

    def __getattr__(name: str) -> Any:
        target = moves.get(name)
        if target is None:
            raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
        module, _, new_name = target.rpartition(".")
        warnings.warn(
            f"{namespace['__name__']}.{name} moved to {target}; import it from there", DeprecationWarning, stacklevel=2
        )
        return getattr(importlib.import_module(module), new_name)

    return __getattr__
