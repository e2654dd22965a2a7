"""The HTML error report, opened in real headless Chromium: the numbers the page shows are the inputs.

Each test writes a report with `write_report`, lets Debian's ``chromium`` run its
script (``--dump-dom``) and reads the rendered DOM with the standard library's
HTML parser. Results are real: `WER` counts the pairs and `align` aligns them.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from lightscore.metrics import WER
from lightscore.report.html import encode_alignment, render_report, write_report
from lightscore.text.alignment import align

CHROMIUM = shutil.which("chromium")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="Debian chromium is not installed (apt-get install chromium): the report is not rendered"
)

REF = {
    "utt1": "the cat sat on the mat",
    "utt2": "a dog ran over the hill",
    "utt3": "green trees by the river",
    "utt4": "the sun rose slowly",
    "utt5": "speech model token",
}
HYP_A = {
    "utt1": "the cat sat on the mat",
    "utt2": "a dog ran the hills today",
    "utt3": "green tree by river",
    "utt4": "the son rose slowly",
    "utt5": "speech model token",
}
HYP_B = {**HYP_A, "utt2": "a dog ran over the hill", "utt4": "a son rows slowly"}


def system(name: str, ref: dict[str, str], hyp: dict[str, str]) -> tuple[str, dict, list]:
    """A report system as a user builds one: the WER result and the alignment of every utterance."""
    ids = list(ref)
    metric = WER()
    metric.update(ref=[ref[i] for i in ids], hyp=[hyp[i] for i in ids])
    return name, metric.compute(), [(i, align(ref[i].split(), hyp[i].split())) for i in ids]


class Dom(HTMLParser):
    """The parts of a rendered page the tests read: text by id, attributes, the drawn utterances."""

    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, dict[str, str | None]]] = []
        self.text_by_id: dict[str, str] = {}
        self.attrs_by_id: dict[str, dict[str, str | None]] = {}
        self.tags: list[str] = []
        self.html_attrs: dict[str, str | None] = {}
        self.title = ""
        self.articles: list[dict] = []
        self.feed(page)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        self.tags.append(tag)
        if tag == "html":
            self.html_attrs = attributes
        if "id" in attributes:
            self.attrs_by_id[attributes["id"]] = attributes
            self.text_by_id.setdefault(attributes["id"], "")
        if tag == "article":
            self.articles.append({**attributes, "text": "", "alignments": 0})
        if tag == "div" and "aln" in (attributes.get("class") or "").split():
            self.articles[-1]["alignments"] += 1
        if tag not in ("meta", "input", "br"):  # void elements never close
            self.stack.append((tag, attributes))

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_data(self, data: str) -> None:
        for tag, attributes in self.stack:
            if "id" in attributes:
                self.text_by_id[attributes["id"]] += data
            if tag == "title":
                self.title += data
        if any(tag == "article" for tag, _ in self.stack):
            self.articles[-1]["text"] += data

    def number(self, element_id: str) -> float:
        return float(self.text_by_id[element_id].replace(",", ""))


def render_in_chromium(page: Path, tmp_path: Path) -> Dom:
    """Open ``page`` in headless Chromium, let its script run, and parse the resulting DOM."""
    command = [
        CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        f"--user-data-dir={tmp_path / 'chromium-profile'}", "--virtual-time-budget=5000",
        "--dump-dom", page.resolve().as_uri(),
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    dom = Dom(done.stdout)
    assert dom.html_attrs.get("data-ready") == "1", "the report's script did not finish: " + done.stderr[-2000:]
    return dom


@needs_chromium
def test_shown_numbers_equal_the_wer_result(tmp_path: Path) -> None:
    name, result, utterances = system("A", REF, HYP_A)
    assert result["WER_utt_err"] == 60.0  # a percentage (sclite's S.Err), given to the report as it is
    result = {**result, "WER_ci_low": 10.5, "WER_ci_high": 41.25}
    write_report(tmp_path / "r.html", [(name, result, utterances)], title="one system")
    dom = render_in_chromium(tmp_path / "r.html", tmp_path)

    assert dom.text_by_id["rate-0"] == f"{result['WER']:.2f}"
    assert float(dom.attrs_by_id["rate-0"]["data-value"]) == result["WER"]
    for key in ("sub", "del", "ins", "hit", "ref_len"):
        assert dom.number(f"{key.replace('_', '-')}-0") == result[f"WER_{key}"], key
    assert (dom.number("ci-low-0"), dom.number("ci-high-0")) == (10.5, 41.25)
    errors = {utt_id: sum(mark != "C" for _, _, mark in pairs) for utt_id, pairs in utterances}
    assert dom.number("utts-0") == 5 and dom.number("utt-err-0") == 3  # utt1 and utt5 are correct
    assert dom.number("uer-0") == 60.0
    assert dom.number("utt-count") == dom.number("utt-shown") == 5
    # Every utterance drawn, the most errors first, each with the errors its alignment holds.
    shown = [(a["data-utt-id"], int(a["data-errors"])) for a in dom.articles]
    assert sorted(shown) == sorted(errors.items())
    assert [e for _, e in shown] == sorted(errors.values(), reverse=True)
    assert shown[0] == ("utt2", 3)  # "over" deleted, "hill" -> "hills", "today" inserted


@needs_chromium
def test_text_is_shown_as_text_and_runs_nothing(tmp_path: Path) -> None:
    attack = "<script>document.title='pwned'</script>"
    image = "<img/src=x/onerror=document.title='pwned'>"  # no space: one word, one token
    ref = {"utt</script><script>document.title='pwned'</script>": f"say {attack} and &amp; now"}
    hyp = {next(iter(ref)): f"say {image} and &amp; now"}
    name, result, utterances = system("A<b>", ref, hyp)
    title = "escaping <i>check</i> &amp;"
    write_report(
        tmp_path / "r.html",
        [(name, result, utterances)],
        title=title,
        details={"reference": attack},
        speakers=[{"speaker": image, "WER": 1.0}],
        comparison={"verdict": attack},
    )
    raw = (tmp_path / "r.html").read_text()
    assert raw.count("</script>") == 2  # the data block's and the code's: no token closed one
    assert " src=" not in raw and "href=" not in raw  # nothing to fetch

    dom = render_in_chromium(tmp_path / "r.html", tmp_path)
    assert dom.title == title  # the payloads set document.title: none of them ran
    assert dom.tags.count("script") == 2 and "img" not in dom.tags and "i" not in dom.tags
    (article,) = dom.articles
    assert article["data-utt-id"] == next(iter(ref))
    assert attack in article["text"] and image in article["text"] and "&amp;" in article["text"]
    assert attack in dom.text_by_id["cmp-verdict"]


@needs_chromium
def test_two_systems_show_differing_utterances_first(tmp_path: Path) -> None:
    systems = [system("A", REF, HYP_A), system("B", REF, HYP_B)]
    comparison = {"difference": 4.5, "p_values": {"sign": 0.5}}
    write_report(tmp_path / "r.html", systems, title="A vs B", comparison=comparison)
    dom = render_in_chromium(tmp_path / "r.html", tmp_path)

    for i, (_, result, _) in enumerate(systems):
        assert dom.text_by_id[f"rate-{i}"] == f"{result['WER']:.2f}"
    assert dom.number("cmp-difference") == 4.5 and dom.number("cmp-p-0") == 0.5
    order = [a["data-utt-id"] for a in dom.articles]
    assert len(order) == 5 and all(a["alignments"] == 2 for a in dom.articles)
    # utt2 (A 3 errors, B none) and utt4 (A 1, B 3) differ; the larger gap in errors comes first.
    assert order[:2] == ["utt2", "utt4"]
    assert [a["data-differs"] for a in dom.articles] == ["1", "1", "0", "0", "0"]
    assert dom.articles[0]["data-errors"] == "3,0"


@needs_chromium
def test_max_utterances_keeps_the_worst_and_the_whole_summary(tmp_path: Path) -> None:
    name, result, utterances = system("A", REF, HYP_A)
    write_report(tmp_path / "r.html", [(name, result, utterances)], max_utterances=2)
    dom = render_in_chromium(tmp_path / "r.html", tmp_path)
    assert dom.number("utt-count") == 2 and dom.number("utt-total") == 5
    assert sorted(a["data-utt-id"] for a in dom.articles) == ["utt2", "utt3"]  # 3 and 2 errors
    assert dom.number("utts-0") == 5 and dom.text_by_id["rate-0"] == f"{result['WER']:.2f}"


def test_data_block_is_compact_json_without_markup() -> None:
    pairs = align(["a", "</script>"], ["a", "<b>&"])
    page = render_report([("A", {"WER": 50.0, **_counts(1, 0, 0, 1, 2)}, [("u1", pairs)])])
    block = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', page, re.S).group(1)
    assert "<" not in block and ">" not in block and "&" not in block
    assert json.loads(block)["utts"] == [["u1", 0, ["a", ["</script>", "<b>&"]]]]


def test_bad_input_names_the_system_and_utterance() -> None:
    result = {"WER": 0.0, **_counts(0, 0, 0, 1, 1)}
    with pytest.raises(ValueError, match="'A' and 'B' differ at utterance 'u2'"):
        render_report([("A", result, [("u1", [("a", "a", "C")])]), ("B", result, [("u2", [("a", "a", "C")])])])
    with pytest.raises(ValueError, match="'A': utterance 'u1' appears twice"):
        render_report([("A", result, [("u1", []), ("u1", [])])])
    with pytest.raises(ValueError, match="'A': the result has no WER_hit"):
        no_hits = {"WER": 0.0, "WER_sub": 0, "WER_del": 0, "WER_ins": 0, "WER_ref_len": 1}
        render_report([("A", no_hits, [])], metric="WER")
    with pytest.raises(ValueError, match="utterance 'u9': pair 1"):
        encode_alignment("u9", [("a", "a", "C"), ("b", "c", "D")])
    with pytest.raises(ValueError, match="one or two systems, got 3"):
        render_report([("A", result, [])] * 3)


def _counts(sub: int, dele: int, ins: int, hit: int, ref_len: int) -> dict[str, int]:
    return {"WER_sub": sub, "WER_del": dele, "WER_ins": ins, "WER_hit": hit, "WER_ref_len": ref_len}


def test_tables_take_named_tuples_plain_tuples_and_a_ci_pair() -> None:
    from typing import NamedTuple

    class Speaker(NamedTuple):
        speaker: str
        rate: float

    result = {"WER": 0.0, **_counts(0, 0, 0, 1, 1)}
    page = render_report(
        [("A", result, [("u1", [("a", "a", "C")])]), ("B", result, [("u1", [("a", "a", "C")])])],
        speakers=[Speaker("spk1", 12.345)],
        top_errors={"Substitutions, A": [("the", "a", 7)], "Deletions, A": [("of", 3)]},
        comparison={"difference": -1.5, "ci": (-2.25, -0.75)},
    )
    assert "<th>speaker</th><th>rate</th>" in page and ">12.35</td>" in page
    assert "<th>ref</th><th>hyp</th><th>count</th>" in page and "<th>token</th><th>count</th>" in page
    assert 'id="cmp-ci-low" data-value="-2.25"' in page and 'id="cmp-ci-high" data-value="-0.75"' in page
    assert "difference (B \u2212 A)" in page


# -- rates by group (group_by) --------------------------------------------------------------------

LANG = {"utt1": "en", "utt2": "de", "utt3": "fr-CA", "utt4": "de", "utt5": "en"}


def grouped_wer(tmp_path: Path, ci: float | None) -> tuple[WER, dict, dict[str, Path]]:
    """WER by ``lang`` scored from SCP files on the runner's road, its artifacts (groups TSV) in ``tmp_path/out``."""
    data = {}
    for name, column in (("ref", REF), ("hyp", HYP_A), ("lang", LANG)):
        data[name] = tmp_path / f"{name}.scp"
        data[name].write_text("".join(f"{utt} {text}\n" for utt, text in column.items()))
    metric = WER(group_by="lang", groups=["en", "de", "fr-CA", "<none>"], ci=ci, bootstrap=200, reports=True)
    return metric, metric(data, "dev", tmp_path / "out"), data


