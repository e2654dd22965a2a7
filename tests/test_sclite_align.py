"""sclite's alignment: counts and alignments against sclite's reports and the installed ``sctk sclite`` binary."""

from __future__ import annotations

import csv
import json
import random
import re
import shutil
import subprocess
import sys
import tracemalloc
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lightscore.text.sclite.align import _exact_counts, sclite_align, sclite_counts, sum_sclite_edits
from lightscore.text.sclite.traceback import BLOCK_CELLS, batch_backtrace, bounded_backtrace, token_ids

REFERENCE = Path(__file__).parent / "data" / "sclite_reference"
RUNS = [(run, system) for run in ("word", "word_s", "char", "char_s") for system in "ab"]


def read_scp(path: Path) -> dict[str, str]:
    texts = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        utt_id, _, text = line.partition(" ")
        texts[utt_id] = text
    return texts


def tokens(text: str, run: str) -> list[str] | str:
    """A text as the reference run tokenized it: words or characters, lower-cased unless ``_s``."""
    if not run.endswith("_s"):
        text = text.lower()
    return " ".join(text.split()) if run.startswith("char") else text.split()


def run_pairs(run: str, system: str) -> dict[str, tuple]:
    refs, hyps = read_scp(REFERENCE / "ref.scp"), read_scp(REFERENCE / f"hyp_{system}.scp")
    return {utt_id: (tokens(refs[utt_id], run), tokens(hyps[utt_id], run)) for utt_id in refs}


def expected_counts(run: str, system: str) -> dict[str, tuple[int, int, int, int]]:
    with open(REFERENCE / "per_utt.tsv", encoding="utf-8") as f:
        rows = [row for row in csv.DictReader(f, delimiter="\t") if (row["run"], row["system"]) == (run, system)]
    return {row["utt_id"]: tuple(int(row[k]) for k in "CSDI") for row in rows}


def marks(pairs: list) -> tuple[int, int, int, int]:
    counts = Counter(mark for _, _, mark in pairs)
    return counts["C"], counts["S"], counts["D"], counts["I"]


def parse_pra(text: str, fold: bool) -> dict[str, list]:
    """Every utterance's alignment in a ``.pra`` report as ``(ref, hyp, mark)``; ``***`` is a gap."""

    def token(cell: str) -> str | None:
        if set(cell) == {"*"}:
            return None
        cell = cell.lower() if fold else cell  # sclite upper-cases errors in case-folded reports
        return " " if cell.lower() == "<space>" else cell

    alignments: dict[str, list] = {}
    for block in re.split(r"\n(?=id: )", text):
        found = re.match(r"id: \((\S+)\)", block)
        if not found:
            continue
        cells: dict[str, list[str]] = {"REF": [], "HYP": []}
        for side, line in re.findall(r"^(?:>> )?(REF|HYP): (.*)$", block, flags=re.M):  # ">> " wraps long lines
            cells[side] += line.split()
        ref_cells, hyp_cells = cells["REF"], cells["HYP"]
        assert len(ref_cells) == len(hyp_cells), found[1]
        pairs = []
        for ref, hyp in zip(map(token, ref_cells), map(token, hyp_cells)):
            mark = "I" if ref is None else "D" if hyp is None else "C" if ref == hyp else "S"
            pairs.append((ref, hyp, mark))
        alignments[found[1]] = pairs
    return alignments


@pytest.mark.parametrize("run, system", RUNS)
def test_every_utterance_counts_and_totals_equal_sclite(run: str, system: str) -> None:
    pairs, expected = run_pairs(run, system), expected_counts(run, system)
    assert sorted(pairs) == sorted(expected)
    for utt_id, (ref, hyp) in pairs.items():
        c, s, d, i = expected[utt_id]
        assert sclite_counts(ref, hyp) == (s, d, i), utt_id
    refs, hyps = [pairs[u][0] for u in pairs], [pairs[u][1] for u in pairs]
    assert _exact_counts(refs, hyps) == [expected[u][1:] for u in pairs]
    totals = json.loads((REFERENCE / "expected.json").read_text())["sclite"][run]["systems"][system]["totals"]
    texts = read_scp(REFERENCE / "ref.scp"), read_scp(REFERENCE / f"hyp_{system}.scp")
    summed = sum_sclite_edits(texts[0].values(), texts[1].values(), lambda text: tokens(text, run))
    wanted = ("substitutions", "deletions", "insertions", "ref_tokens", "sentence_errors")
    assert summed == tuple(totals[key] for key in wanted)


