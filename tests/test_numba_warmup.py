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
