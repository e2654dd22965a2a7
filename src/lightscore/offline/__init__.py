"""The offline stage: `measure()` (metrics.yaml -> metrics.json), its config, results and `compare`.

>>> from lightscore.offline import measure
>>> measure.__module__
'lightscore.offline.stage'
"""

from lightscore.core.metric import BaseMetric
from lightscore.offline.stage import measure, process_group
from lightscore.report.html import write_report

# The offline stage owns how artifacts become pages: metrics write theirs through BaseMetric.write_page.
BaseMetric.page_writer = staticmethod(write_report)

__all__ = ["measure", "process_group"]
