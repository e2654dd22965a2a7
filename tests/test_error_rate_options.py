"""WER/CER/TER options: the sclite aligner against sclite's reports, normalizers, per-utterance counts,
bootstrap intervals, settings(), breakdown reports and argument checks."""

from __future__ import annotations

import csv
import json
import pickle
from pathlib import Path

import jiwer
import pytest

from lightscore.analysis.bootstrap import bootstrap_ci
from lightscore.analysis.breakdown import UttCounts
from lightscore.core.batch import feed
from lightscore.core.merge import merged_result
from lightscore.core.runner import write_artifacts_of
from lightscore.metrics import CER, TER, WER
from lightscore.metrics.error_rate_base import STATES

REFERENCE = Path(__file__).parent / "data" / "sclite_reference"
RUNS = [(run, system) for run in ("word", "word_s", "char", "char_s") for system in "ab"]


def read_scp(path: Path) -> tuple[list[str], list[str]]:
    """Ids and texts of a Kaldi text file; a bare id is an empty text."""
    ids, texts = [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        utt_id, _, text = line.partition(" ")
        ids.append(utt_id)
        texts.append(text)
    return ids, texts


def reference_pairs(system: str) -> tuple[list[str], list[str], list[str]]:
    ids, refs = read_scp(REFERENCE / "ref.scp")
    hyp_ids, hyps = read_scp(REFERENCE / f"hyp_{system}.scp")
    assert hyp_ids == ids
    return ids, refs, hyps


def sclite_metric(run: str, **options) -> WER | CER:
    cls = CER if run.startswith("char") else WER
    return cls(aligner="sclite", case="sensitive" if run.endswith("_s") else "fold", **options)


def per_utt(run: str, system: str) -> dict[str, tuple[int, int, int, int]]:
    with open(REFERENCE / "per_utt.tsv", encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f, delimiter="\t") if (r["run"], r["system"]) == (run, system)]
    return {r["utt_id"]: tuple(int(r[k]) for k in "CSDI") for r in rows}


# -- the sclite aligner reproduces sclite ----------------------------------------------------------


@pytest.mark.parametrize(("run", "system"), RUNS)
def test_sclite_aligner_reproduces_every_count_of_the_reference(run, system):
    ids, refs, hyps = reference_pairs(system)
    metric = sclite_metric(run, per_utterance=True)
    for start in range(0, len(ids), 150):  # a few batches, as a loader gives them
        stop = start + 150
        feed(metric, {"ref": refs[start:stop], "hyp": hyps[start:stop]}, ids[start:stop])
    result = metric.compute()

    expected = per_utt(run, system)
    got = {r.utt_id: (r.ref_len - r.sub - r.dele, r.sub, r.dele, r.ins) for r in metric.utterance_records()}
    assert got == expected

    totals = json.loads((REFERENCE / "expected.json").read_text())["sclite"][run]["systems"][system]["totals"]
    name = metric.name
    assert (result[f"{name}_hit"], result[f"{name}_sub"], result[f"{name}_del"], result[f"{name}_ins"]) == (
        totals["correct"],
        totals["substitutions"],
        totals["deletions"],
        totals["insertions"],
    )
    assert result[f"{name}_ref_len"] == totals["ref_tokens"]
    assert result[f"{name}_utts"] == totals["sentences"] == 400
    assert result[f"{name}_utt_err"] == pytest.approx(100 * totals["sentence_errors"] / totals["sentences"])
    assert result[f"{name}_utt_err"] == pytest.approx(totals["sentence_error_percent"])
    assert result[name] == pytest.approx(totals["error_rate_percent"], abs=5e-5)


@pytest.mark.parametrize("run", ["word", "char_s"])
def test_sclite_totals_do_not_need_per_utterance_counts(run):
    ids, refs, hyps = reference_pairs("a")
    lean, full = sclite_metric(run), sclite_metric(run, per_utterance=True)
    lean.update(ref=refs, hyp=hyps)
    feed(full, {"ref": refs, "hyp": hyps}, ids)
    assert lean.compute() == full.compute()
    assert set(lean.state()) == set(STATES)  # the default state stays a few integers


