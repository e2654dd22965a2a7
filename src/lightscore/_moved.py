"""Import paths that moved: each old path still imports, as the new module, with a DeprecationWarning.

Public import paths never vanish (docs/architecture.md lists the moves). Rather than one re-exporting file
per old path, one table maps each old module name to its new home, and a finder placed last on
``sys.meta_path`` answers for exactly those names: ``import lightscore.distributed`` gives the module
``lightscore.core.distributed`` itself (so ``gather_and_merge`` is the same function) and warns once.

>>> import warnings
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     from lightscore.distributed import gather_and_merge
>>> gather_and_merge.__module__, caught[0].category.__name__
('lightscore.core.distributed', 'DeprecationWarning')
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from types import ModuleType

__all__ = ["MOVED", "install"]

MOVED: dict[str, str] = {
    # the layers (docs/architecture.md, "Internal paths that moved")
    "lightscore.atomic": "lightscore.io.atomic",
    "lightscore.normalize": "lightscore.text.normalize",
    "lightscore.metrics.alignment": "lightscore.text.alignment",
    "lightscore.metrics.counting": "lightscore.text.counting",
    "lightscore.metrics.sclite_align": "lightscore.text.sclite.align",
    "lightscore.scp_lines": "lightscore.scp.lines",
    "lightscore.scp_ids": "lightscore.scp.ids",
    "lightscore.report_html": "lightscore.report.html",
    "lightscore.report_page": "lightscore.report.page",
    "lightscore.bootstrap": "lightscore.analysis.bootstrap",
    "lightscore.significance": "lightscore.analysis.significance",
    "lightscore.breakdown": "lightscore.analysis.breakdown",
    "lightscore.contract": "lightscore.core.contract",
    "lightscore.batch": "lightscore.core.batch",
    "lightscore.metric": "lightscore.core.metric",
    "lightscore.distributed": "lightscore.core.distributed",
    "lightscore.runner": "lightscore.core.runner",
    "lightscore.targets": "lightscore.core.targets",
    "lightscore.metrics.audio_files": "lightscore.audio.files",
    "lightscore.metrics.signal": "lightscore.audio.signal",
    "lightscore.metrics.signal_checks": "lightscore.audio.checks",
    "lightscore.metrics.mel_cepstrum": "lightscore.audio.mel_cepstrum",
    "lightscore.metrics.world_pitch": "lightscore.audio.world_pitch",
    "lightscore.metrics.pesq_stoi": "lightscore.audio.pesq_stoi",
    "lightscore.metrics.speech_quality": "lightscore.audio.speech_quality",
    "lightscore.metrics.audio_measures": "lightscore.audio.measures",
    "lightscore.metrics.embedders": "lightscore.audio.embedders",
    "lightscore.callback_args": "lightscore.lightning.args",
    "lightscore.padding": "lightscore.lightning.padding",
    "lightscore.tally": "lightscore.lightning.tally",
    "lightscore.samples": "lightscore.lightning.samples",
    "lightscore.measure": "lightscore.offline.stage",
    "lightscore.config": "lightscore.offline.config",
    "lightscore.dataset_columns": "lightscore.offline.dataset_columns",
    "lightscore.results": "lightscore.offline.results",
    "lightscore.compare": "lightscore.offline.compare",
    "lightscore.cli_commands": "lightscore.cli.commands",
    "lightscore.cli_output": "lightscore.cli.output",
    # text/ became family packages (issue 37)
    "lightscore.text.sclite_align": "lightscore.text.sclite.align",
    "lightscore.text.sclite_traceback": "lightscore.text.sclite.traceback",
    "lightscore.text.sclite_case": "lightscore.text.sclite.case",
    "lightscore.text.sclite_markup": "lightscore.text.sclite.markup",
    "lightscore.text.sclite_network": "lightscore.text.sclite.network",
    "lightscore.text.sclite_encode": "lightscore.text.sclite.encode",
    "lightscore.text.sclite_batch": "lightscore.text.sclite.batch",
    "lightscore.text.sclite_columns": "lightscore.text.sclite.columns",
    "lightscore.text.trn": "lightscore.text.sclite.trn",
    "lightscore.text.cjk": "lightscore.text.sclite.cjk",
    "lightscore.text.stm_ctm": "lightscore.text.hubscr.stm_ctm",
    "lightscore.text.stm_ctm_names": "lightscore.text.hubscr.names",
    "lightscore.text.glm": "lightscore.text.hubscr.glm",
    "lightscore.text.glm_cursor": "lightscore.text.hubscr.glm_cursor",
    "lightscore.text.ctm_networks": "lightscore.text.hubscr.ctm_networks",
    "lightscore.text.hubscr_languages": "lightscore.text.hubscr.languages",
    "lightscore.text.ctm_words": "lightscore.text.hubscr.ctm_words",
    "lightscore.text.ctm_fields": "lightscore.text.hubscr.ctm_fields",
    "lightscore.text.spacing": "lightscore.text.hubscr.spacing",
    "lightscore.text.mt_tokenize": "lightscore.text.mt.tokenizers",
    "lightscore.text.token_ids": "lightscore.text.mt.token_ids",
    "lightscore.text.ngram_counts": "lightscore.text.mt.ngram_counts",
    "lightscore.text.ngram_match": "lightscore.text.mt.ngram_match",
    "lightscore.text.bleu_stats": "lightscore.text.mt.bleu",
    "lightscore.text.chrf_stats": "lightscore.text.mt.chrf",
    "lightscore.text.ter_stats": "lightscore.text.mt.ter",
    "lightscore.text.ter_beam": "lightscore.text.mt.ter_beam",
    "lightscore.text.ter_bounds": "lightscore.text.mt.ter_bounds",
    "lightscore.text.multispeaker": "lightscore.text.meeting.assignment",
    "lightscore.text.time_constrained": "lightscore.text.meeting.time_constrained",
    "lightscore.text.tc_bands": "lightscore.text.meeting.tc_bands",
}
# lightscore.text.hubscr was the pipeline module and is now its family's package, which re-exports the
# pipeline's public names, so that path needs no entry.


class _MovedLoader(importlib.abc.Loader):
    def __init__(self, new_name: str) -> None:
        self.new_name = new_name

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        warnings.warn(f"{spec.name} moved to {self.new_name}; import it from there", DeprecationWarning, stacklevel=2)
        return importlib.import_module(self.new_name)

    def exec_module(self, module: ModuleType) -> None:
        # The import system has just stamped the old name's spec on the shared module; give it back its own,
        # so the module keeps one identity whichever path imported it.
        module.__spec__ = sys.modules[self.new_name].__spec__
        module.__loader__ = module.__spec__.loader


class _MovedFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):  # noqa: ANN001 (the finder protocol's signature)
        new_name = MOVED.get(fullname)
        if new_name is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _MovedLoader(new_name))


def install() -> None:
    """Put the finder last on ``sys.meta_path`` (once), so a module that exists always wins."""
    if not any(isinstance(finder, _MovedFinder) for finder in sys.meta_path):
        sys.meta_path.append(_MovedFinder())
