"""What the recipe shows at the end: the callback's numbers beside measure()'s, and a plot of the training run."""

from __future__ import annotations

import csv
import time
from collections.abc import Mapping
from pathlib import Path

import lightning as L
from lightning.pytorch.utilities import rank_zero_only

from lightscore.lightning import MetricCallback

MISSING = "-"


@rank_zero_only
def say(*args: object) -> None:
    """Print on rank 0 only: the other DDP ranks run this same script."""
    print(*args, flush=True)


class EpochProgress(L.Callback):
    """Print a line at each quarter of a training epoch, for logs where no progress bar is drawn.

    On a busy 2-core machine an epoch can take a minute: a newcomer should see it move.
    """

    def __init__(self) -> None:
        self.started = time.monotonic()

    def on_train_batch_end(self, trainer: L.Trainer, pl_module: L.LightningModule, outputs, batch, batch_idx) -> None:
        total = trainer.num_training_batches
        done = batch_idx + 1
        quarters = {max(1, round(total * q / 4)) for q in (1, 2, 3)}
        if trainer.is_global_zero and done in quarters:
            elapsed = time.monotonic() - self.started
            say(f"epoch {trainer.current_epoch}: {done}/{total} training batches ({elapsed:.0f} s)")


class ValidationHistory(L.Callback):
    """Keep ``(epoch, val/WER, val/CER)`` of every validation epoch and print one line each.

    List it after the `MetricCallback` it reads, so the epoch's results are in
    ``metric_callback.results`` when it runs.
    """

    def __init__(self, metric_callback: MetricCallback) -> None:
        self.metric_callback = metric_callback
        self.epochs: list[tuple[int, float, float]] = []
        self.started = time.monotonic()

    def on_validation_epoch_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        if trainer.sanity_checking:
            return
        results = self.metric_callback.results["validate"]
        self.epochs.append((trainer.current_epoch, results["val/WER"], results["val/CER"]))
        say(
            f"epoch {trainer.current_epoch}: val/WER {results['val/WER']:6.2f}  val/CER {results['val/CER']:6.2f}"
            f"  ({time.monotonic() - self.started:.0f} s)"
        )

    def first_and_best(self) -> str:
        """One line comparing the first epoch's val/WER with the best one."""
        if not self.epochs:
            return "no validation epochs"
        first = self.epochs[0]
        best = min(self.epochs, key=lambda e: e[1])
        return f"val/WER {first[1]:.2f} after epoch {first[0]}, best {best[1]:.2f} after epoch {best[0]}"


def compare(callback: Mapping[str, float], offline: Mapping[str, float], prefix: str = "test/") -> list[tuple]:
    """Rows ``(output, callback value, measure value, verdict)`` for every output measure() returned.

    An output both sides have is ``same`` or ``DIFFERENT``; one only measure()
    computed (TER, which the callback does not hold) is ``measure only``.

    >>> compare({"test/WER": 50.0}, {"WER": 50.0, "TER": 25.0})
    [('WER', 50.0, 50.0, 'same'), ('TER', '-', 25.0, 'measure only')]
    >>> compare({"test/WER": 50.0}, {"WER": 40.0})[0][3]
    'DIFFERENT'
    """
    rows = []
    for name, value in offline.items():
        logged = callback.get(prefix + name, MISSING)
        if logged is MISSING:
            verdict = "measure only"
        else:
            verdict = "same" if logged == value else "DIFFERENT"
        rows.append((name, logged, value, verdict))
    return rows


def format_table(rows: list[tuple], title: str) -> str:
    """The rows of `compare` as an aligned text table under ``title``.

    >>> print(format_table([("WER", 12.5, 12.5, "same"), ("WER_sub", 3, 3, "same")], "test"))
    test
    output   MetricCallback  measure()  check
    WER             12.5000    12.5000  same
    WER_sub               3          3  same
    """
    header = ("output", "MetricCallback", "measure()", "check")
    cells = [header] + [(name, _number(a), _number(b), verdict) for name, a, b, verdict in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(4)]
    lines = [title]
    for row in cells:
        lines.append(
            f"{row[0]:<{widths[0]}}  {row[1]:>{widths[1]}}  {row[2]:>{widths[2]}}  {row[3]:<{widths[3]}}".rstrip()
        )
    return "\n".join(lines)


def _number(value: object) -> str:
    """Rates with 4 decimals (the comparison itself is exact), counts as integers."""
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


def read_validation_curve(metrics_csv: Path, names: tuple[str, ...] = ("val/WER", "val/CER")) -> dict[str, list]:
    """``{"epoch": [...], name: [...]}`` from the validation rows of a CSVLogger ``metrics.csv``.

    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "metrics.csv"
    >>> _ = p.write_text("epoch,step,train/loss,val/CER,val/WER\\n0,9,3.1,,\\n0,19,,40.0,90.0\\n1,39,,10.0,30.0\\n")
    >>> read_validation_curve(p)
    {'epoch': [0, 1], 'val/WER': [90.0, 30.0], 'val/CER': [40.0, 10.0]}
    """
    curve: dict[str, list] = {"epoch": [], **{name: [] for name in names}}
    with open(metrics_csv, newline="") as f:
        for row in csv.DictReader(f):
            if row.get(names[0]):
                curve["epoch"].append(int(row["epoch"]))
                for name in names:
                    curve[name].append(float(row[name]))
    return curve


def plot_validation_curve(curve: dict[str, list], path: Path) -> Path:
    """Save validation error rates per epoch as a PNG at ``path``."""
    import matplotlib

    matplotlib.use("Agg")  # no display: write the file only
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for name, values in curve.items():
        if name != "epoch":
            ax.plot(curve["epoch"], values, marker="o", label=name)
    ax.set_xlabel("epoch")
    ax.set_ylabel("error rate (%)")
    ax.set_title("Validation error rates (MetricCallback)")
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