def test_sclite_alignment_breaks_ties_as_sclite():
    # spk8-utt0001 of the reference: sclite deletes the first copy of "x".
    assert WER(aligner="sclite").align("x x x y", "x y y") == [
        ("x", None, "D"),
        ("x", "x", "C"),
        ("x", "y", "S"),
        ("y", "y", "C"),
    ]
    assert WER().align("x x x y", "x y y") != WER(aligner="sclite").align("x x x y", "x y y")


def test_unit_aligner_is_unchanged_and_equals_jiwer():
    ids, refs, hyps = reference_pairs("b")
    keep = [k for k, ref in enumerate(refs) if ref]  # jiwer refuses an empty reference
    refs, hyps, ids = [refs[k] for k in keep], [hyps[k] for k in keep], [ids[k] for k in keep]
    out = jiwer.process_words(refs, hyps)
    for metric in (WER(), WER(aligner="unit", per_utterance=True)):
        feed(metric, {"ref": refs, "hyp": hyps}, ids)
        r = metric.compute()
        assert (r["WER_sub"], r["WER_del"], r["WER_ins"], r["WER_hit"]) == (
            out.substitutions,
            out.deletions,
            out.insertions,
            out.hits,
        )
    # Per utterance too: jiwer's chunks of each sentence.
    by_id = {rec.utt_id: rec for rec in metric.utterance_records()}
    for utt_id, chunks in zip(ids, out.alignments):
        size = {"substitute": 0, "delete": 0, "insert": 0}
        for c in chunks:
            if c.type in size:
                size[c.type] += max(c.ref_end_idx - c.ref_start_idx, c.hyp_end_idx - c.hyp_start_idx)
        rec = by_id[utt_id]
        assert (rec.sub, rec.dele, rec.ins) == (size["substitute"], size["delete"], size["insert"])


def test_utt_err_counts_an_empty_reference_only_with_a_hypothesis():
    metric = WER(per_utterance=True)
    feed(metric, {"ref": ["a b", "", "", "c"], "hyp": ["a b", "", "x", "d"]}, ["u1", "u2", "u3", "u4"])
    result = metric.compute()
    assert result["WER_utts"] == 4
    assert result["WER_utt_err"] == 50.0  # u3 (insertion into nothing) and u4; not u2
    assert [r.errors for r in metric.utterance_records()] == [0, 0, 1, 1]


# -- per-utterance state: merges exactly, CI agrees across splits -----------------------------------


def test_per_utterance_state_and_ci_merge_exactly():
    ids, refs, hyps = reference_pairs("a")

    def build():
        return WER(case="fold", aligner="sclite", ci=0.95, bootstrap=300, seed=5, block_bootstrap=True)

    one = build()
    feed(one, {"ref": refs, "hyp": hyps}, ids)
    ranks = [build(), build()]
    for rank, metric in enumerate(ranks):  # interleaved, as a distributed sampler deals rows
        feed(metric, {"ref": refs[rank::2], "hyp": hyps[rank::2]}, ids[rank::2])
    merged = build()
    result = merged_result(merged, [m.state() for m in ranks])
    assert result == one.compute()
    assert merged.utterance_records() == one.utterance_records()
    assert sorted(merged.utterance_counts) == sorted(one.utterance_counts)
    assert merged_result(build(), [m.state() for m in ranks[::-1]]) == result  # rank order does not matter


