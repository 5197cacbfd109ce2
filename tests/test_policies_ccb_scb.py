"""CCB (paper 002, Algorithm 1): the paper's rules on hand-built states (on the plain transcription
of ``tests/reference_policies.py``, which the compiled policy equals pair for pair), the two
published pitfalls (each test passes on the compiled policy and fails on the buggy variant: a
generator reseeded every step; a champion that may not duel itself), the compiled policy against
the transcription on tie-heavy tournaments, relabelling of the state update, and behaviour on
001's two 5-arm MSLR matrices.

SCB (paper 002, Algorithms 2-4; second half of this file): the rebuilt Algorithm 4's KL interval
(the package's compiled helper) against scipy's root finder, its elimination and stopping rule
against a reference written from the rule (hypothesis, with arm permutations), the sequential pair
test's level by Monte Carlo, Algorithm 3's schedule by hand, the compiled policy against the
transcription, and behaviour: the share outside the Copeland winners falls on the Condorcet MSLR
matrix; with several Copeland winners of equal score it does not fall with ``eps = 0`` (the
paper's algorithm) and falls with ``eps > 0``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from builders import st_counts_and_perm, tournament_pm
from hypothesis import given, settings
from hypothesis import strategies as st
from reference_policies import CCB, SCB, Stream, copeland_bounds, drive_both, relative_bounds
from scipy import optimize, stats

from boundcalc.datasets import load_example, random_matrix
from boundcalc.matrix import PreferenceMatrix
from boundcalc.policies import make_policy
from boundcalc.policies import scb as compiled_scb  # the package's compiled Algorithm 2 / 4 helpers
from boundcalc.simulate import DuelEnvironment, simulate


def _at(cls, W, t, **kw):
    """A policy of class ``cls`` put in the state of win counts ``W`` at round ``t``."""
    W = np.asarray(W, dtype=np.int64)
    p = cls(W.shape[0], **kw)
    p.wins[:] = W
    p.draws[:] = W + W.T
    p.t = t
    return p


def _bounds(p):
    U, L = relative_bounds(p.wins, p.draws, p.params["alpha"], p.t)
    up, lo = copeland_bounds(U, L)
    return U, L, up, lo, np.flatnonzero(up == up.max())


# ----------------------------------------------------------------------------- rules
def test_line7_counts_are_non_strict():
    """Line 7 counts u_ik >= 1/2 and l_ik >= 1/2 (as printed), never the diagonal."""
    U = np.array([[0.5, 0.5, 0.9], [0.5, 0.5, 0.4], [0.1, 0.6, 0.5]])
    L = np.array([[0.5, 0.5, 0.3], [0.2, 0.5, 0.1], [0.0, 0.49, 0.5]])
    up, lo = copeland_bounds(U, L)
    assert up.tolist() == [2, 1, 1] and lo.tolist() == [1, 0, 0]


def test_line9_remove_add_and_reset():
    """9B: an arm whose optimistic score is below another's pessimistic score leaves B and gets
    B^i = {k : u_ik < 1/2}; 9C: an arm of C_t with equal bounds joins B with B^i = {} and sets
    L_C = K - 1 - Cpld; 9A: a confident win of i over a member of B^i resets everything."""
    # arm 0 beats 1, 2, 3 confidently; 1 beats 2, 3; 2 beats 3 (a confident total order)
    W = np.array([[0, 900, 900, 900], [100, 0, 900, 900], [100, 100, 0, 900], [100, 100, 100, 0]])
    p = _at(CCB, W, 4000, seed=0)
    U, L, up, lo, C = _bounds(p)
    assert up.tolist() == lo.tolist() == [3, 2, 1, 0] and C.tolist() == [0]
    p._update_hypotheses(U, L, up, lo, C)
    assert p.B.tolist() == [True, False, False, False]
    assert p.LC == 0
    # B^1 = {0} (size 1 = L_C + 1 kept); B^2 = {0, 1} and B^3 = {0, 1, 2} trimmed to one arm each
    assert p.Bi[1].tolist() == [True, False, False, False]
    assert p.Bi[2].sum() == 1 and p.Bi[2, :2].sum() == 1
    assert p.Bi[3].sum() == 1 and p.Bi[3, :3].sum() == 1
    assert not p.Bi[0].any() and not p.Bi[np.arange(4), np.arange(4)].any()
    # 9A: arm 1 now beats its recorded strong opponent 0 confidently: reset (lines 2-4)
    p.Bi[1] = [True, False, False, False]
    W2 = W.copy()
    W2[1, 0], W2[0, 1] = 900, 100
    q = _at(CCB, W2, 4000, seed=0)
    q.B, q.Bi, q.LC = p.B.copy(), p.Bi.copy(), p.LC
    U, L, up, lo, C = _bounds(q)
    assert L[1, 0] > 0.5
    q._update_hypotheses(U, L, up, lo, C)
    assert q.stats["resets"] == 1
    # after the reset 9B/9C run on the new bounds: 1 is now the (confident) Condorcet winner
    assert q.B.tolist() == [False, True, False, False] and q.LC == 0


def test_line9c_trimming_is_uniform():
    """9C keeps L_C + 1 elements of an oversized B^j chosen uniformly at random (every subset of
    the right size equally often; chi-square)."""
    W = np.array([[0, 900, 900, 900], [100, 0, 900, 900], [100, 100, 0, 900], [100, 100, 100, 0]])
    p = _at(CCB, W, 4000, seed=4)
    U, L, up, lo, C = _bounds(p)
    kept = []
    for _ in range(3000):
        p._reset()
        p._update_hypotheses(U, L, up, lo, C)
        kept.append(int(np.flatnonzero(p.Bi[3])[0]))
    freq = np.bincount(kept, minlength=3)
    assert freq.sum() == 3000 and stats.chisquare(freq).pvalue > 1e-3


def test_line10_explore_set_and_line13_opponent():
    """Line 10 samples (c, d) from {(i, j): a_j in B^i, l_ij <= 1/2 <= u_ij}; line 13's argmax of
    u_jc over l_jc <= 1/2 with a tie never going to c; with B^c_t empty, all arms."""
    W = np.array([[0, 60, 900], [40, 0, 900], [100, 100, 0]])  # 0 vs 1 undecided; both beat 2
    p = _at(CCB, W, 2000, seed=1)
    U, L, up, lo, C = _bounds(p)
    assert L[0, 1] <= 0.5 <= U[0, 1] and C.tolist() == [0, 1]
    # opponent of 0: arm 1 (u_10 > 1/2, l_10 <= 1/2) beats the self-duel; arm 2 is beaten (u_20 < 1/2)
    assert {p._opponent(0, U, L) for _ in range(100)} == {1}
    # every pair undrawn: u_jc = 2 for every j != c, a tie: d is uniform over j != c
    q = CCB(4, seed=2)
    U0, L0 = relative_bounds(q.wins, q.draws, 0.51, 5)
    got = np.bincount([q._opponent(1, U0, L0) for _ in range(3000)], minlength=4)
    assert got[1] == 0 and stats.chisquare(got[[0, 2, 3]]).pvalue > 1e-3
    # line 10: B^2 = {0, 1} holds only decided pairs (l_20, u_20 < 1/2): nothing to explore
    # there; B^1 = {0} makes the undecided pair (1, 0) the only explorable one
    p.Bi[:] = False
    p.Bi[1, 0] = True
    p.Bi[2, [0, 1]] = True
    pairs = [p._select() for _ in range(400)]
    share = np.mean([pr == (1, 0) for pr in pairs])
    assert p.stats["explore_eligible"] == 400 and p.stats["explore"] > 0
    assert abs(p.stats["explore"] / 400 - 0.25) < 4 * math.sqrt(0.25 * 0.75 / 400)
    assert share >= p.stats["explore"] / 400


# ----------------------------------------------------------------------------- pitfall: self-duel
class _NoSelfDuel(CCB):
    """The public-code pitfall: line 13's argmax runs over j != c, so the champion never duels
    itself (no exploitation, linear regret on a Condorcet matrix)."""

    def _opponent(self, c, U, L):
        self._draw_uniform()
        eligible = L[:, c] <= 0.5
        eligible[c] = False
        if not eligible.any():
            eligible = np.arange(self.K) != c
        col = np.where(eligible, U[:, c], -np.inf)
        return int(np.argmax(col))


def test_champion_duels_itself_by_hand():
    """A confident Condorcet winner 0 (every u_j0 < 1/2): line 13 returns d = 0 (all arms) -- the
    self-duel; the buggy variant returns another arm."""
    W = np.array([[0, 900, 900], [100, 0, 500], [100, 500, 0]])
    for cls, ok in ((CCB, True), (_NoSelfDuel, False)):
        p = _at(cls, W, 3000, seed=0)
        U, L, *_ = _bounds(p)
        assert (U[1:, 0] < 0.5).all()
        got = {p._opponent(0, U, L) for _ in range(50)}
        assert (got == {0}) == ok, (cls.__name__, got)


@pytest.fixture(scope="module")
def condorcet_runs():
    """20000 rounds of the compiled policy and of each buggy variant (of the transcription) on 001's
    Condorcet MSLR matrix."""
    pm = load_example("mslr5-condorcet")
    out = {}
    for key, make in (
        ("ok", lambda: make_policy("ccb", 5, rng=np.random.default_rng(0))),
        (_NoSelfDuel, lambda: _NoSelfDuel(5, seed=0)),
        (_Reseeded, lambda: _Reseeded(5)),
    ):
        p = make()
        env = DuelEnvironment(pm.mu, 0, 7)
        pairs = []
        for _ in range(20000):
            i, j = p.select_pair()
            p.update(i, j, env.duel(i, j))
            pairs.append((i, j))
        out[key] = (p, pairs)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("ok", [True, False])
def test_champion_duels_itself_in_a_run(condorcet_runs, ok):
    """002 Theorem 1's O(K log T) needs the Copeland winner to exploit by self-duels.  On the
    Condorcet MSLR matrix, 20000 rounds: the correct policy plays (0, 0) in > 80% of the last
    5000 rounds (measured: 99.5%); the buggy one never self-duels."""
    p, pairs = condorcet_runs["ok" if ok else _NoSelfDuel]
    share = np.mean([i == j == 0 for i, j in pairs[-5000:]])
    if ok:
        assert share > 0.8
    else:
        assert p.stats["self_duels"] == 0 and share == 0


# ----------------------------------------------------------------------------- pitfall: reseeding
class _Reseeded(CCB):
    """The public-code pitfall: a fresh generator with the same seed every step (as the D-TS
    authors' C++ creates ``std::default_random_engine{}`` inside each pull)."""

    def _select(self):
        self.stream = Stream(0)
        return super()._select()


@pytest.mark.slow
@pytest.mark.parametrize("ok", [True, False])
def test_generator_is_not_reseeded(condorcet_runs, ok):
    """Line 10's coin: among the rounds where its set is non-empty, the policy explores with
    probability 1/4 (binomial test, p > 1e-3; >= 100 such rounds in this run, measured 218).
    Reseeded every step, the coin is the same number every round (0.64 for seed 0): it never
    explores, and the share is 0."""
    p, _ = condorcet_runs["ok" if ok else _Reseeded]
    n, k = p.stats["explore_eligible"], p.stats["explore"]
    assert n >= 100, n
    pval = stats.binomtest(k, n, 0.25).pvalue
    assert (pval > 1e-3) == ok, (k, n)


def test_reseeded_variant_repeats_its_draws():
    """The class draws from one generator across steps: two rounds in the same state choose
    differently (undrawn pairs, K = 6: uniform c, uniform d != c); the reseeded one repeats."""
    good, bad = CCB(6, seed=0), _Reseeded(6)
    g = {good._select() for _ in range(40)}
    b = {bad._select() for _ in range(40)}
    assert len(g) > 10 and len(b) == 1


# ----------------------------------------------------------------------------- relabelling


@settings(max_examples=100, deadline=None)
@given(st_counts_and_perm(max_K=6, max_t=10**6))
def test_hypothesis_update_relabels(case):
    """Lines 7-9 from the initial state commute with relabelling the arms: B, L_C and the sizes
    of the B^i (9C's random trimming keeps sizes, not members) relabel; B^i stays inside
    {k : u_ik < 1/2} and never holds i."""
    W, t, perm = case
    P = np.array(perm)
    a = _at(CCB, W, t, seed=0)
    b = _at(CCB, W[np.ix_(P, P)], t, seed=1)
    for p in (a, b):
        U, L, up, lo, C = _bounds(p)
        p._update_hypotheses(U, L, up, lo, C)
        assert not p.Bi[np.diag_indices(p.K)].any()
        assert not (p.Bi & ~(U < 0.5)).any()
    assert np.array_equal(b.B, a.B[P]) and b.LC == a.LC
    assert np.array_equal(b.Bi.sum(axis=1), a.Bi.sum(axis=1)[P])


# ----------------------------------------------------------------------------- compiled = transcription
@pytest.mark.slow  # the full suite; test_policy_reference checks CCB and SCB pair for pair in the quick one
def test_compiled_equals_transcription_on_tie_heavy_tournaments():
    """Pair for pair on the policy stream, same stats (tests/test_policy_reference.py covers more
    matrices); the mix includes exploitation (self-duels), line 10 explorations and 9C trimming."""
    cases = [
        load_example("mslr5-condorcet"),
        load_example("mslr5-noncondorcet"),
        random_matrix(2, 1, min_gap=0.05),
        random_matrix(3, 2, min_gap=0.02),
        random_matrix(8, 3, min_gap=0.01),
        tournament_pm(5, np.random.default_rng(4), "near-tie"),
        tournament_pm(5, np.random.default_rng(5), "cyclic"),
        tournament_pm(6, np.random.default_rng(6), "condorcet"),
    ]
    total = {"self_duels": 0, "explore": 0}
    for k, pm in enumerate(cases):
        T = 6000 if k == 0 else (1500 if pm.K <= 5 else 600)
        first, p, r = drive_both("ccb", pm, T, seed=2000 + k)
        assert first is None, (k, first)
        assert p.stats == r.stats
        for key in total:
            total[key] += p.stats[key]
    assert total["self_duels"] > 1000 and total["explore"] > 20


# ----------------------------------------------------------------------------- behaviour
@pytest.mark.slow
@pytest.mark.parametrize("matrix", ["mslr5-condorcet", "mslr5-noncondorcet"])
def test_share_outside_copeland_winners_falls(matrix):
    """Issue 8 point 3: CCB's share of rounds with an arm outside the Copeland winners, mean over
    6 runs (seed 0), falls from T = 10^3 to 10^4 to 10^5 (measured: Condorcet 1.00 / 0.39 /
    0.050, non-Condorcet 0.67 / 0.55 / 0.40)."""
    res = simulate(load_example(matrix), ["ccb"], horizon=10**5, runs=6, seed=0, bounds=False)
    cps = res.checkpoints.tolist()
    share = [res.mean("ccb", "nonwinner")[cps.index(T)] / T for T in (10**3, 10**4, 10**5)]
    assert share[0] > share[1] > share[2], share


# ============================================================================= SCB
# 002 Algorithms 2-4 (boundcalc/policies/scb.py).
def _kl(p, q):
    """Bernoulli KL from its definition (0 ln 0 = 0)."""
    return sum(a * math.log(a / b) for a, b in ((p, q), (1 - p, 1 - q)) if a > 0)


def _ref_interval(mu_hat, t, K, delta):
    """Algorithm 4's {q : t d(mu_hat, q) <= ln(4 t K / delta) + 2 ln ln t} by brentq."""
    lt = math.log(t)
    beta = math.log(4 * t * K / delta) + (2 * math.log(lt) if lt > 1 else 0.0)
    f = lambda q: t * _kl(mu_hat, q) - beta  # noqa: E731
    e = 1e-15
    hi = 1.0 if mu_hat >= 1 or f(1 - e) <= 0 else optimize.brentq(f, mu_hat, 1 - e, xtol=1e-14)
    lo = 0.0 if mu_hat <= 0 or f(e) <= 0 else optimize.brentq(f, e, mu_hat, xtol=1e-14)
    return lo, hi


@pytest.mark.parametrize(
    "mu_hat,t,K,delta",
    [
        (0.5, 1, 5, 0.3),
        (0.3, 10, 5, 0.01),
        (0.9, 100, 16, 1e-4),
        (0.0, 7, 3, 0.1),
        (1.0, 50, 4, 1e-3),
        (0.75, 3000, 5, 1e-8),
    ],
)
def test_scb_kl_interval_against_brentq(mu_hat, t, K, delta):
    """Algorithm 4's interval: its ends solve t d = beta (scipy brentq on the textbook KL), or are
    0 / 1 when d stays below beta; the interval contains mu_hat."""
    lo, hi = compiled_scb.scb_kl_bounds(mu_hat, t, K, delta)
    ref_lo, ref_hi = _ref_interval(mu_hat, t, K, delta)
    assert hi == pytest.approx(ref_hi, abs=1e-12) and lo == pytest.approx(ref_lo, abs=1e-12)
    assert lo <= mu_hat <= hi


def test_scb_pair_test_level():
    """Algorithm 2 line 1: the sequential test decides the wrong side of 1/2 with probability
    <= delta / K^2.  K = 2, delta = 0.2 (level 0.05), p = 0.6: 1500 sample paths of 4000 duels,
    the first n where the test decides (vectorised copy of the rule, checked against the
    compiled one at every decision and the step before); wrong decisions <= 0.05 (binomial
    upper tail p > 1e-3)."""
    rng = np.random.default_rng(8)
    K, delta, p = 2, 0.2, 0.6
    x = rng.random((1500, 4000)) < p
    w = np.cumsum(x, axis=1)
    n = np.arange(1, 4001)
    rad = np.sqrt(np.log(4.0 * K * K * n * n / delta) / (2 * n))
    dec = np.abs(w / n - 0.5) > rad
    first = dec.argmax(axis=1)
    ok = dec.any(axis=1)
    assert ok.mean() > 0.95
    for r in np.flatnonzero(ok)[:200]:
        k = first[r]
        assert compiled_scb.scb_pair_decided(int(w[r, k]), int(k + 1), K, delta)
        if k:
            assert not compiled_scb.scb_pair_decided(int(w[r, k - 1]), int(k), K, delta)
    wrong = int((w[ok, first[ok]] * 2 < first[ok] + 1).sum())
    assert stats.binomtest(wrong, int(ok.sum()), 0.05, alternative="greater").pvalue > 1e-3
    assert wrong < 0.05 * ok.sum()


def test_scb_elimination_by_hand():
    """Algorithm 4 after pass t: arms with u_i < max_j l_j leave S; one arm left -> it is
    returned; two arms with equal rewards stay and, with eps = 0, nothing is returned; the ratio
    rule (1 - max l) / (1 - max u) <= 1 + eps returns argmax l once eps covers the ratio."""
    K, delta, t = 4, 0.01, 400
    R = np.array([400, 300, 100, 300])
    S = np.ones(K, dtype=bool)
    b = [_ref_interval(r / t, t, K, delta) for r in R]
    assert max(b[1][1], b[2][1], b[3][1]) < b[0][0]  # every other u below arm 0's l
    assert compiled_scb.scb_eliminate(S, R, t, K, delta, 0.0) == 0 and S.tolist() == [True, False, False, False]
    S = np.ones(K, dtype=bool)
    R = np.array([350, 350, 100, 20])
    assert compiled_scb.scb_eliminate(S, R, t, K, delta, 0.0) == -1 and S.tolist() == [True, True, False, False]
    # the ratio rule: two equal leaders at 0.75 after 10^6 rewards, ratio (1 - l) / (1 - u)
    t = 10**6
    R = np.array([750_000, 750_000, 100_000, 20])
    lo, hi = _ref_interval(0.75, t, K, delta)
    ratio = (1 - lo) / (1 - hi)
    assert 1.02 < ratio < 1.03
    for eps, want in [(0.0, -1), (ratio - 1 - 1e-4, -1), (ratio - 1 + 1e-4, 0), (1.0, 0)]:
        S = np.ones(K, dtype=bool)
        assert compiled_scb.scb_eliminate(S, R, t, K, delta, eps) == want, eps
        assert S.tolist() == [True, True, False, False]


@st.composite
def st_elimination_case(draw):
    """Rewards R of K arms after t passes (some equal, some near), delta, eps, a permutation."""
    K = draw(st.integers(2, 7))
    t = draw(st.integers(1, 3000))
    base = draw(st.lists(st.integers(0, t), min_size=K, max_size=K))
    R = np.array([min(t, max(0, r + draw(st.sampled_from([0, 0, 1, -1])))) for r in base])
    delta = draw(st.sampled_from([0.3, 0.01, 1e-4, 1e-9]))
    eps = draw(st.sampled_from([0.0, 0.0, 0.05, 0.5, 3.0]))
    perm = np.array(draw(st.permutations(range(K))))
    return K, t, R, delta, eps, perm


@settings(max_examples=150, deadline=None)
@given(st_elimination_case())
def test_hypothesis_elimination_against_reference(case):
    """scb_eliminate against the rule written out with brentq intervals (drop u_i < max l; return
    argmax l if one arm is left or 1 - max l <= (1 + eps)(1 - max u)); and relabelling the arms
    relabels the survivors (the returned arm too, up to ties in l, broken by the smallest index)."""
    K, t, R, delta, eps, perm = case
    iv = [_ref_interval(r / t, t, K, delta) for r in R]
    L = np.array([a for a, _ in iv])
    U = np.array([b for _, b in iv])
    ml = L.max()
    # rule decisions too close to call at the bisection's precision are skipped
    if np.any(np.abs(U - ml) < 1e-9) and not np.any(U == ml):
        return
    keep = U >= ml
    mu_ = U[keep].max()
    if abs((1 - ml) - (1 + eps) * (1 - mu_)) < 1e-9:
        return
    stop = keep.sum() == 1 or 1 - ml <= (1 + eps) * (1 - mu_)
    S = np.ones(K, dtype=bool)
    got = compiled_scb.scb_eliminate(S, R, t, K, delta, eps)
    assert S.tolist() == keep.tolist()
    leaders = np.flatnonzero(L == ml)
    assert got == (int(leaders[0]) if stop else -1)
    # relabelling: arm perm[i] of the new problem is arm i of the old one
    R2 = np.empty_like(R)
    R2[perm] = R
    S2 = np.ones(K, dtype=bool)
    got2 = compiled_scb.scb_eliminate(S2, R2, t, K, delta, eps)
    assert S2[perm].tolist() == S.tolist()
    assert (got2 == -1) == (got == -1)
    if got >= 0:
        assert R2[got2] == R[got]  # the same leader's rewards (ties in l: equal R)


def test_scb_round_schedule():
    """Algorithm 3: rounds of T_r = 2^(2^r) duels (4, 16, 256, 65536) with delta_r = ln T_r / T_r,
    each a fresh Algorithm 2 run (S = all arms, no rewards)."""
    p = SCB(3, seed=0)
    seen = []
    for step in range(4 + 16 + 256 + 5):
        if p.used == 0:
            seen.append((step, p.T_r, p.delta, p.S.all(), int(p.R.sum())))
        i, j = p.select_pair()
        p.update(i, j, True)
    assert [s[0] for s in seen] == [0, 4, 20, 276]
    assert [s[1] for s in seen] == [4.0, 16.0, 256.0, 65536.0]
    assert all(s[2] == math.log(s[1]) / s[1] and s[3] and s[4] == 0 for s in seen)
    assert p.stats["rounds"] == 4


def test_scb_reward_and_pass_by_hand():
    """Algorithm 2 line 1 / Algorithm 4's pass on a scripted environment: arm 0 wins every duel;
    each reward queries one uniform opponent until the pair test decides (n = 14 straight wins at
    delta_4 = ln 65536 / 65536, K = 3: the first n with 1/2 > sqrt(ln(36 n^2 / delta) / (2 n))),
    arms in ascending order, a reward of 1 for arm 0 and 0 for the others."""
    K = 3
    delta = math.log(65536) / 65536
    need = next(n for n in range(1, 1000) if 0.5 > math.sqrt(math.log(4 * K * K * n * n / delta) / (2 * n)))
    p = SCB(K, seed=3)
    for _ in range(276):  # rounds 1-3 (4 + 16 + 256 duels)
        i, j = p.select_pair()
        p.update(i, j, i < j)
    assert p.T_r == 65536.0 and p.pass_t == 1
    before = p.stats["rewards"]
    seq = []
    while p.pass_t == 1:
        i, j = p.select_pair()
        p.update(i, j, i < j)  # the smaller index always wins
        seq.append((i, j))
    firsts = [seq[k][0] for k in range(0, len(seq), need)]
    assert len(seq) == K * need and firsts == [0, 1, 2]
    assert all(seq[k] == seq[k - k % need] for k in range(len(seq)))  # one opponent per reward
    assert p.R.tolist() == [1, int(seq[need][1] > 1), 0] and p.stats["rewards"] - before == K


@pytest.mark.slow
def test_scb_compiled_equals_transcription():
    """Pair for pair on the policy stream, same stats, including rounds where Algorithm 2 identified
    its arm and Algorithm 3 line 3 exploits (the strong 3-arm matrix, 40000 rounds), and eps > 0."""
    strong = np.array([[0.5, 0.9, 0.9], [0.1, 0.5, 0.9], [0.1, 0.1, 0.5]])
    cyclic = [tournament_pm(5, np.random.default_rng(s), "cyclic").mu for s in (5, 7)]
    cases = [
        (strong, 0.0),
        (load_example("table2").mu, 0.0),
        (load_example("mslr5-noncondorcet").mu, 0.0),
        (random_matrix(6, 3, min_gap=0.1).mu, 0.0),
        (cyclic[0], 0.0),
        (cyclic[1], 2.0),
        (strong, 0.3),
    ]
    identified = 0
    for k, (mu, eps) in enumerate(cases):
        T = 40000 if k in (0, 5, 6) else 6000
        first, p, r = drive_both("scb", PreferenceMatrix(mu), T, seed=300 + k, params={"eps": eps})
        assert first is None, (k, first)
        assert p.stats == r.stats
        identified += p.stats["identified"]
    assert identified >= 2


def _shares(res, name, Ts):
    """Share of rounds with an arm outside the Copeland winners (mean over runs) at the
    checkpoints nearest to ``Ts``."""
    cps = res.checkpoints
    m = res.mean(name, "nonwinner")
    out = []
    for T in Ts:
        c = int(np.argmin(np.abs(np.log(cps / T))))
        out.append(float(m[c] / cps[c]))
    return out


def _cowinners() -> PreferenceMatrix:
    """Three Copeland winners of equal score with clear gaps: 0 > 1 > 2 > 0 at 0.8, each beats
    3 and 4 at 0.9, 3 > 4 at 0.8 (scores 3, 3, 3, 1, 0 -- mslr5-noncondorcet's pattern)."""
    mu = np.full((5, 5), 0.5)
    for i, j, q in [
        (0, 1, 0.8),
        (1, 2, 0.8),
        (2, 0, 0.8),
        (0, 3, 0.9),
        (0, 4, 0.9),
        (1, 3, 0.9),
        (1, 4, 0.9),
        (2, 3, 0.9),
        (2, 4, 0.9),
        (3, 4, 0.8),
    ]:
        mu[i, j], mu[j, i] = q, 1 - q
    return PreferenceMatrix(mu, name="cowinners")


@pytest.mark.slow
def test_scb_share_outside_copeland_winners_falls_condorcet():
    """Issue 8 point 3 for SCB on mslr5-condorcet, 2 runs (seed 0): the share of rounds outside
    the Copeland winner falls from T = 10^6 to 10^7 to 5 10^7 (measured 1.00 / 0.79 / 0.16).
    Algorithm 2 first identifies the winner in the 2^32-duel round, after about 10^7 duels
    (first self-duel between 9.0 10^6 and 13.1 10^6 over 20 kernel streams): each reward queries
    its pair afresh at level delta / K^2, ~10^5 duels for the 0.01 gap of arms 3 and 4."""
    res = simulate(load_example("mslr5-condorcet"), ["scb"], horizon=5 * 10**7, runs=2, seed=0, bounds=False)
    share = _shares(res, "scb", (10**6, 10**7, 5 * 10**7))
    assert share[0] > share[1] > share[2], share
    assert share[0] == 1.0 and share[2] < 0.3
    assert res.policy("scb").stats["identified"] == 2


@pytest.mark.slow
def test_scb_eps0_does_not_fall_with_equal_copeland_winners():
    """002 with eps = 0 (Algorithm 3 line 2) on mslr5-noncondorcet (three Copeland winners of
    equal score): Algorithm 4 never separates them, so Algorithm 2 never returns, no round ever
    exploits and the share outside the winners does not fall: 2 runs (seed 0), measured 0.53 /
    0.91 / 0.98 at 10^5 / 10^6 / 10^7 (0.96 at 10^8, 0.85-0.88 at 10^9 with eps = 0.1 -- the
    pairs' gaps of 0.003-0.04 cost ~5 10^5 duels per reward there).  Faithful, not a bug to
    repair: this test fails for a variant that stops anyway (e.g. a bounded round or a forced
    pick among the leaders)."""
    res = simulate(load_example("mslr5-noncondorcet"), ["scb"], horizon=10**7, runs=2, seed=0, bounds=False)
    share = _shares(res, "scb", (10**5, 10**6, 10**7))
    st_ = res.policy("scb").stats
    assert st_["identified"] == 0 and st_["self_duels"] == 0, st_
    assert 0.5 <= share[0] <= share[1] <= share[2], share


@pytest.mark.slow
def test_scb_eps_separates_equal_copeland_winners():
    """With eps > 0, Algorithm 4's ratio rule (1 - max l) / (1 - max u) <= 1 + eps stops among
    equal co-winners and SCB exploits one of them (an eps-Copeland winner, 002 Definition 4).
    On :func:`_cowinners` (clear gaps, same score pattern as mslr5-noncondorcet), 3 runs (seed
    0), horizon 10^7: eps = 0 identifies nothing and its share stays at the cost ratio of
    rewards against losers and co-winners (measured 0.53 / 0.39 / 0.36 at 10^5 / 10^6 / 10^7);
    eps = 0.5 identifies in every run (~2.4 10^6 duels) and its share falls: 0.53 / 0.39 / 0.09 (eps = 0.1
    identifies after ~4.5 10^7: share 0.16 at 10^8, not run here)."""
    pm = _cowinners()
    assert pm.copeland_winners.tolist() == [0, 1, 2]
    kw = dict(horizon=10**7, runs=3, seed=0, bounds=False)
    flat = simulate(pm, ["scb"], **kw)
    fall = simulate(pm, ["scb"], params={"scb": {"eps": 0.5}}, **kw)
    Ts = (10**5, 10**6, 10**7)
    s0, s5 = _shares(flat, "scb", Ts), _shares(fall, "scb", Ts)
    assert flat.policy("scb").stats["identified"] == 0 and s0[2] > 0.3, s0
    assert fall.policy("scb").stats["identified"] == 3
    assert s5[0] > s5[1] > s5[2] and s5[2] < 0.5 * s0[2], (s5, s0)
