"""lightscore.analysis.breakdown: speakers, per-speaker tables, top errors, worst utterances and TSV files.

Per-speaker tables are checked against sclite's own (``per_speaker_counts`` in the
reference folder's expected.json) and top errors against its ``.dtl`` report, from
sclite's alignments (`read_pra` of test_significance.py), and on small cases counted by hand.
"""

from __future__ import annotations

import re

import pytest
from test_significance import EXPECTED, REFERENCE, alignments

from lightscore.analysis.breakdown import (
    SpeakerRow,
    UttCounts,
    read_utt2spk,
    speaker_of,
    speaker_table,
    top_errors,
    utt_counts,
    worst_utterances,
    write_tsv,
)
from lightscore.scp import ScpError

HAND = {  # utt_id -> alignment, counted by hand below
    "rec1": [("the", "the", "C"), ("cat", "bat", "S"), ("sat", None, "D"), (None, "oh", "I")],
    "rec2": [("a", "a", "C"), ("cat", "bat", "S"), ("ran", "ran", "C")],
    "rec3": [("sat", None, "D"), ("down", "town", "S"), (None, "oh", "I"), (None, "um", "I")],
    "rec4": [("yes", "yes", "C")],
}
UTT2SPK = {"rec1": "alice", "rec2": "bob", "rec3": "alice", "rec4": "bob"}


def test_speaker_of_prefix_and_utt2spk():
    assert speaker_of("spk10-utt0040") == "spk10"
    assert speaker_of("spk1-a-b") == "spk1"
    assert speaker_of("nodash") == "nodash"
    assert speaker_of("rec3", UTT2SPK) == "alice"
    with pytest.raises(KeyError, match="'rec9' is not in utt2spk"):
        speaker_of("rec9", UTT2SPK)


def test_read_utt2spk(tmp_path):
    path = tmp_path / "utt2spk"
    path.write_bytes(b"rec1 alice\r\nrec2 bob\n\nrec3 alice\n")
    assert read_utt2spk(path) == {"rec1": "alice", "rec2": "bob", "rec3": "alice"}
    path.write_text("rec1 alice\nrec2\n")
    with pytest.raises(ScpError, match=r"utt2spk:2: expected 'utt_id speaker_id', got 1 fields"):
        read_utt2spk(path)
    path.write_text("rec1 alice smith\n")
    with pytest.raises(ScpError, match=r"utt2spk:1: .* got 3 fields"):
        read_utt2spk(path)
    path.write_text("rec1 alice\nrec2 bob\nrec1 carol\n")
    with pytest.raises(ScpError, match=r"utt2spk:3: utterance 'rec1' listed again \(first on line 1\)"):
        read_utt2spk(path)
    path.write_bytes(b"rec1 al\xffce\n")
    with pytest.raises(ScpError, match=r"utt2spk:1: line is not UTF-8"):
        read_utt2spk(path)


def test_speaker_table_by_hand_with_utt2spk():
    records = [utt_counts(u, pairs, UTT2SPK) for u, pairs in HAND.items()]
    assert records[0] == UttCounts("rec1", "alice", sub=1, dele=1, ins=1, ref_len=3)
    assert speaker_table(records) == [
        # alice: rec1 + rec3, 5 reference words, S 2, D 2, I 3 -> 7 / 5
        SpeakerRow("alice", 2, 5, 2, 2, 3, 140.0),
        # bob: rec2 + rec4, 4 words, 1 substitution
        SpeakerRow("bob", 2, 4, 1, 0, 0, 25.0),
    ]


def test_speaker_table_by_hand_with_id_prefix_and_ties():
    records = [
        UttCounts("s2-u1", speaker_of("s2-u1"), 1, 0, 0, 10),
        UttCounts("s1-u1", speaker_of("s1-u1"), 0, 1, 0, 10),
        UttCounts("s3-u1", speaker_of("s3-u1"), 0, 0, 0, 0),  # empty reference, no error: 0 %
        UttCounts("s4-u1", speaker_of("s4-u1"), 0, 0, 2, 0),  # empty reference, insertions: inf
    ]
    assert [(row.speaker, row.rate) for row in speaker_table(records)] == [
        ("s4", float("inf")),
        ("s1", 10.0),  # ties by speaker id
        ("s2", 10.0),
        ("s3", 0.0),
    ]


