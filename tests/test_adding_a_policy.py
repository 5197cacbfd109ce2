"""docs/adding-a-policy.md works as written: its files go into a package ``toy_policies`` in a
temporary directory and its last block runs against them in a fresh process (the toy registered
there only), through the public API: check_policy passes with the decisions record, the compiled
run equals the page's numpy transcription pair for pair, and simulate runs the toy beside RUCB."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "adding-a-policy.md"
BLOCK = re.compile(r"<!-- (file: (?P<path>\S+)|run) -->\n```py\n(?P<code>.*?)```", re.S)


def page_blocks() -> tuple[dict[str, str], str]:
    files, run = {}, None
    for m in BLOCK.finditer(PAGE.read_text()):
        if m.group("path"):
            files[m.group("path")] = m.group("code")
        else:
            run = m.group("code")
    assert run is not None and set(files) == {
        "toy_policies/kernel.py",
        "toy_policies/policy.py",
        "toy_policies/transcription.py",
    }
    return files, run


@pytest.mark.slow
def test_the_page_runs_as_written(tmp_path):
    files, run = page_blocks()
    (tmp_path / "toy_policies").mkdir()
    (tmp_path / "toy_policies" / "__init__.py").write_text("")
    for rel, code in files.items():
        (tmp_path / rel).write_text(code)
    (tmp_path / "run.py").write_text(run)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT), os.environ.get("PYTHONPATH", "")]))
    p = subprocess.run([sys.executable, "run.py"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    lines = p.stdout.splitlines()
    assert lines[0].startswith("['hyperparameters', 'step protocol', 'determinism', 'run equals the step loop'")
    assert [ln.split()[0] for ln in lines[1:]] == ["leader-ucb", "rucb"]
    assert all(float(ln.split()[1]) > 0 for ln in lines[1:])


def test_the_page_is_in_the_site_nav():
    assert "adding-a-policy.md" in (ROOT / "mkdocs.yml").read_text()


@pytest.mark.parametrize("phrase", ["numba's on-disk cache cannot hold", "check_policy", "revision"])
def test_the_page_says_why_and_how(phrase):
    assert phrase in PAGE.read_text()


def test_the_docs_suite_leaves_the_page_to_this_test():
    """The page's blocks are fenced ``py``, not ``python``: tests/test_docs.py runs ``python`` blocks
    in its own process, where the toy would import nothing and stay registered."""
    assert "```python" not in PAGE.read_text()
