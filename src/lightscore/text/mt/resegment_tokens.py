"""The tokens re-segmentation aligns, cut as mweralign cuts them: ``none``, ``cj`` or a SentencePiece model.

mweralign (the maintained successor of mwerSegmenter) hands its C++ aligner a line of tokens joined
by spaces, and the aligner splits that line again on ASCII whitespace only (C's ``isspace``). So:

- ``none``: the text, stripped as Python strips, split on ASCII whitespace (a no-break space or an
  ideographic space is part of a word, as it is for mweralign).
- ``cj``: a literal ``▁`` is escaped to NUL, every space becomes ``▁``, then each run of Latin-1
  characters (with its ``▁``) is one token and every other character (Han, kana, Hangul...) is a
  token of its own; the re-segmented tokens are joined back, ``▁`` turned into spaces.
- a SentencePiece model file (``*.model``): its pieces; the segment is decoded by the model. For a
  language written with spaces (``no_whitespace=False``) a segment may not start on a word-internal
  piece (`starts_inside_word`), as mweralign forbids mid-word cuts.

Tokens are compared as the aligner compares them: ASCII letters folded to lower case, nothing else.

>>> tok = tokenizer("none")
>>> tok.encode("  The cat\\u00a0sat  "), tok.decode(["The", "cat"])
(['The', 'cat\\xa0sat'], 'The cat')
>>> tokenizer("cj").encode("我们 go home")
['我', '们', '▁go▁home']
>>> match_key("Ünd THE")
'Ünd the'
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lightscore._extras import require

__all__ = ["RESEG_TOKENIZERS", "ResegTokenizer", "cj_tokens", "match_key", "starts_inside_word", "tokenizer"]

RESEG_TOKENIZERS = ("none", "cj")
"""The tokenizations that need no model; any other value names a local SentencePiece model file."""

SPM_SPACE = "\u2581"
_ESCAPE = "\x00"  # stands for a literal ▁ of the input, so it is not read as a space
_ASCII_SPACE = re.compile(r"[ \t\n\v\f\r]+")  # what C's isspace() splits on
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def split_ascii(text: str) -> list[str]:
    """``text`` stripped (Python's strip) and split on ASCII whitespace, as mweralign's aligner reads a line.

    >>> split_ascii(" a\\tb  c\\u3000d ")
    ['a', 'b', 'c\\u3000d']
    """
    return [t for t in _ASCII_SPACE.split(text.strip()) if t]


def match_key(token: str) -> str:
    """The form two tokens are compared in: ASCII upper case folded (the aligner's byte-wise ``tolower``).

    >>> match_key("ÉCOLE Cat")
    'École cat'
    """
    return token.translate(_ASCII_LOWER)


def cj_tokens(text: str) -> list[str]:
    """mweralign's ``cj`` tokens: runs of Latin-1 characters (spaces as ``▁``), every other character alone.

    Args:
        text: One segment or one talk.

    Returns:
        The tokens, split once more on ASCII whitespace (a tab or newline inside a run), as the aligner reads them.

    >>> cj_tokens("Hi 世界!")
    ['Hi▁', '世', '界', '!']
    """
    text = text.strip().replace(SPM_SPACE, _ESCAPE).replace(" ", SPM_SPACE)
    tokens: list[str] = []
    run: list[str] = []
    for char in text:
        if ord(char) <= 0xFF or char == SPM_SPACE:
            run.append(char)
            continue
        if run:
            tokens.append("".join(run))
            run = []
        tokens.append(char)
    if run:
        tokens.append("".join(run))
    return [piece for token in tokens for piece in _ASCII_SPACE.split(token) if piece]


def _cj_decode(tokens: Sequence[str]) -> str:
    return "".join(tokens).replace(SPM_SPACE, " ").replace(_ESCAPE, SPM_SPACE).strip()


def starts_inside_word(piece: str) -> bool:
    """Whether a segment may not start on this SentencePiece piece: no word marker, and word material in it.

    The aligner looks at the piece's first UTF-8 byte (``▁`` starts with 0xE2, so does every character
    from U+2000 to U+2FFF) and then for a letter or digit: a piece of punctuation alone may start a
    segment.

    >>> starts_inside_word("ing"), starts_inside_word("▁the"), starts_inside_word("."), starts_inside_word("—x")
    (True, False, False, False)
    """
    if not piece or 0x2000 <= ord(piece[0]) <= 0x2FFF:
        return False
    return any(not c.isascii() or c.isalnum() for c in piece)


@dataclass(frozen=True)
class ResegTokenizer:
    """One tokenization: ``encode`` a text into tokens, ``decode`` a segment's tokens into text.

    ``forbid_inside_word`` is True for a SentencePiece model on a language written with spaces:
    no segment but the first may then start on a word-internal piece.
    """

    name: str
    model: Any = None
    forbid_inside_word: bool = False

    def encode(self, text: str) -> list[str]:
        """The tokens of ``text``, as the aligner reads them."""
        if self.name == "none":
            return split_ascii(text)
        if self.name == "cj":
            return cj_tokens(text)
        pieces = self.model.encode(text.strip(), out_type=str)
        return [p for piece in pieces for p in _ASCII_SPACE.split(piece) if p]

    def decode(self, tokens: Sequence[str]) -> str:
        """One re-segmented segment's text from its tokens."""
        if self.name == "none":
            return " ".join(tokens)
        if self.name == "cj":
            return _cj_decode(tokens)
        return self.model.decode(list(tokens))

    @property
    def label(self) -> str:
        """A short name for settings and file names: ``none``, ``cj`` or the model file's stem."""
        if self.name in RESEG_TOKENIZERS:
            return self.name
        return "spm-" + os.path.splitext(os.path.basename(self.name))[0]


def tokenizer(name: str | os.PathLike = "none", no_whitespace: bool = False) -> ResegTokenizer:
    """The tokenization ``name``: ``none``, ``cj`` or the path of a local SentencePiece model.

    Args:
        name: ``none``, ``cj``, or a ``.model`` file (loaded with sentencepiece, the ``ter`` extra).
        no_whitespace: The language is written without spaces (Chinese, Japanese): with a model,
            segments may start inside a word (mweralign's ``-w``, ``-l zh``/``-l ja``).

    Returns:
        The tokenizer.

    Raises:
        FileNotFoundError: ``name`` is neither ``none`` nor ``cj`` and no such file exists.
        lightscore._extras.MissingExtraError: a model, but sentencepiece (the ``ter`` extra) is missing.
        ValueError: the file is not a SentencePiece model.

    >>> tokenizer("cj").label
    'cj'
    >>> tokenizer("spm32k")
    Traceback (most recent call last):
    ...
    FileNotFoundError: re-segmentation tokenize 'spm32k': not 'none', 'cj' or a SentencePiece model file \
(named models are not downloaded: give the path of a local .model file)
    """
    name = os.fspath(name)
    if name in RESEG_TOKENIZERS:
        return ResegTokenizer(name)
    if not os.path.isfile(name):
        raise FileNotFoundError(
            f"re-segmentation tokenize {name!r}: not 'none', 'cj' or a SentencePiece model file "
            "(named models are not downloaded: give the path of a local .model file)"
        )
    require("Re-segmentation with a SentencePiece model", "ter", "sentencepiece")
    import sentencepiece

    try:
        model = sentencepiece.SentencePieceProcessor(model_file=name)
    except (RuntimeError, OSError) as e:
        raise ValueError(f"re-segmentation tokenize {name!r}: not a SentencePiece model ({e})") from None
    return ResegTokenizer(name, model, forbid_inside_word=not no_whitespace)
