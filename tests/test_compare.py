"""Tests of :func:`boundcalc.compare` (every published constant on one matrix) and of the
``boundcalc compare`` command.

What is checked, and against what (never against the functions compare itself calls):

* the rows, their keys and their order are those of the issue (written out here, not read from
  the module or the registry); rows that do not apply carry a reason and no value;
* every row of paper 000's Table 2 matrix and of a 3-arm matrix, worked out by hand in this
  file (KL divergence written out here, 000's own closed form of the Table 2 LP);
* the LP rows: the cutting plane against the written-out LP (enumeration through cvxpy), ECW's
  closed form against its written-out LP, the objective recomputed from the returned allocation;
* orderings and identities the papers imply, on random matrices (hypothesis): lower bound <= ECW
  <= 000's eqs. (11) and (12); ECW = lower bound with >= 2 Copeland winners (000 Theorem 6);
  CCB's two gaps agree on Condorcet matrices; RMED's Condorcet lower bound equals 000's Copeland
  LP with RMED's regret restricted to its l = 0 rows, and the full LP is never smaller;
* unit bookkeeping: ``value_in_000_unit`` is ``value`` (000's unit, D-TS's comparison counts),
  ``value / 2`` (002's unit), or None (RMED's unit, hardnesses, rows that do not apply);
* the CPE rows equal 004's general matching code on ``CPEInstance.from_matrix(mu)``;
* a solver failure is a failed row (status, message, no value), never a number; the front
  door raises it; the command exits 1;
* no module of the package is shadowed by a function of the same name;
* the command's JSON and CSV parse and match the library; bad options exit with status 2.

Invariance under relabelling the arms, JSON round trips and status consistency are checked
for every registered constant in tests/test_contract_constants.py.
"""

from __future__ import annotations

import csv
import importlib
import io
import json
import math
import pkgutil
import types

import numpy as np
import pytest
from builders import st_shuffled_pm
from hypothesis import HealthCheck, given, settings
from identification_brute import brute_identification

import boundcalc
import boundcalc.bounds
import boundcalc.identification
from boundcalc import BoundResult, PreferenceMatrix, Result, SolverError, compare, lower_bound
from boundcalc.bounds import rmed_lb, rmed_regret_matrix
from boundcalc.cli import main
from boundcalc.comparison import COMPARE_KEYS, CSV_FIELDS, Comparison, check_options
from boundcalc.datasets import load_example
from boundcalc.lp.full import ecw_enumerate
from boundcalc.units import (
    UNIT_000,
    UNIT_001,
    UNIT_001_LOGLOG,
    UNIT_002,
    UNIT_HARDNESS,
    UNIT_IDENTIFY,
    UNIT_RMED,
)

# The rows the issue asks for, in its order (independent of the module's COMPARE_KEYS).
ISSUE_KEYS = [
    "lower_bound",
    "ecw",
    "ccb",
    "ccb_delta_z",
    "scb_hardness",
    "dts_prop1",
    "dts_thm1",
    "dts_thm1_loglog",
    "rmed_lb",
    "rmed1",
    "ecw_eq11",
    "ecw_eq12",
    "savage_hardness",
    "cpe_borda_hardness",
    "cpe_condorcet_hardness",
    "cpe_condorcet_ver",
    "if2_hardness",
    "ws_s_hardness",  # the baselines' order-only bounds
    "versatile_db_hardness",
    "merge_rucb_order",
    "btm_order",
    "doubler_order",
    "id_copeland",  # the identification constant T* (Copeland model)
    "id_condorcet",  # and the Condorcet model's
]
CORE_FIELDS = ("key", "value", "unit", "value_in_000_unit", "source", "reason", "status", "message")

# 3-cycle with equal Borda scores: no Condorcet winner, no unique Borda winner.
CYCLE = [[0.5, 0.6, 0.4], [0.4, 0.5, 0.6], [0.6, 0.4, 0.5]]
# Condorcet winner 0; arm 2 loses to arms 0 and 1 with the same 0.7: 001's Assumption 2 fails.
A2_FAILS = [[0.5, 0.6, 0.7], [0.4, 0.5, 0.7], [0.3, 0.3, 0.5]]
# 3 arms, transitive, Condorcet winner 0: L = [0, 1, 2]; gaps D01 = .1, D02 = .2, D12 = .3.
A = [[0.5, 0.6, 0.7], [0.4, 0.5, 0.8], [0.3, 0.2, 0.5]]

HSET = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ALPHA = 0.51


