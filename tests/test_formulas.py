"""Tests of the published closed-form constants (boundcalc.bounds: ccb_bound, scb, dts, rmed,
closed_forms, savage) and of boundcalc.units.

Hand-worked values are written out as arithmetic in the test (with a KL divergence written
here from its definition, not boundcalc's), so a formula is never checked against itself.
Properties that the papers imply (CCB's two gaps agree on Condorcet matrices, Theorem 1 <=
Proposition 1 for D-TS, rmed_lb <= rmed1, eq. (11) <= eq. (12) where it holds, invariance under
relabelling arms) run over random matrices with hypothesis.
"""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from builders import st_mu, st_mu_and_perm
from hypothesis import HealthCheck, assume, given, settings
from scipy.optimize import linprog

from boundcalc import PreferenceMatrix
from boundcalc.bounds.ccb_bound import ccb, ccb_delta_z, delta_z
from boundcalc.bounds.closed_forms import ecw_eq11, ecw_eq12
from boundcalc.bounds.dts import dts_assumption2, dts_prop1, dts_sigma, dts_thm1, dts_thm1_loglog
from boundcalc.bounds.rmed import rmed1, rmed_lb, rmed_regret_matrix
from boundcalc.bounds.savage import savage_hardness
from boundcalc.bounds.scb import scb_hardness
from boundcalc.result import Result
from boundcalc.units import (
    UNIT_000,
    UNIT_002,
    UNIT_HARDNESS,
    UNIT_RMED,
    to_000_unit,
)

ALPHA = 0.51
FOUR_ALPHA = 4 * ALPHA  # 2.04


def kl(p, q=0.5):
    """Bernoulli KL divergence D(p||q), written out here independently of boundcalc."""
    return p * math.log(p / q) + (1 - p) * math.log((1 - p) / (1 - q))


# ---------------------------------------------------------------- hand-worked matrices
# A: 3 arms, transitive, Condorcet winner 0.  L = [0, 1, 2], C = 1, L_C = 0.
#    gaps: D01 = .1, D02 = .2, D12 = .3
A = [[0.5, 0.6, 0.7], [0.4, 0.5, 0.8], [0.3, 0.2, 0.5]]
# B: 3-cycle 0 > 1 > 2 > 0.  L = [1, 1, 1], C = 3, L_C = 1; gaps D01 = .1, D02 = .2, D12 = .3
B = [[0.5, 0.6, 0.3], [0.4, 0.5, 0.8], [0.7, 0.2, 0.5]]
# C4: 4 arms, winners {0, 1}, L = [1, 1, 2, 2], C = 2, L_C = 1.
#    0 beats 1, 3 (loses to 2); 1 beats 2, 3 (loses to 0); 3 beats 2.
#    gaps: D01 = .1, D02 = .2, D03 = .2, D12 = .3, D13 = .4, D23 = .05 (the smallest, between
#    the two non-winners: it is arm 2's *first* superior gap, not its (L_C+1) = 2nd).
C4 = [[0.5, 0.6, 0.3, 0.7], [0.4, 0.5, 0.8, 0.9], [0.7, 0.2, 0.5, 0.45], [0.3, 0.1, 0.55, 0.5]]
# F: like A but arm 2 loses to arms 0 and 1 with the same probability 0.7 (Assumption 2 fails).
F = [[0.5, 0.6, 0.7], [0.4, 0.5, 0.7], [0.3, 0.3, 0.5]]
# G: Condorcet winner 0 beats everyone by a wide margin (0.9); the others are close (0.6).
G = [[0.5, 0.9, 0.9], [0.1, 0.5, 0.6], [0.1, 0.4, 0.5]]


def close(a, b, rel=1e-9):
    return a == pytest.approx(b, rel=rel, abs=1e-12)


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

ALL_CONSTANTS = [
    ccb,
    ccb_delta_z,
    scb_hardness,
    dts_prop1,
    dts_thm1,
    dts_thm1_loglog,
    rmed_lb,
    rmed1,
    ecw_eq11,
    ecw_eq12,
    savage_hardness,
]


