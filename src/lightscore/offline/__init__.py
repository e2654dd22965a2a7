"""The offline stage: `measure()` (metrics.yaml -> metrics.json), its config, results and `compare`.

The stage itself is imported when first asked for: ``lightscore score`` reaches `lightscore.offline.compare`
through this package and needs none of it.

>>> from lightscore.offline import measure
>>> measure.__module__
'lightscore.offline.stage'
"""

from __future__ import annotations

from typing import Any

__all__ = ["measure", "process_group"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from lightscore.offline import stage

        return getattr(stage, name)
    raise AttributeError(f"module 'lightscore.offline' has no attribute {name!r}")
