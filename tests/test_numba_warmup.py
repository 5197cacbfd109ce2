"""The suite's numba warm-up (``tests/numba_warmup.py``, run by ``conftest.py`` on an empty cache)
reaches every registered policy and CPE algorithm, and runs."""

from __future__ import annotations

import numba_warmup
import pytest

from boundcalc.cpe.algorithms import ALGORITHMS
from boundcalc.policies.registry import policy_names


def test_warmup_covers_every_policy_and_algorithm():
    names = {n for g in numba_warmup.GROUPS for n in g}
    assert names - {"lp", "cpe"} == set(policy_names())
    assert set(numba_warmup.CPE_ALGORITHMS) == set(ALGORITHMS)


@pytest.mark.slow
def test_warmup_runs():
    for g in range(len(numba_warmup.GROUPS)):
        numba_warmup.warm(g)