# ================================================================ the result type
# (the Result type itself and every registered constant's contract: tests/test_contract_constants.py)
def test_every_formula_returns_a_json_ready_result():
    for mu in (A, B, C4, F):
        for f in ALL_CONSTANTS:
            c = f(mu)
            assert isinstance(c, Result)
            d = c.to_dict()
            json.dumps(d, allow_nan=False)  # must not raise
            assert d["key"] == c.key and d["unit"] == c.unit and d["value"] == c.value
            assert set(d) == {
                "key",
                "value",
                "unit",
                "value_in_000_unit",
                "source",
                "reason",
                "status",
                "message",
                "extra",
            }
            assert (c.value is None) == (c.reason is not None) == (c.status == "not-applicable")
            assert c.source  # every row names its paper


def test_to_000_unit():
    assert to_000_unit(8.0, UNIT_002) == 4.0
    assert to_000_unit(8.0, UNIT_000) == 8.0
    assert to_000_unit(8.0, UNIT_RMED) is None
    assert to_000_unit(8.0, UNIT_HARDNESS) is None
    assert to_000_unit(None, UNIT_002) is None


def test_accepts_preference_matrix_and_arrays():
    pm = PreferenceMatrix(A)
    for f in ALL_CONSTANTS:
        a, b = f(A), f(pm)
        assert a.value == b.value


# ================================================================ CCB (002, Theorem 3)
def test_ccb_hand_A():
    # K = 3, C = 1, L_C = 0, Delta_min = 0.1: 2*3*(1+0+1)/0.01 = 1200; 000's unit: 600
    r = ccb(A)
    assert close(r.value, 1200.0) and close(r.value_in_000_unit, 600.0)
    assert r.extra["C"] == 1 and r.extra["L_C"] == 0 and close(r.extra["delta"], 0.1)
    # Condorcet: Delta_Z = Delta_min
    assert close(ccb_delta_z(A).value, 1200.0)


def test_ccb_hand_B_cycle():
    # every arm is a Copeland winner: C = 3, L_C = 1; 2*3*(3+1+1)/0.01 = 3000; 000's: 1500
    r = ccb(B)
    assert close(r.value, 3000.0) and close(r.value_in_000_unit, 1500.0)
    # no non-winners: Delta_Z = smallest gap of a winner = 0.1
    assert close(ccb_delta_z(B).value, 3000.0)


def test_ccb_deltas_differ_on_C4():
    # Delta_min = 0.05 (pair 2-3).  Delta_Z = min(winner gaps 0.1,
    #   arm 2: 2nd smallest of {D21 = .3, D23 = .05} = .3, arm 3: 2nd of {D30 = .2, D31 = .4} = .4) = 0.1
    assert close(delta_z(C4), 0.1)
    assert close(PreferenceMatrix(C4).min_gap, 0.05)
    # K = 4, C = 2, L_C = 1: 2*4*(2+1+1) = 32
    assert close(ccb(C4).value, 32 / 0.05**2)  # 12800
    assert close(ccb_delta_z(C4).value, 32 / 0.1**2)  # 3200
    assert close(ccb(C4).value_in_000_unit, 6400.0)
    assert close(ccb_delta_z(C4).value_in_000_unit, 1600.0)
    assert ccb(C4).extra["delta_reading"] == "Delta_min"
    assert ccb_delta_z(C4).extra["delta_reading"] == "Delta_Z"


@SETTINGS
@given(st_mu(condorcet=True, max_K=8))
def test_ccb_two_deltas_agree_on_condorcet(mu):
    assert close(delta_z(mu), PreferenceMatrix(mu).min_gap, rel=0)
    assert close(ccb(mu).value, ccb_delta_z(mu).value, rel=1e-12)


@SETTINGS
@given(st_mu(max_K=8))
def test_ccb_delta_z_never_below_delta_min(mu):
    assert delta_z(mu) >= PreferenceMatrix(mu).min_gap
    assert ccb_delta_z(mu).value <= ccb(mu).value * (1 + 1e-12)


# ================================================================ SCB (002, Theorem 5)
def test_scb_hand_A():
    # cpld = [1, 1/2, 0]; Delta_i = max(1 - cpld, 1/2) = [1/2, 1/2, 1]; 1 - cpld = [0, 1/2, 1]
    # H = [1/.01 + 1/.04, 1/.01 + 1/.09, 1/.04 + 1/.09] = [125, 1000/9, 325/9]
    # (1/3) [125*0/(1/4) + (1000/9)(1/2)/(1/4) + (325/9)(1)/1] = (1/3)(2000/9 + 325/9) = 775/9
    r = scb_hardness(A)
    assert close(r.value, 775 / 9)
    assert r.value_in_000_unit is None and r.unit == UNIT_HARDNESS
    assert np.allclose(r.extra["H"], [125, 1000 / 9, 325 / 9])
    assert np.allclose(r.extra["Delta_i"], [0.5, 0.5, 1.0])


