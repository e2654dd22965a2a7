"""Tests for lightscore.text.normalize: equality with OpenAI Whisper's normalizers, and the user rules.

The golden answers in data/whisper_normalizer_golden.json were made by openai-whisper's own
``whisper/normalizers`` code (data/make_whisper_golden.py), not by the package under test.
"""

from __future__ import annotations

import json
import pickle
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lightscore.text.normalize import (
    OPENAI_ENGLISH_RULES_SHA1,
    PACKAGE,
    NormalizerError,
    TextNormalizer,
    english_rules_sha1,
    get_normalizer,
    whisper_normalizer,
)

GOLDEN = json.loads((Path(__file__).parent / "data" / "whisper_normalizer_golden.json").read_text(encoding="utf-8"))
CASES = GOLDEN["cases"]


@pytest.mark.parametrize("name", ["whisper_english", "whisper_basic"])
def test_equals_openai_whisper_on_the_golden_corpus(name):
    norm = get_normalizer(name)
    got = [(case["text"], norm(case["text"])) for case in CASES]
    assert got == [(case["text"], case[name]) for case in CASES]


def test_golden_corpus_covers_the_tricky_families():
    english = {case["text"]: case["whisper_english"] for case in CASES}
    assert english["twenty five"] == "25"
    assert english["$20.50"] == "$20.50"
    assert english["colour"] == "color"
    assert english["won't"] == "will not"
    assert english["y'all"] == "you all"
    assert english["20mm"] == "20 mm"
    assert len(CASES) >= 100


def test_english_rule_tables_equal_openai_whisper():
    assert GOLDEN["english_rules_sha1"] == OPENAI_ENGLISH_RULES_SHA1
    assert english_rules_sha1(whisper_normalizer("whisper_english")) == OPENAI_ENGLISH_RULES_SHA1


def test_whisper_normalizer_package_alone_differs_from_openai():
    # Guards the equality test: the package's own English class adds rules openai-whisper lacks.
    from whisper_normalizer.english import EnglishTextNormalizer

    text = "I dunno, it's sorta late cause of traffic"
    golden = next(case["whisper_english"] for case in CASES if case["text"] == text)
    assert EnglishTextNormalizer()(text) != golden
    assert get_normalizer("whisper_english")(text) == golden


def test_whisper_english_is_not_idempotent_and_lightscore_keeps_it():
    norm = get_normalizer("whisper_english")
    assert norm("20mm") == "20 mm"
    assert norm(norm("20mm")) == "20"


def test_none_returns_the_text_unchanged():
    text = "  Keep THIS, (as) it is!  "
    assert get_normalizer()(text) == text
    assert get_normalizer("none") == TextNormalizer()


def test_unknown_name_lists_the_choices():
    with pytest.raises(NormalizerError, match="unknown normalizer 'whisper'.*none, whisper_english, whisper_basic"):
        get_normalizer("whisper")


# ---- user rules ----------------------------------------------------------------------------


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_substitutions_and_fillers_apply_to_whole_words_only(tmp_path):
    subs = write(tmp_path, "subs.tsv", "# spoken forms\nokay\tok\n\nall right\talright\n")
    fillers = write(tmp_path, "fillers.txt", "er\nuh\n")
    norm = get_normalizer("none", substitutions=subs, fillers=fillers)
    assert norm("okay okayish er ERR uh-huh all right alrighty") == "ok okayish ERR uh-huh alright alrighty"
    assert norm("all  right") == "alright"  # the named normalizer's spacing does not matter
    assert norm("all righty") == "all righty"


def test_longest_source_wins_and_one_pass_is_left_to_right():
    norm = get_normalizer(substitutions={"new york": "ny", "new york city": "nyc", "new": "novel"})
    assert norm("new york city new york new") == "nyc ny novel"


def test_rules_run_after_the_named_normalizer():
    norm = get_normalizer("whisper_english", substitutions={"ok": "okay"}, fillers=["er"])
    assert norm("OK, Er, the colour.") == "okay the color"


