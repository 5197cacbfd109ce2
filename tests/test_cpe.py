"""Tests of boundcalc.cpe: combinatorial pure exploration for dueling bandits (paper 004).

Numbers are checked against (a) 004's own example (Figures 1-4: Borda scores 0.64 / 0.615),
(b) hand computations written out in the comments, and (c) brute force over all maximum
matchings, enumerated here independently of the package (itertools over assignments).
"""

from __future__ import annotations

import itertools
import json
import math

import networkx as nx
import numpy as np
import pytest
from builders import dueling_mu
from builders import random_cpe_instance as random_instance
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import boundcalc.cpe as cpe
from boundcalc.cpe import (
    CPEInstance,
    CPEInstanceError,
    CPETooLargeError,
    NoWinnerError,
)
from boundcalc.lp.highs import SolverError
from boundcalc.result import Result
from boundcalc.units import UNIT_DUELS, UNIT_HARDNESS

# --------------------------------------------------------------------------------- fixtures
# 004 Figures 1-2 as transcribed in paper_matrices.md: e1=(c1,s1) e2=(c2,s1) e3=(c3,s1)
# e4=(c3,s2) e5=(c4,s2); 0 between incomparable edges.
EDGES_004 = [("c1", "s1"), ("c2", "s1"), ("c3", "s1"), ("c3", "s2"), ("c4", "s2")]
P_004 = [
    [0.5, 0.45, 1, 0, 0],
    [0.55, 0.5, 0.55, 0, 0],
    [0, 0.45, 0.5, 0, 0],
    [0, 0, 0, 0.5, 0],
    [0, 0, 0, 1, 0.5],
]


@pytest.fixture
def ex004():
    return CPEInstance.from_edge_matrix(EDGES_004, P_004)


def brute_matchings(inst):
    """All maximum matchings by filtering every injective position -> candidate assignment."""
    out = []
    for cands in itertools.permutations(range(inst.n_candidates), inst.n_positions):
        try:
            M = tuple(inst.edge_index((inst.candidates[c], s)) for c, s in zip(cands, inst.positions))
        except KeyError:
            continue
        out.append(M)
    return out


def brute_f(inst, M1, M2):
    """004 eq. (1): f(M1, M2) = (1/l) sum_j p_{e(M1,j), e(M2,j)}."""
    P = inst.edge_matrix
    return sum(P[a, b] for a, b in zip(M1, M2)) / inst.n_positions


SEEDS = st.integers(0, 2**32 - 1)
FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --------------------------------------------------------------------------------- 004's example
def test_004_example_matchings_and_counts(ex004):
    # The maximum matchings are {e_a, e_b}, a in {1,2,3}, b in {4,5}, except {e3, e4}.
    Ms = set(cpe.iter_maximum_matchings(ex004))
    assert Ms == {(0, 3), (0, 4), (1, 3), (1, 4), (2, 4)}
    # |M_e|: e1 in 2, e2 in 2, e3 in 1, e4 in 2, e5 in 3.
    c = cpe.matching_counts(ex004)
    assert (c.total, c.per_edge) == (5, (2, 2, 1, 2, 3))
    assert cpe.count_maximum_matchings(ex004) == 5


def test_004_example_rewards_and_borda_scores(ex004):
    # w(e) = (1/5) sum_M p_{e, e(M, j)}:
    #   w(e1) = (2*.5 + 2*.45 + 1*1)/5 = .58     w(e2) = (2*.55 + 2*.5 + .55)/5 = .53
    #   w(e3) = (2*0 + 2*.45 + .5)/5 = .28       w(e4) = (2*.5 + 3*0)/5 = .2
    #   w(e5) = (2*1 + 3*.5)/5 = .7
    assert cpe.edge_rewards(ex004) == pytest.approx([0.58, 0.53, 0.28, 0.2, 0.7], abs=1e-14)
    MB = cpe.borda_winner(ex004)
    MC = cpe.condorcet_winner(ex004)
    assert ex004.matching_edges(MB) == (("c1", "s1"), ("c4", "s2"))  # {e1, e5}
    assert ex004.matching_edges(MC) == (("c2", "s1"), ("c4", "s2"))  # {e2, e5}
    # 004 Sec. 2: Borda winner score 0.64; the Condorcet winner's is 0.615.
    assert cpe.borda_score(ex004, MB) == pytest.approx(0.64, abs=1e-14)
    assert cpe.borda_score(ex004, MC) == pytest.approx(0.615, abs=1e-14)
    assert cpe.borda_score(ex004, [("c2", "s1"), ("c4", "s2")]) == pytest.approx(0.615, abs=1e-14)
    # the same scores straight from eq. (2), by brute force
    for M in brute_matchings(ex004):
        B = np.mean([brute_f(ex004, M, M2) for M2 in brute_matchings(ex004)])
        assert cpe.borda_score(ex004, M) == pytest.approx(B, abs=1e-14)


def test_004_example_borda_gaps(ex004):
    # w(M): {e1,e4} .78, {e1,e5} 1.28, {e2,e4} .73, {e2,e5} 1.23, {e3,e5} .98; M^B = {e1,e5}.
    # e1 in M^B: best without e1 is 1.23 -> .05;   e5 in M^B: best without e5 is .78 -> .5
    # e2: best with e2 is 1.23 -> .05;   e3: .98 -> .3;   e4: .78 -> .5
    g = cpe.borda_gaps(ex004)
    assert g == pytest.approx([0.05, 0.05, 0.3, 0.5, 0.5], abs=1e-13)
    # H^B = 400 + 400 + 1/.09 + 4 + 4
    assert cpe.borda_hardness(ex004) == pytest.approx(808 + 1 / 0.09, rel=1e-12)


