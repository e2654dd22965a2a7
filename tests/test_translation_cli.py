"""``lightscore score|compare --metric bleu|chrf|chrf++|transter``: sacrebleu's numbers, signature and p-values."""

from __future__ import annotations

import json
import random

import pytest
from sacrebleu.metrics import BLEU, CHRF, TER
from sacrebleu.significance import PairedTest

from lightscore.cli import main

WORDS = "the a cat dog sat ran on over mat hill river stone , . ! house tree".split()


def corpus(tmp_path, n: int = 120) -> dict[str, list[str]]:
    """Reference, two systems and a second reference as SCP files, ids in sorted order (as Kaldi writes them)."""
    rng = random.Random(7)
    texts: dict[str, list[str]] = {"ref": [], "ref2": [], "a": [], "b": []}
    for _ in range(n):
        ref = [rng.choice(WORDS) for _ in range(rng.randint(3, 15))]
        texts["ref"].append(" ".join(ref))
        texts["ref2"].append(" ".join(w if rng.random() > 0.3 else rng.choice(WORDS) for w in ref))
        texts["a"].append(" ".join(w for w in ref if rng.random() > 0.1))
        texts["b"].append(" ".join(w if rng.random() > 0.2 else rng.choice(WORDS) for w in ref))
    for name, rows in texts.items():
        (tmp_path / f"{name}.scp").write_text("".join(f"utt{k:04d} {t}\n" for k, t in enumerate(rows)))
    return texts


@pytest.mark.parametrize(
    ("name", "reference"),
    [("bleu", BLEU()), ("chrf", CHRF()), ("chrf++", CHRF(word_order=2)), ("transter", TER())],
)
def test_score_prints_sacrebleus_score_and_signature(tmp_path, capsys, name, reference) -> None:
    texts = corpus(tmp_path)
    assert (
        main(
            [
                "score",
                str(tmp_path / "ref.scp"),
                str(tmp_path / "a.scp"),
                "--metric",
                name,
                "--ref2",
                str(tmp_path / "ref2.scp"),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    expected = reference.corpus_score(texts["a"], [texts["ref"], texts["ref2"]])
    assert f"{expected.score:.2f}" in out
    assert f"signature: {reference.get_signature().format().replace('|', '|')}" in out


def test_compare_p_values_equal_sacrebleus_paired_tests(tmp_path, capsys) -> None:
    texts = corpus(tmp_path)
    out_json = tmp_path / "cmp.json"
    args = ["compare", str(tmp_path / "ref.scp"), str(tmp_path / "a.scp"), str(tmp_path / "b.scp")]
    assert main([*args, "--metric", "bleu", "--json", str(out_json)]) == 0
    summary = json.loads(out_json.read_text())
    systems = [("A", texts["a"]), ("B", texts["b"])]
    for kind, n in (("bs", 1000), ("ar", 10000)):
        test = PairedTest(
            systems, {"BLEU": BLEU(references=[texts["ref"]])}, references=None, test_type=kind, n_samples=n
        )
        expected = test()[1]["BLEU"][1]
        mine = summary[f"paired_{kind}"]
        assert mine["p_value"] == pytest.approx(expected.p_value, abs=1e-12)
        assert mine["score"] == pytest.approx(expected.score)
        if kind == "bs":
            assert mine["mean"] == pytest.approx(expected.mean) and mine["ci"] == pytest.approx(expected.ci)


def test_translation_options_are_checked(tmp_path) -> None:
    corpus(tmp_path, 5)
    with pytest.raises(ValueError, match="--tokenize is BLEU's option, not chrf's"):
        main(
            [
                "score",
                str(tmp_path / "ref.scp"),
                str(tmp_path / "a.scp"),
                "--metric",
                "chrf",
                "--tokenize",
                "intl",
                "--debug",
            ]
        )
