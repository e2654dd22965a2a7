"""``pip install lightscore`` is recognition scoring only (issue 37): a fresh venv, no extras, no torch.

The venv is built the way a new user builds it (``python -m venv``, then ``pip install .`` of this
checkout), its size and packages are printed, and the commands a recognition user runs are run in it on
real files, with the same output as this (full) environment prints. The families' metrics then fail with
the one line that names their extra.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "data" / "sclite_reference"
# What the core must not bring: the families' stacks (issue 37 names them).
HEAVY = ("torch", "lightning", "onnxruntime", "librosa", "numba", "pocketsphinx", "resemblyzer", "sacrebleu")
CORE_LIMIT_MB = 300

pytestmark = pytest.mark.slow


def folder_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink()) / 1e6


@pytest.fixture(scope="module")
def core_venv(tmp_path_factory) -> dict:
    """A fresh venv with ``pip install .`` and nothing else; its pip log, size and packages."""
    venv = tmp_path_factory.mktemp("core") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    # A copy of the checkout without its build leftovers, so pip builds lightscore as from a clean clone.
    source = tmp_path_factory.mktemp("src") / "lightscore"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".venv", ".git", "*.egg-info", "build", "exp"))
    done = subprocess.run(
        [str(python), "-m", "pip", "install", "--disable-pip-version-check", str(source)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    listed = subprocess.run(
        [str(python), "-m", "pip", "list", "--format=json", "--disable-pip-version-check"],
        capture_output=True,
        text=True,
        check=True,
    )
    packages = {p["name"].lower(): p["version"] for p in json.loads(listed.stdout)}
    size = folder_mb(venv)
    print(f"\ncore venv: {size:.0f} MB, {len(packages)} packages")
    print("\n".join(f"  {name}=={version}" for name, version in sorted(packages.items())))
    return {"venv": venv, "python": python, "log": done.stdout, "packages": packages, "size": size}


def run_in(venv: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(venv / "bin" / "lightscore"), *args], capture_output=True, text=True, cwd=cwd)


def here(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """The same command in this environment (every extra installed)."""
    command = Path(sys.executable).parent / "lightscore"
    return subprocess.run([str(command), *args], capture_output=True, text=True, cwd=cwd)


def test_the_core_installs_no_family_stack_and_builds_nothing_from_source(core_venv):
    packages = core_venv["packages"]
    assert [name for name in HEAVY if name in packages] == []
    assert [name for name in packages if name.startswith("nvidia-")] == []
    built = set(re.findall(r"Building wheel for (\S+)", core_venv["log"]))
    assert built == {"lightscore"}, f"built from source: {sorted(built)}"
    assert core_venv["size"] < CORE_LIMIT_MB


@pytest.mark.parametrize("aligner", ["unit", "sclite"])
def test_score_prints_what_the_full_install_prints(core_venv, tmp_path, aligner):
    args = ("score", "--aligner", aligner, str(CORPUS / "ref.trn"), str(CORPUS / "hyp_a.trn"))
    core = run_in(core_venv["venv"], *args, cwd=tmp_path)
    assert core.returncode == 0, core.stderr
    assert "WER" in core.stdout
    assert core.stdout == here(*args, cwd=tmp_path).stdout


def test_hubscr_scoring_works_in_the_core(core_venv, tmp_path):
    stm = tmp_path / "ref.stm"
    ctm = tmp_path / "hyp.ctm"
    stm.write_text("sw1 A sw1_A 0.0 5.0 <o,f1,male> uh-huh i went to the store\n", encoding="utf-8")
    words = [("uh-huh", 0.1), ("i", 0.6), ("want", 1.0), ("to", 1.5), ("store", 2.2)]
    ctm.write_text("".join(f"sw1 A {t:.2f} 0.30 {w}\n" for w, t in words), encoding="utf-8")
    args = ("score", str(stm), str(ctm))
    core = run_in(core_venv["venv"], *args, cwd=tmp_path)
    assert core.returncode == 0, core.stderr
    assert "[2/6]" in core.stdout.replace(" ", "") or "33.33" in core.stdout  # one substitution, one deletion
    assert core.stdout == here(*args, cwd=tmp_path).stdout


def test_compare_and_report_work_in_the_core(core_venv, tmp_path):
    scps = [str(CORPUS / name) for name in ("ref.scp", "hyp_a.scp", "hyp_b.scp")]
    compare = ("compare", "--bootstrap", "200", *scps)
    core = run_in(core_venv["venv"], *compare, cwd=tmp_path)
    assert core.returncode == 0, core.stderr
    assert core.stdout == here(*compare, cwd=tmp_path).stdout
    page = tmp_path / "report.html"
    report = run_in(core_venv["venv"], "report", "-o", str(page), *scps[:2], cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    assert "spk1-utt0012" in page.read_text(encoding="utf-8")


def test_measure_works_in_the_core(core_venv, tmp_path):
    test_set = tmp_path / "decode" / "dev"
    test_set.mkdir(parents=True)
    shutil.copy(CORPUS / "ref.scp", test_set / "ref.scp")
    shutil.copy(CORPUS / "hyp_a.scp", test_set / "hyp.scp")
    config = tmp_path / "metrics.yaml"
    config.write_text(
        "inference_dir: decode\n"
        "metrics:\n"
        "  - metric: {_target_: lightscore.metrics.WER}\n"
        "    inputs: [ref, hyp]\n"
        "  - metric: {_target_: lightscore.metrics.WER, aligner: sclite}\n"
        "    inputs: [ref, hyp]\n"
        "    name: wer_sclite\n",
        encoding="utf-8",
    )
    core = run_in(core_venv["venv"], "measure", str(config), cwd=tmp_path)
    assert core.returncode == 0, core.stderr
    results = json.loads((tmp_path / "decode" / "metrics.json").read_text(encoding="utf-8"))
    for name, aligner in (("lightscore.metrics.error_rate.WER", "unit"), ("wer_sclite", "sclite")):
        scps = (str(test_set / "ref.scp"), str(test_set / "hyp.scp"))
        scored = here("score", "--aligner", aligner, *scps, cwd=tmp_path).stdout
        assert f"{results[name]['dev']['WER']:.2f}" in scored


@pytest.mark.parametrize(
    ("code", "what", "extra"),
    [
        ("from lightscore.metrics import BLEU; BLEU()", "BLEU", "mt"),
        ("from lightscore.metrics import DNSMOS; DNSMOS()", "DNSMOS", "quality"),
        ("from lightscore.metrics import CPWER; CPWER()", "CPWER", "meeting"),
        ("from lightscore.lightning import MetricCallback", "MetricCallback", "lightning"),
    ],
)
def test_a_family_without_its_extra_fails_with_one_line_naming_it(core_venv, code, what, extra):
    done = subprocess.run([str(core_venv["python"]), "-c", code], capture_output=True, text=True)
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    # The missing package named is the first of the extra's that is not installed (sacrebleu, soundfile, ...).
    assert re.fullmatch(
        rf"lightscore\._extras\.MissingExtraError: {what} needs \w+: pip install 'lightscore\[{extra}\]'", last
    )


def test_the_cli_prints_the_missing_extra_without_a_traceback(core_venv, tmp_path):
    scps = (str(CORPUS / "ref.scp"), str(CORPUS / "hyp_a.scp"))
    done = run_in(core_venv["venv"], "score", "--metric", "bleu", *scps, cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr == "lightscore: error: BLEU needs sacrebleu: pip install 'lightscore[mt]'\n"
