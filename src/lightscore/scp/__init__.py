"""SCP files (``utt_id value`` per line): the public API, read as a stream and written atomically.

The format and the reader are in `lightscore.scp.files`; one line's parser in
`lightscore.scp.lines`; the repeated-id check in `lightscore.scp.ids`.

>>> from lightscore.scp import parse_line
>>> parse_line("utt1  the cat")
('utt1', 'the cat')
"""

# The public names are the reader module's own (its __all__), so the list is kept in one place.
from lightscore.scp.files import *  # noqa: F403
from lightscore.scp.files import __all__  # noqa: F401
