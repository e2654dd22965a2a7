"""DNSMOS and PIT separation in a real Lightning run on 1 or 2 gloo processes.

Usage: ``python quality_lightning.py OUT_DIR --devices N``; the corpus is in ``OUT_DIR/../data`` (what
`write_rows` wrote). Each ``validation_step`` returns WAV paths, as these metrics read them; each
rank writes ``OUT_DIR/rank<r>.json`` with the validate results of both callbacks (one per metric:
both declare ``hyp``). Five rows on 2 ranks are uneven: Lightning's DistributedSampler repeats one,
which the callbacks drop.
"""

from __future__ import annotations

import sys
from pathlib import Path

from torch.utils.data import DataLoader, Dataset

sys.path.insert(0, str(Path(__file__).resolve().parent))
from audio_quality_ddp import write_corpus  # noqa: E402
from toy_asr import ToyASR, cpu_trainer, run_as_script  # noqa: E402

from lightscore.lightning import MetricCallback  # noqa: E402
from lightscore.scp import read_scp  # noqa: E402

COLUMNS = ("clean", "text", "sep_hyp", "sep_ref", "sep_mix")  # the SCPs of write_corpus each row reads


def write_rows(data: Path) -> dict[str, Path]:
    """`write_corpus`'s four rows plus a fifth (the first row's speech, the second row's mixture) under a new id."""
    data.mkdir(parents=True, exist_ok=True)
    scps = write_corpus(data)
    rows = {name: {utt: value for _, utt, value in read_scp(scps[name])} for name in COLUMNS}
    first, second = list(rows["clean"])[:2]
    fifth = {"clean": rows["clean"][first], "text": rows["text"][first]}  # clean speech: noisy is slow to decode
    fifth.update({name: rows[name][second] for name in ("sep_hyp", "sep_ref", "sep_mix")})
    for name in COLUMNS:
        with scps[name].open("a") as f:
            f.write(f"extra-u4 {fifth[name]}\n")
    return scps


def quality_metrics() -> list:
    """The metrics of each callback: DNSMOS reads ``clean``, Separation the mixtures.

    Intelligibility is left out: pocketsphinx takes minutes here on a shared 2-core machine, and its
    2-rank equality is tested through the runner (tests/test_mos.py).
    """
    from lightscore.metrics.quality import DNSMOS
    from lightscore.metrics.separation import Separation

    return [[DNSMOS()], [Separation(["si_sdr", "si_sdri"])]]


# Declared input -> the step's key, per callback: both metrics declare ``hyp``, so each gets its own callback.
INPUTS = ({"hyp": "clean"}, {"hyp": "sep_hyp", "ref": "sep_ref", "mix": "sep_mix"})


class Rows(Dataset):
    def __init__(self, data: Path) -> None:
        columns = {name: list(read_scp(data / f"{name}.scp")) for name in COLUMNS}
        self.items = [
            {"utt_id": utt, **{name: columns[name][k][2] for name in COLUMNS}}
            for k, (_, utt, _) in enumerate(columns["clean"])
        ]

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, i: int) -> dict:
        return self.items[i]


def collate(items: list[dict]) -> dict[str, list]:
    return {key: [item[key] for item in items] for key in items[0]}


class QualityModule(ToyASR):
    def validation_step(self, batch: dict, batch_idx: int, dataloader_idx: int = 0) -> dict:
        return batch  # the system's outputs are these WAV files


def run(out: Path, devices: int) -> dict:
    callbacks = [MetricCallback(metrics, inputs=inputs) for metrics, inputs in zip(quality_metrics(), INPUTS)]
    trainer = cpu_trainer(devices, list(callbacks))  # a copy: Lightning adds its own callbacks to the list
    loader = DataLoader(Rows(out.parent / "data"), batch_size=2, collate_fn=collate)
    trainer.validate(QualityModule(), dataloaders=loader)
    results = {key: value for c in callbacks for key, value in c.results["validate"].items()}
    return {"rank": trainer.global_rank, "results": results}


if __name__ == "__main__":
    run_as_script(run)
