"""RUCB (Zoghi et al., ICML 2014) and D-TS / D-TS+ (paper 001): the papers' rules on hand-built
states (on the plain transcriptions of ``tests/reference_policies.py``, which the compiled policies
equal pair for pair), the two published pitfalls (each test passes on the compiled policy and
fails on the buggy variant), the compiled policies against the transcriptions on tie-heavy
tournaments, the policy stream against scipy's distributions, and behaviour on 001's two MSLR
matrices.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from builders import st_counts_and_perm, tournament_pm
from hypothesis import given, settings
from reference_policies import DTS, RUCB, DTSPlus, copeland_candidates, drive_both, dts_plus_regret, relative_bounds
from scipy import integrate, stats

from boundcalc.datasets import load_example, random_matrix
from boundcalc.kernels import stats as kstats
from boundcalc.matrix import kl_half
from boundcalc.policies import PolicyError, make_policy
from boundcalc.simulate import DuelEnvironment, checkpoints, regret_matrices, run_one, run_protocol, run_seeds


def _at(cls, W, t, **kw):
    """A transcription of class ``cls`` put in the state of win counts ``W`` at round ``t``."""
    W = np.asarray(W, dtype=np.int64)
    p = cls(W.shape[0], **kw)
    p.wins[:] = W
    p.draws[:] = W + W.T
    p.t = t
    return p


def _counts(W):
    W = np.asarray(W, dtype=np.int64)
    return W, W + W.T


# ----------------------------------------------------------------------------- bounds
def test_relative_bounds_by_hand():
    """RUCB line 4 / 001 line 4: x/0 := 1 read literally (u = 2, l = 0 undrawn), u_ii = l_ii = 1/2."""
    W = np.array([[0, 3, 0], [1, 0, 0], [0, 0, 0]])
    U, L = relative_bounds(*_counts(W), 0.51, 10)
    r = math.sqrt(0.51 * math.log(10) / 4)
    assert U[0, 1] == 0.75 + r and L[0, 1] == 0.75 - r
    assert U[1, 0] == 0.25 + r and L[1, 0] == 0.25 - r
    assert U[0, 2] == U[2, 1] == 2.0 and L[0, 2] == L[2, 1] == 0.0
    assert np.all(np.diag(U) == 0.5) and np.all(np.diag(L) == 0.5)
    U1, L1 = relative_bounds(*_counts(W), 0.51, 1)  # ln 1 = 0
    assert U1[0, 1] == L1[0, 1] == 0.75


def test_copeland_candidates_lines_5_6():
    """u_ij > 1/2 is strict (as printed); the candidates are every maximiser, never empty."""
    U = np.array([[0.5, 0.5, 0.9], [0.7, 0.5, 0.6], [0.2, 0.8, 0.5]])
    assert copeland_candidates(U).tolist() == [1]  # 0 has u_01 = 1/2 exactly: not counted
    U[0, 1] = 0.5 + 1e-12
    assert copeland_candidates(U).tolist() == [0, 1]
    assert copeland_candidates(np.full((3, 3), 0.5)).tolist() == [0, 1, 2]


@settings(max_examples=150, deadline=None)
@given(st_counts_and_perm())
def test_bounds_candidates_and_regret_under_relabelling(case):
    """On any state: the bounds relabel with the arms, u_ij + l_ji = 1, l <= u; the candidate set
    of lines 5-6 and RUCB's line-6 set relabel; D-TS+'s R_i relabels (to rounding)."""
    W, t, perm = case
    K = W.shape[0]
    P = np.array(perm)
    U, L = relative_bounds(*_counts(W), 0.51, t)
    Up, Lp = relative_bounds(*_counts(W[np.ix_(P, P)]), 0.51, t)
    assert np.array_equal(Up, U[np.ix_(P, P)]) and np.array_equal(Lp, L[np.ix_(P, P)])
    assert np.all(L <= U)
    drawn = (W + W.T) > 0
    assert np.allclose((U + L.T)[drawn], 1.0, rtol=0, atol=1e-12)
    assert np.all(U[~drawn & ~np.eye(K, dtype=bool)] == 2.0)
    inv = np.argsort(P)
    C = copeland_candidates(U)
    assert np.array_equal(np.sort(inv[C]), copeland_candidates(Up))
    rucb_C = np.flatnonzero((U >= 0.5).all(axis=1))
    assert np.array_equal(np.sort(inv[rucb_C]), np.flatnonzero((Up >= 0.5).all(axis=1)))
    rng = np.random.default_rng(int(W.sum()) + t)
    th = np.full((K, K), 0.5)
    iu = np.triu_indices(K, 1)
    s = rng.beta(W[iu] + 1.0, W.T[iu] + 1.0)
    th[iu], th[iu[1], iu[0]] = s, 1.0 - s
    R = dts_plus_regret(th, range(K))
    Rp = dts_plus_regret(th[np.ix_(P, P)], range(K))
    assert np.allclose(Rp, R[P], rtol=1e-12, atol=0)


# ----------------------------------------------------------------------------- RUCB rules
def _rucb_pairs(W, t, n, B=-1, seed=0):
    p = _at(RUCB, W, t, seed=seed)
    out = []
    for _ in range(n):
        p._B = B
        out.append(p._select())
    return out, p


def test_rucb_line13_ties_exclude_c():
    """Everything undrawn: u_jc = 2 for every j != c, u_cc = 1/2; d is uniform over j != c."""
    pairs, _ = _rucb_pairs(np.zeros((4, 4)), 5, 4000)
    assert all(c != d for c, d in pairs)
    freq = np.bincount([c * 4 + d for c, d in pairs], minlength=16).reshape(4, 4)
    off = freq[~np.eye(4, dtype=bool)]
    assert stats.chisquare(off).pvalue > 1e-3  # c uniform (B empty), d uniform over the others


def test_rucb_tie_with_self_goes_to_other_arm():
    """u_jc = 1/2 = u_cc exactly: a tie, so d != c (line 13)."""
    # arm 0 beats 1 (8-2), 2 (9-1); at t = 1 (ln t = 0) u_10 = 0.2, u_20 = 0.1; make u_10 = 1/2:
    W = np.array([[0, 5, 9], [5, 0, 5], [1, 5, 0]])
    U, _ = relative_bounds(*_counts(W), 0.51, 1)
    assert U[1, 0] == 0.5
    pairs, p = _rucb_pairs(W, 1, 200)
    assert all(d != 0 for c, d in pairs if c == 0)
    assert p.stats["self_duels"] == 0


def test_rucb_self_duel_and_hypothesised_best_arm():
    """C = {0} -> B = {0}, c = 0 and the self-duel when every u_j0 < 1/2; with C = {0, 1} and
    B = {0}, p(c = 0) = 1/2 (line 11); with B empty, uniform on C."""
    big = np.array([[0, 900, 900], [100, 0, 500], [100, 500, 0]])
    pairs, p = _rucb_pairs(big, 1000, 50)
    assert set(pairs) == {(0, 0)} and p._B == 0 and p.stats["self_duels"] == 50
    # arms 0 and 1 tied (C = {0, 1}), arm 2 beaten by both
    W = np.array([[0, 50, 900], [50, 0, 900], [100, 100, 0]])
    U, _ = relative_bounds(*_counts(W), 0.51, 1000)
    assert ((U >= 0.5).all(axis=1)).tolist() == [True, True, False]
    pairs, p = _rucb_pairs(W, 1000, 4000, B=0)
    share0 = np.mean([c == 0 for c, _ in pairs])
    assert abs(share0 - 0.5) < 4 * math.sqrt(0.25 / 4000)
    pairs, p = _rucb_pairs(W, 1000, 4000, B=2)  # B not in C: dropped (line 8), uniform on C
    share0 = np.mean([c == 0 for c, _ in pairs])
    assert abs(share0 - 0.5) < 4 * math.sqrt(0.25 / 4000) and p._B == -1
    # the B rule changes the distribution when |C| = 3: p(B) = 1/2 instead of 1/3
    W3 = np.array([[0, 50, 50, 900], [50, 0, 50, 900], [50, 50, 0, 900], [1, 1, 1, 0]])
    pairs, _ = _rucb_pairs(W3, 1000, 6000, B=1)
    share = np.bincount([c for c, _ in pairs], minlength=4) / 6000
    assert abs(share[1] - 0.5) < 0.03 and abs(share[0] - 0.25) < 0.03 and share[3] == 0


def test_rucb_empty_candidate_set():
    """A 3-cycle learned to confidence: C is empty, c is uniform (line 7) and B is emptied."""
    W = np.array([[0, 950, 50], [50, 0, 950], [950, 50, 0]])
    pairs, p = _rucb_pairs(W, 2000, 3000, B=1)
    assert p.stats["empty_C"] == 3000 and p._B == -1
    assert stats.chisquare(np.bincount([c for c, _ in pairs], minlength=3)).pvalue > 1e-3


class _CreditsFirstArm(RUCB):
    """The public-code pitfall: the duel's outcome is ignored and c is recorded as the winner."""

    def update(self, i, j, i_won):
        super().update(i, j, True)


