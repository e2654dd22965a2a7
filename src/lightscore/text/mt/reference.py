"""The translation family's textbook algorithms, one segment at a time, written to be read.

Each function computes exactly what a fast module computes for a whole batch, the way sacrebleu 2.6
computes it: the 13a tokenizer as sacrebleu's regular expressions, BLEU's n-gram counts and clipped
matches, chrF's statistics, and TER's shift search as tercom and sacrebleu do it. The fast modules
name their twin here in their docstrings; ``tests/test_mt_twins.py`` holds each pair equal on
generated input, and the sacrebleu tests hold both to sacrebleu. Where a fast path did not pay
enough to keep, the metric runs the function here (``benchmarks/results/fast_paths_mt.md``).

Tercom's search limits, written once, are here too: the fast TER modules read them from this file.

>>> tokenize_13a("It costs $3.50.")
['It', 'costs', '$', '3.50', '.']
>>> bleu_stats(["the", "cat", "sat"], [["the", "cat", "sat"]], max_order=2)
[3, 3, 3, 2, 3, 2]
>>> ter_edits(["a", "b", "c"], ["a", "c", "b"])
1
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from lightscore.text.mt.sacrebleu_api import rules_13a

__all__ = [
    "BEAM_WIDTH",
    "CHRF_EPSILON",
    "CHRF_PUNCTUATION",
    "MAX_SHIFT_CANDIDATES",
    "MAX_SHIFT_DISTANCE",
    "MAX_SHIFT_SIZE",
    "beam_edit_distance",
    "best_shift",
    "bleu_stats",
    "char_ngrams",
    "chrf_score",
    "chrf_stats",
    "chrf_words",
    "closest_ref_length",
    "match_triple",
    "ngrams",
    "perform_shift",
    "shift_candidates",
    "shifted_pairs",
    "ter_edits",
    "tercom_words",
    "tokenize_13a",
    "trace_to_alignment",
    "unescape_13a",
]

# -- BLEU's tokenizer -----------------------------------------------------------------------------------------------


def unescape_13a(text: str, join_lines: bool = True) -> str:
    """13a's replacements of a whole line: ``<skipped>`` dropped, line breaks joined, four XML entities unescaped.

    Args:
        text: One segment, or (``join_lines=False``) segments joined by newlines, none holding one itself.
        join_lines: Join a line broken after a hyphen, and make every other line break a space.

    Returns:
        The text its 13a rules then run on.

    >>> unescape_13a("a-\\nb\\nc &lt;d&gt; <skipped>"), unescape_13a("x\\ny", join_lines=False)
    ('ab c <d> ', 'x\\ny')
    """
    text = text.replace("<skipped>", "")
    if join_lines:
        text = text.replace("-\n", "").replace("\n", " ")
    if "&" in text:
        text = text.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    return text


def tokenize_13a(line: str) -> list[str]:
    """sacrebleu's ``Tokenizer13a`` (mteval-v13a's rules), then ``split``: the tokens BLEU counts.

    Args:
        line: One segment (BLEU lower-cases it if asked and strips it on the right first).

    Returns:
        Its tokens.

    >>> tokenize_13a("a-b &amp; c <skipped>(d)")
    ['a-b', '&', 'c', '(', 'd', ')']
    """
    line = f" {unescape_13a(line)} "
    for pattern, replacement in rules_13a():
        line = pattern.sub(replacement, line)
    return line.split()


# -- BLEU -----------------------------------------------------------------------------------------------------------


def ngrams(tokens: Sequence[Any], n: int) -> Counter:
    """How often each n-gram (a tuple of ``n`` tokens) occurs in ``tokens``.

    >>> ngrams("abab", 2)
    Counter({('a', 'b'): 2, ('b', 'a'): 1})
    """
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def closest_ref_length(hyp_len: int, ref_lens: Sequence[int]) -> int:
    """The reference length closest to ``hyp_len``; on a tie the shorter one (-1 without references).

    >>> closest_ref_length(5, [3, 7, 9]), closest_ref_length(5, [])
    (3, -1)
    """
    best_diff = -1
    best_len = -1
    for ref_len in ref_lens:
        diff = abs(hyp_len - ref_len)
        if best_diff == -1 or diff < best_diff or (diff == best_diff and ref_len < best_len):
            best_diff = diff
            best_len = ref_len
    return best_len


def bleu_stats(hyp: Sequence[Any], refs: Sequence[Sequence[Any]], max_order: int = 4) -> list[int]:
    """One segment's BLEU statistics: hypothesis length, closest reference length, clipped matches, totals.

    A hypothesis n-gram counts at most as often as it occurs in the one reference that has it most.

    Args:
        hyp: The hypothesis' tokens.
        refs: Each reference's tokens (only the references the segment has).
        max_order: The largest n-gram order N.

    Returns:
        ``[hyp_len, ref_len, matches 1..N, totals 1..N]``.

    >>> bleu_stats(["a", "a", "b"], [["a", "b"], ["b", "a"]], max_order=2)
    [3, 2, 2, 1, 3, 2]
    """
    matches = [0] * max_order
    totals = [0] * max_order
    for n in range(1, max_order + 1):
        most: Counter = Counter()
        for ref in refs:
            most |= ngrams(ref, n)  # Counter's | keeps the larger count of each n-gram
        for gram, count in ngrams(hyp, n).items():
            totals[n - 1] += count
            matches[n - 1] += min(count, most[gram])
    return [len(hyp), closest_ref_length(len(hyp), [len(ref) for ref in refs]), *matches, *totals]


# -- chrF -----------------------------------------------------------------------------------------------------------

CHRF_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
"""The marks chrF++ splits off a word's end (else its start): sacrebleu's ``CHRF._PUNCTS``."""
CHRF_EPSILON = 1e-16
"""What sacrebleu's chrF takes for a precision, recall or F-score it cannot divide out."""


