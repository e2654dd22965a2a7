"""KeywordErrorRate and texterrors' alignment against texterrors 1.1.9 (the oracle), B-WER/U-WER by hand, merges.

texterrors' ``process_lines`` is what its command runs per corpus: its counts (keyword recall and precision,
OOV-WER and OOV-CER, the errors behind its WER) are compared with lightscore's on generated corpora in the
standard and the character-aware (``--use-chardiff``) alignment, and on the examples of texterrors' README and
its own tests (``tests/test_functions.py`` of its repository).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

texterrors = pytest.importorskip("texterrors")
from loguru import logger  # noqa: E402  (texterrors' logger)
from texterrors.texterrors import Utt  # noqa: E402
from texterrors_align import StringVector  # noqa: E402

from lightscore.cli.parser import main  # noqa: E402
from lightscore.metrics.keywords import KeywordErrorRate  # noqa: E402
from lightscore.text.recognition.chardiff import align_words  # noqa: E402
from lightscore.text.recognition.keywords import oov_char_errors, read_word_list, weighted_edit_count  # noqa: E402

logger.remove()  # texterrors logs every utterance at DEBUG

# Similar words (one letter apart, a two-byte letter) make the character-aware costs differ from the standard ones.
VOCAB = "a ab abc abd b bc cat cats hat sentence sentenc ok okay é éa x speedbird speed bird".split()

words = st.lists(st.sampled_from(VOCAB), max_size=9)
corpora = st.lists(st.tuples(words, words), min_size=1, max_size=12)
word_sets = st.sets(st.sampled_from(VOCAB), max_size=5)


def texterrors_stats(pairs, keywords, oov, chardiff):
    """texterrors' ErrorStats for ``[(ref words, hyp words)]``, as its command computes them."""
    refs = {str(k): Utt(str(k), StringVector(ref)) for k, (ref, _) in enumerate(pairs)}
    hyps = {str(k): Utt(str(k), StringVector(hyp)) for k, (_, hyp) in enumerate(pairs)}
    _, stats = texterrors.process_lines(
        refs, hyps, False, chardiff, False, True, 120, False, set(keywords), set(oov), False, {}, {}, True, "<eps>"
    )
    return stats


def lightscore_result(pairs, keywords, oov, chardiff):
    metric = KeywordErrorRate(keywords=sorted(keywords), oov=sorted(oov), chardiff=chardiff)
    metric.update(ref=[" ".join(r) for r, _ in pairs], hyp=[" ".join(h) for _, h in pairs])
    return metric


@pytest.mark.parametrize("chardiff", [False, True])
@settings(max_examples=60, deadline=None)
@given(pairs=corpora, keywords=word_sets, oov=word_sets)
def test_counts_equal_texterrors(chardiff, pairs, keywords, oov):
    stats = texterrors_stats(pairs, keywords, oov, chardiff)
    metric = lightscore_result(pairs, keywords, oov, chardiff)
    assert metric.ref_words == stats.total_count
    errors = sum(stats.ins.values()) + sum(stats.dels.values()) + sum(stats.subs.values())
    assert metric.errors == errors
    assert (metric.keywords_count, metric.keywords_output, metric.keywords_predicted) == (
        stats.keywords_count,
        stats.keywords_output,
        stats.keywords_predicted,
    )
    assert (metric.oov_words, metric.oov_word_errors) == (stats.oov_word_count, stats.oov_word_error)
    assert (metric.oov_char_errors, metric.oov_chars) == (stats.oov_count_error, stats.oov_count_denom)
    if metric.ref_words:
        result = metric.compute()
        if stats.keywords_count:
            assert result["keyword_recall"] == stats.keywords_predicted / stats.keywords_count
        if stats.keywords_output:
            assert result["keyword_precision"] == stats.keywords_predicted / stats.keywords_output
        if stats.oov_word_count:
            assert result["OOV_WER"] == pytest.approx(100.0 * stats.oov_word_error / stats.oov_word_count)
            assert result["OOV_CER"] == pytest.approx(100.0 * stats.oov_count_error / stats.oov_count_denom)