@pytest.mark.parametrize(
    "make,ok",
    [
        (lambda K: make_policy("rucb", K, rng=np.random.default_rng(0)), True),
        (lambda K: _CreditsFirstArm(K, seed=0), False),
    ],
)
def test_rucb_records_the_actual_winner(make, ok):
    """RUCB's estimates W/N converge to the matrix and the Condorcet winner's self-duel takes
    over (its O(log T) regret, ICML 2014 Theorem 4) only if the arm that actually won is
    recorded.  On 001's Condorcet MSLR matrix, after 20000 rounds the correct policy plays
    (0, 0) in > 90% of the last 5000 rounds (measured: 99.4-99.9% on three seeds) with every
    mu_hat_0j > 1/2; the buggy one never self-duels and its mu_hat are 1/2."""
    pm = load_example("mslr5-condorcet")
    p = make(5)
    env = DuelEnvironment(pm.mu, 0, 7)
    pairs = []
    for _ in range(20000):
        i, j = p.select_pair()
        p.update(i, j, env.duel(i, j))
        pairs.append((i, j))
    share = np.mean([i == j == 0 for i, j in pairs[-5000:]])
    mu_hat = p.wins[0, 1:] / p.draws[0, 1:]
    if ok:
        assert share > 0.9 and np.all(mu_hat > 0.5)
    else:
        assert p.stats["self_duels"] == 0 and np.all(np.abs(mu_hat - 0.5) < 0.01)