@needs_chromium
def test_groups_table_shows_each_labels_rate_and_interval(tmp_path: Path) -> None:
    from lightscore.metrics.error_group_page import group_page_rows

    metric, result, _ = grouped_wer(tmp_path, ci=0.9)
    rows = group_page_rows(metric, result)
    write_report(tmp_path / "r.html", [system("A", REF, HYP_A)], groups=rows)
    dom = render_in_chromium(tmp_path / "r.html", tmp_path)
    for k, label in enumerate(["en", "de", "fr-CA"]):
        ids = [utt for utt, lang in LANG.items() if lang == label]
        alone = WER()
        alone.update(ref=[REF[i] for i in ids], hyp=[HYP_A[i] for i in ids])
        expected = alone.compute()
        assert dom.number(f"group-utts-{k}") == len(ids)
        assert dom.number(f"group-words-{k}") == expected["WER_ref_len"]
        assert float(dom.attrs_by_id[f"group-rate-{k}"]["data-value"]) == pytest.approx(expected["WER"])
        assert dom.text_by_id[f"group-rate-{k}"] == f"{expected['WER']:.2f}"
        key = f"WER_lang_{label.replace('-', '_')}"
        low, high = (float(dom.attrs_by_id[f"group-ci-{end}-{k}"]["data-value"]) for end in ("low", "high"))
        assert (low, high) == (result[f"{key}_ci_low"], result[f"{key}_ci_high"]) and low <= expected["WER"] <= high
    # "<none>" has no utterance: no rate and no interval, its label escaped as text.
    assert dom.number("group-utts-3") == 0 and "group-rate-3" not in dom.attrs_by_id
    assert "group-ci-low-3" not in dom.attrs_by_id
    page = (tmp_path / "r.html").read_text()
    none = '<tr data-group="lang" data-label="&lt;none&gt;"><td class="txt">lang</td><th scope="row">&lt;none&gt;'
    assert none in page
    head = "<th>group</th><th>label</th><th>utterances</th><th>words</th><th>WER %</th><th>interval</th>"
    assert f'<table id="groups" class="num"><thead><tr>{head}</tr></thead>' in page
    # The page's table and the groups TSV the reports write give the same labels, rates and tokens.
    tsv = (tmp_path / "out" / "dev" / "wer_groups.tsv").read_text().splitlines()[1:]
    assert [line.split("\t")[0] for line in tsv] == [row["label"] for row in rows]
    for line, row in zip(tsv, rows):
        _, rate, ref_len, *_ = line.split("\t")
        assert (float(rate) if rate else None, int(ref_len)) == (row["rate"], row["words"])


def test_groups_table_without_intervals_and_pages_without_groups(tmp_path: Path) -> None:
    from lightscore.metrics.error_group_page import group_page_rows

    metric, result, _ = grouped_wer(tmp_path, ci=None)
    page = render_report([system("A", REF, HYP_A)], groups=group_page_rows(metric, result))
    assert "<th>interval</th>" not in page and 'id="group-ci-low-0"' not in page
    assert re.search(r'<div class="tables">.*<section><h2>Groups</h2><table id="groups"', page)
    assert page.count("<tr data-group=") == 4
    plain = render_report([system("A", REF, HYP_A)])
    assert 'id="groups"' not in plain and "<h2>Groups</h2>" not in plain
    assert group_page_rows(WER(), {}) == []
