"""GLM filtering with csrfilt's semantics against the installed ``sctk csrfilt``, on NIST's English GLMs."""

from __future__ import annotations

import random
import re
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_sclite_case import needs_sctk

from lightscore.core.batch import feed
from lightscore.metrics import WER
from lightscore.offline.sclite_inputs import sclite_scps
from lightscore.text.hubscr.glm import GLMS, csrfilt, csrfilt_lines, glm_path, read_glm, rewrite
from lightscore.text.hubscr.glm_cursor import _NOTHING, _Rules
from lightscore.text.hubscr.pipeline import hubscr, hubscr_rows
from lightscore.text.hubscr.reference import rfilter1
from lightscore.text.hubscr.stm_ctm import IGNORE

RULE_WORDS = sorted({w for name in GLMS for r in read_glm(glm_path(name)).rules for w in r.source.split() if w})
OTHER = [
    "the",
    "uh-huh",
    "e-mail",
    "wor-",
    "-ord",
    "(uh)",
    "(he's)",
    "going",
    "to",
    "Mr.",
    "a",
    "I'M",
    "o'clock",
    "re--enter",
    "--",
    "-x-",
    "a-b-c",
]


def words() -> st.SearchStrategy[str]:
    sample = random.Random(0).sample(RULE_WORDS, 400)
    word = st.sampled_from(sample) | st.sampled_from(OTHER)
    return st.tuples(word, st.booleans()).map(lambda pair: pair[0].lower() if pair[1] else pair[0])


texts = st.lists(words(), min_size=0, max_size=8).map(" ".join)


def run_csrfilt(lines: list[str], options: list[str], folder: Path) -> list[str]:
    source = folder / "in.txt"
    source.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    with open(source, encoding="utf-8") as f:
        done = subprocess.run(["sctk", "csrfilt", *options], stdin=f, capture_output=True, text=True, check=True)
    return done.stdout.splitlines()


@needs_sctk
@pytest.mark.parametrize("name", GLMS)
@pytest.mark.parametrize(("input_type", "purpose"), [("trn", "ref"), ("stm", "ref"), ("trn", "hyp")])
@settings(max_examples=5, deadline=None)
@given(batch=st.lists(texts, min_size=1, max_size=40), dh=st.booleans())
def test_texts_equal_csrfilt(name, input_type, purpose, batch, dh, tmp_path_factory) -> None:
    glm = read_glm(glm_path(name))
    if input_type == "trn":
        lines = [f"{text} (s-u{k})" for k, text in enumerate(batch)]
    else:
        lines = [f"f{k} 1 spk 0.0 1.0 {text}" for k, text in enumerate(batch)]
    options = ["-i", input_type, "-t", purpose, *(["-dh"] if dh else []), str(glm_path(name))]
    out = run_csrfilt(lines, options, tmp_path_factory.mktemp("glm"))
    for text, line in zip(batch, out):
        want = line.rsplit("(", 1)[0] if input_type == "trn" else " ".join(line.split()[5:])
        assert csrfilt(text, glm, input_type, purpose, delete_hyphens=dh) == " ".join(want.split()), text


def ctm_alternatives(lines: list[str]) -> dict[str, list[list[str]]]:
    """Each file's words in csrfilt's ctm output: a list of alternatives (one alternative when no alternation)."""
    found: dict[str, list[list[str]]] = {}
    for line in lines:
        fields = line.split()
        alternatives = found.setdefault(fields[0], [[]])
        if fields[2] == "*":
            if fields[4] == "<ALT>":
                alternatives.append([])
            continue
        alternatives[-1].append(fields[4])
    return found


@needs_sctk
@pytest.mark.parametrize("name", GLMS)
@settings(max_examples=5, deadline=None)
@given(batch=st.lists(words(), min_size=1, max_size=60))
def test_ctm_words_equal_csrfilt(name, batch, tmp_path_factory) -> None:
    glm = read_glm(glm_path(name))
    lines = [f"w{k:03d} 1 {k}.0 0.5 {word} 0.9" for k, word in enumerate(batch)]
    options = ["-i", "ctm", "-t", "hyp", "-dh", str(glm_path(name))]
    out = ctm_alternatives(run_csrfilt(lines, options, tmp_path_factory.mktemp("ctm")))
    for k, word in enumerate(batch):
        text = csrfilt(word, glm, "ctm", "hyp", delete_hyphens=True)
        # csrfilt's ctm step: spaces around braces, "/" splits alternatives, braces dropped.
        mine = [part.replace("{", " ").replace("}", " ").split() for part in text.split("/")]
        assert [alt for alt in mine if alt] == out.get(f"w{k:03d}", [[]]), word


EDGES = ["(", ")", "( um", "x-", "-y", "a-b", "", "   ", "he's-", "(gonna", "uh huh)"]