def test_004_example_condorcet_constants(ex004):
    M = cpe.condorcet_winner(ex004)
    # f(M*, M) for the four rivals: {e1,e4} .775, {e1,e5} .525, {e2,e4} .75, {e3,e5} .525
    assert cpe.condorcet_margin(ex004, M) == pytest.approx(0.025, abs=1e-14)
    # p_{e, e*}: e1 .45, e2 .5, e3 .45, e4 0, e5 .5 (weights of f(M, M*)).
    # e1: best with e1 is {e1,e5}: f = .475 -> .025;  e3: {e3,e5} .475 -> .025
    # e4: {e2,e4} f = .25 -> .25;  e2 (in M*): best without it .475 -> .025;  e5: .25 -> .25
    assert cpe.condorcet_gaps(ex004) == pytest.approx([0.025, 0.025, 0.025, 0.25, 0.25], abs=1e-13)
    # pairs {e1,e2}, {e1,e3}, {e2,e3} at .025 and {e4,e5} at .25: 3*1600 + 16
    assert cpe.condorcet_hardness(ex004) == pytest.approx(4816, rel=1e-12)
    assert cpe.condorcet_hardness(ex004, ordered=True) == pytest.approx(9632, rel=1e-12)
    D = cpe.condorcet_pair_gaps(ex004)
    assert np.isnan(D[0, 3]) and np.isnan(D[1, 1]) and D[0, 2] == pytest.approx(0.025)
    # verification gaps (l/d)(1/2 - f(M, M*)): e1 via {e1,e5} (d=1): 2*.025 = .05;
    # e3 via {e3,e5}: .05;  e4: {e1,e4} (d=2): (.05 + .5)/2 = .275, {e2,e4} (d=1): 2*.25 = .5
    v = cpe.verification_gaps(ex004)
    assert v[[0, 2, 3]] == pytest.approx([0.05, 0.05, 0.275], abs=1e-13)
    assert np.isnan(v[1]) and np.isnan(v[4])
    assert cpe.condorcet_ver_hardness(ex004) == pytest.approx(800 + 1 / 0.275**2, rel=1e-12)


def test_004_example_width(ex004):
    # {e1,e4} u {e3,e5} is the path c1-s1-c3-s2-c4 with 4 edges = 2l.
    assert cpe.width(ex004) == 4


# --------------------------------------------------------------------------------- hand-worked
def test_condorcet_winner_need_not_win_every_position():
    # s1: a, b; s2: b, c.  Matchings M1 = {a-s1, b-s2}, M2 = {a-s1, c-s2}, M3 = {b-s1, c-s2}.
    # a LOSES to b on s1 (0.4) but b beats c on s2 by 0.9, so
    # f(M1, M2) = (.5 + .9)/2 = .7 and f(M1, M3) = (.4 + .9)/2 = .65: M1 is 004's Condorcet winner.
    G = nx.Graph()
    G.add_nodes_from("abc", bipartite=0)
    G.add_nodes_from(["s1", "s2"], bipartite=1)
    G.add_edges_from([("a", "s1"), ("b", "s1"), ("b", "s2"), ("c", "s2")])
    inst = CPEInstance(G, {"s1": (["a", "b"], [[0.5, 0.4], [0.6, 0.5]]), "s2": (["b", "c"], [[0.5, 0.9], [0.1, 0.5]])})
    M = cpe.condorcet_winner(inst)
    assert inst.matching_edges(M) == (("a", "s1"), ("b", "s2"))
    assert cpe.condorcet_winner(inst, method="lp") == M
    assert cpe.condorcet_winner(inst, method="enumerate") == M
    assert cpe.condorcet_margin(inst, M) == pytest.approx(0.15, abs=1e-14)
    # Counts: a-s1 in 2, b-s1 in 1, b-s2 in 1, c-s2 in 2 (of 3).
    # w(a-s1) = (2*.5 + .4)/3, w(b-s1) = (2*.6 + .5)/3, w(b-s2) = (.5 + 2*.9)/3, w(c-s2) = (.1 + 2*.5)/3
    w = np.array([1.4, 1.7, 2.3, 1.1]) / 3
    assert cpe.edge_rewards(inst) == pytest.approx(w, abs=1e-14)
    # w(M1) = 3.7/3 beats w(M3) = 2.8/3 and w(M2) = 2.5/3; every gap is 0.9/3 = 0.3
    assert cpe.borda_winner(inst) == M
    assert cpe.borda_gaps(inst) == pytest.approx([0.3] * 4, abs=1e-13)
    # f(M2, M1) = (.5 + .1)/2 = .3, f(M3, M1) = (.6 + .1)/2 = .35 -> every Condorcet gap is .15
    assert cpe.condorcet_gaps(inst) == pytest.approx([0.15] * 4, abs=1e-13)
    # verification: b-s1 only in M3 (d=2): .15;  c-s2: M2 (d=1) 2*.2 = .4, M3 .15 -> .15
    v = cpe.verification_gaps(inst)
    assert v[[1, 3]] == pytest.approx([0.15, 0.15], abs=1e-13)
    assert cpe.width(inst) == 4  # M1 u M3 = a-s1-b-s2-c


def test_weak_condorcet_winner_is_not_a_condorcet_winner():
    # Same graph as above with p_{a,b} = .4 on s1 and p_{b,c} = .6 on s2:
    # f(M1, M3) = (.4 + .6)/2 = 1/2 exactly, f(M1, M2) = (.5 + .6)/2 = .55, f(M3, M2) = (.6 + .5)/2.
    # M1 and M3 both weakly beat everything; 004 requires f(M*, M) > 1/2 strictly -> no winner.
    G = nx.Graph()
    G.add_nodes_from("abc", bipartite=0)
    G.add_nodes_from(["s1", "s2"], bipartite=1)
    G.add_edges_from([("a", "s1"), ("b", "s1"), ("b", "s2"), ("c", "s2")])
    inst = CPEInstance(G, {"s1": (["a", "b"], [[0.5, 0.4], [0.6, 0.5]]), "s2": (["b", "c"], [[0.5, 0.6], [0.4, 0.5]])})
    assert cpe.condorcet_margin(inst, [0, 2]) == pytest.approx(0.0, abs=1e-15)
    assert not cpe.is_condorcet_winner(inst, [0, 2])
    for method in ("lp", "enumerate", "auto"):
        assert cpe.condorcet_winner(inst, method=method) is None
    with pytest.raises(NoWinnerError):
        cpe.condorcet_ver_hardness(inst)


