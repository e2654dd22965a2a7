"""`Separation`: permutation-invariant SI-SDR, SDR and their improvements over the mixture, for 2 to 6 sources.

Its class path names its results in ``metrics.json``. The measures are
`lightscore.audio.separation`'s (the best speaker order by scipy's assignment,
equal to torchmetrics' ``permutation_invariant_training``). The sources come
as multi-channel WAVs (``layout="channels"``: inputs ``hyp`` and ``ref`` with
one channel per source) or one WAV per source (``layout="files"``: inputs
``hyp1``..``hypN``, ``ref1``..``refN``); the improvements need the mixture
(input ``mix``). Each utterance's value is summed as a fixed-point integer, so
N ranks give the single-run means bit for bit; with ``per_utterance`` the
records keep each utterance's values and the order chosen.

>>> import pathlib, tempfile
>>> import numpy as np, soundfile as sf
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> rng = np.random.default_rng(0)
>>> ref = 0.1 * rng.standard_normal((8000, 2))
>>> sf.write(d / "ref.wav", ref, 8000, subtype="FLOAT")
>>> sf.write(d / "hyp.wav", ref[:, ::-1] + 0.01 * rng.standard_normal((8000, 2)), 8000, subtype="FLOAT")
>>> sf.write(d / "mix.wav", ref.sum(axis=1), 8000, subtype="FLOAT")
>>> for name in ("hyp", "ref", "mix"):
...     _ = (d / f"{name}.scp").write_text(f"utt1 {d / (name + '.wav')}\\n")
>>> metric = Separation(["si_sdr", "si_sdri"], sample_rate=8000)
>>> result = metric({name: d / f"{name}.scp" for name in ("hyp", "ref", "mix")}, "test")
>>> {name: round(value, 1) for name, value in result.items()}
{'si_sdr': 20.0, 'si_sdri': 20.1}
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from lightscore._extras import require
from lightscore.audio.checks import check_rate
from lightscore.audio.files import read_audio, trim_to_common_length
from lightscore.audio.fixed_point import FIXED_POINT, to_fixed
from lightscore.audio.separation import MAX_SOURCES, MIN_SOURCES, SEPARATION_MEASURES, separation_scores
from lightscore.core.contract import Field, metric_name
from lightscore.core.metric import BaseMetric, RowError

__all__ = ["LABELS", "LAYOUTS", "Separation"]

LAYOUTS = ("channels", "files")
LABELS = {"si_sdr": "SI-SDR (dB)", "sdr": "SDR (dB)", "si_sdri": "SI-SDRi (dB)", "sdri": "SDRi (dB)"}


def _check_config(score_config: Any, sources: Any, layout: Any) -> list[str]:
    if isinstance(score_config, (str, bytes)) or not isinstance(score_config, Sequence):
        raise TypeError(f"Separation: score_config must be a list of measure names, got {score_config!r}")
    names = [str(name) for name in score_config]
    unknown = [name for name in names if name not in SEPARATION_MEASURES]
    if unknown or not names or len(set(names)) != len(names):
        raise ValueError(
            f"Separation: score_config must name each of {', '.join(SEPARATION_MEASURES)} at most once "
            f"(at least one), got {names}"
        )
    if isinstance(sources, bool) or not isinstance(sources, int) or not MIN_SOURCES <= sources <= MAX_SOURCES:
        raise ValueError(f"Separation: sources must be an int from {MIN_SOURCES} to {MAX_SOURCES}, got {sources!r}")
    if layout not in LAYOUTS:
        raise ValueError(f"Separation: layout must be one of {', '.join(LAYOUTS)}, got {layout!r}")
    return names


class Separation(BaseMetric):
    """Permutation-invariant separation measures of the estimated sources against the references.

    The declared outputs are exactly ``score_config``'s names, each the mean over
    utterances of the per-utterance value (itself the mean over sources under
    the best order). Estimates and references may differ in length by up to
    10% (the longer is trimmed); the mixture likewise.

    Args:
        score_config: Names of ``si_sdr``, ``sdr``, ``si_sdri``, ``sdri``, each once.
        sources: The number of sources, 2 to 6.
        layout: ``"channels"`` (one WAV per side, a channel per source) or ``"files"`` (a WAV per source).
        sample_rate: Every file is resampled to this rate (Hz) and scored at it.
        zero_mean: Remove each signal's mean before SI-SDR (SI-SNR).
        per_utterance: Keep each utterance's values and chosen order (a "cat" state), read by
            `utterance_records`.

    Raises:
        TypeError, ValueError: an unknown or repeated measure, a source count outside 2-6, an
            unknown layout or a bad rate.

    >>> [f.name for f in Separation(["sdr", "sdri"], sources=3, layout="files").inputs]
    ['hyp1', 'hyp2', 'hyp3', 'ref1', 'ref2', 'ref3', 'mix']
    >>> [(f.name, f.channels) for f in Separation(["si_sdr"], sources=3).inputs]
    [('hyp', 3), ('ref', 3)]
    >>> Separation(["si_sdr"], sources=7)
    Traceback (most recent call last):
    ...
    ValueError: Separation: sources must be an int from 2 to 6, got 7
    """

    def __init__(
        self,
        score_config: Sequence[str] = ("si_sdr", "si_sdri"),
        sources: int = 2,
        layout: str = "channels",
        sample_rate: int = 16000,
        zero_mean: bool = False,
        per_utterance: bool = False,
    ) -> None:
        require(type(self).__name__, "audio", "soundfile", "torch", "torchaudio")
        self.score_config = _check_config(score_config, sources, layout)
        self.sources = sources
        self.layout = layout
        self.sample_rate = check_rate(sample_rate)
        self.zero_mean = bool(zero_mean)
        self.per_utterance = bool(per_utterance)
        self.bases = [base for base in ("si_sdr", "sdr") if {base, base + "i"} & set(self.score_config)]
        self.needs_mix = any(name.endswith("i") for name in self.score_config)
        if layout == "channels":
            inputs = [Field("hyp", "audio", channels=sources), Field("ref", "audio", channels=sources)]
        else:
            inputs = [Field(f"{side}{k}", "audio") for side in ("hyp", "ref") for k in range(1, sources + 1)]
        self.inputs = (*inputs, *([Field("mix", "audio")] if self.needs_mix else []))
        self.outputs = tuple(Field(name, "number", label=LABELS[name]) for name in self.score_config)
        self.add_state("utterances", 0, "sum")
        for name in self.score_config:
            self.add_state(f"{name}_sum", 0, "sum")
        if self.per_utterance:
            self.add_state("utterance_scores", [], "cat")
        super().__init__()

    def read_sources(self, values: dict[str, Sequence[str]], row: int, side: str, where: str) -> np.ndarray:
        """One side's sources of one row as float64 ``(sources, time)``.

        Raises:
            ValueError: unreadable files, the wrong channel count, or per-source files of different lengths.
        """
        if self.layout == "channels":
            return read_audio(values[side][row], self.sources, self.sample_rate, where).double().numpy()
        waves = [read_audio(values[f"{side}{k}"][row], 1, self.sample_rate, where) for k in range(1, self.sources + 1)]
        length = min(wave.shape[-1] for wave in waves)
        for wave in waves:
            trim_to_common_length(wave, waves[0][:length], where)  # refuses sources over 10% apart
        return np.stack([wave[:length].double().numpy() for wave in waves])

    def score_row(self, values: dict[str, Sequence[str]], row: int, where: str) -> dict[str, tuple[float, tuple]]:
        """The configured measures of one row, each with the order it chose (`separation_scores`)."""
        hyp = self.read_sources(values, row, "hyp", where)
        ref = self.read_sources(values, row, "ref", where)
        hyp, ref = (np.asarray(x) for x in trim_to_common_length(hyp, ref, where))
        mix = None
        if self.needs_mix:
            mix = read_audio(values["mix"][row], 1, self.sample_rate, where).double().numpy()
            mix, ref = trim_to_common_length(mix, ref, where)
            hyp = hyp[..., : ref.shape[-1]]
        try:
            return separation_scores(hyp, ref, self.score_config, mix, self.zero_mean)
        except ValueError as e:
            raise ValueError(f"{where}: {e}") from None

    def update(self, **values: Sequence[str]) -> None:
        """Read each row's sources (and mixture), score them and add the values to the sums.

        Args:
            **values: WAV paths, one list per declared input.

        Raises:
            RowError: an unreadable or silent file, a non-finite sample, lengths over 10% apart,
                the wrong channel count; the message names the files.
        """
        ids = self.batch_utt_ids
        if self.per_utterance and ids is None:
            raise ValueError("Separation: per-utterance records need the utterance ids of every batch")
        for row in range(len(next(iter(values.values())))):
            where = ", ".join(f"{key} {paths[row]}" for key, paths in values.items())
            try:
                scores = self.score_row(values, row, where)
            except ValueError as e:
                raise RowError(row, str(e)) from e
            self.utterances += 1
            for name, (value, _) in scores.items():
                setattr(self, f"{name}_sum", getattr(self, f"{name}_sum") + to_fixed(value))
            if self.per_utterance:
                orders = [list(scores[base if base in scores else base + "i"][1]) for base in self.bases]
                self.utterance_scores.append([ids[row], *(scores[name][0] for name in self.score_config), *orders])

    def compute(self) -> dict[str, float]:
        """The mean of each configured measure over the utterances.

        Raises:
            ValueError: nothing was scored.
        """
        if self.utterances == 0:
            raise ValueError(f"{metric_name(self)}: no utterance was scored, so there is nothing to compute")
        return {name: getattr(self, f"{name}_sum") / (FIXED_POINT * self.utterances) for name in self.score_config}

    def utterance_records(self) -> list[dict[str, Any]]:
        """Each utterance's values and chosen orders (``<base>_permutation``: ``perm[j]`` is the estimate
        matched with reference ``j``), sorted by utterance id.

        Raises:
            ValueError: built without ``per_utterance``.
        """
        if not self.per_utterance:
            raise ValueError("Separation: no per-utterance values are kept; build it with per_utterance=True")
        keys = ["utt_id", *self.score_config, *(f"{base}_permutation" for base in self.bases)]
        return sorted((dict(zip(keys, record)) for record in self.utterance_scores), key=lambda r: r["utt_id"])

    def settings(self) -> str:
        """One line naming what changes the number.

        >>> Separation(["si_sdr"], zero_mean=True).settings()
        'Separation sources=2 sample_rate=16000 zero_mean=True'
        """
        return f"Separation sources={self.sources} sample_rate={self.sample_rate} zero_mean={self.zero_mean}"