def test_ci_is_deterministic_for_a_seed_and_uses_the_sorted_records():
    ids, refs, hyps = reference_pairs("b")
    order = sorted(range(len(ids)), key=lambda k: hyps[k])  # fed in an order unrelated to the ids

    def result(**options):
        metric = WER(ci=0.9, bootstrap=400, **options)
        feed(metric, {"ref": [refs[k] for k in order], "hyp": [hyps[k] for k in order]}, [ids[k] for k in order])
        return metric.compute()

    first, again, other = result(seed=1), result(seed=1), result(seed=2)
    assert first == again
    assert (first["WER_ci_low"], first["WER_ci_high"]) != (other["WER_ci_low"], other["WER_ci_high"])
    assert first["WER_ci_low"] < first["WER"] < first["WER_ci_high"]

    metric = WER(per_utterance=True)
    feed(metric, {"ref": refs, "hyp": hyps}, ids)
    records = metric.utterance_records()
    assert [r.utt_id for r in records] == sorted(ids)
    expected = bootstrap_ci([r.errors for r in records], [r.ref_len for r in records], ci=0.9, replicates=400, seed=1)
    assert (first["WER_ci_low"], first["WER_ci_high"]) == expected
    block = result(seed=1, block_bootstrap=True)
    speakers = [r.speaker for r in records]
    assert (block["WER_ci_low"], block["WER_ci_high"]) == bootstrap_ci(
        [r.errors for r in records], [r.ref_len for r in records], ci=0.9, replicates=400, seed=1, groups=speakers
    )
    assert WER(ci=0.9).outputs[-2].name == "WER_ci_low" and WER().outputs[-1].name == "WER_utt_err"


def test_per_utterance_needs_ids_and_unique_ones():
    with pytest.raises(ValueError, match="per-utterance counts need the utterance ids"):
        WER(reports=True).update(ref=["a"], hyp=["a"])
    metric = CER(per_utterance=True)
    feed(metric, {"ref": ["a"], "hyp": ["b"]}, ["u1"])
    feed(metric, {"ref": ["c"], "hyp": ["c"]}, ["u1"])
    with pytest.raises(ValueError, match="utterance 'u1' was scored twice"):
        metric.utterance_records()
    with pytest.raises(ValueError, match="per_utterance=True"):
        WER().utterance_records()
    lean = WER()
    feed(lean, {"ref": ["a"], "hyp": ["b"]}, ["u1"])  # ids are accepted and ignored
    assert lean.state() == {
        **dict.fromkeys(STATES, 0),
        "substitutions": 1,
        "ref_len": 1,
        "utterances": 1,
        "error_utterances": 1,
    }


# -- normalizers -------------------------------------------------------------------------------------


def test_normalizer_applies_to_both_sides_in_counts_and_alignments():
    ref, hyp = "Mr. Smith paid $20.50 for the colour TV!", "mister smith paid $20.50 for the color tv"
    plain, whisper = WER(), WER(normalize="whisper_english")
    for metric in (plain, whisper):
        metric.update(ref=[ref], hyp=[hyp])
    assert plain.compute()["WER"] == pytest.approx(4 / 8 * 100)  # Mr. Smith colour TV! differ
    assert whisper.compute()["WER"] == 0.0
    assert whisper.align(ref, hyp)[:2] == [("mister", "mister", "C"), ("smith", "smith", "C")]

    # User rules after the named normalizer, on both sides: fillers dropped, words replaced.
    metric = WER(normalize="whisper_basic", substitutions={"okay": "ok"}, fillers=["um"])
    metric.update(ref=["OK, the cat"], hyp=["um okay the cat"])
    assert metric.compute()["WER"] == 0.0
    cer = CER(normalize="whisper_basic")
    cer.update(ref=["A, b!"], hyp=["a b"])
    assert cer.compute()["CER"] == 0.0


def test_settings_names_everything_that_changes_the_number(spm_model):
    from importlib.metadata import version

    assert WER().settings() == "WER case=sensitive aligner=unit normalize=none"
    package = f"whisper-normalizer {version('whisper-normalizer')}"
    text = WER(case="fold", aligner="sclite", normalize="whisper_english").settings()
    assert text == f"WER case=fold aligner=sclite normalize=whisper_english ({package})"
    fillers = CER(fillers=["um"]).settings()
    assert fillers.startswith("CER case=sensitive aligner=unit normalize=none + 1 fillers (sha1 ")
    ter = TER(spm_model, case="fold").settings()
    assert ter.startswith(f"TER bpemodel={Path(spm_model).name} (sha1 ") and ter.endswith(
        " case=fold aligner=unit normalize=none"
    )


