"""Policies: the contract every registered policy meets, and the papers' readings of ECW-RMED / RMED1.

The contract (DESIGN.md ``policies/``) runs over ``policy_names()``: a policy
of the next issue joins it by registering.  Independent checks: the ``R^E`` membership test
(000 eqs. (4)-(5)) against a brute-force enumeration of its rows; check (3), which is line 8's
``R`` for both variants, on a state where ``R`` and ``R^E`` part; the compiled closed form
against :mod:`boundcalc.lp.ecw`'s numpy form.  The readings of ECW-RMED's and RMED1's lines are
checked on their plain transcriptions (``tests/reference_policies.py``), which the compiled
policies equal pair for pair (``tests/test_policy_reference.py``).
"""

from __future__ import annotations

import inspect
import itertools
import math
import pickle

import numpy as np
import pytest
from reference_policies import (
    ECWRMED,
    RMED1,
    EmpiricalState,
    canonical_ties,
    ecw_check,
    ecw_target,
    empirical_divergence,
    forced_exploration_pairs,
)

from boundcalc.datasets import load_example, random_matrix
from boundcalc.lp import ecw as lp_ecw
from boundcalc.lp.structure import empirical_structure, pair_regret
from boundcalc.matrix import kl_half
from boundcalc.policies import (
    Policy,
    PolicyError,
    get_policy,
    make_policy,
    parse_param_spec,
    policy_names,
    register_policy,
    resolve_policy_list,
)
from boundcalc.simulate import DuelEnvironment

ALL = policy_names()


def _drive(policy, env, T):
    """Run ``policy`` for T rounds on ``env``; the pairs and outcomes."""
    pairs, outcomes = [], []
    for _ in range(T):
        i, j = policy.select_pair()
        won = env.duel(i, j)
        policy.update(i, j, won)
        pairs.append((i, j))
        outcomes.append(won)
    return pairs, outcomes


def _easy_condorcet() -> np.ndarray:
    """A clearly easy 5-arm Condorcet matrix: arm 0 beats every arm with probability 0.9; arms
    1-4 form a tournament at 0.8 / 0.2 (1 > 2, 3; 2 > 3, 4; 3 > 4; 4 > 1: Copeland scores 4, 2,
    2, 1, 1)."""
    mu = np.full((5, 5), 0.5)
    for i, j, p in [
        (0, 1, 0.9),
        (0, 2, 0.9),
        (0, 3, 0.9),
        (0, 4, 0.9),
        (1, 2, 0.8),
        (1, 3, 0.8),
        (2, 3, 0.8),
        (2, 4, 0.8),
        (3, 4, 0.8),
        (4, 1, 0.8),
    ]:
        mu[i, j], mu[j, i] = p, 1.0 - p
    return mu


def test_easy_condorcet_matrix():
    from boundcalc.matrix import PreferenceMatrix

    mu = _easy_condorcet()
    assert np.allclose(mu + mu.T, 1.0) and np.all(np.abs(mu - 0.5)[~np.eye(5, dtype=bool)] >= 0.3)
    assert ((mu > 0.5).sum(axis=1)).tolist() == [4, 2, 2, 1, 1]
    pm = PreferenceMatrix(mu)
    assert pm.copeland_winners.tolist() == [0] and pm.condorcet_winner == 0


