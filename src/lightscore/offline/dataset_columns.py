"""``dataset:<column>`` sources: one column of a test set's dataset, written as an SCP file.

A map-style dataset (``len(dataset)``, ``dataset[i]``) whose items are dicts
with an utterance id under ``idx_key`` becomes ``<test_dir>/dataset/<column>.scp``:

- text (or a number) goes inline: ``utt_id value``;
- audio, a ``(waveform, rate)`` pair or a ``{"array", "sampling_rate"}`` dict
  (numpy or torch, 1-D or channels-first 2-D), becomes
  ``<test_dir>/dataset/<column>/<utt_id>.wav`` and the line holds that path.

Every file is built in a hidden temporary place and moved into place only when
the whole column is done, so a bad id or value leaves nothing behind. The SCP
file is reused while ``<column>.fingerprint`` (a hash of the dataset config, the
column, ``idx_key`` and the audio options) still matches.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lightscore.core.targets import build_target
from lightscore.scp.files import atomic_open, check_utt_id, write_scp
from lightscore.scp.lines import check_name

if TYPE_CHECKING:  # numpy, soundfile and torchaudio load only when a column is written
    import numpy as np

__all__ = [
    "AUDIO_OPTIONS",
    "DatasetColumns",
    "as_audio",
    "audio_options",
    "column_scp",
    "fingerprint",
    "refuse_link",
    "write_column",
]

AUDIO_OPTIONS = {"sample_rate": None, "subtype": "PCM_16"}


def audio_options(options: Mapping[str, Any] | None, where: str = "dataset_artifacts") -> dict[str, Any]:
    """Check one column's ``dataset_artifacts`` block; return it with the defaults filled in.

    ``sample_rate`` (None keeps each utterance's own rate) and ``subtype``
    (a soundfile WAV subtype, PCM_16 by default).

    >>> audio_options({"sample_rate": 16000})
    {'sample_rate': 16000, 'subtype': 'PCM_16'}
    >>> audio_options({"rate": 16000}, "dataset_artifacts.speech")
    Traceback (most recent call last):
    ...
    ValueError: dataset_artifacts.speech: unknown key(s) rate (known: sample_rate, subtype)
    """
    options = dict(options or {})
    unknown = [key for key in options if key not in AUDIO_OPTIONS]
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {', '.join(unknown)} (known: {', '.join(AUDIO_OPTIONS)})")
    merged = {**AUDIO_OPTIONS, **options}
    rate = merged["sample_rate"]
    if rate is not None and (isinstance(rate, bool) or not isinstance(rate, int) or rate <= 0):
        raise ValueError(f"{where}.sample_rate: must be a positive int, got {rate!r}")
    import soundfile

    if not isinstance(merged["subtype"], str) or not soundfile.check_format("WAV", merged["subtype"]):
        known = ", ".join(soundfile.available_subtypes("WAV"))
        raise ValueError(f"{where}.subtype: {merged['subtype']!r} is not a WAV subtype ({known})")
    return merged


def fingerprint(
    dataset_config: Mapping[str, Any], column: str, idx_key: str, options: Mapping[str, Any], scp_path: Path
) -> str:
    """A hash of everything that decides a column file's content, its WAV paths included.

    >>> p = Path("/exp/decode/dev/dataset/text.scp")
    >>> a = fingerprint({"_target_": "m.D", "split": "dev"}, "text", "utt_id", {}, p)
    >>> a == fingerprint({"split": "dev", "_target_": "m.D"}, "text", "utt_id", {}, p)
    True
    >>> a == fingerprint({"_target_": "m.D", "split": "test"}, "text", "utt_id", {}, p)
    False
    """
    blob = {
        "format": 1,
        "dataset": dataset_config,
        "column": column,
        "idx_key": idx_key,
        "options": options,
        "path": str(scp_path.resolve()),
    }
    text = json.dumps(blob, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def column_scp(
    test_dir: str | os.PathLike,
    column: str,
    dataset_config: Mapping[str, Any],
    build_dataset: Callable[[], Any],
    *,
    idx_key: str = "utt_id",
    options: Mapping[str, Any] | None = None,
) -> Path:
    """Return ``<test_dir>/dataset/<column>.scp``, writing it unless the cached one still fits.

    ``build_dataset`` is called only when the file must be (re)written.

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> rows = [{"utt_id": "u1", "text": "the cat"}, {"utt_id": "u2", "text": "a dog"}]
    >>> p = column_scp(d, "text", {"_target_": "demo"}, lambda: rows)
    >>> p.relative_to(d).as_posix(), p.read_text()
    ('dataset/text.scp', 'u1 the cat\\nu2 a dog\\n')
    >>> column_scp(d, "text", {"_target_": "demo"}, lambda: 1 / 0) == p  # cached: not rebuilt
    True
    """
    check_name(column, "column name", "dataset:<column>")
    options = audio_options(options)
    scp_path = Path(test_dir) / "dataset" / f"{column}.scp"
    stamp = scp_path.with_suffix(".fingerprint")
    refuse_link(stamp)
    expected = fingerprint(dict(dataset_config), column, idx_key, options, scp_path)
    if scp_path.is_file() and stamp.is_file() and stamp.read_text().strip() == expected:
        return scp_path
    # Forget the old fingerprint first: a crash mid-write must not make a new file look cached.
    stamp.unlink(missing_ok=True)
    write_column(build_dataset(), column, scp_path, idx_key=idx_key, options=options)
    with atomic_open(stamp) as f:
        f.write(expected + "\n")
    return scp_path


def refuse_link(path: Path) -> None:
    """Raise ValueError when ``path`` is a symbolic link: lightscore never deletes or writes through one.

    A ``dataset/<column>`` folder that links to a user's folder would otherwise be
    emptied and refilled with WAVs.

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> (d / "speech").symlink_to(d / "elsewhere")
    >>> refuse_link(d / "speech")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: .../speech is a symbolic link (to .../elsewhere); lightscore writes only real files and folders ...
    """
    if path.is_symlink():
        raise ValueError(
            f"{path} is a symbolic link (to {os.readlink(path)}); lightscore writes only real files and folders "
            "under inference_dir and never deletes or writes through a link: remove the link and run again"
        )


def write_column(
    dataset: Any, column: str, scp_path: Path, *, idx_key: str = "utt_id", options: Mapping[str, Any] | None = None
) -> Path:
    """Write one column of ``dataset`` to ``scp_path`` (and its WAVs to the folder beside it).

    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "text.scp"
    >>> write_column([{"utt_id": "../x", "text": "a"}], "text", p)
    Traceback (most recent call last):
    ...
    ValueError: dataset item 0 (list): utterance id '../x' is not a plain token ...
    >>> p.exists()
    False
    """
    options = audio_options(options)
    wav_dir = Path(os.path.abspath(scp_path.parent / scp_path.stem))  # absolute: lines work from anywhere
    for path in (scp_path.parent, wav_dir, scp_path):
        refuse_link(path)
    scp_path.parent.mkdir(parents=True, exist_ok=True)
    tmp_dir = Path(tempfile.mkdtemp(dir=scp_path.parent, prefix=f".{scp_path.stem}.", suffix=".tmp"))
    try:
        rows = list(_rows(dataset, column, idx_key, tmp_dir, wav_dir, options))
        shutil.rmtree(wav_dir, ignore_errors=True)
        if any(tmp_dir.iterdir()):
            os.replace(tmp_dir, wav_dir)
        write_scp(scp_path, rows)
    finally:
        shutil.rmtree(tmp_dir, ignore_errors=True)
    return scp_path


def _rows(
    dataset: Any, column: str, idx_key: str, tmp_dir: Path, wav_dir: Path, options: Mapping[str, Any]
) -> Iterator[tuple[str, str]]:
    """Yield ``(utt_id, SCP value)`` per item, writing each audio value as a WAV into ``tmp_dir``."""
    seen: set[str] = set()
    kinds: set[bool] = set()
    wav_owners: dict[tuple[int, int], str] = {}  # (device, inode) of each WAV written -> its utterance id
    for index in range(len(dataset)):
        item = dataset[index]
        where = f"dataset item {index} ({type(dataset).__qualname__})"
        utt_id = _item_id(item, idx_key, where)
        where = f"{where}, utterance {utt_id!r}"
        if utt_id in seen:
            raise ValueError(f"{where}: the id appears twice in the dataset")
        seen.add(utt_id)
        if column not in item:
            raise ValueError(f"{where}: no column {column!r} (columns: {', '.join(map(str, item))})")
        audio = as_audio(item[column], where)
        kinds.add(audio is not None)
        if len(kinds) > 1:
            raise ValueError(f"{where}: column {column!r} mixes audio and text values")
        if audio is None:
            yield utt_id, _text(item[column], column, where)
        else:
            # No atomic_open per WAV: the whole temporary folder is moved into place at the end.
            from lightscore.audio.files import check_file_name, write_wav  # torch loads only for audio columns

            check_file_name(tmp_dir / f"{utt_id}.wav", f"{where}: ")  # before any look at the path
            wav = _free_wav_path(tmp_dir, utt_id, wav_owners, where)
            write_wav(wav, *audio, options, where)
            wav_owners[_file_key(wav, where)] = utt_id
            yield utt_id, str(wav_dir / f"{utt_id}.wav")


def _free_wav_path(tmp_dir: Path, utt_id: str, owners: Mapping[tuple[int, int], str], where: str) -> Path:
    """``<tmp_dir>/<utt_id>.wav``, unless the file system maps it onto the WAV of an earlier id (then ValueError)."""
    path = tmp_dir / f"{utt_id}.wav"
    if path.exists():  # a case-insensitive or normalizing file system: two ids, one file
        earlier = owners.get(_file_key(path, where), "an earlier id")
        raise ValueError(
            f"{where}: its WAV {path.name!r} would overwrite that of utterance {earlier!r}: this file system does "
            "not tell the two ids apart (letter case or Unicode form); give the utterances ids that differ by more"
        )
    return path


def _file_key(path: Path, where: str) -> tuple[int, int]:
    """``(device, inode)`` of a WAV just written; ValueError when it is not under its own name."""
    try:
        info = path.stat()
    except FileNotFoundError:
        raise ValueError(f"{where}: its WAV was not written under its own name {path.name!r}") from None
    return info.st_dev, info.st_ino


def _item_id(item: Any, idx_key: str, where: str) -> str:
    if not isinstance(item, Mapping):
        raise ValueError(f"{where}: items must be dicts, got {type(item).__name__}")
    if idx_key not in item:
        raise ValueError(f"{where}: no id under {idx_key!r} (keys: {', '.join(map(str, item))}); set idx_key")
    return check_utt_id(str(item[idx_key]), where)


def _text(value: Any, column: str, where: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise ValueError(
        f"{where}: column {column!r} holds a {type(value).__name__}; expected text, a number, "
        "a (waveform, rate) pair or a {'array', 'sampling_rate'} dict"
    )


def as_audio(value: Any, where: str = "") -> tuple[np.ndarray, int] | None:
    """Return ``(waveform, rate)`` if ``value`` is audio, else None; the waveform as float32, channels first.

    >>> wave, rate = as_audio({"array": [0.0, 0.5], "sampling_rate": 8000})
    >>> wave.dtype, wave.shape, rate
    (dtype('float32'), (2,), 8000)
    >>> import numpy as np
    >>> as_audio((np.zeros(3), 16000))[1]
    16000
    >>> as_audio("the cat") is None
    True
    """
    import numpy as np

    if isinstance(value, Mapping) and "array" in value and "sampling_rate" in value:
        wave, rate = value["array"], value["sampling_rate"]
    elif isinstance(value, (tuple, list)) and len(value) == 2 and hasattr(value[0], "shape"):
        wave, rate = value
    else:
        return None
    if hasattr(wave, "detach"):  # a torch tensor, converted without importing torch here
        wave = wave.detach().cpu().numpy()
    wave = np.asarray(wave)
    if wave.ndim not in (1, 2) or wave.dtype.kind != "f":
        raise ValueError(
            f"{where}: audio must be a float waveform of shape (time,) or (channels, time), "
            f"got dtype {wave.dtype} and shape {wave.shape}"
        )
    is_rate = isinstance(rate, (int, float, np.integer, np.floating)) and not isinstance(rate, bool)
    if not is_rate or rate <= 0 or int(rate) != rate:
        raise ValueError(f"{where}: audio sampling rate must be a positive integer, got {rate!r}")
    return wave.astype(np.float32, copy=False), int(rate)


class DatasetColumns:
    """Gives ``dataset:<column>`` SCP files of a run, building each test set's dataset at most once.

    ``tests`` are `lightscore.offline.config.TestSet` (``name``, ``dataset`` config,
    ``idx_key``); ``options`` maps a column to its ``dataset_artifacts`` block.

    >>> import tempfile
    >>> from types import SimpleNamespace
    >>> d = Path(tempfile.mkdtemp())
    >>> test = SimpleNamespace(name="dev", idx_key="utt_id",
    ...                        dataset={"_target_": "builtins.list", "_args_": [[{"utt_id": "u1", "text": "hi"}]]})
    >>> DatasetColumns(d, [test], {}).scp("dev", "text").read_text()
    'u1 hi\\n'
    """

    def __init__(self, inference_dir: Path, tests: Sequence[Any], options: Mapping[str, Mapping]) -> None:
        self.inference_dir = inference_dir
        self.tests = {t.name: t for t in tests}
        self.options = options
        self.built: dict[str, Any] = {}

    def dataset(self, test_name: str) -> Any:
        """The test set's dataset, built from its ``_target_`` config on first use."""
        if test_name not in self.built:
            test = self.tests[test_name]
            self.built[test_name] = build_target(
                test.dataset, f"dataset of test set {test.name}", allowed=callable, what="callable"
            )
        return self.built[test_name]

    def scp(self, test_name: str, column: str) -> Path:
        """``<inference_dir>/<test_name>/dataset/<column>.scp``, written unless the cached one still fits."""
        test = self.tests[test_name]
        return column_scp(
            self.inference_dir / test_name,
            column,
            test.dataset,
            lambda: self.dataset(test_name),
            idx_key=test.idx_key,
            options=self.options.get(column),
        )