def test_single_position_hand_example():
    # mu rows: w = (.5+.7+.8)/3 = 2/3, (.3+.5+.6)/3 = 1.4/3, (.2+.4+.5)/3 = 1.1/3.
    mu = np.array([[0.5, 0.7, 0.8], [0.3, 0.5, 0.6], [0.2, 0.4, 0.5]])
    assert cpe.single_position_rewards(mu) == pytest.approx([2 / 3, 1.4 / 3, 1.1 / 3])
    # Delta^B = (.2 [winner vs runner-up], .2, .3): H^B = 25 + 25 + 1/.09
    assert cpe.cpe_borda_gaps(mu) == pytest.approx([0.2, 0.2, 0.3])
    hb = cpe.cpe_borda_hardness(mu)
    assert hb.extra["winner"] == 0 and hb.value == pytest.approx(50 + 1 / 0.09)
    # Condorcet winner 0: Delta^C = (min(.2, .3), .2, .3); pairs {0,1}: .2, {0,2}: .3, {1,2}: .3
    assert cpe.cpe_condorcet_gaps(mu) == pytest.approx([0.2, 0.2, 0.3])
    assert cpe.cpe_condorcet_hardness(mu).value == pytest.approx(25 + 2 / 0.09)
    # H^C_ver = 1/.2^2 + 1/.3^2
    assert cpe.cpe_condorcet_ver(mu).value == pytest.approx(25 + 1 / 0.09)
    inst = CPEInstance.from_matrix(mu)
    assert cpe.width(inst) == 2
    assert cpe.borda_hardness(inst) == pytest.approx(50 + 1 / 0.09)
    assert cpe.condorcet_ver_hardness(inst) == pytest.approx(25 + 1 / 0.09)


def test_width_hand_examples():
    # Two positions with disjoint candidate sets: every component of M1 u M2 sits on one position.
    G = nx.Graph()
    G.add_nodes_from("abcd", bipartite=0)
    G.add_nodes_from(["s1", "s2"], bipartite=1)
    G.add_edges_from([("a", "s1"), ("b", "s1"), ("c", "s2"), ("d", "s2")])
    half = [[0.5, 0.6], [0.4, 0.5]]
    assert cpe.width(CPEInstance(G, {"s1": (["a", "b"], half), "s2": (["c", "d"], half)})) == 2
    # A 6-cycle a-s1-b-s2-c-s3-a: the two perfect matchings' union is the whole cycle.
    H = nx.Graph()
    H.add_nodes_from("abc", bipartite=0)
    H.add_nodes_from(["s1", "s2", "s3"], bipartite=1)
    H.add_edges_from([("a", "s1"), ("b", "s1"), ("b", "s2"), ("c", "s2"), ("c", "s3"), ("a", "s3")])
    cyc = CPEInstance(H, {"s1": (["a", "b"], half), "s2": (["b", "c"], half), "s3": (["c", "a"], half)})
    assert cpe.count_maximum_matchings(cyc) == 2
    assert cpe.width(cyc) == 6
    # A single maximum matching: Definition 2's max is over an empty set -> reported as 0.
    assert cpe.width(CPEInstance.from_matrix([[0.5]])) == 0


def test_lower_bounds_hand_examples():
    # Theorem 6, one position, mu = [[.5, .55], [.45, .5]], gamma = .1 (< 1/6), delta = .05:
    # sum over e not in M*: 0.4 * .1 * .9 / (1 * .05^2) * ln 20 = 14.4 ln 20
    inst = CPEInstance.from_matrix([[0.5, 0.55], [0.45, 0.5]])
    assert cpe.condorcet_lower_bound(inst, 0.1, 0.05) == pytest.approx(14.4 * math.log(20), rel=1e-9)
    # Theorem 3 (App. B.6), same instance, gamma = .05: w = (.525, .475), gaps .05, .05 -> H^B = 800.
    # |M|/(|M| - |M_e|) = 2 <= (1 - .2)/(.2) = 4.  Bound: 0.2 * .05 * .95 * (.2/.8)^2 * ln 20 * 800
    assert cpe.borda_hardness(inst) == pytest.approx(800)
    assert cpe.borda_lower_bound(inst, 0.05, 0.05) == pytest.approx(
        0.2 * 0.05 * 0.95 * 0.0625 * math.log(20) * 800, rel=1e-9
    )
    with pytest.raises(ValueError, match="gamma"):
        cpe.condorcet_lower_bound(inst, 0.2, 0.05)  # gamma >= 1/(2(2+1))
    with pytest.raises(ValueError, match="delta"):
        cpe.condorcet_lower_bound(inst, 0.1, 0.2)
    with pytest.raises(ValueError, match=r"\|p - 1/2\|"):
        cpe.borda_lower_bound(inst, 0.01, 0.05)
    with pytest.raises(ValueError, match=r"\|M\|/\(\|M\| - \|M_e\|\)"):
        cpe.borda_lower_bound(inst, 0.2, 0.05)  # (1 - .8)/(.8) = .25 < 2
    # check=False evaluates the expression regardless of the conditions:
    # 0.2 * .2 * .8 * (4 * .2 * 1 / (1 - .8))^2 * ln 20 * 800 = 0.032 * 16 * 800 ln 20
    assert cpe.borda_lower_bound(inst, 0.2, 0.05, check=False) == pytest.approx(
        0.2 * 0.2 * 0.8 * 16.0 * math.log(20) * 800, rel=1e-9
    )


def test_ex004_lower_bound_conditions_fail(ex004):
    with pytest.raises(ValueError, match=r"\|p - 1/2\|"):
        cpe.condorcet_lower_bound(ex004, 0.1, 0.05)  # p = 1 entries


