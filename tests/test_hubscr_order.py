"""Which hypothesis words a segment gets, where sclite and hubscr decide it by the order and the precision of times.

Found by probing ``sctk hubscr`` with hostile conversations: hubscr sorts the ctm's lines by begin *before*
csrfilt splits a word (so its parts stay together), and sclite reads an stm time as a C float while a ctm
time stays a double (so a word whose midpoint is a segment's written end may fall either side of it).
"""

from __future__ import annotations

import random
import re
import subprocess
from pathlib import Path

import pytest
from test_glm import RULE_WORDS, run_hubscr
from test_sclite_case import needs_sctk

from lightscore.text.hubscr.glm import glm_path
from lightscore.text.hubscr.pipeline import hubscr
from lightscore.text.hubscr.stm_ctm import StmCtmError

Counts = dict[str, tuple[int, int, int, int]]


def scored(stm: Path, ctm: Path, glm: str | None) -> Counts:
    """lightscore's C, S, D, I per segment."""
    return {c.utt_id: (c.ref_len - c.sub - c.dele, c.sub, c.dele, c.ins) for c in hubscr(stm, ctm, glm)}


def write(folder: Path, stm: list[str], ctm: list[str]) -> tuple[Path, Path]:
    """``folder/ref.stm`` and ``folder/hyp.ctm`` with these lines."""
    (folder / "ref.stm").write_text("\n".join(stm) + "\n", encoding="utf-8")
    (folder / "hyp.ctm").write_text("\n".join(ctm) + "\n", encoding="utf-8")
    return folder / "ref.stm", folder / "hyp.ctm"


def padded(stm: list[str], ctm: list[str]) -> tuple[list[str], list[str]]:
    """With a conversation ``zz A`` of 20 words, a third of them wrong, with confidences: sclite's DET curve,
    which hubscr asks for, crashes on a handful of words."""
    rng = random.Random(0)
    ref = [rng.choice(["yes", "no", "the", "of", "and", "to", "in", "it"]) for _ in range(20)]
    hyp = [word if rng.random() < 0.66 else "x" for word in ref]
    return [*stm, f"zz A zz1 0.00 30.00 {' '.join(ref)}"], [
        *ctm,
        *(f"zz A {k + 0.5:.2f} 0.5 {word} {rng.random():.2f}" for k, word in enumerate(hyp)),
    ]


def sclite_first_segments(stm: Path, ctm: Path) -> dict[str, str]:
    """``sctk sclite -r stm -h ctm``'s hypothesis of each speaker's first segment."""
    command = ["sctk", "sclite", "-r", stm.name, "stm", "-h", ctm.name, "ctm", "-o", "pralign", "stdout"]
    out = subprocess.run(command, cwd=stm.parent, check=True, capture_output=True, text=True).stdout
    return {speaker: hyp for speaker, hyp in re.findall(r"id: \((s\d+)-000\)\n(?:.*\n)*?HYP:(.*)", out)}


@needs_sctk
def test_a_segment_ends_where_sclite_reads_its_end_as_a_float(tmp_path: Path) -> None:
    """Words whose midpoints lie a hair around a segment's end: 3.39 as a C float ends after a word at 3.39."""
    rng, stm, ctm = random.Random(0), [], []
    for k in range(300):
        end = round(rng.uniform(1, 500), rng.choice([2, 3]))
        duration = round(rng.choice([0.0, rng.uniform(0, 0.5)]), rng.choice([2, 3]))
        digits = rng.choice([2, 3, 4])
        begin = round(end - duration / 2 + rng.choice([0, 0, 10**-digits, -(10**-digits)]), digits)
        stm += [f"f{k:03d} A s{k:03d} 0.00 {end} a", f"f{k:03d} A s{k:03d} {end + 5:.2f} {end + 6:.2f} b"]
        ctm += [f"f{k:03d} A {begin} {duration} x", f"f{k:03d} A {end + 5.5:.2f} 0.1 b"]
    stm_path, ctm_path = write(tmp_path, stm, ctm)
    expected = sclite_first_segments(stm_path, ctm_path)
    got = {c.speaker: c.ref_len - c.dele + c.ins for c in hubscr(stm_path, ctm_path, None) if c.utt_id.endswith("-000")}
    assert {speaker: "x" in hyp.lower() for speaker, hyp in expected.items()} == {s: n == 1 for s, n in got.items()}
    assert 20 < sum("x" in hyp.lower() for hyp in expected.values()) < 280  # both sides of the end are tried


def okay_beside_a_word(conf: str, last: str) -> list[str]:
    """``okay`` (the GLM splits it into ``O. K.``) and a word beginning at the same time, written after it."""
    return [f"f A 9.69 0.39 okay{conf}", f"f A 9.690 0.39 TYLER'S{conf}", f"f A 10.66 0.39 the{conf}", last]


