"""Public import paths never vanish (issue 37): every face's names, every moved path, every import the docs show.

Each check runs in a fresh interpreter: this test process has long imported the modules, and a module
already in ``sys.modules`` neither warns again nor shows a broken import.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from lightscore._moved import MOVED

ROOT = Path(__file__).resolve().parents[1]
# The package faces: each names its public API in __all__, several of them loaded lazily.
FACES = (
    "lightscore",
    "lightscore.metrics",
    "lightscore.scp",
    "lightscore.segments",
    "lightscore.offline",
    "lightscore.cli",
    "lightscore.lightning",
    "lightscore.text.sclite",
    "lightscore.text.hubscr",
    "lightscore.text.mt",
    "lightscore.text.meeting",
)
DOC_IMPORT = re.compile(r"from (lightscore[\w.]*) import (\w+(?:, \w+)*)")


def run_python(code: str) -> dict:
    """Run ``code`` in a fresh interpreter; its last printed line is JSON."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def doc_imports() -> list[str]:
    """Every ``from lightscore… import …`` line in README.md and docs/*.md, as a statement."""
    found = set()
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for module, names in DOC_IMPORT.findall(page.read_text(encoding="utf-8")):
            found.add(f"from {module} import {names}")
    return sorted(found)


@pytest.mark.parametrize("face", FACES)
def test_every_name_a_face_offers_imports_and_is_listed(face):
    result = run_python(f"""
        import importlib, json
        face = importlib.import_module({face!r})
        missing = [name for name in face.__all__ if getattr(face, name, None) is None]
        unlisted = sorted(set(face.__all__) - set(dir(face)))
        print(json.dumps({{"missing": missing, "unlisted": unlisted, "count": len(face.__all__)}}))
    """)
    assert result["count"] > 0
    assert result["missing"] == []
    assert result["unlisted"] == []


def test_every_moved_path_imports_as_its_new_module_with_a_warning():
    result = run_python(f"""
        import importlib, json, sys, warnings
        import lightscore
        report = {{}}
        for old, new in {MOVED!r}.items():
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                module = importlib.import_module(old)
            warned = [str(w.message) for w in caught if w.category is DeprecationWarning]
            report[old] = [module is importlib.import_module(new), module.__name__, warned]
        print(json.dumps(report))
    """)
    for old, new in MOVED.items():
        same, name, warned = result[old]
        assert same and name == new, old
        assert any(new in message for message in warned), (old, warned)


def test_a_moved_path_keeps_the_function_users_call():
    # The one that raised ModuleNotFoundError before issue 37, documented since the callback landed.
    result = run_python("""
        import json, warnings
        warnings.simplefilter("ignore")
        from lightscore.distributed import gather_and_merge
        from lightscore.report_html import write_report
        from lightscore.metric import merged_result
        from lightscore.text.glm import read_glm
        print(json.dumps([f.__module__ for f in (gather_and_merge, write_report, merged_result, read_glm)]))
    """)
    assert result == [
        "lightscore.core.distributed",
        "lightscore.report.html",
        "lightscore.core.merge",
        "lightscore.text.hubscr.glm",
    ]


def test_every_import_the_docs_show_runs_without_a_deprecation():
    lines = doc_imports()
    assert len(lines) > 15  # the check reads the docs at all
    result = run_python(f"""
        import json, warnings
        warnings.simplefilter("error", DeprecationWarning)
        failed = {{}}
        for line in {lines!r}:
            try:
                exec(line, {{}})
            except Exception as e:
                failed[line] = f"{{type(e).__name__}}: {{e}}"
        print(json.dumps(failed))
    """)
    assert result == {}


def test_dir_of_metrics_lists_every_family():
    result = run_python("""
        import json, lightscore.metrics
        print(json.dumps(dir(lightscore.metrics)))
    """)
    for name in (
        "WER",
        "TER",
        "BLEU",
        "ChrF",
        "TranslationEditRate",
        "CPWER",
        "ORCWER",
        "TCPWER",
        "DER",
        "JER",
        "DNSMOS",
        "PLCMOS",
        "Intelligibility",
        "Separation",
        "SignalMetrics",
        "SpeakerSimilarity",
        "RTFx",
    ):
        assert name in result