def matrices(kmin=3, kmax=8, condorcet=None):
    """A random K x K matrix (gaps >= 0.02), arms shuffled so the winner is not always arm 0."""
    return st_shuffled_pm(kmin=kmin, kmax=kmax, condorcet=condorcet)


def kl(p, q=0.5):
    """Bernoulli KL divergence D(p||q), written out here independently of boundcalc."""
    return p * math.log(p / q) + (1 - p) * math.log((1 - p) / (1 - q))


def core(c: Result) -> dict:
    """The fields every output format carries (``extra`` and the LP rows' stats hold timings)."""
    d = c.to_dict()
    return {k: d[k] for k in CORE_FIELDS}


def close(a, b, rel=1e-7, abs_=1e-9) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= max(rel * max(abs(a), abs(b)), abs_)


# ---------------------------------------------------------------- rows, order, reasons
def test_every_key_in_order():
    cmp = compare(load_example("table2"))
    assert list(COMPARE_KEYS) == ISSUE_KEYS
    assert cmp.keys() == ISSUE_KEYS == [r.key for r in cmp.rows] == [r.key for r in cmp]
    assert len(cmp) == 24 and all(isinstance(r, Result) for r in cmp)
    assert isinstance(cmp["lower_bound"], BoundResult) and isinstance(cmp["ecw"], BoundResult)
    assert (
        set(cmp.results) == {"lower_bound", "ecw", "id_copeland", "id_condorcet"} and cmp.results["ecw"] is cmp["ecw"]
    )
    for r in cmp:
        assert r.source and r.unit
        assert cmp[r.key] is r and r.key in cmp
    # table2 has a Condorcet winner, a unique Borda winner and satisfies Assumption 2; only
    # Beat-the-Mean's row, which needs a total order (arms 1-3 form a cycle), does not apply
    ok = [r for r in cmp if r.key != "btm_order"]
    assert all(r.applies and r.status == "ok" and r.success for r in ok) and cmp.failed() == []
    assert not cmp["btm_order"].applies and "total order" in cmp["btm_order"].reason
    assert cmp.parameters == {"alpha": 0.51, "beta": 2.0, "method": "cutting-plane", "certify": False}
    assert set(cmp.seconds) == set(ISSUE_KEYS) and all(t >= 0 for t in cmp.seconds.values())


def test_sources_name_the_papers():
    cmp = compare(load_example("table2"))
    assert cmp["lower_bound"].source == "Komiyama et al. 2016 (000), Theorem 2"
    assert cmp["ecw"].source == "Komiyama et al. 2016 (000), Theorem 5"
    for key, tag in [
        ("ccb", "(002), Theorem 3"),
        ("scb_hardness", "(002), Theorem 5"),
        ("dts_prop1", "(001), Proposition 1"),
        ("dts_thm1", "(001), Theorem 1"),
        ("rmed_lb", "RMED"),
        ("ecw_eq11", "eq. (11)"),
        ("ecw_eq12", "eq. (12)"),
        ("savage_hardness", "(003)"),
        ("cpe_borda_hardness", "(004), Definition 4"),
        ("cpe_condorcet_hardness", "(004), Theorem 4"),
        ("cpe_condorcet_ver", "(004), Sec. 4.3"),
    ]:
        assert tag in cmp[key].source, key


def test_rows_that_do_not_apply_say_why():
    cmp = compare(load_example("mslr5-noncondorcet"))  # three Copeland winners, no Condorcet winner
    for key in ("rmed_lb", "rmed1", "cpe_condorcet_hardness", "cpe_condorcet_ver"):
        r = cmp[key]
        assert r.value is None and r.value_in_000_unit is None and not r.applies
        assert r.status == "not-applicable" and "Condorcet winner" in r.reason
    for key in ("lower_bound", "ecw", "ccb", "dts_prop1", "ecw_eq11", "savage_hardness", "cpe_borda_hardness"):
        assert cmp[key].applies and cmp[key].reason is None

    cyc = compare(CYCLE)
    assert cyc["cpe_borda_hardness"].value is None and "Borda winner" in cyc["cpe_borda_hardness"].reason
    assert cyc["dts_thm1"].applies  # every arm is a Copeland winner: Assumption 2 holds vacuously

    a2 = compare(A2_FAILS)
    for key in ("dts_thm1", "dts_thm1_loglog"):
        assert a2[key].value is None and "Assumption 2" in a2[key].reason
        assert a2[key].extra["assumption2"] is False and a2[key].extra["assumption2_failing_arms"] == [2]
    assert a2["dts_prop1"].applies and a2["rmed_lb"].applies


