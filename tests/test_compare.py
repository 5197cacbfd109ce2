"""Tests of :func:`boundcalc.compare` (every published constant on one matrix) and of the
``boundcalc compare`` command.

What is checked, and against what:

* the rows, their keys and their order are those of the issue (written out here, not read from
  the module); rows that do not apply carry a reason and no value;
* the ``lower_bound`` / ``ecw`` rows are exactly :func:`boundcalc.lower_bound` /
  :func:`boundcalc.ecw_bound`, and every formula row is exactly its module's function (so
  the sharing done for speed cannot drift from the published formulas);
* orderings the papers imply, on random matrices (hypothesis): lower bound <= ECW <= 000's
  eqs. (11) and (12); ECW = lower bound with >= 2 Copeland winners (000 Theorem 6); CCB's two
  gaps agree on Condorcet matrices; RMED's Condorcet lower bound equals 000's Copeland LP with
  RMED's regret restricted to its l = 0 rows, and the full LP is never smaller;
* unit bookkeeping: ``value_in_000_unit`` is ``value`` (000's unit, D-TS's comparison counts),
  ``value / 2`` (002's unit), or None (RMED's unit, hardnesses, rows that do not apply);
* the CPE rows equal 004's general code on ``CPEInstance.from_matrix(mu)``;
* every row is invariant under relabelling the arms;
* the command's JSON and CSV parse and match the library; bad options exit with status 2.
"""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import boundcalc
from boundcalc import PreferenceMatrix, compare, ecw_bound, lower_bound
from boundcalc.bounds import (
    ccb,
    ccb_delta_z,
    dts_prop1,
    dts_thm1,
    dts_thm1_loglog,
    ecw_eq11,
    ecw_eq12,
    rmed1,
    rmed_lb,
    rmed_regret_matrix,
    savage_hardness,
    scb_hardness,
)
from boundcalc.bounds.compare import COMPARE_KEYS, CSV_FIELDS, Comparison, check_options
from boundcalc.bounds.units import (
    UNIT_000,
    UNIT_002,
    UNIT_001,
    UNIT_001_LOGLOG,
    UNIT_HARDNESS,
    UNIT_RMED,
    Constant,
)
from boundcalc.cli import main
from boundcalc.datasets import load_example, random_matrix

# The rows the issue asks for, in its order (independent of the module's COMPARE_KEYS).
ISSUE_KEYS = [
    "lower_bound", "ecw", "ccb", "ccb_delta_z", "scb_hardness", "dts_prop1", "dts_thm1",
    "dts_thm1_loglog", "rmed_lb", "rmed1", "ecw_eq11", "ecw_eq12", "savage_hardness",
    "cpe_borda_hardness", "cpe_condorcet_hardness", "cpe_condorcet_ver",
]
CORE_FIELDS = ("key", "value", "unit", "value_in_000_unit", "source", "reason")

# 3-cycle with equal Borda scores: no Condorcet winner, no unique Borda winner.
CYCLE = [[0.5, 0.6, 0.4],
         [0.4, 0.5, 0.6],
         [0.6, 0.4, 0.5]]
# Condorcet winner 0; arm 2 loses to arms 0 and 1 with the same 0.7: 001's Assumption 2 fails.
A2_FAILS = [[0.5, 0.6, 0.7],
            [0.4, 0.5, 0.7],
            [0.3, 0.3, 0.5]]

HSET = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def matrices(draw, kmin=3, kmax=8, condorcet=None):
    """A random K x K matrix (gaps >= 0.02), arms shuffled so the winner is not always arm 0."""
    K = draw(st.integers(kmin, kmax))
    seed = draw(st.integers(0, 2**32 - 1))
    cond = draw(st.booleans()) if condorcet is None else condorcet
    rng = np.random.default_rng(seed)
    pm = random_matrix(K, rng, min_gap=0.02, condorcet=cond)
    return pm.permute(rng.permutation(K))


def core(c: Constant) -> dict:
    """The fields every output format carries (``extra`` of the LP rows holds timings)."""
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
    assert len(cmp) == 16 and all(isinstance(r, Constant) for r in cmp)
    for r in cmp:
        assert r.source and r.unit
        assert cmp[r.key] is r and r.key in cmp
    # table2 has a Condorcet winner, a unique Borda winner and satisfies Assumption 2
    assert all(r.applies for r in cmp)
    assert cmp.parameters == {"alpha": 0.51, "beta": 2.0, "method": "cutting-plane", "certify": False}
    assert set(cmp.seconds) == set(ISSUE_KEYS) and all(t >= 0 for t in cmp.seconds.values())