def chrf_words(line: str) -> list[str]:
    """chrF++'s words: ``split``, then a punctuation mark at a word's end, else at its start, is a word of its own.

    >>> chrf_words("(hi) x, ,a b")
    ['(hi', ')', 'x', ',', ',', 'a', 'b']
    """
    words: list[str] = []
    for word in line.split():
        if len(word) > 1 and word[-1] in CHRF_PUNCTUATION:
            words += [word[:-1], word[-1]]
        elif len(word) > 1 and word[0] in CHRF_PUNCTUATION:
            words += [word[0], word[1:]]
        else:
            words.append(word)
    return words


def char_ngrams(line: str, n: int, whitespace: bool = False) -> Counter:
    """chrF's character n-grams of a segment (whitespace removed unless ``whitespace``).

    >>> sorted(char_ngrams("a b", 2).items())
    [(('a', 'b'), 1)]
    """
    return ngrams(line if whitespace else "".join(line.split()), n)


def match_triple(hyp: Counter, ref: Counter) -> list[int]:
    """chrF's ``[hypothesis n-grams, reference n-grams, matches]`` of one order against one reference.

    A reference without n-grams of this order counts no hypothesis n-grams either (sacrebleu's rule).

    >>> match_triple(Counter("aab"), Counter("ab")), match_triple(Counter("ab"), Counter())
    ([3, 2, 2], [0, 0, 0])
    """
    matched = sum(min(count, ref[gram]) for gram, count in hyp.items() if gram in ref)
    return [sum(hyp.values()) if ref else 0, sum(ref.values()), matched]


def chrf_score(
    stats: Sequence[Any], char_order: int = 6, word_order: int = 0, beta: int = 2, eps_smoothing: bool = False
) -> float:
    """chrF from statistics (one segment's or summed): sacrebleu's ``CHRF._compute_f_score``, step for step.

    Args:
        stats: hyp, ref, match per order; ints or sacrebleu's numpy sums.
        char_order, word_order, beta, eps_smoothing: sacrebleu's CHRF options.

    Returns:
        The score in [0, 100].

    >>> chrf_score([3, 3, 3], char_order=1)
    100.0
    """
    factor = beta**2
    score = 0.0
    avg_prec = 0.0
    avg_rec = 0.0
    effective = 0
    order = char_order + word_order
    for i in range(order):
        n_hyp, n_ref, n_match = stats[3 * i : 3 * i + 3]
        prec = n_match / n_hyp if n_hyp > 0 else CHRF_EPSILON
        rec = n_match / n_ref if n_ref > 0 else CHRF_EPSILON
        denom = factor * prec + rec
        score += ((1 + factor) * prec * rec / denom) if denom > 0 else CHRF_EPSILON
        if n_hyp > 0 and n_ref > 0:
            avg_prec += prec
            avg_rec += rec
            effective += 1
    if eps_smoothing:
        return 100 * score / order
    if effective == 0:
        avg_prec = avg_rec = 0.0
    else:
        avg_prec /= effective
        avg_rec /= effective
    if avg_prec + avg_rec:
        score = (1 + factor) * avg_prec * avg_rec
        score /= (factor * avg_prec) + avg_rec
        return 100 * score
    return 0.0