def test_ter_takes_the_same_options_and_pickles(spm_model):
    metric = TER(spm_model, aligner="sclite", per_utterance=True)
    feed(metric, {"ref": ["the cat sat", ""], "hyp": ["the cat", ""]}, ["u1", "u2"])
    copy = pickle.loads(pickle.dumps(metric))
    assert copy.compute() == metric.compute()
    assert copy.compute()["TER_utts"] == 2 and copy.compute()["TER_utt_err"] == 50.0
    assert copy.settings() == metric.settings()


# -- reports ----------------------------------------------------------------------------------------

ROWS = [
    ("spkA-u1", "the cat sat on the mat", "the bat sat on mat"),  # S cat>bat, D the
    ("spkA-u2", "a dog ran", "a dog ran"),
    ("spkB-u1", "the cat ran", "the bat ran away"),  # S cat>bat, I away
    ("spkB-u2", "hello", ""),  # D hello
]


def score_rows(write_scp_file, tmp_path, **options):
    ids = [r[0] for r in ROWS]
    data = {
        "ref": write_scp_file("ref.scp", [(i, r) for i, r, _ in ROWS]),
        "hyp": write_scp_file("hyp.scp", [(i, h) for i, _, h in ROWS]),
    }
    metric = WER(reports=True, **options)
    feed(metric, {"ref": [r[1] for r in ROWS], "hyp": [r[2] for r in ROWS]}, ids)
    write_artifacts_of(metric, data, "dev", tmp_path)
    return metric, tmp_path / "dev"


def read_tsv(path: Path) -> list[list[str]]:
    return [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()]


def test_reports_by_id_prefix_are_counted_by_hand(write_scp_file, tmp_path):
    metric, out = score_rows(write_scp_file, tmp_path)
    assert sorted(p.name for p in out.iterdir()) == [
        "wer_alignment",
        "wer_speakers.tsv",
        "wer_top_errors.tsv",
        "wer_worst.tsv",
    ]
    assert metric.speakers() == {"spkA-u1": "spkA", "spkA-u2": "spkA", "spkB-u1": "spkB", "spkB-u2": "spkB"}
    # spkA: 9 words, 1 S + 1 D; spkB: 4 words, 1 S + 1 D + 1 I.
    assert read_tsv(out / "wer_speakers.tsv") == [
        ["speaker", "utterances", "words", "sub", "dele", "ins", "rate"],
        ["spkB", "2", "4", "1", "1", "1", "75.0"],
        ["spkA", "2", "9", "1", "1", "0", str(200 / 9)],
    ]
    assert read_tsv(out / "wer_top_errors.tsv") == [
        ["kind", "ref", "hyp", "count"],
        ["substitution", "cat", "bat", "2"],
        ["deletion", "hello", "", "1"],
        ["deletion", "the", "", "1"],
        ["insertion", "", "away", "1"],
    ]
    worst = read_tsv(out / "wer_worst.tsv")
    assert worst[0] == [
        "utt_id",
        "speaker",
        "sub",
        "dele",
        "ins",
        "ref_len",
        "errors",
        "rate",
        "ref_aligned",
        "hyp_aligned",
        "eval",
    ]
    assert [row[:8] for row in worst[1:]] == [
        ["spkB-u1", "spkB", "1", "0", "1", "3", "2", "66.66666666666667"],
        ["spkA-u1", "spkA", "1", "1", "0", "6", "2", "33.333333333333336"],
        ["spkB-u2", "spkB", "0", "1", "0", "1", "1", "100.0"],
        ["spkA-u2", "spkA", "0", "0", "0", "3", "0", "0.0"],
    ]
    assert worst[1][8:] == ["the cat ran ****", "the bat ran away", "    S       I"]
    assert worst[3][8:] == ["hello", "*****", "D"]
    text = (out / "wer_alignment").read_text(encoding="utf-8")
    assert text.split("\n")[:2] == [
        "%WER 38.46 [ 5 / 13, 1 ins, 2 del, 2 sub ]",
        "# settings: WER case=sensitive aligner=unit normalize=none",
    ]
    assert text.count("\nid: ") == 3


