"""WER, CER and TER: counts equal jiwer 4's, shards merge exactly, alignment files are written."""

from __future__ import annotations

import pickle
import random
import re

import jiwer
import pytest
import sentencepiece
from hypothesis import given, settings
from hypothesis import strategies as st

from lightscore.metrics import CER, TER, WER

STATES = {"substitutions", "deletions", "insertions", "hits", "ref_len", "utterances", "error_utterances"}

# Lower-case ASCII words, a few capitalized and non-ASCII ones (CER counts characters).
VOCAB = (
    "the a cat dog sat ran on over mat hill river stone house tree green blue red small "
    "quickly morning evening speech model token error The Cat Größe café naïve 日本 語"
).split()


def typo(word: str, rng: random.Random) -> str:
    i = rng.randrange(len(word))
    return word[:i] + rng.choice("xyzéß") + word[i + 1 :]


def generate_corpus(n: int, seed: int) -> tuple[list[str], list[str]]:
    """``n`` (ref, hyp) pairs: hyp is ref with substituted, misspelled, deleted and inserted words.

    About 4% of the references are empty, 4% of the hypotheses, and 1% both. Words are
    joined by single spaces: jiwer's ``process_characters`` keeps whitespace runs while
    `CER` collapses them to one space, so only single-spaced text is comparable.
    """
    rng = random.Random(seed)
    refs, hyps = [], []
    for _ in range(n):
        roll = rng.random()
        ref = [rng.choice(VOCAB) for _ in range(rng.randint(1, 15))]
        hyp: list[str] = []
        for word in ref:
            op = rng.random()
            if op < 0.06:
                hyp.append(rng.choice(VOCAB))
            elif op < 0.12:
                hyp.append(typo(word, rng))
            elif op < 0.18:
                continue
            else:
                hyp.append(word)
            if rng.random() < 0.05:
                hyp.append(rng.choice(VOCAB))
        if roll < 0.01:
            ref, hyp = [], []
        elif roll < 0.05:
            ref = []
        elif roll < 0.09:
            hyp = []
        refs.append(" ".join(ref))
        hyps.append(" ".join(hyp))
    return refs, hyps


def counts(metric) -> tuple[int, int, int, int]:
    return metric.substitutions, metric.deletions, metric.insertions, metric.hits


def jiwer_counts(output) -> tuple[int, int, int, int]:
    return output.substitutions, output.deletions, output.insertions, output.hits


def chunk_counts(chunks) -> tuple[int, int, int, int]:
    """(S, D, I, H) of one sentence from jiwer's alignment chunks."""
    total = {"substitute": 0, "delete": 0, "insert": 0, "equal": 0}
    for c in chunks:
        total[c.type] += max(c.ref_end_idx - c.ref_start_idx, c.hyp_end_idx - c.hyp_start_idx)
    return total["substitute"], total["delete"], total["insert"], total["equal"]


@pytest.fixture(scope="module")
def corpus() -> tuple[list[str], list[str]]:
    refs, hyps = generate_corpus(2000, seed=20240601)
    assert sum(not r for r in refs) >= 50 and sum(not h for h in hyps) >= 50
    assert sum(not r and not h for r, h in zip(refs, hyps)) >= 5
    assert sum(not r and bool(h) for r, h in zip(refs, hyps)) >= 40
    return refs, hyps


@pytest.mark.parametrize(
    ("metric_class", "process"),
    [(WER, jiwer.process_words), (CER, jiwer.process_characters)],
    ids=["WER", "CER"],
)
def test_counts_equal_jiwer_on_2000_pairs(corpus, metric_class, process):
    refs, hyps = corpus
    expected = process(refs, hyps)
    metric = metric_class()
    metric.update(ref=refs, hyp=hyps)
    assert counts(metric) == jiwer_counts(expected)
    assert metric.ref_len == expected.hits + expected.substitutions + expected.deletions
    assert metric.utterances == 2000
    result = metric.compute()
    name = metric_class.name
    assert result[name] == pytest.approx((expected.wer if name == "WER" else expected.cer) * 100, rel=1e-12)
    # Per utterance too, so no two differences cancel in the corpus sums.
    one = metric_class()
    errors = 0
    for ref, hyp, chunks in zip(refs, hyps, expected.alignments):
        one.reset()
        one.update(ref=[ref], hyp=[hyp])
        assert counts(one) == chunk_counts(chunks), (ref, hyp)
        errors += one.error_utterances
    assert metric.error_utterances == errors
    # The state stays seven integers however much data went in.
    state = metric.state()
    assert set(state) == STATES and all(type(v) is int for v in state.values())


