"""The LP core's warm sorted-pools path (a :class:`~boundcalc.lp.lifted.SortedPoolModel` kept per
structure and winner, a pool's new cost order only a cost change of it,
:meth:`~boundcalc.lp.lifted.SortedPoolModel.set_pair_costs`) and CW-RMED on it, against independent
references:

* the kept model's value after cost changes that reorder the pools equals the exact rational LP
  over every row of ``R_{i1}`` (000 eq. (2) enumerated with itertools: :func:`test_review_lp.exact_lower_bound`)
  and the certified plain cutting plane, on random small matrices and costs with exact ties
  (hypothesis, seeded); with the perturbation its allocation is the plain model's (the one
  perturbed optimum), and equals a cold sorted model built for the new costs;
* CW-RMED's pairs with the sorted path (the rule's from 32 arms, forced at 20) are those of the
  plain path with the compiled simplex, and the sorted models are really used (new cost orders met, bases kept); without the
  perturbation the two paths part (the test has teeth);
* a failure of the sorted model falls back to the plain model (same answer, counted), and bad
  options are refused.
"""

from __future__ import annotations

import numpy as np
import pytest
from builders import cw_variant, lp_solver
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs
from test_review_lp import exact_lower_bound

from boundcalc.datasets import random_matrix
from boundcalc.kernels.perturb import perturb_costs
from boundcalc.lp.constraints import CopelandFamily
from boundcalc.lp.cutting import pair_costs
from boundcalc.lp.lifted import SortedPoolModel, sorted_rounds
from boundcalc.lp.online import CopelandLPSolver
from boundcalc.lp.structure import as_structure, empirical_structure, structure_d, triu
from boundcalc.policies.cw_rmed import CWRMED


def _regret(K: int, rng: np.random.Generator, ties: bool) -> np.ndarray:
    """A symmetric pair regret (a custom regret: any non-negative costs ``r / d``); with ``ties``
    drawn from {1, 2}, so that many pairs of a pool cost the same when their ``d`` agree."""
    R = rng.integers(1, 3, (K, K)).astype(float) if ties else rng.uniform(0.05, 3.0, (K, K))
    R = np.triu(R, 1)
    return R + R.T


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(K=hs.integers(4, 7), seed=hs.integers(0, 10**6), ties=hs.booleans())
@pytest.mark.slow
def test_kept_sorted_model_equals_the_exact_lp_after_reorders(K, seed, ties):
    """One solver answers the same structure under three regrets in turn (the kept sorted model,
    re-costed, pools reordered): every value equals the exact rational LP's and the certified plain
    cutting plane's."""
    rng = np.random.default_rng(seed)
    mu = np.full((K, K), 0.5)
    iu = np.triu_indices(K, 1)
    # near ties as well: some gaps of 1e-4 (costs r / d over eight orders of magnitude)
    gaps = np.where(rng.random(iu[0].size) < 0.3, 1e-4, rng.uniform(0.02, 0.3, iu[0].size))
    mu[iu] = 0.5 + gaps * rng.choice([-1.0, 1.0], iu[0].size)
    mu[(iu[1], iu[0])] = 1.0 - mu[iu]
    st = empirical_structure(mu)
    solver = lp_solver(seed=0)
    for _ in range(3):
        R = _regret(K, rng, ties)
        got = solver.solve_empirical(st, regret=R)
        ref = lp_solver(lift=False).solve_empirical(st, regret=R, certify=True)
        assert got.status == "ok" and ref.status == "ok", (got.message, ref.message)
        for w in st.winners.tolist():
            exact = exact_lower_bound(st, w, regret=R)
            assert got.per_winner[w] == pytest.approx(exact, rel=1e-8, abs=1e-10)
            assert ref.per_winner[w] == pytest.approx(exact, rel=1e-8, abs=1e-10)
    assert solver.sorted_fallbacks == 0


