"""CCB (paper 002, Algorithm 1): the paper's rules on hand-built states, the two published
pitfalls (each test fails on the buggy variant: a generator reseeded every step; a champion that
may not duel itself), the compiled kernel against the class (pair for pair on the kernel's
stream, in distribution on numpy's), relabelling of the state update, and behaviour on 001's two
5-arm MSLR matrices.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from builders import tournament_pm
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from boundcalc.datasets import load_example, random_matrix
from boundcalc.policies import CCB, fast
from boundcalc.policies.ccb import copeland_bounds
from boundcalc.policies.rucb import relative_bounds
from boundcalc.simulate import DuelEnvironment, run_protocol, simulate


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
    p = _at(CCB, W, 4000, rng=np.random.default_rng(0))
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
    q = _at(CCB, W2, 4000, rng=np.random.default_rng(0))
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
    p = _at(CCB, W, 4000, rng=np.random.default_rng(4))
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
    p = _at(CCB, W, 2000, rng=np.random.default_rng(1))
    U, L, up, lo, C = _bounds(p)
    assert L[0, 1] <= 0.5 <= U[0, 1] and C.tolist() == [0, 1]
    # opponent of 0: arm 1 (u_10 > 1/2, l_10 <= 1/2) beats the self-duel; arm 2 is beaten (u_20 < 1/2)
    assert {p._opponent(0, U, L) for _ in range(100)} == {1}
    # every pair undrawn: u_jc = 2 for every j != c, a tie: d is uniform over j != c
    q = CCB(4, rng=np.random.default_rng(2))
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
        p = _at(cls, W, 3000, rng=np.random.default_rng(0))
        U, L, *_ = _bounds(p)
        assert (U[1:, 0] < 0.5).all()
        got = {p._opponent(0, U, L) for _ in range(50)}
        assert (got == {0}) == ok, (cls.__name__, got)


@pytest.fixture(scope="module")
def condorcet_runs():
    """20000 rounds of the class and of each buggy variant on 001's Condorcet MSLR matrix."""
    pm = load_example("mslr5-condorcet")
    out = {}
    for cls in (CCB, _NoSelfDuel, _Reseeded):
        p = cls(5, rng=np.random.default_rng(0))
        env = DuelEnvironment(pm.mu, 0, 7)
        pairs = []
        for _ in range(20000):
            i, j = p.select_pair()
            p.update(i, j, env.duel(i, j))
            pairs.append((i, j))
        out[cls] = (p, pairs)
    return out


@pytest.mark.parametrize("ok", [True, False])
def test_champion_duels_itself_in_a_run(condorcet_runs, ok):
    """002 Theorem 1's O(K log T) needs the Copeland winner to exploit by self-duels.  On the
    Condorcet MSLR matrix, 20000 rounds: the correct policy plays (0, 0) in > 80% of the last
    5000 rounds (measured: 99.5%); the buggy one never self-duels."""
    p, pairs = condorcet_runs[CCB if ok else _NoSelfDuel]
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
        self.rng = np.random.default_rng(0)
        return super()._select()


@pytest.mark.parametrize("ok", [True, False])
def test_generator_is_not_reseeded(condorcet_runs, ok):
    """Line 10's coin: among the rounds where its set is non-empty, the policy explores with
    probability 1/4 (binomial test, p > 1e-3; >= 100 such rounds in this run, measured 218).
    Reseeded every step, the coin is the same number every round (0.64 for seed 0): it never
    explores, and the share is 0."""
    p, _ = condorcet_runs[CCB if ok else _Reseeded]
    n, k = p.stats["explore_eligible"], p.stats["explore"]
    assert n >= 100, n
    pval = stats.binomtest(k, n, 0.25).pvalue
    assert (pval > 1e-3) == ok, (k, n)


def test_reseeded_variant_repeats_its_draws():
    """The class draws from one generator across steps: two rounds in the same state choose
    differently (undrawn pairs, K = 6: uniform c, uniform d != c); the reseeded one repeats."""
    good, bad = CCB(6, rng=np.random.default_rng(0)), _Reseeded(6)
    g = {good._select() for _ in range(40)}
    b = {bad._select() for _ in range(40)}
    assert len(g) > 10 and len(b) == 1


# ----------------------------------------------------------------------------- relabelling
@st.composite
def st_counts_and_perm(draw):
    K = draw(st.integers(2, 6))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    scale = draw(st.sampled_from([0, 3, 30, 10**4]))
    W = np.zeros((K, K), dtype=np.int64)
    for i in range(K):
        for j in range(i + 1, K):
            n = int(rng.integers(0, scale + 1))
            kind = rng.integers(4)
            w = n // 2 if kind == 0 and n % 2 == 0 else (n if kind == 1 else int(rng.integers(0, n + 1)))
            W[i, j], W[j, i] = w, n - w
    return W, draw(st.integers(1, 10**6)), draw(st.permutations(range(K)))