def test_subset_of_keys_and_errors():
    pm = load_example("mslr5-condorcet")
    cmp = compare(pm, keys=["ecw", "ccb"])
    assert cmp.keys() == ["ecw", "ccb"]
    assert "lower_bound" not in cmp.results and "ecw" in cmp.results  # the LP was skipped
    with pytest.raises(KeyError, match="not computed"):
        cmp["lower_bound"]
    with pytest.raises(KeyError, match="no comparison row"):
        cmp["nonsense"]
    assert compare(pm, keys="ccb").keys() == ["ccb"]
    with pytest.raises(ValueError, match="unknown comparison key"):
        compare(pm, keys=["ccb", "nonsense"])
    with pytest.raises(ValueError, match="more than once"):
        compare(pm, keys=["ccb", "ccb"])
    with pytest.raises(ValueError, match="empty"):
        compare(pm, keys=[])
    with pytest.raises(ValueError, match="alpha"):
        compare(pm, alpha=0.5)
    with pytest.raises(ValueError, match="beta"):
        compare(pm, beta=1.5)
    with pytest.raises(ValueError, match="method"):
        compare(pm, method="simplex")
    assert check_options(alpha=0.7, keys=["ecw"]) == (0.7, 2.0, ("ecw",), "cutting-plane")
    with pytest.raises(boundcalc.PreferenceMatrixError):
        compare([[0.5, 0.6], [0.6, 0.5]])


def test_exports_and_formats():
    from boundcalc.result import paper_legend

    cmp = compare(load_example("mslr5-noncondorcet"))
    assert isinstance(cmp, Comparison) and boundcalc.Comparison is Comparison
    assert boundcalc.compare is compare and boundcalc.COMPARE_KEYS == COMPARE_KEYS
    d = cmp.to_dict()
    assert list(d) == ["rows"] and [r["key"] for r in d["rows"]] == ISSUE_KEYS
    assert json.loads(cmp.to_json()) == json.loads(json.dumps(d))
    assert cmp.values()["ecw"] == cmp["ecw"].value and cmp.values()["rmed1"] is None
    text = str(cmp)
    assert text == cmp.summary() + "\n" + paper_legend(cmp.summary())  # str() adds the papers' legend
    for key in ISSUE_KEYS:
        assert key in text
    assert "n/a" in text and "no Condorcet winner" in text
    assert "no Condorcet winner" not in cmp.summary(reasons=False)
    assert "24 rows" in repr(cmp) and "failed" not in repr(cmp)
    # CSV: header and one line per row, numbers written to round-trip
    rows = list(csv.DictReader(io.StringIO(cmp.to_csv())))
    assert [r["key"] for r in rows] == ISSUE_KEYS and float(rows[1]["value"]) == cmp["ecw"].value
    assert rows[8]["status"] == "not-applicable" and rows[8]["value"] == ""


def test_to_frame():
    pd = pytest.importorskip("pandas")
    cmp = compare(load_example("mslr5-noncondorcet"))
    df = cmp.to_frame()
    assert isinstance(df, pd.DataFrame) and list(df.index) == ISSUE_KEYS
    assert df.loc["ecw", "value"] == cmp["ecw"].value
    assert pd.isna(df.loc["rmed_lb", "value"]) and "Condorcet" in df.loc["rmed_lb", "reason"]


