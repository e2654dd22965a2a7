"""What lightscore borrows from sacrebleu's insides (`lightscore.text.mt.sacrebleu_api`) is still there and still
means what lightscore assumes. A failure here means a new sacrebleu changed one of them: read the adapter first."""

from __future__ import annotations

import re

import pytest
import sacrebleu
from sacrebleu.metrics import BLEU as SBLEU
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer

from lightscore.text.mt import sacrebleu_api as api
from lightscore.text.mt.reference import tokenize_13a


def test_the_release_lightscore_equals():
    assert sacrebleu.__version__ == api.SACREBLEU_VERSION


def test_13a_rules_are_the_ones_the_fast_paths_copy():
    rules = api.rules_13a()
    assert len(rules) == 4 and all(isinstance(p, re.Pattern) and isinstance(r, str) for p, r in rules)
    assert rules[0][0].pattern == api.FIRST_RULE_13A
    api.check_13a_rules()  # does not raise
    # the rules a Tokenizer13a runs are these very rules (its private post-tokenizer)
    assert [p.pattern for p, _ in Tokenizer13a()._post_tokenizer._re] == [p.pattern for p, _ in rules]


def test_touched_characters_are_exactly_those_13a_splits_a_word_at():
    """A character outside TOUCHED_13A never makes 13a split a word; one inside does, next to some neighbour."""
    for code in range(0x250):
        c = chr(code)
        if c.isspace():
            continue
        words = [f"a{c}b", f"1{c}2", f"a{c}", f"{c}a", f"1{c}", f"{c}1"]
        splits = any(Tokenizer13a()(w).split() != [w.replace("&amp;", "&")] for w in words)
        assert splits == bool(api.TOUCHED_13A.search(c)), repr(c)
        assert bool(api.SYMBOLS_13A.search(c)) == bool(api.rules_13a()[0][0].search(c)), repr(c)


@pytest.mark.parametrize("word", ["plain", "(3.5,x)", "a-b", "1-2", "U.S.", "don't", "東京", "$5"])
def test_word_pieces_equal_tokenizer_13a(word):
    assert api.word_pieces_13a(word) == Tokenizer13a()(word).split() == tokenize_13a(word)


def test_tokenizer_names_and_language_choice_are_sacrebleus():
    for name in ("13a", "intl", "zh", "char", "none"):
        assert api.tokenizer_class(name) is type(SBLEU(tokenize=name).tokenizer)
    assert api.language_tokenizers() == {"zh": "zh", "ja": "ja-mecab", "ko": "ko-mecab"}
    for lang in ("zh", "ja", "ko", "de", ""):  # the class sacrebleu builds for the language (mecab is installed)
        assert api.tokenizer_class(api.language_tokenizer(lang)) is type(SBLEU(trg_lang=lang).tokenizer)
    assert api.language_tokenizer("") == SBLEU.TOKENIZER_DEFAULT == "13a"


def test_13a_is_recognised():
    assert api.is_sacrebleu_13a(Tokenizer13a()) and not api.is_sacrebleu_13a(TercomTokenizer())