@pytest.mark.parametrize("chardiff", [False, True])
@settings(max_examples=60, deadline=None)
@given(ref=st.lists(st.sampled_from(VOCAB), max_size=14), hyp=st.lists(st.sampled_from(VOCAB), max_size=14))
def test_alignment_equals_texterrors(chardiff, ref, hyp):
    ref_aligned, hyp_aligned, cost = texterrors.align_texts(ref, hyp, use_chardiff=chardiff)
    expected = [(None if r == "<eps>" else r, None if h == "<eps>" else h) for r, h in zip(ref_aligned, hyp_aligned)]
    aligned = align_words(ref, hyp, chardiff)
    assert aligned.pairs == expected
    assert aligned.cost == pytest.approx(cost, abs=1e-9)


@pytest.mark.parametrize("chardiff", [False, True])
@settings(max_examples=60, deadline=None)
@given(ref=st.lists(st.sampled_from(VOCAB[:6]), max_size=16), hyp=st.lists(st.sampled_from(VOCAB[:6]), max_size=16))
def test_band_equals_whole_table(chardiff, ref, hyp):
    """The fast path (a common suffix paired at once, the table filled in a band) and its plain twin (the whole
    table), on few words so that ties abound."""
    assert align_words(ref, hyp, chardiff) == align_words(ref, hyp, chardiff, whole=True)


# texterrors' README and its tests/test_functions.py: the WERs they document, from both alignments.
DOCUMENTED = [
    (
        "IN THE DISCOTHEQUE THE DJ PLAYED PROGRESSIVE HOUSE MUSIC AND TRANCE",
        "IN THE DISCO TAK THE D J PLAYED PROGRESSIVE HOUSE MUSIC AND TRANCE",
        False,
        36.36,
    ),
    (
        "IT FORMS PART OF THE SOUTH EAST DORSET CONURBATION ALONG THE ENGLISH CHANNEL COAST",
        "IT FOLLOWS PARDOFELIS LOUSES DORJE THAT COMORE H O LONELY ENGLISH GENOME COTA'S",
        False,
        85.71,
    ),
    (
        "THE FILM WAS LOADED INTO CASSETTES IN A DARKROOM OR CHANGING BAG",
        "THE FILM WAS LOADED INTO CASSETTES IN A DARK ROOM OR CHANGING BAG",
        False,
        16.67,
    ),
    (
        "GEPHYRIN HAS BEEN SHOWN TO BE NECESSARY FOR GLYR CLUSTERING AT INHIBITORY SYNAPSES",
        "THE VIDEOS RISHIRI TUX BINOY CYSTIDIA PHU LIAM CHOLESTEROL ET INNIT PATRESE SYNAPSES",
        True,
        100.0,
    ),
    (
        "GEPHYRIN HAS BEEN SHOWN TO BE NECESSARY FOR GLYR CLUSTERING AT INHIBITORY SYNAPSES",
        "THE VIDEOS RISHIRI TUX BINOY CYSTIDIA PHU LIAM CHOLESTEROL ET INNIT PATRESE SYNAPSES",
        False,
        92.31,
    ),
    ("test sentence okay words ending now", "test a sentenc ok endin now", True, 83.33),
    ("test sentence okay words ending now", "test a sentenc ok endin now", False, 66.67),
]


@pytest.mark.parametrize(("ref", "hyp", "chardiff", "wer"), DOCUMENTED)
def test_texterrors_documented_wers(ref, hyp, chardiff, wer):
    metric = KeywordErrorRate(chardiff=chardiff)
    metric.update(ref=[ref], hyp=[hyp])
    assert round(metric.compute()["keywords_WER"], 2) == wer
    ref_aligned, hyp_aligned, _ = texterrors.align_texts(ref.split(), hyp.split(), use_chardiff=chardiff)
    assert [(r or "<eps>", h or "<eps>") for r, h in align_words(ref.split(), hyp.split(), chardiff).pairs] == list(
        zip(ref_aligned, hyp_aligned)
    )