def _kept_vs_cold(st, costs_seq, perturb=1e-6):
    """The kept sorted model's pair values along ``costs_seq`` (re-costed each time), the cold
    sorted model's built for each costs (all perturbed)."""
    w = int(st.winners[0])
    fam = CopelandFamily(st, w)
    upper = np.where(structure_d(st)[triu(st.K)] > 0, 1.0, 0.0)
    kept = None
    out = []
    for c in costs_seq:
        cp = perturb_costs(c, perturb) if perturb else c
        if kept is None:
            kept = SortedPoolModel(fam, cp, upper, reuse_basis=True)
        else:
            kept.set_pair_costs(cp)
        e, v, why = sorted_rounds(kept, 1e-9, 3, 500)
        assert why == "" and v <= 1e-9
        cold = SortedPoolModel(fam, cp, upper)
        e_cold, _, why = sorted_rounds(cold, 1e-9, 3, 500)
        assert why == ""
        out.append((e, e_cold))
    return kept, out


def test_reordered_model_is_the_cold_model_of_the_new_costs():
    """A 24-arm random matrix, costs scaled per pair at random (pool orders change every time): the
    kept model re-costed gives the cold sorted model's pair values, and their cost is the plain
    solver's C* for the same costs (certified against its dual bound)."""
    pm = random_matrix(24, 3)
    st = as_structure(pm)
    rng = np.random.default_rng(0)
    base = pair_costs(st)
    seq = [base] + [base * rng.uniform(0.2, 5.0, base.size) for _ in range(6)]
    kept, out = _kept_vs_cold(st, seq)
    assert kept.order_changes >= 5
    w = int(st.winners[0])
    for c, (e, e_cold) in zip(seq, out):
        np.testing.assert_allclose(e, e_cold, rtol=0, atol=1e-9)
        R = np.zeros((st.K, st.K))
        d = structure_d(st)
        iu = triu(st.K)
        R[iu] = c * d[iu]
        R = R + R.T
        ref = lp_solver(perturb=1e-6, lift=False).solve(pm, regret=R, winners=[w])
        assert ref.status == "ok"
        assert float(c @ e) == pytest.approx(ref.per_winner[w], rel=1e-9)


def test_kept_basis_answers_without_highs_when_the_order_holds():
    """Costs scaled by a common factor keep every pool's order and the optimal basis: the kept model
    answers with no HiGHS run (the reduced-cost test), with the same pair values."""
    pm = random_matrix(20, 5)
    st = as_structure(pm)
    base = pair_costs(st)
    kept, out = _kept_vs_cold(st, [base, base * 1.7])
    assert kept.order_changes == 0 and kept.lp.reused >= 1
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=0, atol=1e-12)


def _cw_pairs(mu, steps, seed, **variant):
    cls = cw_variant(**variant)
    pol = cls(mu.shape[0], rng=np.random.default_rng(0))
    pairs, _ = pol.run(mu, steps, seed=seed)
    return np.asarray(pairs), pol


def _sorted_path(perturb: float) -> dict:
    """The solve path :func:`boundcalc.lp.rule.plan` gives CW-RMED from 32 arms (sorted pools,
    derived models, kept bases, HiGHS without scaling), to force on a smaller matrix."""
    from boundcalc.lp import rule

    p = rule.plan(rule.LIFTED_MIN_ARMS, perturb)
    extra = {"dual_simplex_cost_perturbation_multiplier": 0.0} if perturb > 0 else {}
    options = {**(p.highs_options or {}), **extra}
    return dict(lift=p.lift, derive=p.derive, simplex=p.simplex, reuse_basis=p.reuse_basis, highs_options=options)


@pytest.mark.slow
def test_cw_pairs_are_the_same_on_the_sorted_and_the_plain_path(monkeypatch):
    """A 20-arm random matrix, 3,000 steps of seed 8: the pairs with line 11 on the sorted-pool
    models (the path from 32 arms) equal those on the plain models with the compiled simplex (the
    path below 32); the sorted models answered (no fallback), met new pool orders, were derived
    from other structures' and kept bases."""
    mu = random_matrix(20, 7, min_gap=0.01).mu
    calls = {"reorders": 0}
    orig = SortedPoolModel.set_pair_costs

    def counting(self, costs):
        changed = orig(self, costs)
        calls["reorders"] += changed
        return changed

    monkeypatch.setattr(SortedPoolModel, "set_pair_costs", counting)
    ref, plain = _cw_pairs(mu, 3000, 8)
    got, pol = _cw_pairs(mu, 3000, 8, **_sorted_path(CWRMED.perturb))
    diff = np.nonzero((got != ref).any(axis=1))[0]
    assert diff.size == 0, f"the sorted path parts from step {diff[0]}"
    assert not plain.solver.lift and plain.solver.simplex
    assert pol.solver.lift and pol.solver.sorted_fallbacks == 0 and pol.stats["lp_solves"] > 0
    assert calls["reorders"] > 0 and pol.stats["warm_answers"] > 0 and pol.solver.derived > 0