def test_scb_hand_B_cycle():
    # cpld = 1/2 each; Delta_i = max(0, 1/2) = 1/2; 1 - cpld = 1/2
    # H = [125, 1000/9, 325/9], sum 2450/9; (1/3) * (2450/9) * (1/2)/(1/4) = 4900/27
    assert close(scb_hardness(B).value, 4900 / 27)


def test_scb_hand_C4():
    # L = [1,1,2,2], cpld = [2/3,2/3,1/3,1/3], Delta_i = max(cpld_1 - cpld_i, 1/3) = 1/3 for all,
    # 1 - cpld = [1/3,1/3,2/3,2/3]  ->  term_i = H_i (1-cpld_i) * 9 = H_i * [3,3,6,6]
    # H_0 = 100+25+25 = 150; H_1 = 100 + 100/9 + 6.25; H_2 = 25 + 100/9 + 400; H_3 = 25 + 6.25 + 400
    # 3*150 + 3*(106.25 + 100/9) + 6*(425 + 100/9) + 6*431.25 = 6006.25 -> /4 = 1501.5625
    assert close(scb_hardness(C4).value, 1501.5625)


# ================================================================ D-TS (001)
def test_dts_hand_A():
    # pairs with p_ij < 1/2: (1,0) p=.4, (2,0) p=.3, (2,1) p=.2; gaps .1, .2, .3
    prop1 = FOUR_ALPHA * (1 / 0.01 + 1 / 0.04 + 1 / 0.09) + 1 / kl(0.4) + 1 / kl(0.3) + 1 / kl(0.2)
    r = dts_prop1(A, alpha=ALPHA)
    assert close(r.value, prop1)  # ~ 344.672
    assert close(r.value, 344.672, rel=1e-5)
    # Theorem 1: winner 0 (no superiors; inferiors 1, 2 with p_10 = .4, p_20 = .3)
    #   + arm 1: sigma_1 = (0, 1, 2), first L_C+1 = 1 opponent: 0 with gap .1
    #   + arm 2: sigma_2 = (1, 0, 2) (p_12 = .8 > p_02 = .7), first opponent 1 with gap .3
    thm1 = 1 / kl(0.4) + 1 / kl(0.3) + FOUR_ALPHA / 0.01 + FOUR_ALPHA / 0.09
    t = dts_thm1(A, alpha=ALPHA)
    assert t.extra["assumption2"] is True
    assert close(t.value, thm1)  # ~ 288.483
    # difference to Prop. 1: arm 2's second superior (gap .2) and arm 1's inferior (p = .2)
    assert close(r.value - t.value, FOUR_ALPHA / 0.04 + 1 / kl(0.2))
    # ln ln T (beta = 2): arm 1 against sigma_1(2) = 1 (p = .5) and sigma_1(3) = 2 (p = .2), ref .6;
    #                     arm 2 against sigma_2(2) = 0 (p = .7) and sigma_2(3) = 2 (p = .5), ref .8
    loglog = 2 * (1 / kl(0.5, 0.6) + 1 / kl(0.2, 0.6) + 1 / kl(0.7, 0.8) + 1 / kl(0.5, 0.8))
    assert close(dts_thm1_loglog(A).value, loglog)
    assert close(dts_thm1_loglog(A, beta=3.0).value, 1.5 * loglog)
    assert dts_sigma(A, 2).tolist() == [1, 0, 2]


def test_dts_hand_B_all_winners():
    # Every arm is a Copeland winner: eq. (6) keeps every term of eq. (2); no ln ln T term.
    prop1 = FOUR_ALPHA * (1 / 0.01 + 1 / 0.04 + 1 / 0.09) + 1 / kl(0.4) + 1 / kl(0.3) + 1 / kl(0.2)
    assert close(dts_prop1(B).value, prop1)
    assert close(dts_thm1(B).value, prop1)
    assert dts_thm1_loglog(B).value == 0.0
    assert dts_assumption2(B)["holds"]