def test_sources_name_the_papers():
    cmp = compare(load_example("table2"))
    assert cmp["lower_bound"].source == "Komiyama et al. 2016 (000), Theorem 2"
    assert cmp["ecw"].source == "Komiyama et al. 2016 (000), Theorem 5"
    for key, tag in [("ccb", "(002), Theorem 3"), ("scb_hardness", "(002), Theorem 5"),
                     ("dts_prop1", "(001), Proposition 1"), ("dts_thm1", "(001), Theorem 1"),
                     ("rmed_lb", "RMED"), ("ecw_eq11", "eq. (11)"), ("ecw_eq12", "eq. (12)"),
                     ("savage_hardness", "(003)"), ("cpe_borda_hardness", "(004), Definition 4"),
                     ("cpe_condorcet_hardness", "(004), Theorem 4"), ("cpe_condorcet_ver", "(004), Sec. 4.3")]:
        assert tag in cmp[key].source, key


def test_rows_that_do_not_apply_say_why():
    cmp = compare(load_example("mslr5-noncondorcet"))  # three Copeland winners, no Condorcet winner
    for key in ("rmed_lb", "rmed1", "cpe_condorcet_hardness", "cpe_condorcet_ver"):
        r = cmp[key]
        assert r.value is None and r.value_in_000_unit is None and not r.applies
        assert "Condorcet winner" in r.reason
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
    cmp = compare(load_example("mslr5-noncondorcet"))
    assert isinstance(cmp, Comparison) and boundcalc.Comparison is Comparison
    assert boundcalc.bounds.compare is compare
    d = cmp.to_dict()
    assert list(d) == ["rows"] and [r["key"] for r in d["rows"]] == ISSUE_KEYS
    assert json.loads(cmp.to_json()) == json.loads(json.dumps(d))
    assert cmp.values()["ecw"] == cmp["ecw"].value and cmp.values()["rmed1"] is None
    text = str(cmp)
    assert text == cmp.format()
    for key in ISSUE_KEYS:
        assert key in text
    assert "n/a" in text and "no Condorcet winner" in text
    assert "no Condorcet winner" not in cmp.format(reasons=False)
    assert "16 rows" in repr(cmp)


def test_to_frame():
    pd = pytest.importorskip("pandas")
    cmp = compare(load_example("mslr5-noncondorcet"))
    df = cmp.to_frame()
    assert isinstance(df, pd.DataFrame) and list(df.index) == ISSUE_KEYS
    assert df.loc["ecw", "value"] == cmp["ecw"].value
    assert pd.isna(df.loc["rmed_lb", "value"]) and "Condorcet" in df.loc["rmed_lb", "reason"]


# ---------------------------------------------------------------- agreement with the core
@pytest.mark.parametrize("name", ["table2", "mslr5-condorcet", "mslr5-noncondorcet", "arithmetic8"])
def test_lp_rows_are_the_core_results(name):
    pm = load_example(name)
    cmp = compare(pm, certify=True)
    lb, ecw = lower_bound(pm), ecw_bound(pm)
    assert cmp["lower_bound"].value == pytest.approx(lb.value, rel=1e-12)
    assert cmp["ecw"].value == ecw.value
    assert cmp["lower_bound"].extra["winner"] == lb.winner and cmp["ecw"].extra["winner"] == ecw.winner
    assert cmp["lower_bound"].unit == cmp["ecw"].unit == UNIT_000 == lb.unit
    assert cmp["lower_bound"].extra["certificate"]["max_violation"] <= 1e-9
    assert cmp["ecw"].extra["certificate"]["max_violation"] <= 1e-9
    assert cmp.results["lower_bound"].value == cmp["lower_bound"].value
    assert cmp.results["ecw"].value == cmp["ecw"].value
    assert "certificate" not in compare(pm, keys=["ecw"])["ecw"].extra  # certify is off by default


def _module_rows(pm, alpha=0.51, beta=2.0):
    return {
        "ccb": ccb(pm), "ccb_delta_z": ccb_delta_z(pm), "scb_hardness": scb_hardness(pm),
        "dts_prop1": dts_prop1(pm, alpha), "dts_thm1": dts_thm1(pm, alpha),
        "dts_thm1_loglog": dts_thm1_loglog(pm, alpha, beta), "rmed_lb": rmed_lb(pm), "rmed1": rmed1(pm),
        "ecw_eq11": ecw_eq11(pm), "ecw_eq12": ecw_eq12(pm), "savage_hardness": savage_hardness(pm),
    }


