"""``lightscore measure`` under ``torchrun --nproc_per_node=2``: the same metrics.json as one process.

Real processes: torchrun starts two ranks of the installed ``lightscore`` command, which
shard the rows, gather the states over gloo and let rank 0 write. Each test runs the
one-process command on a copy of the same inference directory and compares.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lightscore.scp import ScpShard, read_scp

BIN = Path(sys.executable).parent
WORDS = "the a cat dog sat ran on over mat hill river stone house tree green blue red".split()


def lightscore(*args: str) -> list[str]:
    return [str(BIN / "lightscore"), *args]


def torchrun(*args: str) -> list[str]:
    return [str(BIN / "torchrun"), "--standalone", "--nproc_per_node=2", "--no-python", *lightscore(*args)]


def run(command: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 9)))


def noisy(rng: random.Random, text: str) -> str:
    words = [w if rng.random() > 0.2 else rng.choice(WORDS) for w in text.split() if rng.random() > 0.1]
    return " ".join(words + ([rng.choice(WORDS)] if rng.random() < 0.2 else []))


def write_decode(root: Path, rows: int = 57) -> None:
    """Two test sets of uneven length, with a blank line, an id-only line and CRLF endings."""
    rng = random.Random(7)
    for test, n in (("test-clean", rows), ("test-other", rows // 3)):
        refs = [(f"{test}-{i:03d}", sentence(rng)) for i in range(n)]
        hyps = [(utt, noisy(rng, text)) for utt, text in refs]
        hyps[3] = (hyps[3][0], "")  # an empty hypothesis: only deletions
        test_dir = root / test
        test_dir.mkdir(parents=True)
        ref_lines = [f"{u} {t}\n" for u, t in refs]
        ref_lines.insert(10, "\n")  # a blank line: no row, so the rows of ref and hyp sit on different lines
        (test_dir / "ref.scp").write_text("".join(ref_lines))
        (test_dir / "hyp.scp").write_bytes("".join(f"{u} {t}".rstrip() + "\r\n" for u, t in hyps).encode())


def write_config(root: Path) -> Path:
    config = root.parent / f"{root.name}.yaml"
    config.write_text(
        f"inference_dir: {root}\n"
        "metrics:\n"
        "  - {metric: {_target_: lightscore.metrics.WER}, inputs: [ref, hyp], name: wer}\n"
        "  - {metric: {_target_: lightscore.metrics.CER, case: fold}, inputs: [ref, hyp], name: cer}\n"
        "  - {metric: {_target_: lightscore.metrics.WER, ci: 0.95, bootstrap: 300, alignment: false},"
        " inputs: [ref, hyp], name: wer_ci}\n"
    )
    return config


def outputs(root: Path) -> dict[str, str]:
    """metrics.json and every artifact, by path relative to ``root``."""
    return {
        str(p.relative_to(root)): p.read_text()
        for p in sorted(root.rglob("*"))
        if p.name.endswith(("json", "_alignment"))
    }


@pytest.fixture
def two_copies(tmp_path: Path) -> tuple[Path, Path]:
    single = tmp_path / "single"
    write_decode(single)
    sharded = tmp_path / "sharded"
    shutil.copytree(single, sharded)
    return single, sharded


def test_two_ranks_write_what_one_process_writes(two_copies):
    single, sharded = two_copies
    one = run(lightscore("measure", str(write_config(single))), single.parent)
    assert one.returncode == 0, one.stderr
    two = run(torchrun("measure", str(write_config(sharded))), sharded.parent)
    assert two.returncode == 0, two.stderr
    expected, got = outputs(single), outputs(sharded)
    assert sorted(got) == ["metrics.json", "test-clean/cer_alignment", "test-clean/wer_alignment",
                           "test-other/cer_alignment", "test-other/wer_alignment"]  # fmt: skip
    assert got == expected  # the alignment files were written in parts, one per rank, and joined in order
    assert not [p.name for p in sharded.rglob("*") if ".part" in p.name]
    results = json.loads(got["metrics.json"])
    ci = results["wer_ci"]["test-clean"]  # the bootstrap interval is equal too (metrics.json above is)
    assert ci["WER_ci_low"] < ci["WER"] == results["wer"]["test-clean"]["WER"] < ci["WER_ci_high"]
    assert results["wer"]["test-clean"]["WER_ref_len"] > 100  # every row was counted once, not half of them
    assert results["wer"]["test-clean"]["WER"] > 0
    # Rank 0's progress bar counts its own share: rows 0, 2, ..., 56 of the 57.
    assert "test-clean  wer: 100%|" in one.stderr and "57/57" in one.stderr and "57/57" not in two.stderr
    assert "29/29" in two.stderr


def test_a_bad_row_on_one_rank_fails_that_pair_everywhere_without_a_hang(two_copies):
    single, sharded = two_copies
    for root in (single, sharded):
        hyp = root / "test-other" / "hyp.scp"
        lines = hyp.read_text().splitlines(keepends=True)
        lines[5] = "someone-else " + lines[5].split(maxsplit=1)[1]  # row 5: rank 1's row under 2 ranks
        hyp.write_text("".join(lines))
    one = run(lightscore("measure", str(write_config(single))), single.parent)
    two = run(torchrun("measure", str(write_config(sharded))), sharded.parent)
    assert one.returncode == 1 and two.returncode != 0
    assert "utterance ids differ" in one.stderr and "someone-else" in one.stderr
    assert "utterance ids differ" in two.stderr and "someone-else" in two.stderr
    # The failing pairs (both metrics on test-other) are left out, the others are written alike.
    assert outputs(sharded) == outputs(single)
    assert set(json.loads((sharded / "metrics.json").read_text())["wer"]) == {"test-clean"}


def test_shards_partition_the_rows_in_file_order(tmp_path):
    write_decode(tmp_path / "d")
    ref = tmp_path / "d" / "test-clean" / "ref.scp"
    rows = list(read_scp(ref))
    shards = [list(read_scp(ScpShard(ref, rank, 3))) for rank in range(3)]
    assert [shards[i % 3][i // 3] for i in range(len(rows))] == rows


def test_block_shards_partition_the_rows_into_contiguous_runs(tmp_path):
    write_decode(tmp_path / "d")
    ref = tmp_path / "d" / "test-clean" / "ref.scp"
    rows = list(read_scp(ref))
    blocks = [list(read_scp(ScpShard(ref, rank, 3, rows=len(rows)))) for rank in range(3)]
    assert [row for block in blocks for row in block] == rows
    assert max(map(len, blocks)) - min(map(len, blocks)) <= 1
