"""The set-up commands of the README and the docs keep the editable test install.

``.ci/run`` and the README install the checkout editable with its test extras (``pip install -e
".[test]"``): the tests import the checkout and run the installed ``boundcalc`` command as a
subprocess.  A later ``pip install ".[docs]"`` (or ``".[notebooks]"``) without ``-e`` would replace
that install by a copy in site-packages, and the command would then run a stale copy of the code.
So every install of the checkout *with extras* that the README, the docs pages or ``.ci/run`` show
is editable; the plain user install ``pip install .`` (no extras, the README's first line) is the
one exception, as a user of the package wants a copy.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = [ROOT / "README.md", ROOT / ".ci" / "run", *sorted((ROOT / "docs").glob("*.md"))]
# a pip install of the checkout with extras: ``pip install [-e] [--quiet] ".[docs]"`` (quoted or not)
INSTALL = re.compile(r"pip install((?:\s+-{1,2}[\w-]+)*)\s+[\"']?\.\[([\w,]+)\][\"']?")


def installs(path: Path) -> list[tuple[str, str]]:
    return [(m.group(1), m.group(0)) for m in INSTALL.finditer(path.read_text(encoding="utf-8"))]


def test_the_pattern_finds_installs_with_extras():
    """The pattern itself: it sees both forms, and the flags before the target."""
    text = 'a `python3 -m pip install ".[docs]"` b\npython3 -m pip install --quiet -e ".[test]" && x'
    found = [(m.group(1).split(), m.group(2)) for m in INSTALL.finditer(text)]
    assert found == [([], "docs"), (["--quiet", "-e"], "test")]


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_installs_with_extras_are_editable(path):
    bad = [text for flags, text in installs(path) if "-e" not in flags.split() and "--editable" not in flags.split()]
    assert not bad, f"{path.name}: an install with extras that is not editable replaces the test install: {bad}"


def test_the_readme_and_ci_install_the_docs_editable():
    """The README's documentation build and .ci/run's both install the docs extra editable."""
    for path in (ROOT / "README.md", ROOT / ".ci" / "run"):
        extras = [text for flags, text in installs(path) if "docs" in text]
        assert extras, f"{path.name} shows no docs install"
