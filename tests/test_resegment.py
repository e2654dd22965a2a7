"""Re-segmentation of talk-level output (issue 41): mweralign 1.4 is the oracle, sacrebleu the scores' oracle.

The talks are generated: segments over a small vocabulary (case variants, punctuation, repeated
phrases), hypotheses edited from them, empty, or much longer or shorter than the reference. For
``none`` and ``cj`` tokenization, lightscore's cut must be mweralign's cut, segment for segment,
and BLEU, chrF, TER and WER on the re-segmented talks must be sacrebleu's (and WER's) on mweralign's
output. mweralign's own documented examples come out the same, the compiled search equals its plain
twin, and two instances merged equal one.
"""

from __future__ import annotations

import logging
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

mweralign = pytest.importorskip("mweralign")
sacrebleu = pytest.importorskip("sacrebleu")
from mweralign import align_texts, align_texts_traced  # noqa: E402
from mweralign.segmenter import CJSegmenter, SPSegmenter  # noqa: E402

from lightscore.metrics import WER, Resegmented  # noqa: E402
from lightscore.text.mt.resegment import encode_talk, resegment, segment_ends  # noqa: E402
from lightscore.text.mt.resegment_tokens import tokenizer  # noqa: E402

logging.getLogger("mweralign").setLevel(logging.WARNING)  # mweralign logs a line per call

WORDS = ["the", "The", "cat", "sat", "on", "mat", "a", "dog", "ran", "home", ",", ".", "?", "it's"]
HAN = ["我", "们", "的", "好", "世", "界", "。", "，", "go", "home", "OK"]
FEW = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def oracle(refs: list[str], hyp: str, mode: str = "none", model: str | None = None, no_ws: bool = False) -> list[str]:
    """mweralign's re-segmentation of one talk, as its command line runs it (a final newline keeps an empty last
    reference segment, which the command line's join drops)."""
    if mode == "none":
        out = align_texts("\n".join(r.strip() for r in refs) + "\n", hyp.strip())
        return [line.strip() for line in out.split("\n")]
    seg = CJSegmenter() if mode == "cj" else SPSegmenter(model)
    ref_text = "\n".join(" ".join(seg.encode(r.strip())) for r in refs) + "\n"
    tokenized = mode != "cj" and not no_ws
    out = align_texts(ref_text, " ".join(seg.encode(hyp.strip())), tokenized, forbid_midword_boundary=tokenized)
    return [seg.decode(line) for line in out.split("\n")]


