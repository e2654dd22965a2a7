"""Folded into `lightscore.metrics.error_rate_base.ErrorRate` (issue 37): an old path that keeps importing.

The text pipeline (normalizer, case folding, tokenizer, aligner) was a mixin of `ErrorRate`,
``TextPipeline``; its methods (``tokenize``, ``tokens``, ``align_tokens``, ``align``, ``row_sample``)
are now the class's own, so ``ErrorRate`` reads whole. ``TextPipeline`` still imports from here as
`ErrorRate` itself (every object that was a ``TextPipeline`` is one), with a DeprecationWarning.

>>> import warnings
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     from lightscore.metrics.error_rate_text import TextPipeline
>>> TextPipeline.__name__, caught[0].category.__name__
('ErrorRate', 'DeprecationWarning')
"""

from lightscore._moved_names import moved_names

__all__ = ["TextPipeline"]  # noqa: F822 (offered by __getattr__ below, with its warning)

__getattr__ = moved_names(globals(), {"TextPipeline": "lightscore.metrics.error_rate_base.ErrorRate"})