def test_theorem6_assumption_detects_violation():
    # One position, winner 0 beats 1 and 2 by .55, but 1 beats 2 by .6: for M = {2},
    # O(M) = {{0}, {1}} and f({2}, M*) = .45 > f({2}, {1}) = .4 breaks Theorem 6's supposition.
    mu = [[0.5, 0.55, 0.55], [0.45, 0.5, 0.6], [0.45, 0.4, 0.5]]
    inst = CPEInstance.from_matrix(mu)
    assert not cpe.theorem6_assumption_holds(inst)
    with pytest.raises(ValueError, match="structural"):
        cpe.condorcet_lower_bound(inst, 0.15, 0.05)  # other conditions hold: .1 <= .15 < 1/6
    # The supposition is restrictive: with one position and K >= 3 arms, of two non-winners i, j
    # one beats the other, say i in O({j}), and M* \\ {j} = {i*} is not inside {i}.  So even a
    # winner with the largest margins fails it; two arms satisfy it.
    mu2 = [[0.5, 0.6, 0.9], [0.4, 0.5, 0.6], [0.1, 0.4, 0.5]]
    assert not cpe.theorem6_assumption_holds(CPEInstance.from_matrix(mu2))
    assert cpe.theorem6_assumption_holds(CPEInstance.from_matrix([[0.5, 0.55], [0.45, 0.5]]))


def test_sample_complexity_expressions_single_position():
    # mu = [[.5,.7],[.3,.5]]: Borda gaps .2,.2 -> H^B = 50; Condorcet gaps .2,.2; K = 1 duel.
    ex = cpe.sample_complexity_expressions(CPEInstance.from_matrix([[0.5, 0.7], [0.3, 0.5]]), 0.05, eps=0.1)
    assert ex["theorem3"].value == pytest.approx(50 * math.log(20))
    assert ex["theorem4"].value == pytest.approx(25 * math.log(1 / (0.05 * 0.04)))
    assert ex["theorem5"].value == pytest.approx(25 * math.log(25) + 25 * math.log(25 / 0.05))
    assert ex["theorem6"].value == pytest.approx(25 * math.log(20))
    # H^B_eps = sum min(4/.04, 100) = 200 -> 200 ln(200/.05)
    assert ex["theorem1"].value == pytest.approx(200 * math.log(4000))
    L = math.log(1 / 0.2)
    assert ex["theorem2"].value == pytest.approx(4 * 50 * L * (math.log(2 * 50 / 0.05) + math.log(L)))
    cyc = [[0.5, 0.6, 0.4], [0.4, 0.5, 0.6], [0.6, 0.4, 0.5]]
    ex2 = cpe.sample_complexity_expressions(CPEInstance.from_matrix(cyc), 0.05)
    assert ex2["theorem4"].value is None and "Condorcet" in ex2["theorem4"].reason
    assert ex2["theorem1"].value is None and ex2["theorem1"].status == "not-applicable"
    for n in range(1, 7):
        r = ex[f"theorem{n}"]
        assert isinstance(r, Result) and r.key == f"theorem{n}" and r.unit == UNIT_DUELS and r.success
        assert f"Theorem {n}" in r.source


# --------------------------------------------------------------------------------- brute force
@FAST
@given(SEEDS)
def test_counts_and_rewards_match_enumeration(seed):
    inst = random_instance(seed)
    Ms = brute_matchings(inst)
    assert set(cpe.iter_maximum_matchings(inst)) == set(Ms)
    c = cpe.matching_counts(inst)
    assert c.total == len(Ms)
    assert list(c.per_edge) == [sum(e in M for M in Ms) for e in range(inst.n_edges)]
    # w(e) from its definition, eq. (4): average over all M of p_{e, e(M, s(e))}
    P = inst.edge_matrix
    w_brute = [np.mean([P[e, M[inst.edge_position[e]]] for M in Ms]) for e in range(inst.n_edges)]
    w = cpe.edge_rewards(inst)
    assert w == pytest.approx(w_brute, abs=1e-12)
    # equality (a) of eq. (4): w(M) = l B(M) with B from eq. (2)
    for M in Ms[:10]:
        B = np.mean([brute_f(inst, M, M2) for M2 in Ms])
        assert cpe.matching_reward(inst, M) == pytest.approx(inst.n_positions * B, abs=1e-12)


@FAST
@given(SEEDS)
def test_borda_winner_and_gaps_match_enumeration(seed):
    inst = random_instance(seed)
    Ms = brute_matchings(inst)
    w = cpe.edge_rewards(inst)
    val = {M: sum(w[e] for e in M) for M in Ms}
    best = max(val.values())
    top = [M for M in Ms if val[M] >= best - 1e-12]
    if len(top) > 1:
        with pytest.raises(NoWinnerError, match="Borda"):
            cpe.borda_winner(inst)
        return
    Mb = top[0]
    assert cpe.borda_winner(inst) == Mb
    expect = []
    for e in range(inst.n_edges):
        pool = [val[M] for M in Ms if (e in M) != (e in Mb)]
        expect.append(best - max(pool) if pool else math.inf)
    assert cpe.borda_gaps(inst) == pytest.approx(expect, abs=1e-12)
    assert cpe.borda_hardness(inst) == pytest.approx(sum(1 / g**2 for g in expect), rel=1e-9)


