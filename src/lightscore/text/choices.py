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

__all__ = ["CASES", "ERROR_RATES", "MEETING_METRICS", "NORMALIZERS", "TRANSLATION_METRICS"]

CASES = ("sensitive", "fold", *CASE_PROFILES)
"""``sensitive``; ``fold`` (``str.lower``: every cased letter); ``sclite`` (A-Z only, sclite's default and
``-e utf-8``); ``sclite_<localization>`` (``-e utf-8 babel_turkish``...: `lightscore.text.sclite.case`)."""
NORMALIZERS = ("none", "whisper_english", "whisper_basic")
ERROR_RATES = ("wer", "cer", "ter", "sclite_cer", "mer")
"""lightscore.metrics.WER, CER, TER, SCLiteCER (sclite -c) and MixedER, by the names the command line takes."""
TRANSLATION_METRICS = ("bleu", "chrf", "chrf++", "transter")  # BLEU, ChrF (word_order=2), TranslationEditRate
MEETING_METRICS = ("cpwer", "orcwer", "tcpwer", "der", "jer")  # lightscore.metrics.CPWER ... JER, on session files