def chrf_stats(
    hyp: str,
    refs: Sequence[str],
    char_order: int = 6,
    word_order: int = 0,
    beta: int = 2,
    whitespace: bool = False,
    eps_smoothing: bool = False,
) -> list[int]:
    """One segment's chrF statistics, taken from the reference with the best sentence chrF (the first on a tie).

    Args:
        hyp: The hypothesis (lower-cased already if asked).
        refs: The references the segment has.
        char_order, word_order, beta, whitespace, eps_smoothing: sacrebleu's CHRF options.

    Returns:
        ``[hyp, ref, match]`` per character order 1..char_order, then per word order 1..word_order.

    >>> chrf_stats("a cat", ["the cat"], char_order=2)
    [4, 6, 3, 3, 5, 2]
    """

    def orders(line: str) -> list[Counter]:
        chars = [char_ngrams(line, n, whitespace) for n in range(1, char_order + 1)]
        return chars + [ngrams(chrf_words(line), n) for n in range(1, word_order + 1)]

    hyp_orders = orders(hyp)
    best = []
    best_score = -1.0
    for ref in refs:
        stats = [value for h, r in zip(hyp_orders, orders(ref)) for value in match_triple(h, r)]
        score = chrf_score(stats, char_order, word_order, beta, eps_smoothing)
        if score > best_score:
            best = stats
            best_score = score
    return best


# -- TER: tercom's shifting edit distance, as sacrebleu's lib_ter -----------------------------------------------------

BEAM_WIDTH = 25
"""Half width of the band of cells around the (pseudo) diagonal that the edit distance explores."""
MAX_SHIFT_SIZE = 10
"""Longest block of words one shift moves."""
MAX_SHIFT_DISTANCE = 50
"""Farthest a block may start from the reference position it matches."""
MAX_SHIFT_CANDIDATES = 1000
"""Shift candidates scored per segment before the search stops (sacrebleu's own limit)."""
INFINITY = int(1e16)
"""A cell the band leaves out."""


def tercom_words(line: str, tokenizer: Callable[[str], str], times: int = 1) -> list[str]:
    """A segment's words as sacrebleu's TER reads them: ``tokenizer(line.rstrip()).split()``, tokenized ``times`` times.

    sacrebleu 2.6 tokenizes a reference twice (once when it caches the references, once when it takes
    their words): with ``normalized`` "it's." has 3 words, not 2.

    >>> tercom_words("A  b ", str.lower, times=2)
    ['a', 'b']
    """
    for _ in range(times):
        line = tokenizer(line.rstrip())
    return line.split()


def beam_edit_distance(hyp: Sequence[Any], ref: Sequence[Any]) -> tuple[int, str]:
    """The Levenshtein distance inside tercom's band, and its trace (sacrebleu's ``BeamEditDistance(ref)(hyp)``).

    Row i (hypothesis word i) only explores the columns within the beam of its pseudo-diagonal
    ``floor(i * len(ref) / len(hyp))``; the last row reaches the last column. A cell keeps the
    first cheapest of: match or substitution, deletion, insertion.

    Args:
        hyp: Hypothesis words.
        ref: Reference words.

    Returns:
        ``(distance, trace)``: the trace has one letter per operation, first operation first:
        ``" "`` match, ``"s"`` substitution, ``"d"`` deletion (a hypothesis word), ``"i"`` insertion.

    >>> beam_edit_distance([1, 2, 3], [1, 3])
    (1, ' d ')
    """
    n_h = len(hyp)
    n_r = len(ref)
    dist = [[(j, "i") for j in range(n_r + 1)]] + [[(INFINITY, "x")] * (n_r + 1) for _ in range(n_h)]
    ratio = n_r / n_h if n_h else 1
    beam = math.ceil(ratio / 2 + BEAM_WIDTH) if BEAM_WIDTH < ratio / 2 else BEAM_WIDTH
    for i in range(1, n_h + 1):
        diagonal = math.floor(i * ratio)
        last = n_r + 1 if i == n_h else min(n_r + 1, diagonal + beam)
        for j in range(max(0, diagonal - beam), last):
            if j == 0:
                dist[i][j] = (dist[i - 1][j][0] + 1, "d")
                continue
            differ = hyp[i - 1] != ref[j - 1]
            cell = dist[i][j]
            for cost, op in (
                (dist[i - 1][j - 1][0] + differ, "s" if differ else " "),
                (dist[i - 1][j][0] + 1, "d"),
                (dist[i][j - 1][0] + 1, "i"),
            ):
                if cell[0] > cost:
                    cell = (cost, op)
            dist[i][j] = cell
    trace = []
    i = n_h
    j = n_r
    while i > 0 or j > 0:
        op = dist[i][j][1]
        trace.append(op)
        i -= op != "i"
        j -= op != "d"
    return dist[n_h][n_r][0], "".join(reversed(trace))


