"""Machine-translation tokenizers equal to sacrebleu 2.6's: BLEU's (13a, intl, zh, char, none, mecab) and Tercom's.

sacrebleu's own tokenizer classes are the reference and are used as they are
(`lightscore.text.mt.sacrebleu_api` finds them); BLEU's metric takes 13a per
distinct word (`lightscore.text.mt.token_ids`). `tokenize_13a_batch` runs 13a's
regular expressions once over a whole batch instead of once per segment. The
tokens of a batch come as one stream, `SEPARATOR` between segments, the way
sacrebleu's n-gram extraction reads them (``str.split`` of each tokenized line).

>>> token_stream(["Hello, world!", "Bye."], bleu_tokenizer("13a"))
['Hello', ',', 'world', '!', '\\x00', 'Bye', '.']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from lightscore._extras import missing_extra
from lightscore.text.mt.reference import tokenize_13a, unescape_13a
from lightscore.text.mt.sacrebleu_api import (
    SACREBLEU_VERSION,
    SYMBOLS_13A,
    check_13a_rules,
    is_sacrebleu_13a,
    rules_13a,
    tokenizer_class,
)

__all__ = [
    "BLEU_TOKENIZERS",
    "SACREBLEU_VERSION",
    "bleu_tokenizer",
    "preprocess_bleu",
    "SEPARATOR",
    "SEPARATOR_WORD",
    "join_stream",
    "tercom_tokenizer",
    "token_stream",
    "tokenize_13a_batch",
]

# name -> the extra that brings the packages its sacrebleu class needs beyond sacrebleu (None: none)
_BLEU_EXTRAS: dict[str, tuple[str, str] | None] = {
    "13a": None,
    "intl": None,
    "zh": None,
    "char": None,
    "none": None,
    "ja-mecab": ("mt-ja", "MeCab"),
    "ko-mecab": ("mt-ko", "mecab_ko"),
}
BLEU_TOKENIZERS = tuple(_BLEU_EXTRAS)
"""The names BLEU's ``tokenize`` option accepts: sacrebleu's, less the SentencePiece ones."""
# sacrebleu's SentencePiece tokenizers download their model on first use: refused by name, not as unknown
_DOWNLOADING = ("spm", "flores101", "flores200", "spBLEU-1K")

Tokenizer = Callable[[str], str]


def bleu_tokenizer(name: str, owner: str = "BLEU") -> Tokenizer:
    """sacrebleu's BLEU tokenizer called ``name`` (an instance: ``tok(line) -> tokenized line``).

    Args:
        name: One of `BLEU_TOKENIZERS`.
        owner: Who asks (the metric's name), first in an error message.

    Returns:
        The sacrebleu tokenizer object; ``.signature()`` gives its name in the signature.

    Raises:
        ValueError: an unknown name, or one of sacrebleu's SentencePiece tokenizers (they download a model).
        lightscore._extras.MissingExtraError: a mecab tokenizer whose packages are not installed (names the extra).

    >>> bleu_tokenizer("intl").signature()
    'intl'
    >>> bleu_tokenizer("moses")
    Traceback (most recent call last):
    ...
    ValueError: BLEU: tokenize 'moses' is not one of 13a, intl, zh, char, none, ja-mecab, ko-mecab
    """
    if name in _DOWNLOADING:
        raise ValueError(
            f"{owner}: tokenize {name!r} (sacrebleu's SentencePiece tokenizer, which downloads "
            f"its model) is not supported; use one of {', '.join(BLEU_TOKENIZERS)}"
        )
    if name not in _BLEU_EXTRAS:
        raise ValueError(f"{owner}: tokenize {name!r} is not one of {', '.join(BLEU_TOKENIZERS)}")
    extra = _BLEU_EXTRAS[name]
    try:
        return tokenizer_class(name)()
    except (ImportError, RuntimeError) as e:
        if extra is None:
            raise
        raise missing_extra(f"{owner} with tokenize={name!r}", *extra) from e


def preprocess_bleu(lines: Sequence[str], lowercase: bool) -> list[str]:
    """What sacrebleu's BLEU does to a segment before tokenizing: lower-case (optional), then ``rstrip``.

    >>> preprocess_bleu(["The Cat  "], lowercase=True)
    ['the cat']
    """
    if lowercase:
        return [line.lower().rstrip() for line in lines]
    return [line.rstrip() for line in lines]


SEPARATOR = "\x00"
"""The token put between two segments in a token stream (a text holding it goes the slow, exact road)."""
SEPARATOR_WORD = "\x00 "
"""What a word that is the separator's character becomes in a stream: no ``split`` token holds a space."""


def token_stream(lines: Sequence[str], tokenizer: Tokenizer) -> list[str]:
    """The tokens of all (preprocessed) segments in one list, `SEPARATOR` between segments.

    Plain twin: `lightscore.text.mt.reference.tokenize_13a` per line, then ``split`` (other tokenizers: their own
    call per line).

    One ``str.split`` of the whole batch costs far less than one per segment.
    13a takes the batch path (`tokenize_13a_batch`); other tokenizers run per segment.

    Args:
        lines: Segments after `preprocess_bleu` (or as chrF and TER prepare them).
        tokenizer: A sacrebleu tokenizer, e.g. from `bleu_tokenizer`.

    Returns:
        The tokens, ``tokenizer(line).split()`` of each line, with `SEPARATOR` between lines.

    >>> token_stream(["a b", "", "c"], bleu_tokenizer("none"))
    ['a', 'b', '\\x00', '\\x00', 'c']
    """
    if is_sacrebleu_13a(tokenizer):
        text = _tokenized_13a_text(lines)
    else:
        text = "\n".join(tokenizer(line) for line in lines)
    if SEPARATOR in text or text.count("\n") != max(len(lines) - 1, 0):
        return join_stream(tokenizer(line).split() for line in lines)
    return text.replace("\n", f" {SEPARATOR} ").split()


def join_stream(token_lists: Iterable[Sequence[str]]) -> list[str]:
    """Each segment's tokens in one stream, `SEPARATOR` between segments (a token equal to it made `SEPARATOR_WORD`).

    >>> join_stream([["a", "b"], ["\\x00", "c"]])
    ['a', 'b', '\\x00', '\\x00 ', 'c']
    """
    stream: list[str] = []
    for i, tokens in enumerate(token_lists):
        if i:
            stream.append(SEPARATOR)
        # a token equal to the separator would end its segment early: make it a string no other token is
        stream.extend(token if token != SEPARATOR else SEPARATOR_WORD for token in tokens)
    return stream


def tokenize_13a_batch(lines: Sequence[str]) -> list[list[str]]:
    """sacrebleu's ``Tokenizer13a`` over many segments at once: one regular-expression pass per rule.

    Plain twin: `lightscore.text.mt.reference.tokenize_13a` per line.

    The segments are joined with newlines, each padded with a space as 13a pads
    it: no rule can match a newline or reach across the padding, so each
    segment is tokenized exactly as alone. Segments that hold a newline
    themselves (13a joins their lines) go one by one.

    Args:
        lines: Segments, already lower-cased and stripped on the right as BLEU does.

    Returns:
        One list of tokens per segment, ``Tokenizer13a()(line).split()``.

    >>> tokenize_13a_batch(["It costs $3.50.", "a-b &amp; c"])
    [['It', 'costs', '$', '3.50', '.'], ['a-b', '&', 'c']]
    """
    return [line.split() for line in _tokenized_13a_text(lines).split("\n")] if lines else []


def _tokenized_13a_text(lines: Sequence[str]) -> str:
    """The 13a-tokenized lines joined by newlines (not yet split)."""
    text = "\n".join(lines)
    if text.count("\n") != len(lines) - 1:  # a segment holds a newline itself (13a joins its lines)
        return "\n".join(" ".join(tokenize_13a(line)) for line in lines)
    text = " " + unescape_13a(text, join_lines=False).replace("\n", " \n ") + " "
    check_13a_rules()
    # 13a's first rule pads symbols with spaces, the space among them: padding a space changes no
    # token, and leaving spaces out makes the pass 50 times faster.
    text = SYMBOLS_13A.sub(r" \1 ", text)
    for pattern, replacement in rules_13a()[1:]:
        text = pattern.sub(replacement, text)
    return text


def tercom_tokenizer(normalized: bool, no_punct: bool, asian_support: bool, case_sensitive: bool) -> Tokenizer:
    """sacrebleu's ``TercomTokenizer`` with TER's four options (it lower-cases unless ``case_sensitive``).

    >>> tercom_tokenizer(False, True, False, False)("Hello, World!")
    'hello world'
    """
    from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer

    return TercomTokenizer(
        normalized=normalized, no_punct=no_punct, asian_support=asian_support, case_sensitive=case_sensitive
    )
