"""A small CTC recognizer (convolutions, then a bidirectional GRU) and its LightningModule.

``validation_step`` and ``test_step`` return ``{"utt_id", "ref", "hyp"}``:
the dict `lightscore.lightning.MetricCallback` reads, and nothing else
about scoring lives here.
"""

from __future__ import annotations

from collections.abc import Sequence

import lightning as L
import torch
from torch import nn

from .data import NUM_MEL_BINS, CharTokenizer


def frames_mask(lengths: torch.Tensor, max_len: int) -> torch.Tensor:
    """A (batch, 1, time) mask that is 1 on real frames and 0 on padding.

    >>> frames_mask(torch.tensor([1, 3]), 3).squeeze(1).tolist()
    [[1.0, 0.0, 0.0], [1.0, 1.0, 1.0]]
    """
    return (torch.arange(max_len, device=lengths.device)[None, :] < lengths[:, None]).float().unsqueeze(1)


class CtcModel(nn.Module):
    """Filterbanks to per-frame log-probabilities over ``vocab_size`` CTC labels.

    Two strided convolutions cut the frame rate by 4, a third one widens the
    context, and a bidirectional GRU reads the result. Padding is zeroed after
    every convolution and the GRU reads packed sequences, so an utterance gets
    the same output whatever else is in its batch.

    >>> model = CtcModel(vocab_size=5)
    >>> log_probs, lengths = model(torch.randn(2, 50, NUM_MEL_BINS), torch.tensor([50, 30]))
    >>> log_probs.shape, lengths.tolist()
    (torch.Size([2, 13, 5]), [13, 8])
    """

    def __init__(self, vocab_size: int, channels: int = 128, hidden: int = 128) -> None:
        super().__init__()
        self.convs = nn.ModuleList(
            [
                nn.Conv1d(NUM_MEL_BINS, channels, kernel_size=5, stride=2, padding=2),
                nn.Conv1d(channels, channels, kernel_size=5, stride=2, padding=2),
                nn.Conv1d(channels, channels, kernel_size=3, stride=1, padding=1),
            ]
        )
        self.gru = nn.GRU(channels, hidden, batch_first=True, bidirectional=True)
        self.output = nn.Linear(2 * hidden, vocab_size)

    def forward(self, feats: torch.Tensor, lengths: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = feats.transpose(1, 2)
        for conv in self.convs:
            lengths = (lengths + 2 * conv.padding[0] - conv.kernel_size[0]) // conv.stride[0] + 1
            x = torch.relu(conv(x))
            x = x * frames_mask(lengths, x.shape[2])
        packed = nn.utils.rnn.pack_padded_sequence(
            x.transpose(1, 2), lengths.cpu(), batch_first=True, enforce_sorted=False
        )
        out, _ = self.gru(packed)
        out, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=x.shape[2])
        return self.output(out).log_softmax(dim=-1), lengths


def greedy_decode(log_probs: torch.Tensor, lengths: torch.Tensor, tokenizer: CharTokenizer) -> list[str]:
    """Best label per frame, repeats merged, blanks dropped: one text per utterance.

    >>> tok = CharTokenizer(["a", "b"])  # ids: blank 0, a 1, b 2
    >>> frames = torch.tensor([[0, 1, 1, 0, 1, 2, 2, 0]])
    >>> greedy_decode(torch.nn.functional.one_hot(frames, 3).float(), torch.tensor([8]), tok)
    ['aab']
    """
    texts = []
    for best, length in zip(log_probs.argmax(dim=-1).tolist(), lengths.tolist()):
        ids, previous = [], tokenizer.blank
        for label in best[:length]:
            if label != previous and label != tokenizer.blank:
                ids.append(label)
            previous = label
        texts.append(tokenizer.decode(ids))
    return texts


class CtcRecognizer(L.LightningModule):
    """Train with CTC loss; validate and test by greedy decoding into ``{"utt_id", "ref", "hyp"}``."""

    def __init__(self, chars: Sequence[str], channels: int = 128, hidden: int = 128, lr: float = 3e-3) -> None:
        super().__init__()
        self.save_hyperparameters()
        self.tokenizer = CharTokenizer(chars)
        self.model = CtcModel(len(self.tokenizer), channels, hidden)
        self.ctc_loss = nn.CTCLoss(blank=CharTokenizer.blank, zero_infinity=True)

    def training_step(self, batch: dict, batch_idx: int) -> torch.Tensor:
        log_probs, lengths = self.model(batch["feats"], batch["feat_lens"])
        loss = self.ctc_loss(log_probs.transpose(0, 1), batch["labels"], lengths, batch["label_lens"])
        self.log("train/loss", loss, prog_bar=True, batch_size=len(batch["utt_id"]))
        return loss

    def transcribe(self, batch: dict) -> dict[str, list[str]]:
        """Decode one batch into the dict the metric callback reads."""
        log_probs, lengths = self.model(batch["feats"], batch["feat_lens"])
        return {
            "utt_id": batch["utt_id"],
            "ref": batch["text"],
            "hyp": greedy_decode(log_probs, lengths, self.tokenizer),
        }

    def validation_step(self, batch: dict, batch_idx: int) -> dict[str, list[str]]:
        return self.transcribe(batch)

    def test_step(self, batch: dict, batch_idx: int) -> dict[str, list[str]]:
        return self.transcribe(batch)

    def configure_optimizers(self):
        optimizer = torch.optim.AdamW(self.parameters(), lr=self.hparams.lr)
        schedule = torch.optim.lr_scheduler.OneCycleLR(
            optimizer, max_lr=self.hparams.lr, total_steps=self.trainer.estimated_stepping_batches, pct_start=0.15
        )
        return {"optimizer": optimizer, "lr_scheduler": {"scheduler": schedule, "interval": "step"}}
