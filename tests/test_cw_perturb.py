"""CW-RMED's revision 3: line 11's LP solved with a deterministic cost perturbation
(:mod:`boundcalc.kernels.perturb`, ``CWRMED.perturb``), so that its pairs are a function of the data alone.

Paper 000 (Komiyama, Honda & Nakagawa, ICML 2016), Algorithm 1, line 11 plays an optimal solution of
the LP of eq. (2); where that LP is degenerate, the vertex a solve path reaches depends on the path
(the cache size, derived models, the cuts per round: the tests of the solve paths below fail with
``CWRMED.perturb = 0``).  What confirms the
numbers independently: the solve paths themselves (a model kept warm in a 64-entry cache, dropped
from a 4-entry one and rebuilt cold, derived from another structure's, fewer or more cuts a round) are different computations, and they must agree on every pair; the constants
reported with the perturbation are those of the unperturbed LP (Table 2's 27.5487 and panel (a)'s
1252.8 of the stored Figure 1 rows), certified by their own dual bounds, and where two pairs tie
in true cost the one the perturbation orders first by hand carries the allocation.
"""

from __future__ import annotations

import numpy as np
import pytest
from builders import cw_variant, lp_solver

from boundcalc.datasets import load_example, random_matrix
from boundcalc.kernels.cw_rmed import _perturbed_cost
from boundcalc.kernels.perturb import HASH_MOD, perturb_costs, perturbed_cost, weights
from boundcalc.lp.cutting import pair_costs
from boundcalc.lp.online import CopelandLPSolver
from boundcalc.lp.structure import empirical_structure
from boundcalc.policies.cw_rmed import CWRMED


def two_winner_matrix() -> np.ndarray:
    """5 arms, two Copeland winners (0 and 1, three wins each; no Condorcet winner) and gaps of
    0.02-0.04 on four pairs, so that the empirical structure often has one winner (line 11 by the LP)."""
    mu = np.full((5, 5), 0.5)
    for (i, j), v in {
        (0, 1): 0.52, (0, 2): 0.7, (0, 3): 0.65, (4, 0): 0.53, (1, 2): 0.6,
        (1, 3): 0.7, (1, 4): 0.62, (2, 3): 0.55, (2, 4): 0.58, (3, 4): 0.54,
    }.items():  # fmt: skip
        mu[i, j], mu[j, i] = v, 1.0 - v
    return mu


def pairs_of(mu: np.ndarray, steps: int, seed: int, **variant) -> np.ndarray:
    """CW-RMED's pairs (its own run loop, outcomes from ``seed``) with some class attributes changed,
    line 11's LP solved by HiGHS (the compiled simplex's paths: tests/test_cw_rmed_simplex.py)."""
    cls = cw_variant(simplex=False, simplex_pivots=0, **variant)
    pol = cls(mu.shape[0], rng=np.random.default_rng(0))
    pairs, _ = pol.run(mu, steps, seed=seed)
    assert pol.stats["lp_solves"] > 0  # line 11 reached HiGHS
    return np.asarray(pairs)


def assert_same_pairs(mu, steps, seed, variants):
    ref = pairs_of(mu, steps, seed)
    for v in variants:
        got = pairs_of(mu, steps, seed, **v)
        diff = np.nonzero((got != ref).any(axis=1))[0]
        assert diff.size == 0, f"{v}: other pairs from step {diff[0] if diff.size else None} (perturb {CWRMED.perturb})"


def test_the_class_perturbs_and_its_revision_says_so():
    assert CWRMED.perturb == 1e-6 and CWRMED.revision == 3
    pol = CWRMED(5)
    assert pol.solver.perturb == CWRMED.perturb
    assert pol.solver.highs_options["dual_simplex_cost_perturbation_multiplier"] == 0.0
    s = pol._arrays
    assert np.array_equal(s.cpert, weights(10)) and s.fr[4] == CWRMED.perturb  # kernels.cw_rmed.PERT


