"""Punctuation and case (issue 40, part E): PER, the case error rate and PnC-WER on cases worked by hand.

Each case is written out with its tokens, its alignment and its arithmetic, from the definitions in
`lightscore.text.recognition.punctuation` (LibriSpeech-PC's PER as NeMo counts it: marks masked, words and
masks aligned by unit-cost Levenshtein, PER = (S + D + I) / (C + S + D + I)) and
`lightscore.text.recognition.pnc_words` (words folded and aligned, matched pairs classed as case,
punctuation, or both). The splits over two metric instances are merged and compared with one instance.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lightscore.metrics import WER, CaseErrorRate, PnCWER, PunctuationErrorRate
from lightscore.text.recognition.edit_path import edit_path, edit_paths
from lightscore.text.recognition.pnc_words import pnc_counts, pnc_words
from lightscore.text.recognition.punctuation import punctuation_counts, punctuation_counts_batch


def _result(metric_class, rows, **options):
    metric = metric_class(**options)
    metric.update(ref=[r for r, _ in rows], hyp=[h for _, h in rows])
    return metric.compute()


# --- PER -----------------------------------------------------------------------------------------


def test_per_nemo_documented_example():
    # NeMo's OccurancePunctuationErrorRate docstring, marks . , ! ?
    # ref tokens: Hi , dear ! Nice to see you . What's       hyp: Hi dear ! Nice to see you ! What's ?
    # aligned:    Hi=Hi, ','  deleted, dear=dear, '!'='!' correct, Nice to see you, '.'->'!' substituted,
    #             What's=What's, '?' inserted.  C=1 S=1 D=1 I=1: PER = 3 / 4 = 75 %.
    r = _result(
        PunctuationErrorRate, [("Hi, dear! Nice to see you. What's", "Hi dear! Nice to see you! What's?")], marks=".,!?"
    )
    assert (r["PER_cor"], r["PER_sub"], r["PER_del"], r["PER_ins"]) == (1, 1, 1, 1)
    assert r["PER"] == 75.0
    # per mark, over that mark's operations (NeMo's operation_rates): '.' sub 1 of 1, ',' del 1 of 1,
    # '!' correct 1 of 1, '?' ins 1 of 1
    assert (r["PER_period"], r["PER_comma"], r["PER_exclamation"], r["PER_question"]) == (100.0, 100.0, 0.0, 100.0)
    assert r["PER_period_sub"] == r["PER_period_to_exclamation"] == 1
    # over the reference marks (, . : 3, the '!' correct counted once: C + S + D = 3): 3 / 3
    assert r["PER_ref_len"] == 3 and r["PER_over_ref"] == 100.0


def test_per_words_shift_the_marks():
    # default marks . , ?   ref: Hello , world . How are you ?     hyp: Hello world , how are you .
    # masked (P = any mark): ref  Hello P world P How are you P   (8)
    #                        hyp  Hello world P how are you P     (7)
    # least cost 2: Hello=Hello, ref P(,) deleted (1), world=world, P(.)=P(,) paired, How/how substituted
    # (words compared as written: 1), are, you, P(?)=P(.) paired.
    # marks: '.'->',' S, '?'->'.' S, ',' D.  C=0 S=2 D=1 I=0: PER = 3 / 3 = 100 %.
    counts = punctuation_counts("Hello, world. How are you?", "Hello world, how are you.")
    assert counts.pairs == {(".", ","): 1, ("?", "."): 1}
    assert counts.deleted == {",": 1} and counts.inserted == {}
    r = _result(PunctuationErrorRate, [("Hello, world. How are you?", "Hello world, how are you.")])
    assert r["PER"] == 100.0 and r["PER_comma_del"] == 1 and r["PER_question_to_period"] == 1


def test_per_pairs_marks_across_a_word_substitution():
    # ref: First , second          hyp: First second , third
    # masked: ref First P second (3), hyp First second P third (4).
    # Paths: First=First, 'second' inserted (1), P=P, second/third substituted (1): cost 2;
    #        First=First, P deleted, second=second, P and third inserted: cost 3.
    # The cheaper path pairs the commas: C=1, S=D=I=0, PER = 0 / 1 = 0 %.
    r = _result(PunctuationErrorRate, [("First, second", "First second, third")])
    assert (r["PER_cor"], r["PER_sub"], r["PER_del"], r["PER_ins"], r["PER"]) == (1, 0, 0, 0, 0.0)


def test_per_summed_over_utterances():
    # u1: ref Yes . No , maybe ?   hyp Yes . No . Maybe ?   (same length, paired one to one)
    #     '.'='.' C, ','->'.' S, '?'='?' C              -> C=2 S=1
    # u2: ref a b c               hyp a , b . c ?        -> three insertions, I=3
    # corpus: C=2 S=1 D=0 I=3: PER = (1 + 0 + 3) / (2 + 1 + 0 + 3) = 4 / 6 = 66.67 %
    #         over reference marks: 4 / (2 + 1 + 0) = 133.33 %
    rows = [("Yes. No, maybe?", "Yes. No. Maybe?"), ("a b c", "a, b. c?")]
    r = _result(PunctuationErrorRate, rows)
    assert (r["PER_cor"], r["PER_sub"], r["PER_del"], r["PER_ins"]) == (2, 1, 0, 3)
    assert r["PER"] == pytest.approx(400 / 6) and r["PER_over_ref"] == pytest.approx(400 / 3)
    # per mark: '.' C1 I1 -> 1/2; ',' S1 I1 -> 2/2; '?' C1 I1 -> 1/2
    assert (r["PER_period"], r["PER_comma"], r["PER_question"]) == (50.0, 100.0, 50.0)
    # u2 alone has no reference mark: PER 100 %, the rate over reference marks undefined
    alone = _result(PunctuationErrorRate, rows[1:])
    assert alone["PER"] == 100.0 and "PER_over_ref" not in alone
    # a mark no utterance holds has no rate (an output left out, not a NaN the result check would refuse)
    assert "PER_question" in r and "PER_period" in _result(PunctuationErrorRate, [("a.", "a.")])
    assert "PER_question" not in _result(PunctuationErrorRate, [("a.", "a.")])


def test_per_refuses_bad_marks_and_empty_corpora():
    with pytest.raises(ValueError, match="word character"):
        PunctuationErrorRate(marks=".a")
    with pytest.raises(ValueError, match="distinct"):
        PunctuationErrorRate(marks="..")
    with pytest.raises(ValueError, match="no mark"):
        _result(PunctuationErrorRate, [("a b", "a b")])


# --- case and the PnC classes --------------------------------------------------------------------


def test_classes_case_word_and_both():
    # ref: The | cat | sat | on | the | mat.      hyp: the | cat | sat | on | a | Mat
    # folded cores align one to one: the/the, cat, sat, on, the/a (word substitution), mat/mat.
    # The->the: case; the->a: word; mat.->Mat: case and punctuation (core and trailing '.').
    # N = 6: word 1, case 1, punct 0, both 1: PnC-WER = 3 / 6 = 50 %; WER (normalized) = 1 / 6.
    # matched pairs 5 (all but the/a), case differs in 2 of them: CaseER = 2 / 5 = 40 %.
    rows = [("The cat sat on the mat.", "the cat sat on a Mat")]
    r = _result(PnCWER, rows)
    assert (r["PnC_word_errors"], r["PnC_case_errors"], r["PnC_punct_errors"], r["PnC_case_punct_errors"]) == (
        1,
        1,
        0,
        1,
    )
    assert r["PnC_WER"] == 50.0 and r["PnC_normalized_WER"] == pytest.approx(100 / 6)
    assert (r["PnC_WER_sub"], r["PnC_WER_hit"], r["PnC_WER_ref_len"]) == (3, 3, 6)
    assert r["PnC_word_share"] == pytest.approx(100 / 3) and r["PnC_case_punct_share"] == pytest.approx(100 / 3)
    assert _result(CaseErrorRate, rows) == {"CaseER": 40.0, "CaseER_errors": 2, "CaseER_matched_words": 5}


def test_classes_punctuation_insertion_and_lone_marks():
    # u1: ref Well, | I | think | so.    hyp Well | I | think | so?      -> punct 2 (Well, / so.)
    # u2: ref Hello | there              hyp Hello, | there | friend     -> punct 1, word 1 (friend inserted)
    # u3: ref yes | - | no  ('-' alone joins yes's trailing marks: yes-)   hyp yes | no -> punct 1
    # N = 4 + 2 + 2 = 8; errors: word 1, punct 4: PnC-WER = 5 / 8 = 62.5 %; WER = 1 / 8 = 12.5 %
    rows = [("Well, I think so.", "Well I think so?"), ("Hello there", "Hello, there friend"), ("yes - no", "yes no")]
    r = _result(PnCWER, rows)
    assert (r["PnC_word_errors"], r["PnC_case_errors"], r["PnC_punct_errors"], r["PnC_case_punct_errors"]) == (
        1,
        0,
        4,
        0,
    )
    assert (r["PnC_WER"], r["PnC_normalized_WER"], r["PnC_WER_ins"]) == (62.5, 12.5, 1)
    assert r["PnC_punct_share"] == 80.0


def test_ties_prefer_the_pair_written_alike():
    # ref: a | a.     hyp: a.     Both one-deletion paths make 1 word error; the pair a./a. is written
    # alike, a/a. is not, so the deletion takes the first 'a': word 1, punct 0: PnC-WER = 1 / 2 = 50 %.
    counts = pnc_counts("a a.", "a.")
    assert (counts.deletions, counts.punct, counts.matched) == (1, 0, 1)


def test_marks_option_keeps_other_punctuation_in_the_word():
    # marks '.' only: 'Hello,' keeps its comma in the core, so Hello,/Hello is a word substitution;
    # world./world differs by the mark: punct. N = 2: PnC-WER = 2 / 2 = 100 %, WER = 1 / 2 = 50 %.
    r = _result(PnCWER, [("Hello, world.", "Hello world")], marks=".")
    assert (r["PnC_word_errors"], r["PnC_punct_errors"], r["PnC_WER"], r["PnC_normalized_WER"]) == (1, 1, 100.0, 50.0)


_WORDS = st.sampled_from(["a", "A", "a.", "b", "B,", "b?", "c", "C.", "don't", "Don't!", "-", "¿c"])
_TEXT = st.lists(_WORDS, max_size=7).map(" ".join)


def _norm(text: str) -> str:
    return " ".join(w.core.casefold() for w in pnc_words(text))


def _written(text: str) -> str:
    """The words as written, a lone mark joined to its neighbour as PnC-WER joins it."""
    return " ".join(str(w) for w in pnc_words(text))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_TEXT, _TEXT), min_size=1, max_size=6), st.integers(0, 6))
def test_pnc_wer_between_the_normalized_and_the_written_wer_and_per_twins(rows, cut):
    # word errors are the unit-cost edit distance of the folded cores (WER on normalized text);
    # written WER (words as written) <= PnC errors, since PnC-WER's path is one path over the written words;
    # and normalized <= written, since folding never adds an error.
    refs, hyps = [r for r, _ in rows], [h for _, h in rows]
    normalized = WER()
    normalized.update(ref=[_norm(t) for t in refs], hyp=[_norm(t) for t in hyps])
    written = WER()
    written.update(ref=[_written(t) for t in refs], hyp=[_written(t) for t in hyps])
    pnc = PnCWER()
    pnc.update(ref=refs, hyp=hyps)
    if pnc.ref_words == 0:
        return
    r = pnc.compute()
    word = normalized.substitutions + normalized.deletions + normalized.insertions
    raw = written.substitutions + written.deletions + written.insertions
    pnc_errors = r["PnC_WER_sub"] + r["PnC_WER_del"] + r["PnC_WER_ins"]
    assert r["PnC_word_errors"] == word
    assert word <= raw <= pnc_errors
    assert pnc_errors == sum(r[f"PnC_{k}_errors"] for k in ("word", "case", "punct", "case_punct"))
    # PER's fast path (the tables of the batch filled together) equals its plain twin, cell by cell
    for fold in (False, True):
        plain = [punctuation_counts(r, h, ".,?!-", fold) for r, h in rows]
        assert punctuation_counts_batch(refs, hyps, ".,?!-", fold) == plain
    # two instances over a split of the rows, merged, equal one instance (all three metrics)
    cut = min(cut, len(rows))
    for metric_class in (PnCWER, CaseErrorRate, PunctuationErrorRate):
        one, a, b = metric_class(), metric_class(), metric_class()
        one.update(ref=refs, hyp=hyps)
        a.update(ref=refs[:cut], hyp=hyps[:cut])
        b.update(ref=refs[cut:], hyp=hyps[cut:])
        a.load_state(a.merge_states([a.state(), b.state()]))
        assert a.state() == one.state()


# --- the command line and measure() ---------------------------------------------------------------


def test_cli_and_measure(tmp_path, capsys):
    from lightscore import measure
    from lightscore.cli.parser import main

    test = tmp_path / "exp" / "dev"
    test.mkdir(parents=True)
    # the rows of test_classes_case_word_and_both and test_per_summed_over_utterances
    (test / "ref.scp").write_text("u1 The cat sat on the mat.\nu2 Yes. No, maybe?\n")
    (test / "hyp.scp").write_text("u1 the cat sat on a Mat\nu2 Yes. No. Maybe?\n")
    ref, hyp = str(test / "ref.scp"), str(test / "hyp.scp")
    assert main(["score", ref, hyp, "--metric", "pnc_wer", "--report", str(tmp_path / "rep")]) == 0
    out = capsys.readouterr().out
    # u1: word 1, case 1, both 1 (N 6); u2: the maybe?/Maybe? pair differs in case, No,/No. in punctuation (N 3)
    # PnC-WER = (1 + 2 + 1 + 1) / 9 = 55.56 %
    assert "PnC_WER             55.56" in out and "case        2" in out
    page = (tmp_path / "rep" / "pnc_wer_report.html").read_text()
    assert "Error classes" in page and "case and punctuation" in page
    page = tmp_path / "page.html"
    assert main(["report", ref, hyp, "--metric", "pnc_wer", "-o", str(page), "--title", "PnC"]) == 0
    assert "Error classes" in page.read_text() and "<h1>PnC</h1>" in page.read_text()
    capsys.readouterr()
    assert main(["score", ref, hyp, "--metric", "per", "--marks", ".,?"]) == 0
    # u1: '.' deleted; u2: C=2 S=1: PER = (1 + 1) / (2 + 1 + 1) = 50 %
    assert "PER           50.00" in capsys.readouterr().out
    assert main(["score", ref, hyp, "--metric", "per", "--report", str(tmp_path / "rep")]) == 1
    assert "--report is used by" in capsys.readouterr().err
    config = {
        "inference_dir": str(tmp_path / "exp"),
        "metrics": [
            {"metric": {"_target_": "lightscore.metrics.PnCWER"}, "inputs": ["ref", "hyp"], "name": "pnc"},
            {"metric": {"_target_": "lightscore.metrics.CaseErrorRate"}, "inputs": ["ref", "hyp"], "name": "case"},
            # no '!' anywhere: its rate is left out, and measure() takes the result
            {
                "metric": {"_target_": "lightscore.metrics.PunctuationErrorRate", "marks": ".,?!"},
                "inputs": ["ref", "hyp"],
            },
        ],
    }
    results = measure(config)
    assert results["pnc"]["dev"]["PnC_WER"] == pytest.approx(500 / 9)
    # matched 5 + 3 = 8 pairs, case differs in The/the, mat./Mat, maybe?/Maybe?: 3 / 8
    assert results["case"]["dev"]["CaseER"] == 37.5
    per = results["lightscore.metrics.punctuation.PunctuationErrorRate"]["dev"]
    assert per["PER"] == 50.0 and "PER_exclamation" not in per and per["PER_exclamation_cor"] == 0


_MATRIX = st.tuples(st.integers(0, 6), st.integers(0, 6)).flatmap(
    lambda shape: st.lists(st.integers(0, 3), min_size=shape[0] * shape[1], max_size=shape[0] * shape[1]).map(
        lambda cells: np.array(cells, dtype=np.int64).reshape(shape)
    )
)


@settings(max_examples=60, deadline=None)
@given(st.lists(_MATRIX, max_size=8), st.integers(1, 3), st.integers(1, 3), st.integers(1, 120))
def test_batched_paths_equal_the_plain_path(pairs, gap, group, cells):
    # any pair costs and gap, in groups of any size and cell budget: the same path as the plain table
    plain = [edit_path(p.tolist(), p.shape[1], gap) for p in pairs]
    assert edit_paths(pairs, gap, group=group, cells=cells) == plain
