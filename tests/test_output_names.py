"""Every built-in metric's outputs are named apart, so any set of them fits one `MetricCallback`.

The callback refuses two metrics that return one name (it would log one over the other). The only
shared names are alternatives of one number: sclite's CER (`SCLiteCER`) beside `CER`, and
`Resegmented`, whose outputs are the metric it wraps.
"""

from __future__ import annotations

import collections

import lightscore.metrics as metrics

# Metrics whose constructor needs an argument, with one; those needing a model or a file are left out.
OPTIONS = {
    "TCPWER": {"collar": 1},
    "TCORCWER": {"collar": 1},
    "GreedyTCORCWER": {"collar": 1},
    "DITCPWER": {"collar": 1},
}
NEEDS_A_MODEL = {
    "ErrorRate",
    "TER",
    "SpeakerSimilarity",
    "Intelligibility",
    "Separation",
    "SignalMetrics",
    "DNSMOS",
    "PLCMOS",
}
ALTERNATIVES = ({"CER", "SCLiteCER"}, {"BLEU", "Resegmented"})


def test_no_two_builtin_metrics_return_one_name() -> None:
    returned_by = collections.defaultdict(set)
    for name in metrics.__all__:
        if name in NEEDS_A_MODEL:
            continue
        for field in getattr(metrics, name)(**OPTIONS.get(name, {})).outputs:
            returned_by[field.name].add(name)
    shared = {output: owners for output, owners in returned_by.items() if len(owners) > 1}
    assert all(owners in ALTERNATIVES for owners in shared.values()), shared
    assert len(returned_by) > 250  # the families' metrics were all built