@pytest.mark.slow
def test_pairs_do_not_depend_on_the_solve_path_panel_a():
    """Figure 1 panel (a) (16 arms, one Copeland winner), 3,000 steps of seed 1: the LP core's cache
    of 4 models instead of 64 (models dropped and rebuilt cold), new structures' models derived from
    the last one of the same winner, and the two together: the same pairs.  Revision 2
    (``perturb = 0``) parts at step 892 with the derived models."""
    mu = load_example("fig1a").mu
    assert_same_pairs(mu, 3000, 1, [dict(cache_size=4), dict(derive=True), dict(cache_size=4, derive=True)])


@pytest.mark.parametrize("seed", [1, 3, 5])
def test_pairs_do_not_depend_on_the_solve_path_two_winners(seed):
    """A 5-arm matrix with two Copeland winners, 5,000 steps (about 100 HiGHS runs each): revision 2
    parts on seeds 1 (cache 4 and ``derive_plain`` together, step 46) and 3 (``derive_plain``, step 26)."""
    variants = [dict(cache_size=4), dict(derive=True), dict(cache_size=4, derive=True)]
    assert_same_pairs(two_winner_matrix(), 5000, seed, variants)


@pytest.mark.slow
def test_pairs_do_not_depend_on_the_solve_path_lifted():
    """32 arms (line 11 on the lifted, derived models; tests/policy_decisions.py's random matrix),
    3,000 steps of seed 8: cache 4, one sorted-model cut per ``i2`` and round, ``per_i2`` 2, models
    built cold instead of derived."""
    mu = random_matrix(32, 7, min_gap=0.01).mu
    variants = [dict(cache_size=4), dict(sorted_per_i2=1), dict(per_i2=2), dict(derive=False)]
    assert_same_pairs(mu, 3000, 8, variants)


def test_one_formula_for_numpy_and_the_compiled_step():
    """The compiled step's costs (:func:`boundcalc.kernels.cw_rmed._perturbed_cost`, scalar) equal the
    LP core's (:func:`boundcalc.kernels.perturb.perturb_costs`, arrays) bit for bit, over costs spanning 30
    orders of magnitude and 0; the weights are the hash by hand."""
    rng = np.random.default_rng(0)
    c = np.concatenate([[0.0, 1.0], 10.0 ** rng.uniform(-10, 20, 2000)])
    delta = 1e-6
    got = perturb_costs(c, delta)
    g = weights(c.size)
    compiled = np.array([_perturbed_cost(float(ci), delta * gi) for ci, gi in zip(c, g)])
    assert np.array_equal(got, compiled)
    assert np.array_equal(got, perturbed_cost(c, delta * g))
    p = np.arange(c.size)
    assert np.array_equal(g, np.array([((int(q) * 2654435761 + 12345) % 1000003) / 1000003 for q in p]))
    assert np.unique(g).size == g.size and g.min() >= 0 and g.max() < 1
    assert np.all(got >= c) and np.all(got - c <= delta * (c + 1) * (1 + 1e-15))
    assert perturb_costs(c, 0.0) is c
    with pytest.raises(ValueError, match="perturbation"):
        perturb_costs(c, -1e-6)
    with pytest.raises(ValueError, match="pairs"):
        weights(HASH_MOD + 1)
    with pytest.raises(ValueError, match="perturb"):
        CopelandLPSolver(perturb=float("nan"))


@pytest.mark.parametrize("lift", [False, True])
@pytest.mark.parametrize("name,value", [("table2", 27.5487), ("fig1a", 1252.8)])
def test_constants_are_those_of_the_true_costs(name, value, lift):
    """The constants with the perturbation are the unperturbed LP's (Table 2's 27.5487: the LP core's
    doctest; panel (a)'s 1252.8: the C* the Figure 1 rows state), to 1e-12, and certified against
    the true LP (the dual bound of the true costs: gap within ``gap_tol``)."""
    pm = load_example(name)
    plain = lp_solver(lift=lift).solve(pm, certify=True)
    pert = lp_solver(lift=lift, perturb=1e-6).solve(pm, certify=True)
    assert pert.status == "ok", pert.message
    assert pert.value == pytest.approx(plain.value, rel=1e-12)
    assert round(pert.value, 4 if name == "table2" else 1) == value
    for w, cert in pert.certificates.items():
        assert not cert.problems() and abs(cert.relative_gap) < 1e-12
        e = pert.allocations[w][np.triu_indices(pm.K, 1)] * pm.structure.d[np.triu_indices(pm.K, 1)]
        assert pert.per_winner[w] == pytest.approx(float(pair_costs(pm) @ e), rel=1e-13)  # c.e, true c


