"""The meeting report (issue 24): ``measure()`` with ``report_html`` writes each session's speakers side by side.

Sessions are generated, written as STM files and scored by ``measure()``; the page's numbers are checked
against meeteval run here per session, its speakers against the files, and it is opened in headless Chromium.
"""

from __future__ import annotations

import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from ddp_scripts import meeting_lightning
from test_report_html import CHROMIUM, needs_chromium

from lightscore import measure
from lightscore.report.sessions import render_sessions
from lightscore.segments import Segment, write_session_scps

meeteval = pytest.importorskip("meeteval")
from meeteval.io import SegLST  # noqa: E402
from meeteval.wer.wer.cp import cp_word_error_rate  # noqa: E402
from meeteval.wer.wer.orc import orc_word_error_rate  # noqa: E402
from meeteval.wer.wer.time_constrained import tcp_word_error_rate  # noqa: E402

METRICS = {
    "cpWER": ("lightscore.metrics.meeting_wer.CPWER", {}),
    "orcWER": ("lightscore.metrics.meeting_wer.ORCWER", {}),
    "tcpWER": ("lightscore.metrics.meeting_wer.TCPWER", {"collar": 1.0}),
}


class SessionPage(HTMLParser):
    """What the tests read of a meeting page: numbers by id, the sessions, each session's streams and words."""

    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=True)
        self.values: dict[str, str] = {}
        self.sessions: list[dict] = []
        self.tags: list[tuple[str, dict]] = []
        self.feed(page)

    def handle_starttag(self, tag: str, attrs: list) -> None:
        a = dict(attrs)
        self.tags.append((tag, a))
        if "data-value" in a and "id" in a:
            self.values[a["id"]] = a["data-value"]
        if tag == "section" and "data-session" in a:
            self.sessions.append({"id": a["data-session"], "marked": int(a["data-marked-errors"]), "streams": []})
        if tag == "div" and "stream" in (a.get("class") or "").split():
            self.sessions[-1]["streams"].append((a["data-side"], a["data-speaker"]))


def seglst(segments: list[Segment]) -> SegLST:
    return SegLST([dict(session_id="s", speaker=s.speaker, start_time=s.start, end_time=s.end, words=s.words)
                   for s in segments])  # fmt: skip


def oracle(name: str, ref: list[Segment], hyp: list[Segment]):
    if name == "cpWER":
        return cp_word_error_rate(seglst(ref), seglst(hyp))
    if name == "orcWER":
        return orc_word_error_rate(seglst(ref), seglst(hyp))
    return tcp_word_error_rate(seglst(ref), seglst(hyp), collar=1.0)


@pytest.fixture(scope="module")
def scored(tmp_path_factory) -> tuple[Path, dict]:
    """``measure()`` of the three rates with ``report_html`` over the 11 sessions of the Lightning test."""
    root = tmp_path_factory.mktemp("meeting")
    sessions = meeting_lightning.corpus()
    for side, pick in (("ref", 0), ("hyp", 1)):
        lines = [f"{sid} 1 {s.speaker} {s.start!r} {s.end!r} {s.words}" for sid, p in sessions.items() for s in p[pick]]
        (root / f"{side}.stm").write_text("\n".join(lines) + "\n")
    write_session_scps(root / "ref.stm", root / "hyp.stm", root / "out" / "dev")
    entries = [
        {"metric": {"_target_": target, "report_html": True, **args}, "inputs": ["ref", "hyp"], "name": name}
        for name, (target, args) in METRICS.items()
    ]
    results = measure({"inference_dir": str(root / "out"), "metrics": entries})
    return root / "out" / "dev", results


@pytest.mark.parametrize("name", list(METRICS))
def test_page_numbers_equal_meeteval_per_session(scored, name) -> None:
    test_dir, results = scored
    page_text = (test_dir / f"{name.lower()}_report.html").read_text()
    page = SessionPage(page_text)
    corpus = meeting_lightning.corpus()
    assert [s["id"] for s in page.sessions] == sorted(corpus)
    assert float(page.values["rate"]) == results[name]["dev"][name]
    assert int(page.values["errors"]) == results[name]["dev"][f"{name}_errors"]
    assert int(page.values["sessions"]) == 11
    for k, shown in enumerate(page.sessions):
        ref, hyp = corpus[shown["id"]]
        er = oracle(name, ref, hyp)
        assert int(page.values[f"s{k}-errors"]) == er.errors
        assert int(page.values[f"s{k}-length"]) == er.length
        if er.length:
            assert float(page.values[f"s{k}-rate"]) == er.errors / er.length * 100
        if name != "tcpWER":  # the marks are a plain alignment: they miss tcpWER's collar
            assert shown["marked"] == er.errors
        ref_speakers = list(dict.fromkeys(s.speaker for s in sorted(ref, key=lambda s: s.start)))
        sides = {side: [spk for s, spk in shown["streams"] if s == side] for side in ("ref", "hyp")}
        assert sides["ref"] == ref_speakers
        assert sorted(sides["hyp"]) == sorted({s.speaker for s in hyp})
        if name != "orcWER":  # each hypothesis speaker right under the order of its assigned reference speaker
            partner = {r: h for r, h in er.assignment if r is not None and h is not None}
            assigned = [partner[r] for r in ref_speakers if r in partner]
            assert sides["hyp"][: len(assigned)] == assigned


def test_page_is_self_contained(scored) -> None:
    test_dir, _ = scored
    for name in METRICS:
        page = SessionPage((test_dir / f"{name.lower()}_report.html").read_text())
        tags = {tag for tag, _ in page.tags}
        assert "script" not in tags and "link" not in tags and "img" not in tags
        assert not [a for _, a in page.tags if "src" in a or str(a.get("href", "")).startswith("http")]
        policy = next(a["content"] for tag, a in page.tags if a.get("http-equiv") == "Content-Security-Policy")
        assert "default-src 'none'" in policy


def test_text_from_the_data_is_escaped() -> None:
    result = {"cpWER": 100.0, "cpWER_errors": 1, "cpWER_length": 1, "cpWER_sessions": 1}
    view = ("<s1>", {"errors": 1, "length": 1, "assignment": [["<b>", None]]}, [Segment("<b>", 0, 1, "</section>")], [])
    page = render_sessions([("sys", result, [view])], metric="cpWER")
    assert "<b>" not in page and "</section>x" not in page and "&lt;/section&gt;" in page
    assert SessionPage(page).sessions == [{"id": "<s1>", "marked": 1, "streams": [("ref", "<b>")]}]


@needs_chromium
def test_page_renders_in_chromium(scored, tmp_path) -> None:
    test_dir, results = scored
    command = [
        CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}",
        "--dump-dom", (test_dir / "cpwer_report.html").resolve().as_uri(),
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    dom = SessionPage(done.stdout)
    assert len(dom.sessions) == 11
    assert float(dom.values["rate"]) == results["cpWER"]["dev"]["cpWER"]
    assert all(s["streams"] for s in dom.sessions)
