"""RMED2 (Komiyama et al., COLT 2015, Algorithm 3) and Copeland SAVAGE (paper 003): the rules on
hand-built states (on the plain transcriptions of ``tests/reference_policies.py``), RMED2's target
(the package's compiled one and the transcription's) against the LP core's l = 0 rows with RMED's
regret, SAVAGE's Copeland predicate against brute force, the two pitfalls of their readings (each test
fails on the buggy variant), the compiled policies against the transcriptions and their whole-run
kernels against their protocol path over long runs, and behaviour on the two 5-arm MSLR matrices.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference_policies import (
    RMED2,
    SAVAGE,
    copeland_active_pairs,
    drive_both,
    empirical_divergence,
    rmed2_target,
    savage_log_term,
)

from boundcalc.datasets import load_example, random_matrix
from boundcalc.lp import CopelandLPSolver
from boundcalc.matrix import kl_half
from boundcalc.policies import make_policy
from boundcalc.policies import rmed2 as compiled_rmed2
from boundcalc.policies import savage as compiled_savage
from boundcalc.simulate import DuelEnvironment, run_one, simulate


def _d(p):
    return float(kl_half(p))


def _random_counts(rng, K, max_n):
    W = np.zeros((K, K), dtype=np.int64)
    for i in range(K):
        for j in range(i + 1, K):
            n = int(rng.integers(1, max_n + 1))
            w = int(rng.integers(0, n + 1))
            W[i, j], W[j, i] = w, n - w
    return W, W + W.T


# ----------------------------------------------------------------------------- RMED2
# Hand-built state, 4 arms, arm 0 the empirical Condorcet winner (mu_hat as counts / 20):
#   mu_hat_01 = .55, mu_hat_02 = .55 (over 200 draws), mu_hat_03 = .95, mu_hat_21 = .30,
#   mu_hat_23 = .10, mu_hat_13 = .60.
# For l = 2 the costs (Delta_{0 2} + Delta_{0 j}) / d(mu_hat_2j) are, by hand,
#   j = 0: (.05 + 0) / d(.45) = 9.99;  j = 1: (.05 + .05) / d(.30) = 1.215;
#   j = 3: (.05 + .45) / d(.10) = 1.359  ->  b(2) = 1.
# A negated numerator picks j = 0 (most negative) or, floored at 0.01, argmax d = 3.
_HAND_W = np.array([[0, 11, 110, 19], [9, 0, 14, 12], [90, 6, 0, 2], [1, 8, 18, 0]], dtype=np.int64)


def test_rmed2_target_by_hand():
    W = _HAND_W
    N = W + W.T
    costs = {0: 0.05 / _d(0.45), 1: 0.10 / _d(0.30), 3: 0.50 / _d(0.10)}
    assert costs[1] < costs[3] < costs[0]
    assert costs[0] == pytest.approx(9.99, abs=0.01) and costs[1] == pytest.approx(1.215, abs=1e-3)
    assert rmed2_target(W, N, 0, 2) == 1
    assert rmed2_target(W, N, 0, 0) == -1  # nobody beats the winner
    assert [compiled_rmed2.rmed2_target(W, N, 0, l, 0.01) for l in (2, 0, 3)] == [1, -1, 0]
    # l = 3 is beaten by 0 (mu_hat_30 = .05) and 1 (.40): (.45 + 0)/d(.05) = 0.91 < (.45 + .05)/d(.40) = 24.9
    assert 0.45 / _d(0.05) == pytest.approx(0.910, abs=1e-3) and 0.5 / _d(0.40) > 24
    assert rmed2_target(W, N, 0, 3) == 0
    # every cost is positive: the numerator is a regret
    assert all(c > 0 for c in costs.values())


def _at(cls, W, l, **kw):
    p = cls(W.shape[0], **kw)
    p.wins[:] = W
    p.draws[:] = W + W.T
    p.t = int(p.draws.sum() // 2) + 1
    p._initial = False
    p._LC, p._pos = [l], 0
    p._LR = {l}
    return p


class _NegatedNumerator(RMED2):
    """The public-code pitfall: the regret numerator with its sign flipped (Delta_{l i*} + Delta_{j i*},
    i.e. mu_hat_{l i*} + mu_hat_{j i*} - 1), floored as in the C++."""

    def _target(self, istar, l):
        W, N = self.wins, self.draws
        mu = lambda a, b: W[a, b] / N[a, b] if N[a, b] else 0.5
        best, arg = math.inf, -1
        for j in range(self.K):
            if j == l or not 2 * W[l, j] < N[l, j]:
                continue
            num = max((mu(l, istar) - 0.5) + (mu(j, istar) - 0.5 if j != istar else 0.0), self.params["delta_floor"])
            c = num / _d(W[l, j] / N[l, j])
            if c < best:
                best, arg = c, j
        return arg


class _NegatedUnfloored(RMED2):
    """The same pitfall without the floor."""

    def _target(self, istar, l):
        W, N = self.wins, self.draws
        mu = lambda a, b: W[a, b] / N[a, b] if N[a, b] else 0.5
        cands = [j for j in range(self.K) if j != l and 2 * W[l, j] < N[l, j]]
        cost = [-((mu(istar, l) - 0.5) + (mu(istar, j) - 0.5)) / _d(W[l, j] / N[l, j]) for j in cands]
        return cands[int(np.argmin(cost))] if cands else -1


@pytest.mark.parametrize("cls,ok", [(RMED2, True), (_NegatedNumerator, False), (_NegatedUnfloored, False)])
def test_rmed2_numerator_is_the_regret(cls, ok):
    """Issue 8's pitfall: on the hand-built state (l = 2, i* = 0, N_{2 0} log log t > N_{2 1} so
    line 3 does not send l to i*) RMED2 draws (2, b(2)) = (2, 1); either buggy variant does not."""
    p = _at(cls, _HAND_W, 2)
    assert p.best_arm()[0] == 0
    pair = p.select_pair()
    if ok:
        assert pair == (2, 1) and p.stats["to_target"] == 1
    else:
        assert pair != (2, 1)


def test_rmed2_line3_sends_to_the_winner():
    """When N_{l i*} <= N_{l b(l)} / log log t (i* an opponent of l), m = i*."""
    W = _HAND_W.copy()
    W[2, 0], W[0, 2] = 9, 11  # N_20 = 20 = N_21: 20 log log t > 20, so still the target
    p = _at(RMED2, W, 2)
    assert math.log(math.log(p.t)) > 1 and p.select_pair() == (2, 1)
    W[2, 1], W[1, 2] = 60, 140  # N_21 = 200 >= 20 log log t: compare with the winner
    assert rmed2_target(W, W + W.T, 0, 2) == 1
    p = _at(RMED2, W, 2)
    assert p.select_pair() == (2, 0) and p.stats["to_winner"] == 1


def test_rmed2_forced_exploration_and_winner_self_duel():
    """Line 1: a pair below alpha log log t draws is forced (lexicographic first, l not consumed);
    the empirical winner with nobody beating it self-duels (RMED1's rule)."""
    W = _HAND_W.copy()
    p = _at(RMED2, W, 0)
    assert p.select_pair() == (0, 0) and p.stats["self_duels"] == 1
    p.update(0, 0, True)
    W[1, 3], W[3, 1] = 1, 1  # N_13 = 2 < 3 log log t
    q = _at(RMED2, W, 2)
    assert 2 < 3 * math.log(math.log(q.t))
    assert q.select_pair() == (1, 3) and q.stats["forced"] == 1
    q.update(1, 3, True)
    assert q._LC == [2] and q._pos == 0  # l(t) not consumed by the forced draw


def test_rmed2_target_is_the_lp_l0_allocation(rng):
    """b(l) = the support of l's row in the optimum of 000's LP restricted to l = 0 with RMED's
    regret (Delta_wi + Delta_wj)/2 on the empirical matrix (w its Condorcet winner), solved by the
    LP core; the LP's value = sum_l (regret / d) at b(l).  Floor made inactive (1e-300)."""
    solver = CopelandLPSolver(levels=[0])
    checked = 0
    while checked < 25:
        K = int(rng.integers(3, 7))
        W, N = _random_counts(rng, K, 40)
        mu = np.where(N > 0, W / np.maximum(N, 1), 0.5)
        np.fill_diagonal(mu, 0.5)
        I = empirical_divergence(W, N)
        w = int(np.argmin(I))
        others = [j for j in range(K) if j != w]
        if not all(2 * W[w, j] > N[w, j] for j in others):
            continue
        if np.any((mu == 0.5) & ~np.eye(K, dtype=bool)):
            continue
        delta = mu[w] - 0.5
        delta[w] = 0.0
        R = 0.5 * (delta[:, None] + delta[None, :])
        np.fill_diagonal(R, 0.0)
        res = solver.solve_empirical(mu, regret=R, winners=[w])
        E = np.asarray(res.allocation)
        total = 0.0
        for l in others:
            b = rmed2_target(W, N, w, l, floor=1e-300)
            cost = {j: R[l, j] / _d(mu[l, j]) for j in range(K) if mu[l, j] < 0.5}
            assert b == min(cost, key=lambda j: (cost[j], j))
            total += cost[b]
            ratio = sorted(cost.values())
            if len(ratio) == 1 or ratio[1] > ratio[0] * (1 + 1e-6):  # unique optimum: the LP's row
                assert E[l, b] * _d(mu[l, b]) == pytest.approx(1.0, rel=1e-6)
        assert res.value == pytest.approx(total, rel=1e-7)
        checked += 1


# ----------------------------------------------------------------------------- SAVAGE
def test_savage_radius_by_hand():
    """003 eq. (1): c(n) = sqrt(log(2 N T / delta) / (2 n)), N = K(K-1)/2, delta = 1/T; positive."""
    p = SAVAGE(5, horizon=1000)
    assert p.log_term == pytest.approx(math.log(20 * 1000 * 1000), rel=1e-15)
    assert p.radius(7) == pytest.approx(math.sqrt(math.log(2e7) / 14), rel=1e-15)
    for K, T, ds in itertools.product([2, 3, 16], [1, 10, 10**7], [1e-9, 0.5, 1.0]):
        lt = savage_log_term(K, T, ds)
        assert lt >= math.log(2.0) - 1e-15 and compiled_savage.savage_log_term(K, T, ds) == lt
        q = SAVAGE(K, horizon=T, delta_scale=ds)
        assert all(q.radius(n) > 0 for n in (1, 2, 10**6))


class _NegativeRadius(SAVAGE):
    """The public-code pitfall: a radius of the wrong sign (e.g. log(delta / 2NT) under the root,
    taken as -sqrt(|.|))."""

    def radius(self, n):
        return -super().radius(n)


@pytest.mark.parametrize("cls,ok", [(SAVAGE, True), (_NegativeRadius, False)])
def test_savage_radius_must_be_positive(cls, ok):
    """On the Condorcet MSLR matrix for 3000 rounds: with the positive radius every true mu_ij stays
    inside SAVAGE's box and the exploration goes on (c(300) = 0.21 decides at most the widest gaps);
    with the negated one the boxes exclude the truth and the policy stops exploring at once."""
    pm = load_example("mslr5-condorcet")
    p = cls(5)
    env = DuelEnvironment(pm.mu, 5, 6)
    for _ in range(3000):
        i, j = p.select_pair()
        p.update(i, j, env.duel(i, j))
    inside = np.all((p.lo <= pm.mu + 1e-12) & (pm.mu <= p.hi + 1e-12))
    if ok:
        assert inside and p.stats["self_duels"] == 0 and len(p.active_pairs()) >= 5
    else:
        assert not inside and p.stats["self_duels"] > 2900


def test_copeland_predicate_by_hand():
    lo = np.full((3, 3), 0.3)
    np.fill_diagonal(lo, 0.5)
    hi = 1.0 - lo.T
    assert copeland_active_pairs(lo, hi) == [(0, 1), (0, 2), (1, 2)]  # nothing known
    lo[0, 1], hi[1, 0] = 0.6, 0.4  # 0 beats 1 for sure: (0, 1) decided
    hi[0, 1], lo[1, 0] = 0.9, 0.1
    assert copeland_active_pairs(lo, hi) == [(0, 2), (1, 2)]
    lo[0, 2], hi[2, 0] = 0.6, 0.4  # 0 beats 2: Lo_0 = 2 > Up_1, Up_2 <= 1: nothing left
    hi[0, 2], lo[2, 0] = 0.9, 0.1
    assert copeland_active_pairs(lo, hi) == []


@st.composite
def st_box(draw):
    K = draw(st.integers(2, 5))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    lo = np.full((K, K), 0.5)
    hi = np.full((K, K), 0.5)
    for i in range(K):
        for j in range(i + 1, K):
            kind = rng.integers(3)  # decided for i, decided for j, undecided
            a, b = sorted(rng.uniform(0, 1, 2))
            if kind == 0:
                a, b = 0.5 + a / 2, 0.5 + b / 2
            elif kind == 1:
                a, b = a / 2, b / 2
            else:
                a, b = a / 2, 0.5 + b / 2
            lo[i, j], hi[i, j] = a, b
            lo[j, i], hi[j, i] = 1 - b, 1 - a
    return lo, hi, draw(st.permutations(range(K)))


def _winner_sets(lo, hi):
    """Copeland winner sets over every orientation of the undecided pairs (brute force)."""
    K = lo.shape[0]
    und = [(i, j) for i in range(K) for j in range(i + 1, K) if lo[i, j] <= 0.5 <= hi[i, j]]
    out = {}
    for bits in itertools.product([0, 1], repeat=len(und)):
        beats = lo > 0.5
        beats = beats.copy()
        for (i, j), b in zip(und, bits):
            beats[i, j], beats[j, i] = bool(b), not b
        s = beats.sum(axis=1)
        out[bits] = frozenset(np.flatnonzero(s == s.max()).tolist())
    return und, out


@settings(max_examples=150, deadline=None)
@given(st_box())
def test_copeland_predicate_against_brute_force(case):
    """A pair the predicate drops is truly independent (flipping it never changes the winner set,
    whatever the other undecided pairs do); an empty W leaves one winner set, containing
    argmax Lo; the predicate relabels with the arms."""
    lo, hi, perm = case
    K = lo.shape[0]
    act = set(copeland_active_pairs(lo, hi))
    und, sets = _winner_sets(lo, hi)
    for k, (i, j) in enumerate(und):
        if (i, j) in act:
            continue
        for bits, ws in sets.items():
            flipped = bits[:k] + (1 - bits[k],) + bits[k + 1 :]
            assert sets[flipped] == ws
    if not act:
        assert len(set(sets.values())) == 1
        low = ((lo > 0.5) & ~np.eye(K, dtype=bool)).sum(axis=1)
        assert int(np.argmax(low)) in next(iter(sets.values()))
    P = np.array(perm)
    actp = copeland_active_pairs(lo[np.ix_(P, P)], hi[np.ix_(P, P)])
    back = {tuple(sorted((int(P[a]), int(P[b])))) for a, b in actp}
    assert back == act


def test_savage_explores_then_exploits_the_copeland_winner():
    """With a short horizon (small radius) on a matrix with clear gaps, W empties and the Copeland
    winner's self-duel is played from then on; pairs are drawn least-sampled first."""
    pm = load_example("mslr5-condorcet")
    p = make_policy("savage", 5, horizon=100)
    env = DuelEnvironment(pm.mu, 1, 2)
    pairs = []
    for _ in range(20000):
        i, j = p.select_pair()
        p.update(i, j, env.duel(i, j))
        pairs.append((i, j))
    assert pairs[:10] == [(i, j) for i in range(5) for j in range(i + 1, 5)]
    first = next(t for t, (i, j) in enumerate(pairs) if i == j)
    assert all(i == j == 0 for i, j in pairs[first:])
    assert p.stats == {"exploration": first, "self_duels": 20000 - first}


# ----------------------------------------------------------------------------- compiled = transcription
CASES = [
    load_example("mslr5-condorcet"),
    load_example("mslr5-noncondorcet"),
    load_example("table2"),
    random_matrix(2, 5, min_gap=0.1),
    random_matrix(4, 6, min_gap=0.05, condorcet=True),
    random_matrix(7, 7, min_gap=0.02),
]
PARAMS = [
    ("rmed2", {}),
    ("rmed2", {"alpha": 1.0, "delta_floor": 0.2}),
    ("savage", {"horizon": 30}),
    ("savage", {"horizon": 10**5}),
]


@pytest.mark.parametrize("name,params", PARAMS)
def test_compiled_equals_transcription(name, params):
    """Pair for pair against the transcription (1,500 rounds on three matrices), with non-default
    hyperparameters too."""
    for k in (0, 2, 5):
        first, p, r = drive_both(name, CASES[k], 1500, seed=k, params=params)
        assert first is None, (name, k, first)
        assert p.stats == r.stats


@pytest.mark.parametrize("name,params", PARAMS)
def test_kernel_equals_protocol_long_runs(name, params):
    """The whole-run kernel against the protocol path (the contract test uses T = 600): 5,000
    rounds, the same regret at every round (the regret matrix numbers the pairs) and stats, every
    branch of the policy visited."""
    seen = {}
    full = make_policy(name, 2, **params).params
    for k, pm in enumerate(CASES):
        K = pm.K
        T = 5000
        code = np.arange(K * K, dtype=float).reshape(1, K, K)
        cps = np.arange(1, T + 1)
        a = run_one(name, full, pm.mu, T, cps, code, seed=k, run=0, fast=True)
        b = run_one(name, full, pm.mu, T, cps, code, seed=k, run=0, fast=False)
        assert a["kernel"] and not b["kernel"]
        assert np.array_equal(a["regret"], b["regret"]), (name, k)
        assert a["stats"] == b["stats"]
        for key, v in a["stats"].items():
            seen[key] = seen.get(key, 0) + v
    if name == "savage" and params["horizon"] == 10**5:
        assert seen["exploration"] > 0
    else:
        assert all(v > 0 for v in seen.values()), seen


# ----------------------------------------------------------------------------- behaviour
@pytest.mark.slow
@pytest.mark.parametrize(
    "matrix,horizons", [("mslr5-condorcet", (10**3, 10**4, 10**5)), ("mslr5-noncondorcet", (10**3, 10**4, 10**5))]
)
def test_rmed2_share_outside_copeland_winners_falls(matrix, horizons):
    """Issue 8 point 3 for RMED2 (10 runs, seed 0; measured with 20 runs: Condorcet 0.73 / 0.45 /
    0.06, non-Condorcet 0.57 / 0.47 / 0.28)."""
    res = simulate(load_example(matrix), ["rmed2"], horizon=horizons[-1], runs=10, seed=0, bounds=False)
    cps = res.checkpoints.tolist()
    share = [res.mean("rmed2", "nonwinner")[cps.index(T)] / T for T in horizons]
    assert share[0] > share[1] > share[2], share


@pytest.mark.slow
@pytest.mark.parametrize(
    "matrix,horizons", [("mslr5-condorcet", (10**3, 10**4, 10**5)), ("mslr5-noncondorcet", (10**3, 10**5, 10**7))]
)
def test_savage_share_outside_copeland_winners_falls(matrix, horizons):
    """Issue 8 point 3 for SAVAGE, each T a separate run with ``horizon = T`` (001 Sec. 5: "each
    point is obtained by resetting the time horizon").  Measured (seed 0): Condorcet 1.00 / 0.99 /
    0.16 (20 runs); non-Condorcet 0.70 / 0.69 / 0.14 at 10^3 / 10^5 / 10^7 (6, 6, 2 runs), but 0.81 at 10^6: the
    pair (2, 3) (gap 0.004) must be decided to certify arm 2 as a Copeland winner, and it is the
    last pair explored, so the share first rises before the exploitation phase takes over."""
    share = []
    for T in horizons:
        runs = 6 if T <= 10**5 else 2
        res = simulate(
            load_example(matrix),
            ["savage"],
            horizon=T,
            runs=runs,
            seed=0,
            bounds=False,
            params={"savage": {"horizon": T}},
            per_decade=1,
        )
        share.append(res.mean("savage", "nonwinner")[-1] / T)
    assert share[0] > share[1] > share[2], share
