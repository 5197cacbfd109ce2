"""Shared test fixtures.

The random-matrix builders (plain helpers and hypothesis strategies) live in ``tests/builders.py``,
imported as ``from builders import ...``: a conftest is not importable by name in every pytest
import mode, so pyproject.toml puts ``tests/`` on ``sys.path`` (``pythonpath``) instead.
"""

from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture
def rng() -> np.random.Generator:
    """A fresh generator with a fixed seed (each test gets the same stream)."""
    return np.random.default_rng(20240601)

