"""sclite's input files (trn, stm + ctm) as the SCP files every error-rate road reads, with the options to score them.

`sclite_scps` turns a reference and a hypothesis file into ``ref.scp`` and
``hyp.scp`` (and for stm an ``utt2spk``, speakers from the stm), plus the
metric options that make `lightscore.metrics.WER` count what sclite counts:

- trn (``text (utt_id)``): sclite reads both sides' markup, so ``markup=True``;
  the rows are the hypothesis's utterances, in its order (sclite looks each up
  in the reference).
- stm + ctm: ``hubscr``'s segments (`lightscore.text.hubscr.pipeline.hubscr_rows`: the
  GLM on both sides, words given to segments by time), scored with sclite's
  ``-F -D`` and case folding.

The command line (``lightscore score ref.stm hyp.ctm --glm en20030506``) and a
metrics YAML can both bind these SCP files.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from operator import itemgetter
from pathlib import Path
from typing import Any, NamedTuple

from lightscore.scp import write_scp
from lightscore.text.sclite.trn import SCLITE_FORMATS, TrnError, read_trn

__all__ = [
    "FORMAT_OPTIONS",
    "SCLITE_FORMATS",
    "SCliteInputs",
    "add_segments",
    "counts_directly",
    "input_format",
    "score_segments",
    "sclite_scps",
    "segments_reference",
    "stm_note",
]

FORMAT_OPTIONS: dict[str, dict[str, Any]] = {
    "trn": {"markup": True, "aligner": "sclite"},
    "stm": {"markup": True, "optional_deletable": True, "fragments": True, "aligner": "sclite", "case": "sclite"},
}
"""The `lightscore.metrics.WER` options that score each format as sclite (stm: hubscr's ``sclite -F -D``)."""


def stm_options(language: str = "english") -> dict[str, Any]:
    """``FORMAT_OPTIONS["stm"]`` for ``hubscr -l language``: its sclite keeps the case for Arabic (``-s``).

    Raises:
        ValueError: a language not scored (`lightscore.text.hubscr.languages.language`).

    >>> stm_options("arabic")["case"], stm_options()["case"]
    ('sensitive', 'sclite')
    """
    from lightscore.text.hubscr.languages import language as hubscr_language

    sensitive = hubscr_language(language).case == "sensitive"
    return {**FORMAT_OPTIONS["stm"], **({"case": "sensitive"} if sensitive else {})}


class SCliteInputs(NamedTuple):
    """The SCP files to score and the `lightscore.metrics.WER` options that score them as sclite."""

    ref: Path
    hyp: Path
    utt2spk: Path | None
    options: dict[str, Any]
    prepared: str = ""  # how the files were made, for beside the metric's settings(): "stm/ctm as hubscr, GLM ..."


def input_format(ref: str | os.PathLike, hyp: str | os.PathLike, fmt: str | None = None) -> str:
    """``scp``, ``trn`` or ``stm``: ``fmt`` when given, else from the files' suffixes.

    Raises:
        ValueError: an unknown ``fmt``, an stm reference without a ctm hypothesis, or a ctm without an stm.

    >>> input_format("ref.trn", "hyp.trn"), input_format("ref.stm", "hyp.ctm"), input_format("ref", "hyp")
    ('trn', 'stm', 'scp')
    """
    if fmt is not None and fmt not in SCLITE_FORMATS:
        raise ValueError(f"input format {fmt!r} is not one of {', '.join(SCLITE_FORMATS)}")
    ref_suffix, hyp_suffix = Path(ref).suffix.lower(), Path(hyp).suffix.lower()
    found = fmt or {".trn": "trn", ".stm": "stm"}.get(ref_suffix, "scp")
    if (found == "stm") != (hyp_suffix == ".ctm" or fmt == "stm"):
        raise ValueError(f"an stm reference is scored against a ctm hypothesis: got {ref} and {hyp}")
    return found


def sclite_scps(
    ref: str | os.PathLike,
    hyp: str | os.PathLike,
    out_dir: str | os.PathLike,
    fmt: str | None = None,
    glm: str | os.PathLike | None = None,
    language: str = "english",
    case: str | None = None,
) -> SCliteInputs:
    """Write ``ref.scp`` and ``hyp.scp`` for sclite's input files; return them with the options that score them.

    Args:
        ref: A trn or stm reference (an SCP file is returned as it is).
        hyp: The trn or ctm hypothesis.
        out_dir: Where the SCP files go.
        fmt: ``trn`` or ``stm`` when the suffixes do not tell (`input_format`).
        glm: For stm + ctm: a GLM by name (`lightscore.text.hubscr.glm.GLMS`) or path, applied to both
            sides as hubscr does; None filters nothing.
        language: For stm + ctm: hubscr's ``-l`` (`lightscore.text.hubscr.languages`).
        case: For trn: the metric's ``case``, which says how ids match (`lightscore.text.sclite.trn.read_trn`):
            ``sensitive`` as written (sclite ``-s``), else folded as sclite folds them; None: the trn default,
            ``sclite``.

    Returns:
        `SCliteInputs`; ``options`` go to `lightscore.metrics.WER` beside the caller's own.

    Raises:
        lightscore.text.sclite.trn.TrnError: a malformed trn line, or a hypothesis id the reference lacks.
        lightscore.text.hubscr.stm_ctm.StmCtmError: a malformed stm or ctm line.
        ValueError: a GLM or a language given for trn or SCP input, or a language not scored.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "ref.trn").write_text("{ um / uh } yes (s-1)\\n"); _ = (d / "hyp.trn").write_text("uh yes (s-1)\\n")
    >>> inputs = sclite_scps(d / "ref.trn", d / "hyp.trn", d / "scp")
    >>> inputs.ref.read_text(), inputs.options
    ('s-1 { um / uh } yes\\n', {'markup': True, 'aligner': 'sclite'})
    """
    found = input_format(ref, hyp, fmt)
    if glm is not None and found != "stm":
        raise ValueError(f"a GLM filters stm and ctm files (as hubscr), not {found} input")
    if language != "english" and found != "stm":
        raise ValueError(f"a language is hubscr's -l, for stm and ctm files, not {found} input")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if found == "scp":
        return SCliteInputs(Path(ref), Path(hyp), None, {})
    if found == "trn":
        refs = dict(read_trn(ref, case or "sclite"))
        rows = list(read_trn(hyp, case or "sclite"))
        missing = [utt_id for utt_id, _ in rows if utt_id not in refs]
        if missing:
            raise TrnError(f"{os.fspath(ref)}: no reference for utterance {missing[0]!r} of {os.fspath(hyp)}")
        scp_ref = write_scp(out / "ref.scp", ((utt_id, refs[utt_id]) for utt_id, _ in rows))
        options = dict(FORMAT_OPTIONS["trn"])
        return SCliteInputs(scp_ref, write_scp(out / "hyp.scp", rows), None, options, "trn (sclite's markup read)")
    from lightscore.text.hubscr.pipeline import hubscr_rows

    segments = hubscr_rows(ref, hyp, glm, language=language)
    scp_ref = write_scp(out / "ref.scp", ((s.utt_id, s.ref) for s in segments))
    scp_hyp = write_scp(out / "hyp.scp", ((s.utt_id, s.hyp) for s in segments))
    utt2spk = write_scp(out / "utt2spk", ((s.utt_id, s.speaker) for s in segments))
    return SCliteInputs(scp_ref, scp_hyp, utt2spk, stm_options(language), stm_note(glm, language))


def counts_directly(options: Mapping[str, Any]) -> bool:
    """Whether `score_segments` gives what `sclite_scps`' files give with these `lightscore.metrics.WER` options.

    It does when the texts would be scored as hubscr leaves them: the word error rate, no
    normalizer, substitutions or fillers, case folded as sclite folds (A-Z) or not at all, and no
    speakers to read (a whole-speaker bootstrap or a given ``utt2spk`` reads an ``utt2spk`` file).

    >>> counts_directly({"metric": "wer", "case": None, "normalize": "none"})
    True
    >>> counts_directly({"metric": "wer", "case": "fold", "normalize": "none"})
    False
    """
    return (
        options.get("metric", "wer") == "wer"
        and options.get("case") in (None, "sclite", "sensitive")
        and options.get("normalize", "none") == "none"
        and not any(options.get(key) for key in ("substitutions", "fillers", "block_bootstrap", "utt2spk"))
    )


def score_segments(
    metric: Any,
    ref: str | os.PathLike,
    hyp: str | os.PathLike,
    glm: str | os.PathLike | None,
    language: str = "english",
) -> str:
    """Score an stm reference and a ctm hypothesis as hubscr does straight into ``metric``, without SCP files.

    Args:
        metric: A `lightscore.metrics.WER` with ``FORMAT_OPTIONS["stm"]`` and options `counts_directly` takes.
        ref: The stm reference.
        hyp: The ctm hypothesis.
        glm: A GLM by name or path, or None.
        language: hubscr's ``-l``.

    Returns:
        How the input was made, as `sclite_scps` says it.

    Raises:
        lightscore.text.hubscr.stm_ctm.StmCtmError: a malformed stm or ctm line.
        lightscore.text.sclite.markup.MarkupError: a transcript the markup cannot read.
    """
    add_segments(metric, segments_reference(metric, ref, glm, language), hyp)
    return stm_note(glm, language)


def segments_reference(metric: Any, ref: str | os.PathLike, glm: str | os.PathLike | None, language: str) -> Any:
    """The `lightscore.text.hubscr.HubscrReference` `score_segments` scores against, for ``metric``'s switches: read
    once, it scores any number of ctm files (`add_segments`).

    Raises:
        lightscore.text.hubscr.stm_ctm.StmCtmError: a malformed stm line.
    """
    from lightscore.text.hubscr.pipeline import HubscrReference

    # The files' route folds as the language's sclite does, then as the metric does: A-Z if either folds.
    folds = metric.case == "sclite" or stm_options(language)["case"] == "sclite"
    case = "generic" if folds else "sensitive"
    return HubscrReference(ref, glm, case, metric.optional_deletable, metric.fragments, language)


def add_segments(metric: Any, reference: Any, hyp: str | os.PathLike) -> None:
    """Add the counts of ctm ``hyp`` against ``reference`` (`segments_reference`) to ``metric``.

    Raises:
        lightscore.text.hubscr.stm_ctm.StmCtmError: a malformed ctm line.
        lightscore.text.sclite.markup.MarkupError: a transcript the markup cannot read.
    """
    from lightscore.text.hubscr.pipeline import SegmentCounts

    counts = itemgetter(*map(SegmentCounts._fields.index, ("utt_id", "sub", "dele", "ins", "ref_len")))
    metric.add_counts(map(counts, reference.score(hyp)))  # the tuples taken in C: a corpus has tens of thousands


def stm_note(glm: str | os.PathLike | None, language: str) -> str:
    """How an stm/ctm pair was scored, printed beside the settings."""
    spoken = "" if language == "english" else f" -l {language}"
    return f"stm/ctm as hubscr{spoken}: {_glm_note(glm)}, words by midpoint"


def _glm_note(glm: str | os.PathLike | None) -> str:
    """The GLM as settings name it: its name or file and the first 8 hex digits of its sha1; "no GLM"."""
    if glm is None:
        return "no GLM"
    import hashlib

    from lightscore.text.hubscr.glm import glm_path

    path = glm_path(glm)
    return f"GLM {path.name} (sha1 {hashlib.sha1(path.read_bytes()).hexdigest()[:8]}) csrfilt -dh"
