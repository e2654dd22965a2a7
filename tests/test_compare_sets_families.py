"""``lightscore compare --set`` for the translation and the meeting metrics (issue 41), on real small files.

Translation: each set's row is sacrebleu's paired bootstrap with sacrebleu's seed plus the set's index (the oracle:
sacrebleu's ``PairedTest``, seeded through ``SACREBLEU_SEED``), the first set's is ``lightscore compare`` on it
alone, and the pooled and macro scores are sacrebleu's corpus scores. Meetings: each set's row is ``lightscore
compare`` on it alone with ``--seed k``, its bootstrap is the error rates' own paired bootstrap over meeteval's
per-session counts, and the pooled cpWER is meeteval's over every session.
"""

from __future__ import annotations

import json
import math
import random
import re

import numpy as np
import pytest
from sacrebleu.metrics import BLEU, CHRF, TER
from sacrebleu.significance import PairedTest, _bootstrap_resample

from lightscore import metrics
from lightscore.analysis.bootstrap import paired_bootstrap
from lightscore.cli import main

WORDS = "the a cat dog sat ran on over mat hill river stone , . house tree".split()
SACREBLEU = {"bleu": (BLEU, "BLEU"), "chrf": (CHRF, "chrF2"), "transter": (TER, "TER")}


def translation_sets(tmp_path, sizes=(40, 30)) -> dict[str, dict[str, list[str]]]:
    """Per set, a reference and two systems as SCP files (``<set>_ref.scp``, ``<set>_a.scp``, ``<set>_b.scp``)."""
    rng = random.Random(5)
    sets = {}
    for name, n in zip(("dev", "test"), sizes):
        texts: dict[str, list[str]] = {"ref": [], "a": [], "b": []}
        for _ in range(n):
            ref = [rng.choice(WORDS) for _ in range(rng.randint(3, 14))]
            texts["ref"].append(" ".join(ref))
            texts["a"].append(" ".join(w if rng.random() > 0.3 else rng.choice(WORDS) for w in ref))
            texts["b"].append(" ".join(w for w in ref if rng.random() > 0.15))
        for side, rows in texts.items():
            (tmp_path / f"{name}_{side}.scp").write_text("".join(f"{name}{k:03d} {t}\n" for k, t in enumerate(rows)))
        sets[name] = texts
    return sets


def set_args(tmp_path, names, suffix="scp"):
    args = []
    for name in names:
        args += ["--set", name, *(str(tmp_path / f"{name}_{side}.{suffix}") for side in ("ref", "a", "b"))]
    return args


