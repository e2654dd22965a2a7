"""Checks of BLEU, chrF and the translation edit rate against sacrebleu 2.6, shared by ``test_translation*.py``.

``check_bleu``, ``check_chrf`` and ``check_ter`` score the same inputs with lightscore and sacrebleu and
assert equal statistics, scores and signatures; ``text`` is the hypothesis strategy of segments.
Importable as ``sacrebleu_checks`` (pytest puts ``tests/`` on sys.path).
"""

from __future__ import annotations

import numpy as np
import sacrebleu
from hypothesis import strategies as st
from sacrebleu.metrics import BLEU as SBLEU
from sacrebleu.metrics import CHRF as SCHRF
from sacrebleu.metrics import TER as STER

from lightscore.core.batch import feed
from lightscore.metrics.translation import BLEU, ChrF, TranslationEditRate

assert sacrebleu.__version__.startswith("2.6"), sacrebleu.__version__

WORDS = "the a cat dog sat ran on over mat hill Über 東京 的 est-ce 3.5 1,000 $5 (hi) don't U.S. it's".split()
PUNCT = list(".,!?;:'\"()-&/") + ["&amp;", "&quot;", "<skipped>", " ", "  ", "\t"]

text = st.lists(st.one_of(st.sampled_from(WORDS), st.sampled_from(PUNCT), st.text(max_size=3)), max_size=12).map(
    "".join
)


def ours(metric, hyps, refs, ids=None):
    batch = {"hyp": hyps, "ref": refs[0], **{f"ref{i}": r for i, r in enumerate(refs[1:], 2)}}
    feed(metric, batch, ids or [f"u{i:05d}" for i in range(len(hyps))])
    return metric


def stat_rows(metric):
    return np.array([row[1:] for row in sorted(metric.segment_stats)])


def corpus_score(reference, hyps, refs):
    """sacrebleu's ``corpus_score`` (with ``n_bootstrap=1``) step by step, keeping the per-segment statistics.

    ``Metric.corpus_score`` checks its arguments, extracts the statistics and aggregates them; done here in
    the same three calls, the statistics come out too, instead of being extracted a second time (sacrebleu's
    chrF and TER take seconds on the large generated corpora).

    Returns:
        ``(statistics, score)``: the rows of ``_extract_corpus_statistics`` and the ``Score`` object.
    """
    reference._check_corpus_score_args(hyps, refs)
    statistics = reference._extract_corpus_statistics(hyps, refs)
    return statistics, reference._aggregate_and_compute(statistics)


def check_bleu(hyps, refs, **options):
    reference = SBLEU(**options)
    statistics, expected = corpus_score(reference, hyps, refs)
    m = ours(BLEU(references=len(refs), per_utterance=True, **options), hyps, refs)
    assert stat_rows(m).tolist() == statistics
    result = m.compute()
    assert result["BLEU"] == expected.score and result["BLEU_bp"] == expected.bp
    assert m.signature() == str(reference.get_signature())
    return m


def check_chrf(hyps, refs, **options):
    reference = SCHRF(**options)
    statistics, expected = corpus_score(reference, hyps, refs)
    m = ours(ChrF(references=len(refs), per_utterance=True, **options), hyps, refs)
    assert stat_rows(m).tolist() == statistics
    assert m.compute()["chrF"] == expected.score
    assert m.signature() == str(reference.get_signature())


def check_ter(hyps, refs, **options):
    reference = STER(**options)
    statistics, expected = corpus_score(reference, hyps, refs)
    m = ours(TranslationEditRate(references=len(refs), per_utterance=True, **options), hyps, refs)
    assert m.sacrebleu_rows() == statistics
    result = m.compute()
    assert f"{result['TransTER']:.2f}" == f"{expected.score:.2f}"
    if len(refs) != 3:  # with 3 references sacrebleu's running float sum of thirds may differ in the last bits
        assert result["TransTER"] == expected.score
    assert result["TransTER_edits"] == expected.num_edits
    assert m.signature() == str(reference.get_signature())