def test_dts_hand_C4():
    # winners 0, 1; L_C = 1; non-winners 2, 3 keep their first L_C + 1 = 2 opponents.
    # winner 0: superior 2 (gap .2) -> 2.04/.04; inferiors 1 (p_10 = .4), 3 (p_30 = .3)
    # winner 1: superior 0 (gap .1) -> 2.04/.01; inferiors 2 (p_21 = .2), 3 (p_31 = .1)
    # arm 2: column p_j2 = (.3, .8, .5, .55): sigma_2 = (1, 3, 2, 0): gaps .3, .05
    # arm 3: column p_j3 = (.7, .9, .45, .5): sigma_3 = (1, 0, 3, 2): gaps .4, .2
    thm1 = (
        FOUR_ALPHA * (1 / 0.04 + 1 / 0.01 + 1 / 0.09 + 1 / 0.0025 + 1 / 0.16 + 1 / 0.04)
        + 1 / kl(0.4)
        + 1 / kl(0.3)
        + 1 / kl(0.2)
        + 1 / kl(0.1)
    )
    assert close(dts_thm1(C4).value, thm1)
    # Prop. 1 adds arm 2's inferior 0 (p_02 = .3) and arm 3's inferior 2 (p_23 = .45)
    assert close(dts_prop1(C4).value, thm1 + 1 / kl(0.3) + 1 / kl(0.45))
    # ln ln T: arm 2 vs sigma_2(3) = 2 (.5), sigma_2(4) = 0 (.3), ref p = .55;
    #          arm 3 vs sigma_3(3) = 3 (.5), sigma_3(4) = 2 (.45), ref p = .7
    loglog = 2 * (1 / kl(0.5, 0.55) + 1 / kl(0.3, 0.55) + 1 / kl(0.5, 0.7) + 1 / kl(0.45, 0.7))
    assert close(dts_thm1_loglog(C4).value, loglog)


def test_dts_two_arms():
    # one pair, p_10 = .4: 4*0.51/0.1^2 + 1/D(.4||.5); arm 1 keeps its one opponent in Thm. 1
    assert close(dts_prop1([[0.5, 0.6], [0.4, 0.5]]).value, 204 + 1 / kl(0.4))
    assert close(dts_thm1([[0.5, 0.6], [0.4, 0.5]]).value, 1 / kl(0.4) + 204)


def test_dts_assumption2_detection():
    # passes: A (arm 1's column .6 > .5 > .2; arm 2's .8 > .7 > .5), C4 (arms 2, 3 have L = L_C + 1)
    a2 = dts_assumption2(A)
    assert a2["holds"] is True and a2["failing_arms"] == []
    assert dts_assumption2(C4)["holds"]
    # fails: in F arm 2 loses to 0 and 1 with the same p = 0.7 at places L_C+1 = 1 and 2
    a2 = dts_assumption2(F)
    assert a2["holds"] is False and a2["failing_arms"] == [2]
    t = dts_thm1(F)
    assert t.value is None and t.value_in_000_unit is None
    assert "Assumption 2" in t.reason and "arm 2" in t.reason
    assert t.extra["assumption2"] is False
    assert dts_thm1_loglog(F).value is None
    # Proposition 1 still applies: 2.04 (1/.01 + 1/.04 + 1/.04) + 1/D(.4) + 2/D(.3)
    assert close(dts_prop1(F).value, FOUR_ALPHA * 150 + 1 / kl(0.4) + 2 / kl(0.3))
    # the assumption is strict, but only a real tie fails it
    F_near = [[0.5, 0.6, 0.7 + 1e-7], [0.4, 0.5, 0.7], [0.3 - 1e-7, 0.3, 0.5]]
    assert dts_assumption2(F_near)["holds"]
    assert dts_thm1_loglog(F_near).value > 1e9  # 1/D(.7 || .7 + 1e-7) is huge


def test_dts_parameter_checks():
    with pytest.raises(ValueError, match="alpha"):
        dts_prop1(A, alpha=0.5)
    with pytest.raises(ValueError, match="alpha"):
        dts_thm1(A, alpha=0.3)
    with pytest.raises(ValueError, match="beta"):
        dts_thm1_loglog(A, beta=1.5)


