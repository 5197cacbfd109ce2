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
    # the longest first (kernels.COMPILE_SECONDS): CPE's loops (9.1 s), then ECW-RMED's and CW-RMED's
    # one shared kernel (8.0 s)
    assert tasks[0] == "cpe" and set(tasks[1:3]) == {"cw-rmed", "ecw-rmed"}
    assert set(numba_warmup.FIRST) | {"lp"} | {t for t in tasks if t not in numba_warmup.FIRST} == set(tasks)


@pytest.mark.slow
def test_compile_notice_says_it_once_on_an_empty_cache(tmp_path):
    """On an empty numba cache the notice names what is compiled and about how long, once per process;
    nothing is compiled to find that out (the cache's index files are read)."""
    import os
    import subprocess
    import sys

    code = (
        "from boundcalc.kernels import compile_notice, COMPILE_SECONDS\n"
        "a = compile_notice(['policy', 'rmed1'], \"policy 'rmed1'\")\n"
        "b = compile_notice(['cw_rmed'], 'again')\n"
        "assert a == COMPILE_SECONDS['policy'] + COMPILE_SECONDS['rmed1'], a\n"
        "assert b == COMPILE_SECONDS['cw_rmed'], b\n"
    )
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


def test_every_compiled_policy_has_its_kernel_module_registered():
    """Each compiled policy's whole-run kernel lives in a kernel module that ``boundcalc warmup`` and
    the compile notice know (``MODULES``, ``COMPILE_SECONDS``), and that module's entry is the
    policy's own run kernel (the function whose cache entry stands for the module)."""
    from boundcalc.kernels import COMPILE_SECONDS, MODULES, _entry
    from boundcalc.policies import POLICIES

    for name, cls in POLICIES.items():
        if not cls.compiled:
            continue
        run = cls.kernels[2]
        module = run.py_func.__module__
        short = module.rsplit(".", 1)[1]
        assert module.startswith("boundcalc.kernels."), (name, module)
        assert short in MODULES and short in COMPILE_SECONDS, (name, short)
        assert all(k.py_func.__module__.startswith("boundcalc.kernels.") for k in cls.kernels), name
        if name not in ("dts+",):  # D-TS+ shares D-TS's module, whose entry is D-TS's run
            assert _entry(short) is run, (name, _entry(short), run.py_func.__name__)