def trace_to_alignment(trace: str) -> tuple[dict[int, int], list[int], list[int]]:
    """The alignment a trace describes (read as rewriting the reference into the hypothesis).

    Args:
        trace: Operations as `beam_edit_distance` gives them, insertions and deletions swapped.

    Returns:
        ``(align, ref_err, hyp_err)``: the hypothesis position of each reference position (the
        last one before it for a deleted word), and 0/1 error flags per reference and hypothesis word.

    >>> trace_to_alignment(" i s")
    ({0: 0, 1: 2, 2: 3}, [0, 0, 1], [0, 1, 0, 1])
    """
    pos_hyp = -1
    pos_ref = -1
    align: dict[int, int] = {}
    ref_err: list[int] = []
    hyp_err: list[int] = []
    for op in trace:
        if op in " s":
            pos_hyp += 1
            pos_ref += 1
            align[pos_ref] = pos_hyp
            hyp_err.append(int(op == "s"))
            ref_err.append(int(op == "s"))
        elif op == "i":
            pos_hyp += 1
            hyp_err.append(1)
        elif op == "d":
            pos_ref += 1
            align[pos_ref] = pos_hyp
            ref_err.append(1)
        else:
            raise ValueError(f"unknown edit operation {op!r} in a TER trace")
    return align, ref_err, hyp_err


def perform_shift(words: Sequence[Any], start: int, length: int, target: int) -> list[Any]:
    """``words`` with the block ``words[start : start + length]`` moved to before position ``target``.

    >>> perform_shift("abcde", 3, 2, 0), perform_shift("abcde", 0, 2, 4), perform_shift("abcde", 0, 1, 1)
    (['d', 'e', 'a', 'b', 'c'], ['c', 'd', 'a', 'b', 'e'], ['b', 'a', 'c', 'd', 'e'])
    """
    words = list(words)
    block = words[start : start + length]
    if target < start:
        return words[:target] + block + words[target:start] + words[start + length :]
    if target > start + length:
        return words[:start] + words[start + length : target] + block + words[target:]
    # a target inside the block's own span counts from after the block (sacrebleu's third case)
    return words[:start] + words[start + length : length + target] + block + words[length + target :]


def shifted_pairs(hyp: Sequence[Any], ref: Sequence[Any]) -> Iterator[tuple[int, int, int]]:
    """Every ``(start_h, start_r, length)`` where ``length`` words of ``hyp`` and ``ref`` agree, in tercom's order.

    Blocks are at most `MAX_SHIFT_SIZE` words, starting at most `MAX_SHIFT_DISTANCE` apart.

    >>> list(shifted_pairs("abc", "bcx"))
    [(1, 0, 1), (1, 0, 2), (2, 1, 1)]
    """
    for start_h in range(len(hyp)):
        for start_r in range(len(ref)):
            if abs(start_r - start_h) > MAX_SHIFT_DISTANCE:
                continue
            length = 0
            while hyp[start_h + length] == ref[start_r + length] and length < MAX_SHIFT_SIZE:
                length += 1
                yield start_h, start_r, length
                if len(hyp) == start_h + length or len(ref) == start_r + length:
                    break


