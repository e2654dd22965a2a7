"""sclite files bound in measure(): each conversion folder belongs to one setting, appears whole, follows no link.

Real files and real processes: entries with different GLMs on one ``ref.stm``/``hyp.ctm`` pair each score
their own conversion, two ``lightscore measure`` commands run at once on one inference_dir, and a symbolic
link planted where measure writes is refused with the folder it points to left untouched.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from test_sharded_measure import lightscore

from lightscore import MeasureError, measure

# A GLM of our own, so that each of three settings gives a different count on the same files.
CUSTOM_GLM = """\
;; a rule that adds a reference word
* name "custom.glm"
* format = 'NIST1'
* max_nrules = '10'
* copy_no_hit = 'T'
* case_sensitive = 'F'
AM => AM NOT / [ ] __ [ ]
"""


def write_gonna(folder: Path, segments: int = 1) -> None:
    """``ref.stm`` saying "i am gonna go home" per segment, ``hyp.ctm`` "i am going to go home".

    Without a GLM each segment has 2 errors in 5 words (40 %); NIST's en20030506 maps GONNA to
    GOING TO (0 errors in 6); `CUSTOM_GLM` makes "am" "am not" (2 in 6).
    """
    folder.mkdir(parents=True, exist_ok=True)
    stm, ctm = [], []
    for k in range(segments):
        start = 10.0 * k
        stm.append(f"fa A spk {start:.2f} {start + 6:.2f} i am gonna go home")
        for n, word in enumerate("i am going to go home".split()):
            ctm.append(f"fa A {start + 0.5 * (n + 1):.2f} 0.40 {word}")
    (folder / "ref.stm").write_text("\n".join(stm) + "\n")
    (folder / "hyp.ctm").write_text("\n".join(ctm) + "\n")


def entry(name: str, glm: str | None) -> dict:
    node = {"metric": {"_target_": "lightscore.metrics.WER"}, "inputs": {"ref": "ref.stm", "hyp": "hyp.ctm"}}
    return {**node, "name": name, **({"glm": glm} if glm else {})}


def counts(result: dict) -> tuple[int, int]:
    """(errors, reference words)."""
    return result["WER_sub"] + result["WER_del"] + result["WER_ins"], result["WER_ref_len"]


def test_entries_with_different_glms_each_score_their_own_conversion(tmp_path: Path) -> None:
    write_gonna(tmp_path / "dev")
    (tmp_path / "custom.glm").write_text(CUSTOM_GLM)
    entries = [entry("plain", None), entry("nist", "en20030506"), entry("custom", str(tmp_path / "custom.glm"))]
    results = measure({"inference_dir": str(tmp_path), "metrics": entries})
    got = {name: counts(results[name]["dev"]) for name in ("plain", "nist", "custom")}
    assert got == {"plain": (2, 5), "nist": (0, 6), "custom": (2, 6)}
    folders = sorted(p.name for p in (tmp_path / "dev" / ".sclite").iterdir())
    assert len(folders) == 3 and all(name.startswith("ref-hyp-") for name in folders)
    # A rerun reuses the finished folders (same key) and gives the same numbers.
    again = measure({"inference_dir": str(tmp_path), "metrics": entries})
    assert {name: counts(again[name]["dev"]) for name in got} == got
    assert sorted(p.name for p in (tmp_path / "dev" / ".sclite").iterdir()) == folders


def test_a_changed_hypothesis_gets_a_new_conversion(tmp_path: Path) -> None:
    write_gonna(tmp_path / "dev")
    config = {"inference_dir": str(tmp_path), "metrics": [entry("plain", None)]}
    assert counts(measure(config)["plain"]["dev"]) == (2, 5)
    hyp = tmp_path / "dev" / "hyp.ctm"
    hyp.write_text(hyp.read_text().replace("going", "gonna").replace(" to\n", " go\n"))
    assert counts(measure(config)["plain"]["dev"]) == (1, 5)


@pytest.mark.slow
def test_two_concurrent_measure_commands_never_share_a_conversion(tmp_path: Path) -> None:
    """One run with a GLM and one without, started together on one inference_dir, three times over."""
    write_gonna(tmp_path / "dev", segments=3000)  # a conversion long enough for the two runs to overlap
    configs = {}
    for name, glm in (("plain", None), ("nist", "en20030506")):
        configs[name] = tmp_path / f"{name}.yaml"
        configs[name].write_text(json.dumps({"inference_dir": str(tmp_path), "metrics": [entry(name, glm)]}))
    for _ in range(3):
        (tmp_path / "metrics.json").unlink(missing_ok=True)
        for folder in (tmp_path / "dev" / ".sclite").glob("*"):
            for file in folder.iterdir():
                file.unlink()
            folder.rmdir()  # each round converts afresh, both runs at once
        runs = {
            name: subprocess.Popen(lightscore("measure", str(path)), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            for name, path in configs.items()
        }
        for name, run in runs.items():
            _, err = run.communicate(timeout=120)
            assert run.returncode == 0, f"{name}: {err.decode()}"
        written = json.loads((tmp_path / "metrics.json").read_text())
        assert counts(written["plain"]["dev"]) == (2 * 3000, 5 * 3000)
        assert counts(written["nist"]["dev"]) == (0, 6 * 3000)
    names = sorted(p.name for p in (tmp_path / "dev" / ".sclite").iterdir())
    assert len(names) == 2 and not any(name.startswith(".") for name in names)  # no half-built folder left


@pytest.mark.parametrize("linked", [".sclite", "conversion"])
def test_a_link_where_measure_writes_is_refused(tmp_path: Path, linked: str) -> None:
    root = tmp_path / "decode"
    write_gonna(root / "dev")
    config = {"inference_dir": str(root), "metrics": [entry("plain", None)]}
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("a user's file\n")
    if linked == ".sclite":
        (root / "dev" / ".sclite").symlink_to(elsewhere, target_is_directory=True)
    else:
        measure(config)
        (folder,) = (root / "dev" / ".sclite").iterdir()
        for file in folder.iterdir():
            file.unlink()
        folder.rmdir()
        folder.symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(MeasureError, match=r"plain on dev: ValueError: .*dev/\.sclite.* is a symbolic link"):
        measure(config)
    assert sorted(p.name for p in elsewhere.iterdir()) == ["keep.txt"]
