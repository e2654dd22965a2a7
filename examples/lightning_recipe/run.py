"""The lightscore example recipe: train a small CTC recognizer, score it in Lightning, re-score it offline.

    python examples/lightning_recipe/run.py                 # synthetic corpus, about 1 minute on 2 cores
    python examples/lightning_recipe/run.py --quick         # a CI-sized run
    python examples/lightning_recipe/run.py --devices 2     # DDP on 2 CPU processes
    python examples/lightning_recipe/run.py --data-dir /data/LibriSpeech --max-utts 2000

Stages: make or read the corpus; ``fit()`` with ``MetricCallback([WER(), CER()])``
and ``ModelCheckpoint(monitor="val/WER")``; ``test()`` of the best checkpoint with
the callback saving ``ref.scp`` and ``hyp.scp``; a SentencePiece model trained on
the training transcripts; ``lightscore.measure()`` with ``conf/metrics.yaml``; a
table of the callback's test numbers beside measure()'s. The exit status is 1 if
any of them differ. See docs/recipe.md.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

if not __package__:
    # Run as a script (which is also how Lightning's DDP launcher starts the other ranks):
    # make the recipe importable as the package `lightning_recipe`.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import lightning as L
from lightning.pytorch.callbacks import ModelCheckpoint
from lightning.pytorch.loggers import CSVLogger
from torch.utils.data import DataLoader

from lightning_recipe.bpe import train_bpe
from lightning_recipe.corpus import Utterance
from lightning_recipe.data import CharTokenizer, SpeechDataset, collate
from lightning_recipe.librispeech import read_librispeech
from lightning_recipe.model import CtcRecognizer
from lightning_recipe.report import (
    EpochProgress,
    ValidationHistory,
    compare,
    format_table,
    plot_validation_curve,
    read_validation_curve,
    say,
)
from lightning_recipe.synth import SynthConfig, make_corpus
from lightscore import MeasureResults, measure
from lightscore.lightning import MetricCallback
from lightscore.metrics import CER, WER

RECIPE_DIR = Path(__file__).resolve().parent
METRICS_YAML = RECIPE_DIR / "conf" / "metrics.yaml"
# (train, dev, test) utterances of the synthetic corpus, and epochs.
DEFAULT_RUN = {"sizes": (1000, 150, 150), "epochs": 6}
QUICK_RUN = {"sizes": (600, 60, 60), "epochs": 5}
LOG_SAMPLES = 5  # worst validation utterances logged per epoch


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--devices", type=int, default=1, help="CPU processes; more than 1 runs DDP (gloo)")
    parser.add_argument("--epochs", type=int, help=f"training epochs (default {DEFAULT_RUN['epochs']})")
    parser.add_argument("--quick", action="store_true", help="a short CI-sized run: less data, fewer epochs")
    parser.add_argument("--exp-dir", type=Path, default=Path("exp/lightning_recipe"), help="where everything goes")
    parser.add_argument("--data-dir", type=Path, help="a LibriSpeech-layout corpus instead of the synthetic one")
    parser.add_argument("--train-split", default="train-clean-100", help="LibriSpeech training split")
    parser.add_argument("--dev-split", default="dev-clean", help="LibriSpeech validation split")
    parser.add_argument("--test-split", default="test-clean", help="LibriSpeech test split")
    parser.add_argument("--max-utts", type=int, help="use at most this many utterances of each split")
    parser.add_argument("--batch-size", type=int, default=8, help="training batch size per device")
    parser.add_argument("--bpe-vocab", type=int, default=40, help="SentencePiece vocabulary size for TER")
    parser.add_argument("--seed", type=int, default=0, help="seed of the synthetic corpus and of training")
    parser.add_argument("--ckpt", type=Path, help="skip training: test this checkpoint (from an earlier run)")
    args = parser.parse_args(argv)
    run = QUICK_RUN if args.quick else DEFAULT_RUN
    args.epochs = args.epochs or run["epochs"]
    args.sizes = tuple(min(n, args.max_utts or n) for n in run["sizes"])
    return args


def load_corpus(args: argparse.Namespace) -> dict[str, list[Utterance]]:
    """The train, dev and test utterances: synthetic by default, else read from ``--data-dir``."""
    if args.data_dir is None:
        train, dev, test = args.sizes
        return make_corpus(args.exp_dir / "data" / "synthetic", SynthConfig(train, dev, test, seed=args.seed))
    splits = {"train": args.train_split, "dev": args.dev_split, "test": args.test_split}
    corpus = {name: read_librispeech(args.data_dir, split) for name, split in splits.items()}
    return {name: utts[: args.max_utts] for name, utts in corpus.items()}


def loaders(corpus: dict[str, list[Utterance]], tokenizer: CharTokenizer, batch_size: int) -> dict[str, DataLoader]:
    """Plain DataLoaders; under DDP, Lightning swaps in a DistributedSampler and MetricCallback undoes its padding."""
    train = SpeechDataset(corpus["train"], tokenizer)
    return {
        "train": DataLoader(train, batch_size=batch_size, shuffle=True, collate_fn=collate),
        "dev": DataLoader(SpeechDataset(corpus["dev"]), batch_size=32, collate_fn=collate),
        "test": DataLoader(SpeechDataset(corpus["test"]), batch_size=32, collate_fn=collate),
    }


def build_trainer(args: argparse.Namespace, callbacks: list, steps_per_epoch: int) -> L.Trainer:
    """A CPU Trainer: one process, or DDP over ``--devices`` processes; a progress bar only on a terminal."""
    return L.Trainer(
        accelerator="cpu",
        devices=args.devices,
        strategy="ddp" if args.devices > 1 else "auto",
        max_epochs=args.epochs,
        callbacks=callbacks,
        logger=CSVLogger(args.exp_dir, name="logs"),
        log_every_n_steps=max(1, min(10, steps_per_epoch)),
        enable_progress_bar=sys.stderr.isatty(),
        enable_model_summary=False,
    )


def rescore_offline(args: argparse.Namespace, trainer: L.Trainer, decode_dir: Path, texts: list[str]) -> MeasureResults:
    """Train the TER tokenizer on rank 0, then run measure() over the SCP files the callback saved.

    Every rank calls measure(): with a process group up (DDP), measure() is a
    collective that splits the rows between the ranks.
    """
    bpemodel = args.exp_dir / "bpe" / "bpe.model"
    if trainer.is_global_zero:
        train_bpe(texts, bpemodel.parent, args.bpe_vocab)
    trainer.strategy.barrier()  # the model and rank 0's SCP files are on disk before any rank reads them
    return measure(METRICS_YAML, overrides=[f"inference_dir={decode_dir}", f"bpemodel={bpemodel}"])


def print_comparison(callback_results: dict[str, float], offline: dict, test_name: str) -> bool:
    """Print the callback's test numbers beside measure()'s; True when every shared number is equal."""
    rows = [row for key in ("WER", "CER", "TER") for row in compare(callback_results, offline[key][test_name])]
    title = f'Test set "{test_name}": MetricCallback in trainer.test() vs. lightscore.measure() on the saved SCP files'
    say("\n" + format_table(rows, title))
    same = all(verdict != "DIFFERENT" for *_, verdict in rows)
    say("All numbers the two share are equal." if same else "MISMATCH: the callback and measure() disagree.")
    return same


def close_process_group(trainer: L.Trainer) -> None:
    """Tear the DDP process group down on every rank together.

    A gloo group left up at interpreter exit can abort the process
    ("terminate called without an active exception") when one rank leaves first.
    """
    import torch.distributed as dist

    if dist.is_available() and dist.is_initialized():
        trainer.strategy.barrier()
        dist.destroy_process_group()


def quiet_known_warnings() -> None:
    """Silence two Lightning warnings that do not apply to this recipe."""
    warnings.filterwarnings("ignore", message=".*does not have many workers.*")  # features are cached in memory
    # Lightning advises devices=1 for test() because its DistributedSampler repeats utterances to even out
    # the ranks; MetricCallback drops those repeats, which is the point of this recipe.
    warnings.filterwarnings("ignore", message=".*it is recommended to use `Trainer\\(devices=1.*")


def train_and_test(args: argparse.Namespace, corpus: dict[str, list[Utterance]]) -> tuple[L.Trainer, MetricCallback]:
    """fit() (unless ``--ckpt`` is given), then test() the best checkpoint, saving its SCP files."""
    if args.ckpt is None:
        model = CtcRecognizer(CharTokenizer.from_texts(u.text for u in corpus["train"]).chars)
    else:
        model = CtcRecognizer.load_from_checkpoint(args.ckpt, map_location="cpu")
    data = loaders(corpus, model.tokenizer, args.batch_size)
    # test() writes decode/test/{ref,hyp}.scp; validation text is not saved. Every validation epoch
    # logs its 5 worst utterances (with their alignment) to the logger: a TSV beside metrics.csv.
    metric_callback = MetricCallback(
        [WER(), CER()], save_dir=args.exp_dir / "decode", save_stages=("test",), log_samples=LOG_SAMPLES
    )
    checkpoint = ModelCheckpoint(
        monitor="val/WER", mode="min", filename="best-epoch{epoch:02d}", auto_insert_metric_name=False
    )
    history = ValidationHistory(metric_callback)
    progress = [] if sys.stderr.isatty() else [EpochProgress()]  # a terminal gets Lightning's bar instead
    trainer = build_trainer(args, [metric_callback, history, checkpoint, *progress], len(data["train"]))
    if args.ckpt is None:
        trainer.fit(model, data["train"], data["dev"])
        say(history.first_and_best())
    trainer.test(model, data["test"], ckpt_path=checkpoint.best_model_path or None, verbose=False)
    return trainer, metric_callback


def main(argv: list[str] | None = None) -> int:
    started = time.monotonic()
    args = parse_args(argv)
    quiet_known_warnings()
    L.seed_everything(args.seed, verbose=False)
    corpus = load_corpus(args)
    say(", ".join(f"{name}: {len(utts)} utterances" for name, utts in corpus.items()))

    trainer, metric_callback = train_and_test(args, corpus)
    offline = rescore_offline(args, trainer, metric_callback.save_dir, [u.text for u in corpus["train"]])
    close_process_group(trainer)
    if not trainer.is_global_zero:
        return 0  # the other DDP ranks stop here; rank 0 reports
    same = print_comparison(metric_callback.results["test"], offline, "test")
    log_dir = Path(trainer.logger.log_dir)
    say(f"\nResults: {offline.path} (measure()), from {metric_callback.save_dir / 'test'}/{{ref,hyp}}.scp")
    say(f"Logs:    {log_dir / 'metrics.csv'}")
    if args.ckpt is None:
        worst = sorted(log_dir.glob("val_WER_worst_epoch*.tsv"), key=lambda p: int(p.stem.rsplit("epoch", 1)[1]))
        say(f"Worst:   {worst[-1]} (the {LOG_SAMPLES} worst validation utterances of the last epoch, aligned)")
        plot = plot_validation_curve(read_validation_curve(log_dir / "metrics.csv"), log_dir / "val_error_rates.png")
        say(f"Plot:    {plot}\nBest checkpoint: {trainer.checkpoint_callback.best_model_path}")
    say(f"Done in {time.monotonic() - started:.0f} s.")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