@pytest.mark.slow
def test_without_the_perturbation_the_paths_part(monkeypatch):
    """The check above has teeth: with ``CWRMED.perturb = 0`` the degenerate LPs' vertices depend on
    the model, and the sorted path's pairs part from the plain path's."""
    monkeypatch.setattr(CWRMED, "perturb", 0.0)
    mu = random_matrix(20, 7, min_gap=0.01).mu
    ref, _ = _cw_pairs(mu, 3000, 8)
    got, _ = _cw_pairs(mu, 3000, 8, **_sorted_path(0.0))
    assert (got != ref).any()


def test_a_failed_sorted_model_falls_back_to_the_plain_model(monkeypatch):
    """The sorted loop reporting a stall: that (structure, winner) is answered by the plain model
    (the same C*, the certified value of a cold solve), counted in ``sorted_fallbacks``, and asked
    of the plain model from then on."""
    pm = random_matrix(24, 4)
    st = as_structure(pm)
    calls = []

    def stalled(model, tol, per_i2, max_rounds):
        calls.append(1)
        return None, 1.0, "stall (test)"

    monkeypatch.setattr("boundcalc.lp.online.sorted_rounds", stalled)
    solver = lp_solver(perturb=1e-6)
    a = solver.solve_online(st)
    b = solver.solve_online(st)
    ref = lp_solver(lift=False).solve(pm, certify=True)
    assert not a.failures and not b.failures
    assert solver.sorted_fallbacks == st.winners.size and len(calls) == st.winners.size
    for w in st.winners.tolist():
        assert a.per_winner[w] == pytest.approx(ref.per_winner[w], rel=1e-9)


def test_one_rule_picks_model_and_backend_by_use_and_arms():
    """boundcalc.lp.rule's table: offline the sorted pools; online plain with numpy kernels below 5
    arms, plain with the compiled simplex (perturbed costs only) from 5, sorted pools derived from
    the last structure's from 32; CW-RMED's solver follows it."""
    from boundcalc.lp import rule

    off = CopelandLPSolver()
    assert off.lift and not (off.compiled or off.simplex or off.derive)
    for K, lift, compiled, simplex, derive in [
        (4, False, True, True, False),
        (5, False, True, True, False),
        (31, False, True, True, False),
        (32, True, True, False, True),
    ]:
        s = CWRMED(K).solver
        got = (s.lift, s.compiled, s.simplex, s.derive)
        assert got == (lift, compiled, simplex, derive), K
        assert (s.perturb, s.cache_size) == (CWRMED.perturb, CWRMED.cache_size)
        assert (K >= rule.LIFTED_MIN_ARMS) == s.lift and s.compiled
    assert not CopelandLPSolver(online=16).simplex  # the compiled simplex needs perturbed costs
    assert CWRMED(32).solver.highs_options == {
        "dual_simplex_cost_perturbation_multiplier": 0.0,
        "simplex_scale_strategy": 0,
    }


def test_pool_order_is_cost_then_arm_order_by_hand():
    """The order a sorted model gives its pools (:meth:`SortedPoolModel._pool_order`: a check of the
    kept order, else two stable sorts) against Python's ``sorted`` per pool by ``(cost, arm)``, on
    costs with many exact ties, along a sequence of costs (kept and changed orders)."""
    pm = random_matrix(16, 2)
    st = as_structure(pm)
    fam = CopelandFamily(st, int(st.winners[0]))
    rng = np.random.default_rng(1)
    P = st.K * (st.K - 1) // 2
    model = SortedPoolModel(fam, rng.integers(1, 4, P).astype(float), np.ones(P))
    kinds = []
    for r in range(12):
        c = rng.integers(1, 4, P).astype(float) if r % 3 else rng.uniform(0.1, 1.0, P)
        for t in range(3):  # then the kept order; then two costs moved (their pools sorted alone)
            if t == 2:
                c = c.copy()
                c[rng.integers(0, P, 2)] *= 3.0
            kinds.append(model.set_pair_costs(c))
            # the model's costs, updated in the moved pools alone, are those summed over all pools
            np.testing.assert_array_equal(model.lp.costs, model._slot_costs(c, model._seq_now))
            want = []
            for i2 in range(st.K):
                arms = np.flatnonzero(fam.pool[i2]).tolist()
                want += [int(fam.pid[i2, j]) for j in sorted(arms, key=lambda j: (c[fam.pid[i2, j]], j))]
            assert model._seq_now.tolist() == want
    assert any(kinds) and not all(kinds)