@pytest.mark.parametrize("run, system", RUNS)
def test_every_alignment_equals_the_pra_report(run: str, system: str) -> None:
    fold = not run.endswith("_s")
    reports = parse_pra((REFERENCE / "out" / f"{run}_{system}.pra").read_text(encoding="utf-8"), fold)
    pairs = run_pairs(run, system)
    assert sorted(reports) == sorted(pairs)
    for utt_id, (ref, hyp) in pairs.items():
        assert sclite_align(ref, hyp) == reports[utt_id], utt_id


def test_tie_deletes_the_first_copy_as_sclite_does() -> None:
    ref, hyp = run_pairs("word", "a")["spk8-utt0001"]
    assert sclite_align(ref, hyp) == [("ze", None, "D"), ("ze", "ze", "C"), ("ze", "va", "S"), ("va", "va", "C")]
    assert marks(sclite_align(*run_pairs("word", "b")["spk8-utt0001"])) == (3, 0, 1, 0)


def test_empty_sides() -> None:
    assert sclite_align([], []) == [] and sclite_counts([], []) == (0, 0, 0)
    assert sclite_align(["a", "b"], []) == [("a", None, "D"), ("b", None, "D")]
    assert sclite_counts("", "xy") == (0, 0, 2)
    assert sum_sclite_edits(["", "", "a b"], ["", "x", ""], str.split) == (0, 2, 1, 2, 2)


# Few distinct words make ties; upper-case twins exercise case folding.
WORDS = ["x", "y", "z", "X", "Y", "abc"]
word_lists = st.lists(st.sampled_from(WORDS), max_size=10)


@settings(max_examples=300, deadline=None)
@given(word_lists, word_lists)
def test_fast_counts_equal_the_exact_backtrace(ref: list[str], hyp: list[str]) -> None:
    exact = marks(sclite_align(ref, hyp))[1:]
    assert sclite_counts(ref, hyp) == exact
    assert sclite_counts("".join(ref), "".join(hyp)) == marks(sclite_align("".join(ref), "".join(hyp)))[1:]
    assert _exact_counts([ref], [hyp]) == [exact]


def random_pair(rng: random.Random) -> tuple[list[str], list[str]]:
    """A reference and a hypothesis from a 2-3 word alphabet, sometimes long, empty or recased."""
    alphabet = rng.sample(["ba", "ku", "li", "mo", "ze"], rng.choice([2, 3]))
    length = rng.choice([0, 1, 3, 6, 12, 300]) if rng.random() < 0.1 else rng.randint(0, 12)
    ref = [rng.choice(alphabet) for _ in range(length)]
    hyp = []
    for word in ref:
        roll = rng.random()
        if roll < 0.5:
            hyp.append(word if roll < 0.35 else rng.choice(alphabet))
        if rng.random() < 0.2:
            hyp.append(rng.choice(alphabet))
    if rng.random() < 0.1:
        hyp = [] if rng.random() < 0.5 else rng.choices(alphabet, k=rng.randint(1, 5))
    if rng.random() < 0.2:
        hyp = [word.upper() if rng.random() < 0.4 else word for word in hyp]
    return ref, hyp


def sclite_pra(pairs: list[tuple[list[str], list[str]]], case_sensitive: bool, folder: Path) -> tuple[list, str]:
    """Score ``pairs`` with one ``sctk sclite`` run: the utterance ids and the ``.pra`` report."""
    ids = [f"spk{k % 3}-utt{k:05d}" for k in range(len(pairs))]
    for name, side in (("ref", 0), ("hyp", 1)):
        lines = [f"{' '.join(pair[side])} ({utt_id})".lstrip() for utt_id, pair in zip(ids, pairs)]
        (folder / f"{name}.trn").write_text("\n".join(lines) + "\n", encoding="utf-8")
    command = ["sctk", "sclite", "-r", str(folder / "ref.trn"), "trn", "-h", str(folder / "hyp.trn"), "trn"]
    command += ["-i", "rm", "-o", "pralign", "-O", str(folder), "-n", "run"] + (["-s"] if case_sensitive else [])
    subprocess.run(command, check=True, capture_output=True)
    return ids, (folder / "run.pra").read_text(encoding="utf-8")


