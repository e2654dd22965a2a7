"""lightscore: speech and text metrics that give the same number in training, on many GPUs and offline.

``import lightscore`` stays light: torch, lightning, sentencepiece and hydra load
only in the modules that need them.

>>> from lightscore import Field, BaseMetric
>>> Field("hyp", "text").label
'Hyp'
"""

import importlib
from typing import Any

from lightscore import _moved

_moved.install()  # old import paths (lightscore.distributed, lightscore.text.glm, ...) keep working, with a warning

# Every export loads on first use (PEP 562), so importing one module, say
# lightscore.text.hubscr, does not load the core, the offline stage or the report first.
_EXPORTS = {
    "BaseMetric": "lightscore.core.metric",
    "Field": "lightscore.core.contract",
    "MeasureError": "lightscore.offline.results",
    "MeasureResults": "lightscore.offline.results",
    "RowError": "lightscore.core.metric",
    "ScpError": "lightscore.scp.files",
    "ScpMismatchError": "lightscore.scp.files",
    "check_metric_contract": "lightscore.core.contract",
    "check_metric_inputs": "lightscore.core.contract",
    "gather_and_compute": "lightscore.core.distributed",
    "gather_and_merge": "lightscore.core.distributed",
    "measure": "lightscore.offline.stage",
}
# ``import lightscore`` then ``lightscore.metrics.WER`` worked while the exports loaded the layers eagerly.
_PACKAGES = (
    "analysis",
    "audio",
    "cli",
    "core",
    "io",
    "lightning",
    "metrics",
    "offline",
    "report",
    "scp",
    "segments",
    "text",
)


def __getattr__(name: str) -> Any:
    """Load an export, or one of the layers' packages, the first time it is asked for.

    Raises:
        AttributeError: ``name`` is neither one of lightscore's exports nor a package of it.

    >>> import lightscore
    >>> lightscore.measure.__module__, lightscore.metrics.WER.__name__
    ('lightscore.offline.stage', 'WER')
    """
    if name in _PACKAGES:
        return importlib.import_module(f"lightscore.{name}")
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'lightscore' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})


__all__ = [
    "BaseMetric",
    "Field",
    "MeasureError",
    "MeasureResults",
    "RowError",
    "ScpError",
    "ScpMismatchError",
    "check_metric_contract",
    "check_metric_inputs",
    "gather_and_compute",
    "gather_and_merge",
    "measure",
]
__version__ = "0.1.0"
