"""Keyword and OOV counts of one utterance, on texterrors' alignment: B-WER/U-WER, recall/precision, OOV-WER/CER.

Every count is read off the aligned pairs of `lightscore.text.recognition.chardiff.align_words`:

- **WER** (texterrors' ``wer``): pairs whose words differ, over the reference words.
- **B-WER / U-WER** (Le et al. 2021, fbai-speech ``is21_deep_bias/score.py``, as icefall and NeMo's context
  biasing report them): a substitution or a deletion counts toward B-WER when its *reference* word is in the
  biasing list, an insertion when its *hypothesis* word is; the rest toward U-WER. B-WER's denominator is the
  reference words in the list, U-WER's the others. (score.py aligns with 3/3/4 weights; here the pairs are
  texterrors', so one least-cost path serves every count.)
- **Keywords** (texterrors ``--keywords-f``): ``keywords_count`` reference words in the list,
  ``keywords_output`` hypothesis words in it, ``keywords_predicted`` pairs of one keyword on both sides;
  recall = predicted / count, precision = predicted / output.
- **OOV-WER** (``--oov-list-f``): reference OOV words not paired with themselves, over the reference OOV words.
- **OOV-CER** (arXiv 2107.08091, as texterrors counts it): for each reference OOV word, the hypothesis text
  aligned to it is its paired word plus an inserted word just before it (for the first pair of the
  utterance: just after it instead), joined by a space; the errors are `weighted_edit_count` of the UTF-8
  bytes, over the OOV words' lengths in characters.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from rapidfuzz.distance import Levenshtein

from lightscore.io.text_files import strip_bom
from lightscore.text.recognition.chardiff import align_words

__all__ = [
    "KEYWORD_COUNTS",
    "WordLists",
    "keyword_counts",
    "oov_char_errors",
    "read_word_list",
    "weighted_edit_count",
]

KEYWORD_COUNTS = (
    "ref_words",
    "errors",
    "biased_ref",
    "biased_errors",
    "unbiased_ref",
    "unbiased_errors",
    "keywords_count",
    "keywords_output",
    "keywords_predicted",
    "oov_words",
    "oov_word_errors",
    "oov_char_errors",
    "oov_chars",
)
"""The integer counts of `keyword_counts`, in its order."""

_GAP = "<eps>"  # texterrors' empty token; OOV-CER's neighbour text is built with it, then it is removed


def read_word_list(path: str | os.PathLike, *, first_field: bool = False) -> frozenset[str]:
    """The words of a list file: one per line (blank lines skipped, a UTF-8 BOM ignored), as texterrors reads them.

    (`lightscore.text.normalize` reads its rule files alike, but importing it would bring sclite's case tables
    into this family, which the layer contracts refuse.)

    Args:
        path: The file.
        first_field: Take each line's first field and ignore the rest (texterrors reads OOV lists so: a
            vocabulary with counts works); else a line of more than one word is an error (its keyword files).

    Returns:
        The set of words.

    Raises:
        FileNotFoundError: no such file.
        ValueError: a line with several words, or bytes that are not UTF-8 (naming the file and the line).

    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "oov.txt"
    >>> _ = f.write_text("speedbird 3\\n\\nanna 1\\n")
    >>> sorted(read_word_list(f, first_field=True))
    ['anna', 'speedbird']
    >>> read_word_list(f)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: .../oov.txt:1: a keyword is one word, got 'speedbird 3'
    """
    path = Path(path)
    body = strip_bom(path.read_bytes())
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as e:
        line_no = body[: e.start].count(b"\n") + 1
        raise ValueError(f"{path}:{line_no}: not UTF-8 ({e.reason})") from None
    words = set()
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split()
        if len(fields) > 1 and not first_field:
            raise ValueError(f"{path}:{number}: a keyword is one word, got {line.strip()!r}")
        if fields:
            words.add(fields[0])
    return frozenset(words)


def weighted_edit_count(a: bytes, b: bytes) -> int:
    """The edits on texterrors' ``lev_distance_str`` path: insertions and deletions cost 3, substitutions 4.

    The path minimises the weighted cost; walking back from the end a diagonal step is taken first, then a
    deletion, then an insertion; the edits on it are counted. It can exceed the plain edit distance (five
    substitutions cost 20, three deletions and three insertions 18).

    >>> weighted_edit_count(b"kitten", b"sitting"), weighted_edit_count(b"", b"abc")
    (3, 3)
    >>> weighted_edit_count(b"abcdef", b"fabcde")  # plain Levenshtein: 2 as well
    2
    """
    n, m = len(a), len(b)
    if not n or not m:
        return n + m
    table = [[3 * j for j in range(m + 1)]]
    for i in range(1, n + 1):
        above = table[-1]
        row = [3 * i]
        for j in range(1, m + 1):
            row.append(min(above[j] + 3, row[j - 1] + 3, above[j - 1] + (0 if a[i - 1] == b[j - 1] else 4)))
        table.append(row)
    edits = 0
    i, j = n, m
    while i or j:
        if i and j and table[i - 1][j - 1] + (0 if a[i - 1] == b[j - 1] else 4) == table[i][j]:
            edits += a[i - 1] != b[j - 1]
            i, j = i - 1, j - 1
        elif i and (not j or table[i - 1][j] + 3 == table[i][j]):
            i, edits = i - 1, edits + 1
        else:
            j, edits = j - 1, edits + 1
    return edits


def oov_char_errors(pairs: Sequence[tuple[str | None, str | None]], oov: frozenset[str] | set[str]) -> tuple[int, int]:
    """``(character errors, characters)`` of the reference OOV words, as texterrors' ``get_oov_cer``.

    >>> oov_char_errors([("a", "a"), ("speedbird", "speed"), (None, "bird")], {"speedbird"})
    (4, 9)
    >>> oov_char_errors([(None, "speed"), ("speedbird", "bird")], {"speedbird"})  # the insertion before counts
    (1, 9)
    """
    errors = chars = 0
    for i, (ref, hyp) in enumerate(pairs):
        if ref not in oov:
            continue
        chars += len(ref)
        text = hyp if hyp is not None else _GAP
        if i == 0:
            if len(pairs) > 1 and pairs[1][0] is None:
                text += " " + pairs[1][1]
        elif pairs[i - 1][0] is None:
            text = pairs[i - 1][1] + " " + text
        # texterrors strips before it removes its gap token, so a space beside a deletion stays
        text = text.strip().replace(_GAP, "")
        errors += weighted_edit_count(ref.encode(), text.encode())
    return errors, chars


def keyword_counts(
    ref: Sequence[str],
    hyp: Sequence[str],
    keywords: frozenset[str] | set[str] | WordLists,
    oov: frozenset[str] | set[str] = frozenset(),
    chardiff: bool = False,
    hits: dict[str, list[int]] | None = None,
) -> tuple[int, ...]:
    """One utterance's `KEYWORD_COUNTS` on texterrors' alignment (see the module's definitions).

    Args:
        ref: Reference words.
        hyp: Hypothesis words.
        keywords: The keyword (biasing) list of this utterance.
        oov: The OOV list.
        chardiff: Character-aware alignment (texterrors ``--use-chardiff``).
        hits: When given, ``hits[keyword]`` gets ``[hits, misses, false alarms]`` added: a keyword paired with
            itself, a reference keyword not so paired, a hypothesis keyword not so paired.

    Returns:
        The counts, in the order of `KEYWORD_COUNTS`.

    >>> dict(zip(KEYWORD_COUNTS, keyword_counts("call anna now".split(), "call ana now anna".split(), {"anna"})))
    ... # doctest: +NORMALIZE_WHITESPACE
    {'ref_words': 3, 'errors': 2, 'biased_ref': 1, 'biased_errors': 2, 'unbiased_ref': 2, 'unbiased_errors': 0,
     'keywords_count': 1, 'keywords_output': 1, 'keywords_predicted': 0, 'oov_words': 0, 'oov_word_errors': 0,
     'oov_char_errors': 0, 'oov_chars': 0}
    """
    if not chardiff and keywords.isdisjoint(ref) and keywords.isdisjoint(hyp) and oov.isdisjoint(ref):
        # nothing to attribute: texterrors' unit-cost path has as many errors as the edit distance
        errors = Levenshtein.distance(ref, hyp)
        return (len(ref), errors, 0, 0, len(ref), errors, 0, 0, 0, 0, 0, 0, 0)
    pairs = align_words(ref, hyp, chardiff).pairs
    errors = biased_ref = biased_errors = kw_ref = kw_hyp = kw_hit = oov_words = oov_word_errors = 0
    for r, h in pairs:
        r_key, h_key = r in keywords, h in keywords
        kw_ref += r_key
        kw_hyp += h_key
        if r is not None and r in oov:
            oov_words += 1
            oov_word_errors += r != h
        if r == h:
            kw_hit += r_key
            biased_ref += r_key
            if r_key and hits is not None:
                hits.setdefault(r, [0, 0, 0])[0] += 1
            continue
        errors += 1
        if r is not None:
            biased_ref += r_key
            biased_errors += r_key
        else:
            biased_errors += h_key
        if hits is not None:
            if r_key:
                hits.setdefault(r, [0, 0, 0])[1] += 1
            if h_key:
                hits.setdefault(h, [0, 0, 0])[2] += 1
    oov_errors, oov_chars = oov_char_errors(pairs, oov) if oov else (0, 0)
    n_ref = len(ref)
    return (
        n_ref,
        errors,
        biased_ref,
        biased_errors,
        n_ref - biased_ref,
        errors - biased_errors,
        kw_ref,
        kw_hyp,
        kw_hit,
        oov_words,
        oov_word_errors,
        oov_errors,
        oov_chars,
    )


class WordLists:
    """Membership in either of two word sets without copying them: a file's long list and an utterance's own.

    Holds what `keyword_counts` asks of its ``keywords``: ``in`` and ``isdisjoint``.

    >>> listed = WordLists(frozenset({"paris"}), frozenset({"anna"}))
    >>> "anna" in listed, "bob" in listed, listed.isdisjoint(["call", "bob"]), listed.isdisjoint(["paris"])
    (True, False, True, False)
    """

    __slots__ = ("first", "second")

    def __init__(self, first: frozenset[str], second: frozenset[str]) -> None:
        self.first, self.second = first, second

    def __contains__(self, word: object) -> bool:
        return word in self.first or word in self.second

    def isdisjoint(self, words: Iterable[str]) -> bool:
        """True when no word of ``words`` is in either set."""
        words = list(words)
        return self.first.isdisjoint(words) and self.second.isdisjoint(words)