def sclite_pra_counts(pairs: list[tuple[list[str], list[str]]], case_sensitive: bool, folder: Path) -> list[tuple]:
    """Score ``pairs`` with one ``sctk sclite`` run; every utterance's (C, S, D, I) from its ``.pra`` report."""
    ids, report = sclite_pra(pairs, case_sensitive, folder)
    scores = dict(re.findall(r"^id: \((\S+)\)\nScores: \(#C #S #D #I\) (\d+ \d+ \d+ \d+)", report, flags=re.M))
    return [tuple(map(int, scores[utt_id].split())) for utt_id in ids]


@pytest.mark.skipif(shutil.which("sctk") is None, reason="the sctk binary (Debian package sctk) is not on PATH")
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), case_sensitive=st.booleans())
def test_counts_equal_the_sclite_binary(seed: int, case_sensitive: bool, tmp_path_factory) -> None:
    rng = random.Random(seed)
    pairs = [random_pair(rng) for _ in range(150)]
    expected = sclite_pra_counts(pairs, case_sensitive, tmp_path_factory.mktemp("sclite"))
    for (ref, hyp), counts in zip(pairs, expected):
        if not case_sensitive:
            ref, hyp = [w.lower() for w in ref], [w.lower() for w in hyp]
        assert marks(sclite_align(ref, hyp)) == counts, (ref, hyp)
        assert sclite_counts(ref, hyp) == counts[1:], (ref, hyp)


# -- bounded memory: the checkpointed backtrace equals the whole-table one and sctk sclite on long utterances --

needs_sctk = pytest.mark.skipif(shutil.which("sctk") is None, reason="the sctk binary (Debian package sctk) is missing")


def whole_table_moves(ref, hyp) -> list[int]:
    """The moves of the whole-table programme (`batch_backtrace` over one pair), last move first."""
    path = batch_backtrace(*token_ids([ref], [hyp]), [len(ref)], [len(hyp)])[:, 0].tolist()
    return [move for move in path if move]


def alignment_of(ref, hyp, moves: list[int]) -> list[tuple]:
    """The ``(ref, hyp, mark)`` triples that ``moves`` (last first; 1 C, 2 S, 3 D, 4 I) spell."""
    ref_tokens, hyp_tokens, pairs = iter(ref), iter(hyp), []
    for move in reversed(moves):
        r = next(ref_tokens) if move != 4 else None
        h = next(hyp_tokens) if move != 3 else None
        pairs.append((r, h, " CSDI"[move]))
    return pairs


def long_pair(words: int, seed: int) -> tuple[list[str], list[str]]:
    """A reference of ``words`` words from a 30-word vocabulary (ties abound), a hypothesis with ~14% errors."""
    rng = random.Random(seed)
    vocabulary = [f"w{k}" for k in range(30)]
    ref = rng.choices(vocabulary, weights=[1 / (k + 1) for k in range(30)], k=words)
    hyp = []
    for word in ref:
        roll = rng.random()
        if roll < 0.08:
            hyp.append(rng.choice(vocabulary))
        elif roll >= 0.11:
            hyp.append(word)
        if rng.random() < 0.03:
            hyp.append(rng.choice(vocabulary))
    return ref, hyp


@settings(max_examples=200, deadline=None)
@given(word_lists, word_lists, st.integers(1, 4))
def test_bounded_backtrace_equals_the_whole_table(ref: list[str], hyp: list[str], rows: int) -> None:
    for r, h in ((ref, hyp), ("".join(ref), "".join(hyp))):
        expected = whole_table_moves(r, h)
        assert list(bounded_backtrace(r, h, block_rows=rows)) == expected
        assert list(bounded_backtrace(r, h)) == expected
        assert sclite_align(r, h) == alignment_of(r, h, expected)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), words=st.integers(0, 300), rows=st.integers(1, 50))
def test_bounded_backtrace_equals_the_whole_table_on_longer_pairs(seed: int, words: int, rows: int) -> None:
    ref, hyp = long_pair(words, seed)
    for r, h in ((ref, hyp), (" ".join(ref)[:400], " ".join(hyp)[:400])):
        assert list(bounded_backtrace(r, h, block_rows=rows)) == whole_table_moves(r, h)


