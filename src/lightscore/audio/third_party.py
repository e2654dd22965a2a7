"""The audio packages whose imports need ``pkg_resources``, and how lightscore's import chain does without it.

setuptools 82 removed ``pkg_resources``, and a Python 3.12 venv has no setuptools at all, yet three
packages the audio metrics used import it when they are imported:

- pyworld 0.3.5's ``__init__`` (to read its own version). Its compiled module ``pyworld.pyworld`` holds
  the whole API and imports only numpy: `pyworld_module` loads it from pyworld's folder without the
  ``__init__``.
- pysptk 1.0.1's ``util.py``, which every part of pysptk imports, its compiled ``_sptk`` too: lightscore
  no longer imports pysptk; `lightscore.audio.sptk` runs the SPTK routines ESPnet's measures call.
- webrtcvad 2.0.10, which resemblyzer imports: ``SpeakerSimilarity`` needs webrtcvad-wheels (the same
  module, without ``pkg_resources``) or ``setuptools<81``. `import_module` turns that failure into one
  line naming the package, the cause and the fix, raised when the metric is built.
"""

from __future__ import annotations

import functools
import importlib
import importlib.machinery
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

__all__ = ["NEEDS_PKG_RESOURCES", "PkgResourcesError", "import_module", "pyworld_module"]

NEEDS_PKG_RESOURCES: dict[str, tuple[str, str]] = {
    "resemblyzer": (
        "resemblyzer's webrtcvad 2.0.10",
        "pip uninstall -y webrtcvad && pip install webrtcvad-wheels",
    ),
}
"""Package -> (what imports ``pkg_resources`` when it is imported, the fix)."""


class PkgResourcesError(ModuleNotFoundError):
    """A package could not be imported because something it imports needs ``pkg_resources``; one line."""


def import_module(name: str, what: str) -> ModuleType:
    """``importlib.import_module(name)``; a missing ``pkg_resources`` on the way is one line naming the fix.

    Args:
        name: A key of `NEEDS_PKG_RESOURCES` (or any module: it is imported as usual).
        what: Who needs it, first in the message (``"SpeakerSimilarity"``).

    Returns:
        The module.

    Raises:
        PkgResourcesError: the import failed for want of ``pkg_resources``.
        ModuleNotFoundError: the package itself is not installed.

    >>> import_module("json", "a doctest").__name__
    'json'
    """
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name != "pkg_resources":
            raise
        culprit, fix = NEEDS_PKG_RESOURCES.get(name, (name, "pip install 'setuptools<81'"))
        raise PkgResourcesError(
            f"{what} needs {name}, but {culprit} imports pkg_resources, which this environment lacks "
            f"(setuptools 82 removed it; a Python 3.12 venv has no setuptools): {fix}",
            name="pkg_resources",
        ) from None


@functools.cache
def pyworld_module() -> ModuleType:
    """pyworld's compiled module ``pyworld.pyworld`` (dio, harvest, stonemask, cheaptrick...), without its ``__init__``.

    Returns:
        The module, the same one ``import pyworld`` re-exports (registered under its own name).

    Raises:
        ModuleNotFoundError: pyworld is not installed, or its folder holds no compiled module.

    >>> pyworld_module().harvest.__name__
    'harvest'
    """
    if "pyworld.pyworld" in sys.modules:
        return sys.modules["pyworld.pyworld"]
    spec = importlib.util.find_spec("pyworld")  # finds the package without running its __init__
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("No module named 'pyworld'", name="pyworld")
    for folder in spec.submodule_search_locations:
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = Path(folder) / f"pyworld{suffix}"
            if path.is_file():
                module_spec = importlib.util.spec_from_file_location("pyworld.pyworld", path)
                module = importlib.util.module_from_spec(module_spec)
                sys.modules["pyworld.pyworld"] = module
                module_spec.loader.exec_module(module)
                return module
    raise ModuleNotFoundError(
        f"pyworld's folder holds no compiled module pyworld.pyworld: {spec.origin}", name="pyworld"
    )