@pytest.mark.parametrize("K,seed", [(6, 0), (7, 1), (7, 2), (24, 3)])
@pytest.mark.slow
def test_derived_sorted_model_answers_the_new_structure(K, seed):
    """A sorted model derived from a neighbouring structure's (one pair away from the winner flipped:
    :meth:`SortedPoolModel.for_structure`, rows of the unchanged pools and the basis kept) answers the new
    structure: the exact rational LP's value at small K, the certified plain solver's at 24 arms,
    with the perturbed allocation of a cold sorted solve."""
    pm = random_matrix(K, seed)
    mu = pm.mu.copy()
    st1 = empirical_structure(mu)
    w = int(st1.winners[0])
    derived = 0
    for a in range(K):
        for b in range(a + 1, K):
            if w in (a, b):
                continue
            mu2 = mu.copy()
            mu2[a, b], mu2[b, a] = mu[b, a], mu[a, b]
            st2 = empirical_structure(mu2)
            if st2.winners.tolist() != [w]:
                continue
            solver = lp_solver(derive=True, perturb=1e-6, seed=0)
            solver.solve_online(st1)
            got = solver.solve_online(st2)
            assert not got.failures and solver.sorted_fallbacks == 0
            derived += solver.derived
            cold = CopelandLPSolver(perturb=1e-6, seed=0).solve_online(st2)
            np.testing.assert_allclose(got.values[w], cold.values[w], rtol=0, atol=1e-9)
            if K <= 7:
                assert got.per_winner[w] == pytest.approx(exact_lower_bound(st2, w), rel=1e-8, abs=1e-10)
            else:
                ref = lp_solver(lift=False).solve_empirical(st2, certify=True)
                assert ref.status == "ok" and got.per_winner[w] == pytest.approx(ref.per_winner[w], rel=1e-9)
                if derived >= 6:
                    break
        if K > 7 and derived >= 6:
            break
    assert derived > 0


def test_kept_perturbation_weights_are_perturb_costs_bit_for_bit():
    """The solver keeps ``delta g`` between solves (:meth:`CopelandLPSolver._perturbed`): the costs
    equal :func:`~boundcalc.kernels.perturb.perturb_costs`' bit for bit, for costs over 30 orders of
    magnitude and changing sizes, and 0 leaves the costs themselves."""
    from boundcalc.kernels.perturb import perturb_costs

    s = CopelandLPSolver(perturb=1e-6)
    rng = np.random.default_rng(0)
    for n in (6, 6, 2016, 120, 2016):
        c = 10.0 ** rng.uniform(-10, 20, n)
        assert np.array_equal(s._perturbed(c), perturb_costs(c, 1e-6))
    c = np.ones(5)
    assert CopelandLPSolver()._perturbed(c) is c


def test_online_pair_costs_are_pair_costs_bit_for_bit():
    """The line-11 solver's costs from the pairs alone (``_pair_costs_000``) equal :func:`pair_costs`
    (000's regret matrix, then the pairs) bit for bit, with empirical ties (cost 1) and near ties."""
    from boundcalc.lp.cutting import _pair_costs_000

    rng = np.random.default_rng(3)
    for K in (4, 16, 64):
        mu = np.full((K, K), 0.5)
        iu = np.triu_indices(K, 1)
        u = 0.5 + rng.choice([0.0, 1e-7, 0.01, 0.2], iu[0].size) * rng.choice([-1, 1], iu[0].size)
        mu[iu] = u
        mu[(iu[1], iu[0])] = 1.0 - u
        st = empirical_structure(mu)
        assert np.array_equal(_pair_costs_000(st), pair_costs(st))


