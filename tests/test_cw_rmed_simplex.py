"""CW-RMED's line 11 with the compiled simplex (:mod:`boundcalc.kernels.simplex`) against HiGHS.

Two places use it: the compiled step re-solves a stored basis that failed the basis test
(``CWRMED.simplex_pivots``, :func:`boundcalc.kernels.cw_rmed.resolve_from_basis`: the primal
simplex after new costs), and Python's LP core solves the plain models with it
(the rule's ``simplex``, :mod:`boundcalc.lp.rule`: a new structure's model from the slack
basis and each cutting-plane round's cuts by the dual simplex), HiGHS the fallback of both.

Paper 000 (Komiyama, Honda & Nakagawa, ICML 2016), Algorithm 1, line 11 plays an optimal solution of
the LP of eq. (2).  With revision 3's cost perturbation the optimum is generically unique, so the
simplex must land on the vertex HiGHS returns: the pairs with either or both on must equal HiGHS's
alone, while HiGHS runs fewer times (none, with both on: the simplex really answers).  The control:
without the perturbation (``perturb = 0``, where the LP is often degenerate) the paths land on other
optimal vertices and the pairs differ -- the comparison can fail.
"""

from __future__ import annotations

import numpy as np
import pytest
from builders import cw_variant

from boundcalc.datasets import load_example
from boundcalc.kernels.cw_rmed import SPX
from boundcalc.lp import rule
from boundcalc.policies.cw_rmed import CWRMED

HIGHS_ONLY = dict(simplex=False, simplex_pivots=0)
#: counters of LP work, not decisions: HiGHS runs, answers without one, and check (3)'s bound (a
#: decision resumed after Python's LP answers check (3) once more, by its bound)
WORK = ("lp_solves", "warm_answers", "check_bound")


def run(mu: np.ndarray, steps: int, seed: int, force: bool = False, **attrs):
    """CW-RMED's pairs against ``mu`` (outcomes from ``default_rng([seed, 1])``, the protocol's loop)
    and its counters, with class attributes ``attrs``; ``force``: both simplex paths on whatever
    ``perturb`` is."""
    K = mu.shape[0]
    env = np.random.default_rng([seed, 1])
    pol = cw_variant(**attrs)(K, rng=np.random.default_rng(seed))
    if force:
        pol._arrays.reg[SPX] = 50
        pol.solver.simplex = True
    pairs = np.empty((steps, 2), dtype=np.int64)
    for t in range(steps):
        i, j = pol.select_pair()
        pol.update(i, j, bool(env.random() < mu[i, j]))
        pairs[t] = i, j
    return pairs, pol.stats


CASES = [("table2", 0, 3000), ("mslr5-noncondorcet", 1, 3000), ("mslr5-condorcet", 2, 3000), ("fig1a", 0, 3000)]


@pytest.mark.parametrize("name, seed, steps", CASES)
@pytest.mark.slow
def test_same_pairs_with_the_simplex(name, seed, steps):
    mu = load_example(name).mu
    assert CWRMED.simplex_pivots > 0 and CWRMED(16).solver.simplex and CWRMED.perturb > 0
    ref, s_ref = run(mu, steps, seed, **HIGHS_ONLY)
    for attrs in ({}, dict(simplex=False), dict(simplex_pivots=0)):
        got, s = run(mu, steps, seed, **attrs)
        np.testing.assert_array_equal(got, ref, err_msg=str(attrs))
        assert {k: v for k, v in s.items() if k not in WORK} == {k: v for k, v in s_ref.items() if k not in WORK}
        assert s["lp_solves"] < s_ref["lp_solves"], attrs  # the simplex answered instead of HiGHS
        if not attrs:
            assert s["lp_solves"] == 0  # every LP of the run: no fallback was needed here


