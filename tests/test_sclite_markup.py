"""sclite's reference markup (alternations, ``@``, ``(optional)`` -D, fragments -F) against ``sctk sclite``."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_sclite_case import needs_sctk, run_sclite

from lightscore.core.batch import feed
from lightscore.metrics import WER
from lightscore.offline.sclite_inputs import sclite_scps
from lightscore.text.sclite import markup as sclite_markup
from lightscore.text.sclite.encode import Vocabulary, encode, network
from lightscore.text.sclite.markup import (
    MarkupError,
    count_markup_pairs,
    markup_align,
    markup_counts,
    parse_reference,
)
from lightscore.text.sclite.trn import TrnError, read_trn

VOCABULARY = ["a", "b", "c", "word", "wor-", "-ord", "wo-", "uh", "um", "x"]
OPTIONS = {"plain": [], "D": ["-D"], "F": ["-F"], "DF": ["-D", "-F"]}


def word() -> st.SearchStrategy[str]:
    return st.sampled_from(VOCABULARY) | st.sampled_from(["(uh)", "(um)", "(a)", "@"])


def element(depth: int) -> st.SearchStrategy[str]:
    """A word, or (up to two levels deep) an alternation of one to three alternatives of one to three elements."""
    if depth == 0:
        return word()
    alternative = st.lists(element(depth - 1), min_size=1, max_size=3).map(" ".join)
    alternation = st.lists(alternative, min_size=1, max_size=3).map(lambda alts: "{ " + " / ".join(alts) + " }")
    return word() | alternation


references = st.lists(element(2), min_size=0, max_size=6).map(" ".join)
# sclite reads a trn hypothesis as a network too: alternations there as well, now and then.
hypotheses = st.lists(st.sampled_from([*VOCABULARY, "(uh)", "a*"]) | element(1), min_size=0, max_size=7).map(" ".join)


def counts(pairs: list[tuple[str, str]], options: list[str]) -> list[tuple[int, int, int, int]]:
    found = count_markup_pairs([r for r, _ in pairs], [h for _, h in pairs], "-D" in options, "-F" in options)
    return [(c.ref_len - c.sub - c.dele, c.sub, c.dele, c.ins) for c in found]


@needs_sctk
@pytest.mark.parametrize("mode", OPTIONS)
@settings(max_examples=8, deadline=None)
@given(pairs=st.lists(st.tuples(references, hypotheses), min_size=1, max_size=60))
def test_every_utterance_equals_sclite(mode: str, pairs, tmp_path_factory) -> None:
    pairs = [(ref, hyp) for ref, hyp in pairs if ref.strip() or hyp.strip()]
    if not pairs:
        return
    expected = run_sclite(pairs, tmp_path_factory.mktemp("markup"), ["-s", *OPTIONS[mode]])
    for pair, got, want in zip(pairs, counts(pairs, OPTIONS[mode]), expected.values()):
        assert got == want, pair


@needs_sctk
def test_the_issue_examples(tmp_path: Path) -> None:
    pairs = [
        ("{ um / uh } yes", "uh yes"),
        ("email me @ home", "email me home"),
        ("{ um / @ } yes", "yes"),
        ("{ a b / c } d", "c d"),
        ("(uh) yes", "yes"),
        ("wor- yes", "word yes"),
    ]
    for options in ([], ["-D", "-F"]):
        assert counts(pairs, options) == list(run_sclite(pairs, tmp_path, options).values())
    assert counts(pairs, ["-D", "-F"])[4:] == [(2, 0, 0, 0), (2, 0, 0, 0)]
    assert counts(pairs, [])[4:] == [(1, 0, 1, 0), (1, 1, 0, 0)]  # literal words without -D and -F


def test_alignment_shows_the_path_taken() -> None:
    pairs = markup_align(parse_reference("x { a / { b / c d } } y"), parse_reference("x c d y"))
    assert pairs == [("x", "x", "C"), ("c", "c", "C"), ("d", "d", "C"), ("y", "y", "C")]
    assert markup_align(parse_reference("a @ b"), parse_reference("a q b")) == [
        ("a", "a", "C"),
        (None, "q", "I"),
        ("b", "b", "C"),
    ]


@pytest.mark.parametrize(("text", "message"), [("{ a / b c", "never closed"), ("{ } c", "no alternative")])
def test_bad_markup_is_named(text: str, message: str) -> None:
    with pytest.raises(MarkupError, match=message):
        parse_reference(text)


@needs_sctk
@settings(max_examples=6, deadline=None)
@given(pairs=st.lists(st.tuples(references, hypotheses), min_size=1, max_size=60), upper=st.integers(0, 2**16))
def test_wer_on_trn_files_equals_sclite_as_espnet_calls_it(pairs, upper: int, tmp_path_factory) -> None:
    """``WER(markup=True, aligner="sclite", case="sclite")`` fed from trn files: sclite's per-utterance counts."""
    pairs = [(ref, hyp.upper() if (upper >> k) & 1 else hyp) for k, (ref, hyp) in enumerate(pairs)]
    pairs = [(ref, hyp) for ref, hyp in pairs if ref.strip() or hyp.strip()]
    if not pairs:
        return
    folder = tmp_path_factory.mktemp("wer")
    expected = run_sclite(pairs, folder, ["-D", "-F"])  # case-insensitive, as ESPnet's -i rm -o all
    refs, hyps = dict(read_trn(folder / "ref.trn")), dict(read_trn(folder / "hyp.trn"))
    sclite_options = {"optional_deletable": True, "fragments": True, "aligner": "sclite", "case": "sclite"}
    metric = WER(markup=True, per_utterance=True, **sclite_options)
    feed(metric, {"ref": list(refs.values()), "hyp": [hyps[u] for u in refs]}, list(refs))
    got = {r.utt_id: (r.ref_len - r.sub - r.dele, r.sub, r.dele, r.ins) for r in metric.utterance_records()}
    assert got == expected
    ref_len = sum(c + s + d for c, s, d, _ in expected.values())
    if ref_len == 0:  # only empty references: sclite counts insertions, compute() refuses a rate over nothing
        return
    assert metric.compute()["WER_ref_len"] == ref_len


