"""Integer token ids for BLEU straight from text, sacrebleu's tokenizers applied once per distinct word.

sacrebleu's 13a tokenizer, after its whole-line replacements (``<skipped>``,
the four XML entities), only inserts spaces by rules that look at two
neighbouring characters, none of them whitespace. So a line's tokens are the
tokens of each of its whitespace-separated words tokenized alone, and a word
seen once need never be tokenized again: `TokenIds` keeps each word's pieces
(as ids) and turns a batch into ids with one ``str.split`` and one dict look-up
per word (the tests check it equals ``Tokenizer13a`` line by line). Other
tokenizers run per line (sacrebleu's own) before the same look-up. The cache is
cleared past ``limit`` words, so memory stays flat on any corpus.

>>> from lightscore.text.mt.tokenizers import bleu_tokenizer
>>> ids, lengths = TokenIds(bleu_tokenizer("13a")).encode([["a,b c"], ["c a"]])
>>> [i.tolist() for i in ids], [n.tolist() for n in lengths]
([[0, 1, 2, 3], [3, 0]], [[4], [2]])
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from lightscore.text.mt.reference import unescape_13a
from lightscore.text.mt.sacrebleu_api import check_13a_rules, is_sacrebleu_13a, word_pieces_13a
from lightscore.text.mt.tokenizers import SEPARATOR, Tokenizer, token_stream

__all__ = ["TokenIds"]


class TokenIds:
    """Token ids of several sides of the same segments (hypotheses, references), dense within one call.

    Plain twin: `lightscore.text.mt.reference.tokenize_13a` per line, each token numbered.

    Args:
        tokenizer: A sacrebleu BLEU tokenizer (`lightscore.text.mt.tokenizers.bleu_tokenizer`).
        limit: Words kept in the cache before it is cleared.
    """

    def __init__(self, tokenizer: Tokenizer, limit: int = 1 << 20) -> None:
        self.tokenizer = tokenizer
        self.per_word = is_sacrebleu_13a(tokenizer)
        if self.per_word:
            check_13a_rules()  # the per-word road relies on 13a's rules as lightscore knows them
        self.limit = limit
        self._clear()

    def _clear(self) -> None:
        # a missing key gets the next id from the counter, inside the C look-up (SEPARATOR holds 0)
        self.words: dict[str, int] = defaultdict(itertools.count(1).__next__, {SEPARATOR: 0})  # input word -> id
        self.pieces: dict[str, int] = defaultdict(itertools.count(1).__next__, {SEPARATOR: 0})  # output token -> id
        self._first = np.zeros(1 << 12, np.int64)  # per word id: where its piece ids start in _flat
        self._count = np.ones(1 << 12, np.int64)  # per word id: how many pieces
        self._flat = np.zeros(1 << 12, np.uint64)
        self._used = 1  # entries of _flat in use

    def encode(self, sides: Sequence[Sequence[str]]) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """Ids of every side's tokens (segment after segment, uint64, dense over the call) and tokens per segment.

        Args:
            sides: Per side, its segments already lower-cased and right-stripped as BLEU does.

        Returns:
            ``(ids, lengths)`` as `lightscore.text.mt.ngram_counts.word_ids` returns them.
        """
        if len(self.words) > self.limit:
            self._clear()
        texts = [self._prepared(side) for side in sides] if self.per_word else []
        streams = [self._piece_ids(side, text) for side, text in zip(sides, texts or [None] * len(sides))]
        lengths = []
        for stream in streams:
            cuts = np.flatnonzero(stream == 0)
            lengths.append(np.diff(np.concatenate(([-1], cuts, [len(stream)]))) - 1)
        kept = [stream[stream != 0] for stream in streams]
        # rank the ids present in a table over all piece ids: no sort
        present = np.zeros(len(self.pieces), bool)
        for k in kept:
            present[k] = True
        rank = np.cumsum(present, dtype=np.int64).astype(np.uint64) - np.uint64(1)
        return [rank[k] for k in kept], lengths

    @staticmethod
    def _prepared(lines: Sequence[str]) -> str | None:
        """The lines joined by newlines after 13a's whole-line replacements; None when a line holds NUL or a newline."""
        text = "\n".join(lines)
        if not lines or SEPARATOR in text or text.count("\n") != len(lines) - 1:
            return None
        return unescape_13a(text, join_lines=False)

    def _piece_ids(self, lines: Sequence[str], text: str | None) -> np.ndarray:
        """The output-token ids of one side, 0 between segments (``text``: `_prepared` lines, None: the slow road)."""
        if text is None:
            stream = token_stream(lines, self.tokenizer)  # tokenized already: each token is a piece
            return _ids(self.pieces, stream)
        return self._word_pieces(text.replace("\n", f" {SEPARATOR} ").split())

    def _word_pieces(self, stream: list[str]) -> np.ndarray:
        known = len(self.words)
        ids = _ids(self.words, stream)
        fresh = np.flatnonzero(ids >= known)
        if len(fresh):  # words never seen: tokenize each once (ids come in order of first occurrence)
            for at in fresh[np.unique(ids[fresh], return_index=True)[1]].tolist():
                self._add(int(ids[at]), word_pieces_13a(stream[at]))
        count = self._count[ids]
        if (count == 1).all():
            return self._flat[self._first[ids]]
        total = int(count.sum())
        offsets = np.arange(total) - np.repeat(np.cumsum(count) - count, count)
        return self._flat[np.repeat(self._first[ids], count) + offsets]

    def _add(self, key: int, pieces: list[str]) -> None:
        if key >= len(self._first):
            self._first = np.concatenate((self._first, np.zeros_like(self._first)))
            self._count = np.concatenate((self._count, np.ones_like(self._count)))
        while self._used + len(pieces) > len(self._flat):
            self._flat = np.concatenate((self._flat, np.zeros_like(self._flat)))
        self._first[key] = self._used
        self._count[key] = len(pieces)
        for piece in pieces:
            self._flat[self._used] = self.pieces[piece]
            self._used += 1


def _ids(vocab: dict[str, int], stream: list[str]) -> np.ndarray:
    # one C loop looks every token up (and numbers the new ones: vocab is a counting defaultdict)
    return np.fromiter(map(vocab.__getitem__, stream), np.int64, len(stream))
