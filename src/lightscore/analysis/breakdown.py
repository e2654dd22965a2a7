"""Where a system fails: per-speaker tables, most frequent errors and worst utterances, as plain rows.

Everything here reads per-utterance records or alignments and returns lists of
tuples (named, so ``pandas.DataFrame(rows)`` keeps the column names);
`lightscore.io.tsv.write_tsv`, the one TSV writer (importable from here too), saves any of them.

The record is `UttCounts`: one utterance's id, speaker and error counts, as an
aligner reports them (sclite's ``.pra`` ``Scores:`` line, or `utt_counts` of an
alignment). Speakers come from a Kaldi ``utt2spk`` file (`read_utt2spk`) or, as
sclite's ``-i rm`` does, from the utterance id before the first ``-`` (`speaker_of`).

>>> records = [UttCounts("spk1-u1", "spk1", 1, 0, 0, 10), UttCounts("spk2-u1", "spk2", 0, 1, 1, 5)]
>>> for row in speaker_table(records):
...     print(row)
SpeakerRow(speaker='spk2', utterances=1, words=5, sub=0, dele=1, ins=1, rate=40.0)
SpeakerRow(speaker='spk1', utterances=1, words=10, sub=1, dele=0, ins=0, rate=10.0)
"""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from operator import itemgetter
from typing import TYPE_CHECKING, NamedTuple

from lightscore.io.tsv import write_tsv
from lightscore.scp.files import ScpError, read_scp

if TYPE_CHECKING:
    from lightscore.text.alignment import Pair

__all__ = [
    "SpeakerRow",
    "UttCounts",
    "read_utt2spk",
    "speaker_of",
    "speaker_table",
    "top_errors",
    "utt_counts",
    "utterance_records",
    "worst_utterances",
    "write_tsv",  # re-exported: lightscore.io.tsv.write_tsv, the one TSV writer
]


class UttCounts(NamedTuple):
    """One utterance's errors: substitutions, deletions (``dele``: ``del`` is a keyword), insertions.

    ``ref_len`` is the number of reference tokens (words, characters or tokens alike).

    >>> r = UttCounts("spk1-u7", "spk1", sub=2, dele=1, ins=1, ref_len=8)
    >>> r.errors, r.rate
    (4, 50.0)
    """

    utt_id: str
    speaker: str
    sub: int
    dele: int
    ins: int
    ref_len: int

    @property
    def errors(self) -> int:
        """S + D + I."""
        return self.sub + self.dele + self.ins

    @property
    def rate(self) -> float:
        """Error rate in percent; an empty reference gives 0.0 without errors and inf with them."""
        return _rate(self.errors, self.ref_len)


class SpeakerRow(NamedTuple):
    """One line of `speaker_table`: a speaker's utterances, reference words, S, D, I and error rate (percent)."""

    speaker: str
    utterances: int
    words: int
    sub: int
    dele: int
    ins: int
    rate: float


def speaker_of(utt_id: str, utt2spk: Mapping[str, str] | None = None) -> str:
    """The speaker of an utterance: from ``utt2spk`` when given, else the id up to its first ``-`` (sclite ``-i rm``).

    Args:
        utt_id: the utterance id.
        utt2spk: utterance id -> speaker, e.g. from `read_utt2spk`.

    Returns:
        The speaker id (the whole ``utt_id`` when it has no ``-``).

    Raises:
        KeyError: ``utt_id`` is missing from ``utt2spk``.

    >>> speaker_of("spk10-utt0040"), speaker_of("utt7"), speaker_of("utt7", {"utt7": "alice"})
    ('spk10', 'utt7', 'alice')
    """
    if utt2spk is None:
        return utt_id.split("-", 1)[0]
    try:
        return utt2spk[utt_id]
    except KeyError:
        raise KeyError(f"utterance {utt_id!r} is not in utt2spk ({len(utt2spk)} utterances)") from None


def read_utt2spk(path: str | os.PathLike) -> dict[str, str]:
    """Read a Kaldi ``utt2spk`` file: ``utt_id speaker_id`` per line.

    Args:
        path: the file (UTF-8; blank lines skipped, CRLF accepted).

    Returns:
        utterance id -> speaker id, in file order.

    Raises:
        ScpError (a ValueError): a line without exactly two fields, an utterance listed twice,
            or bytes that are not UTF-8; the message names the file and the line.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "utt2spk"
    >>> _ = p.write_text("u1 alice\\nu2 bob\\n")
    >>> read_utt2spk(p)
    {'u1': 'alice', 'u2': 'bob'}
    """
    mapping: dict[str, str] = {}
    first_line: dict[str, int] = {}
    for line, utt_id, speaker in read_scp(path):
        if not speaker or len(speaker.split()) != 1:
            raise ScpError(f"{path}:{line}: expected 'utt_id speaker_id', got {len(speaker.split()) + 1} fields")
        if utt_id in mapping:
            raise ScpError(f"{path}:{line}: utterance {utt_id!r} listed again (first on line {first_line[utt_id]})")
        mapping[utt_id] = speaker
        first_line[utt_id] = line
    return mapping


def utt_counts(utt_id: str, pairs: Sequence[Pair], utt2spk: Mapping[str, str] | None = None) -> UttCounts:
    """The `UttCounts` of one alignment (``(ref, hyp, mark)`` pairs, marks C/S/D/I).

    >>> utt_counts("spk3-u1", [("a", "a", "C"), ("b", "x", "S"), (None, "y", "I"), ("c", None, "D")])
    UttCounts(utt_id='spk3-u1', speaker='spk3', sub=1, dele=1, ins=1, ref_len=3)
    """
    marks = Counter(pair[2] for pair in pairs)
    return UttCounts(utt_id, speaker_of(utt_id, utt2spk), marks["S"], marks["D"], marks["I"], len(pairs) - marks["I"])


