"""Meetings' family: cpWER and ORC-WER stream assignment and tcpWER's time-constrained alignment (meeteval's).

Each name loads its module on first use.

>>> from lightscore.text.meeting import cp_counts  # doctest: +SKIP
"""

from lightscore._lazy import lazy_exports

_EXPORTS = {
    "assign": "lightscore.text.meeting.assignment",
    "cp_counts": "lightscore.text.meeting.assignment",
    "orc_counts": "lightscore.text.meeting.assignment",
    "speaker_streams": "lightscore.text.meeting.assignment",
    "tc_levenshtein": "lightscore.text.meeting.time_constrained",
    "tcp_counts": "lightscore.text.meeting.time_constrained",
    "pseudo_word_times": "lightscore.text.meeting.time_constrained",
    "dicp_counts": "lightscore.text.meeting.di_assignment",
    "ditcp_counts": "lightscore.text.meeting.di_assignment",
    "mimo_counts": "lightscore.text.meeting.mimo",
    "greedy_orc_counts": "lightscore.text.meeting.greedy_orc",
    "tc_orc_counts": "lightscore.text.meeting.tc_orc",
    "greedy_tc_orc_counts": "lightscore.text.meeting.tc_orc",
    "in_regions": "lightscore.text.meeting.uem",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)
