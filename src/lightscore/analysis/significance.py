"""Is system B really better than A? The paired tests and their verdict, under their documented names.

This module gathers what lives in three files, so ``lightscore.analysis.significance.<name>``
keeps working:

- `bootstrap_ci`, `paired_bootstrap`: percentile bootstrap of the corpus error rate and of
  two systems' difference (`lightscore.analysis.bootstrap`);
- `mapsswe`: the Matched Pair Sentence Segment Word Error test, sc_stats ``MP``
  (`lightscore.analysis.mapsswe`);
- `mcnemar`, `sign_test`, `wilcoxon_test`: sc_stats ``MN``, ``SI``, ``WI``
  (`lightscore.analysis.sc_stats`);
- `verdict`, `significant`, `p_text`: the one wording of an outcome (`lightscore.analysis.verdict`).

>>> r = mcnemar([True, False, False, False, True], [True, True, True, True, True])
>>> r["a_only"], r["b_only"], r["p"]
(0, 3, 0.25)
>>> verdict(r)
'no significant difference (p = 0.250 >= 0.05)'
"""

from __future__ import annotations

from lightscore.analysis.bootstrap import bootstrap_ci, paired_bootstrap
from lightscore.analysis.mapsswe import mapsswe
from lightscore.analysis.sc_stats import mcnemar, sign_test, wilcoxon_test
from lightscore.analysis.verdict import p_text, significant, verdict

__all__ = [
    "bootstrap_ci",
    "mapsswe",
    "mcnemar",
    "p_text",
    "paired_bootstrap",
    "sign_test",
    "significant",
    "verdict",
    "wilcoxon_test",
]