@FAST
@given(SEEDS, st.booleans())
def test_condorcet_constants_match_enumeration(seed, plant):
    inst = random_instance(seed)
    if plant:
        # make one matching's edges beat every comparable edge -> a Condorcet winner exists
        Mp = brute_matchings(inst)[seed % len(brute_matchings(inst))]
        prefs = {}
        for j, s in enumerate(inst.positions):
            p = np.array(inst.position_matrices[j])
            r = inst.local_index(Mp[j])
            p[r, :] = np.maximum(p[r, :], 1 - p[r, :])
            p[:, r] = 1 - p[r, :]
            p[r, r] = 0.5
            prefs[s] = ([inst.edges[k][0] for k in inst.position_edges[j]], p)
        inst = CPEInstance(inst.graph, prefs)
    Ms = brute_matchings(inst)
    winners = [M for M in Ms if all(brute_f(inst, M, M2) > 0.5 + 1e-12 for M2 in Ms if M2 != M)]
    assert cpe.condorcet_winner(inst, method="enumerate") == (winners[0] if winners else None)
    assert cpe.condorcet_winner(inst, method="lp") == (winners[0] if winners else None)
    assert cpe.condorcet_winner(inst) == (winners[0] if winners else None)
    if plant:
        assert winners == [Mp]
    if not winners:
        with pytest.raises(NoWinnerError, match="no Condorcet winning matching"):
            cpe.condorcet_gaps(inst)
        return
    Mc = winners[0]
    l = inst.n_positions
    gaps, ver = [], []
    for e in range(inst.n_edges):
        pool = [M for M in Ms if (e in M) != (e in Mc)]
        gaps.append(0.5 - max(brute_f(inst, M, Mc) for M in pool) if pool else math.inf)
        if e not in Mc:
            ratios = [l / sum(a != b for a, b in zip(M, Mc)) * (0.5 - brute_f(inst, M, Mc)) for M in Ms if e in M]
            ver.append(min(ratios) if ratios else math.inf)
        else:
            ver.append(math.nan)
    assert cpe.condorcet_gaps(inst) == pytest.approx(gaps, abs=1e-12)
    got_ver = cpe.verification_gaps(inst)
    assert np.array_equal(np.isnan(got_ver), np.isnan(ver))
    ok = ~np.isnan(ver)
    assert got_ver[ok] == pytest.approx(np.array(ver)[ok], abs=1e-12)
    # 004 App. C.4: tilde Delta_e >= Delta_e (so H_ver <= sum 1/Delta_e^2); also <= l Delta_e
    g = np.array(gaps)
    assert np.all(got_ver[ok] >= g[ok] - 1e-12) and np.all(got_ver[ok] <= l * g[ok] + 1e-12)
    pair = sum(
        1 / max(gaps[a], gaps[b]) ** 2
        for a in range(inst.n_edges)
        for b in range(a + 1, inst.n_edges)
        if inst.edge_position[a] == inst.edge_position[b]
    )
    assert cpe.condorcet_hardness(inst) == pytest.approx(pair, rel=1e-9)


@settings(max_examples=15, deadline=None)
@given(SEEDS)
def test_width_matches_enumeration(seed):
    inst = random_instance(seed, p_edge=0.4)
    Ms = brute_matchings(inst)
    best = 0
    for M1, M2 in itertools.combinations(Ms, 2):
        U = nx.Graph()
        U.add_edges_from(inst.edges[e] for e in set(M1) | set(M2))
        best = max(best, max(U.subgraph(cc).number_of_edges() for cc in nx.connected_components(U)))
    assert cpe.width(inst) == best


@FAST
@given(SEEDS)
def test_best_matching_matches_enumeration(seed):
    inst = random_instance(seed)
    rng = np.random.default_rng(seed)
    wts = rng.normal(size=inst.n_edges)
    Ms = brute_matchings(inst)
    e = int(rng.integers(inst.n_edges))
    for kw, pool in (
        ({}, Ms),
        ({"include": e}, [M for M in Ms if e in M]),
        ({"exclude": e}, [M for M in Ms if e not in M]),
    ):
        val, M = cpe.best_matching(inst, wts, **kw)
        if not pool:
            assert val == -math.inf and M is None
            continue
        assert val == pytest.approx(max(sum(wts[k] for k in P) for P in pool), abs=1e-12)
        assert M in pool
        vmin, _ = cpe.best_matching(inst, wts, minimize=True, **kw)
        assert vmin == pytest.approx(min(sum(wts[k] for k in P) for P in pool), abs=1e-12)