@pytest.mark.parametrize("run", ["word", "char_s"])
@pytest.mark.parametrize("system", ["a", "b"])
def test_speaker_table_reproduces_sclite(run, system):
    records = [utt_counts(u, pairs) for u, pairs in alignments(run, system).items()]
    expected = EXPECTED["sclite"][run]["systems"][system]["per_speaker_counts"]
    table = speaker_table(records)
    assert {row.speaker: (row.utterances, row.words, row.sub, row.dele, row.ins) for row in table} == {
        spk: (c["sentences"], c["ref_tokens"], c["substitutions"], c["deletions"], c["insertions"])
        for spk, c in expected.items()
    }
    rates = [row.rate for row in table]
    assert rates == sorted(rates, reverse=True)
    assert table[0].rate == pytest.approx(max(100 * c["errors"] / c["ref_tokens"] for c in expected.values()))


def test_top_errors_by_hand():
    top = top_errors(HAND, n=None)
    assert top["substitutions"] == [("cat", "bat", 2), ("down", "town", 1)]
    assert top["deletions"] == [("sat", 2)]
    assert top["insertions"] == [("oh", 2), ("um", 1)]
    assert top_errors(list(HAND.values()), n=1) == {
        "substitutions": [("cat", "bat", 2)],
        "deletions": [("sat", 2)],
        "insertions": [("oh", 2)],
    }


def dtl_section(text: str, title: str, n: int) -> list[tuple]:
    """The first ``n`` entries of a ``.dtl`` section: ``(ref, hyp, count)`` or ``(word, count)``."""
    body = text[text.index(title) :]
    entries = []
    for match in re.finditer(r"^\s+\d+:\s+(\d+)\s+->\s+(.+?)\s*$", body, re.M):
        words = match.group(2).split(" ==> ")
        entries.append((*words, int(match.group(1))))
        if len(entries) == n:
            return entries
    raise AssertionError(f"fewer than {n} entries under {title}")


@pytest.mark.parametrize("system", ["a", "b"])
def test_top_errors_reproduce_sclite_dtl(system):
    dtl = (REFERENCE / "out" / f"word_{system}.dtl").read_text()
    top = top_errors(alignments("word", system), n=25)
    assert top["substitutions"] == dtl_section(dtl, "CONFUSION PAIRS", 25)
    assert top["insertions"] == dtl_section(dtl, "INSERTIONS", 25)
    assert top["deletions"] == dtl_section(dtl, "DELETIONS", 25)


def test_worst_utterances():
    records = [
        UttCounts("u3", "s", 2, 0, 0, 10),
        UttCounts("u1", "s", 1, 1, 0, 4),  # 2 errors, rate 50: before u3 (rate 20)
        UttCounts("u2", "s", 0, 0, 2, 4),  # same errors and rate as u1: after it by id
        UttCounts("u0", "s", 0, 0, 0, 4),
    ]
    assert [r.utt_id for r in worst_utterances(records, 3)] == ["u1", "u2", "u3"]
    word = [utt_counts(u, pairs) for u, pairs in alignments("word", "a").items()]
    worst = worst_utterances(word, 1)[0]
    assert worst.errors == max(r.errors for r in word)


def test_write_tsv(tmp_path):
    path = tmp_path / "out" / "speakers.tsv"
    rows = [SpeakerRow("alice", 2, 5, 2, 2, 3, 140.0), SpeakerRow("bob", 2, 4, 1, 0, 0, 25.0)]
    assert write_tsv(path, SpeakerRow._fields, rows) == path
    assert path.read_text() == (
        "speaker\tutterances\twords\tsub\tdele\tins\trate\nalice\t2\t5\t2\t2\t3\t140.0\nbob\t2\t4\t1\t0\t0\t25.0\n"
    )
    with pytest.raises(ValueError, match=r"row 2 holds text that is not valid Unicode"):
        write_tsv(path, ["utt", "text"], [("u1", "fine"), ("u2", "bad\udc80cell")])
    with pytest.raises(ValueError, match=r"row 1 has 1 cells, the header 2"):
        write_tsv(path, ["utt", "text"], [("u1",)])
    assert path.read_text().startswith("speaker\t")  # the failed writes left the old file
    assert [p.name for p in path.parent.iterdir()] == ["speakers.tsv"]
