"""CW-RMED's line 11 with the compiled primal simplex (``CWRMED.simplex_pivots``,
:func:`boundcalc.kernels.cw_rmed.resolve_from_basis`) against HiGHS's re-solves.

Paper 000 (Komiyama, Honda & Nakagawa, ICML 2016), Algorithm 1, line 11 plays an optimal solution of
the LP of eq. (2).  With revision 3's cost perturbation the optimum is generically unique, so a stored
basis re-solved by the compiled simplex must land on the vertex HiGHS's warm re-solve returns: the
pairs with the simplex on and off must be equal, while HiGHS runs fewer times with it on (the
simplex really answers).  The control: without the perturbation (``perturb = 0``, where the LP is
often degenerate) the two paths land on different optimal vertices and the pairs differ -- the
comparison can fail.
"""

from __future__ import annotations

import numpy as np
import pytest

from boundcalc.datasets import load_example
from boundcalc.kernels.cw_rmed import SPX
from boundcalc.policies import make_policy
from boundcalc.policies.cw_rmed import CWRMED


def run(mu: np.ndarray, steps: int, seed: int, force_spx: int | None = None):
    """CW-RMED's pairs against ``mu`` (outcomes from ``default_rng([seed, 1])``) and its counters."""
    K = mu.shape[0]
    env = np.random.default_rng([seed, 1])
    pol = make_policy("cw-rmed", K, rng=np.random.default_rng(seed))
    if force_spx is not None:
        pol._arrays.reg[SPX] = force_spx
    pairs = np.empty((steps, 2), dtype=np.int64)
    for t in range(steps):
        i, j = pol.select_pair()
        pol.update(i, j, bool(env.random() < mu[i, j]))
        pairs[t] = i, j
    return pairs, pol.stats


CASES = [("table2", 0, 3000), ("mslr5-noncondorcet", 1, 3000), ("mslr5-condorcet", 2, 3000), ("fig1a", 0, 6000)]


@pytest.mark.parametrize("name, seed, steps", CASES)
def test_same_pairs_with_the_simplex(monkeypatch, name, seed, steps):
    mu = load_example(name).mu
    assert CWRMED.simplex_pivots > 0 and CWRMED.perturb > 0
    on, s_on = run(mu, steps, seed)
    monkeypatch.setattr(CWRMED, "simplex_pivots", 0)
    off, s_off = run(mu, steps, seed)
    np.testing.assert_array_equal(on, off)
    # the same decisions, counter by counter (but those of LP work: HiGHS runs, answers without one,
    # and check (3)'s bound, which a decision resumed after Python's LP answers once more), with fewer
    # HiGHS runs: the simplex answered
    work = ("lp_solves", "warm_answers", "check_bound")
    assert {k: v for k, v in s_on.items() if k not in work} == {k: v for k, v in s_off.items() if k not in work}
    assert s_on["lp_solves"] < s_off["lp_solves"]
    assert s_on["warm_answers"] > s_off["warm_answers"]


def test_off_without_the_perturbation_and_the_control(monkeypatch):
    """``perturb = 0`` turns the simplex off (revision 2's solves, tests/test_cw_perturb.py); forced on
    there, it lands on other optimal vertices of the degenerate LPs and the pairs part (the
    comparison above has power)."""
    monkeypatch.setattr(CWRMED, "perturb", 0.0)
    assert CWRMED(5)._arrays.reg[SPX] == 0
    assert CWRMED(5, rng=np.random.default_rng(0))._arrays.reg[SPX] == 0
    differ = 0
    for name, seed, steps in CASES[:3]:
        mu = load_example(name).mu
        forced, _ = run(mu, steps, seed, force_spx=50)
        plain, _ = run(mu, steps, seed)
        differ += not np.array_equal(forced, plain)
    assert differ >= 1


def test_lifted_models_keep_highs():
    """From ``lift_min_arms`` arms line 11 runs on the lifted model (rows with other coefficients):
    the simplex is not asked there."""
    assert CWRMED(CWRMED.lift_min_arms)._arrays.reg[SPX] == 0
    assert CWRMED(CWRMED.lift_min_arms - 1)._arrays.reg[SPX] == CWRMED.simplex_pivots