@SETTINGS
@given(st_mu(max_K=8))
def test_dts_thm1_never_above_prop1(mu):
    p, t = dts_prop1(mu), dts_thm1(mu)
    assume(t.value is not None)
    assert t.value <= p.value * (1 + 1e-12)
    assert dts_thm1_loglog(mu).value >= 0.0


# ================================================================ RMED (Condorcet)
def test_rmed_hand_A():
    # winner 0; Delta_01 = .1, Delta_02 = .2
    R = rmed_regret_matrix(A)
    assert np.allclose(R, [[0, 0.05, 0.1], [0.05, 0, 0.15], [0.1, 0.15, 0]])
    # arm 1: only superior is 0: (.1 + 0)/(2 D(.4))
    # arm 2: superiors 0: .2/(2 D(.3)) ~ 1.2153, and 1: (.2 + .1)/(2 D(.2)) ~ 0.7782 -> j* = 1
    lb = 0.1 / (2 * kl(0.4)) + 0.3 / (2 * kl(0.2))
    r = rmed_lb(A)
    assert close(r.value, lb) and close(r.value, 3.2614, rel=1e-4)
    assert r.extra["j_star"] == [None, 0, 1] and r.extra["condorcet_winner"] == 0
    assert r.value_in_000_unit is None and r.unit == UNIT_RMED
    # RMED1: the j = winner term for each arm
    assert close(rmed1(A).value, 0.1 / (2 * kl(0.4)) + 0.2 / (2 * kl(0.3)))


def test_rmed_dominant_winner_equals_rmed1():
    # G: comparing with the winner costs .4/(2 D(.1)) ~ 0.543 per arm, while arm 2 against arm 1
    # costs (.4 + .4)/(2 D(.4)) ~ 19.9: the winner is every arm's j*, so rmed_lb = rmed1.
    expected = 2 * 0.4 / (2 * kl(0.1))
    assert close(rmed_lb(G).value, expected)
    assert close(rmed1(G).value, expected)
    assert rmed_lb(G).extra["j_star"] == [None, 0, 0]


def test_rmed_two_arms():
    # K = 2: the only j is the winner: lb = rmed1 = .2/(2 D(.3))
    m = [[0.5, 0.3], [0.7, 0.5]]  # winner is arm 1
    assert close(rmed_lb(m).value, 0.2 / (2 * kl(0.3)))
    assert close(rmed1(m).value, 0.2 / (2 * kl(0.3)))
    assert rmed_lb(m).extra["condorcet_winner"] == 1


def test_rmed_without_condorcet_winner():
    for f in (rmed_lb, rmed1):
        r = f(B)
        assert r.value is None and r.value_in_000_unit is None
        assert "Condorcet" in r.reason
    with pytest.raises(ValueError, match="Condorcet"):
        rmed_regret_matrix(C4)


@SETTINGS
@given(st_mu(condorcet=True, max_K=8))
def test_rmed_lb_never_above_rmed1(mu):
    assert rmed_lb(mu).value <= rmed1(mu).value * (1 + 1e-12)


@SETTINGS
@given(st_mu(condorcet=True, max_K=8))
def test_rmed_regret_matrix_shape(mu):
    pm = PreferenceMatrix(mu)
    R = rmed_regret_matrix(pm)
    K = pm.K
    assert R.shape == (K, K)
    assert np.array_equal(R, R.T) and np.all(np.diag(R) == 0) and np.all(R >= 0)
    w = pm.condorcet_winner
    for j in range(K):
        if j != w:
            assert close(R[w, j], (mu[w][j] - 0.5) / 2)


