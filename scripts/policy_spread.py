"""Where each registered policy lives: the package files that use its name outside docstrings and comments.

A policy's *name* is any of: its registry name (a string literal that contains it as a whole word,
e.g. ``"rucb"`` or ``"e.g. rucb.alpha=1"``), its class's name, and the base names of its policy and
whole-run kernel's modules (an identifier, as in ``from .rucb import ...``, or a whole word of a string literal).
A file *uses* it when one of those appears in the file's tokens other than comments and docstrings
(string statements that stand alone: a module's, class's or function's docstring, or an
attribute's).  The goal of the policy-in-one-place layout is a median of at most 3 files a policy
(its policy module, its kernel module and the package's import of it) and no use in ``cli.py``.

    python3 scripts/policy_spread.py [--json]
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import re
import statistics
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "boundcalc"


def _docstring_lines(tree: ast.AST) -> set[tuple[int, int]]:
    """(line, column) of every string literal that is a statement of its own (a docstring)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            out.add((node.value.lineno, node.value.col_offset))
    return out


def code_tokens(path: Path) -> tuple[set[str], list[str]]:
    """The identifiers and the string literals' values of ``path``, without comments and docstrings."""
    text = path.read_text()
    docs = _docstring_lines(ast.parse(text))
    names: set[str] = set()
    strings: list[str] = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.NAME:
            names.add(tok.string)
        elif tok.type == tokenize.STRING and tok.start not in docs:
            try:
                value = ast.literal_eval(tok.string)
            except (ValueError, SyntaxError):  # an f-string: its literal text
                value = tok.string
            if isinstance(value, str):
                strings.append(value)
    return names, strings


def policy_words(cls: type) -> tuple[set[str], set[str]]:
    """``(identifiers, words)`` that name the policy ``cls``."""
    idents = {cls.__name__}
    words = {cls.name}
    modules = [cls.__module__]
    kernels = getattr(cls, "kernels", None)
    if kernels:  # the module of its whole-run kernel (the protocol's steps may be a sibling's)
        modules.append(kernels[2].py_func.__module__)
    for m in modules:
        base = m.rsplit(".", 1)[1]
        idents.add(base)
        words.add(base)
    return idents, words


def spread(package: Path = PACKAGE) -> dict[str, list[str]]:
    """Registered policy -> the package files (relative paths) that use its name."""
    from boundcalc.policies import POLICIES

    files = {str(p.relative_to(package.parent)): code_tokens(p) for p in sorted(package.rglob("*.py"))}
    out: dict[str, list[str]] = {}
    for name, cls in POLICIES.items():
        idents, words = policy_words(cls)
        pattern = re.compile(r"(?<![\w-])(" + "|".join(re.escape(w) for w in sorted(words)) + r")(?![\w-])")
        out[name] = [f for f, (ns, ss) in files.items() if ns & idents or any(pattern.search(s) for s in ss)]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print the files of each policy as JSON")
    a = ap.parse_args()
    got = spread()
    if a.json:
        print(json.dumps(got, indent=1))
        return
    for name, files in got.items():
        print(f"{name:20s} {len(files):2d}  {' '.join(files)}")
    print(f"median files a policy: {statistics.median(len(f) for f in got.values())}")
    print(f"policies named by cli.py: {sum('boundcalc/cli.py' in f for f in got.values())}")


if __name__ == "__main__":
    main()