@settings(max_examples=100, deadline=None)
@given(st_counts_and_perm())
def test_hypothesis_update_relabels(case):
    """Lines 7-9 from the initial state commute with relabelling the arms: B, L_C and the sizes
    of the B^i (9C's random trimming keeps sizes, not members) relabel; B^i stays inside
    {k : u_ik < 1/2} and never holds i."""
    W, t, perm = case
    P = np.array(perm)
    a = _at(CCB, W, t, rng=np.random.default_rng(0))
    b = _at(CCB, W[np.ix_(P, P)], t, rng=np.random.default_rng(1))
    for p in (a, b):
        U, L, up, lo, C = _bounds(p)
        p._update_hypotheses(U, L, up, lo, C)
        assert not p.Bi[np.diag_indices(p.K)].any()
        assert not (p.Bi & ~(U < 0.5)).any()
    assert np.array_equal(b.B, a.B[P]) and b.LC == a.LC
    assert np.array_equal(b.Bi.sum(axis=1), a.Bi.sum(axis=1)[P])


# ----------------------------------------------------------------------------- kernel
def _on_kernel_stream(cls):
    class Streamed(cls):
        def __init__(self, K, seed, **kw):
            super().__init__(K, **kw)
            self._st = np.array([seed], dtype=np.uint64)

        def _draw_index(self, n):
            return int(fast.stream_index(self._st, n))

        def _draw_uniform(self):
            return float(fast.stream_uniform(self._st))

    return Streamed


def test_kernel_equals_class_on_the_kernel_stream():
    """Pair for pair: the kernel and the class fed the same stream choose the same pairs (every
    round's pair recovered from a regret matrix numbering the pairs), same stats; the mix
    includes exploitation (self-duels), line 10 explorations and 9C trimming."""
    cases = [load_example("mslr5-condorcet"), load_example("mslr5-noncondorcet"), load_example("table2"),
             random_matrix(2, 1, min_gap=0.05), random_matrix(3, 2, min_gap=0.02),
             random_matrix(8, 3, min_gap=0.01), tournament_pm(5, np.random.default_rng(4), "near-tie"),
             tournament_pm(5, np.random.default_rng(5), "cyclic"),
             tournament_pm(6, np.random.default_rng(6), "condorcet")]
    total = {"self_duels": 0, "explore": 0}
    for k, pm in enumerate(cases):
        K = pm.K
        T = 20000 if k == 0 else (2500 if K <= 5 else 800)
        code = np.arange(K * K, dtype=float).reshape(1, K, K)
        cps = np.arange(1, T + 1)
        seed = 2000 + k
        out, st_ = fast.run_kernel("ccb", pm.mu, T, {"alpha": 0.51, "stream_seed": seed}, 3, k, cps, code)
        p = _on_kernel_stream(CCB)(K, seed)
        ref = run_protocol(p, DuelEnvironment(pm.mu, 3, k), T, cps, code)
        assert np.array_equal(out, ref), k
        assert st_ == p.stats
        for key in total:
            total[key] += st_[key]
    assert total["self_duels"] > 1000 and total["explore"] > 50


def test_kernel_equals_class_in_distribution():
    """The simulator's compiled path (kernel stream) and protocol path (numpy Generator), on
    independent seeds, on 001's Table-2-like 4-arm matrix: regret at every checkpoint from t = 30
    to 800 over 30 runs -- means within 4 standard errors (Welch) and two-sample KS p > 1e-3."""
    pm = load_example("table2")
    kw = dict(horizon=800, runs=30, per_decade=3, bounds=False)
    a = simulate(pm, ["ccb"], seed=11, fast=True, **kw)
    b = simulate(pm, ["ccb"], seed=12, fast=False, **kw)
    assert a.policy("ccb").kernel and not b.policy("ccb").kernel
    Ra, Rb = a.regret("ccb"), b.regret("ccb")
    for c, t in enumerate(a.checkpoints):
        if t < 30:
            continue
        x, y = Ra[:, c], Rb[:, c]
        se = math.sqrt(x.var(ddof=1) / len(x) + y.var(ddof=1) / len(y))
        assert abs(x.mean() - y.mean()) < 4 * se + 1e-12, int(t)
        assert stats.ks_2samp(x, y).pvalue > 1e-3, int(t)


# ----------------------------------------------------------------------------- behaviour
@pytest.mark.parametrize("matrix", ["mslr5-condorcet", "mslr5-noncondorcet"])
def test_share_outside_copeland_winners_falls(matrix):
    """Issue 8 point 3: CCB's share of rounds with an arm outside the Copeland winners, mean over
    6 runs (seed 0), falls from T = 10^3 to 10^4 to 10^5 (measured: Condorcet 1.00 / 0.39 /
    0.050, non-Condorcet 0.67 / 0.55 / 0.40)."""
    res = simulate(load_example(matrix), ["ccb"], horizon=10**5, runs=6, seed=0, bounds=False)
    cps = res.checkpoints.tolist()
    share = [res.mean("ccb", "nonwinner")[cps.index(T)] / T for T in (10**3, 10**4, 10**5)]
    assert share[0] > share[1] > share[2], share