def _copeland_l0_lp(mu, R):
    """000's Copeland LP (eq. (2)) restricted to the l = 0 rows, by scipy linprog.

    Rows built straight from the definition: i1 the winner, every i2 != i1, I subset of I_{i1}
    with |I| = l + 1 - L(1), S subset of S_{i2} minus {i1} with |S| = max(0, L_{i2} - l - [i2 in I]).
    Variables e_p in [0, 1], cost r_p / d(mu_p).
    """
    mu = np.asarray(mu, dtype=float)
    K = mu.shape[0]
    beats = mu > 0.5
    L = beats.sum(axis=0)
    i1 = int(np.argmin(L))
    L1 = int(L[i1])
    assert L1 == 0
    pairs = list(itertools.combinations(range(K), 2))
    pid = {p: k for k, p in enumerate(pairs)}
    key = lambda a, b: pid[(min(a, b), max(a, b))]
    cost = np.array([R[a, b] / kl(mu[a, b]) for a, b in pairs])
    I_pool = [j for j in range(K) if beats[i1, j]]
    rows = []
    l = 0
    for i2 in range(K):
        if i2 == i1:
            continue
        S_pool = [j for j in range(K) if beats[j, i2] and j != i1]
        for I in itertools.combinations(I_pool, l + 1 - L1):
            size = max(0, int(L[i2]) - l - (i2 in I))
            if size > len(S_pool):
                continue
            for S in itertools.combinations(S_pool, size):
                row = np.zeros(len(pairs))
                for j in I:
                    row[key(i1, j)] = 1
                for j in S:
                    row[key(i2, j)] = 1
                rows.append(row)
    res = linprog(cost, A_ub=-np.array(rows), b_ub=-np.ones(len(rows)), bounds=(0, 1), method="highs")
    assert res.status == 0
    return res.fun


@settings(max_examples=40, deadline=None)
@given(st_mu(condorcet=True, min_K=2, max_K=6))
def test_rmed_lb_is_the_l0_copeland_lp_with_rmed_regret(mu):
    # with RMED's regret the Copeland LP restricted to l = 0 equals rmed_lb.
    lp = _copeland_l0_lp(mu, rmed_regret_matrix(mu))
    assert close(lp, rmed_lb(mu).value, rel=1e-7)


# ================================================================ 000 Sec. 4.4, eqs. (11)-(12)
def test_ecw_closed_forms_hand():
    # A: L = [0, 1, 2], L_1 = 0, Delta = .1:  (11) = [(1 + 1/2) + (1 + 2/3)] / D(.6) = (19/6)/D(.6)
    #                                          (12) = 3/D(.6) * (3/2 + 0) = 4.5/D(.6)
    assert close(ecw_eq11(A).value, (19 / 6) / kl(0.6))
    assert close(ecw_eq12(A).value, 4.5 / kl(0.6))
    # B: L = [1, 1, 1], L_1 = 1: (11) = 2 * (1 + 1/1) / D(.6) = 4/D(.6);  (12) = 3 (2 + 1/3)/D(.6) = 7/D(.6)
    assert close(ecw_eq11(B).value, 4 / kl(0.6))
    assert close(ecw_eq12(B).value, 7 / kl(0.6))
    # C4: L = [1, 1, 2, 2], L_1 = 1, Delta = .05: (11) = [2 + (1 + 2/2) + (1 + 2/2)] / D(.55) = 6/D(.55)
    #     (12) = 4/D(.55) (2 + 1/4) = 9/D(.55)
    assert close(ecw_eq11(C4).value, 6 / kl(0.55))
    assert close(ecw_eq12(C4).value, 9 / kl(0.55))
    for f in (ecw_eq11, ecw_eq12):
        r = f(C4)
        assert r.unit == UNIT_000 and r.value_in_000_unit == r.value and r.extra["L_1"] == 1


def test_ecw_eq12_below_eq11_for_large_condorcet():
    # Transitive 10 arms (mu[i, j] = .6 for i < j): L = 0..9, L_1 = 0.
    # (11) sum = sum_{L=1}^{9} (1 + L/(L+1)) = 18 - (H_10 - 1) ~ 16.071 > (12) = 10 * 3/2 = 15.
    K = 10
    mu = np.where(np.triu(np.ones((K, K)), 1) > 0, 0.6, 0.4)
    np.fill_diagonal(mu, 0.5)
    H10 = sum(1 / n for n in range(1, 11))
    assert close(ecw_eq11(mu).value, (18 - (H10 - 1)) / kl(0.6))
    assert close(ecw_eq12(mu).value, 15 / kl(0.6))
    assert ecw_eq11(mu).value > ecw_eq12(mu).value
    assert ecw_eq12(mu).extra["above_eq11"] is False
    # (12) still bounds C^E*: with a Condorcet winner R^E has no i2 rows, so
    # C^E* = sum_j r_0j / d(.6) = sum_{j=1}^{9} j / 18 / d(.6) = 2.5 / d(.6) <= 15 / d(.6).
    assert close(float(PreferenceMatrix(mu).regret[0].sum()), 2.5)


