"""Translation's family: sacrebleu's tokenizers and the BLEU, chrF and TER statistics, exactly as sacrebleu 2.6.

Needs the ``mt`` extra (sacrebleu). Each name loads its module on first use.

>>> from lightscore.text.mt import bleu_segment_stats  # doctest: +SKIP
"""

from lightscore._lazy import lazy_exports

_EXPORTS = {
    "bleu_tokenizer": "lightscore.text.mt.tokenizers",
    "tercom_tokenizer": "lightscore.text.mt.tokenizers",
    "bleu_segment_stats": "lightscore.text.mt.bleu",
    "bleu_score": "lightscore.text.mt.bleu",
    "bleu_signature": "lightscore.text.mt.bleu",
    "chrf_segment_stats": "lightscore.text.mt.chrf",
    "chrf_score": "lightscore.text.mt.chrf",
    "chrf_signature": "lightscore.text.mt.chrf",
    "ter_segment_stats": "lightscore.text.mt.ter",
    "ter_score": "lightscore.text.mt.ter",
    "ter_signature": "lightscore.text.mt.ter",
    "sentence_latency": "lightscore.text.mt.simul_latency",  # pure Python: no extra
    "read_instance_log": "lightscore.text.mt.instance_log",
    "resegment": "lightscore.text.mt.resegment",  # numba (the mt extra), no sacrebleu
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)