def test_counts_are_exact_beyond_int64():
    # Complete bipartite K_{30,14}: |M| = 30!/16! ~ 1.3e19 > 2^63, |M_e| = 29!/16! for every edge.
    n, l = 30, 14
    G = nx.complete_bipartite_graph(n, l)  # nodes 0..29 (bipartite=0), 30..43 (bipartite=1)
    prefs = {s: (list(range(n)), np.array(dueling_mu(s, n))) for s in range(n, n + l)}
    inst = CPEInstance(G, prefs)
    c = cpe.matching_counts(inst)
    assert c.total == math.factorial(30) // math.factorial(16) > 2**63
    assert set(c.per_edge) == {math.factorial(29) // math.factorial(16)}
    # w(e) = sum_{e'} p_{e,e'} / n for a complete graph (every edge in the same share of matchings)
    w = cpe.edge_rewards(inst)
    ix = inst.position_edges[0]
    assert w[ix] == pytest.approx(inst.position_matrices[0].mean(axis=1), abs=1e-14)


# --------------------------------------------------------------------------------- one position
@settings(max_examples=60, deadline=None)
@given(SEEDS, st.integers(1, 7))
def test_single_position_formulas_equal_general_code(seed, K):
    mu = dueling_mu(seed, K)
    inst = CPEInstance.from_matrix(mu)
    w = mu.mean(axis=1)
    srt = np.sort(w)
    assume(K == 1 or srt[-1] - srt[-2] > 1e-9)
    assert cpe.edge_rewards(inst) == pytest.approx(w, abs=1e-13)
    hb = cpe.cpe_borda_hardness(mu)
    assert hb.value == pytest.approx(cpe.borda_hardness(inst), rel=1e-9)
    assert hb.extra["winner"] == cpe.borda_winner(inst)[0]
    assert cpe.cpe_borda_gaps(mu) == pytest.approx(cpe.borda_gaps(inst), rel=1e-9)
    if K >= 2:
        assert cpe.width(inst) == 2
    hc, hv = cpe.cpe_condorcet_hardness(mu), cpe.cpe_condorcet_ver(mu)
    cw = cpe.condorcet_winner(inst)
    if cw is None:
        assert hc.value is None and hv.value is None and "Condorcet" in hc.reason
        with pytest.raises(NoWinnerError):
            cpe.condorcet_hardness(inst)
    else:
        assert hc.extra["winner"] == hv.extra["winner"] == cw[0]
        assert hc.value == pytest.approx(cpe.condorcet_hardness(inst), rel=1e-9)
        assert hv.value == pytest.approx(cpe.condorcet_ver_hardness(inst), rel=1e-9)
        assert cpe.cpe_condorcet_gaps(mu) == pytest.approx(cpe.condorcet_gaps(inst), rel=1e-9)


def test_single_position_accepts_preference_matrix_and_reports_undefined():
    from boundcalc import PreferenceMatrix

    mu = [[0.5, 0.7, 0.8], [0.3, 0.5, 0.6], [0.2, 0.4, 0.5]]
    assert cpe.cpe_borda_hardness(PreferenceMatrix(mu)).value == pytest.approx(50 + 1 / 0.09)
    assert CPEInstance.from_matrix(PreferenceMatrix(mu)).n_edges == 3
    # a 3-cycle has no Condorcet winner; a symmetric Borda tie has no unique Borda winner
    cyc = [[0.5, 0.6, 0.4], [0.4, 0.5, 0.6], [0.6, 0.4, 0.5]]
    v = cpe.cpe_condorcet_ver(cyc)
    assert v.value is None and "no Condorcet winner" in v.reason and v.status == "not-applicable"
    assert not v.success and v.extra["winner"] is None
    b = cpe.cpe_borda_hardness(cyc)
    assert b.value is None and "Borda" in b.reason and b.status == "not-applicable"
    with pytest.raises(NoWinnerError, match="no unique Borda winner"):
        cpe.borda_hardness(CPEInstance.from_matrix(cyc))
    assert cpe.condorcet_winner(CPEInstance.from_matrix(cyc)) is None
    ok = cpe.cpe_condorcet_ver(mu)
    assert isinstance(ok, Result) and ok.success and ok.value == pytest.approx(25 + 1 / 0.09)
    assert ok.key == "cpe_condorcet_ver" and ok.unit == UNIT_HARDNESS and ok.value_in_000_unit is None
    with pytest.raises(CPEInstanceError, match="not 1"):
        cpe.cpe_borda_hardness([[0.5, 0.7], [0.4, 0.5]])


# --------------------------------------------------------------------------------- Monte Carlo
def test_monte_carlo_rewards_within_standard_errors():
    inst = random_instance(12345, n_pos=4, n_cand=6, p_edge=0.6)
    exact = cpe.edge_rewards(inst)
    est = cpe.estimate_edge_rewards(inst, 40_000, rng=7)
    assert np.all(est.stderr > 0)
    z = np.abs(est.values - exact) / est.stderr
    assert z.max() < 4.5, z
    assert est.log_count == pytest.approx(math.log(cpe.count_maximum_matchings(inst)), abs=0.05)
    # estimated rewards can drive the Borda functions
    assert cpe.borda_winner(inst, w=est) == cpe.borda_winner(inst)
    # the cycle graph (no swap moves between its two matchings) is sampled correctly too
    H = nx.Graph()
    H.add_nodes_from("abc", bipartite=0)
    H.add_nodes_from(["s1", "s2", "s3"], bipartite=1)
    H.add_edges_from([("a", "s1"), ("b", "s1"), ("b", "s2"), ("c", "s2"), ("c", "s3"), ("a", "s3")])
    m = [[0.5, 0.9], [0.1, 0.5]]
    cyc = CPEInstance(H, {"s1": (["a", "b"], m), "s2": (["b", "c"], m), "s3": (["c", "a"], m)})
    est2 = cpe.estimate_edge_rewards(cyc, 5000, rng=3)
    z2 = np.abs(est2.values - cpe.edge_rewards(cyc)) / np.maximum(est2.stderr, 1e-300)
    assert z2.max() < 4.5


def test_sampled_matchings_are_maximum_matchings():
    inst = random_instance(99, n_pos=3, n_cand=5, p_edge=0.4)
    M, logw = cpe.sample_matchings(inst, 500, rng=0)
    valid = set(brute_matchings(inst))
    live = np.isfinite(logw)
    assert live.any()
    assert all(tuple(int(x) for x in row) in valid for row in M[live])
    assert (M[~live] == -1).all()


# --------------------------------------------------------------------------------- JSON
def test_json_round_trip(ex004, tmp_path):
    d = ex004.to_json()
    assert d["format"] == cpe.JSON_FORMAT
    s = json.dumps(d)
    back = CPEInstance.from_json(s)
    assert back == ex004 and back.edges == ex004.edges
    assert np.array_equal(back.edge_matrix, ex004.edge_matrix)
    assert CPEInstance.from_json(d) == ex004
    path = tmp_path / "ex.json"
    ex004.save(path)
    loaded = CPEInstance.load(path)
    assert loaded == ex004
    assert cpe.borda_score(loaded, cpe.borda_winner(loaded)) == pytest.approx(0.64)
    # int candidate labels, isolated candidates, ties allowed and the name survive
    G = nx.Graph()
    G.add_nodes_from([0, 1, 2], bipartite=0)
    G.add_node("pos", bipartite=1)
    G.add_edges_from([(0, "pos"), (1, "pos")])
    inst = CPEInstance(G, {"pos": ([1, 0], [[0.5, 0.5], [0.5, 0.5]])}, allow_ties=True, name="tie")
    back = CPEInstance.from_json(json.dumps(inst.to_json()))
    assert back == inst and back.candidates == (0, 1, 2) and back.allow_ties and back.name == "tie"
    assert back.edges == ((1, "pos"), (0, "pos"))
    with pytest.raises(FileNotFoundError):
        CPEInstance.load(tmp_path / "missing.json")


@FAST
@given(SEEDS)
def test_json_round_trip_random(seed):
    inst = random_instance(seed)
    back = CPEInstance.from_json(json.dumps(inst.to_json()))
    assert back == inst
    assert all(np.array_equal(a, b) for a, b in zip(back.position_matrices, inst.position_matrices))


# --------------------------------------------------------------------------------- validation
def _graph(edges, cands=("a", "b"), poss=("s",)):
    G = nx.Graph()
    G.add_nodes_from(cands, bipartite=0)
    G.add_nodes_from(poss, bipartite=1)
    G.add_edges_from(edges)
    return G


GOOD = [[0.5, 0.6], [0.4, 0.5]]


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: CPEInstance({"s": GOOD}, {}), "networkx.Graph"),
        (lambda: CPEInstance(nx.DiGraph(_graph([("a", "s")])), {"s": [[0.5]]}), "undirected"),
        (lambda: CPEInstance(nx.MultiGraph(_graph([("a", "s")])), {"s": [[0.5]]}), "undirected"),
        (lambda: CPEInstance(nx.Graph([("a", "s")]), {"s": [[0.5]]}), "bipartite=None"),
        (lambda: CPEInstance(_graph([("a", "b")], poss=()), {}), "no position"),
        (lambda: CPEInstance(_graph([("a", "s"), ("a", "b")]), {"s": [[0.5]]}), "joins two candidates"),
        (lambda: CPEInstance(_graph([("a", "s"), ("b", "s")]), [GOOD]), "mapping"),
        (lambda: CPEInstance(_graph([("a", "s"), ("b", "s")]), {}), "no preference matrix for position"),
        (lambda: CPEInstance(_graph([("a", "s"), ("b", "s")]), {"s": GOOD, "a": GOOD}), "not position nodes"),
        (
            lambda: CPEInstance(_graph([("a", "s"), ("b", "s")]), {"s": (["a", "c"], GOOD)}),
            "exactly the position's neighbours",
        ),
        (lambda: CPEInstance(_graph([("a", "s"), ("b", "s")]), {"s": (["a", "a"], GOOD)}), "repeats"),
        (lambda: CPEInstance(_graph([("a", "s"), ("b", "s")]), {"s": [[0.5]]}), "does not match the 2 edge"),
        (lambda: CPEInstance(_graph([("a", "s"), ("b", "s")]), {"s": [[0.5, 0.6, 0.1]]}), "square"),
        (lambda: CPEInstance(_graph([("a", "s"), ("b", "s")]), {"s": [["x", 0.6], [0.4, 0.5]]}), "numeric"),
        (lambda: CPEInstance(_graph([("a", "s"), ("b", "s")]), {"s": [[0.5, np.nan], [0.4, 0.5]]}), "NaN"),
        (lambda: CPEInstance(_graph([("a", "s"), ("b", "s")]), {"s": [[0.5, 1.2], [-0.2, 0.5]]}), "outside"),
        (
            lambda: CPEInstance(_graph([("a", "s"), ("b", "s")]), {"s": [[0.4, 0.6], [0.4, 0.5]]}),
            r"diagonal entry \('a', 'a'\)",
        ),
        (
            lambda: CPEInstance(_graph([("a", "s"), ("b", "s")]), {"s": [[0.5, 0.6], [0.3, 0.5]]}),
            r"p\['a','b'\] \+ p\['b','a'\]",
        ),
        (
            lambda: CPEInstance(_graph([("a", "s"), ("b", "s")]), {"s": [[0.5, 0.5], [0.5, 0.5]]}),
            r"exact tie p\('a', 'b'\)",
        ),
        (
            lambda: CPEInstance(_graph([("a", "s1"), ("a", "s2")], poss=("s1", "s2")), {"s1": [[0.5]], "s2": [[0.5]]}),
            "no matching fills every position",
        ),
        (
            lambda: CPEInstance(_graph([("a", "s1")], poss=("s1", "s2")), {"s1": [[0.5]], "s2": []}),
            "'s2' has no incident edge",
        ),
        (lambda: CPEInstance.from_matrix([[0.5, 0.6]]), "square"),
        (lambda: CPEInstance.from_matrix(GOOD, candidates=["x"]), "candidate labels"),
        (lambda: CPEInstance.from_matrix(GOOD, candidates=["s", "t"]), "also a candidate"),
        (lambda: CPEInstance.from_edge_matrix([("a", "s"), ("a", "s")], GOOD), "listed twice"),
        (lambda: CPEInstance.from_edge_matrix([("a", "s", 1)], [[0.5]]), "not a \\(candidate, position\\) pair"),
        (lambda: CPEInstance.from_edge_matrix([("a", "s")], GOOD), r"shape \(2, 2\); expected \(1, 1\)"),
        (lambda: CPEInstance.from_edge_matrix([("a", "s"), ("s", "t")], GOOD), "both as candidate and as position"),
        (
            lambda: CPEInstance.from_edge_matrix([("a", "s"), ("b", "t")], [[0.5, 0.2], [0, 0.5]]),
            r"P\[0, 1\] = 0.2 but edges",
        ),
        (
            lambda: CPEInstance.from_edge_matrix(EDGES_004, np.array(P_004) - 0.1 * np.eye(5)),
            r"diagonal entry \('c1', 'c1'\)",
        ),
        (lambda: CPEInstance.from_json("{not json"), "not valid JSON"),
        (lambda: CPEInstance.from_json({"format": "other"}), "unknown format"),
        (lambda: CPEInstance.from_json({"format": cpe.JSON_FORMAT, "positions": []}), "'candidates'"),
        (
            lambda: CPEInstance.from_json(
                {
                    "format": cpe.JSON_FORMAT,
                    "candidates": ["a"],
                    "positions": [{"position": "s", "candidates": ["z"], "matrix": [[0.5]]}],
                }
            ),
            "'z', which is not in 'candidates'",
        ),
        (
            lambda: CPEInstance.from_json(
                {"format": cpe.JSON_FORMAT, "candidates": ["a"], "positions": [{"position": "s"}]}
            ),
            r"positions\[0\]",
        ),
    ],
)
def test_validation_errors(make, match):
    with pytest.raises(CPEInstanceError, match=match):
        make()


