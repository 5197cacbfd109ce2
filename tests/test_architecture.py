"""The house read from its imports: no circle, and data flows down (no upward import).

Every ``import`` and ``from ... import`` in the package is read with :mod:`ast` -- at module level
and inside functions (a lazy import is an import too) -- into a graph of boundcalc modules.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

PKG = Path(__file__).resolve().parents[1] / "boundcalc"

#: Layers, lowest first: a module may import only from its own layer or below.
LAYERS = [
    {"boundcalc.units", "boundcalc._table", "boundcalc._highs", "boundcalc.result"},
    {"boundcalc.registry", "boundcalc.matrix", "boundcalc.datasets", "boundcalc.runner", "boundcalc.duels"},
    {"boundcalc.lp"},
    {"boundcalc.bounds", "boundcalc.cpe", "boundcalc.plot"},
    {"boundcalc.comparison", "boundcalc.policies"},
    {"boundcalc.batch", "boundcalc.simulate", "boundcalc.explore", "boundcalc.uncertainty", "boundcalc.plan"},
    {"boundcalc", "boundcalc.cli", "boundcalc.__main__"},
]


def modules() -> dict[str, Path]:
    out = {}
    for p in PKG.rglob("*.py"):
        parts = p.relative_to(PKG.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = p
    return out


def import_graph() -> nx.DiGraph:
    mods = modules()
    g = nx.DiGraph()
    g.add_nodes_from(mods)
    for m, p in mods.items():
        pkg = m if p.name == "__init__.py" else m.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = pkg.split(".")
                    base = base[:len(base) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                for a in node.names:
                    sub = f"{target}.{a.name}"
                    dst = sub if sub in mods else target
                    if dst in mods and dst != m:
                        g.add_edge(m, dst)
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name in mods and a.name != m:
                        g.add_edge(m, a.name)
    return g


def layer(module: str) -> int:
    for k, group in enumerate(LAYERS):
        for prefix in sorted(group, key=len, reverse=True):
            if module == prefix or module.startswith(prefix + "."):
                return k
    raise AssertionError(f"{module} is in no layer of tests/test_architecture.py")


def test_no_import_circle():
    cycles = [sorted(c) for c in nx.strongly_connected_components(import_graph()) if len(c) > 1]
    assert not cycles, cycles


def test_every_module_has_a_layer_and_imports_only_downwards():
    g = import_graph()
    upward = []
    for a, b in g.edges:
        if b == "boundcalc" and a.startswith("boundcalc."):
            continue  # `from .. import __version__`-style reads of the package root are checked below
        if layer(b) > layer(a):
            upward.append(f"{a} (layer {layer(a)}) imports {b} (layer {layer(b)})")
    assert not upward, upward


def test_the_package_root_is_read_only_for_its_version():
    """Submodules importing ``boundcalc`` itself may take only ``__version__`` (importing the root
    pulls in every layer)."""
    bad = []
    for m, p in modules().items():
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level and m != "boundcalc":
                pkg = m if p.name == "__init__.py" else m.rsplit(".", 1)[0]
                base = pkg.split(".")[:len(pkg.split(".")) - (node.level - 1)]
                if ".".join(base) == "boundcalc" and node.module is None:
                    names = {a.name for a in node.names} - set(n.split(".")[-1] for n in modules())
                    if names - {"__version__"}:
                        bad.append((m, sorted(names)))
    assert not bad, bad


def test_the_graph_reader_sees_lazy_imports():
    """A function-level import counts (the reader would otherwise miss the old importlib-free circles)."""
    g = import_graph()
    assert g.has_edge("boundcalc.cli", "boundcalc.simulate")  # imported inside _cmd_simulate