# ---------------------------------------------------------------- every row by hand
def _table2_by_hand(alpha=ALPHA, beta=2.0) -> dict:
    """Every row of paper 000's Table 2 matrix, worked out by hand.

    Arm 0 beats arms 1-3 with 0.6 (gap .1); arms 1-3 form a 0.9/0.1 cycle (gap .4).  K = 4,
    L = [0, 2, 2, 2], one Copeland (= Condorcet) winner, L_C = 0, Delta_min = .1.
    """
    d6, d9 = kl(0.6), kl(0.9)
    c0, ccyc = (2 / 6) / d6, (4 / 6) / d9  # 000's r / d: r = 2/6 on (0, j), 4/6 inside the cycle
    fa = 4 * alpha
    return {
        # 000 Table 2 (test_lp.test_table2_worked_example): e = 1/2 on every pair; ECW: e0j = 1
        "lower_bound": 1.5 * (c0 + ccyc),
        "ecw": 3 * c0,
        # 002 Theorem 3: 2 K (C + L_C + 1) / Delta^2, Delta_Z = Delta_min on a Condorcet matrix
        "ccb": 2 * 4 * 2 / 0.1**2,
        "ccb_delta_z": 2 * 4 * 2 / 0.1**2,
        # 002 Thm 5: cpld = (1, 1/3, 1/3, 1/3), Delta_i = 2/3 (i >= 1), H_i = 1/.1^2 + 2/.4^2 = 112.5
        "scb_hardness": (1 / 4) * 3 * 112.5 * (2 / 3) / (2 / 3) ** 2,
        # 001 eq. (2): losers 1-3 against 0 (p = .4, gap .1) and the cycle's losers (p = .1, gap .4)
        "dts_prop1": 3 * (fa / 0.1**2 + 1 / kl(0.4)) + 3 * (fa / 0.4**2 + 1 / kl(0.1)),
        # 001 eq. (6): winner 0's three inferiors, and each cycle arm's strongest opponent (.9)
        "dts_thm1": 3 / kl(0.4) + 3 * fa / 0.4**2,
        # each cycle arm's column sorted: .9 | .6, .5, .1 -> 1/D(p || .9) for the tail, times beta
        "dts_thm1_loglog": beta * 3 * (1 / kl(0.6, 0.9) + 1 / kl(0.5, 0.9) + 1 / kl(0.1, 0.9)),
        # RMED: each i is cheapest shown beaten by its cycle superior: (.1 + .1) / (2 D(.1))
        "rmed_lb": 3 * 0.2 / (2 * kl(0.1)),
        "rmed1": 3 * 0.1 / (2 * kl(0.4)),
        # 000 (11): sum over i2 != 0 of 1 + L/(L - 0 + 1) = 3 (1 + 2/3) = 5;  (12): 4 (3/2) / d
        "ecw_eq11": 5 / d6,
        "ecw_eq12": 4 / d6 * 1.5,
        "savage_hardness": 3 / 0.1**2 + 3 / 0.4**2,
        # 004, one position: w = (.575, .475, .475, .475): every Borda gap .1; Condorcet gaps .1
        "cpe_borda_hardness": 4 / 0.1**2,
        "cpe_condorcet_hardness": 6 / 0.1**2,
        "cpe_condorcet_ver": 3 / 0.1**2,
        # IF2: K / eps_12 with the winner's smallest margin .1; WS-S: N
        "if2_hardness": 4 / 0.1,
        "ws_s_hardness": 4.0,
        # Versatile-DB: the winner's margins .1 over arms 1-3; MergeRUCB: K
        "versatile_db_hardness": 3 / 0.1,
        "merge_rucb_order": 4.0,
        # Beat-the-Mean: needs a total order, and arms 1-3 form a cycle: not applicable (None)
        "btm_order": None,
        # Doubler: H = sum_i 1 / (2 (mu_0i - 1/2)) over the winner's three margins .1
        "doubler_order": 3 / 0.2,
        # T*: the brute force of tests/identification_brute.py; Condorcet model: arms 1-3 each
        # refuted on their 0.9 loss inside the cycle
        "id_copeland": brute_identification(load_example("table2").mu, "copeland")[0],
        "id_condorcet": 3 / kl(0.9),
    }


@pytest.mark.parametrize("alpha,beta", [(0.51, 2.0), (0.8, 3.5)])
def test_every_row_of_table2_by_hand(alpha, beta):
    cmp = compare(load_example("table2"), alpha=alpha, beta=beta)
    hand = _table2_by_hand(alpha, beta)
    assert list(hand) == ISSUE_KEYS
    for key, value in hand.items():
        if value is None:  # not applicable (pytest.approx takes no None from pytest 9.2 on)
            assert cmp[key].value is None, key
        else:
            assert cmp[key].value == pytest.approx(value, rel=1e-9), key
    assert cmp["lower_bound"].winner == cmp["ecw"].winner == 0
    assert cmp["rmed_lb"].extra["j_star"] == [None, 3, 1, 2]  # arm i's cycle superior
    assert cmp["cpe_condorcet_ver"].extra["winner"] == 0