def test_ter_equals_jiwer_on_sentencepiece_pieces(spm_model, make_sentences):
    refs, hyps = generate_corpus(300, seed=5)
    refs += make_sentences(11, 20)
    hyps += make_sentences(12, 20)
    processor = sentencepiece.SentencePieceProcessor(model_file=str(spm_model))

    def pieces(text):
        return " ".join(processor.encode(text, out_type=str))

    expected = jiwer.process_words([pieces(r) for r in refs], [pieces(h) for h in hyps])
    metric = TER(spm_model)
    metric.update(ref=refs, hyp=hyps)
    assert counts(metric) == jiwer_counts(expected)
    n_pieces = sum(len(processor.encode(r)) for r in refs)
    assert metric.ref_len == n_pieces
    assert n_pieces > 1.5 * sum(len(r.split()) for r in refs)  # pieces, not words
    assert metric.compute()["TER"] == pytest.approx(expected.wer * 100, rel=1e-12)


def test_ter_counts_one_pair_by_hand(spm_model):
    processor = sentencepiece.SentencePieceProcessor(model_file=str(spm_model))
    ref, hyp = "the cat sat", "the cat"
    ref_pieces, hyp_pieces = processor.encode(ref, out_type=str), processor.encode(hyp, out_type=str)
    assert ref_pieces[: len(hyp_pieces)] == hyp_pieces  # the pieces of "sat" are simply missing
    metric = TER(spm_model)
    metric.update(ref=[ref], hyp=[hyp])
    missing = len(ref_pieces) - len(hyp_pieces)
    assert counts(metric) == (0, missing, 0, len(hyp_pieces))
    assert metric.compute()["TER"] == missing / len(ref_pieces) * 100


def test_ter_case_fold_and_pickle(spm_model):
    metric = TER(spm_model, case="fold")
    metric.update(ref=["The Cat sat"], hyp=["the cat SAT"])
    assert metric.compute()["TER"] == 0.0
    clone = pickle.loads(pickle.dumps(metric))
    assert clone.state() == metric.state()
    clone.update(ref=["the dog"], hyp=["the"])
    assert clone.deletions > 0


def test_ter_bpemodel_must_be_a_file(tmp_path):
    with pytest.raises(ValueError, match=r"TER: bpemodel '.*nope\.model' is not a file"):
        TER(tmp_path / "nope.model")


# -- hand-checked counting rules ----------------------------------------------------------------


def test_rate_is_errors_over_reference_tokens():
    metric = WER()
    metric.update(ref=["a b c d", "e f"], hyp=["a x c d y", "f"])
    # a=a, b->x (S), c, d, +y (I); e deleted (D), f=f
    result = metric.compute()
    assert result == {
        "WER": 3 / 6 * 100,
        "WER_sub": 1,
        "WER_del": 1,
        "WER_ins": 1,
        "WER_hit": 4,
        "WER_ref_len": 6,
        "WER_utts": 2,
        "WER_utt_err": 100.0,
    }
    assert (metric.utterances, metric.error_utterances) == (2, 2)


def test_empty_hypothesis_counts_deletions():
    for metric, n in ((WER(), 3), (CER(), 9)):
        metric.update(ref=["the cat x"], hyp=[""])
        assert counts(metric) == (0, n, 0, 0)
        assert metric.compute()[metric.name] == 100.0


def test_empty_reference_counts_insertions():
    for metric, n in ((WER(), 2), (CER(), 5)):
        metric.update(ref=["", "ab"], hyp=["ab cd", "ab"])
        assert counts(metric) == (0, 0, n, metric.ref_len)
        assert metric.error_utterances == 1
        assert metric.compute()[metric.name] == n / metric.ref_len * 100


def test_both_empty_is_no_error():
    metric = WER()
    metric.update(ref=["", "a"], hyp=["", "a"])
    assert (metric.utterances, metric.error_utterances, metric.ref_len) == (2, 0, 1)
    assert metric.compute()["WER"] == 0.0


@pytest.mark.parametrize("metric_class", [WER, CER])
def test_compute_without_reference_tokens(metric_class):
    metric = metric_class()
    with pytest.raises(ValueError, match=f"{metric_class.name}: the references hold no tokens"):
        metric.compute()
    metric.update(ref=["", "  "], hyp=["some words", ""])
    assert metric.insertions > 0
    with pytest.raises(ValueError, match="nothing to score"):
        metric.compute()


def test_case_sensitive_by_default_and_fold():
    sensitive, fold = WER(), WER(case="fold")
    for metric in (sensitive, fold):
        metric.update(ref=["The CAT sat"], hyp=["the cat sat"])
    assert sensitive.compute()["WER_sub"] == 2
    assert fold.compute()["WER"] == 0.0
    cer = CER(case="fold")
    cer.update(ref=["ÄB c"], hyp=["äb C"])
    assert cer.compute()["CER"] == 0.0