# ----------------------------------------------------------------------------- the contract
@pytest.mark.parametrize("name", ALL)
class TestContract:
    def test_registered_class(self, name):
        cls = get_policy(name)
        assert issubclass(cls, Policy) and cls.name == name
        assert cls.__doc__ and cls.reference, "a policy names its paper and algorithm"
        # built from K, rng and hyperparameters only: no argument through which a matrix could enter
        sig = inspect.signature(cls.__init__)
        kinds = {p.name: p.kind for p in sig.parameters.values()}
        assert {"self", "K", "rng", "params"} <= set(kinds) <= {"self", "K", "rng", "seed", "params"}  # seed: an int
        assert kinds["params"] is inspect.Parameter.VAR_KEYWORD

    @pytest.mark.parametrize("K", [2, 3, 5])
    def test_valid_pairs_and_counts(self, name, K):
        pm = random_matrix(K, 100 + K, min_gap=0.05)
        p = make_policy(name, K, rng=np.random.default_rng(1))
        env = DuelEnvironment(pm.mu, 11, 12)
        pairs, outcomes = _drive(p, env, 400)
        for i, j in pairs:
            assert type(i) is int and type(j) is int and 0 <= i < K and 0 <= j < K
        # the base class's counts are exactly the outcomes of the non-self duels
        W = np.zeros((K, K), dtype=int)
        for (i, j), won in zip(pairs, outcomes):
            if i != j:
                W[i, j] += won
                W[j, i] += not won
        assert np.array_equal(p.wins, W) and np.array_equal(p.draws, W + W.T)
        assert p.t == 401
        assert all(isinstance(v, int) for v in p.stats.values())

    def test_reproducible_per_seed(self, name):
        pm = random_matrix(4, 7, min_gap=0.05)
        runs = []
        for _ in range(2):
            p = make_policy(name, 4, rng=np.random.default_rng(42))
            runs.append(_drive(p, DuelEnvironment(pm.mu, 5, 6), 300)[0])
        assert runs[0] == runs[1]

    def test_never_touches_the_matrix(self, name):
        """The pairs are a function of (seed, outcomes): replaying the outcomes of a run on one
        matrix to a fresh policy, with no matrix anywhere, gives the same pairs; and two very
        different matrices that happen to produce the same outcomes give the same pairs."""
        K = 4
        pm = random_matrix(K, 3, min_gap=0.05)
        p = make_policy(name, K, rng=np.random.default_rng(9))
        pairs, outcomes = _drive(p, DuelEnvironment(pm.mu, 1, 2), 300)
        q = make_policy(name, K, rng=np.random.default_rng(9))
        replay = []
        for won in outcomes:
            i, j = q.select_pair()
            q.update(i, j, won)
            replay.append((i, j))
        assert replay == pairs
        # a scripted environment (outcome = parity of the round) under two "matrices"
        seqs = []
        for mu in (pm.mu, 1.0 - pm.mu):
            r = make_policy(name, K, rng=np.random.default_rng(9))
            seq = []
            for t in range(200):
                i, j = r.select_pair()
                r.update(i, j, bool((t * 7919 + i) % 3))
                seq.append((i, j))
            assert mu.shape == (K, K)
            seqs.append(seq)
        assert seqs[0] == seqs[1]
        # and nothing the policy holds is the matrix
        for v in vars(r).values():
            if isinstance(v, np.ndarray) and v.shape == (K, K):
                assert not np.allclose(v, pm.mu)

    def test_bad_construction_rejected(self, name):
        cls = get_policy(name)
        for K in (1, 0, -3, 2.5, "4", True):
            with pytest.raises(ValueError, match="K = "):
                cls(K)
        with pytest.raises(TypeError, match="Generator"):
            cls(3, rng=np.random.RandomState(0))
        with pytest.raises(ValueError, match="unknown hyperparameter"):
            cls(3, no_such_parameter=1)
        for key, spec in cls.hyperparameters.items():
            assert cls.validate_params({})[key] == spec.default
            for bad in spec.invalid_examples():
                with pytest.raises(ValueError, match=rf"hyperparameter {key} ="):
                    cls(3, **{key: bad})

    def test_protocol_misuse_rejected(self, name):
        p = make_policy(name, 3)
        with pytest.raises(PolicyError, match="without a pending"):
            p.update(0, 1, True)
        i, j = p.select_pair()
        with pytest.raises(PolicyError, match="twice"):
            p.select_pair()
        with pytest.raises(PolicyError, match="another pair"):
            p.update((i + 1) % 3, j, True)
        p.update(i, j, False)

    def test_self_duel_is_a_legal_move(self, name):
        """A self-duel (i, i) changes no count and is accepted by update: every policy exploits by
        a self-duel within 120,000 rounds on an easy Condorcet matrix (:func:`_easy_condorcet`),
        and the diagonal of ``draws`` stays 0.  First self-duels measured (seed 0, keys 3, 4):
        D-TS 3, RMED1 11, D-TS+ 15, ECW-RMED / CW-RMED 21, RMED2 41, RUCB 109, CCB 115, SAVAGE
        680, SCB 39,377 -- SCB can first exploit in its ``T_r = 65536`` round (rounds 65,813 on
        are the ``2^32`` round): 300 seeds of its kernel identified arm 0 there, first self-duel
        between 29,833 and 45,334."""
        mu = _easy_condorcet()
        p = make_policy(name, 5, rng=np.random.default_rng(0))
        env = DuelEnvironment(mu, 3, 4)
        n, selfduels = 0, 0
        while n < 120_000 and not selfduels:
            selfduels = sum(i == j for i, j in _drive(p, env, 3000)[0])
            n += 3000
        assert selfduels, f"no self-duel in {n} rounds: a Copeland policy exploits on a Condorcet matrix"
        assert np.all(np.diag(p.draws) == 0) and np.all(np.diag(p.wins) == 0)
        assert p.draws.sum() == 2 * (n - selfduels)  # the self-duels are counted nowhere

    def test_run_batch_form(self, name):
        """``policy.run(duel, steps)`` plays the same pairs as the ``select_pair``/``update`` loop."""
        pm = random_matrix(4, 11, min_gap=0.05)
        p = make_policy(name, 4, rng=np.random.default_rng(3))
        pairs, outcomes = _drive(p, DuelEnvironment(pm.mu, 7, 8), 250)
        q = make_policy(name, 4, rng=np.random.default_rng(3))
        got_pairs, got_won = q.run(DuelEnvironment(pm.mu, 7, 8).duel, 250)
        assert [tuple(x) for x in got_pairs.tolist()] == pairs and got_won.tolist() == outcomes
        assert np.array_equal(q.wins, p.wins) and q.t == p.t == 251 and q.stats == p.stats
        i, j = q.select_pair()
        with pytest.raises(PolicyError, match="waiting"):
            q.run(DuelEnvironment(pm.mu, 7, 8).duel, 1)


