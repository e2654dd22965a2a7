"""Permutation-invariant SI-SDR, SDR, SI-SDRi and SDRi: equal to torchmetrics' PIT on generated mixtures."""

from __future__ import annotations

import numpy as np
import pytest
import soundfile as sf
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torchmetrics.functional.audio import (
    permutation_invariant_training,
    scale_invariant_signal_distortion_ratio,
    signal_distortion_ratio,
)

from lightscore.audio.separation import pit, sdr_matrix, separation_scores, si_sdr_matrix
from lightscore.core.batch import feed
from lightscore.metrics.separation import Separation


@pytest.fixture(autouse=True)
def _torch_on_one_thread():
    """torchmetrics' SDR solves a batch of systems with torch.linalg.solve, which with several threads can fail
    inside MKL ("Pivots given to lu_solve must all be greater or equal to 1", pytorch/pytorch#142815): the
    oracle runs on one thread. lightscore's own separation measures use numpy and scipy."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def mixture(sources: int, seed: int, length: int = 4000) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """References, a leaky noisy estimate of them in a shuffled order, the order, and the mixture."""
    rng = np.random.default_rng(seed)
    ref = rng.standard_normal((sources, length)) * rng.uniform(0.3, 1.0, (sources, 1))
    leak = np.eye(sources) * 0.9 + rng.uniform(0.0, 0.2, (sources, sources))
    order = rng.permutation(sources)
    hyp = np.empty_like(ref)
    hyp[order] = leak @ ref + 0.05 * rng.standard_normal((sources, length))  # hyp[order[j]] estimates ref[j]
    return hyp, ref, order, ref.sum(axis=0)


def torchmetrics_pit(hyp: np.ndarray, ref: np.ndarray, function) -> tuple[float, list[int]]:
    value, perm = permutation_invariant_training(torch.tensor(hyp)[None], torch.tensor(ref)[None], function)
    return value.item(), perm[0].tolist()


@settings(max_examples=25, deadline=None)
@given(sources=st.integers(2, 4), seed=st.integers(0, 2**32 - 1))
def test_pit_si_sdr_equals_torchmetrics_and_finds_the_true_order(sources: int, seed: int) -> None:
    hyp, ref, order, _ = mixture(sources, seed)
    ours = pit(si_sdr_matrix(hyp, ref))
    value, perm = torchmetrics_pit(hyp, ref, scale_invariant_signal_distortion_ratio)
    assert ours.value == pytest.approx(value, abs=1e-6)
    assert list(ours.permutation) == perm == list(order)


@pytest.mark.parametrize("sources", [2, 3])
def test_pit_sdr_equals_torchmetrics(sources: int) -> None:
    hyp, ref, order, _ = mixture(sources, seed=sources)
    ours = pit(sdr_matrix(hyp, ref))
    value, perm = torchmetrics_pit(hyp, ref, signal_distortion_ratio)
    assert ours.value == pytest.approx(value, abs=1e-6)
    assert list(ours.permutation) == perm == list(order)


def test_improvements_subtract_the_mixture_over_the_same_order() -> None:
    hyp, ref, order, mix = mixture(3, seed=7)
    scores = separation_scores(hyp, ref, ["si_sdr", "si_sdri", "sdr", "sdri"], mix)
    ordered = torch.tensor(hyp[order])
    mixes = torch.tensor(np.broadcast_to(mix, ref.shape).copy())
    si_base = scale_invariant_signal_distortion_ratio(mixes, torch.tensor(ref)).mean().item()
    sdr_base = signal_distortion_ratio(mixes, torch.tensor(ref)).mean().item()
    si_sdr = scale_invariant_signal_distortion_ratio(ordered, torch.tensor(ref)).mean().item()
    assert scores["si_sdri"][0] == pytest.approx(si_sdr - si_base, abs=1e-6)
    assert scores["sdri"][0] == pytest.approx(scores["sdr"][0] - sdr_base, abs=1e-6)
    assert scores["si_sdri"][1] == scores["si_sdr"][1] == tuple(order)


def test_a_silent_estimate_is_the_worst_value_never_the_best() -> None:
    hyp, ref, _, _ = mixture(2, seed=1)
    hyp[0] = 0
    matrix = si_sdr_matrix(hyp, ref)
    assert (matrix[0] == -100).all()
    assert (sdr_matrix(hyp, ref)[0] == -100).all()


def write_utterances(root, count: int, sources: int, layout: str) -> dict:
    files: dict[str, list[str]] = {}
    for k in range(count):
        hyp, ref, _, mix = mixture(sources, seed=100 + k)
        if layout == "channels":
            sides = {"hyp": hyp, "ref": ref}
        else:
            sides = {f"{side}{j + 1}": data[j] for side, data in (("hyp", hyp), ("ref", ref)) for j in range(sources)}
        for name, data in {**sides, "mix": mix}.items():
            path = root / f"u{k}_{name}.wav"
            sf.write(path, np.asarray(data).T / 8, 8000, subtype="FLOAT")
            files.setdefault(name, []).append(str(path))
    data = {}
    for name, paths in files.items():
        data[name] = root / f"{name}.scp"
        data[name].write_text("".join(f"u{k} {path}\n" for k, path in enumerate(paths)))
    return data


@pytest.mark.parametrize("sources", [2, 5])
def test_both_layouts_give_the_same_means_and_records(tmp_path, sources: int) -> None:
    results, records = [], []
    for layout in ("channels", "files"):
        root = tmp_path / layout
        root.mkdir()
        data = write_utterances(root, 3, sources, layout)
        metric = Separation(["si_sdr", "sdr", "si_sdri"], sources=sources, layout=layout, sample_rate=8000,
                            per_utterance=True)  # fmt: skip
        results.append(metric(data, "dev"))
        records.append(metric.utterance_records())
    assert results[0] == pytest.approx(results[1], abs=1e-9)
    for k, record in enumerate(records[0]):
        hyp, ref, order, _ = mixture(sources, seed=100 + k)
        assert record["si_sdr_permutation"] == record["sdr_permutation"] == list(order)
        assert record["si_sdr"] == pytest.approx(torchmetrics_pit(hyp, ref, scale_invariant_signal_distortion_ratio)[0])


def test_bad_files_name_the_utterance(tmp_path) -> None:
    data = write_utterances(tmp_path, 2, 2, "channels")
    silent = tmp_path / "silent.wav"
    sf.write(silent, np.zeros((4000, 2)), 8000)
    data["ref"].write_text(f"u0 {silent}\nu1 {silent}\n")
    with pytest.raises(ValueError, match=r"utterance 'u0'.*ref source 0 is silent"):
        Separation(sample_rate=8000)(data, "dev")
    mono = tmp_path / "mono.wav"
    sf.write(mono, np.ones(4000) * 0.1, 8000)
    data["ref"].write_text(f"u0 {mono}\nu1 {mono}\n")
    with pytest.raises(ValueError, match=r"utterance 'u0'.*mono.wav has 1 channel\(s\), but 2 are declared"):
        Separation(sample_rate=8000)(data, "dev")


def test_lengths_over_ten_percent_apart_are_refused(tmp_path) -> None:
    data = write_utterances(tmp_path, 1, 2, "channels")
    short = tmp_path / "short.wav"
    sf.write(short, 0.1 * np.random.default_rng(0).standard_normal((3000, 2)), 8000)
    data["hyp"].write_text(f"u0 {short}\n")
    del data["mix"]
    with pytest.raises(ValueError, match=r"utterance 'u0'.*hyp has 3000 samples and ref 4000; they differ by 25.0%"):
        Separation(["si_sdr"], sample_rate=8000)(data, "dev")


def test_improvements_need_the_mixture_input_and_merge_exactly(tmp_path) -> None:
    assert [f.name for f in Separation(["si_sdr"]).inputs] == ["hyp", "ref"]
    data = write_utterances(tmp_path, 4, 2, "channels")
    whole = Separation(sample_rate=8000)
    whole_result = whole(data, "dev")
    halves = []
    for part in (slice(0, 2), slice(2, 4)):
        metric = Separation(sample_rate=8000)
        rows = {name: [line.split()[1] for line in path.read_text().splitlines()][part] for name, path in data.items()}
        feed(metric, rows, [f"u{k}" for k in range(4)][part])
        halves.append(metric.state())
    merged = Separation(sample_rate=8000)
    merged.load_state(merged.merge_states(halves))
    assert merged.compute() == whole_result
