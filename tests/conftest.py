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
settings.register_profile("ci", database=ReadOnlyDatabase(DirectoryBasedExampleDatabase(HYPOTHESIS_DB)),
                          print_blob=True)
settings.register_profile("explore", database=DirectoryBasedExampleDatabase(HYPOTHESIS_DB), print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture
def rng() -> np.random.Generator:
    """A fresh generator with a fixed seed (each test gets the same stream)."""
    return np.random.default_rng(20240601)

