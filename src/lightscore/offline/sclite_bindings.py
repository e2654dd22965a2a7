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
``<test>/.sclite/<ref>-<hyp>-<key>/``, and the metric is built for that test set with
the options that score them as sclite (markup; for stm/ctm ``-D -F`` and the
stm speakers as ``utt2spk``). Options the entry sets itself win.

The ``<key>`` (`conversion_key`) is a hash of everything the folder's content
depends on: the format, the bytes of both files, the GLM's bytes, the language
and the lightscore version. Entries with different GLMs or languages therefore
get folders of their own, and a folder is never changed once made: it is built
beside its place and renamed into it whole, so a concurrent ``measure`` run
finds either no folder (and builds its own) or a complete one, which it reuses.
No link is followed: the test set's folder, ``.sclite`` and the conversion
folder must be real folders (`lightscore.offline.dataset_columns.refuse_link`).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lightscore.offline.dataset_columns import refuse_link
from lightscore.offline.sclite_inputs import FORMAT_OPTIONS, input_format, sclite_scps, stm_options

__all__ = [
    "SCLITE_SUFFIXES",
    "ScliteBinding",
    "conversion_folder",
    "conversion_key",
    "convert_once",
    "format_options",
    "sclite_binding",
]

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
        case = self.metric_node.get("case", None)  # how trn ids match: as written under sclite -s, else folded
        out = conversion_folder(test_dir, ref, hyp, self.fmt, self.glm, self.language, case)
        if write:
            convert_once(out, lambda folder: sclite_scps(ref, hyp, folder, self.fmt, self.glm, self.language, case))
        data = {"ref": out / "ref.scp", "hyp": out / "hyp.scp"}
        utt2spk = out / "utt2spk" if self.fmt == "stm" else None
        options = format_options(self.fmt, self.language)
        if utt2spk is not None:
            options["utt2spk"] = str(utt2spk)
        return data, options


CONVERSION_NAME_LIMIT = 80
"""Characters of the ref and hyp stems kept in a conversion folder's name (the key makes it unique)."""


def _file_sha1(path: Path) -> str:
    digest = hashlib.sha1()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def conversion_key(ref: Path, hyp: Path, fmt: str, glm: str | None, language: str, case: str | None = None) -> str:
    """16 hex digits of a hash of everything the SCP files made from ``ref`` and ``hyp`` depend on.

    That is the format, the bytes of both files, the bytes of the GLM (a shipped one by name or a file),
    the language, for trn the metric's case (its ids folded or not) and the lightscore version (whose code
    converts).

    Raises:
        lightscore.text.hubscr.glm.GlmError: ``glm`` is neither a shipped GLM nor a file.

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> _ = (d / "r.trn").write_text("a (u)\\n"); _ = (d / "h.trn").write_text("b (u)\\n")
    >>> len(conversion_key(d / "r.trn", d / "h.trn", "trn", None, "english"))
    16
    >>> conversion_key(d / "r.trn", d / "h.trn", "trn", None, "english") == conversion_key(
    ...     d / "h.trn", d / "r.trn", "trn", None, "english")
    False
    """
    from lightscore import __version__

    made_from = {"fmt": fmt, "ref": _file_sha1(ref), "hyp": _file_sha1(hyp), "language": language}
    if fmt == "trn":
        made_from["case"] = case
    if glm is not None:
        from lightscore.text.hubscr.glm import glm_path

        made_from["glm"] = _file_sha1(glm_path(glm))
    made_from["lightscore"] = __version__
    return hashlib.sha1(json.dumps(made_from, sort_keys=True).encode()).hexdigest()[:16]


def conversion_folder(
    test_dir: Path, ref: Path, hyp: Path, fmt: str, glm: str | None, language: str, case: str | None = None
) -> Path:
    """``<test_dir>/.sclite/<ref stem>-<hyp stem>-<conversion_key>``, checked to hold no symbolic link.

    Raises:
        ValueError: ``test_dir``, its ``.sclite`` or the folder is a symbolic link (nothing is written through one).
    """
    stems = f"{ref.stem}-{hyp.stem}"[:CONVERSION_NAME_LIMIT]
    out = test_dir / ".sclite" / f"{stems}-{conversion_key(ref, hyp, fmt, glm, language, case)}"
    for path in (test_dir, out.parent, out):
        refuse_link(path)
    return out


def convert_once(out: Path, convert: Callable[[Path], object]) -> None:
    """Make the folder ``out`` with ``convert(folder)`` unless it exists: built beside it, then renamed into place.

    A folder named by its `conversion_key` is complete once it exists (a rename makes it appear whole) and its
    content never changes, so an existing one is kept as it is, and a concurrent run that renamed its own first
    wins: the copy built here is dropped.

    Raises:
        Whatever ``convert`` raises; nothing is left at ``out`` then.

    >>> import tempfile
    >>> out = Path(tempfile.mkdtemp()) / ".sclite" / "r-h-0123"
    >>> convert_once(out, lambda folder: (folder / "ref.scp").write_text("u a\\n"))
    >>> convert_once(out, lambda folder: 1 / 0)  # made already: not made again
    >>> sorted(p.name for p in out.parent.iterdir())
    ['r-h-0123']
    """
    if out.is_dir():
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    refuse_link(out.parent)  # a link made between the check and here
    building = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.", suffix=".building"))
    try:
        convert(building)
        try:
            os.rename(building, out)
        except OSError as e:
            if e.errno not in (errno.ENOTEMPTY, errno.EEXIST) or not out.is_dir():
                raise  # not a concurrent run's finished folder
    finally:
        with contextlib.suppress(FileNotFoundError):
            shutil.rmtree(building)


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
