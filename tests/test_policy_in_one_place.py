"""A policy lives in its policy module and its kernel module: the rest of the package reads the
registry (``scripts/policy_spread.py`` counts the files that use a policy's name outside docstrings
and comments)."""

from __future__ import annotations

import importlib.util
import statistics
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _spread_module():
    spec = importlib.util.spec_from_file_location("policy_spread", ROOT / "scripts" / "policy_spread.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_counter_sees_names_in_code_not_in_docstrings(tmp_path):
    spread = _spread_module()
    path = tmp_path / "m.py"
    path.write_text(
        '"""rucb in the module docstring."""\n# rucb in a comment\nx = "rucb.alpha=1"\nfrom .dts import y\n'
    )
    names, strings = spread.code_tokens(path)
    assert strings == ["rucb.alpha=1"] and "dts" in names and "rucb" not in names


@pytest.mark.slow
def test_the_command_line_names_no_policy():
    got = _spread_module().spread()
    assert [name for name, files in got.items() if "boundcalc/cli.py" in files] == []
    assert statistics.median(len(files) for files in got.values()) <= 3
