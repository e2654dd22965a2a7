"""sclite's family: its weighted aligner, reference markup, case folding, ``-c`` modes and trn files.

Each name loads its module on first use (numpy stays unloaded until an alignment runs).

>>> from lightscore.text.sclite import sclite_counts
>>> sclite_counts(["a", "b"], ["a", "c"])  # substitutions, deletions, insertions
(1, 0, 0)
"""

from lightscore._lazy import lazy_exports

_EXPORTS = {
    "sclite_align": "lightscore.text.sclite.align",
    "sclite_counts": "lightscore.text.sclite.align",
    "sum_sclite_edits": "lightscore.text.sclite.align",
    "markup_align": "lightscore.text.sclite.markup",
    "markup_counts": "lightscore.text.sclite.markup",
    "MarkupError": "lightscore.text.sclite.network",
    "parse_reference": "lightscore.text.sclite.network",
    "batch_counts": "lightscore.text.sclite.batch",
    "sclite_fold": "lightscore.text.sclite.case",
    "sclite_folder": "lightscore.text.sclite.case",
    "sclite_chars": "lightscore.text.sclite.cjk",
    "mixed_units": "lightscore.text.sclite.cjk",
    "read_trn": "lightscore.text.sclite.trn",
    "TrnError": "lightscore.text.sclite.trn",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)
