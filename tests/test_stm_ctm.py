"""`read_stm` against the plain reading of sclite's stm format: every line split into fields, the transcript joined."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lightscore.text.stm_ctm import Segment, StmCtmError, read_stm


def plain_reading(text: str) -> list[Segment]:
    """Each line that is not blank or a comment: split at whitespace, labels ``<...>`` after the times."""
    segments = []
    for number, raw in enumerate(text.split("\n"), 1):
        fields = raw.split()
        if not fields or raw.lstrip().startswith(";;"):
            continue
        if len(fields) < 5:
            raise StmCtmError(f"line {number}")
        labelled = len(fields) > 5 and fields[5][:1] == "<" and fields[5][-1:] == ">"
        text = " ".join(fields[6:] if labelled else fields[5:])
        labels = fields[5] if labelled else ""
        try:
            begin, end = float(fields[3]), float(fields[4])
        except ValueError:
            raise StmCtmError(f"line {number}: not a number") from None
        segments.append(Segment(*fields[:3], begin, end, labels, text, number))
    return segments


gaps = st.sampled_from([" ", " ", " ", "  ", "\t", "\xa0", "\u3000"])
words = st.sampled_from(["a", "uh", "<o,f0,male>", "<x", "y>", "(um)", "é", ";;", "IGNORE_TIME_SEGMENT_IN_SCORING"])
stm_line = st.tuples(
    st.lists(words, max_size=5),
    st.sampled_from(["f1 A spk1 0.5 1.25", "f2 B s 3 4", "f1 A", ";; comment", ""]),
    gaps,
    st.sampled_from(["", " ", "\t"]),
).map(lambda p: p[3] + p[2].join(p[1].split(" ") + p[0]) + p[3] if p[1] else p[3])


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(stm_line, max_size=6))
def test_read_stm_equals_the_plain_reading(lines: list[str], tmp_path_factory: pytest.TempPathFactory) -> None:
    """Single-spaced files (split once per line) and any others (split at every space) read alike."""
    path = Path(tmp_path_factory.mktemp("stm")) / "ref.stm"
    text = "\n".join(lines) + "\n"
    path.write_text(text, encoding="utf-8")
    try:
        expected = plain_reading(text)
    except StmCtmError as error:
        with pytest.raises(StmCtmError, match="needs 5 fields" if "number" not in str(error) else "not a number"):
            read_stm(path)
        return
    assert read_stm(path) == expected