def shift_candidates(
    hyp: Sequence[Any], trace: str, pairs: Iterable[tuple[int, int, int]], checked: int
) -> tuple[list[tuple[int, int, int, list[Any]]], int]:
    """sacrebleu's ``_shift`` up to scoring: every shift it would try, in its order, filtered as it filters.

    A block is worth moving only where it is wrong in the hypothesis and its reference words are
    wrong too; it moves next to the hypothesis word aligned with the reference word before it (or
    the one before that...), never inside its own span, and a target already tried is skipped. The
    search stops after the block that brings the candidates to `MAX_SHIFT_CANDIDATES`. The plain
    `best_shift` and the batched search of `lightscore.text.mt.ter_beam` both list their candidates
    here: they differ in how the blocks are found (``pairs``) and how candidates are scored, not in
    which candidates there are.

    Args:
        hyp: The hypothesis words now.
        trace: The edit operations of ``hyp`` against the reference, as `beam_edit_distance` gives them.
        pairs: The blocks ``(start_h, start_r, length)`` whose words agree, in tercom's order
            (`shifted_pairs`, or a fast equal of it).
        checked: Candidates listed so far in this segment (the budget spans its whole search).

    Returns:
        ``(candidates, candidates listed so far)``, each candidate ``(length, start_h, target, shifted hypothesis)``.

    >>> hyp, ref = ["b", "a"], ["a", "b"]
    >>> shift_candidates(hyp, beam_edit_distance(hyp, ref)[1], shifted_pairs(hyp, ref), 0)
    ([(1, 0, 1, ['a', 'b']), (1, 0, 2, ['a', 'b']), (1, 1, 0, ['a', 'b']), (1, 1, 1, ['b', 'a'])], 4)
    """
    # sacrebleu reads the trace as rewriting the reference into the hypothesis: insertions and deletions swap
    align, ref_err, hyp_err = trace_to_alignment(trace.translate(str.maketrans("id", "di")))
    candidates = []
    for start_h, start_r, length in pairs:
        if not any(hyp_err[start_h : start_h + length]) or not any(ref_err[start_r : start_r + length]):
            continue
        if start_h <= align[start_r] < start_h + length:
            continue  # no shift inside its own block
        previous = -1
        for offset in range(-1, length):
            if start_r + offset == -1:
                target = 0
            elif start_r + offset in align:
                target = align[start_r + offset] + 1
            else:
                break
            if target == previous:
                continue
            previous = target
            candidates.append((length, start_h, target, perform_shift(hyp, start_h, length, target)))
            checked += 1
        if checked >= MAX_SHIFT_CANDIDATES:
            break
    return candidates, checked


def best_shift(hyp: Sequence[Any], ref: Sequence[Any], checked: int) -> tuple[int, list[Any], int]:
    """One step of tercom's search: the shift that lowers the edit distance most (sacrebleu's ``_shift``).

    The candidates are `shift_candidates`'. The best one has the largest gain, then the longest
    block, the earliest start, the earliest target.

    Args:
        hyp: The hypothesis words now.
        ref: The reference words.
        checked: Candidates scored so far in this segment.

    Returns:
        ``(gain, shifted hypothesis, candidates scored so far)``; a gain of 0 and ``hyp`` when there is none.

    >>> best_shift(["b", "a"], ["a", "b"], 0)
    (2, ['a', 'b'], 4)
    """
    score, trace = beam_edit_distance(hyp, ref)
    candidates, checked = shift_candidates(hyp, trace, shifted_pairs(hyp, ref), checked)
    best = None
    for length, start_h, target, shifted in candidates:
        candidate = (score - beam_edit_distance(shifted, ref)[0], length, -start_h, -target, shifted)
        if best is None or candidate > best:
            best = candidate
    if best is None:
        return 0, list(hyp), checked
    return best[0], best[4], checked


def ter_edits(hyp: Sequence[Any], ref: Sequence[Any]) -> int:
    """Tercom's edits of one pair: the shifts made while a shift lowers the distance, plus the final distance.

    sacrebleu's ``translation_edit_rate(hyp, ref)[0]`` (its cache of matrix rows saves time, no number).

    >>> ter_edits(["x"], []), ter_edits([], ["a", "b"]), ter_edits(list("bac"), list("abc"))
    (1, 2, 1)
    """
    if not ref:
        return len(hyp)
    shifts = 0
    words = list(hyp)
    checked = 0
    while True:
        gain, shifted, checked = best_shift(words, ref, checked)
        if checked >= MAX_SHIFT_CANDIDATES or gain <= 0:
            break
        shifts += 1
        words = shifted
    return shifts + beam_edit_distance(words, ref)[0]