@pytest.mark.parametrize("seed", range(12))
def test_slot_costs_are_summed_per_pool_next_to_near_ties(seed):
    """A pool whose pairs lie 1e-9 from 1/2 (costs ~1e17) ahead of pools with costs ~1: the sorted
    model's value is still the exact rational LP's (a running sum over all pools, less its value at a
    pool's start, loses the cheap pool's costs: the slot costs are summed per pool)."""
    K = 7
    rng = np.random.default_rng(seed)
    mu = random_matrix(K, 10 + seed).mu.copy()
    st0 = empirical_structure(mu)
    w = int(st0.winners[0])
    i2 = min(i for i in range(K) if i != w and st0.beats[:, i].sum() >= 2)  # an early pool, 2+ pairs
    for j in np.flatnonzero(st0.beats[:, i2]).tolist():
        if j != w:
            mu[j, i2] = 0.5 + 1e-9 * rng.uniform(1, 2)
            mu[i2, j] = 1.0 - mu[j, i2]
    st = empirical_structure(mu)
    solver = lp_solver()
    res = solver.solve_empirical(st, regret=st.regret)  # 000's regret, given: the LP, not Theorem 6
    assert res.status == "ok" and solver.sorted_fallbacks == 0
    assert all(isinstance(e.sorted, SortedPoolModel) for e in solver._cache.values())
    assert max(pair_costs(st)) > 1e14
    for v in st.winners.tolist():
        assert res.per_winner[v] == pytest.approx(exact_lower_bound(st, v), rel=1e-8)


def test_stored_checks_of_the_sorted_path_found_the_same_pairs():
    """The stored runs of this path (``benchmarks/cw_decisions.py`` and ``benchmarks/cw_ab.py``
    against revision 3 as it landed): every pair (SHA-256), win, regret curve and counter but those of
    LP work equal, on panel (c) and the 64-arm MSLR submatrix at 10^4 steps, panel (a) at 10^5, and
    in every interleaved timing run (panel (c) and the MSLR submatrix at 20,000 steps, panel (a) at
    10^5); the sorted path took fewer HiGHS runs at 64 arms."""
    import json
    from pathlib import Path

    res = Path(__file__).resolve().parent.parent / "benchmarks" / "results" / "cw_speed"
    rec = json.loads((res / "cw_decisions_pools.json").read_text())
    assert {("fig1a", 100_000), ("fig1c", 10_000), ("mslr64", 10_000)} <= {
        (r["example"], r["steps"]) for r in rec["rows"]
    }
    lp_work = ("lp_solves", "warm_answers")
    for r in rec["rows"]:
        new, old = r["this"], r["landed"]
        assert r["same_decisions"]
        for k in ("pairs", "wins", "regret", "curve"):
            assert new[k] == old[k], (r["example"], k)
        for k in ("stats", "loop_stats"):
            assert {a: b for a, b in new[k].items() if a not in lp_work} == {
                a: b for a, b in old[k].items() if a not in lp_work
            }
        if r["example"] != "fig1a":
            assert new["stats"]["lp_solves"] < old["stats"]["lp_solves"]
    ab = json.loads((res / "cw_ab_pools.json").read_text())
    assert {(r["case"], r["steps"]) for r in ab["rows"]} >= {("fig1c", 20_000), ("mslr64", 20_000), ("fig1a", 100_000)}
    for r in ab["rows"]:
        assert r["same_decisions"] and r["reps"] >= 2


def test_at_most_eight_arguments_per_lp_class_and_three_cw_rmed_options():
    import inspect

    from boundcalc.lp import constraints, cutting, highs, lifted, online, rule

    for mod in (constraints, cutting, highs, lifted, online, rule):
        for name, cls in inspect.getmembers(mod, inspect.isclass):
            if cls.__module__ == mod.__name__ and not issubclass(cls, Exception):
                assert len(inspect.signature(cls).parameters) <= 8, name
    meta = {"name", "reference", "revision", "stat_names", "kernels", "plot_style"}  # plot_style: figures only
    options = {
        k
        for k, v in vars(CWRMED).items()
        if not k.startswith("_") and not callable(v) and not isinstance(v, (classmethod, staticmethod, property))
    }
    assert options - meta == {"perturb", "cache_size", "simplex_pivots"}
