"""The brute-force references of ``tests/reference.py`` against hand-worked numbers (so that the
references the other tests lean on are themselves checked by something independent)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import reference as ref

TABLE2 = np.array(
    [[0.5, 0.6, 0.6, 0.6], [0.4, 0.5, 0.9, 0.1], [0.4, 0.1, 0.5, 0.9], [0.4, 0.9, 0.1, 0.5]]
)  # 000 Table 2 (arm 1 of the paper is arm 0 here)


def test_table2_by_hand():
    """000 Table 2: C* = 3/2 (c_0 + c_cyc) with c_0 = (1/3)/d(0.6), c_cyc = (2/3)/d(0.9) (worked in
    docs/explanation/verification.md), ECW = 1/d(0.6); ten rows of R_0."""
    d6, d9 = ref.kl_half(0.6), ref.kl_half(0.9)
    assert d6 == pytest.approx(0.6 * math.log(1.2) + 0.4 * math.log(0.8))
    S, I, L, winners, d = ref.structure(TABLE2)
    assert L == [0, 2, 2, 2] and winners == [0]
    rows = ref.copeland_rows(S, I, L, 0)
    assert len(rows) == 10
    lb, per = ref.lower_bound(TABLE2)
    assert lb == pytest.approx(1.5 * ((1 / 3) / d6 + (2 / 3) / d9), rel=1e-9)
    assert ref.ecw_constant(TABLE2)[0] == pytest.approx(1 / d6, rel=1e-9)


def test_two_arms():
    """K = 2: the winner must be shown to beat the other, q = 1/d(mu_01), regret 1/2 per draw."""
    mu = np.array([[0.5, 0.7], [0.3, 0.5]])
    assert ref.lower_bound(mu)[0] == pytest.approx(0.5 / ref.kl_half(0.7))
    assert ref.ecw_constant(mu)[0] == pytest.approx(0.5 / ref.kl_half(0.7))


def test_empirical_ties_lie_in_no_row():
    W = np.array([[0, 2, 0], [2, 0, 3], [0, 1, 0]])
    mu, S, I, L, winners, d = ref.structure_of_counts(W, W + W.T)
    assert mu[0, 1] == 0.5 and mu[0, 2] == 0.5 and d[(0, 1)] == 0 and d[(0, 2)] == 0
    assert 1 not in S[0] | I[0] and 2 not in S[0] | I[0]
    for a in winners:
        for row in ref.copeland_rows(S, I, L, a) + ref.ecw_rows(S, I, L, a):
            assert all(d[p] > 0 for p in row)