@pytest.mark.parametrize("metric", ["bleu", "chrf", "transter"])
def test_translation_sets_equal_sacrebleu_paired_bootstrap(tmp_path, capsys, monkeypatch, metric):
    texts = translation_sets(tmp_path)
    out = tmp_path / "sets.json"
    assert main(["compare", "--metric", metric, *set_args(tmp_path, texts), "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    summary = json.loads(out.read_text())
    cls, name = SACREBLEU[metric]
    key = summary["metric"]
    assert [row["test"] for row in summary["rows"]] == ["dev", "test", "pooled", "macro"]
    for k, (test, t) in enumerate(texts.items()):
        monkeypatch.setenv("SACREBLEU_SEED", str(12345 + k))
        _, scores = PairedTest([("a", t["a"]), ("b", t["b"])], {name: cls()}, [t["ref"]], "bs", 1000)()
        expected = scores[name][1]
        entry = summary["sets"][test]
        assert entry["paired_bs"]["p_value"] == expected.p_value == entry["bootstrap"]["p"]
        assert entry["B"] == expected.score == entry["b"][key]
        assert entry["paired_bs"]["mean"] == pytest.approx(expected.mean, abs=0)
        # the row's interval of B - A comes from sacrebleu's own resamples (summed there in float32)
        reference = cls()
        stats = [reference._extract_corpus_statistics(t[side], [t["ref"]]) for side in ("a", "b")]
        resampled = [np.array([s.score for s in _bootstrap_resample(st, reference, 1000)[1]]) for st in stats]
        low, high = np.quantile(resampled[1] - resampled[0], [0.025, 0.975])
        assert entry["bootstrap"]["ci"] == pytest.approx([low, high], abs=1e-3)
    # pooled: the corpus score of every set's segments; macro: the mean of the sets' scores
    joined = {side: [line for t in texts.values() for line in t[side]] for side in ("ref", "a", "b")}
    for side in ("a", "b"):
        pooled = cls().corpus_score(joined[side], [joined["ref"]]).score
        assert summary["pooled"][side][key] == pytest.approx(pooled, rel=1e-12)
        per_set = [cls().corpus_score(t[side], [t["ref"]]).score for t in texts.values()]
        assert summary["macro"][side][key] == pytest.approx(math.fsum(per_set) / 2, rel=1e-12)
    assert f"verdict (pooled): {summary['verdict']}" in printed
    assert "seeds: dev 12345, test 12346" in printed


def test_first_translation_set_equals_compare_alone(tmp_path, capsys):
    translation_sets(tmp_path)
    both, alone = tmp_path / "sets.json", tmp_path / "alone.json"
    assert main(["compare", "--metric", "bleu", *set_args(tmp_path, ["dev", "test"]), "--json", str(both)]) == 0
    files = [str(tmp_path / f"dev_{side}.scp") for side in ("ref", "a", "b")]
    assert main(["compare", "--metric", "bleu", *files, "--json", str(alone)]) == 0
    capsys.readouterr()
    entry, lone = json.loads(both.read_text())["sets"]["dev"], json.loads(alone.read_text())
    for field in ("metric", "signature", "A", "B", "paired_bs", "paired_ar"):
        assert entry[field] == lone[field]


def test_translation_set_with_other_ids_is_named(tmp_path, capsys):
    translation_sets(tmp_path)
    path = tmp_path / "test_b.scp"
    path.write_text(path.read_text().replace("test004", "test999"))
    assert main(["compare", "--metric", "chrf", *set_args(tmp_path, ["dev", "test"])]) != 0
    assert re.search(r"test set 'test': .*test_b\.scp:5 has 'test999'", capsys.readouterr().err)


def meeting_sets(tmp_path, sessions=(5, 4)) -> dict[str, dict[str, list[str]]]:
    """Per set, STM files of a reference and two systems (B makes fewer errors), and RTTM files of the same."""
    rng = random.Random(11)
    vocab = "alpha beta gamma delta okay yes no maybe sure right".split()
    sets = {}
    for name, count in zip(("dev", "eval"), sessions):
        stm: dict[str, list[str]] = {"ref": [], "a": [], "b": []}
        rttm: dict[str, list[str]] = {"ref": [], "a": [], "b": []}
        for s in range(count):
            session, start = f"{name}{s}", 0.0
            for _ in range(rng.randint(3, 6)):
                speaker, words = rng.choice("AB"), [rng.choice(vocab) for _ in range(rng.randint(3, 8))]
                end = start + 0.4 * len(words)
                stm["ref"].append(f"{session} 1 {speaker} {start:.2f} {end:.2f} {' '.join(words)}")
                for side, p, shift in (("a", 0.35, 0.3), ("b", 0.1, 0.1)):
                    said = " ".join(w if rng.random() > p else rng.choice(vocab) for w in words)
                    stm[side].append(f"{session} 1 {speaker.lower()} {start:.2f} {end:.2f} {said}")
                    who = speaker.lower()
                    rttm[side].append(
                        f"SPEAKER {session} 1 {start + shift:.2f} {end - start:.2f} <NA> <NA> {who} <NA> <NA>"
                    )
                rttm["ref"].append(f"SPEAKER {session} 1 {start:.2f} {end - start:.2f} <NA> <NA> {speaker} <NA> <NA>")
                start = end + 0.5
        for side in ("ref", "a", "b"):
            (tmp_path / f"{name}_{side}.stm").write_text("\n".join(stm[side]) + "\n")
            (tmp_path / f"{name}_{side}.rttm").write_text("\n".join(rttm[side]) + "\n")
        sets[name] = stm
    return sets


def alone(tmp_path, metric: str, test: str, suffix: str, k: int, options=()) -> dict:
    """``lightscore compare`` on one set (seed 0: the first set); a later set through the same function, seeded k."""
    from lightscore.cli.families import MEETING_CLASSES
    from lightscore.offline.compare_meetings import compare_meetings

    files = [str(tmp_path / f"{test}_{side}.{suffix}") for side in ("ref", "a", "b")]
    if k == 0:
        out = tmp_path / f"{test}.json"
        assert main(["compare", "--metric", metric, *options, *files, "--json", str(out)]) == 0
        return json.loads(out.read_text())
    cls = getattr(metrics, MEETING_CLASSES[metric])
    built = (lambda: cls(collar=float(options[1]))) if options else cls
    return json.loads(json.dumps(compare_meetings(built, *files, seed=k)))


def test_meeting_sets_equal_each_set_alone_and_meeteval(tmp_path, capsys):
    from meeteval.io import STM
    from meeteval.wer import cpwer

    texts = meeting_sets(tmp_path)
    out = tmp_path / "sets.json"
    assert main(["compare", "--metric", "cpwer", *set_args(tmp_path, texts, "stm"), "--json", str(out)]) == 0
    summary = json.loads(out.read_text())
    strata = {}
    for k, test in enumerate(texts):
        lone, entry = alone(tmp_path, "cpwer", test, "stm", k), summary["sets"][test]
        assert entry["bootstrap"] == lone["bootstrap"] and entry["a"] == lone["a"] and entry["b"] == lone["b"]
        # the oracle's per-session counts, through the error rates' own paired bootstrap
        ref = STM.load(tmp_path / f"{test}_ref.stm")
        a, b = (cpwer(ref, STM.load(tmp_path / f"{test}_{side}.stm")) for side in ("a", "b"))
        sessions = sorted(a)
        strata[test] = [
            [a[s].errors for s in sessions],
            [b[s].errors for s in sessions],
            [a[s].length for s in sessions],
        ]
        expected = paired_bootstrap(*strata[test], replicates=1000, seed=k)
        for field in ("difference", "ci", "p", "p_b_better"):
            assert entry["bootstrap"][field] == pytest.approx(expected[field], abs=1e-12)
        assert entry["utterances"] == len(sessions) and entry["ref_tokens"] == sum(strata[test][2])
    pooled = summary["pooled"]
    for side, column in (("a", 0), ("b", 1)):
        errors = sum(sum(stratum[column]) for stratum in strata.values())
        words = sum(sum(stratum[2]) for stratum in strata.values())
        assert pooled[side]["cpWER"] == pytest.approx(100 * errors / words, rel=1e-12)
    assert summary["macro"]["bootstrap"]["stratified"] and summary["bootstrap"]["seeds"] == {"dev": 0, "eval": 1}
    assert "paired bootstrap over sessions per set" in capsys.readouterr().out


@pytest.mark.parametrize("metric", ["der", "jer"])
def test_diarization_sets_equal_each_set_alone(tmp_path, capsys, metric):
    meeting_sets(tmp_path)
    out = tmp_path / "sets.json"
    collar = ["--collar", "0.25"]
    assert (
        main(["compare", "--metric", metric, *collar, *set_args(tmp_path, ["dev", "eval"], "rttm"), "--json", str(out)])
        == 0
    )
    summary = json.loads(out.read_text())
    name = summary["metric"]
    for k, test in enumerate(("dev", "eval")):
        lone = alone(tmp_path, metric, test, "rttm", k, collar)
        assert summary["sets"][test]["bootstrap"] == lone["bootstrap"] and summary["sets"][test]["a"] == lone["a"]
        # the bootstrap's rate is the metric's own value of the set
        assert lone["bootstrap"]["rate_a"] == pytest.approx(lone["a"][name], rel=1e-12)
    joined = tmp_path / "all"
    joined.mkdir()
    for side in ("ref", "a"):
        lines = "".join((tmp_path / f"{test}_{side}.rttm").read_text() for test in ("dev", "eval"))
        (joined / f"{side}.rttm").write_text(lines)
    capsys.readouterr()
    assert main(["score", "--metric", metric, *collar, str(joined / "ref.rttm"), str(joined / "a.rttm")]) == 0
    assert f"{summary['pooled']['a'][name]:.2f}" in capsys.readouterr().out
    assert summary["macro"]["a"][name] == pytest.approx(
        (summary["sets"]["dev"]["a"][name] + summary["sets"]["eval"]["a"][name]) / 2, rel=1e-12
    )


def test_meeting_set_with_unknown_session_is_named(tmp_path, capsys):
    meeting_sets(tmp_path)
    path = tmp_path / "eval_b.stm"
    path.write_text(path.read_text() + "ghost 1 a 0.00 1.00 hello\n")
    assert main(["compare", "--metric", "cpwer", *set_args(tmp_path, ["dev", "eval"], "stm")]) != 0
    assert re.search(r"test set 'eval': .*eval_b\.stm \(session 'ghost'\): the reference", capsys.readouterr().err)


def test_other_families_are_refused_across_sets(tmp_path, capsys):
    translation_sets(tmp_path)
    assert main(["compare", "--metric", "keywords", *set_args(tmp_path, ["dev", "test"])]) != 0
    assert "compare across test sets is for the error rates, the translation metrics" in capsys.readouterr().err


def test_second_reference_is_refused_across_sets(tmp_path, capsys):
    translation_sets(tmp_path)
    ref2 = ["--ref2", str(tmp_path / "dev_ref.scp")]
    assert main(["compare", "--metric", "bleu", *ref2, *set_args(tmp_path, ["dev", "test"])]) != 0
    assert "--ref2 adds a reference to one set" in capsys.readouterr().err


def test_purity_and_coverage_are_refused(tmp_path, capsys):
    meeting_sets(tmp_path)
    assert main(["compare", "--metric", "purity_coverage", *set_args(tmp_path, ["dev", "eval"], "rttm")]) != 0
    assert "comparing systems needs one rate per session" in capsys.readouterr().err