def test_unknown_case():
    with pytest.raises(ValueError, match="WER: case 'upper' is not one of sensitive, fold"):
        WER(case="upper")


def test_cer_counts_spaces_and_collapses_whitespace_runs():
    metric = CER()
    metric.update(ref=["ab cd"], hyp=["abcd"])
    assert counts(metric) == (0, 1, 0, 4)  # the space is a token
    metric.reset()
    metric.update(ref=["  ab \t cd "], hyp=["ab cd"])
    assert counts(metric) == (0, 0, 0, 5)  # runs count as one space, ends stripped


def test_declared_outputs():
    for metric_class in (WER, CER):
        name = metric_class.name
        assert [f.name for f in metric_class.outputs] == [name] + [
            f"{name}_{c}" for c in ("sub", "del", "ins", "hit", "ref_len", "utts", "utt_err")
        ]
        assert [f.name for f in metric_class.inputs] == ["ref", "hyp"]  # the seed contract
        assert [f.optional for f in metric_class.inputs] == [False, False]


# -- shards merge exactly (property) -------------------------------------------------------------

texts = st.lists(st.sampled_from(["a", "b", "cat", "the", "Dog", "é", "日本", "sat on"]), max_size=6).map(" ".join)
corpora = st.lists(st.tuples(texts, texts), max_size=25)


def build(name, spm_model):
    return {"WER": WER, "CER": CER}[name]() if name != "TER" else TER(spm_model)


def compute_or_error(metric):
    try:
        return metric.compute()
    except ValueError as e:
        return str(e)


@pytest.mark.parametrize("name", ["WER", "CER", "TER"])
@settings(max_examples=40, deadline=None)
@given(pairs=corpora, data=st.data())
def test_sharded_merge_equals_one_pass(spm_model, name, pairs, data):
    k = data.draw(st.integers(1, 5), label="k")
    cuts = sorted(data.draw(st.lists(st.integers(0, len(pairs)), min_size=k - 1, max_size=k - 1), label="cuts"))
    bounds = list(zip([0, *cuts], [*cuts, len(pairs)]))
    refs, hyps = [r for r, _ in pairs], [h for _, h in pairs]

    whole = build(name, spm_model)
    whole.update(ref=refs, hyp=hyps)

    shards = [build(name, spm_model) for _ in bounds]
    for metric, (start, stop) in zip(shards, bounds):
        metric.update(ref=refs[start:stop], hyp=hyps[start:stop])  # a shard may be empty
    states = [m.state() for m in shards]
    merged = build(name, spm_model)
    merged.update(ref=["stale"], hyp=["data"])  # load_state replaces, not adds
    merged.load_state(merged.merge_states(states))

    assert merged.state() == whole.state()
    assert merged.merge_states(states[::-1]) == whole.state()
    assert compute_or_error(merged) == compute_or_error(whole)


# -- metric(data, test_name, output_dir) over SCP files -------------------------------------------

SUMMARY = re.compile(r"^%(\w+) (\d+\.\d\d) \[ (\d+) / (\d+), (\d+) ins, (\d+) del, (\d+) sub \]$")


@pytest.fixture
def scp_corpus(write_scp_file):
    refs, hyps = generate_corpus(57, seed=3)
    refs[0], hyps[0] = "the cat sat", "the bat sat down"
    ids = [f"utt{i:03d}" for i in range(len(refs))]
    data = {
        "ref": write_scp_file("ref.scp", zip(ids, refs)),
        "hyp": write_scp_file("hyp.scp", zip(ids, hyps)),
    }
    return ids, refs, hyps, data


def parse_alignment(text: str) -> tuple[re.Match, list[list[str]]]:
    header, *blocks = text.split("\n\n")
    summary, settings_line = header.split("\n")  # the Kaldi summary line, then "# settings: ..."
    assert settings_line.startswith("# settings: "), settings_line
    match = SUMMARY.match(summary)
    assert match, summary
    return match, [block.rstrip("\n").split("\n") for block in blocks]