def test_ties_allowed_on_request_and_other_errors(ex004):
    inst = CPEInstance(_graph([("a", "s"), ("b", "s")]), {"s": [[0.5, 0.5], [0.5, 0.5]]}, allow_ties=True)
    assert cpe.edge_rewards(inst).tolist() == [0.5, 0.5]
    with pytest.raises(NoWinnerError):
        cpe.borda_winner(inst)
    with pytest.raises(TypeError, match="JSON"):
        G = nx.Graph()
        G.add_node(("t", 1), bipartite=0)
        G.add_node("s", bipartite=1)
        G.add_edge(("t", 1), "s")
        CPEInstance(G, {"s": [[0.5]]}).to_json()
    with pytest.raises(ValueError, match="every one of the 2 positions"):
        ex004.as_matching([0])
    with pytest.raises(ValueError, match="candidate is used twice"):
        ex004.as_matching([2, 3])
    with pytest.raises(KeyError, match="not an edge"):
        ex004.as_matching([("c9", "s1"), ("c4", "s2")])
    with pytest.raises(ValueError, match="not comparable"):
        ex004.preference(0, 4)
    assert ex004.preference(0, 2) == 1.0
    with pytest.raises(NoWinnerError, match="not a Condorcet winner"):
        cpe.condorcet_gaps(ex004, winner=[0, 4])
    with pytest.raises(ValueError, match="shape"):
        cpe.borda_gaps(ex004, w=[0.1, 0.2])
    with pytest.raises(ValueError, match="method"):
        cpe.condorcet_winner(ex004, method="magic")