def test_wer_markup_options_are_checked_and_named() -> None:
    assert WER(markup=True, optional_deletable=True, aligner="sclite", case="sclite").settings() == (
        "WER markup=sclite optional_deletable=yes case=sclite aligner=sclite normalize=none"
    )
    with pytest.raises(ValueError, match="WER: markup is aligned as sclite aligns it"):
        WER(markup=True)
    with pytest.raises(ValueError, match="set markup=True"):
        WER(fragments=True, aligner="sclite")
    with pytest.raises(TypeError, match="WER: markup must be a bool"):
        WER(markup="yes")
    plain = WER(aligner="sclite")  # plain SCP text stays literal unless asked
    plain.update(ref=["{ um / uh } yes"], hyp=["uh yes"])
    assert plain.compute()["WER_del"] == 4


def test_trn_errors_name_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "ref.trn"
    path.write_text("a b (s-1)\nno id\n", encoding="utf-8")
    with pytest.raises(TrnError, match=r"ref.trn line 2: the line does not end with \(utt_id\)"):
        list(read_trn(path))
    path.write_text("a b (s-1)\n;; note\nc (s-1)\n", encoding="utf-8")
    with pytest.raises(TrnError, match="line 3: utterance 's-1' is also on line 1"):
        list(read_trn(path))


@needs_sctk
@settings(max_examples=4, deadline=None)
@given(pairs=st.lists(st.tuples(references, hypotheses), min_size=1, max_size=40))
def test_trn_files_through_scp_files_equal_sclite(pairs, tmp_path_factory) -> None:
    """`sclite_scps` turns trn files into the SCP files every road reads; markup is read as sclite reads it."""
    pairs = [(ref, hyp) for ref, hyp in pairs if ref.strip() or hyp.strip()]
    if not pairs:
        return
    folder = tmp_path_factory.mktemp("trn")
    expected = run_sclite(pairs, folder, [])
    if not any(c + s + d for c, s, d, _ in expected.values()):
        return  # nothing to score: compute() refuses references without words
    inputs = sclite_scps(folder / "ref.trn", folder / "hyp.trn", folder / "scp")
    metric = WER(case="sclite", per_utterance=True, **inputs.options)
    metric({"ref": inputs.ref, "hyp": inputs.hyp}, "")
    got = {r.utt_id: (r.ref_len - r.sub - r.dele, r.sub, r.dele, r.ins) for r in metric.utterance_records()}
    assert got == expected