def test_call_with_chunks_equals_one_update_and_writes_wer_alignment(scp_corpus, tmp_path):
    ids, refs, hyps, data = scp_corpus
    one = WER()
    one.update(ref=refs, hyp=hyps)

    metric = WER()
    metric.chunk_size = 10  # 57 rows: six update() calls
    result = metric(data, "test-clean", tmp_path / "metrics")
    assert result == one.compute()
    assert metric.state() == one.state()
    assert metric.collect_artifacts is False

    path = tmp_path / "metrics" / "test-clean" / "wer_alignment"
    assert sorted(p.name for p in path.parent.iterdir()) == ["wer_alignment"]  # no temp file left
    match, blocks = parse_alignment(path.read_text(encoding="utf-8"))
    errors = result["WER_sub"] + result["WER_del"] + result["WER_ins"]
    assert match.groups() == (
        "WER",
        f"{result['WER']:.2f}",
        str(errors),
        str(result["WER_ref_len"]),
        str(result["WER_ins"]),
        str(result["WER_del"]),
        str(result["WER_sub"]),
    )

    # One block per utterance with errors, in file order, with jiwer's per-utterance counts.
    expected = jiwer.process_words(refs, hyps)
    wrong = [
        (utt, chunk_counts(chunks))
        for utt, chunks in zip(ids, expected.alignments)
        if chunk_counts(chunks)[:3] != (0, 0, 0)
    ]
    assert len(blocks) == len(wrong) == one.error_utterances
    for block, (utt, (s, d, i, h)) in zip(blocks, wrong):
        assert len(block) == 5
        assert block[0] == f"id: {utt}"
        assert block[1] == f"Scores: (#C #S #D #I) {h} {s} {d} {i}"
        assert block[2].startswith("REF:  ") and block[3].startswith("HYP:  ")
        assert block[4].startswith("Eval:")
        marks = block[4][6:].split()
        assert (marks.count("S"), marks.count("D"), marks.count("I")) == (s, d, i)
        ref_words = [w for w in block[2][6:].split() if set(w) != {"*"}]
        assert ref_words == refs[ids.index(utt)].split()  # tokens as written, errors included
    assert blocks[0] == [
        "id: utt000",
        "Scores: (#C #S #D #I) 2 1 0 1",
        "REF:  the cat sat ****",
        "HYP:  the bat sat down",
        "Eval:     S       I",
    ]


def test_call_cer_and_ter_alignment_files(scp_corpus, spm_model, tmp_path):
    _, refs, hyps, data = scp_corpus
    for metric in (CER(), TER(spm_model)):
        metric.chunk_size = 7
        one = type(metric)() if isinstance(metric, CER) else TER(spm_model)
        one.update(ref=refs, hyp=hyps)
        result = metric(data, "test-clean", str(tmp_path))
        assert result == one.compute()
        name = metric.name
        text = (tmp_path / "test-clean" / f"{name.lower()}_alignment").read_text(encoding="utf-8")
        match, blocks = parse_alignment(text)
        assert match.group(1) == name and match.group(2) == f"{result[name]:.2f}"
        assert len(blocks) == one.error_utterances
        assert blocks[0][0] == "id: utt000"
    cer_text = (tmp_path / "test-clean" / "cer_alignment").read_text(encoding="utf-8")
    assert "<sp>" in cer_text  # a space between words shown visibly


def test_alignment_shows_a_case_only_substitution(write_scp_file, tmp_path):
    # WER is case-sensitive, so the report must show what differs: "The" vs "the", not "THE" twice.
    data = {
        "ref": write_scp_file("ref.scp", [("u1", "The Größe")]),
        "hyp": write_scp_file("hyp.scp", [("u1", "the Große")]),
    }
    assert WER()(data, "t", tmp_path)["WER_sub"] == 2
    _, blocks = parse_alignment((tmp_path / "t" / "wer_alignment").read_text(encoding="utf-8"))
    assert blocks == [["id: u1", "Scores: (#C #S #D #I) 0 2 0 0", "REF:  The Größe", "HYP:  the Große", "Eval: S   S"]]


def test_call_without_output_dir_writes_nothing(scp_corpus, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _, refs, hyps, data = scp_corpus
    before = sorted(p.name for p in tmp_path.rglob("*"))
    metric = WER()
    metric.chunk_size = 4
    result = metric(data, "test-clean")
    assert result["WER_ref_len"] == sum(len(r.split()) for r in refs)
    assert sorted(p.name for p in tmp_path.rglob("*")) == before
    assert metric.collect_artifacts is False


def test_call_with_no_reference_tokens_writes_no_alignment(write_scp_file, tmp_path):
    data = {"ref": write_scp_file("ref.scp", [("u1", "")]), "hyp": write_scp_file("hyp.scp", [("u1", "x")])}
    with pytest.raises(ValueError, match="no tokens"):
        WER()(data, "test-clean", tmp_path / "out")
    assert not (tmp_path / "out" / "test-clean" / "wer_alignment").exists()


def test_alignment_false_writes_no_alignment_file(write_scp_file, tmp_path):
    ref = write_scp_file("ref.scp", "u1 the cat\nu2 a dog\n")
    hyp = write_scp_file("hyp.scp", "u1 the bat\nu2 a dog\n")
    result = WER(alignment=False)({"ref": ref, "hyp": hyp}, "test-clean", tmp_path / "out")
    assert result["WER_sub"] == 1
    assert not (tmp_path / "out" / "test-clean" / "wer_alignment").exists()
