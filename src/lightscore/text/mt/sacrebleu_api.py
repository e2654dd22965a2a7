"""Everything lightscore borrows from sacrebleu 2.6's insides, in one place (the one adapter).

lightscore's translation numbers equal sacrebleu's because, where a number depends on one of
sacrebleu's choices, it reads that choice from sacrebleu instead of copying it: 13a's regular
expressions, the tokenizer sacrebleu gives a target language, the classes behind its tokenizer
names. Several of them are private (a leading underscore) and may
change in any sacrebleu release, so they are read here and nowhere else, and
``tests/test_sacrebleu_api.py`` fails loudly when one of them moves. Changing how BLEU tokenizes
means opening this file.

The one fact written out here rather than read is the class of characters 13a's first rule pads
(`SYMBOLS_13A`): the fast 13a paths skip the words none of 13a's rules can touch, so they need the
class as a regular expression of their own. `check_13a_rules` compares it with sacrebleu's rule.

sacrebleu is imported inside the functions: ``import lightscore.text.mt.<module>`` needs no sacrebleu.

>>> SYMBOLS_13A.sub(r" \\1 ", "a(b")
'a ( b'
>>> bool(TOUCHED_13A.search("3.5")), bool(TOUCHED_13A.search("word"))
(True, False)
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from importlib import import_module
from typing import Any

__all__ = [
    "FIRST_RULE_13A",
    "SACREBLEU_VERSION",
    "SYMBOLS_13A",
    "TOUCHED_13A",
    "check_13a_rules",
    "is_sacrebleu_13a",
    "language_tokenizer",
    "language_tokenizers",
    "rules_13a",
    "tokenizer_class",
    "word_pieces_13a",
]

SACREBLEU_VERSION = "2.6.0"
"""The sacrebleu release lightscore's translation metrics equal (their signatures name it)."""

# 13a's first rule, as sacrebleu writes it: every ASCII symbol gets a space on each side. Its class
# runs " -\&" (space to "&"): the space itself is padded too, which changes no token.
FIRST_RULE_13A = r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"
# The same class without the space ("!" to "&"): padding spaces is most of the rule's cost on real text.
SYMBOLS_13A = re.compile(FIRST_RULE_13A.replace(" -", "!-"))
# Every character a 13a rule can act on inside a word: the symbols (rule 1), then "." "," "-" (rules 2-4).
# A word holding none of them is its own token.
TOUCHED_13A = re.compile("[" + FIRST_RULE_13A[2:-2].replace(" -", "!-") + r".,\-]")


@functools.cache
def rules_13a() -> list[tuple[re.Pattern, str]]:
    """sacrebleu's compiled 13a rules, ``(pattern, replacement)`` in order (``TokenizerRegexp()._re``).

    >>> [replacement for _, replacement in rules_13a()]
    [' \\\\1 ', '\\\\1 \\\\2 ', ' \\\\1 \\\\2', '\\\\1 \\\\2 ']
    """
    from sacrebleu.tokenizers.tokenizer_re import TokenizerRegexp

    return list(TokenizerRegexp()._re)


def check_13a_rules() -> None:
    """Fail unless sacrebleu's first 13a rule is `FIRST_RULE_13A` (the fast paths' copy of its class).

    Raises:
        RuntimeError: sacrebleu changed 13a; the fast 13a paths would give other tokens.

    >>> check_13a_rules()
    """
    first = rules_13a()[0][0].pattern
    if first != FIRST_RULE_13A:
        raise RuntimeError(f"sacrebleu's 13a first rule is {first!r}, lightscore expects {FIRST_RULE_13A!r}")


@functools.cache
def _regexp_tokenizer() -> Callable[[str], str]:
    from sacrebleu.tokenizers.tokenizer_re import TokenizerRegexp

    return TokenizerRegexp()


def word_pieces_13a(word: str) -> list[str]:
    """The 13a tokens of one whitespace-free word, after 13a's whole-line replacements were done.

    13a's rules look at two neighbouring characters, none of them whitespace, so a line's tokens
    are its words' tokens (sacrebleu's ``Tokenizer13a._post_tokenizer`` on the padded word).

    >>> word_pieces_13a("(3.5,x)"), word_pieces_13a("plain")
    (['(', '3.5', ',', 'x', ')'], ['plain'])
    """
    return _regexp_tokenizer()(f" {word} ").split() if TOUCHED_13A.search(word) else [word]


def is_sacrebleu_13a(tokenizer: Any) -> bool:
    """Whether ``tokenizer`` is sacrebleu's own ``Tokenizer13a`` (the only one the fast 13a paths replace).

    >>> is_sacrebleu_13a(str.split)
    False
    """
    cls = type(tokenizer)
    return cls.__name__ == "Tokenizer13a" and cls.__module__.startswith("sacrebleu.")


def tokenizer_class(name: str) -> type:
    """The sacrebleu class behind BLEU's tokenizer name (sacrebleu's ``bleu._get_tokenizer``).

    Raises:
        KeyError: a name sacrebleu does not know.
        ImportError: the tokenizer's module needs packages that are not installed.

    >>> tokenizer_class("13a").__name__
    'Tokenizer13a'
    """
    from sacrebleu.metrics import bleu

    module, cls = bleu._TOKENIZERS[name].rsplit(".", 1)
    return getattr(import_module(f"sacrebleu.tokenizers.{module}"), cls)


def language_tokenizers() -> dict[str, str]:
    """The target languages for which sacrebleu's BLEU picks a tokenizer of its own (``BLEU._TOKENIZER_MAP``).

    >>> language_tokenizers()["ja"]
    'ja-mecab'
    """
    from sacrebleu.metrics.bleu import BLEU

    return dict(BLEU._TOKENIZER_MAP)


def language_tokenizer(trg_lang: str) -> str:
    """The tokenizer sacrebleu's BLEU picks when ``tokenize`` is None: by target language, else its default.

    >>> language_tokenizer("zh"), language_tokenizer("de"), language_tokenizer("")
    ('zh', '13a', '13a')
    """
    from sacrebleu.metrics.bleu import BLEU

    return language_tokenizers().get(trg_lang, BLEU.TOKENIZER_DEFAULT)
