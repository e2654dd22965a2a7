"""lightscore.audio.sptk against pysptk on espeak-ng speech: the SPTK routines ESPnet's MCD and F0 measures call.

pysptk is the oracle here (it imports only where ``pkg_resources`` is, as in the project's venv);
lightscore itself never imports it (tests/test_audio_no_pkg_resources.py).
"""

from __future__ import annotations

import numpy as np
import pytest
from ddp_scripts.audio_quality_ddp import ESPEAK, NO_ESPEAK, SENTENCES, speak

from lightscore.audio.mel_cepstrum import ESPNET_MCEP_PARAMS, INT16_SCALE, N_FFT, N_SHIFT
from lightscore.audio.sptk import freqt, hamming, mcep

pysptk = pytest.importorskip("pysptk")


def test_hamming_and_freqt_equal_pysptk_bit_for_bit() -> None:
    for length in (1024, 512, 7):
        assert np.array_equal(hamming(length), pysptk.sptk.hamming(length))
    rng = np.random.default_rng(3)
    for order, alpha, length in ((24, 0.41, 513), (34, 0.466, 1025), (0, 0.3, 4), (1, -0.2, 7), (9, 0.0, 3)):
        cepstrum = rng.standard_normal(length)
        assert np.array_equal(freqt(cepstrum, order, alpha), pysptk.freqt(cepstrum, order, alpha))
    batch = rng.standard_normal((3, 40))
    assert np.array_equal(freqt(batch, 12, 0.35), np.stack([pysptk.freqt(row, 12, 0.35) for row in batch]))


@pytest.mark.skipif(ESPEAK is None, reason=NO_ESPEAK)
@pytest.mark.parametrize("rate", [16000, 22050, 48000])
def test_mcep_equals_pysptk_on_speech(tmp_path, rate: int) -> None:
    import torch
    import torchaudio

    wave = speak(SENTENCES[2], tmp_path / "s.wav", noise=0.02)
    wave = torchaudio.functional.resample(torch.from_numpy(wave), 16000, rate).double().numpy() * INT16_SCALE
    frames = np.lib.stride_tricks.sliding_window_view(wave, N_FFT)[::N_SHIFT] * pysptk.sptk.hamming(N_FFT)
    order, alpha = ESPNET_MCEP_PARAMS[rate]
    theirs = np.stack([pysptk.mcep(frame, order, alpha, eps=1e-6, etype=1) for frame in frames])
    ours = mcep(frames, order, alpha, eps=1e-6)
    assert ours.shape == theirs.shape == (len(frames), order + 1)
    assert np.abs(ours - theirs).max() <= 1e-12 * np.abs(theirs).max()  # FFT rounding, nothing more
    assert np.allclose(mcep(frames[3], order, alpha), theirs[3], rtol=0, atol=1e-12 * np.abs(theirs).max())
