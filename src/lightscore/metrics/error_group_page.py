"""An error rate's rates by group (``group_by``) as the HTML report page shows them.

`group_page_rows` reads the merged state (each label's utterances and reference tokens, its
"sum" states) and the result (each label's rate and interval), so the page's table says
what ``<name>_groups.tsv`` says, plus the utterances of each label. The page itself is
`lightscore.report.page.groups_section`, reached through ``BaseMetric.write_page(...,
groups=rows)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lightscore.metrics.error_rate_groups import output_label

__all__ = ["group_page_rows"]


def group_page_rows(metric: Any, result: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per label of ``metric.group_by``: the group, the label, utterances, words, rate and interval.

    Args:
        metric: An error rate (`lightscore.metrics.error_rate_base.ErrorRate`) holding the merged state.
        result: Its ``compute()`` result.

    Returns:
        Rows for `lightscore.report.page.groups_section` (``rate`` None for a label with no reference
        token, ``ci`` None without an interval); [] without ``group_by``.

    >>> from lightscore.metrics import WER
    >>> m = WER(group_by="lang", groups=["en", "de", "fr"])
    >>> m.update(ref=["a b", "c d", "e"], hyp=["a b", "c", "e"], lang=["en", "de", "de"])
    >>> [(r["label"], r["utterances"], r["words"], r["rate"]) for r in group_page_rows(m, m.compute())]
    [('en', 1, 2, 0.0), ('de', 2, 3, 33.33333333333333), ('fr', 0, 0, None)]
    """
    if metric.group_by is None:
        return []
    rows = []
    for j, label in enumerate(metric.group_labels):
        key = f"{metric.name}_{metric.group_by}_{output_label(label)}"
        ci = (result[f"{key}_ci_low"], result[f"{key}_ci_high"]) if f"{key}_ci_low" in result else None
        rows.append(
            {
                "group": metric.group_by,
                "label": label,
                "utterances": getattr(metric, f"group{j}_utts"),
                "words": getattr(metric, f"group{j}_ref_len"),
                "rate": result.get(key),
                "ci": ci,
            }
        )
    return rows