@pytest.mark.parametrize("name", GLMS)
@pytest.mark.parametrize("input_type", ["stm", "trn", "ctm"])
@settings(max_examples=40, deadline=None)
@given(batch=st.lists(texts | st.sampled_from(EDGES), min_size=1, max_size=30), dh=st.booleans())
def test_lines_filtered_together_equal_one_by_one(name: str, input_type: str, batch: list[str], dh: bool) -> None:
    """`csrfilt_lines` (one `rewrite` over every line) equals `csrfilt` on each line alone, also at lines' edges."""
    glm = read_glm(glm_path(name))
    alone = [csrfilt(text, glm, input_type, "ref", delete_hyphens=dh) for text in batch]
    assert csrfilt_lines(batch, glm, input_type, "ref", delete_hyphens=dh) == alone


def test_a_rule_that_eats_a_lines_end_keeps_it_apart(tmp_path: Path) -> None:
    """A target ending in a hyphen where the line ended: -dh leaves it, as on the line alone."""
    path = tmp_path / "x.glm"
    path.write_text(";; comments\n[AB  ] => [X-]\n", encoding="utf-8")
    glm = read_glm(path)
    alone = [csrfilt(text, glm, "stm", delete_hyphens=True) for text in ("ab", "cd")]
    assert csrfilt_lines(["ab", "cd"], glm, "stm", delete_hyphens=True) == alone == ["X-", "CD"]


def test_lines_of_a_glm_without_copy_no_hit_are_filtered_one_by_one(tmp_path: Path) -> None:
    path = tmp_path / "x.glm"
    path.write_text("* copy_no_hit = 'F'\nab => X\n", encoding="utf-8")
    glm = read_glm(path)
    assert csrfilt_lines(["ab cd", "q ab"], glm) == [csrfilt("ab cd", glm), csrfilt("q ab", glm)] == ["X", "X"]


def test_rules_and_header(tmp_path: Path) -> None:
    path = tmp_path / "x.glm"
    path.write_text(
        "# my rules\n* copy_no_hit = 'F'\n* case_sensitive = 'T'\nab => X # note\nQ=>R\n[c d] => [e] / [z] __\n",
        encoding="utf-8",
    )
    glm = read_glm(path)
    assert (glm.copy_no_hit, glm.case_sensitive) == (False, True)
    # rfilter1 reads "Q=>R" too: its target starts after the first space past the arrow, so it is empty.
    assert [(r.source, r.target) for r in glm.rules] == [("ab", "X"), ("Q", ""), ("c d", "e")]
    assert rewrite("ab AB cab zc d", glm) == "XXe"


def test_unknown_glm_is_named() -> None:
    with pytest.raises(ValueError, match="GLM 'en1999' is neither a file nor one of en20030506, en20090415"):
        glm_path("en1999")


def parse_pra_scores(text: str) -> dict[str, tuple[int, int, int, int]]:
    found = re.findall(r"^id: \((\S+)\)\n(?:.*\n)*?Scores: \(#C #S #D #I\) (\d+ \d+ \d+ \d+)", text, flags=re.M)
    return {utt_id: tuple(map(int, scores.split())) for utt_id, scores in found}


def run_hubscr(stm: Path, ctm: Path, glm: Path, *options: str) -> dict[str, tuple[int, int, int, int]]:
    """``sctk hubscr -g glm -l english -h hub5`` (``options`` before the files): each segment's C, S, D, I."""
    command = ["sctk", "hubscr", "-g", str(glm), "-l", "english", "-h", "hub5", *options, "-r", stm.name, ctm.name]
    subprocess.run(command, cwd=stm.parent, check=True, capture_output=True)
    return parse_pra_scores((ctm.parent / f"{ctm.name}.filt.pra").read_text(encoding="latin-1"))


