"""hubscr's family: stm and ctm files, NIST's GLMs (``glms/``, package data), csrfilt and the hubscr pipeline.

It builds on the sclite family (the networks are aligned by ``lightscore.text.sclite``). Each name loads
its module on first use.

>>> from lightscore.text.hubscr import GLMS, hubscr
>>> GLMS
('en20030506', 'en20090415')
"""

from typing import Any

from lightscore._lazy import lazy_exports
from lightscore._moved_names import moved_names

_EXPORTS = {
    "HubscrReference": "lightscore.text.hubscr.pipeline",
    "SegmentCounts": "lightscore.text.hubscr.pipeline",
    "SegmentRow": "lightscore.text.hubscr.pipeline",
    "filter_ctm_lines": "lightscore.text.hubscr.pipeline",
    "hubscr": "lightscore.text.hubscr.pipeline",
    "hubscr_rows": "lightscore.text.hubscr.pipeline",
    "GLMS": "lightscore.text.hubscr.glm",
    "Glm": "lightscore.text.hubscr.glm",
    "GlmError": "lightscore.text.hubscr.glm",
    "csrfilt": "lightscore.text.hubscr.glm",
    "csrfilt_lines": "lightscore.text.hubscr.glm",
    "glm_path": "lightscore.text.hubscr.glm",
    "read_glm": "lightscore.text.hubscr.glm",
    "StmCtmError": "lightscore.text.hubscr.stm_ctm",
    "StmSegment": "lightscore.text.hubscr.stm_ctm",
    "read_stm_segments": "lightscore.text.hubscr.stm_ctm",
    "read_ctm_items": "lightscore.text.hubscr.stm_ctm",
    "LANGUAGES": "lightscore.text.hubscr.languages",
}
# Old names, renamed so as not to read as `lightscore.segments`' readers (meeting sessions): a DeprecationWarning.
_RENAMED = {
    "read_stm": "lightscore.text.hubscr.stm_ctm.read_stm_segments",
    "read_ctm": "lightscore.text.hubscr.stm_ctm.read_ctm_items",
}
__all__ = sorted(_EXPORTS)
_offered, __dir__ = lazy_exports(globals(), _EXPORTS)
_renamed = moved_names(globals(), _RENAMED)


def __getattr__(name: str) -> Any:
    """A name of `_EXPORTS`, loaded on first use, or an old name of `_RENAMED` (with a DeprecationWarning)."""
    return _renamed(name) if name in _RENAMED else _offered(name)
