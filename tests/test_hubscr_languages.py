"""``hubscr -l spanish | italian | arabic`` against the installed ``sctk hubscr``: per segment, the same counts.

Each language changes csrfilt's case switches (``-e``: Latin-1's accented letters
upper-cased too; ``-s``: nothing upper-cased) and sclite's (``-s``: case kept), so the
generated conversations mix accented words in both cases, words a small GLM rewrites
(one with an accented source), hesitations and fragments; the Spanish and Italian
files are Latin-1, as NIST's tools expect, the Arabic one UTF-8.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from test_glm import conversation, needs_sctk, run_hubscr

from lightscore.text.hubscr.languages import LANGUAGES, language
from lightscore.text.hubscr.pipeline import hubscr, hubscr_rows

GLM = """;;  File: test.glm
* name "test.glm"
* format = 'NIST1'
* max_nrules = '100'
* copy_no_hit = 'T'
* case_sensitive = 'F'

EH      =>  %HESITATION / [ ] __ [ ]
CANCIÓN =>  CANCION     / [ ] __ [ ]
AÑO     =>  ANYO        / [ ] __ [ ]
PA'     =>  PARA        / [ ] __ [ ]
"""

LATIN = [
    "canción",
    "CANCIÓN",
    "Canción",
    "año",
    "AÑO",
    "eh",
    "EH",
    "pa'",
    "sí",
    "SÍ",
    "niño",
    "Niño",
    "del",
    "el",
    "ÿa",
    "wor-",
    "(eh)",
    "mm-hmm",
    "Hola",
    "hola",
]
ARABIC = ["مرحبا", "كتاب", "السلام", "عليكم", "Hello", "hello", "HELLO", "eh", "wor-", "(eh)", "ok"]


def recased(ctm: list[str], seed: int, encoding: str) -> list[str]:
    """The ctm with half its words in another case or without their accents, so that sides differ as they do."""
    rng = random.Random(seed)
    changes = [str.upper, str.lower, str.capitalize, lambda w: w.translate(PLAIN)]
    lines = []
    for line in ctm:
        fields = line.split()
        if rng.random() < 0.5:
            changed = rng.choice(changes)(fields[4])
            fields[4] = changed if changed.encode(encoding, "ignore").decode(encoding) == changed else fields[4]
        lines.append(" ".join(fields))
    return lines


PLAIN = str.maketrans("áéíóúñÁÉÍÓÚÑ", "aeiounAEIOUN")


def score_both(tmp_path: Path, name: str, seed: int) -> tuple[dict, dict]:
    encoding = LANGUAGES[name].encoding
    stm, ctm = conversation(seed, vocabulary=ARABIC if name == "arabic" else LATIN)
    ctm = recased(ctm, seed, encoding)
    (tmp_path / "ref.stm").write_text("\n".join(stm) + "\n", encoding=encoding)
    (tmp_path / "hyp.ctm").write_text("\n".join(ctm) + "\n", encoding=encoding)
    (tmp_path / "test.glm").write_text(GLM, encoding=encoding)
    # -V: hubscr's validators know no Spanish words; -d: no LDC lexicon for the Arabic definite article.
    options = ["-V", "-l", name, *(["-d"] if name == "arabic" else [])]
    expected = run_hubscr(tmp_path / "ref.stm", tmp_path / "hyp.ctm", tmp_path / "test.glm", *options)
    found = hubscr(tmp_path / "ref.stm", tmp_path / "hyp.ctm", tmp_path / "test.glm", language=name)
    return {c.utt_id: (c.ref_len - c.sub - c.dele, c.sub, c.dele, c.ins) for c in found}, expected


@needs_sctk
@pytest.mark.parametrize("name", ["spanish", "italian", "arabic"])
@pytest.mark.parametrize("seed", range(6))
def test_hubscr_languages_equal_sctk_hubscr_per_segment(name: str, seed: int, tmp_path: Path) -> None:
    got, expected = score_both(tmp_path, name, seed)
    assert got == expected


def test_each_language_changes_the_texts(tmp_path: Path) -> None:
    """The switches matter: Spanish upper-cases the accented source the GLM rewrites, Italian does not, Arabic
    keeps the case of every word."""
    rows = {}
    for name, switches in LANGUAGES.items():
        folder = tmp_path / name
        folder.mkdir()
        (folder / "test.glm").write_text(GLM, encoding=switches.encoding)
        (folder / "ref.stm").write_text("f A s 0 5 canción Hola\n", encoding=switches.encoding)
        (folder / "hyp.ctm").write_text("f A 0 1 CANCION 1\nf A 1 1 hola 1\n", encoding=switches.encoding)
        rows[name] = hubscr_rows(folder / "ref.stm", folder / "hyp.ctm", folder / "test.glm", language=name)[0]
    assert rows["english"].ref == "canción hola"  # csrfilt upper-cases A-Z only: CANCIóN, no rule matches
    assert rows["spanish"].ref == "cancion hola"  # -e: CANCIÓN, which the GLM rewrites
    assert rows["italian"].ref == "canción hola"  # -s: nothing upper-cased
    assert (rows["arabic"].ref, rows["arabic"].hyp) == ("canción Hola", "CANCION hola")  # and sclite's -s


def test_languages_not_scored_say_so() -> None:
    with pytest.raises(ValueError, match="mandarin is not scored here: sclite's -c NOASCII DH"):
        language("mandarin")
    with pytest.raises(ValueError, match="'klingon': not one of english, spanish, italian, arabic, german, mandarin"):
        hubscr("ref.stm", "hyp.ctm", language="klingon")


def write_language(folder: Path, name: str, seed: int) -> dict:
    """A conversation in ``name``'s encoding with the test GLM; sctk hubscr's per-segment counts."""
    folder.mkdir(parents=True, exist_ok=True)
    return score_both(folder, name, seed)[1]


@needs_sctk
def test_command_line_scores_a_language_as_sctk_hubscr(tmp_path: Path, capsys) -> None:
    """``lightscore score ref.stm hyp.ctm --glm G --language arabic``: hubscr's totals, the same through SCP files,
    and the settings say how (Arabic's sclite keeps the case)."""
    from lightscore.cli.parser import main

    expected = write_language(tmp_path, "arabic", 2)
    command = ["score", str(tmp_path / "ref.stm"), str(tmp_path / "hyp.ctm"), "--glm", str(tmp_path / "test.glm")]
    capsys.readouterr()
    assert main([*command, "--language", "arabic"]) == 0
    direct = capsys.readouterr().out
    words = sum(c + s + d for c, s, d, _ in expected.values())
    errors = sum(s + d + i for _, s, d, i in expected.values())
    assert f"[ {errors} / {words}," in direct
    assert "case=sensitive" in direct and "stm/ctm as hubscr -l arabic" in direct
    assert main([*command, "--language", "arabic", "--alignment", str(tmp_path / "al")]) == 0
    assert capsys.readouterr().out == direct + f"alignment: {tmp_path / 'al'}\n"
    for case in ("sclite", "sensitive"):  # a --case of the user's: both routes fold as the files' route does
        assert main([*command, "--language", "arabic", "--case", case]) == 0
        folded = capsys.readouterr().out
        assert main([*command, "--language", "arabic", "--case", case, "--alignment", str(tmp_path / case)]) == 0
        assert capsys.readouterr().out == folded + f"alignment: {tmp_path / case}\n"
    assert folded == direct  # --case sensitive is Arabic's own
    (tmp_path / "ref.trn").write_text("a (s-1)\n")
    (tmp_path / "hyp.trn").write_text("a (s-1)\n")
    assert main(["score", str(tmp_path / "ref.trn"), str(tmp_path / "hyp.trn"), "--language", "spanish"]) == 1
    assert "--language is hubscr's, for an stm reference" in capsys.readouterr().err


@needs_sctk
def test_a_language_bound_in_measure_equals_sctk_hubscr(tmp_path: Path) -> None:
    from lightscore import measure

    expected = {test: write_language(tmp_path / test, "spanish", seed) for test, seed in (("dev", 3), ("eval", 4))}
    entry = {"metric": {"_target_": "lightscore.metrics.WER"}, "inputs": {"ref": "ref.stm", "hyp": "hyp.ctm"}}
    glm = str(tmp_path / "dev" / "test.glm")
    results = measure(
        {"inference_dir": str(tmp_path), "metrics": [{**entry, "glm": glm, "language": "spanish", "name": "es"}]}
    )
    for test, counts in expected.items():
        result = results["es"][test]
        assert result["WER_ref_len"] == sum(c + s + d for c, s, d, _ in counts.values())
        assert result["WER_sub"] + result["WER_del"] + result["WER_ins"] == sum(
            s + d + i for _, s, d, i in counts.values()
        )


def test_a_language_is_checked_where_it_is_bound(tmp_path: Path) -> None:
    from lightscore.offline.sclite_bindings import sclite_binding

    stm = {"ref": "ref.stm", "hyp": "hyp.ctm"}
    with pytest.raises(ValueError, match="metrics\\[0\\]: language: hubscr -l german is not scored here"):
        sclite_binding({"metric": {}, "language": "german"}, stm, "metrics[0]")
    with pytest.raises(ValueError, match="language \\(hubscr's -l\\) is for stm and ctm inputs"):
        sclite_binding({"metric": {}, "language": "spanish"}, {"ref": "ref", "hyp": "hyp"}, "metrics[0]")
    assert sclite_binding({"metric": {}, "language": "italian"}, stm, "m").language == "italian"