def test_registry():
    assert {"ecw-rmed", "rmed1"} <= set(ALL)
    assert resolve_policy_list("all") == ALL
    assert resolve_policy_list("rmed1, ecw-rmed,rmed1") == ["rmed1", "ecw-rmed"]
    with pytest.raises(KeyError, match="unknown policy 'nope'"):
        resolve_policy_list("nope")
    with pytest.raises(ValueError, match="reserved"):

        class All(Policy):
            name = "all"

        register_policy(All)
    with pytest.raises(ValueError, match="already registered"):

        class Other(Policy):
            name = "rmed1"

        register_policy(Other)
    assert parse_param_spec("ecw-rmed.beta=0") == ("ecw-rmed", "beta", 0.0)
    assert parse_param_spec("rmed1.n_init=2") == ("rmed1", "n_init", 2)
    for bad, msg in [
        ("ecw-rmed.beta", "POLICY.NAME=VALUE"),
        ("ecw-rmed.gamma=1", "no hyperparameter"),
        ("ecw-rmed.alpha=x", "cannot read"),
        ("ecw-rmed.alpha=0", "must be > 0"),
    ]:
        with pytest.raises(ValueError, match=msg):
            parse_param_spec(bad)


# ----------------------------------------------------------------------------- ECW-RMED
def _random_state(rng, K, max_n=6):
    """Random counts (some pairs undrawn, some tied): wins W and draws N."""
    N = np.zeros((K, K), dtype=np.int64)
    W = np.zeros((K, K), dtype=np.int64)
    for i in range(K):
        for j in range(i + 1, K):
            n = int(rng.integers(0, max_n + 1))
            w = int(rng.integers(0, n + 1))
            N[i, j] = N[j, i] = n
            W[i, j], W[j, i] = w, n - w
    return W, N


def _brute_ecw_rows(structure, winner):
    """Every row of R^E_winner (000 eqs. (4)-(5)) written out from the definition."""
    a = winner
    beats, L, K = structure.beats, structure.L, structure.K
    rows = [[(a, j)] for j in range(K) if beats[a, j]]  # eq. (4), read as >=
    for i2 in range(K):
        if i2 == a:
            continue
        pool = [j for j in range(K) if beats[j, i2] and j != a]
        m = int(L[i2] - L[a] + 1)
        if m > len(pool):
            continue
        rows += [[(i2, j) for j in S] for S in itertools.combinations(pool, m)]
    return rows


def test_re_membership_equals_brute_force(rng):
    """ecw_check (sorting: counts in R^E, used on Theorem 5's allocations below) == every
    written-out row of eqs. (4)-(5) satisfied, on random empirical states."""
    seen = {True: 0, False: 0}
    for _ in range(400):
        K = int(rng.integers(2, 7))
        W, N = _random_state(rng, K)
        st = EmpiricalState(int(rng.integers(2, 40)), W, N)
        s = st.structure
        info = st.information
        for a in s.winners.tolist():
            rows = _brute_ecw_rows(s, a)
            brute = all(sum(info[p] for p in row) >= st.log_t for row in rows)
            got = ecw_check(s, info, st.log_t, a)
            assert got == brute
            seen[got] += 1
    assert min(seen.values()) > 30