def _tournament(bits, K):
    mu = np.full((K, K), 0.5)
    for k, (i, j) in enumerate(itertools.combinations(range(K), 2)):
        x = 0.6 if (bits >> k) & 1 else 0.4
        mu[i, j], mu[j, i] = x, 1 - x
    return mu


@pytest.mark.parametrize("K", [2, 3, 4, 5])
def test_ecw_eq11_below_eq12_every_tournament_small_K(K):
    n = K * (K - 1) // 2
    for bits in range(2**n):
        mu = _tournament(bits, K)
        e11, e12 = ecw_eq11(mu), ecw_eq12(mu)
        assert e11.value <= e12.value * (1 + 1e-12)
        assert e12.extra["above_eq11"]


@SETTINGS
@given(st_mu(min_K=2, max_K=6))
def test_ecw_eq11_below_eq12_up_to_6_arms(mu):
    assert ecw_eq11(mu).value <= ecw_eq12(mu).value * (1 + 1e-12)


@SETTINGS
@given(st_mu(min_K=7, max_K=14, condorcet=False))
def test_ecw_eq11_below_eq12_when_winner_loses(mu):
    assume(PreferenceMatrix(mu).L_sorted[0] >= 1)
    assert ecw_eq11(mu).value <= ecw_eq12(mu).value * (1 + 1e-12)


# ================================================================ SAVAGE (003)
def test_savage_hand():
    # A and B share the gaps .1, .2, .3: 100 + 25 + 100/9 = 1225/9
    assert close(savage_hardness(A).value, 1225 / 9)
    assert close(savage_hardness(B).value, 1225 / 9)
    # C4: 100 + 25 + 25 + 100/9 + 6.25 + 400
    r = savage_hardness(C4)
    assert close(r.value, 556.25 + 100 / 9)
    assert r.extra["label"] == "sum_{i<j} 1/Delta_ij^2" and r.value_in_000_unit is None


# ================================================================ units, across rows
@SETTINGS
@given(st_mu(max_K=7))
def test_unit_conversions_consistent(mu):
    for f in (ccb, ccb_delta_z):
        r = f(mu)
        assert r.unit == UNIT_002
        assert close(r.value, 2 * r.value_in_000_unit, rel=1e-15)
        K, C, L_C, d = r.extra["K"], r.extra["C"], r.extra["L_C"], r.extra["delta"]
        assert close(r.value_in_000_unit, K * (C + L_C + 1) / d**2)
    for f in (dts_prop1, dts_thm1, dts_thm1_loglog, ecw_eq11, ecw_eq12):
        r = f(mu)
        assert r.value_in_000_unit == r.value  # same number (None when not applicable)
    for f in (scb_hardness, savage_hardness, rmed_lb, rmed1):
        assert f(mu).value_in_000_unit is None


# ================================================================ relabelling arms
@SETTINGS
@given(st_mu_and_perm(max_K=6))
def test_invariant_under_arm_permutation(mp):
    mu, perm = mp
    pm = PreferenceMatrix(mu)
    qm = pm.permute(perm)
    for f in ALL_CONSTANTS:
        a, b = f(pm), f(qm)
        if a.value is None:
            assert b.value is None, f.__name__
        else:
            assert b.value is not None, f.__name__
            assert close(a.value, b.value, rel=1e-9), f.__name__
    assert dts_assumption2(pm)["holds"] == dts_assumption2(qm)["holds"]
    if pm.condorcet_winner is not None:
        # the regret matrix relabels with the arms
        P = np.asarray(perm)
        assert np.allclose(rmed_regret_matrix(qm), rmed_regret_matrix(pm)[np.ix_(P, P)])


def test_invariant_under_permutation_hand_matrices():
    for mu in (A, B, C4, F, G):
        pm = PreferenceMatrix(mu)
        for perm in itertools.permutations(range(pm.K)):
            qm = pm.permute(perm)
            for f in ALL_CONSTANTS:
                a, b = f(pm).value, f(qm).value
                assert (a is None) == (b is None)
                if a is not None:
                    assert close(a, b, rel=1e-9)
