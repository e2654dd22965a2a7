"""Speech-quality measures a TTS paper can cite: numpy in, float out, equal to the reference tools.

This module gathers them under one name (``lightscore.audio.speech_quality``,
the path the docs and `lightscore.metrics.audio` use); each lives in the file
of its job. Every measure is ``f(hyp, ref, sample_rate) -> float`` on 1-D float
arrays at ``sample_rate`` (floats in [-1, 1], as ``soundfile.read`` returns them):

- `mcd_dtw` (`lightscore.audio.mel_cepstrum`): mel-cepstral distortion as
  ESPnet2's ``evaluate_mcd.py`` (SPTK mel-cepstra from pysptk, frames aligned by fastdtw).
- `world_f0_measures` (`lightscore.audio.world_pitch`): the F0 measures of
  ESPnet2's ``evaluate_f0.py`` (WORLD F0 from pyworld, frames aligned by fastdtw
  on WORLD mel-cepstra), one extraction per signal for all of them;
  `log_f0_rmse_dtw`, `f0_rmse_dtw`, `f0_corr_dtw` and `vde` each return one of its values.
- `pesq_wb`, `pesq_nb` (package ``pesq``), `stoi`, `estoi` (package ``pystoi``),
  in `lightscore.audio.pesq_stoi`.

Bad input: a non-finite sample, a signal that is not 1-D, or a silent (all-zero)
hyp or ref is a ValueError in every measure (`lightscore.audio.checks`),
so that a silent hypothesis never scores better than a noisy one (the caller
names the utterance). A measure that is undefined for the pair returns None
(no frame voiced in both for the F0 measures, see `UNDEFINED_F0`; under about
0.4 s of speech for STOI and ESTOI, see `lightscore.audio.pesq_stoi.stoi_frames`).

>>> import numpy as np
>>> t = np.arange(16000) / 16000
>>> voice = 0.3 * np.sin(2 * np.pi * (150 * t + 10 * np.sin(2 * np.pi * 2 * t)))
>>> mcd_dtw(voice, voice, 16000), vde(voice, voice, 16000, "dio"), round(stoi(voice, voice, 16000), 6)
(0.0, 0.0, 1.0)
"""

from __future__ import annotations

from lightscore.audio.mel_cepstrum import ESPNET_MCEP_PARAMS, mcd_dtw, mcep_params, sptk_mcep
from lightscore.audio.pesq_stoi import estoi, pesq_nb, pesq_wb, stoi
from lightscore.audio.world_pitch import (
    F0_METHODS,
    UNDEFINED_F0,
    f0_corr_dtw,
    f0_rmse_dtw,
    log_f0_rmse_dtw,
    vde,
    world_f0,
    world_f0_measures,
)

__all__ = [
    "ESPNET_MCEP_PARAMS",
    "F0_METHODS",
    "UNDEFINED_F0",
    "estoi",
    "f0_corr_dtw",
    "f0_rmse_dtw",
    "log_f0_rmse_dtw",
    "mcd_dtw",
    "mcep_params",
    "pesq_nb",
    "pesq_wb",
    "sptk_mcep",
    "stoi",
    "vde",
    "world_f0",
    "world_f0_measures",
]