@st.composite
def talks(draw, vocab: list[str] = WORDS, joiner: str = " ") -> tuple[list[str], str]:
    """One talk: reference segments and a hypothesis (edited, empty, repeated, cut short or random)."""
    word = st.sampled_from(vocab)
    phrase = draw(st.lists(word, min_size=1, max_size=3))  # a phrase the talk repeats
    segments = [
        draw(st.lists(st.one_of(word, st.just(joiner.join(phrase))), min_size=0, max_size=7))
        for _ in range(draw(st.integers(1, 8)))
    ]
    flat = [w for s in segments for w in s]
    kind = draw(st.sampled_from(["edited", "empty", "longer", "shorter", "random"]))
    if kind == "empty":
        hyp = []
    elif kind == "longer":
        hyp = flat * draw(st.integers(2, 4)) + draw(st.lists(word, max_size=5))
    elif kind == "shorter":
        hyp = flat[: draw(st.integers(0, max(0, len(flat) // 3)))]
    elif kind == "random":
        hyp = draw(st.lists(word, max_size=30))
    else:
        hyp = []
        for w in flat:
            edit = draw(st.sampled_from(["keep", "keep", "keep", "drop", "swap", "add"]))
            if edit != "drop":
                hyp.append(draw(word) if edit == "swap" else w)
            if edit == "add":
                hyp.append(draw(word))
    return [joiner.join(s) for s in segments], joiner.join(hyp)


# -- the cut: mweralign's, for none and cj -------------------------------------------------------


@FEW
@given(talks())
def test_none_cuts_as_mweralign(talk):
    refs, hyp = talk
    assert resegment(refs, hyp, "none") == oracle(refs, hyp, "none")
    # the boundaries themselves: mweralign's trace holds where each segment but the last ends
    _, trace = align_texts_traced("\n".join(refs) + "\n", hyp)
    tok = tokenizer("none")
    ends = segment_ends(*encode_talk([tok.encode(r) for r in refs], tok.encode(hyp), tok), False)
    assert trace.boundaries[1:] == ends[:-1].tolist()


@FEW
@given(talks(HAN, joiner=""), st.booleans())
def test_cj_cuts_as_mweralign(talk, spaced):
    refs, hyp = talk
    if spaced:  # Han text with spaces: the spaces travel inside the Latin-1 runs
        hyp = " ".join(hyp)
    assert resegment(refs, hyp, "cj") == oracle(refs, hyp, "cj")


@pytest.mark.parametrize("no_ws", [False, True])
def test_sentencepiece_cuts_as_mweralign(spm_model, make_sentences, no_ws):
    """A local SentencePiece model: mid-word cuts forbidden (a language with spaces) or allowed (``-w``)."""
    model = str(spm_model)
    for seed in range(12):
        refs = make_sentences(seed, 6, 0, 6)
        words = " ".join(refs).split()
        hyp = " ".join(words[seed % 3 :] + words[: seed % 4])
        assert resegment(refs, hyp, model, no_whitespace=no_ws) == oracle(refs, hyp, "spm", model, no_ws)


def test_mweralign_documented_examples(tmp_path):
    """The README's trace example, the empty-reference-line tests and the AS-WER scoring test's talk."""
    assert resegment(["the cat sat", "on the mat"], "the cat sat on the mat") == ["the cat sat", "on the mat"]
    assert resegment(["aa", "", "bb"], "aa bb") == ["aa", "", "bb"]
    assert resegment(["", ""], "x y") == oracle(["", ""], "x y") == ["x y", ""]
    # python/tests/test_mweralign.py::test_score_matches_alignment_aswer, through mweralign's command line
    ref = tmp_path / "ref.txt"
    hyp = tmp_path / "sys.txt"
    ref.write_text("hello\nthis is a meeting\nwelcome everybody\ngood-bye\n")
    hyp.write_text("hello this is a\nmeeting welcome here everybody\ngood-bye see you\n")
    command = [sys.executable, "-m", "mweralign.mweralign", "-r", str(ref), "-t", str(hyp), "-m", "none"]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    expected = [line.strip() for line in done.stdout.splitlines()]
    refs = ref.read_text().splitlines()
    got = resegment(refs, " ".join(hyp.read_text().splitlines()))
    assert got == expected == ["hello", "this is a meeting", "welcome here everybody", "good-bye see you"]
    aswer = float(done.stderr.split("AS-WER (automatic segmentation mWER):")[1].split()[0])
    m = Resegmented("wer")
    m.update(hyp=[hyp.read_text()], ref=[ref.read_text().rstrip("\n")])
    assert m.compute()["WER"] == pytest.approx(aswer)  # 3 insertions over 9 words


# -- the scores after re-segmentation --------------------------------------------------------------


def _sacrebleu_scores(refs: list[str], hyps: list[str]) -> dict[str, float]:
    return {
        "BLEU": sacrebleu.corpus_bleu(hyps, [refs]).score,
        "chrF": sacrebleu.corpus_chrf(hyps, [refs]).score,
        "TransTER": sacrebleu.corpus_ter(hyps, [refs]).score,
    }


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(talks(), min_size=1, max_size=4), st.lists(talks(HAN, joiner=""), min_size=1, max_size=3))
def test_scores_after_resegmentation_are_sacrebleus(spaced_talks, cj_talks):
    for mode, generated in (("none", spaced_talks), ("cj", cj_talks)):
        segments = [oracle(refs, hyp, mode) for refs, hyp in generated]
        refs = [r for talk_refs, _ in generated for r in talk_refs]
        hyps = [h for talk_hyps in segments for h in talk_hyps]
        expected = _sacrebleu_scores(refs, hyps)
        wer = WER()
        wer.update(ref=refs, hyp=hyps)
        expected["WER"] = wer.compute()["WER"] if any(r.split() for r in refs) else None
        batch = {"hyp": [h for _, h in generated], "ref": ["\n".join(r) for r, _ in generated]}
        for name, key in (("bleu", "BLEU"), ("chrf", "chrF"), ("transter", "TransTER"), ("wer", "WER")):
            if expected[key] is None:
                continue  # no reference word: WER is undefined
            metric = Resegmented(name, reseg_tokenize=mode)
            metric.update(**batch)
            assert metric.compute()[key] == pytest.approx(expected[key], rel=1e-12, abs=1e-12), (mode, key)


# -- the fast path and its plain twin; the merge ---------------------------------------------------


@FEW
@given(
    st.lists(st.lists(st.integers(1, 4), max_size=6), min_size=1, max_size=6),
    st.lists(st.integers(1, 5), max_size=25),
    st.data(),
)
def test_compiled_search_equals_its_plain_twin(segments, hyp, data):
    ref = np.array([w for s in segments for w in [*s, 0]], dtype=np.int64)
    hyp = np.array(hyp, dtype=np.int64)
    inside = np.array(data.draw(st.lists(st.booleans(), min_size=len(hyp), max_size=len(hyp))), dtype=np.bool_)
    forbid = data.draw(st.booleans())
    fast = segment_ends(ref, hyp, inside, forbid)
    plain = segment_ends.py_func(ref, hyp, inside, forbid)
    assert fast.tolist() == plain.tolist()
    assert fast[0] == 0 and fast[-1] == len(hyp) and (np.diff(fast) >= 0).all()


def test_plain_road_equals_the_compiled_one():
    refs, hyp = ["the cat sat", "on the mat", "", "a dog ran home"], "the cat the cat sat on mat a a dog ran"
    assert resegment(refs, hyp, plain=True) == resegment(refs, hyp)
    ref, hyp_ids, inside = encode_talk([r.split() for r in refs], hyp.split(), tokenizer("none"))
    assert ref.tolist().count(0) == 4 and len(hyp_ids) == len(inside) == 11


@pytest.mark.parametrize(("name", "options"), [("bleu", {}), ("bleu", {"per_utterance": True}), ("wer", {})])
def test_two_instances_merged_equal_one(name, options):
    batch = {
        "hyp": ["the cat sat on the mat", "a dog ran home the end", "", "it's the cat"],
        "ref": ["the cat sat\non the mat", '["a dog", "ran home"]', "a b\nc", "it's\nthe dog"],
    }
    ids = ["t1", "t2", "t3", "t4"]
    one = Resegmented(name, **options)
    with one.feeding(ids):
        one.update(**batch)
    a, b = Resegmented(name, **options), Resegmented(name, **options)
    with a.feeding(ids[:3]):
        a.update(**{k: v[:3] for k, v in batch.items()})
    with b.feeding(ids[3:]):
        b.update(**{k: v[3:] for k, v in batch.items()})
    merged = Resegmented(name, **options)
    merged.load_state(merged.merge_states([a.state(), b.state()]))
    assert merged.compute() == one.compute()
    assert merged.state() == one.state()
    assert one.compute()[f"{'BLEU' if name == 'bleu' else 'WER'}_talks"] == 4
    if options:  # each segment's statistics under its id: the talk's id and the segment's place
        assert [row[0] for row in merged.state()["metric.segment_stats"]][:3] == ["t1_0001", "t1_0002", "t2_0001"]
        assert sorted(merged.metric.utterance_scores()) == sorted(one.metric.utterance_scores())


# -- files: talks by row, references by segment with a talk map; the artifact; errors ---------------


def test_files_with_a_talk_map_and_the_artifact(write_scp_file, tmp_path):
    hyp = write_scp_file("hyp.scp", [("t1", "the cat sat on the mat it was"), ("t2", "hello world how are you")])
    ref = write_scp_file(
        "ref.scp",
        [("t1_a", "the cat sat"), ("t2_a", "hello world"), ("t1_b", "on a mat"), ("t1_c", "it was"), ("t2_b", "how")],
    )
    talk = write_scp_file("talks.scp", [(s, s[:2]) for s in ("t1_a", "t1_b", "t1_c", "t2_a", "t2_b", "t9_z")])
    metric = Resegmented("chrf")
    result = metric({"hyp": hyp, "ref": ref, "talk": talk}, "dev", tmp_path / "out")
    refs = ["the cat sat", "on a mat", "it was", "hello world", "how"]
    hyps = ["the cat sat", "on the mat", "it was", "hello world", "how are you"]
    assert result["chrF"] == pytest.approx(sacrebleu.corpus_chrf(hyps, [refs]).score, rel=1e-12)
    assert result["chrF_talks"] == 2 and result["chrF_segments"] == 5
    written = (tmp_path / "out" / "dev" / "resegmented_none.scp").read_text().splitlines()
    assert written == [f"{s} {h}" for s, h in zip(["t1_a", "t1_b", "t1_c", "t2_a", "t2_b"], hyps)]
    refs_written = (tmp_path / "out" / "dev" / "resegmented_none_ref.scp").read_text().splitlines()
    assert refs_written[1] == "t1_b on a mat"


def test_bad_files_name_the_file_line_and_talk(write_scp_file):
    hyp = write_scp_file("hyp.scp", [("t1", "a b"), ("t2", "c")])
    ref = write_scp_file("ref.scp", [("s1", "a b"), ("s2", "c")])
    no_talk = write_scp_file("talks.scp", [("s1", "t1")])
    with pytest.raises(ValueError, match=r"ref\.scp:2: segment 's2' has no talk in .*talks\.scp"):
        Resegmented("wer")({"hyp": hyp, "ref": ref, "talk": no_talk}, "dev")
    one_talk = write_scp_file("talks1.scp", [("s1", "t1"), ("s2", "t1")])
    with pytest.raises(ValueError, match=r"hyp\.scp:2: talk 't2' has no reference segment"):
        Resegmented("wer")({"hyp": hyp, "ref": ref, "talk": one_talk}, "dev")
    lost = write_scp_file("talks2.scp", [("s1", "t1"), ("s2", "t3")])
    with pytest.raises(ValueError, match=r"talk 't3' has reference segments but no line in .*hyp\.scp"):
        Resegmented("wer")({"hyp": hyp, "ref": ref, "talk": lost}, "dev")


def test_bad_input_and_options_are_named():
    m = Resegmented("wer")
    with pytest.raises(ValueError, match="'talk' maps a reference file's segments to talks"):
        m.update(hyp=["a"], ref=["a"], talk=["t1"])
    with pytest.raises(ValueError, match="utterance .t1.: Resegmented: 2 reference segments but 1 ref_ids"):
        from lightscore.core.batch import feed

        feed(m, {"hyp": ["a b"], "ref": ["a\nb"], "ref_ids": ['["s1"]']}, ["t1"])
    with pytest.raises(ValueError, match="utterance 't1': Resegmented: the talk has no reference segment"):
        feed(m, {"hyp": ["a b"], "ref": ["[]"]}, ["t1"])
    with pytest.raises(ValueError, match="metric 'rouge' is not one of bleu, chrf"):
        Resegmented("rouge")
    with pytest.raises(FileNotFoundError, match="named models are not downloaded"):
        Resegmented("bleu", reseg_tokenize="spm32k")
    with pytest.raises(ValueError, match="no talk was scored"):
        Resegmented("bleu").compute()
    assert Resegmented("bleu", tokenize="intl").settings().startswith("Resegmented reseg_tokenize=none BLEU")


def test_score_command_resegments_files(write_scp_file, tmp_path, capsys):
    from lightscore.cli.parser import main

    ref = write_scp_file("ref.scp", [("s1", "the cat sat"), ("s2", "on a mat"), ("s3", "hello world")])
    hyp = write_scp_file("hyp.scp", [("t1", "the cat sat on the mat"), ("t2", "hello world")])
    talks = write_scp_file("talks.scp", [("s1", "t1"), ("s2", "t1"), ("s3", "t2")])
    assert main(["score", str(ref), str(hyp), "--resegment", "--metric", "transter", "--talks", str(talks)]) == 0
    out = capsys.readouterr().out
    expected = sacrebleu.corpus_ter(
        ["the cat sat", "on the mat", "hello world"], [["the cat sat", "on a mat", "hello world"]]
    )
    assert f"{expected.score:.2f}" in out and "TransTER_talks" in out
    written = tmp_path / "hyp.resegmented" / "resegmented_none.scp"
    assert f"resegmented: {written}" in out
    assert written.read_text() == "s1 the cat sat\ns2 on the mat\ns3 hello world\n"
    # without --talks REF is one talk; HYP's rows are joined into its hypothesis
    assert main(["score", str(ref), str(hyp), "--resegment", "--metric", "wer"]) == 0
    assert "WER_talks" in capsys.readouterr().out
    assert main(["score", str(ref), str(hyp), "--talks", str(talks)]) == 1
    assert "--talks and --reseg-tokenize are options of --resegment" in capsys.readouterr().err


@pytest.mark.parametrize("with_map", [True, False])
def test_two_shards_of_the_files_equal_one(write_scp_file, with_map):
    """measure()'s road in one process: each rank's share of the talks (ScpShard) scored, the states merged."""
    from lightscore.core.merge import merged_result
    from lightscore.core.runner import update_from_files
    from lightscore.metrics.resegment_talks import segment_value

    talks = {f"t{k}": (["the cat sat", "on a mat", f"day {k}"], f"the cat sat on the mat day {k} ok") for k in range(5)}
    hyp = write_scp_file("hyp.scp", [(t, h) for t, (_, h) in talks.items()])
    if with_map:
        segments = [(f"{t}_{i}", r) for t, (refs, _) in talks.items() for i, r in enumerate(refs)]
        ref = write_scp_file("ref.scp", segments[::-1])  # a talk's segments need not be together or in talk order
        talk = write_scp_file("talks.scp", [(s, s.split("_")[0]) for s, _ in segments])
        data = {"hyp": hyp, "ref": ref, "talk": talk}
    else:
        data = {"hyp": hyp, "ref": write_scp_file("ref.scp", [(t, segment_value(r)) for t, (r, _) in talks.items()])}
    one = merged_result(Resegmented("bleu"), [update_from_files(Resegmented("bleu"), data)])
    states = [update_from_files(Resegmented("bleu"), data, rank=r, world=2) for r in range(2)]
    assert merged_result(Resegmented("bleu"), states) == one
    assert one["BLEU_talks"] == 5 and one["BLEU_segments"] == 15


# mweralign's regression cases (python/tests/regression/<case>/: ref.txt, hyp.txt, docids.txt, expected.txt)
DOC1 = [
    "You can come back any time as our chat service window is open 24/7",
    "I sincerely hope you get to find a resolution",
    "Thank you for contacting #PRS_ORG#, it was my pleasure to assist you today.",
    "I hope you have an excellent evening.",
]
DOC2 = [
    "Iran reports lowest number of daily COVID-19 cases in more than one year",
    "Iran's Health Ministry has registered 1,686 new daily COVID-19 infections, the lowest tally over the past 460 "
    "days, marking a sharp decline in cases as the fifth wave of the pandemic subsides.",
    "According to Press TV, the Ministry announced on Saturday that 58 Iranians died from the disease, noting that out "
    "of the new cases detected over the past 24 hours, 286 patients were admitted to hospital.",
    "It added that 6,152,524 people in the country have contracted COVID-19 and 5,963,373 of the infected people "
    "recovered and were discharged from hospitals.",
    "According to the Ministry, 3,126 COVID-19 patients are in intensive care units (ICU) while 39,951,481 diagnosis "
    "tests have been so far conducted across Iran.",
    "Coronavirus figures have been on a downward trend since the government started a mass vaccination campaign.",
]


@pytest.mark.parametrize(
    ("refs", "hyp", "mode", "expected"),
    [
        (  # empty_ref: -m none
            ["It was a bright cold day in April", "", "and the clocks were striking thirteen"],
            "It was a bright cold day in April and the clocks were striking thirteen",
            "none",
            ["It was a bright cold day in April", "", "and the clocks were striking thirteen"],
        ),
        (  # cj_errors: -m cj
            ["我喜欢喝咖啡", "她在公园里跑步", "我们明天去看电影"],
            "我喜欢喝茶她在公园跑步我们明天去看电影",
            "cj",
            ["我喜欢喝茶", "她在公园跑步", "我们明天去看电影"],
        ),
    ],
)
def test_mweralign_regression_cases(refs, hyp, mode, expected):
    assert resegment(refs, hyp, mode) == expected == oracle(refs, hyp, mode)


def test_mweralign_docids_case_through_the_files(write_scp_file, tmp_path):
    """regression/docids (-d docids.txt -m none): two documents, each hypothesis one line; expected.txt is ref.txt."""
    segments = [(f"s{k:02d}", text) for k, text in enumerate(DOC1 + DOC2)]
    ref = write_scp_file("ref.scp", segments)
    talk = write_scp_file("talks.scp", [(s, "doc01" if k < len(DOC1) else "7759") for k, (s, _) in enumerate(segments)])
    hyp = write_scp_file("hyp.scp", [("doc01", " ".join(DOC1)), ("7759", " ".join(DOC2))])
    result = Resegmented("bleu")({"hyp": hyp, "ref": ref, "talk": talk}, "dev", tmp_path)
    assert result["BLEU"] == pytest.approx(100.0) and result["BLEU_segments"] == 10
    lines = (tmp_path / "dev" / "resegmented_none.scp").read_text().splitlines()
    assert sorted(lines) == sorted(f"{s} {text}" for s, text in segments)


def test_wer_users_need_no_sacrebleu():
    """The search and the WER wrapper import neither sacrebleu nor its translation metrics."""
    code = (
        "import sys\n"
        "from lightscore.metrics import Resegmented\n"
        "m = Resegmented('wer'); m.update(hyp=['a b c'], ref=['a b\\nc'])\n"
        "assert m.compute()['WER'] == 0.0\n"
        "assert 'sacrebleu' not in sys.modules, 'sacrebleu was imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_segment_given_twice_is_named(write_scp_file):
    hyp = write_scp_file("hyp.scp", [("t1", "a b")])
    ref = write_scp_file("ref.scp", [("s1", "a"), ("s1", "b")])
    talk = write_scp_file("talks.scp", [("s1", "t1")])
    with pytest.raises(ValueError, match=r"ref\.scp:2: segment 's1' comes twice \(first at line 1\)"):
        Resegmented("wer")({"hyp": hyp, "ref": ref, "talk": talk}, "dev")