def conversation(seed: int, decimals: int = 2, vocabulary: list[str] | None = None) -> tuple[list[str], list[str]]:
    """A random stm/ctm pair: two files, one or two channels, three speakers, ignored regions, GLM words.

    ``decimals``: of the ctm times (past three, csrfilt's ``%.3f`` rounds the words it splits).
    ``vocabulary``: the words (default: words of NIST's GLMs, hyphens, a fragment, an optional word).
    """
    rng = random.Random(seed)
    if vocabulary is None:
        vocabulary = [*random.Random(1).sample(RULE_WORDS, 60), "uh-huh", "e-mail", "wor-", "(um)", "yes", "the"]
    stm, ctm = [";; generated"], []
    for file in ("fa", "fb"):
        for channel in ("A", "B")[: rng.randint(1, 2)]:
            time = 0.0
            for _ in range(rng.randint(1, 5)):
                begin, end = time + rng.choice([0.0, 0.3]), time + rng.uniform(1.0, 3.0)
                speaker = f"{file}{channel}{rng.randint(1, 2)}"
                if rng.random() < 0.15:
                    text = IGNORE
                else:
                    text = " ".join(rng.choice(vocabulary) for _ in range(rng.randint(0, 6)))
                stm.append(f"{file} {channel} {speaker} {begin:.2f} {end:.2f} {text}".rstrip())
                if text != IGNORE:
                    words = [w for w in text.split() if rng.random() < 0.7] + rng.sample(vocabulary, rng.randint(0, 2))
                else:
                    words = rng.sample(vocabulary, 2)
                step = (end - begin) / max(len(words), 1)
                for k, word in enumerate(words):
                    conf = f" {rng.random():.2f}" if rng.random() < 0.5 else ""
                    at, length = f"{begin + k * step:.{decimals}f}", f"{step * 0.8:.{decimals}f}"
                    ctm.append(f"{file} {channel} {at} {length} {word.strip('()')}{conf}")
                time = end + rng.uniform(-0.2, 0.5)
    return stm, ctm


def write_conversation(folder: Path, seed: int, decimals: int = 2) -> tuple[list[str], list[str]]:
    """`conversation` written as ``folder/ref.stm`` and ``folder/hyp.ctm`` (the folder made); its lines."""
    stm, ctm = conversation(seed, decimals)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "ref.stm").write_text("\n".join(stm) + "\n", encoding="utf-8")
    (folder / "hyp.ctm").write_text("\n".join(ctm) + "\n", encoding="utf-8")
    return stm, ctm


@needs_sctk
@pytest.mark.parametrize("name", GLMS)
@pytest.mark.parametrize(("seed", "decimals"), [(0, 2), (1, 2), (2, 2), (3, 2), (4, 5), (5, 6)])
def test_hubscr_equals_sctk_hubscr_per_segment(name: str, seed: int, decimals: int, tmp_path: Path) -> None:
    write_conversation(tmp_path, seed, decimals)
    expected = run_hubscr(tmp_path / "ref.stm", tmp_path / "hyp.ctm", glm_path(name))
    got = {
        c.utt_id: (c.ref_len - c.sub - c.dele, c.sub, c.dele, c.ins)
        for c in hubscr(tmp_path / "ref.stm", tmp_path / "hyp.ctm", name)
    }
    assert got == expected


@needs_sctk
def test_wer_on_hubscr_rows_equals_sctk_hubscr(tmp_path: Path) -> None:
    """The rows feed any error-rate road (SCP files, measure(), the callback) with hubscr's numbers."""
    write_conversation(tmp_path, 7)
    expected = run_hubscr(tmp_path / "ref.stm", tmp_path / "hyp.ctm", glm_path("en20090415"))
    rows = hubscr_rows(tmp_path / "ref.stm", tmp_path / "hyp.ctm", "en20090415")
    metric = WER(
        markup=True, optional_deletable=True, fragments=True, aligner="sclite", case="sclite", per_utterance=True
    )
    feed(metric, {"ref": [r.ref for r in rows], "hyp": [r.hyp for r in rows]}, [r.utt_id for r in rows])
    got = {r.utt_id: (r.ref_len - r.sub - r.dele, r.sub, r.dele, r.ins) for r in metric.utterance_records()}
    assert got == expected


@needs_sctk
def test_stm_ctm_through_scp_files_equal_sctk_hubscr(tmp_path: Path) -> None:
    """`sclite_scps` writes what the command line and measure() read: the numbers stay hubscr's, per speaker too."""
    stm, _ = write_conversation(tmp_path, 3)
    expected = run_hubscr(tmp_path / "ref.stm", tmp_path / "hyp.ctm", glm_path("en20030506"))
    inputs = sclite_scps(tmp_path / "ref.stm", tmp_path / "hyp.ctm", tmp_path / "scp", glm="en20030506")
    metric = WER(per_utterance=True, utt2spk=inputs.utt2spk, **inputs.options)
    result = metric({"ref": inputs.ref, "hyp": inputs.hyp}, "")
    got = {r.utt_id: (r.ref_len - r.sub - r.dele, r.sub, r.dele, r.ins) for r in metric.utterance_records()}
    assert got == expected
    assert result["WER_ref_len"] == sum(c + s + d for c, s, d, _ in expected.values())
    assert set(metric.speakers().values()) == {line.split()[2].lower() for line in stm[1:] if IGNORE not in line}