def test_check3_is_line_8s_r_for_both_variants():
    """000 prints check (3) once, line 8: ``N / log t in R_{i*}(mu_hat)``; only line 11 is split into
    (CW) and (ECW).  Table 2's structure (arm 0 beats 1, 2, 3 at mu_hat 0.6, 200 draws each; the
    cycle 1 > 2 > 3 > 1 at 0.9, 40 draws each), t = 721: the counts lie in R_0 (each pool row needs
    its I-pair and S-pair together) but not in the smaller R^E_0 (eq. (4) asks N d >= log t of each
    (0, j) alone: 200 d(0.6) = 4.03 < log 721 = 6.58).  Both variants exploit arm 0."""
    from reference_policies import CWRMED as ReferenceCW

    from boundcalc.policies import CWRMED as CompiledCW
    from boundcalc.policies import ECWRMED as CompiledECW

    W = np.zeros((4, 4), dtype=np.int64)
    for j in (1, 2, 3):
        W[0, j], W[j, 0] = 120, 80
    for a, b in ((1, 2), (2, 3), (3, 1)):
        W[a, b], W[b, a] = 36, 4
    N = W + W.T
    t = 721
    st = EmpiricalState(t, W, N)
    assert 200 * kl_half(0.6) < math.log(t)  # eq. (4) fails for every (0, j) ...
    assert not ecw_check(st.structure, st.information, st.log_t, 0)  # ... so N / log t is not in R^E_0
    for cls in (CompiledECW, CompiledCW):
        dec = cls(4).decide(t, W, N)
        assert dec.check == 0 and dec.istar is None and dec.next == [(0, 0)], cls.name
    for cls in (ECWRMED, ReferenceCW):  # the transcriptions say the same
        assert cls(4).check_winner(st) == 0
    # 20 draws of each I-pair (mu_hat still 0.6) put the counts outside R_0 too: ECW-RMED explores
    W2 = W.copy()
    for j in (1, 2, 3):
        W2[0, j], W2[j, 0] = 12, 8
    dec = CompiledECW(4).decide(t, W2, W2 + W2.T)
    assert dec.check is None and dec.istar == 0


def test_check3_boundary_and_box():
    """Eq. (4) is read as >=: N d exactly log t passes; over-drawing a pair never fails the check."""
    beats = np.array([[0, 1, 1], [0, 0, 1], [0, 0, 0]], bool)
    from boundcalc.lp.structure import Structure

    s = Structure(beats, np.full((3, 3), 0.1))
    info = np.full((3, 3), 2.0)
    assert ecw_check(s, info, 2.0, 0)
    assert not ecw_check(s, info, 2.0 + 1e-12, 0)
    info[0, 1] = info[1, 0] = 1e9  # far beyond 1/d: still in R^E (no box on observed counts)
    assert ecw_check(s, info, 2.0, 0)


def test_empirical_readings():
    """Undrawn or tied pairs have mu_hat = 1/2, lie in neither S nor I, d = 0; d(0) = d(1) = log 2."""
    W = np.array([[0, 3, 1, 0], [0, 0, 0, 2], [1, 0, 0, 0], [0, 0, 0, 0]])
    N = W + W.T
    st = EmpiricalState(10, W, N)
    assert st.mu_hat[0, 3] == 0.5 and st.mu_hat[0, 2] == 0.5  # undrawn, tied
    s = st.structure
    assert not (s.beats[0, 2] or s.beats[2, 0] or s.beats[0, 3] or s.beats[3, 0])
    assert s.d[0, 2] == 0.0 and s.d[0, 3] == 0.0
    assert s.d[0, 1] == math.log(2.0) and s.d[3, 1] == math.log(2.0)  # 3-0 and 0-2 records
    assert s.L.tolist() == [0, 1, 0, 1]  # 0 beats 1 (3-0), 1 beats 3 (2-0)