@needs_sctk
def test_command_line_scores_trn_files_as_sclite(tmp_path: Path, capsys) -> None:
    """``lightscore score ref.trn hyp.trn --aligner sclite --case sclite``: ESPnet's ``sclite -i rm`` totals."""
    from lightscore.cli.parser import main

    pairs = [("{ um / uh } yes", "uh yes"), ("email me @ home", "Email me home now"), ("Я тут", "я тут")]
    expected = run_sclite(pairs, tmp_path)
    capsys.readouterr()
    assert main(["score", str(tmp_path / "ref.trn"), str(tmp_path / "hyp.trn"), "--case", "sclite"]) == 0
    out = capsys.readouterr().out
    words = sum(c + s + d for c, s, d, _ in expected.values())
    errors = sum(s + d + i for _, s, d, i in expected.values())
    assert f"[ {errors} / {words}," in out and "markup=sclite case=sclite aligner=sclite" in out


# sclite_encode reads these without the full reader: braces on the words ("{a / b c}", GLM style) and spaced ones.
compact = references.map(lambda text: text.replace("{ ", "{").replace(" }", "}"))


@settings(max_examples=60, deadline=None)
@given(
    pairs=st.lists(st.tuples(references | compact, hypotheses | compact), min_size=1, max_size=40),
    mode=st.sampled_from(list(OPTIONS)),
)
def test_every_pair_at_once_equals_the_cell_by_cell_programme(pairs, mode: str) -> None:
    """`count_markup_pairs` aligns every pair at once (`sclite_batch`); `markup_counts` one pair at a time."""
    optional, fragments = "-D" in OPTIONS[mode], "-F" in OPTIONS[mode]
    together = count_markup_pairs([r for r, _ in pairs], [h for _, h in pairs], optional, fragments)
    alone = [
        markup_counts(parse_reference(r, optional, fragments), parse_reference(h, optional, fragments))
        for r, h in pairs
    ]
    assert together == alone


@settings(max_examples=40, deadline=None)
@given(text=references | compact | hypotheses | st.sampled_from(["a{b c}", "{a}b", "x / y", "{ a / b } }", "}{ a"]))
def test_the_encoded_network_is_the_parsed_one(text: str) -> None:
    assert_encodes_as_parsed(text, Vocabulary(optional=True, fragments=True))


def assert_encodes_as_parsed(text: str, vocabulary: Vocabulary) -> None:
    """`encode` gives `parse_reference`'s network, or the same MarkupError."""
    try:
        want = parse_reference(text, True, True)
    except MarkupError:
        with pytest.raises(MarkupError):
            encode(text, vocabulary)
        return
    assert network(encode(text, vocabulary), vocabulary) == want


@needs_sctk
def test_braces_on_the_words_equal_sclite(tmp_path: Path) -> None:
    """GLM outputs write ``{HE IS / HE HAS}``: the braces on the words, read as sclite reads them.

    (A brace inside a word, ``a{b c}``, crashes the installed sclite: only the parser test has it.)
    """
    pairs = [
        ("{he is / he has} here", "he has here"),
        ("{a / b c} d {x/y}", "b c d x"),
        ("{a / {b / c d}} e", "c d e"),
        ("{ok / o. k.} then {@ / uh}", "o. k. then"),
    ]
    for options in ([], ["-D", "-F"]):
        assert counts(pairs, options) == list(run_sclite(pairs, tmp_path, options).values())


def test_long_pairs_are_counted_alone(monkeypatch) -> None:
    """A pair past a chunk's cells goes to `markup_counts` by itself: the same counts."""
    pairs = [("{ um / uh } yes a b c", "uh yes a x c d"), ("a b (uh) c", "a c"), ("a b", "b")]
    want = count_markup_pairs([r for r, _ in pairs], [h for _, h in pairs], True, True)
    monkeypatch.setattr(sclite_markup, "CHUNK_CELLS", 4)
    assert count_markup_pairs([r for r, _ in pairs], [h for _, h in pairs], True, True) == want


# One level of alternations, blank branches and "{ }" included, spaced or on the words: what `encode` cuts at braces.
flat_alternation = st.lists(st.lists(word(), max_size=3).map(" ".join), min_size=1, max_size=3).map(
    lambda alts: "{ " + " / ".join(alts) + " }"
)
flat_texts = st.lists(word() | flat_alternation, max_size=6).map(" ".join)


@settings(max_examples=80, deadline=None)
@given(texts=st.lists(flat_texts | flat_texts.map(lambda t: t.replace("{ ", "{").replace(" }", "}")), max_size=6))
def test_flat_alternations_read_once_per_vocabulary_are_the_parsed_networks(texts: list[str]) -> None:
    """`encode` reads each distinct alternation once per vocabulary (texts share one): the parsed networks still."""
    vocabulary = Vocabulary(optional=True, fragments=True)
    for text in [*texts, *texts]:
        assert_encodes_as_parsed(text, vocabulary)