@pytest.mark.parametrize("seed", [3])
@pytest.mark.slow
def test_simplex_pairs_do_not_depend_on_the_solve_path(seed):
    """tests/test_cw_perturb.py's solve paths (models dropped by a 4-entry cache and rebuilt from
    the slack basis, models derived from another structure's) with the simplex on: the same pairs
    as HiGHS's (panel (a) of 000's Figure 1, 16 arms, 3,000 steps; seed 1 with the simplex on is
    tests/test_cw_perturb.py's panel (a) case)."""
    mu = load_example("fig1a").mu
    ref, _ = run(mu, 3000, seed, **HIGHS_ONLY)
    for attrs in (dict(cache_size=4), dict(derive=True)):
        got, _ = run(mu, 3000, seed, **attrs)
        np.testing.assert_array_equal(got, ref, err_msg=str(attrs))


def test_off_without_the_perturbation_and_the_control(monkeypatch):
    """``perturb = 0`` turns both off (revision 2's solves, tests/test_cw_perturb.py); forced on
    there, the simplex lands on other optimal vertices of the degenerate LPs and the pairs part (the
    comparisons above have power)."""
    monkeypatch.setattr(CWRMED, "perturb", 0.0)
    p = CWRMED(5)
    assert p._arrays.reg[SPX] == 0 and not p.solver.simplex
    differ = 0
    for name, seed, steps in CASES[:3]:
        mu = load_example(name).mu
        forced, _ = run(mu, steps, seed, force=True)
        plain, _ = run(mu, steps, seed)
        differ += not np.array_equal(forced, plain)
    assert differ >= 1


def test_lifted_models_keep_highs():
    """From ``boundcalc.lp.rule.LIFTED_MIN_ARMS`` arms line 11 runs on the lifted model (rows with other coefficients and
    auxiliary variables): neither simplex path is taken there."""
    big = CWRMED(rule.LIFTED_MIN_ARMS)
    assert big._arrays.reg[SPX] == 0 and big.solver.lift
    for small in (CWRMED(2), CWRMED(rule.LIFTED_MIN_ARMS - 1)):
        assert small._arrays.reg[SPX] == CWRMED.simplex_pivots and small.solver.simplex and not small.solver.lift


@pytest.mark.parametrize("seed", [3, 11])
@pytest.mark.slow
def test_same_pairs_on_random_matrices(seed):
    """Random 12-arm matrices (gaps from 0.01: many near ties, structures changing often), 3,000
    steps: the simplex's pairs are HiGHS's."""
    from boundcalc.datasets import random_matrix

    mu = random_matrix(12, seed, min_gap=0.01).mu
    ref, s_ref = run(mu, 3000, seed, **HIGHS_ONLY)
    got, s = run(mu, 3000, seed)
    np.testing.assert_array_equal(got, ref)
    assert s_ref["lp_solves"] > 0 and s["lp_solves"] < s_ref["lp_solves"]


@pytest.mark.slow
def test_simplex_basis_read_equals_basis_matrix(monkeypatch):
    """CW-RMED reads the LP core's simplex bases from the simplex's own ``M^-1``
    (``policies.cw_rmed._simplex_basis``) instead of inverting ``M`` again: the same basic variables,
    tight rows and CSR as :func:`~boundcalc.kernels.cw_rmed.basis_matrix`, ``(M^-1)^T`` within 1e-12,
    on every basis of 3,000 steps of panel (a)."""
    from boundcalc.kernels.cw_rmed import basis_matrix
    from boundcalc.policies import cw_rmed as C

    seen = []
    real = C._basis_parts

    def check(lp):
        if lp._sx is not None:
            x, status, row_basic = lp.basis_status()
            status[(lp._ub <= lp._lb) & (status != 1)] = 3
            a = basis_matrix(status, row_basic, lp._starts, lp._idx)
            b = C._simplex_basis(lp)
            assert a[0] and b[0]
            for u, v in zip(a[1:4], b[1:4]):
                np.testing.assert_array_equal(u, v)
            np.testing.assert_allclose(b[4], a[4], atol=1e-12)
            seen.append(a[1].size)
        return real(lp)

    monkeypatch.setattr(C, "_basis_parts", check)
    run(load_example("fig1a").mu, 3000, 0)
    assert len(seen) > 50 and max(seen) > 10