def utterance_records(
    counts: Iterable[tuple[str, int, int, int, int]], utt2spk: str | os.PathLike | None = None
) -> list[UttCounts]:
    """`UttCounts` of ``(utt_id, S, D, I, ref_len)`` tuples, sorted by utterance id, with their speakers.

    Args:
        counts: One tuple per utterance, in any order (an error rate's merged ``utterance_counts``).
        utt2spk: A Kaldi ``utt2spk`` file; without one, the speaker is the id up to its first ``-``.

    Returns:
        The records, sorted by utterance id.

    Raises:
        ValueError: an utterance id that appears twice, or one missing from ``utt2spk``
            (a malformed ``utt2spk`` raises `lightscore.scp.files.ScpError`, a ValueError too).

    >>> utterance_records([("s2-u1", 0, 1, 0, 2), ("s1-u9", 0, 0, 0, 1)])  # doctest: +NORMALIZE_WHITESPACE
    [UttCounts(utt_id='s1-u9', speaker='s1', sub=0, dele=0, ins=0, ref_len=1),
     UttCounts(utt_id='s2-u1', speaker='s2', sub=0, dele=1, ins=0, ref_len=2)]
    >>> utterance_records([("u1", 0, 0, 0, 1), ("u1", 1, 0, 0, 1)])
    Traceback (most recent call last):
    ...
    ValueError: utterance 'u1' was scored twice
    """
    rows = sorted(counts, key=itemgetter(0))
    for before, after in zip(rows, rows[1:]):
        if before[0] == after[0]:
            raise ValueError(f"utterance {before[0]!r} was scored twice")
    speakers = None if utt2spk is None else read_utt2spk(utt2spk)
    try:
        return [UttCounts(utt_id, speaker_of(utt_id, speakers), s, d, i, n) for utt_id, s, d, i, n in rows]
    except KeyError as e:
        raise ValueError(f"utt2spk {utt2spk}: {e.args[0]}") from None


def speaker_table(records: Iterable[UttCounts]) -> list[SpeakerRow]:
    """Per speaker: utterances, reference words, S, D, I and error rate; worst speaker first.

    Args:
        records: one `UttCounts` per utterance.

    Returns:
        `SpeakerRow`s sorted by rate (descending), ties by speaker id.

    >>> speaker_table([UttCounts("a-1", "a", 1, 0, 0, 4), UttCounts("b-1", "b", 0, 0, 1, 4)])[0].speaker
    'a'
    """
    totals: dict[str, list[int]] = {}
    for r in records:
        t = totals.setdefault(r.speaker, [0, 0, 0, 0, 0])
        t[0] += 1
        t[1] += r.ref_len
        t[2] += r.sub
        t[3] += r.dele
        t[4] += r.ins
    rows = [SpeakerRow(spk, *t, _rate(t[2] + t[3] + t[4], t[1])) for spk, t in totals.items()]
    return sorted(rows, key=lambda row: (-row.rate, row.speaker))


def top_errors(
    alignments: Iterable[Sequence[Pair]] | Mapping[str, Sequence[Pair]], n: int | None = 10
) -> dict[str, list[tuple]]:
    """The most frequent substitutions, deletions and insertions, like sclite's ``dtl`` report.

    Args:
        alignments: per utterance, its ``(ref, hyp, mark)`` pairs (a mapping's values are used).
        n: how many of each to keep; None keeps all.

    Returns:
        ``{"substitutions": [(ref, hyp, count)], "deletions": [(ref, count)], "insertions": [(hyp, count)]}``,
        most frequent first, ties in token order (sclite's order).

    >>> al = [[("a", "b", "S"), ("c", None, "D")], [("a", "b", "S"), (None, "x", "I"), ("a", "e", "S")]]
    >>> top_errors(al, n=2)
    {'substitutions': [('a', 'b', 2), ('a', 'e', 1)], 'deletions': [('c', 1)], 'insertions': [('x', 1)]}
    """
    subs: Counter = Counter()
    dels: Counter = Counter()
    ins: Counter = Counter()
    for pairs in alignments.values() if isinstance(alignments, Mapping) else alignments:
        for ref, hyp, mark in pairs:
            if mark == "S":
                subs[ref, hyp] += 1
            elif mark == "D":
                dels[ref] += 1
            elif mark == "I":
                ins[hyp] += 1

    def ranked(counter: Counter) -> list[tuple]:
        return sorted(counter.items(), key=lambda item: (-item[1], item[0]))[:n]

    return {
        "substitutions": [(ref, hyp, count) for (ref, hyp), count in ranked(subs)],
        "deletions": ranked(dels),
        "insertions": ranked(ins),
    }


def worst_utterances(records: Iterable[UttCounts], n: int = 10) -> list[UttCounts]:
    """The ``n`` utterances with the most errors, then the highest rate, ties by id.

    >>> recs = [UttCounts("u2", "s", 1, 0, 0, 2), UttCounts("u1", "s", 1, 0, 0, 2), UttCounts("u3", "s", 0, 0, 1, 9)]
    >>> [r.utt_id for r in worst_utterances(recs, 2)]
    ['u1', 'u2']
    """
    return sorted(records, key=lambda r: (-r.errors, -r.rate, r.utt_id))[:n]


def _rate(errors: int, words: int) -> float:
    if words:
        return 100.0 * errors / words
    return math.inf if errors else 0.0