def test_forced_exploration_reading():
    W = np.array([[0, 6], [5, 0]])
    N = W + W.T  # 11 draws, mu_hat = 6/11, |mu_hat - 1/2| = 0.045
    # alpha sqrt(log t) threshold only (t <= 2: log log t <= 0 disables the beta test)
    assert forced_exploration_pairs(W, N, 2, 3.0, 100.0) == []
    assert forced_exploration_pairs(W, N, 2, 20.0, 0.0) == [(1, 0)]
    # t = 10: log log t = 0.834; beta / log log t = 0.06 > 0.045: forced
    assert forced_exploration_pairs(W, N, 10, 1.0, 0.05) == [(1, 0)]
    assert forced_exploration_pairs(W, N, 10, 1.0, 0.03) == []
    assert forced_exploration_pairs(W, N, 10, 1.0, 0.0) == []
    assert forced_exploration_pairs(np.zeros((3, 3), int), np.zeros((3, 3), int), 1, 3.0, 0.01) == []
    assert forced_exploration_pairs(np.zeros((3, 3), int), np.zeros((3, 3), int), 3, 3.0, 0.0) == [
        (1, 0),
        (2, 0),
        (2, 1),
    ]


@pytest.mark.slow
def test_lists_follow_algorithm_1():
    """L_C never holds a duplicate, is walked in lexicographic order, and the exploit pair (i*, i*)
    reaches the next pass (line 15 over P_all)."""
    pm = load_example("mslr5-condorcet")
    p = ECWRMED(5, beta=0.0)
    env = DuelEnvironment(pm.mu, 21, 22)
    passes = []
    last = None
    for _ in range(4000):
        if p._pos == 0 and p._pass_start and p._LC is not last:
            last = p._LC
            passes.append(list(p._LC))
        i, j = p.select_pair()
        p.update(i, j, env.duel(i, j))
    assert passes[0] == [(i, j) for i in range(1, 5) for j in range(i)]
    for lc in passes:
        assert len(lc) == len(set(lc)) and lc == sorted(lc)
        assert all(i >= j for i, j in lc)
    # most passes exploit an empirical winner by its self-duel (here arm 1 looks best for a while:
    # mu_01 = 0.535)
    assert sum(any(i == j for i, j in lc) for lc in passes) > len(passes) // 2
    st = p.stats
    assert st["solves"] <= st["targets"] <= st["checks"]


def test_closed_form_kernel_equals_lp(rng):
    """The compiled Theorem 5 (the LP core's ``ecw_closed_form``, which ECW-RMED's line 11 calls per
    pool) == boundcalc.lp.ecw's numpy form on random empirical states: the value to 1e-12 and the
    allocation exactly once ties in cost are broken by arm index."""
    from boundcalc.kernels.lp import ecw_closed_form

    n_cut_ties = 0
    for _ in range(600):
        K = int(rng.integers(2, 9))
        W, N = _random_state(rng, K, max_n=int(rng.choice([2, 5, 30])))
        s = empirical_structure(EmpiricalState(5, W, N).mu_hat)
        d = s.d
        R = pair_regret(s.L, K)
        pos = d > 0
        C = np.where(pos, R / np.where(pos, d, 1.0), np.inf)
        np.fill_diagonal(C, np.inf)
        for a in s.winners.tolist():
            v_lp, E_lp = lp_ecw.ecw_allocation_numpy(s.beats, C, a)
            E = np.zeros((K, K))
            v = ecw_closed_form(s.beats, np.asarray(s.L, dtype=np.int64), C, a, E)
            assert v == pytest.approx(v_lp, rel=1e-12, abs=1e-12)
            E_can = canonical_ties(s, C, a, np.array(E_lp))
            assert np.array_equal(E, E_can)
            for i2 in range(K):  # coverage: pools whose selection cuts through equal costs
                sel = (E[i2] > 0) & s.beats[:, i2]
                rest = ~sel & s.beats[:, i2]
                rest[a] = False
                n_cut_ties += bool(sel.any() and rest.any() and C[i2, sel].max() == C[i2, rest].min())
            # and the allocation is feasible in R^E with that value
            assert ecw_check(s, E, 1.0 - 1e-12, a)
            iu = np.triu_indices(K, 1)
            used = E[iu] > 0
            assert float((C[iu][used] * E[iu][used]).sum()) == pytest.approx(v, rel=1e-9, abs=1e-12)
    assert n_cut_ties > 20


def test_target_value_equals_bound_on_true_matrix():
    """On counts proportional to the true matrix the target is 000's ECW constant (Theorem 5)."""
    from boundcalc import ecw_bound

    for name in ("table2", "mslr5-condorcet", "mslr5-noncondorcet"):
        pm = load_example(name)
        n = 10**6
        W = np.round(pm.mu * n).astype(np.int64)
        np.fill_diagonal(W, 0)
        N = W + W.T
        s = EmpiricalState(100, W, N).structure
        istar, Q, values = ecw_target(s)
        ref = ecw_bound(pm)
        assert min(values.values()) == pytest.approx(ref.value, rel=1e-5)
        assert istar in pm.copeland_winners.tolist()