def test_a_long_pair_is_counted_and_aligned_in_bounded_memory() -> None:
    ref, hyp = long_pair(4000, 3)
    assert (len(ref) + 1) * (len(hyp) + 1) > 3 * BLOCK_CELLS  # the whole table would be 64 MB of int32
    tracemalloc.start()  # numpy reports its buffers to tracemalloc
    try:
        counts = _exact_counts([ref, ref[:5]], [hyp, hyp[:4]])
        pairs = sclite_align(ref, hyp)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 24 * 2**20  # one 16 MB block of costs, a few checkpoint rows, the alignment
    assert counts == [marks(pairs)[1:], marks(sclite_align(ref[:5], hyp[:4]))[1:]]
    assert counts[0] == sclite_counts(ref, hyp)


@needs_sctk
@pytest.mark.parametrize("tokens", ["words", "characters"])
def test_long_utterance_equals_the_sclite_binary(tokens: str, tmp_path: Path) -> None:
    ref, hyp = long_pair(2000 if tokens == "words" else 400, 11)
    if tokens == "characters":  # sclite scores characters as tokens, <space> between words
        ref, hyp = " ".join(ref), " ".join(hyp)
    as_trn = [[token.replace(" ", "<space>") for token in side] for side in (ref, hyp)]
    ids, report = sclite_pra([(as_trn[0], as_trn[1])], False, tmp_path)
    expected = parse_pra(report, fold=True)[ids[0]]
    assert sclite_align(ref, hyp) == expected
    assert sclite_counts(ref, hyp) == _exact_counts([ref], [hyp])[0] == marks(expected)[1:]


CHILD = """
import json, resource, sys
from lightscore.metrics import WER
ref, hyp = json.load(open(sys.argv[1]))
metric = WER(aligner="sclite")
metric.update(ref=[ref], hyp=[hyp])
result = metric.compute()
pairs = metric.align(ref, hyp)
# VmHWM belongs to this process image; ru_maxrss would keep the pytest worker's peak across fork and exec.
hwm = [line for line in open("/proc/self/status") if line.startswith("VmHWM:")]
peak = int(hwm[0].split()[1]) * 1024 if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"counts": [result["WER_sub"], result["WER_del"], result["WER_ins"]], "pairs": pairs, "peak": peak}))
"""


def long_utterance(folder: Path, words: int) -> tuple[list[str], list[str], dict]:
    """A pair of about ``words`` words, and what `CHILD` reports on it from a fresh interpreter."""
    ref, hyp = long_pair(words, 5)
    (folder / "pair.json").write_text(json.dumps([" ".join(ref), " ".join(hyp)]))
    out = subprocess.run([sys.executable, "-c", CHILD, str(folder / "pair.json")], check=True, capture_output=True)
    return ref, hyp, json.loads(out.stdout)


@pytest.mark.slow
def test_a_20000_word_utterance_and_its_alignment_stay_under_1_gb(tmp_path: Path) -> None:
    ref, hyp, child = long_utterance(tmp_path, 20_000)
    assert child["peak"] < 2**30, f"peak RSS {child['peak'] / 2**20:.0f} MiB"
    assert child["counts"] == list(marks([tuple(pair) for pair in child["pairs"]])[1:])


@pytest.mark.slow
@needs_sctk
def test_a_10000_word_utterance_equals_the_sclite_binary(tmp_path: Path) -> None:
    """sclite's time is quadratic: 12 s here on 10,000 words, 65 s on 20,000 (which the memory test above uses).

    10,000 words already take the checkpointed walk: the whole table would be 400 MB, far above ``BLOCK_CELLS``,
    so the walk recomputes some 25 blocks of 400 rows. The larger pair tests the same path for five times the time.
    """
    ref, hyp, child = long_utterance(tmp_path, 10_000)
    ids, report = sclite_pra([(ref, hyp)], False, tmp_path)
    expected = parse_pra(report, fold=True)[ids[0]]
    assert [tuple(pair) for pair in child["pairs"]] == expected
    assert tuple(child["counts"]) == marks(expected)[1:]