@needs_sctk
@pytest.mark.parametrize(
    "last",
    [
        "f A 11.2 0.1 up 0.5",  # every line with a confidence: the columns at once
        "f A 11.2 0.1 up",  # mixed lines: line by line
        "f A * * <ALT_BEGIN>\nf A 11.2 0.1 up\nf A * * <ALT>\nf A 11.2 0.1 down\nf A * * <ALT_END>",  # printed
    ],
    ids=["columns", "line-by-line", "printed"],
)
def test_a_split_word_keeps_its_place_as_hubscr_sorts_before_csrfilt(last: str, tmp_path: Path) -> None:
    """``O. K.`` stays before ``TYLER'S`` though ``K.`` begins later: hubscr sorted the lines, then split.

    An alternation in the input ctm falls apart, as in hubscr (its marks sort to the front, time ``*``).
    """
    stm = ["f A s1 9.50 11.64 okay tyler's the up"]
    stm_path, ctm_path = write(tmp_path, *padded(stm, okay_beside_a_word(" 0.9", last)))
    assert scored(stm_path, ctm_path, "en20030506") == run_hubscr(stm_path, ctm_path, glm_path("en20030506"))


def test_a_ctm_mistake_is_named_at_its_own_line_before_csrfilt(tmp_path: Path) -> None:
    """The printed route (an alternation in the input) filters the ctm first, ``gonna`` becoming two lines: the
    error still names the file's line."""
    ctm = ["f A 1.0 0.1 gonna", "f A * * <ALT_BEGIN>", "f A 1.2 0.1 b", "f A * * <ALT_END>", "f A x 0.1 c"]
    stm_path, ctm_path = write(tmp_path, ["f A s 0 5 a b c"], ctm)
    with pytest.raises(StmCtmError, match=r"hyp.ctm line 5: begin 'x' is not a number"):
        hubscr(stm_path, ctm_path, "en20030506")


# test_glm's conversation words: hubscr's validator refuses what the GLM makes of some others (D'AMATO'S, [)
PLAIN_RULE_WORDS = random.Random(1).sample(RULE_WORDS, 60)


def hostile(seed: int, extra: tuple[str, ...] = ()) -> tuple[list[str], list[str]]:
    """Conversations with equal begins, words on segment ends, tiny segments, unsorted and stray words."""
    rng = random.Random(seed)
    vocabulary = [*rng.sample(PLAIN_RULE_WORDS, 40), "uh-huh", "wor-", "(uh)", "yes", "okay", "THE", "i'm", *extra]
    stm, ctm = [], []
    for file in ("fa", "fb")[: rng.randint(1, 2)]:
        for channel in ("A", "B")[: rng.randint(1, 2)]:
            at, segments = rng.choice([0.0, 0.5]), []
            for _ in range(rng.randint(1, 6)):
                begin = max(round(at + rng.choice([0.0, 0.0, 0.3, -0.2]), 2), 0.0)
                end = round(begin + rng.choice([0.01, rng.uniform(0.5, 3.0)]), 2)
                text = " ".join(rng.choice(vocabulary) for _ in range(rng.randint(1, 7)))
                text = "IGNORE_TIME_SEGMENT_IN_SCORING" if rng.random() < 0.1 else text
                stm.append(f"{file} {channel} {file}{channel}{rng.randint(1, 2)} {begin:.2f} {end:.2f} {text}")
                segments.append((begin, end, text))
                at = end + rng.choice([0.0, 0.0, 0.2, rng.uniform(0, 1)])
            for begin, end, text in segments:
                words = [w.strip("()") for w in text.split() if rng.random() < 0.7 and "IGNORE" not in w]
                words += [w.strip("()") for w in rng.sample(vocabulary, rng.randint(0, 2))]
                step = (end - begin) / max(len(words), 1)
                for k, word in enumerate(words):
                    start = max(begin + k * step + rng.choice([0.0, 0.0, -step, step / 2]), 0.0)
                    conf = f" {rng.random():.3f}" if rng.random() < 0.5 else ""
                    ctm.append(f"{file} {channel} {start:.{rng.choice([2, 3])}f} {step * 0.8:.2f} {word}{conf}")
    if rng.random() < 0.3:
        rng.shuffle(ctm)
    return padded(stm, ctm)


@needs_sctk
@pytest.mark.parametrize("seed", range(24))
def test_hostile_conversations_equal_sctk_hubscr_per_segment(seed: int, tmp_path: Path) -> None:
    stm_path, ctm_path = write(tmp_path, *hostile(seed))
    assert scored(stm_path, ctm_path, "en20030506") == run_hubscr(stm_path, ctm_path, glm_path("en20030506"))


@needs_sctk
@pytest.mark.parametrize("seed", range(6))
def test_tokens_hubscrs_validator_refuses_are_scored_as_hubscr_minus_v(seed: int, tmp_path: Path) -> None:
    """``[laughter]``, ``o.k.``, ``x--y``: hubscr stops at its validator unless ``-V``; lightscore scores
    them, equal to ``hubscr -V``."""
    stm_path, ctm_path = write(tmp_path, *hostile(seed, ("[laughter]", "[noise]", "o.k.", "x--y", "a.", "(wor-)")))
    assert scored(stm_path, ctm_path, "en20030506") == run_hubscr(stm_path, ctm_path, glm_path("en20030506"), "-V")
