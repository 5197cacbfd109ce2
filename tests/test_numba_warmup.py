"""The suite's numba warm-up (``tests/numba_warmup.py``, run by ``conftest.py`` on an empty cache)
runs, and its first half names registered policies (the second half is read from the registries)."""

from __future__ import annotations

import numba_warmup
import pytest

from boundcalc.policies.registry import policy_names


def test_warmup_first_half_is_registered_policies():
    assert set(numba_warmup.FIRST) <= set(policy_names())


@pytest.mark.slow
def test_warmup_runs():
    for g in (0, 1):
        numba_warmup.warm(g)


def test_the_halves_cover_every_warmup_task():
    from boundcalc.policies import POLICIES
    from boundcalc.warmup import warmup_tasks

    tasks = warmup_tasks()
    assert set(tasks) == {n for n, c in POLICIES.items() if c.compiled} | {"lp", "cpe"}
    assert tasks[0] == "cw-rmed"  # the longest first (kernels.COMPILE_SECONDS)
    assert set(numba_warmup.FIRST) | {"lp"} | {t for t in tasks if t not in numba_warmup.FIRST} == set(tasks)


def test_compile_notice_says_it_once_on_an_empty_cache(tmp_path):
    """On an empty numba cache the notice names what is compiled and about how long, once per process;
    nothing is compiled to find that out (the cache's index files are read)."""
    import os
    import subprocess
    import sys

    code = ("from boundcalc.kernels import compile_notice, COMPILE_SECONDS\n"
            "a = compile_notice(['policy', 'rmed1'], \"policy 'rmed1'\")\n"
            "b = compile_notice(['cw_rmed'], 'again')\n"
            "assert a == COMPILE_SECONDS['policy'] + COMPILE_SECONDS['rmed1'], a\n"
            "assert b == COMPILE_SECONDS['cw_rmed'], b\n")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and "compiling the numba kernels of policy 'rmed1'" in lines[0]
    assert "later runs start at once" in lines[0] and "boundcalc warmup" in lines[0]


def test_warmup_command_is_offered(capsys):
    from boundcalc.cli import main

    assert main(["warmup", "--help"]) == 0
    assert "Compile every numba kernel" in capsys.readouterr().out