@needs_sctk
def test_command_line_scores_stm_ctm_as_sctk_hubscr(tmp_path: Path, capsys) -> None:
    """``lightscore score ref.stm hyp.ctm --glm en20030506``: hubscr's totals."""
    from lightscore.cli.parser import main

    write_conversation(tmp_path, 5)
    expected = run_hubscr(tmp_path / "ref.stm", tmp_path / "hyp.ctm", glm_path("en20030506"))
    capsys.readouterr()
    assert main(["score", str(tmp_path / "ref.stm"), str(tmp_path / "hyp.ctm"), "--glm", "en20030506"]) == 0
    out = capsys.readouterr().out
    words = sum(c + s + d for c, s, d, _ in expected.values())
    errors = sum(s + d + i for _, s, d, i in expected.values())
    assert f"[ {errors} / {words}," in out
    assert "markup=sclite optional_deletable=yes fragments=yes" in out
    assert main(["score", str(tmp_path / "ref.stm"), str(tmp_path / "hyp.ctm"), "--metric", "cer"]) == 1
    assert "trn and stm/ctm input is scored by wer" in capsys.readouterr().err


def test_command_line_counts_stm_ctm_as_its_scp_files_do(tmp_path: Path, capsys) -> None:
    """``lightscore score REF.stm HYP.ctm`` adds hubscr's counts to the metric without writing SCP files: it
    prints what the route through the files prints (taken here for ``--alignment``), interval and all."""
    from lightscore.cli.parser import main

    write_conversation(tmp_path, 6)
    command = ["score", str(tmp_path / "ref.stm"), str(tmp_path / "hyp.ctm"), "--glm", "en20090415", "--ci", "0.9"]
    capsys.readouterr()
    assert main(command) == 0
    direct = capsys.readouterr().out
    assert main([*command, "--alignment", str(tmp_path / "aligned")]) == 0
    through_files = capsys.readouterr().out
    assert through_files == direct + f"alignment: {tmp_path / 'aligned'}\n"
    assert "90% interval: [" in direct and "utterances: " in direct


def pieces() -> st.SearchStrategy[str]:
    """Rule words, their beginnings and ends, two glued together, odd spacing: where rules match inside words."""
    word = st.sampled_from(random.Random(2).sample(RULE_WORDS, 300) + OTHER)
    cut = st.tuples(word, st.integers(1, 4)).map(lambda p: p[0][: p[1]] if len(p[0]) > p[1] else p[0])
    tail = st.tuples(word, st.integers(1, 4)).map(lambda p: p[0][p[1] :] or p[0])
    glued = st.tuples(word, word).map("".join)
    return word | cut | tail | glued


spaced = st.lists(st.tuples(pieces(), st.sampled_from([" ", " ", " ", "  ", "\t"])), max_size=10).map(
    lambda parts: " " + "".join(w + gap for w, gap in parts)
)


@pytest.mark.parametrize("name", GLMS)
@pytest.mark.parametrize(("input_type", "purpose"), [("stm", "ref"), ("ctm", "hyp")])
@settings(max_examples=150, deadline=None)
@given(text=spaced)
def test_rewrite_tries_every_rule_that_can_match(name: str, input_type: str, purpose: str, text: str) -> None:
    """`rewrite` stops only where a rule may apply (per distinct word); the plain cursor stops everywhere."""
    glm = read_glm(glm_path(name))
    assert rewrite(text, glm, input_type, purpose) == rfilter1(text, glm, input_type, purpose)


@pytest.mark.parametrize("name", GLMS)
@pytest.mark.parametrize(("input_type", "purpose"), [("stm", "ref"), ("ctm", "hyp")])
@settings(max_examples=150, deadline=None)
@given(words=st.lists(pieces().map(str.upper), max_size=12))
def test_words_skipped_at_once_have_no_candidates(name: str, input_type: str, purpose: str, words: list[str]) -> None:
    """The words `_Rules._maybe` leaves out, which get no look of their own, are those no rule can match in."""
    rules = _Rules(read_glm(glm_path(name)), input_type, purpose)
    maybe = rules._maybe(words)
    assert {word for word in words if rules._find(word, True) is not _NOTHING} <= maybe


SHORT_RULES = (
    ";; sources of one or two characters, and ones whose first word is one\n"
    "A LOT => ALOT\nI => EYE\nOK => O K\nX Y Z => XYZ\nQ R => QR / [P ] __\n"
)


@settings(max_examples=150, deadline=None)
@given(
    text=st.lists(
        st.sampled_from(["A", "LOT", "I", "OK", "X", "Y", "Z", "AI", "LOTA", "P", "Q", "R", "QR"]), max_size=10
    )
)
def test_rewrite_finds_short_sources(text: list[str], tmp_path_factory) -> None:
    """A source of one or two characters, or one that starts with a one-letter word, is found where it may match."""
    path = tmp_path_factory.mktemp("glm") / "short.glm"
    path.write_text(SHORT_RULES, encoding="utf-8")
    glm, padded = read_glm(path), f" {' '.join(text)} "
    assert rewrite(padded, glm, "stm", "ref") == rfilter1(padded, glm, "stm", "ref")