def test_formula_rows_of_a_three_arm_matrix_by_hand():
    """A (Condorcet winner 0, L = [0, 1, 2], gaps .1, .2, .3): rows that test_formulas works out
    function by function, here through compare (same arithmetic, written out again)."""
    cmp = compare(A, keys=[k for k in ISSUE_KEYS if k not in ("lower_bound", "ecw")])
    fa = 4 * ALPHA
    hand = {
        "ccb": 2 * 3 * 2 / 0.01,
        "ccb_delta_z": 2 * 3 * 2 / 0.01,
        "scb_hardness": 775 / 9,
        "dts_prop1": fa * (1 / 0.01 + 1 / 0.04 + 1 / 0.09) + 1 / kl(0.4) + 1 / kl(0.3) + 1 / kl(0.2),
        "dts_thm1": 1 / kl(0.4) + 1 / kl(0.3) + fa / 0.01 + fa / 0.09,
        "dts_thm1_loglog": 2 * (1 / kl(0.5, 0.6) + 1 / kl(0.2, 0.6) + 1 / kl(0.7, 0.8) + 1 / kl(0.5, 0.8)),
        # arm 1: only 0 beats it; arm 2: beaten by 0 (.7) and 1 (.8), via 1 costs (.2 + .1)/(2 D(.2))
        "rmed_lb": 0.1 / (2 * kl(0.4)) + min(0.2 / (2 * kl(0.3)), 0.3 / (2 * kl(0.2))),
        "rmed1": 0.1 / (2 * kl(0.4)) + 0.2 / (2 * kl(0.3)),
        "ecw_eq11": (19 / 6) / kl(0.6),
        "ecw_eq12": 4.5 / kl(0.6),
        "savage_hardness": 1225 / 9,
        # w = (1.8, 1.7, 1.0)/3: Borda gaps (1/30, 1/30, 4/15); Condorcet gaps (.1, .1, .2)
        "cpe_borda_hardness": 2 * 30**2 + (15 / 4) ** 2,
        "cpe_condorcet_hardness": 1 / 0.1**2 + 2 / 0.2**2,
        "cpe_condorcet_ver": 1 / 0.1**2 + 1 / 0.2**2,
        "if2_hardness": 3 / 0.1,
        "ws_s_hardness": 3.0,
        "versatile_db_hardness": 1 / 0.1 + 1 / 0.2,
        "merge_rucb_order": 3.0,
        # total order 0 > 1 > 2: RST gamma = max(D01, D12) / D02 = .3 / .2; gamma^7 K / D_min
        "btm_order": 1.5**7 * 3 / 0.1,
        # Doubler: utility gaps 2 (.1), 2 (.2)
        "doubler_order": 1 / 0.2 + 1 / 0.4,
        # arm 1 refuted on its one loss (.6), arm 2 on its loss to arm 1 (.8)
        "id_copeland": brute_identification(np.array(A), "copeland")[0],
        "id_condorcet": 1 / kl(0.6) + 1 / kl(0.8),
    }
    assert cmp.keys() == list(hand)
    for key, value in hand.items():
        assert cmp[key].value == pytest.approx(value, rel=1e-9), key


# ---------------------------------------------------------------- the LP rows, checked independently
@pytest.mark.parametrize("name", ["table2", "mslr5-condorcet", "mslr5-noncondorcet", "arithmetic8"])
def test_lp_rows_against_the_written_out_lps(name):
    pm = load_example(name)
    cmp = compare(pm, certify=True)
    lb, ecw = cmp["lower_bound"], cmp["ecw"]
    # the cutting plane against the whole LP written out (cvxpy), a different backend
    full = compare(pm, keys=["lower_bound"], method="enumerate")["lower_bound"]
    assert full.method == "enumerate" and lb.method == "cutting-plane"
    assert lb.value == pytest.approx(full.value, rel=1e-7)
    # ECW's closed form (Theorem 5) against its LP over every row of R^E written out
    assert ecw.value == pytest.approx(ecw_enumerate(pm).value, rel=1e-7)
    for res in (lb, ecw):
        assert res.unit == UNIT_000 and res.winner in pm.copeland_winners.tolist()
        assert res.value == min(res.per_winner.values())
        # the objective recomputed from the returned allocation: sum_{i<j} r_ij q_ij
        q = res.allocation
        assert np.allclose(q, q.T) and np.all(np.diag(q) == 0) and np.all(q >= -1e-12)
        iu = np.triu_indices(pm.K, 1)
        assert float(np.sum(pm.regret[iu] * q[iu])) == pytest.approx(res.value, rel=1e-9)
        assert res.certificate.max_violation <= 1e-9
    assert lb.certificate.dual_bound == pytest.approx(lb.value, rel=1e-7)  # optimal, not just feasible
    assert compare(pm, keys=["ecw"])["ecw"].certificate is None  # certify is off by default


# ---------------------------------------------------------------- orderings the papers imply
@HSET
@given(matrices(kmin=3, kmax=8))
def test_lower_bound_ecw_and_closed_forms_ordered(pm):
    cmp = compare(pm, keys=["lower_bound", "ecw", "ecw_eq11", "ecw_eq12"])
    lb, ecw = cmp["lower_bound"].value, cmp["ecw"].value
    # 000 Theorem 6: C^E* >= C*, with equality when there are >= 2 Copeland winners
    assert ecw >= lb * (1 - 1e-9) - 1e-12
    if pm.n_winners >= 2:
        assert close(ecw, lb)
    # 000 eqs. (11) and (12) are upper bounds on min C^E* (one feasible point of R^E*)
    assert cmp["ecw_eq11"].value >= ecw * (1 - 1e-12)
    assert cmp["ecw_eq12"].value >= ecw * (1 - 1e-12)