# ----------------------------------------------------------------------------- D-TS rules
def _beta_cdf_pdf(W, i, a1):
    dist = stats.beta(W[i, a1] + 1, W[a1, i] + 1)
    return dist.cdf, dist.pdf


def test_dts_second_candidate_distribution():
    """Lines 13-14: P(a2 = i | a1) from the definition (fresh Beta samples theta2_{i a1}, argmax
    over l_{i a1} <= 1/2 with theta2_{a1 a1} = 1/2), by numerical integration, against the
    frequencies of the class's choice; an arm confidently beating a1 is never chosen."""
    W = np.array([[0, 2, 4, 10], [3, 0, 0, 0], [1, 0, 0, 0], [90, 0, 0, 0]])
    p = _at(DTS, W, 20, seed=5)
    _, L = relative_bounds(p.wins, p.draws, 0.51, 20)
    assert L[1, 0] <= 0.5 and L[2, 0] <= 0.5 and L[3, 0] > 0.5
    F1, f1 = _beta_cdf_pdf(W, 1, 0)
    F2, f2 = _beta_cdf_pdf(W, 2, 0)
    P1 = integrate.quad(lambda x: f1(x) * F2(x), 0.5, 1.0)[0]
    P2 = integrate.quad(lambda x: f2(x) * F1(x), 0.5, 1.0)[0]
    P0 = F1(0.5) * F2(0.5)
    assert P0 + P1 + P2 == pytest.approx(1.0, abs=1e-9)
    n = 20000
    got = np.bincount([p._second(0, L) for _ in range(n)], minlength=4)
    assert got[3] == 0
    assert stats.chisquare(got[:3], n * np.array([P0, P1, P2])).pvalue > 1e-3


class _FirstCandidateRow(DTS):
    """The public-code pitfall: the second candidate maximises theta_{a1 i} (a value of the first
    candidate's row: the probability that a1 beats i) instead of the sampled theta_{i a1}."""

    def _second(self, a1, L):
        th = self._theta[a1].copy()
        th[L[:, a1] > 0.5] = -np.inf
        return int(np.argmax(th))