def test_reports_with_utt2spk(write_scp_file, tmp_path):
    utt2spk = write_scp_file(
        "utt2spk", [("spkA-u1", "ann"), ("spkA-u2", "bob"), ("spkB-u1", "bob"), ("spkB-u2", "ann")]
    )
    metric, out = score_rows(write_scp_file, tmp_path, utt2spk=str(utt2spk), alignment=False)
    assert not (out / "wer_alignment").exists()
    assert metric.speakers()["spkB-u2"] == "ann"
    # ann: u1 (6 words, S + D) and spkB-u2 (1 word, D) = 3/7; bob: 3 + 3 words, S + I = 2/6.
    assert read_tsv(out / "wer_speakers.tsv")[1:] == [
        ["ann", "2", "7", "1", "2", "0", str(300 / 7)],
        ["bob", "2", "6", "1", "0", "1", str(200 / 6)],
    ]
    missing = write_scp_file("utt2spk_short", [("spkA-u1", "ann")])
    short = WER(per_utterance=True, utt2spk=missing)
    feed(short, {"ref": ["a"], "hyp": ["a"]}, ["spkB-u9"])
    with pytest.raises(ValueError, match="utt2spk .*spkB-u9"):
        short.speakers()


def test_report_html_shows_the_counts(write_scp_file, tmp_path):
    metric, out = score_rows(write_scp_file, tmp_path, report_html=True, case="fold", aligner="sclite")
    page = (out / "wer_report.html").read_text(encoding="utf-8")
    assert f'<span id="rate-0" data-value="{5 / 13 * 100!r}">' in page
    assert '<span id="utts-0" data-value="4">' in page and '<span id="utt-err-0" data-value="3">' in page
    assert '<span id="uer-0" data-value="75.0">' in page
    assert "aligner=sclite" in page and page.count("spkB-u2") >= 1


# -- argument checks ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "error", "match"),
    [
        ({"alignment": "false"}, TypeError, "alignment must be a bool, got str 'false'"),
        ({"per_utterance": 1}, TypeError, "per_utterance must be a bool"),
        ({"reports": None}, TypeError, "reports must be a bool"),
        ({"case": 3}, TypeError, "case must be a string"),  # None is the default: sclite folding with its aligner
        ({"case": "upper"}, ValueError, "case 'upper' is not one of sensitive, fold"),
        ({"aligner": "kaldi"}, ValueError, "aligner 'kaldi' is not one of unit, sclite"),
        (
            {"normalize": "english"},
            ValueError,
            "normalize 'english' is not one of none, whisper_english, whisper_basic",
        ),
        ({"normalize": True}, TypeError, "normalize must be a string"),
        ({"ci": 95}, TypeError, "ci must be a float"),
        ({"ci": 1.5}, ValueError, "ci 1.5 is not between 0 and 1"),
        ({"ci": 0.9, "bootstrap": True}, TypeError, "bootstrap must be an int"),
        ({"ci": 0.9, "bootstrap": 0}, ValueError, "bootstrap must be >= 1"),
        ({"seed": "0"}, TypeError, "seed must be an int"),
        ({"block_bootstrap": True}, ValueError, "block_bootstrap resamples speakers for ci"),
        ({"fillers": 3}, TypeError, "fillers must be a path or a list"),
        ({"substitutions": ["a"]}, TypeError, "substitutions must be a path or a mapping"),
        ({"utt2spk": 7}, TypeError, "utt2spk must be a path"),
        ({"utt2spk": "no/such/utt2spk"}, ValueError, "utt2spk 'no/such/utt2spk' is not a file"),
    ],
)
def test_bad_arguments_are_named(options, error, match):
    with pytest.raises(error, match=match):
        WER(**options)


def test_ter_bad_bpemodel_type():
    with pytest.raises(TypeError, match="TER: bpemodel must be a path, got int 3"):
        TER(3)


def test_per_utterance_default_off_and_forced_on():
    assert not WER().per_utterance
    for options in ({"ci": 0.95}, {"reports": True}, {"report_html": True}, {"per_utterance": True}):
        metric = WER(**options)
        assert metric.per_utterance and "utterance_counts" in metric.state()
    assert isinstance(WER(per_utterance=True).utterance_records(), list)
    assert UttCounts._fields == ("utt_id", "speaker", "sub", "dele", "ins", "ref_len")