@pytest.mark.parametrize("mu", [A2_FAILS, CYCLE, "mslr5-noncondorcet", "table2"])
def test_formula_rows_are_the_module_functions(mu):
    pm = load_example(mu) if isinstance(mu, str) else PreferenceMatrix(mu)
    for alpha, beta in [(0.51, 2.0), (0.8, 3.5)]:
        cmp = compare(pm, alpha=alpha, beta=beta)
        for key, expected in _module_rows(pm, alpha, beta).items():
            assert cmp[key].to_dict() == expected.to_dict(), key


@HSET
@given(matrices(kmin=3, kmax=8))
def test_formula_rows_are_the_module_functions_random(pm):
    cmp = compare(pm, keys=[k for k in ISSUE_KEYS if k != "lower_bound"])
    for key, expected in _module_rows(pm).items():
        assert cmp[key].to_dict() == expected.to_dict(), key


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
def test_rmed_bound_is_the_l0_copeland_lp(pm):
    R = rmed_regret_matrix(pm)
    rm = rmed_lb(pm).value
    l0 = lower_bound(pm, regret=R, levels=[0])
    assert l0.value == pytest.approx(rm, rel=1e-8, abs=1e-12)
    full = lower_bound(pm, regret=R)
    assert full.value >= rm * (1 - 1e-9) - 1e-12
    cmp = compare(pm, keys=["rmed_lb", "rmed1"])
    assert cmp["rmed_lb"].value == rm
    assert cmp["rmed_lb"].value <= cmp["rmed1"].value * (1 + 1e-12)


# ---------------------------------------------------------------- units
EXPECTED_UNITS = {
    "lower_bound": UNIT_000, "ecw": UNIT_000, "ccb": UNIT_002, "ccb_delta_z": UNIT_002,
    "scb_hardness": UNIT_HARDNESS, "dts_prop1": UNIT_001, "dts_thm1": UNIT_001,
    "dts_thm1_loglog": UNIT_001_LOGLOG, "rmed_lb": UNIT_RMED, "rmed1": UNIT_RMED,
    "ecw_eq11": UNIT_000, "ecw_eq12": UNIT_000, "savage_hardness": UNIT_HARDNESS,
    "cpe_borda_hardness": UNIT_HARDNESS, "cpe_condorcet_hardness": UNIT_HARDNESS,
    "cpe_condorcet_ver": UNIT_HARDNESS,
}
FACTOR_TO_000 = {UNIT_000: 1.0, UNIT_002: 0.5, UNIT_001: 1.0, UNIT_001_LOGLOG: 1.0,
                 UNIT_RMED: None, UNIT_HARDNESS: None}


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


# ---------------------------------------------------------------- relabelling the arms
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(matrices(kmin=3, kmax=8), st.randoms(use_true_random=False))
def test_every_row_invariant_under_arm_permutation(pm, rnd):
    perm = list(range(pm.K))
    rnd.shuffle(perm)
    a, b = compare(pm), compare(pm.permute(perm))
    for ra, rb in zip(a, b):
        assert ra.key == rb.key and ra.applies == rb.applies, ra.key
        assert close(ra.value, rb.value), (ra.key, ra.value, rb.value)
        assert close(ra.value_in_000_unit, rb.value_in_000_unit), ra.key


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
    assert out["rows"][0]["value"] == ecw_bound(load_example("table2")).value
    assert main(["compare", "--example", "mslr5-noncondorcet"]) == 0
    text = capsys.readouterr().out
    for key in ISSUE_KEYS:
        assert key in text
    assert "no Condorcet winner" in text and "000 regret per ln T" in text


def test_cli_errors(capsys, tmp_path):
    assert main(["compare", "--example", "table2", "--alpha", "0.3"]) == 2
    assert "alpha" in capsys.readouterr().err
    assert main(["compare", "--example", "table2", "--keys", "ecw,bogus"]) == 2
    assert "bogus" in capsys.readouterr().err
    assert main(["compare", str(tmp_path / "missing.txt")]) == 2
    assert "no such" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["compare", "--example", "table2", "--json", "--csv"])
    assert exc.value.code == 2
    assert "not allowed" in capsys.readouterr().err