@HSET
@given(matrices(kmin=3, kmax=8))
def test_ccb_gaps(pm):
    cmp = compare(pm, keys=["ccb", "ccb_delta_z"])
    assert cmp["ccb_delta_z"].value <= cmp["ccb"].value * (1 + 1e-12)
    if pm.condorcet_winner is not None:
        assert cmp["ccb_delta_z"].value == pytest.approx(cmp["ccb"].value, rel=1e-12)
        assert cmp["ccb_delta_z"].extra["delta"] == pytest.approx(cmp["ccb"].extra["delta"], rel=1e-12)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(matrices(kmin=3, kmax=8, condorcet=True))
@pytest.mark.slow
def test_rmed_bound_is_the_l0_copeland_lp(pm):
    R = rmed_regret_matrix(pm)
    rm = rmed_lb(pm).value
    l0 = lower_bound(pm, regret=R, levels=[0])
    assert l0.value == pytest.approx(rm, rel=1e-8, abs=1e-12)
    full = lower_bound(pm, regret=R)
    assert full.value >= rm * (1 - 1e-9) - 1e-12
    cmp = compare(pm, keys=["rmed_lb", "rmed1"])
    assert cmp["rmed_lb"].value == pytest.approx(l0.value, rel=1e-8, abs=1e-12)
    assert cmp["rmed_lb"].value <= cmp["rmed1"].value * (1 + 1e-12)


# ---------------------------------------------------------------- units
EXPECTED_UNITS = {
    "lower_bound": UNIT_000,
    "ecw": UNIT_000,
    "ccb": UNIT_002,
    "ccb_delta_z": UNIT_002,
    "scb_hardness": UNIT_HARDNESS,
    "dts_prop1": UNIT_001,
    "dts_thm1": UNIT_001,
    "dts_thm1_loglog": UNIT_001_LOGLOG,
    "rmed_lb": UNIT_RMED,
    "rmed1": UNIT_RMED,
    "ecw_eq11": UNIT_000,
    "ecw_eq12": UNIT_000,
    "savage_hardness": UNIT_HARDNESS,
    "cpe_borda_hardness": UNIT_HARDNESS,
    "cpe_condorcet_hardness": UNIT_HARDNESS,
    "cpe_condorcet_ver": UNIT_HARDNESS,
    "if2_hardness": UNIT_HARDNESS,
    "ws_s_hardness": UNIT_HARDNESS,
    "versatile_db_hardness": UNIT_HARDNESS,
    "merge_rucb_order": UNIT_HARDNESS,
    "btm_order": UNIT_HARDNESS,
    "doubler_order": UNIT_HARDNESS,
    "id_copeland": UNIT_IDENTIFY,
    "id_condorcet": UNIT_IDENTIFY,
}
FACTOR_TO_000 = {
    UNIT_000: 1.0,
    UNIT_002: 0.5,
    UNIT_001: 1.0,
    UNIT_001_LOGLOG: 1.0,
    UNIT_RMED: None,
    UNIT_HARDNESS: None,
    UNIT_IDENTIFY: None,
}


def _check_units(cmp):
    for r in cmp:
        assert r.unit == EXPECTED_UNITS[r.key], r.key
        factor = FACTOR_TO_000[r.unit]
        if r.value is None or factor is None:
            assert r.value_in_000_unit is None, r.key
        else:
            assert r.value_in_000_unit == pytest.approx(factor * r.value, rel=1e-15), r.key


@pytest.mark.parametrize("mu", ["table2", "mslr5-noncondorcet", CYCLE, A2_FAILS])
def test_units_convert_consistently(mu):
    pm = load_example(mu) if isinstance(mu, str) else PreferenceMatrix(mu)
    _check_units(compare(pm))


@HSET
@given(matrices(kmin=3, kmax=7))
def test_units_convert_consistently_random(pm):
    _check_units(compare(pm, keys=[k for k in ISSUE_KEYS if k != "lower_bound"]))


