"""sclite's files (trn, stm + ctm) bound as inputs in a metrics YAML, as ``lightscore score`` reads them.

An entry whose ``ref`` and ``hyp`` sources end in ``.trn`` (both) or ``.stm`` and
``.ctm`` names those files in each test set's folder instead of SCP stems::

    metrics:
      - metric: {_target_: lightscore.metrics.WER}
        inputs: {ref: ref.stm, hyp: hyp.ctm}
        glm: en20030506            # optional: csrfilt on both sides, as hubscr
        language: spanish          # optional: hubscr's -l (english, spanish, italian, arabic)

For each test set, rank 0 turns the files into SCP files
(`lightscore.offline.sclite_inputs.sclite_scps`) in the hidden folder
``<test>/.sclite/<ref>-<hyp>/``, and the metric is built for that test set with
the options that score them as sclite (markup; for stm/ctm ``-D -F`` and the
stm speakers as ``utt2spk``). Options the entry sets itself win.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lightscore.offline.sclite_inputs import FORMAT_OPTIONS, input_format, sclite_scps, stm_options

__all__ = ["SCLITE_SUFFIXES", "ScliteBinding", "format_options", "sclite_binding"]

SCLITE_SUFFIXES = (".trn", ".stm", ".ctm")


@dataclass(frozen=True)
class ScliteBinding:
    """One entry's sclite files: their format, the GLM, the metric config built per test set (its utt2spk), and
    hubscr's language."""

    fmt: str
    glm: str | None
    metric_node: Any
    language: str = "english"

    def bind(self, sources: Mapping[str, str], test_dir: Path, write: bool) -> tuple[dict[str, Path], dict[str, Any]]:
        """The ``ref`` and ``hyp`` SCP files of one test set and the metric options that score them as sclite.

        Args:
            sources: The entry's input name -> source (``ref.stm``, ``hyp.ctm``).
            test_dir: The test set's folder, which holds the sclite files.
            write: Write the SCP files (rank 0); the other ranks find them written (measure's barrier).

        Returns:
            ``(data, options)``: ``ref`` and ``hyp`` -> SCP file, and the options for the metric.

        Raises:
            FileNotFoundError: a sclite file is missing from ``test_dir``.
            TrnError, StmCtmError: a malformed line (file and line named).
        """
        ref, hyp = (test_dir / sources[name] for name in ("ref", "hyp"))
        for path in (ref, hyp):
            if not path.is_file():
                raise FileNotFoundError(f"{path}: no such file (bound as {self.fmt} input)")
        out = test_dir / ".sclite" / f"{Path(sources['ref']).stem}-{Path(sources['hyp']).stem}"
        if write:
            shutil.rmtree(out, ignore_errors=True)  # a failed conversion must not leave an earlier run's files
            inputs = sclite_scps(ref, hyp, out, self.fmt, self.glm, self.language)
            data, utt2spk = {"ref": inputs.ref, "hyp": inputs.hyp}, inputs.utt2spk
        else:
            data = {"ref": out / "ref.scp", "hyp": out / "hyp.scp"}
            utt2spk = out / "utt2spk" if self.fmt == "stm" else None
        options = format_options(self.fmt, self.language)
        if utt2spk is not None:
            options["utt2spk"] = str(utt2spk)
        return data, options


def format_options(fmt: str, language: str = "english") -> dict[str, Any]:
    """The metric options that score ``fmt`` as sclite, without ``case``: the stm/ctm texts come folded as sclite folds
    (kept for a language whose sclite keeps the case, Arabic's ``-s``).

    >>> format_options("trn"), format_options("stm", "arabic")["case"]
    ({'markup': True, 'aligner': 'sclite'}, 'sensitive')
    """
    options = stm_options(language) if fmt == "stm" else FORMAT_OPTIONS[fmt]
    return {key: value for key, value in options.items() if key != "case" or value == "sensitive"}


def sclite_binding(node: Any, sources: Mapping[str, str], where: str) -> ScliteBinding | None:
    """The entry's `ScliteBinding` when its ``ref``/``hyp`` sources are sclite files, else None.

    Raises:
        ValueError: only one side is a sclite file, the pair is not trn/trn or stm/ctm, or ``glm`` is set
            for anything but stm + ctm.

    >>> sclite_binding({"metric": {}}, {"ref": "ref", "hyp": "hyp"}, "m") is None
    True
    >>> sclite_binding({"metric": {}}, {"ref": "ref.stm", "hyp": "hyp.ctm"}, "m").fmt
    'stm'
    """
    glm, language = node.get("glm", None), node.get("language", "english")
    sides = [str(sources.get(name, "")) for name in ("ref", "hyp")]
    marked = [Path(s).suffix.lower() in SCLITE_SUFFIXES for s in sides]
    if not any(marked):
        if glm is not None:
            raise ValueError(f"{where}: glm filters stm and ctm inputs (inputs: {{ref: ref.stm, hyp: hyp.ctm}})")
        if language != "english":
            raise ValueError(
                f"{where}: language (hubscr's -l) is for stm and ctm inputs (inputs: {{ref: ref.stm, ...}})"
            )
        return None
    if not all(marked):
        got = f"got {sides[0]!r}, {sides[1]!r}"
        raise ValueError(f"{where}: ref and hyp are both sclite files (.trn/.trn or .stm/.ctm), {got}")
    try:
        fmt = input_format(*sides)
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None
    if glm is not None and (fmt != "stm" or not isinstance(glm, str)):
        raise ValueError(f"{where}: glm (a GLM name or path) filters stm and ctm inputs, got {glm!r} for {fmt}")
    if language != "english" and fmt != "stm":
        raise ValueError(f"{where}: language (hubscr's -l) is for stm and ctm inputs, got {language!r} for {fmt}")
    try:
        stm_options(str(language))
    except ValueError as e:
        raise ValueError(f"{where}: language: {e}") from None
    return ScliteBinding(fmt, glm, node["metric"], str(language))
