"""One stm reference scored against several ctm files (Kaldi's sweep of LM weights), read and filtered once.

`HubscrReference` keeps the reference's networks and a vocabulary that grows from one ctm to the next; each
ctm's counts must be those of a fresh `hubscr` call, whatever came before it (and those of ``sctk hubscr``).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from test_glm import run_hubscr
from test_hubscr_order import PLAIN_RULE_WORDS, hostile, write
from test_sclite_case import needs_sctk

from lightscore.text.hubscr.glm import glm_path
from lightscore.text.hubscr.pipeline import HubscrReference, hubscr, hubscr_rows
from lightscore.text.hubscr.stm_ctm import StmCtmError


def variant(ctm: list[str], seed: int) -> list[str]:
    """Another decoding of the same audio: some words dropped, some replaced by other (GLM) words, some doubled."""
    rng, lines = random.Random(seed), []
    for line in ctm:
        fields = line.split()
        roll = rng.random()
        if roll < 0.15:
            continue
        if roll < 0.3:
            fields[4] = rng.choice([*PLAIN_RULE_WORDS, "uh-huh", "wor-", "okay", "zebra"])
        lines.append(" ".join(fields))
        if roll > 0.95:
            lines.append(" ".join(fields))
    return lines


def sweep(folder: Path, seed: int, count: int = 4) -> tuple[Path, list[Path]]:
    """An stm and ``count`` ctm decodings of it (the first the original), in ``folder``."""
    stm, ctm = hostile(seed)
    stm_path, first = write(folder, stm, ctm)
    paths = [first]
    for k in range(1, count):
        paths.append(folder / f"hyp{k}.ctm")
        paths[-1].write_text("\n".join(variant(ctm, seed * 100 + k)) + "\n", encoding="utf-8")
    return stm_path, paths


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize(("glm", "case"), [("en20030506", None), (None, "sensitive")])
def test_one_reference_scores_each_ctm_as_hubscr_alone(
    seed: int, glm: str | None, case: str | None, tmp_path: Path
) -> None:
    stm, ctms = sweep(tmp_path, seed)
    order = random.Random(seed).sample(ctms, len(ctms)) + ctms[:1]  # and the first again, after the others
    reference = HubscrReference(stm, glm, case)
    for ctm in order:
        assert reference.score(ctm) == hubscr(stm, ctm, glm, case), ctm.name
    assert reference.rows(ctms[-1]) == hubscr_rows(stm, ctms[-1], glm, case)


@needs_sctk
@pytest.mark.parametrize("seed", range(3))
def test_a_sweep_equals_sctk_hubscr_on_each_ctm_per_segment(seed: int, tmp_path: Path) -> None:
    stm, ctms = sweep(tmp_path, seed + 20)
    reference = HubscrReference(stm, "en20030506")
    for ctm in ctms:
        found = {c.utt_id: (c.ref_len - c.sub - c.dele, c.sub, c.dele, c.ins) for c in reference.score(ctm)}
        assert found == run_hubscr(stm, ctm, glm_path("en20030506"), "-V"), ctm.name


def test_a_ctm_that_cannot_be_read_leaves_the_reference_whole(tmp_path: Path) -> None:
    """The error names the ctm and its line; the next ctm is scored as if the bad one had never been tried."""
    stm, ctms = sweep(tmp_path, 3, count=2)
    bad = tmp_path / "bad.ctm"
    lines = ctms[1].read_text(encoding="utf-8").splitlines()
    bad.write_text("\n".join([*lines[:5], "fa A 1.0 x2 word", *lines[5:]]) + "\n", encoding="utf-8")
    reference = HubscrReference(stm, "en20030506")
    assert reference.score(ctms[0]) == hubscr(stm, ctms[0])
    with pytest.raises(StmCtmError, match=r"bad\.ctm line 6: duration 'x2' is not a number"):
        reference.score(bad)
    assert reference.score(ctms[1]) == hubscr(stm, ctms[1])