# ---------------------------------------------------------------- CPE: one-position instance
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(matrices(kmin=2, kmax=6))
def test_cpe_rows_match_the_one_position_instance(pm):
    from boundcalc import cpe

    inst = cpe.CPEInstance.from_matrix(pm.mu)
    cmp = compare(pm, keys=["cpe_borda_hardness", "cpe_condorcet_hardness", "cpe_condorcet_ver"])
    general = {
        "cpe_borda_hardness": lambda: cpe.borda_hardness(inst),
        "cpe_condorcet_hardness": lambda: cpe.condorcet_hardness(inst),
        "cpe_condorcet_ver": lambda: cpe.condorcet_ver_hardness(inst),
    }
    for key, f in general.items():
        if cmp[key].applies:
            assert cmp[key].value == pytest.approx(f(), rel=1e-9), key
        else:
            with pytest.raises(cpe.NoWinnerError):
                f()
    if pm.condorcet_winner is not None:
        assert cmp["cpe_condorcet_hardness"].extra["winner"] == pm.condorcet_winner


def test_cpe_rows_on_named_matrices():
    from boundcalc.cpe import (
        CPEInstance,
        borda_hardness,
        condorcet_hardness,
        condorcet_ver_hardness,
    )

    for name in ("table2", "mslr5-condorcet"):
        pm = load_example(name)
        inst = CPEInstance.from_matrix(pm)
        cmp = compare(pm)
        assert cmp["cpe_borda_hardness"].value == pytest.approx(borda_hardness(inst), rel=1e-9)
        assert cmp["cpe_condorcet_hardness"].value == pytest.approx(condorcet_hardness(inst), rel=1e-9)
        assert cmp["cpe_condorcet_ver"].value == pytest.approx(condorcet_ver_hardness(inst), rel=1e-9)
    # table2 by hand: winner 0 beats every arm by 0.1 (gaps 0.1 everywhere in row 0)
    cmp = compare(load_example("table2"))
    assert cmp["cpe_condorcet_ver"].value == pytest.approx(3 / 0.1**2)
    assert cmp["cpe_condorcet_hardness"].value == pytest.approx(6 / 0.1**2)


# ---------------------------------------------------------------- solver failures
def _raise_solver_error(self, *args, **kwargs):
    raise SolverError("HiGHS returned status 'Numerical error' (forced by the test)")


def _failed_bound(self, matrix, *args, **kwargs):
    # what the LP core returns when its certificate is out of tolerance
    return BoundResult.failed(
        "lower_bound", message="duality gap 3e-2 above tolerance (forced)", method="cutting-plane"
    )


@pytest.mark.parametrize("fail", [_raise_solver_error, _failed_bound])
def test_solver_failure_is_a_failed_row_never_a_number(monkeypatch, fail):
    import boundcalc.bounds.exact as exact

    pm = load_example("table2")
    monkeypatch.setattr(exact.CopelandLPSolver, "solve", fail)
    cmp = compare(pm)
    row = cmp["lower_bound"]
    assert row.status == "failed" and not row.success and not row.applies
    assert row.value is None and row.value_in_000_unit is None and "forced" in row.message
    assert row.winner is None and row.allocation is None
    # id_copeland solves the same LP core's model: it fails with it, as a failed row
    assert cmp.failed() == [row, cmp["id_copeland"]] and "2 failed" in repr(cmp)
    assert cmp["id_copeland"].value is None and cmp["id_copeland"].message
    assert cmp.values()["lower_bound"] is None
    others = [r for r in cmp if r.key not in ("lower_bound", "id_copeland", "btm_order")]  # btm: no total order
    assert all(r.status == "ok" for r in others)  # one failure does not take the table down
    assert cmp["btm_order"].status == "not-applicable"
    assert cmp["ecw"].value == pytest.approx(1 / kl(0.6), rel=1e-12)
    text = cmp.summary(reasons=False)
    assert "FAILED" in text and "forced" in text
    d = json.loads(cmp.to_json())
    assert d["rows"][0]["status"] == "failed" and d["rows"][0]["value"] is None
    assert "forced" in list(csv.DictReader(io.StringIO(cmp.to_csv())))[0]["message"]
    # the front door raises by default, returns the failed result on request
    with pytest.raises(SolverError, match="forced"):
        lower_bound(pm)
    res = lower_bound(pm, on_failure="return")
    assert isinstance(res, BoundResult) and res.status == "failed" and res.value is None
    assert "forced" in res.message and res.key == "lower_bound"
    with pytest.raises(ValueError, match="on_failure"):
        lower_bound(pm, on_failure="ignore")