def test_readme_chardiff_example():
    """The README's note: character-aware alignment shows 'a' inserted and 'words' deleted."""
    aligned = align_words("test sentence okay words ending now".split(), "test a sentenc ok endin now".split(), True)
    assert (None, "a") in aligned.pairs and ("words", None) in aligned.pairs
    assert aligned.pairs[2] == ("sentence", "sentenc")


def test_texterrors_documented_oov_cer():
    """tests/test_functions.py: 'airport' heard as 'air port' gives an OOV-CER of 0.14 (1 error in 7 letters)."""
    pairs = list(zip("the missing word is <eps> airport okay".split(), "the missing word is air port okay".split()))
    pairs = [(None if r == "<eps>" else r, h) for r, h in pairs]
    assert oov_char_errors(pairs, {"airport"}) == texterrors.get_oov_cer(
        "the missing word is <eps> airport okay".split(), "the missing word is air port okay".split(), {"airport"}
    )
    errors, chars = oov_char_errors(pairs, {"airport"})
    assert round(errors / chars, 2) == 0.14
    assert oov_char_errors([("airport", "airport")], {"airport"}) == (0, 7)


@settings(max_examples=60, deadline=None)
@given(a=st.text("abcé ", max_size=8), b=st.text("abcé ", max_size=8))
def test_weighted_edit_count_equals_texterrors(a, b):
    import texterrors_align

    assert weighted_edit_count(a.encode(), b.encode()) == texterrors_align.lev_distance_str(a, b)


def test_b_wer_u_wer_by_hand():
    """Le et al.'s rules, worked out: substitutions and deletions by the reference word, insertions by the
    hypothesis word.

    ref:  play  song  by  beyonce  now         biasing list {beyonce, adele}
    hyp:  play  son   by  beyond   now  adele
    pairs: play=play, song>son (S, unbiased), by=by, beyonce>beyond (S, biased), now=now, +adele (I, biased)
    B-WER = (1 S + 1 I) / 1 biased reference word = 200 %; U-WER = 1 S / 4 other words = 25 %;
    WER = 3 / 5 = 60 %; recall 0 / 1; precision 0 / 1 (adele is output but not in the reference).
    """
    metric = KeywordErrorRate(keywords=["beyonce", "adele"])
    metric.update(ref=["play song by beyonce now"], hyp=["play son by beyond now adele"])
    result = metric.compute()
    assert result["keywords_WER"] == 60.0
    assert result["B_WER"] == 200.0 and result["U_WER"] == 25.0
    assert (result["biased_ref"], result["biased_errors"], result["unbiased_ref"], result["unbiased_errors"]) == (
        1,
        2,
        4,
        1,
    )
    assert result["keyword_recall"] == 0.0 and result["keyword_precision"] == 0.0 and result["keyword_f1"] == 0.0
    assert metric.keyword_table() == [("adele", 0, 0, 1), ("beyonce", 0, 1, 0)]


def test_per_utterance_biasing_lists():
    """The optional input adds an utterance's own list to the file's, for that utterance only."""
    metric = KeywordErrorRate(keywords=["paris"])
    metric.update(
        ref=["fly to paris with anna", "anna stays"],
        hyp=["fly to paris with ana", "anna stays"],
        keywords=["anna", ""],
    )
    result = metric.compute()
    # utterance 1: paris hit, anna missed (both listed); utterance 2: anna not listed there
    assert (result["keywords_count"], result["keywords_predicted"]) == (2, 1)
    assert result["B_WER"] == 50.0 and result["U_WER"] == 0.0
    alone = KeywordErrorRate()  # no file: the utterances' own lists alone
    alone.update(
        ref=["fly to paris with anna", "anna stays"], hyp=["fly to paris with ana", "anna stays"], keywords=["anna", ""]
    )
    assert alone.keyword_table() == [("anna", 0, 1, 0)] and alone.compute()["B_WER"] == 100.0


