"""The ``lightscore`` command line (`main`); loads the standard library alone until a command runs.

>>> from lightscore.cli import build_parser
>>> build_parser().prog
'lightscore'
"""

from lightscore.cli.parser import build_parser, main

__all__ = ["build_parser", "main"]
