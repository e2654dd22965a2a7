"""The offline stage: `measure()` (metrics.yaml -> metrics.json), its config, results and `compare`.

The stage itself is imported when first asked for: ``lightscore score`` reaches `lightscore.offline.compare`
through this package and needs none of it.

>>> from lightscore.offline import measure
>>> measure.__module__
'lightscore.offline.stage'
"""

from lightscore._lazy import lazy_exports

_EXPORTS = {
    "MeasureInterrupted": "lightscore.offline.interrupts",
    "measure": "lightscore.offline.stage",
    "process_group": "lightscore.offline.stage",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)