def test_merge_states_equals_one_instance():
    refs = ["call anna in paris", "speedbird eight six two", "ok now", "anna anna", ""]
    hyps = ["call ana in paris now", "hello speedbird six two", "okay now", "anna", "x"]
    options = {"keywords": ["anna", "paris", "speedbird"], "oov": ["speedbird", "anna"], "chardiff": True}
    whole = KeywordErrorRate(**options)
    whole.update(ref=refs, hyp=hyps)
    parts = [KeywordErrorRate(**options), KeywordErrorRate(**options)]
    parts[0].update(ref=refs[:2], hyp=hyps[:2])
    parts[1].update(ref=refs[2:], hyp=hyps[2:])
    merged = KeywordErrorRate(**options)
    merged.load_state(merged.merge_states([p.state() for p in parts]))
    assert merged.compute() == whole.compute()
    assert (
        merged.keyword_table()
        == whole.keyword_table()
        == [("anna", 1, 2, 0), ("paris", 1, 0, 0), ("speedbird", 1, 0, 0)]
    )


def test_word_list_errors_name_file_and_line(tmp_path):
    bad = tmp_path / "keywords.txt"
    bad.write_text("anna\nnew york\n")
    with pytest.raises(ValueError, match=r"keywords.txt:2: a keyword is one word, got 'new york'"):
        KeywordErrorRate(keywords=bad)
    assert read_word_list(bad, first_field=True) == {"anna", "new"}
    with pytest.raises(ValueError, match="keywords holds 'new york', not one word"):
        KeywordErrorRate(keywords=["new york"])
    with pytest.raises(FileNotFoundError):
        KeywordErrorRate(oov=tmp_path / "missing.txt")
    with pytest.raises(ValueError, match="no reference word"):
        KeywordErrorRate().compute()


def test_cli_equals_texterrors_command(tmp_path, write_scp_file, capsys):
    """``lightscore score --metric keywords`` against the ``texterrors`` command on the same files."""
    ref = write_scp_file("ref.scp", [("u1", "call anna in paris"), ("u2", "speedbird eight six two")])
    hyp = write_scp_file("hyp.scp", [("u1", "call ana in paris now"), ("u2", "hello speedbird six two")])
    keywords = write_scp_file("kw.txt", "anna\nparis\nspeedbird\n")
    oov = write_scp_file("oov.txt", "speedbird 1\nanna 2\n")
    texterrors_cli = [sys.executable, "-c", "from texterrors.texterrors import cli; cli()"]
    args = ["--isark", "--keywords-f", str(keywords), "--oov-list-f", str(oov), "--output-format", "json"]
    for chardiff in (False, True):
        flag = ["--use-chardiff"] if chardiff else []
        shown = subprocess.run([*texterrors_cli, *args, *flag, str(ref), str(hyp)], capture_output=True, text=True)
        summary = json.loads(shown.stdout)["summary"]
        report = tmp_path / f"report{chardiff}"
        capsys.readouterr()
        status = main(
            ["score", str(ref), str(hyp), "--metric", "keywords", "--keywords", str(keywords), "--oov", str(oov)]
            + ["--report", str(report)]
            + (["--chardiff"] if chardiff else [])
        )
        out = capsys.readouterr().out
        assert status == 0
        printed = dict(line.split(": ", 1) for line in out.splitlines() if ": " in line)
        assert float(printed["keywords_WER"]) == pytest.approx(summary["wer"], abs=0.005)
        assert float(printed["keyword_recall"]) == pytest.approx(summary["keyword_recall"], abs=5e-5)
        assert float(printed["keyword_precision"]) == pytest.approx(summary["keyword_precision"], abs=5e-5)
        assert float(printed["OOV_CER"]) == pytest.approx(summary["oov_cer"], abs=0.005)
        assert float(printed["OOV_WER"]) == pytest.approx(summary["oov_wer"], abs=0.005)
        assert "anna" in out and "misses" in out
        assert "anna" in (report / "report.html").read_text()
