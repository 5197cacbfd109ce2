"""Shared test fixtures.

The random-matrix builders (plain helpers and hypothesis strategies) live in ``tests/builders.py``,
imported as ``from builders import ...``: a conftest is not importable by name in every pytest
import mode, so pyproject.toml puts ``tests/`` on ``sys.path`` (``pythonpath``) instead.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import settings
from hypothesis.database import DirectoryBasedExampleDatabase, ReadOnlyDatabase

# Hypothesis profiles.  "ci" (the default, what `python3 -m pytest` and .ci/run use) is
# deterministic: every test draws from a fixed seed (``--hypothesis-seed=0`` in pyproject's
# addopts) and first replays the stored failures in tests/hypothesis-db, read-only, so a CI run
# can never fail by chance and never writes to the checkout.  "explore"
# (``HYPOTHESIS_PROFILE=explore python3 -m pytest --hypothesis-seed=$RANDOM``) searches with new
# random examples and saves any failure it finds into that same directory, to be committed.
HYPOTHESIS_DB = Path(__file__).parent / "hypothesis-db"
settings.register_profile(
    "ci", database=ReadOnlyDatabase(DirectoryBasedExampleDatabase(HYPOTHESIS_DB)), print_blob=True
)
settings.register_profile("explore", database=DirectoryBasedExampleDatabase(HYPOTHESIS_DB), print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture
def rng() -> np.random.Generator:
    """A fresh generator with a fixed seed (each test gets the same stream)."""
    return np.random.default_rng(20240601)


def _numba_cache_is_empty() -> bool:
    """Whether numba's cache holds no kernel of ``boundcalc.kernels.policy`` (a fresh clone or
    install); found without importing numba (where numba writes: next to the source in
    ``__pycache__``, or under ``NUMBA_CACHE_DIR``; a cache elsewhere reads as empty)."""
    import importlib.util

    spec = importlib.util.find_spec("boundcalc.kernels.policy")
    if spec is None or spec.origin is None:
        return False
    custom = os.environ.get("NUMBA_CACHE_DIR")
    where = Path(custom) if custom else Path(spec.origin).parent / "__pycache__"
    pattern = "**/policy.*.nbi" if custom else "policy.*.nbi"
    return next(where.glob(pattern), None) is None


def pytest_sessionstart(session) -> None:
    """For the whole suite (no test paths given) on an empty numba cache, compile the kernels first
    in two processes at once (``tests/numba_warmup.py``: the suite on a fresh clone otherwise
    compiled most kernels in both xdist workers).  Runs in the controlling process only, before
    xdist starts its workers."""
    config = session.config
    whole = getattr(getattr(config, "args_source", None), "name", None) == "TESTPATHS"  # pytest >= 7.2
    if hasattr(config, "workerinput") or not whole or config.option.collectonly or not _numba_cache_is_empty():
        return
    import subprocess
    import sys

    # the workers import what this process imports (xdist gives them its sys.path): so do these
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p or os.getcwd() for p in sys.path))
    code = "import sys, numba_warmup; numba_warmup.warm(int(sys.argv[1]))"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(g)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        for g in (0, 1)
    ]
    for p in procs:  # a failure here shows up again, with its message, in the tests themselves
        p.wait()
