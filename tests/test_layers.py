"""The house's rules: the layers contract holds and no module of src/ is in an import cycle.

`lint-imports` (run by `make test`) checks the layers in pyproject.toml; this test runs it too and
looks for cycles in grimp's graph of every import (annotation-only imports excluded, as there).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import grimp

BIN = Path(sys.executable).parent
ROOT = Path(__file__).resolve().parents[1]


def cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Every strongly connected set of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph.modules):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.find_modules_directly_imported_by(start))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        found.append(sorted(group))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child)))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def test_no_import_cycle_in_src() -> None:
    graph = grimp.build_graph("lightscore", exclude_type_checking_imports=True)
    assert len(graph.modules) > 40
    assert cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = grimp.ImportGraph()
    for name in ("p", "p.a", "p.b", "p.c"):
        graph.add_module(name)
    graph.add_import(importer="p.a", imported="p.b")
    graph.add_import(importer="p.b", imported="p.a")
    graph.add_import(importer="p.c", imported="p.a")
    assert cycles(graph) == [["p.a", "p.b"]]


def test_the_layers_contract_is_kept() -> None:
    run = subprocess.run([str(BIN / "lint-imports")], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-3000:]
    assert "0 broken" in run.stdout
