"""WER, CER and TER called over SCP files: chunked calls equal one update, and the alignment files they write
(Kaldi's summary line, one block per utterance with errors, jiwer's counts), or do not write."""

from __future__ import annotations

import re

import jiwer
import pytest
from error_rate_corpus import chunk_counts, generate_corpus

from lightscore.metrics import CER, TER, WER

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
