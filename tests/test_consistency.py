"""Copeland consistency against Condorcet consistency: 000's Table 2 remark (Sec. 3.1).

000 (Komiyama, Honda & Nakagawa 2016), after Theorem 2: a Condorcet-optimal policy such as RMED2
"may not be consistent in the sense of Copeland; RMED2 draws pairs (2,3), (2,4) and (3,4) to
prove that each of 2, 3 and 4 is beaten by another arm [...] However, in the sense of Copeland,
an algorithm must make sure that the superior of arm 1 is smaller than those of the other arms,
and thus, it needs to compare arm 1 with the others for sufficiently many times."

So on Table 2 the Copeland lower bound C* (Theorem 2) binds Copeland-consistent policies only:
RMED2 may, and does, stay below it.  These tests check the three facts that remark rests on,
each against something independent of the policies: the LP's optimal allocation (hand-checkable:
by symmetry every pair (1, j) gets the same rate), the pairs each policy actually draws, and the
regret against C*.
"""

from __future__ import annotations

import numpy as np
import pytest

from boundcalc import lower_bound
from boundcalc.datasets import load_example
from boundcalc.policies import make_policy
from boundcalc.simulate import DuelEnvironment, simulate

TABLE2 = load_example("table2")


def _draws(name: str, seed: int, T: int) -> np.ndarray:
    p = make_policy(name, 4, rng=np.random.default_rng(seed))
    env = DuelEnvironment(TABLE2.mu, seed, 7)
    for _ in range(T):
        i, j = p.select_pair()
        p.update(i, j, env.duel(i, j))
    return p.draws


def _arm1_vs_rest(D: np.ndarray) -> int:
    return int(D[0, 1:].sum())


def _among_losers(D: np.ndarray) -> int:
    return int(D[1, 2] + D[1, 3] + D[2, 3])


def test_lower_bound_allocation_compares_arm_1_with_the_others():
    """C*'s optimal rates sit on the pairs (1, j): the comparisons 000 says a Copeland policy needs."""
    lb = lower_bound(TABLE2)
    q = np.asarray(lb.allocation)
    arm1 = q[0, 1:]
    assert np.allclose(arm1, arm1[0], rtol=1e-6)  # the three pairs (1, j) are symmetric
    assert arm1.sum() > 0.9 * q[np.triu_indices(4, 1)].sum()


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rmed2_proves_losers_among_themselves_copeland_policy_compares_arm_1(seed):
    T = 10_000
    rmed2 = _draws("rmed2", seed, T)
    ecw = _draws("ecw-rmed", seed, T)
    # RMED2 (Condorcet): arms 2-4 are shown to be beaten by one another, arm 1 barely compared
    assert _among_losers(rmed2) > _arm1_vs_rest(rmed2)
    # ECW-RMED (Copeland-consistent): arm 1 against the others dominates its exploration
    assert _arm1_vs_rest(ecw) > 5 * _among_losers(ecw)
    assert _arm1_vs_rest(ecw) > 3 * _arm1_vs_rest(rmed2)


@pytest.mark.slow
def test_rmed2_stays_below_the_copeland_bound_it_is_not_bound_by():
    """RMED2's regret per ln T on Table 2 is below C* = 27.55, Copeland-consistent policies' above it."""
    res = simulate(TABLE2, "rmed2,ecw-rmed", horizon=100_000, runs=10, seed=0, bounds=True)
    rows = {r["policy"]: r for r in res.table()}
    C = res.lower_bound
    assert C == pytest.approx(27.5487, abs=1e-3)
    assert rows["rmed2"]["per_ln_T"] + 3 * rows["rmed2"]["stderr"] / np.log(100_000) < C
    assert rows["ecw-rmed"]["per_ln_T"] > C
