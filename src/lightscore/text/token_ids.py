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

>>> from lightscore.text.mt_tokenize import bleu_tokenizer
>>> ids, lengths = TokenIds(bleu_tokenizer("13a")).encode([["a,b c"], ["c a"]])
>>> [i.tolist() for i in ids], [n.tolist() for n in lengths]
([[0, 1, 2, 3], [3, 0]], [[4], [2]])
"""

from __future__ import annotations

import operator
import re
from collections.abc import Sequence

import numpy as np

from lightscore.text.mt_tokenize import SEPARATOR, Tokenizer, token_stream

__all__ = ["TokenIds"]

# every character a 13a rule can act on inside a word: its symbols (rule 1), then "." "," "-" (rules 2-4)
_TOUCHED = re.compile(r"[\{-\~\[-\`!-\&\(-\+\:-\@\/.,\-]")


class TokenIds:
    """Token ids of several sides of the same segments (hypotheses, references), dense within one call.

    Args:
        tokenizer: A sacrebleu BLEU tokenizer (`lightscore.text.mt_tokenize.bleu_tokenizer`).
        limit: Words kept in the cache before it is cleared.
    """

    def __init__(self, tokenizer: Tokenizer, limit: int = 1 << 20) -> None:
        self.tokenizer = tokenizer
        self.per_word = type(tokenizer).__name__ == "Tokenizer13a" and type(tokenizer).__module__.startswith(
            "sacrebleu."
        )
        self.limit = limit
        self._clear()

    def _clear(self) -> None:
        self.words: dict[str, int] = {SEPARATOR: 0}  # a word of the input -> its id
        self.pieces: dict[str, int] = {SEPARATOR: 0}  # a token of the output -> its id
        self._first = np.zeros(1 << 12, np.int64)  # per word id: where its piece ids start in _flat
        self._count = np.ones(1 << 12, np.int64)  # per word id: how many pieces
        self._flat = np.zeros(1 << 12, np.uint64)
        self._used = 1  # entries of _flat in use

    def encode(self, sides: Sequence[Sequence[str]]) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """Ids of every side's tokens (segment after segment, uint64, dense over the call) and tokens per segment.

        Args:
            sides: Per side, its segments already lower-cased and right-stripped as BLEU does.

        Returns:
            ``(ids, lengths)`` as `lightscore.text.ngram_counts.word_ids` returns them.
        """
        if len(self.words) > self.limit:
            self._clear()
        streams = [self._piece_ids(side) for side in sides]
        lengths = []
        for stream in streams:
            cuts = np.flatnonzero(stream == 0)
            lengths.append(np.diff(np.concatenate(([-1], cuts, [len(stream)]))) - 1)
        kept = [stream[stream != 0] for stream in streams]
        _, dense = np.unique(np.concatenate(kept), return_inverse=True)
        bounds = np.cumsum([len(k) for k in kept])[:-1]
        return [part.astype(np.uint64) for part in np.split(dense.reshape(-1), bounds)], lengths

    def _piece_ids(self, lines: Sequence[str]) -> np.ndarray:
        """The output-token ids of one side, 0 between segments."""
        text = "\n".join(lines)
        if not self.per_word or SEPARATOR in text or text.count("\n") != max(len(lines) - 1, 0):
            stream = token_stream(lines, self.tokenizer)  # tokenized already: each token is a piece
            for token in dict.fromkeys(stream):
                self.pieces.setdefault(token, len(self.pieces))
            return _ids(self.pieces, stream).astype(np.uint64)
        text = text.replace("<skipped>", "")
        if "&" in text:
            text = text.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
        return self._word_pieces(text.replace("\n", f" {SEPARATOR} ").split())

    def _word_pieces(self, stream: list[str]) -> np.ndarray:
        words = self.words
        for word in dict.fromkeys(stream):
            if word not in words:
                # a word with none of the characters 13a's rules look at is its own token
                touched = _TOUCHED.search(word)
                self._add(word, self.tokenizer._post_tokenizer(f" {word} ").split() if touched else [word])
        ids = _ids(words, stream)
        count = self._count[ids]
        if (count == 1).all():
            return self._flat[self._first[ids]]
        total = int(count.sum())
        offsets = np.arange(total) - np.repeat(np.cumsum(count) - count, count)
        return self._flat[np.repeat(self._first[ids], count) + offsets]

    def _add(self, word: str, pieces: list[str]) -> None:
        key = len(self.words)
        self.words[word] = key
        if key >= len(self._first):
            self._first = np.concatenate((self._first, np.zeros_like(self._first)))
            self._count = np.concatenate((self._count, np.ones_like(self._count)))
        while self._used + len(pieces) > len(self._flat):
            self._flat = np.concatenate((self._flat, np.zeros_like(self._flat)))
        self._first[key], self._count[key] = self._used, len(pieces)
        for piece in pieces:
            self._flat[self._used] = self.pieces.setdefault(piece, len(self.pieces))
            self._used += 1


def _ids(vocab: dict[str, int], stream: list[str]) -> np.ndarray:
    # itemgetter looks every token up in one C loop (one token: a bare int, hence the reshape)
    return np.array(operator.itemgetter(*stream)(vocab) if stream else (), np.int64).reshape(-1)