def test_solver_failure_in_the_commands(monkeypatch, capsys):
    import boundcalc.bounds.exact as exact

    monkeypatch.setattr(exact.CopelandLPSolver, "solve", _raise_solver_error)
    assert main(["compare", "--example", "table2", "--json"]) == 1
    captured = capsys.readouterr()
    rows = json.loads(captured.out)["rows"]
    assert rows[0]["key"] == "lower_bound" and rows[0]["status"] == "failed" and rows[0]["value"] is None
    assert "solver failure" in captured.err and "forced" in captured.err
    assert main(["compare", "--example", "table2"]) == 1
    assert "FAILED" in capsys.readouterr().out
    assert main(["bounds", "--example", "table2"]) == 1
    assert "solver failure" in capsys.readouterr().err


# ---------------------------------------------------------------- package layout
@pytest.mark.parametrize("package", [boundcalc, boundcalc.bounds, boundcalc.identification])
def test_no_module_is_shadowed_by_a_function(package):
    """``boundcalc.bounds.<name>`` and ``boundcalc.<name>`` are modules for every submodule name
    (a function of the same name in bounds/__init__ would shadow the module lower_bound, ccb or compare)."""
    for info in pkgutil.iter_modules(package.__path__):
        if info.name == "__main__":
            continue
        mod = importlib.import_module(f"{package.__name__}.{info.name}")
        assert getattr(package, info.name) is mod, f"{package.__name__}.{info.name} is not the module"
    assert isinstance(boundcalc.comparison, types.ModuleType) and boundcalc.comparison.compare is compare
    assert callable(boundcalc.lower_bound) and callable(boundcalc.ecw_bound) and callable(boundcalc.compare)


# ---------------------------------------------------------------- command line
@pytest.fixture
def matrix_file(tmp_path):
    pm = load_example("mslr5-noncondorcet")
    path = tmp_path / "m.txt"
    np.savetxt(path, pm.mu)
    return path, PreferenceMatrix.from_file(path)


def test_cli_json_matches_library(matrix_file, capsys):
    path, pm = matrix_file
    assert main(["compare", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    lib = compare(pm)
    assert list(out) == ["rows"] and [r["key"] for r in out["rows"]] == ISSUE_KEYS
    for got, r in zip(out["rows"], lib):
        assert {k: got[k] for k in CORE_FIELDS} == core(r)
        assert "extra" in got


def test_cli_csv_matches_library(matrix_file, capsys):
    path, pm = matrix_file
    assert main(["compare", str(path), "--csv", "--alpha", "0.7"]) == 0
    text = capsys.readouterr().out
    rows = list(csv.DictReader(io.StringIO(text)))
    assert text.splitlines()[0].split(",") == list(CSV_FIELDS)
    lib = compare(pm, alpha=0.7)
    assert [r["key"] for r in rows] == ISSUE_KEYS
    for got, r in zip(rows, lib):
        assert got["unit"] == r.unit and got["source"] == r.source and got["reason"] == (r.reason or "")
        assert (float(got["value"]) if got["value"] else None) == r.value
        assert (float(got["value_in_000_unit"]) if got["value_in_000_unit"] else None) == r.value_in_000_unit


def test_cli_table_keys_and_example(capsys):
    assert main(["compare", "--example", "table2", "--keys", "ecw,rmed_lb", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [r["key"] for r in out["rows"]] == ["ecw", "rmed_lb"]
    assert out["rows"][0]["value"] == pytest.approx(1 / kl(0.6), rel=1e-12)  # 000 Table 2: 3 (2/6) / d(.6)
    assert out["rows"][0]["winner"] == 0 and out["rows"][1]["status"] == "ok"
    assert main(["compare", "--example", "mslr5-noncondorcet"]) == 0
    text = capsys.readouterr().out
    for key in ISSUE_KEYS:
        assert key in text
    assert "no Condorcet winner" in text and "000 regret per ln T" in text


def test_cli_certify_json_is_strict_json(capsys):
    # ECW's certificate has no dual bound (NaN): written as null, not a crash (it was a traceback)
    assert main(["compare", "--example", "table2", "--certify", "--json", "--keys", "ecw"]) == 0
    row = json.loads(capsys.readouterr().out)["rows"][0]
    assert row["certificate"]["dual_bound"] is None and row["certificate"]["max_violation"] <= 1e-9


def test_cli_errors(capsys, tmp_path):
    assert main(["compare", "--example", "table2", "--alpha", "0.3"]) == 2
    assert "alpha" in capsys.readouterr().err
    assert main(["compare", "--example", "table2", "--keys", "ecw,bogus"]) == 2
    assert "bogus" in capsys.readouterr().err
    assert main(["compare", str(tmp_path / "missing.txt")]) == 2
    assert "no such" in capsys.readouterr().err
    assert main(["compare", "--example", "table2", "--json", "--csv"]) == 2
    assert "not allowed" in capsys.readouterr().err