WORDS = ["okay", "ok", "all", "right", "alright", "um", "er", "cat", "a", "b", "okayish"]
RULES = {"okay": "ok", "all right": "alright", "a b": "cat"}
FILLERS = ["um", "er"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(WORDS + [" ", "\t", "-"]), max_size=30).map("".join))
def test_user_rules_are_idempotent(text):
    norm = get_normalizer("none", substitutions=RULES, fillers=FILLERS)
    once = norm(text)
    assert norm(once) == once


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(WORDS + ["OKAY", "All", ",", "!", " ", "(x)"]), max_size=20).map("".join))
def test_whisper_basic_with_rules_is_idempotent(text):
    norm = get_normalizer("whisper_basic", substitutions=RULES, fillers=FILLERS)
    once = norm(text)
    assert norm(once) == once


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("okay\tok\nyes\n", r"subs\.tsv:2: expected 'from<TAB>to' \(one tab\), got 'yes'"),
        ("okay\tok\tfine\n", r"subs\.tsv:1: expected 'from<TAB>to' \(one tab\)"),
        ("okay\t \n", r"subs\.tsv:1: empty to field"),
        ("\tok\n", r"subs\.tsv:1: empty from field"),
        ("okay\tok\n# note\nokay\tfine\n", r"subs\.tsv:3: duplicate source 'okay' \(first at .*subs\.tsv:1\)"),
        ("okay\tok\nok\tfine\n", r"subs\.tsv:1: target 'ok' holds 'ok', a source word \(.*subs\.tsv:2\)"),
        ("all right\talright\nyes\tall\n", r"subs\.tsv:2: target 'all' holds 'all', a source word"),
        ("a b\ta\n", r"subs\.tsv:1: target 'a' holds 'a', a source word"),
    ],
)
def test_malformed_substitution_files_name_file_and_line(tmp_path, content, message):
    subs = write(tmp_path, "subs.tsv", content)
    with pytest.raises(NormalizerError, match=message):
        get_normalizer(substitutions=subs)


def test_substitution_file_that_is_not_utf8_names_the_line(tmp_path):
    subs = tmp_path / "subs.tsv"
    subs.write_bytes(b"okay\tok\ncaf\xe9\tcafe\n")
    with pytest.raises(NormalizerError, match=r"subs\.tsv:2: not UTF-8"):
        get_normalizer(substitutions=subs)


def test_missing_rule_file_names_it(tmp_path):
    with pytest.raises(FileNotFoundError, match="nowhere.tsv"):
        get_normalizer(substitutions=tmp_path / "nowhere.tsv")


@pytest.mark.parametrize(
    ("fillers", "subs", "message"),
    [
        ("um\nuh\num\n", {}, r"fillers\.txt:3: duplicate filler 'um' \(first at .*fillers\.txt:1\)"),
        ("um\nuh huh\n", {}, r"fillers\.txt:2: a filler is one word, got 'uh huh'"),
        ("um\n", {"okay": "um"}, r"substitutions\['okay'\]: target 'um' holds 'um', a filler"),
        ("um\n", {"um okay": "ok"}, r"substitutions\['um okay'\]: source 'um okay' holds the filler 'um'"),
    ],
)
def test_bad_fillers_name_file_and_line(tmp_path, fillers, subs, message):
    path = write(tmp_path, "fillers.txt", fillers)
    with pytest.raises(NormalizerError, match=message):
        get_normalizer(substitutions=subs, fillers=path)


def test_filler_list_errors_name_the_index():
    with pytest.raises(NormalizerError, match=r"fillers\[2\]: duplicate filler 'um' \(first at fillers\[0\]\)"):
        get_normalizer(fillers=["um", "uh", "um"])
    with pytest.raises(NormalizerError, match=r"fillers\[1\]: empty filler"):
        get_normalizer(fillers=["um", ""])