@pytest.mark.parametrize("cls,ok", [(DTS, True), (DTSPlus, True), (_FirstCandidateRow, False)])
def test_dts_second_candidate_challenges_the_first(cls, ok):
    """Hand-built state: a1 = 0 beats arms 1, 2 clearly and arm 3 beats arm 0 slightly (few draws,
    l_30 <= 1/2).  Line 14 picks the arm most likely to beat a1 (3, or a1 itself when theta2_30 <
    1/2), never 1 or 2; the buggy row-of-a1 rule picks 1 or 2 (the arms a1 beats)."""
    W = np.array([[0, 90, 90, 4], [10, 0, 50, 50], [10, 50, 0, 50], [6, 50, 50, 0]])
    p = _at(cls, W, 500, seed=1)
    _, L = relative_bounds(p.wins, p.draws, 0.51, 500)
    got = []
    for _ in range(300):
        p._sample_theta1()
        got.append(p._second(0, L))
    got = np.bincount(got, minlength=4)
    if ok:
        assert got[1] == got[2] == 0 and got[3] > 150 and got[0] > 0
    else:
        assert got[1] + got[2] == 300


@pytest.mark.parametrize(
    "make,ok",
    [
        (lambda K: make_policy("dts", K, rng=np.random.default_rng(0)), True),
        (lambda K: _FirstCandidateRow(K, seed=0), False),
    ],
)
def test_dts_exploits_the_condorcet_winner(make, ok):
    """001 Sec. 4 (Theorem 2): on a Condorcet matrix D-TS's comparisons concentrate on the
    winner's self-duel.  On the Condorcet MSLR matrix, 3000 rounds: the correct policy self-duels
    in > 30% of the last 1000 rounds (measured 56% and 74% on two seeds) and its share of rounds
    outside the winner falls below 0.8; the buggy second candidate never self-duels."""
    pm = load_example("mslr5-condorcet")
    p = make(5)
    env = DuelEnvironment(pm.mu, 0, 9)
    pairs = []
    for _ in range(3000):
        i, j = p.select_pair()
        p.update(i, j, env.duel(i, j))
        pairs.append((i, j))
    self_share = np.mean([i == j for i, j in pairs[-1000:]])
    if ok:
        assert self_share > 0.3
    else:
        assert self_share == 0 and p.stats["self_duels"] == 0


def test_dts_first_candidate_rules():
    """Line 11: the arm of C winning most sampled duels, ties uniform; arms outside C never.
    D-TS+ (Sec. 4.3): ties go to the smallest R_i, computed here by hand."""
    th = np.array(
        [[0.5, 0.4, 0.7, 0.9], [0.6, 0.5, 0.3, 0.8], [0.3, 0.7, 0.5, 0.2], [0.1, 0.2, 0.8, 0.5]]
    )  # sampled scores: 2, 2, 1, 1
    p = DTS(4, seed=3)
    picks = np.bincount([p._first(th, np.array([0, 1, 2])) for _ in range(4000)], minlength=4)
    assert picks[2] == picks[3] == 0 and abs(picks[0] / 4000 - 0.5) < 4 * math.sqrt(0.25 / 4000)
    assert p.stats["ties"] == 4000
    assert {p._first(th, np.array([1, 2, 3])) for _ in range(50)} == {1}  # 0 not a candidate
    # D-TS+: zeta = (2, 2, 1, 1) / 3, zeta* = 2/3; R_i = sum_j (zeta* - (zeta_i + zeta_j)/2) / d(theta_ij)
    z = np.array([2, 2, 1, 1]) / 3
    R = [sum((z.max() - (z[i] + z[j]) / 2) / float(kl_half(th[i, j])) for j in range(4) if j != i) for i in (0, 1)]
    assert dts_plus_regret(th, [0, 1]) == pytest.approx(R, rel=1e-12)
    q = DTSPlus(4, seed=3)
    assert q._first(th, np.array([0, 1, 2])) == int(np.argmin(R))
    th2 = th.copy()  # swap the roles: the other arm is now the cheaper one
    th2[0, 3], th2[3, 0] = 0.55, 0.45
    R2 = dts_plus_regret(th2, [0, 1])
    assert np.argmin(R2) != np.argmin(R) and q._first(th2, np.array([0, 1, 2])) == int(np.argmin(R2))