@pytest.mark.slow
def test_ecw_regret_grows_like_its_constant():
    """ECW-RMED on 000's Table 2 (ECW constant 49.66, lower bound 27.55): mean regret per ln T
    at T = 10^5 over 40 runs lies in [0.85, 1.3] x 49.66.  Why this band: Theorem 4 bounds the
    regret by C^E* ln T + o(ln T); measured at 10^4, 10^5 and 10^6 (40 runs, seed 1) the ratio
    is 54.5, 54.7, 54.0 (standard error 2), i.e. settled 10% above the constant from lower-order
    terms (forced exploration, the first passes).  The band is +-5 standard errors around that."""
    from boundcalc.simulate import simulate

    res = simulate(load_example("table2"), ["ecw-rmed"], horizon=10**5, runs=40, seed=1)
    per = res.mean("ecw-rmed")[-1] / math.log(10**5)
    assert res.ecw == pytest.approx(49.6635, abs=1e-3)
    assert 0.85 * res.ecw <= per <= 1.3 * res.ecw
    assert per > res.lower_bound  # ECW-RMED does not reach the lower bound here (Theorem 6: C = 1)


# ----------------------------------------------------------------------------- RMED1
def test_empirical_divergence_by_hand():
    W = np.array([[0, 1, 4], [3, 0, 2], [0, 2, 0]])
    N = W + W.T
    d = lambda p: float(kl_half(p))
    # arm 0 loses to 1 (1 of 4): I_0 = 4 d(1/4); arm 1: ties with 2 (2 of 4), beats 0; arm 2 loses to 0
    I = empirical_divergence(W, N)
    assert I[0] == pytest.approx(4 * d(0.25))
    assert I[1] == 0.0
    assert I[2] == pytest.approx(4 * d(0.0)) and I[2] == 4 * math.log(2.0)


def _rmed1_at(W, N, **kw):
    p = RMED1(W.shape[0], **kw)
    p.wins[:] = W
    p.draws[:] = N
    p.t = int(N.sum() // 2) + 1
    p._initial = False
    return p


def test_rmed1_opponent_rule():
    """Algorithm 2 of RMED (COLT 2015): m = i* when i* is an opponent (mu_hat_li <= 1/2) or l
    has none, else the arm that beats l the most."""
    # arm 0 beats everyone: i* = 0
    W = np.array([[0, 8, 8, 8], [2, 0, 3, 7], [2, 7, 0, 1], [2, 3, 9, 0]])
    N = W + W.T
    p = _rmed1_at(W, N)
    assert p.best_arm()[0] == 0
    p._LC, p._pos = [0, 1, 2, 3], 0
    assert p.select_pair() == (0, 0)  # l = i*, no opponent: self-duel
    p._pending = None
    p._pos = 1
    assert p.select_pair() == (1, 0)  # 0 is an opponent of 1
    # l = 2 where i* is not an opponent: make 2 beat 0
    W2 = W.copy()
    W2[2, 0], W2[0, 2] = 6, 4
    p = _rmed1_at(W2, W2 + W2.T)
    p._LC, p._pos = [2], 0
    istar = p.best_arm()[0]
    mu2 = W2[2] / np.maximum((W2 + W2.T)[2], 1)
    if istar == 0:
        assert p.select_pair() == (2, int(np.argmin(np.where(np.arange(4) == 2, 9, mu2))))


def test_rmed1_initial_phase_and_lists():
    pm = load_example("arithmetic8")
    p = RMED1(8, rng=np.random.default_rng(0))
    env = DuelEnvironment(pm.mu, 1, 2)
    pairs, _ = _drive(p, env, 28)
    assert pairs == [(i, j) for i in range(8) for j in range(i + 1, 8)]
    pairs, _ = _drive(p, env, 3000)
    # on a Condorcet matrix the winner's self-duel takes over as it is learned
    first = sum(1 for i, j in pairs[:1000] if i == j == 0)
    last = sum(1 for i, j in pairs[-1000:] if i == j == 0)
    assert last > first and last > 300


def test_policies_pickle():
    """Policies are plain objects (e.g. for checkpointing a run)."""
    p = make_policy("ecw-rmed", 4)
    p.update(*p.select_pair(), True)
    q = pickle.loads(pickle.dumps(p))
    assert q.select_pair() == p.select_pair()
