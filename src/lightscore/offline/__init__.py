"""The offline stage: `measure()` (metrics.yaml -> metrics.json), its config, results and `compare`.

>>> from lightscore.offline import measure
>>> measure.__module__
'lightscore.offline.stage'
"""

from lightscore.offline.stage import measure, process_group

__all__ = ["measure", "process_group"]
