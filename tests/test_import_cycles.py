"""No import cycle anywhere in the package: every module's imports (those inside functions included) form a graph
without a circle, so each module can be read, tested and replaced above the ones it builds on.

The graph is grimp's (the library import-linter runs on) of ``uno_env`` as it installs (agents/ and training/
inside it, ``tools/lint_imports.installed_tree``).  Each strongly connected component of more than one module is a
cycle; the test names its modules and the imports that close it.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("grimp")

ROOT = Path(__file__).resolve().parents[1]

#: Cycles known and being broken, as the exact sets of modules they join; a cycle not listed here fails, and so
#: does an entry whose cycle is gone (the list only shrinks).
KNOWN_CYCLES: list[frozenset[str]] = []


#: Run in a fresh interpreter: grimp finds ``uno_env`` through the import system, which in this process already
#: holds the editable install (without agents/ and training/ inside the package's folder).
_GRAPH = """
import json, sys
sys.path.insert(0, sys.argv[1])
import grimp
from lint_imports import installed_tree
with installed_tree():
    graph = grimp.build_graph("uno_env", cache_dir=None)
    print(json.dumps({m: sorted(graph.find_modules_directly_imported_by(m)) for m in graph.modules}))
"""


@pytest.fixture(scope="module")
def edges() -> dict[str, set[str]]:
    """Every module of ``uno_env`` -> the modules of ``uno_env`` it imports."""
    r = subprocess.run([sys.executable, "-c", _GRAPH, str(ROOT / "tools")], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    return {m: set(imported) for m, imported in json.loads(r.stdout).items()}


def cycles(edges: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            for nxt in successors:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(edges.get(nxt, ())))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(frozenset(component))
    return found


def _describe(component: frozenset[str], edges: dict[str, set[str]]) -> str:
    arrows = sorted(f"{a} -> {b}" for a in component for b in edges[a] if b in component)
    return f"{sorted(component)}: {', '.join(arrows)}"


def test_the_package_has_no_import_cycle_but_the_known_ones(edges):
    assert "uno_env.core.engine" in edges and "uno_env.agents.registry" in edges  # the whole installed package
    found = cycles(edges)
    new = [c for c in found if c not in KNOWN_CYCLES]
    assert not new, "import cycles: " + "; ".join(_describe(c, edges) for c in new)


def test_every_known_cycle_is_still_there(edges):
    """An entry of KNOWN_CYCLES that no longer exists must go (the list only shrinks)."""
    found = cycles(edges)
    gone = [sorted(c) for c in KNOWN_CYCLES if c not in found]
    assert not gone, f"no longer cycles, remove them from KNOWN_CYCLES: {gone}"


def test_cycles_are_found():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e", "d"}, "f": {"g"}, "g": {"f"}}
    assert sorted(map(sorted, cycles(edges))) == [["a", "b", "c"], ["f", "g"]]
