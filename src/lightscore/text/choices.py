"""The names an error rate's options take, in a light module (no numpy), so ``lightscore --help`` reads them.

Each name list lives here once: `lightscore.metrics.error_rate_options` checks ``case``
against `CASES`, `lightscore.text.normalize` builds the normalizers of `NORMALIZERS`,
`lightscore.offline.compare.metric_by_name` builds the rates of `ERROR_RATES`, and the
command line offers them as choices. The aligners' names are
`lightscore.text.aligners.ALIGNERS`, beside their registry (as light).

>>> CASES[:3], NORMALIZERS[0], ERROR_RATES
(('sensitive', 'fold', 'sclite'), 'none', ('wer', 'cer', 'ter', 'sclite_cer', 'mer'))
"""

from lightscore.text.sclite.case import CASE_PROFILES

__all__ = [
    "CASES",
    "ERROR_RATES",
    "LATENCY_METRICS",
    "MEETING_METRICS",
    "NORMALIZERS",
    "PNC_TIMING_METRICS",
    "RECOGNITION_PRACTICE",
    "TRANSLATION_METRICS",
]

CASES = ("sensitive", "fold", *CASE_PROFILES)
"""``sensitive``; ``fold`` (``str.lower``: every cased letter); ``sclite`` (A-Z only, sclite's default and
``-e utf-8``); ``sclite_<localization>`` (``-e utf-8 babel_turkish``...: `lightscore.text.sclite.case`)."""
NORMALIZERS = ("none", "whisper_english", "whisper_basic")
ERROR_RATES = ("wer", "cer", "ter", "sclite_cer", "mer")
"""lightscore.metrics.WER, CER, TER, SCLiteCER (sclite -c) and MixedER, by the names the command line takes."""
TRANSLATION_METRICS = ("bleu", "chrf", "chrf++", "transter")  # BLEU, ChrF (word_order=2), TranslationEditRate
MEETING_METRICS = (
    "cpwer",
    "orcwer",
    "tcpwer",
    "der",
    "jer",
    "greedy_orcwer",
    "tcorcwer",
    "greedy_tcorcwer",
    "dicpwer",
    "ditcpwer",
    "mimower",
    "purity_coverage",
)
"""lightscore.metrics.CPWER ... JER, GreedyORCWER, TCORCWER, GreedyTCORCWER, DICPWER, DITCPWER, MIMOWER and
PurityCoverage, on session files (docs/meetings.md)."""
RECOGNITION_PRACTICE = ("keywords", "oracle_wer")
"""lightscore.metrics.KeywordErrorRate (B-WER/U-WER, keyword recall/precision, OOV-WER/CER) and OracleWER (n-best)."""
PNC_TIMING_METRICS = ("per", "case_er", "pnc_wer", "word_timing")
"""PunctuationErrorRate, CaseErrorRate, PnCWER (punctuation and case kept) and WordTiming (ctm times)."""
LATENCY_METRICS = ("simul_latency",)
"""lightscore.metrics.SimulLatency (AL, LAAL, DAL, ATD as SimulEval) from SimulEval's instance logs."""