@pytest.mark.parametrize(
    ("name", "subs", "fillers", "message"),
    [
        ("whisper_basic", {"OK": "ok"}, None, r"whisper_basic turns source 'OK' into 'ok', so it never matches"),
        ("whisper_basic", {"ok": "O.K."}, None, r"turns target 'O\.K\.' into 'o k', so a second pass would change it"),
        ("whisper_english", {"colour": "hue"}, None, r"turns source 'colour' into 'color'"),
        ("whisper_english", {"ok": "five"}, None, r"turns target 'five' into '5'"),
        ("whisper_english", None, ["mm", "Er"], r"fillers\[1\]: whisper_english turns filler 'Er' into 'er'"),
    ],
)
def test_rules_the_named_normalizer_rewrites_are_rejected(name, subs, fillers, message):
    with pytest.raises(NormalizerError, match=message):
        get_normalizer(name, substitutions=subs, fillers=fillers)


# ---- pickling and describe() ---------------------------------------------------------------


@pytest.mark.parametrize("name", ["none", "whisper_english", "whisper_basic"])
def test_pickle_round_trip_gives_the_same_outputs(tmp_path, name):
    subs = write(tmp_path, "subs.tsv", "okay\tok\n")
    norm = get_normalizer(name, substitutions=subs, fillers=["er"])
    copy = pickle.loads(pickle.dumps(norm))
    assert copy == norm
    assert copy.describe() == norm.describe()
    texts = [case["text"] for case in CASES] + ["Okay, er, fine"]
    assert [copy(t) for t in texts] == [norm(t) for t in texts]


def test_pickle_holds_no_whisper_object():
    data = pickle.dumps(get_normalizer("whisper_english"))
    assert b"whisper_normalizer" not in data
    assert len(data) < 500


def test_unpickled_normalizer_builds_whisper_in_a_fresh_process():
    blob = pickle.dumps(get_normalizer("whisper_english", fillers=["er"]))
    code = (
        "import pickle, sys\n"
        f"norm = pickle.loads({blob!r})\n"
        "assert 'whisper_normalizer' not in sys.modules\n"
        "print(norm('Er, twenty five colours'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out == "25 colors\n"


def test_import_does_not_load_whisper_normalizer():
    code = "import sys, lightscore.text.normalize; print('whisper_normalizer' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out == "False\n"


def test_describe_names_version_files_and_hashes(tmp_path):
    from importlib import metadata

    subs = write(tmp_path, "subs.tsv", "okay\tok\n")
    fillers = write(tmp_path, "fillers.txt", "um\nuh\ner\n")
    version = metadata.version(PACKAGE)
    assert get_normalizer().describe() == "none"
    assert get_normalizer("whisper_basic").describe() == f"whisper_basic (whisper-normalizer {version})"
    described = get_normalizer("whisper_english", substitutions=subs, fillers=fillers).describe()
    assert re.fullmatch(
        rf"whisper_english \(whisper-normalizer {re.escape(version)}\)"
        r" \+ substitutions subs\.tsv \(sha1 [0-9a-f]{8}\) \+ fillers fillers\.txt \(sha1 [0-9a-f]{8}\)",
        described,
    )
    assert get_normalizer(fillers=["um", "uh", "er"]).describe().startswith("none + 3 fillers (sha1 ")


def test_describe_hash_follows_the_file_content(tmp_path):
    import hashlib

    subs = write(tmp_path, "subs.tsv", "okay\tok\n")
    first = get_normalizer(substitutions=subs).describe()
    assert hashlib.sha1(subs.read_bytes()).hexdigest()[:8] in first
    write(tmp_path, "subs.tsv", "okay\tfine\n")
    assert get_normalizer(substitutions=subs).describe() != first
    # A mapping hashes as the file holding the same lines would.
    from_mapping = get_normalizer(substitutions={"okay": "ok"}).describe()
    assert from_mapping == first.replace("substitutions subs.tsv", "1 substitutions")


def test_a_normalizer_built_directly_is_checked_too():
    with pytest.raises(NormalizerError, match=r"substitutions\['okay'\]: target 'ok' holds 'ok', a source word"):
        TextNormalizer("none", substitutions=(("okay", "ok"), ("ok", "fine")))
    with pytest.raises(NormalizerError, match=r"substitutions\['all  right'\]: .* needs words separated by single"):
        TextNormalizer("none", substitutions=(("all  right", "alright"),))
    with pytest.raises(NormalizerError, match=r"substitutions\['uh'\]: 'uh' -> '' needs words"):
        TextNormalizer("none", substitutions=(("uh", ""),))