def test_constructor_forms_agree():
    # bare matrix -> rows/columns in list(G[s]) order; (order, matrix) -> the given order
    G = _graph([("a", "s"), ("b", "s")])
    bare = CPEInstance(G, {"s": [[0.5, 0.7], [0.3, 0.5]]})
    rows = CPEInstance(G, {"s": ((0.5, 0.7), (0.3, 0.5))})  # a tuple of rows is a bare matrix
    swapped = CPEInstance(G, {"s": (["b", "a"], [[0.5, 0.3], [0.7, 0.5]])})
    assert bare.edges == rows.edges == (("a", "s"), ("b", "s"))
    assert swapped.edges == (("b", "s"), ("a", "s"))
    assert cpe.edge_rewards(bare).tolist() == pytest.approx([0.6, 0.4])
    assert cpe.edge_rewards(swapped).tolist() == pytest.approx([0.4, 0.6])
    assert bare.preference(0, 1) == 0.7 and swapped.preference(1, 0) == 0.7
    # an edge list interleaving positions: edge indices are regrouped by position
    inst = CPEInstance.from_edge_matrix(
        [("a", "s"), ("a", "t"), ("b", "s")], [[0.5, 0, 0.8], [0, 0.5, 0], [0.2, 0, 0.5]]
    )
    assert inst.edges == (("a", "s"), ("b", "s"), ("a", "t"))
    assert inst.preference(inst.edge_index(("a", "s")), inst.edge_index(("b", "s"))) == 0.8
    # the only maximum matching is {b-s, a-t}; it is (vacuously) the Condorcet winner
    assert list(cpe.iter_maximum_matchings(inst)) == [(1, 2)]
    assert cpe.condorcet_winner(inst) == inst.as_matching([("a", "t"), ("b", "s")]) == (1, 2)


def test_size_limits_refuse_with_advice():
    # 21 positions exceed the subset DP's default limit
    n = 21
    inst = CPEInstance.from_edge_matrix([(f"c{i}", f"s{i}") for i in range(n)], np.eye(n) * 0.5)
    with pytest.raises(CPETooLargeError, match="estimate_edge_rewards"):
        cpe.edge_rewards(inst)
    small = random_instance(5, n_pos=3, n_cand=5)
    with pytest.raises(CPETooLargeError, match="max_dp_entries"):
        cpe.matching_counts(small, max_dp_entries=8)
    with pytest.raises(CPETooLargeError, match="max_states"):
        cpe.width(random_instance(3, n_pos=6, n_cand=8, p_edge=0.9), max_states=3)
    with pytest.raises(CPETooLargeError, match="limit"):
        cpe.maximum_matchings(CPEInstance.from_matrix(dueling_mu(0, 5)), limit=3)
    # the Monte-Carlo route works past the limit: one candidate per position -> w = 1/2 exactly
    est = cpe.estimate_edge_rewards(inst, 50, rng=0)
    assert np.allclose(est.values, 0.5) and np.allclose(est.stderr, 0)


# --------------------------------------------------------------------------------- solver failures
def _failing_linprog(*args, **kwargs):
    """What scipy's linprog returns when HiGHS gives up (status 4: numerical difficulties)."""
    from scipy.optimize import OptimizeResult

    return OptimizeResult(status=4, success=False, message="Numerical difficulties encountered (forced)", x=None)


@pytest.mark.parametrize("method", ["lp", "auto"])
def test_condorcet_lp_failure_is_reported_not_read_as_no_winner(monkeypatch, ex004, method):
    """A HiGHS failure in 004's Condorcet max-min LP raises SolverError: it
    never becomes "no Condorcet winner", and nothing wrong is cached on the instance."""
    import boundcalc.cpe.condorcet as cond

    cyc = CPEInstance.from_matrix([[0.5, 0.6, 0.4], [0.4, 0.5, 0.6], [0.6, 0.4, 0.5]])  # no winner
    monkeypatch.setattr(cond, "linprog", _failing_linprog)
    for inst in (ex004, cyc):
        with pytest.raises(SolverError, match="Condorcet max-min LP.*status 4.*forced"):
            cpe.condorcet_winner(inst, method=method)
    with pytest.raises(SolverError):
        cpe.condorcet_gaps(ex004)  # everything that needs the winner fails loudly too
    with pytest.raises(SolverError):
        cpe.cpe_report(ex004)
    # enumeration does not use the LP
    assert ex004.matching_edges(cpe.condorcet_winner(ex004, method="enumerate")) == (("c2", "s1"), ("c4", "s2"))
    monkeypatch.undo()
    # with the solver back the LP answers, and the failed calls cached nothing
    assert ex004.matching_edges(cpe.condorcet_winner(ex004, method=method)) == (("c2", "s1"), ("c4", "s2"))
    assert cpe.condorcet_winner(cyc, method=method) is None


def test_condorcet_lp_failure_in_the_command(monkeypatch, capsys):
    import boundcalc.cpe.condorcet as cond
    from boundcalc.cli import main

    monkeypatch.setattr(cond, "linprog", _failing_linprog)
    assert main(["cpe", "--example", "chen2020-fig1"]) == 1
    err = capsys.readouterr().err
    assert "solver failure" in err and "Condorcet max-min LP" in err