def test_online_answer_is_one_vertex_with_true_constants():
    """On an empirical matrix of panel (a) where line 11's LP is degenerate (two pairs of equal
    cost and d: the state of seed 1 at step 312, where revision 2's paths and HiGHS's own cost
    perturbation chose differently), cold and derived solves, plain and lifted, return the same
    allocation (to 1e-12), the one the perturbation orders first by hand, and the true ``C*``."""
    mu = load_example("fig1a").mu
    pol = CWRMED(16, rng=np.random.default_rng(0))
    pol.run(mu, 312, seed=1)
    st = pol._structure()
    other = CWRMED(16, rng=np.random.default_rng(0))
    other.run(mu, 250, seed=1)
    st_other = other._structure()
    assert st.key != st_other.key
    w = int(st.winners[0])
    answers = []
    for lift in (False, True):
        cold = lp_solver(lift=lift, perturb=1e-6, seed=0).solve_online(st)
        warm_solver = lp_solver(lift=lift, perturb=1e-6, seed=0, derive=True)
        if w in st_other.winners:
            warm_solver.solve_online(st_other)
        warm = warm_solver.solve_online(st)
        answers += [cold, warm]
    true = lp_solver(lift=False, seed=0).solve_online(st)
    for a in answers:
        assert not a.failures
        np.testing.assert_allclose(a.values[w], answers[0].values[w], rtol=0, atol=1e-12)
        assert a.per_winner[w] == pytest.approx(true.per_winner[w], rel=1e-12)
    # pairs (7, 9) and (9, 10) (ids 85 and 99) have equal true cost and d (both undefeated draws,
    # d = log 2): the true LP is indifferent between them, the perturbed costs are not, and the one
    # of smaller weight g (99: 0.3643 against 0.3752) carries the allocation (e = 1) on every path
    c = pair_costs(st)
    assert c[85] == c[99] and st.d[7, 9] == st.d[9, 10]
    g = weights(c.size)
    assert g[99] < g[85]
    for a in answers:
        assert a.values[w][99] == pytest.approx(1.0, abs=1e-12) and a.values[w][85] == pytest.approx(0.0, abs=1e-12)


def test_empirical_structure_with_ties_is_solved_perturbed():
    """An empirical matrix with an exact tie (a tied pair costs 1, lies in no row, e = 0): the
    perturbed solve keeps e = 0 there and the true constant."""
    mu = load_example("table2").mu.copy()
    mu[1, 2] = mu[2, 1] = 0.5
    st = empirical_structure(mu)
    a = CopelandLPSolver(perturb=1e-6).solve_empirical(st, certify=True)
    b = CopelandLPSolver().solve_empirical(st, certify=True)
    assert a.status == b.status == "ok"
    assert a.value == pytest.approx(b.value, rel=1e-12)
    for w in a.allocations:
        assert a.allocations[w][1, 2] == 0.0


def test_no_perturbation_is_revision_2(monkeypatch):
    """``CWRMED.perturb = 0`` solves as revision 2 did (the same costs, HiGHS options and constants
    to the bit): its pairs on the recorded 4- and 5-arm streams are revision 2's record, and
    revision 3's differ on the MSLR ones (tests/data/policy_decisions.json)."""
    import policy_decisions as pd

    small = [s for s in pd.STREAMS if s[0] != "random32"]
    recorded = pd.load()["policies"]["cw-rmed"]
    monkeypatch.setattr(CWRMED, "perturb", 0.0)
    assert CWRMED(5).solver.highs_options is None
    assert pd.record("cw-rmed", small) == recorded["2"][: len(small)]
    assert [a == b for a, b in zip(recorded["2"], recorded["3"])][: len(small)] == [True, False, False]