# ----------------------------------------------------------------------------- compiled = transcription
@pytest.mark.parametrize("name", ["rucb", "dts", "dts+"])
def test_compiled_equals_transcription_on_tie_heavy_tournaments(name):
    """Pair for pair on the policy stream (tests/test_policy_reference.py covers the papers'
    matrices): K = 2, 3, 8 and two 5-arm tournaments built for ties (near-tie and cyclic), where the
    random tie-breaks of lines 7, 11 and 13 are drawn most."""
    cases = [
        random_matrix(2, 1, min_gap=0.05),
        random_matrix(3, 2, min_gap=0.02),
        random_matrix(8, 3, min_gap=0.01),
        tournament_pm(5, np.random.default_rng(4), "near-tie"),
        tournament_pm(5, np.random.default_rng(5), "cyclic"),
    ]
    for k, pm in enumerate(cases):
        first, p, r = drive_both(name, pm, 500 if pm.K <= 5 else 250, seed=1000 + k)
        assert first is None, (name, k, first)
        assert p.stats == r.stats
        assert pm.K == 2 or (np.triu(p.draws) > 0).sum() > 2  # several distinct pairs were played


def test_seed_stream_only_before_the_first_round():
    p = make_policy("dts", 3, rng=np.random.default_rng(0))
    p.seed_stream(7)
    assert p._seed == 7
    i, j = p.select_pair()
    with pytest.raises(PolicyError, match="before the first"):
        p.seed_stream(8)
    with pytest.raises(PolicyError, match="deterministic"):
        make_policy("rmed1", 3).seed_stream(1)


def _draws(fn, n, seed, *args, spare=False):
    st = [np.array([seed], dtype=np.uint64)] + ([np.zeros(2)] if spare else [])
    return np.array([fn(*st, *args) for _ in range(n)])


@pytest.mark.parametrize("a,b", [(1.0, 1.0), (1.0, 40.0), (3.0, 7.0), (30.0, 70.0), (2000.0, 2100.0)])
def test_stream_beta_against_scipy(a, b):
    """The policy stream's Beta sampler (Marsaglia-Tsang gammas on Box-Muller normals): KS against scipy."""
    x = _draws(kstats.stream_beta, 8000, 17 + int(a), a, b, spare=True)
    assert stats.kstest(x, stats.beta(a, b).cdf).pvalue > 1e-3
    assert x.mean() == pytest.approx(a / (a + b), abs=5 * math.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)) / 8000))


def test_stream_uniform_normal_index():
    u = _draws(kstats.stream_uniform, 20000, 5)
    assert u.min() >= 0.0 and u.max() < 1.0 and stats.kstest(u, "uniform").pvalue > 1e-3
    z = _draws(kstats.stream_normal, 20000, 6, spare=True)
    assert stats.kstest(z, "norm").pvalue > 1e-3
    assert stats.kstest(z[0::2], "norm").pvalue > 1e-3 and stats.kstest(z[1::2], "norm").pvalue > 1e-3
    assert abs(np.corrcoef(z[0::2], z[1::2])[0, 1]) < 4 / math.sqrt(10000)  # the two of a pair
    g = _draws(kstats.stream_gamma, 20000, 7, 1.0, spare=True)  # Gamma(1) = Exp(1): the boundary shape
    assert stats.kstest(g, "expon").pvalue > 1e-3
    k = _draws(kstats.stream_index, 21000, 8, 7)
    assert k.min() == 0 and k.max() == 6 and stats.chisquare(np.bincount(k)).pvalue > 1e-3
    # consecutive outputs are not correlated
    assert abs(np.corrcoef(u[:-1], u[1:])[0, 1]) < 4 / math.sqrt(20000)


def test_simulator_seeds_the_policy_stream():
    """run_one's compiled path = the policy driven through the protocol with its stream seeded by
    the policy SeedSequence's first uint64 (simulate.py's module text); another run index, another
    stream."""
    pm = load_example("mslr5-condorcet")
    regs = regret_matrices(pm)
    R = np.stack([regs[u] for u in regs])
    cps = checkpoints(2000)
    got = run_one("dts", {}, pm.mu, 2000, cps, R, seed=4, run=2)
    k0, k1, pol_ss, _ = run_seeds(4, 2, "dts")
    p = make_policy("dts", 5, rng=np.random.default_rng(123))
    p.seed_stream(int(pol_ss.generate_state(1, np.uint64)[0]))
    out = run_protocol(p, DuelEnvironment(pm.mu, k0, k1), 2000, cps, R)
    assert got["kernel"] and np.array_equal(got["regret"], out) and got["stats"] == p.stats
    other = run_one("dts", {}, pm.mu, 2000, cps, R, seed=4, run=3)
    assert not np.array_equal(other["regret"], out)
