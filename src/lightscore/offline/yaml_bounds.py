"""A bound on a metrics YAML's size once its aliases are expanded: an alias bomb is refused before OmegaConf reads it.

YAML aliases (``*name``) let a few lines stand for billions of values; OmegaConf
copies every one of them. `check_expansion` counts them first, cheaply.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["MAX_YAML_VALUES", "check_expansion"]

MAX_YAML_VALUES = 100_000
"""How many values a metrics YAML may hold once its aliases are expanded (a real config holds a few hundred)."""


def check_expansion(path: Path, where: str) -> None:
    """Raise ValueError when the YAML's aliases expand to more than `MAX_YAML_VALUES` values (an alias bomb).

    The document is composed once, aliases still shared (cheap), and its expanded
    size counted with one memo per node; OmegaConf would copy every alias.

    Args:
        path: The YAML file.
        where: How to name it in the error.

    Raises:
        ValueError: the aliases expand to more than `MAX_YAML_VALUES` values, or one refers to itself.

    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "m.yaml"
    >>> _ = p.write_text("a: &a [x, x]\\nb: [*a, *a]\\n")
    >>> check_expansion(p, "m.yaml")  # 8 values: fine
    """
    import yaml

    try:
        root = yaml.compose(path.read_text(encoding="utf-8-sig"), Loader=yaml.SafeLoader)
    except (yaml.YAMLError, UnicodeDecodeError):
        return  # OmegaConf.load reports it, naming the line
    sizes: dict[int, int] = {}

    def size(node: Any) -> int:
        if id(node) in sizes:
            if sizes[id(node)] < 0:
                raise ValueError(f"{where}: a YAML alias refers to its own anchor (a recursive config)")
            return sizes[id(node)]
        sizes[id(node)] = -1
        children = node.value if isinstance(node.value, list) else []
        flat = [c for child in children for c in (child if isinstance(child, tuple) else (child,))]
        total = 1 + sum(size(child) for child in flat)
        if total > MAX_YAML_VALUES:
            raise ValueError(
                f"{where}: its YAML aliases (*name) expand to more than {MAX_YAML_VALUES} values; "
                "refused, as a config that large is an alias bomb, not a metrics config"
            )
        sizes[id(node)] = total
        return total

    if root is not None:
        size(root)
