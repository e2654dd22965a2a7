"""Issues 39-41's metrics in one real Lightning run on 1 or 2 gloo processes.

Usage: ``python new_metrics_lightning.py OUT_DIR --devices N``; each rank writes ``OUT_DIR/rank<r>.json`` with
the validate results of every family's callback. One run holds them all so the suite pays for one 2-process
launch: each family is a `MetricCallback` of its own (its metrics read the same input names with different
values), fed from its own keys of the rows the step returns, with its own log prefix. On 1 device each callback
also saves what it scored (``save_dir``). tests/test_new_metrics_ddp.py writes the same rows as SCP files and
checks that ``measure()`` (one process and torchrun), and ``measure()`` over the saved files, give the same numbers.

The 11 rows split unevenly over 2 ranks: Lightning's DistributedSampler repeats one, which the callbacks drop.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from pathlib import Path

from torch.utils.data import DataLoader, Dataset

sys.path.insert(0, str(Path(__file__).resolve().parent))
from meeting_lightning import turns  # noqa: E402
from toy_asr import ToyASR, cpu_trainer, run_as_script  # noqa: E402

from lightscore import metrics as ls  # noqa: E402
from lightscore.lightning import MetricCallback  # noqa: E402
from lightscore.segments import Segment  # noqa: E402

ROWS = 11
WORDS = "a b c d the cat".split()


def latency_row(rng: random.Random) -> dict:
    """A simultaneous translation: non-decreasing delays (ms of speech), the source's length, a reference."""
    delays, t = [], 0.0
    for _ in range(rng.randint(1, 6)):
        t += rng.choice((0.0, 320.0, 640.0))
        delays.append(t)
    return {"delays": delays, "source_length": t + rng.choice((0.0, 500.0)), "ref": " ".join(["w"] * rng.randint(1, 6))}


def talk_row(rng: random.Random) -> dict:
    """A talk: its reference segments (a JSON array) and one unsegmented hypothesis that drops some words."""
    segments = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 4))) for _ in range(rng.randint(1, 4))]
    hyp = " ".join(w for segment in segments for w in segment.split() if rng.random() > 0.2)
    return {"ref": json.dumps(segments), "hyp": hyp}


def keyword_row(rng: random.Random) -> dict:
    """An utterance with its own biasing list, and a 3-best list whose second hypothesis is sometimes the best."""
    ref = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6)))
    nbest = [" ".join(w if rng.random() > 0.3 else rng.choice(WORDS) for w in ref.split()) for _ in range(3)]
    return {"ref": ref, "hyp": nbest[0], "hyp1": nbest[0], "hyp2": nbest[1], "hyp3": nbest[2], "keywords": "cat d"}


def written(rng: random.Random) -> str:
    """A sentence as a punctuating, casing recogniser writes it."""
    words = [rng.choice(("the", "The", "cat", "Cat", "sat")) + rng.choice(("", "", ",", ".", "?")) for _ in range(4)]
    return " ".join(words[: rng.randint(1, 4)])


def pnc_row(rng: random.Random) -> dict:
    return {"ref": written(rng), "hyp": written(rng)}


def timed_words(rng: random.Random, shift: float) -> list[Segment]:
    words, t = [], 0.0
    for word in rng.sample(WORDS, rng.randint(1, 5)):
        words.append(Segment("A", round(t + shift, 3), round(t + shift + 0.3, 3), word))
        t += 0.4
    return words


def timing_row(rng: random.Random) -> dict:
    ref = timed_words(random.Random(rng.random()), 0.0)
    hyp = timed_words(random.Random(rng.random()), rng.choice((0.0, 0.04, 0.12, 0.3)))
    return {"ref": ref, "hyp": hyp, "emit": [w.end + rng.choice((0.1, 0.5)) for w in hyp]}


def meeting_row(rng: random.Random) -> dict:
    # turns that may overlap their own speaker's: DER and purity merge them as md-eval does
    return {"ref": turns(rng, "r", min_gap=-200), "hyp": turns(rng, "h", min_gap=-200)}


# family -> (the rows' generator, its metrics as (name in lightscore.metrics, options)); each family's logged
# names start with "val/<family>/". measure() builds the same metrics from the same names and options.
FAMILIES: dict[str, tuple[Callable[[random.Random], dict], list[tuple[str, dict]]]] = {
    "latency": (latency_row, [("SimulLatency", {})]),
    "reseg": (talk_row, [("Resegmented", {"metric": "bleu"})]),
    "keywords": (
        keyword_row,
        [("KeywordErrorRate", {"keywords": ["the"], "oov": ["cat"]}), ("OracleWER", {"nbest": 3}), ("WER", {})],
    ),
    "pnc": (pnc_row, [("PunctuationErrorRate", {}), ("CaseErrorRate", {}), ("PnCWER", {})]),
    "timing": (timing_row, [("WordTiming", {"emission": True})]),
    "meeting": (
        meeting_row,
        [
            ("GreedyORCWER", {}),
            ("TCORCWER", {"collar": 1.0}),
            ("GreedyTCORCWER", {"collar": 1.0}),
            ("DICPWER", {}),
            ("DITCPWER", {"collar": 1.0}),
            ("MIMOWER", {}),
            ("DER", {"collar": 0.25, "overlap": "skip"}),
            ("PurityCoverage", {"collar": 0.25}),
        ],
    ),
}


def build(family: str) -> list:
    return [getattr(ls, name)(**options) for name, options in FAMILIES[family][1]]


def corpus() -> list[dict]:
    """Each row: its id and, per family, that family's inputs."""
    rng = random.Random(39)
    return [{"utt_id": f"u{i:02d}", **{f: make(rng) for f, (make, _) in FAMILIES.items()}} for i in range(ROWS)]


class Rows(Dataset):
    def __init__(self) -> None:
        self.rows = corpus()

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, i: int) -> dict:
        return self.rows[i]


def collate(items: list[dict]) -> dict:
    """Per family, a dict of columns; the values kept as they are (default_collate would stack them)."""
    batch: dict = {"utt_id": [item["utt_id"] for item in items]}
    for family in FAMILIES:
        for key in items[0][family]:
            batch[f"{family}.{key}"] = [item[family][key] for item in items]
    return batch


class Module(ToyASR):
    def validation_step(self, batch: dict, batch_idx: int, dataloader_idx: int = 0) -> dict:
        return batch


def callbacks(save_root: Path | None) -> list[MetricCallback]:
    """One callback per family: each declared input read from the step's ``<family>.<input>`` key; with
    ``save_root``, each saves what it scored in ``<save_root>/<family>/validate/``."""
    out = []
    columns = collate(corpus()[:1])
    for family in FAMILIES:
        built = build(family)
        names = {f.name for m in built for f in m.inputs}
        keys = {name: f"{family}.{name}" for name in names if f"{family}.{name}" in columns}
        save = None if save_root is None else save_root / family
        out.append(MetricCallback(built, inputs=keys, prefix={"validate": f"val/{family}/"}, save_dir=save))
    return out


def run(out: Path, devices: int) -> dict:
    made = callbacks(out / "saved" if devices == 1 else None)
    trainer = cpu_trainer(devices, list(made))  # the Trainer adds its own callbacks to the list it is given
    trainer.validate(Module(), dataloaders=DataLoader(Rows(), batch_size=2, collate_fn=collate))
    results: dict = {}
    for callback in made:
        results.update(callback.results["validate"])
    return {"rank": trainer.global_rank, "results": results}


if __name__ == "__main__":
    run_as_script(run)
