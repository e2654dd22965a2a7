"""SCP files (``utt_id value`` per line): the public API, read as a stream and written atomically.

The format and the reader are in `lightscore.scp.files`; one line's parser in
`lightscore.scp.lines`; the repeated-id check in `lightscore.scp.ids`.

>>> from lightscore.scp import parse_line
>>> parse_line("utt1  the cat")
('utt1', 'the cat')
"""

from lightscore.scp.files import (
    ScpError,
    ScpMismatchError,
    ScpShard,
    atomic_open,
    check_utt_id,
    count_scp_rows,
    iter_row_batches,
    iter_rows,
    parse_line,
    read_scp,
    write_scp,
)

__all__ = [
    "ScpError",
    "ScpMismatchError",
    "ScpShard",
    "atomic_open",
    "check_utt_id",
    "count_scp_rows",
    "iter_row_batches",
    "iter_rows",
    "parse_line",
    "read_scp",
    "write_scp",
]
