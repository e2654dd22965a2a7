"""sclite's case folding (A-Z only, and its ``-e utf-8`` localizations) against the installed ``sctk sclite``.

`run_sclite` is the one place these tests call the binary; the markup, CJK and GLM tests import it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lightscore.core.batch import feed
from lightscore.metrics import WER
from lightscore.text.sclite.case import CASE_PROFILES, LOCALIZATIONS, sclite_fold

needs_sctk = pytest.mark.skipif(
    shutil.which("sctk") is None, reason="the sctk binary (Debian package sctk) is not on PATH"
)


def run_sclite(
    pairs: Sequence[tuple[str, str]], folder: Path, options: Sequence[str] = (), ids: Sequence[str] | None = None
) -> dict[str, tuple[int, int, int, int]]:
    """Score ``(ref, hyp)`` trn texts with one ``sctk sclite -i rm`` run: ``{utt_id: (C, S, D, I)}`` from ``.pra``."""
    ids = list(ids) if ids is not None else [f"spk{k % 3}-utt{k:05d}" for k in range(len(pairs))]
    for name, side in (("ref", 0), ("hyp", 1)):
        lines = [f"{pair[side]} ({utt_id})".lstrip() for utt_id, pair in zip(ids, pairs)]
        (folder / f"{name}.trn").write_text("\n".join(lines) + "\n", encoding="utf-8")
    command = ["sctk", "sclite", "-r", str(folder / "ref.trn"), "trn", "-h", str(folder / "hyp.trn"), "trn"]
    command += ["-i", "rm", "-o", "pralign", "-O", str(folder), "-n", "run", *options]
    subprocess.run(command, check=True, capture_output=True)
    report = (folder / "run.pra").read_text(encoding="utf-8")
    scores = dict(re.findall(r"^id: \((\S+)\)\nScores: \(#C #S #D #I\) (\d+ \d+ \d+ \d+)", report, flags=re.M))
    return {utt_id: tuple(map(int, scores[utt_id].split())) for utt_id in ids}


def lightscore_counts(metric: WER, pairs: Sequence[tuple[str, str]]) -> list[tuple[int, int, int, int]]:
    """Every pair's (C, S, D, I) under ``metric`` (built with ``per_utterance=True``), in input order."""
    ids = [f"spk{k % 3}-utt{k:05d}" for k in range(len(pairs))]
    feed(metric, {"ref": [r for r, _ in pairs], "hyp": [h for _, h in pairs]}, ids)
    records = {r.utt_id: r for r in metric.utterance_records()}
    return [(r.ref_len - r.sub - r.dele, r.sub, r.dele, r.ins) for r in (records[utt_id] for utt_id in ids)]


# Upper/lower pairs sclite folds differently from str.lower: Cyrillic, Greek, Latin with diacritics,
# Vietnamese, Turkish dotted and dotless i.
WORDS = {
    "ukrainian": ["Я", "я", "Відповідаю", "відповідаю", "ЗА", "за", "Навчання", "навчання", "Її", "її"],
    "greek": ["Αθήνα", "αθήνα", "ΚΑΛΗΜΕΡΑ", "καλημερα", "Σ", "σ", "ς"],
    "latin": ["École", "école", "ÀB", "àb", "Straße", "STRASSE", "Ñandú", "ñandú", "Zoë", "ZOË", "Abc", "abc"],
    "vietnamese": ["Đi", "đi", "Ạ", "ạ", "Việt", "việt", "NAM", "nam", "Ư", "ư", "Ỹ", "ỹ"],
    "turkish": ["I", "i", "İ", "ı", "Irmak", "ırmak", "İstanbul", "istanbul", "ÇAY", "çay", "Ğ", "ğ", "Şu", "şu"],
    "kazakh": ["Әке", "әке", "Ұл", "ұл", "Іс", "іс"],
}
ALL_WORDS = sorted({word for words in WORDS.values() for word in words})

sentences = st.lists(st.sampled_from(ALL_WORDS), min_size=0, max_size=6).map(" ".join)
pair_lists = st.lists(st.tuples(sentences, sentences), min_size=1, max_size=40)


@needs_sctk
@pytest.mark.parametrize(
    ("case", "options"),
    [
        ("sclite", []),  # sclite's default, as ESPnet calls it: no -e
        ("sclite", ["-e", "utf-8"]),
        ("sclite", ["-e", "utf-8", "generic"]),
        ("sensitive", ["-s"]),
        *[(case, ["-e", "utf-8", name]) for case, name in CASE_PROFILES.items() if name != "generic"],
    ],
)
@settings(max_examples=6, deadline=None)
@given(pairs=pair_lists)
def test_every_utterance_equals_sclite(case: str, options: list[str], pairs, tmp_path_factory) -> None:
    expected = run_sclite(pairs, tmp_path_factory.mktemp("case"), options)
    got = lightscore_counts(WER(case=case, aligner="sclite", per_utterance=True), pairs)
    assert got == list(expected.values())


@needs_sctk
def test_the_issue_examples(tmp_path: Path) -> None:
    pairs = [("Я відповідаю за навчання", "я відповідаю за навчання"), ("Đi Nam", "đi nam"), ("THE cat", "the cat")]
    assert list(run_sclite(pairs, tmp_path).values()) == [(3, 1, 0, 0), (1, 1, 0, 0), (2, 0, 0, 0)]
    assert lightscore_counts(WER(case="sclite", aligner="sclite", per_utterance=True), pairs) == [
        (3, 1, 0, 0),
        (1, 1, 0, 0),
        (2, 0, 0, 0),
    ]
    # fold is every letter (Python's str.lower): not sclite's count, and documented as such.
    assert lightscore_counts(WER(case="fold", aligner="sclite", per_utterance=True), pairs)[0] == (4, 0, 0, 0)


def test_turkish_i_and_settings() -> None:
    assert sclite_fold("I İ ı i", "babel_turkish") == "ı i ı i"
    assert sclite_fold("I İ", "generic") == "i İ"
    assert WER(case="sclite_babel_turkish", aligner="sclite").settings() == (
        "WER case=sclite_babel_turkish aligner=sclite normalize=none"
    )
    assert set(LOCALIZATIONS) >= {"generic", "babel_turkish", "babel_vietnamese"}


def test_unknown_case_is_named() -> None:
    with pytest.raises(ValueError, match="WER: case 'sclite_ukrainian' is not one of sensitive, fold, sclite"):
        WER(case="sclite_ukrainian")
