"""The contract every registered constant keeps (scikit-learn's ``check_estimator`` habit).

Parametrised from the registry (:func:`boundcalc.registry.registered`), so a constant joins
by registering itself -- no edit here.  For every registered constant, on the bundled matrices
and on random ones (hypothesis; near-ties of 1e-4 included), its evaluator

* returns a :class:`~boundcalc.result.Result` with the registered key, unit and source;
* keeps the status rules: ``"ok"`` with a finite value >= 0 and no reason, or
  ``"not-applicable"`` with value None and a reason (a valid matrix never fails);
  ``value_in_000_unit`` is the exact conversion of the value or None;
* gives the same status and value (and the same winner set, for LP bounds) after the arms
  are relabelled;
* survives a JSON round trip (strict JSON, no NaN) back to an equal result;
* reads no option it does not declare in ``needs``.

Also here: the :class:`~boundcalc.result.Result` type itself and the registry's rules.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from builders import pm_from_upper, st_upper_and_perm
from hypothesis import HealthCheck, given, settings

import boundcalc
from boundcalc import registry
from boundcalc.datasets import load_example
from boundcalc.registry import OPTIONS, Context, register_constant, registered
from boundcalc.result import STATS_KEYS, STATUSES, BoundResult, Certificate, Result, complete_stats
from boundcalc.units import UNIT_000, UNIT_002, UNIT_HARDNESS, UNIT_RMED, UNITS, to_000_unit

SPECS = registered()
NAMED = ["table2", "mslr5-condorcet", "mslr5-noncondorcet", "arithmetic8"]
# 001's Assumption 2 fails (arm 2 loses to 0 and 1 with the same .7); a 3-cycle without a Borda winner
A2_FAILS = [[0.5, 0.6, 0.7], [0.4, 0.5, 0.7], [0.3, 0.3, 0.5]]
CYCLE = [[0.5, 0.6, 0.4], [0.4, 0.5, 0.6], [0.6, 0.4, 0.5]]
HAND = {"A2_FAILS": A2_FAILS, "CYCLE": CYCLE}
ALT_OPTIONS = {"alpha": 0.8, "beta": 3.5, "method": "enumerate", "certify": True}

HSET = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def test_every_constant_of_the_issue_is_registered_in_order():
    # written out here, not read from the code: the 16 rows of boundcalc.compare
    assert [s.key for s in SPECS] == [
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
        "ws_s_hardness",  # the classical baselines' order-only bounds
        "versatile_db_hardness",
        "merge_rucb_order",
        "btm_order",
        "doubler_order",
        "id_copeland",  # the identification constant T*
        "id_condorcet",
    ]
    assert list(boundcalc.COMPARE_KEYS) == [s.key for s in SPECS]


# ----------------------------------------------------------------------------- the contract
def check_contract(spec, pm, ctx=None) -> Result:
    """Evaluate ``spec`` on ``pm`` and check every rule that needs only the one result."""
    res = spec.func(ctx or Context(pm))  # the raw evaluator, not compare's checked path
    assert isinstance(res, Result), type(res)
    assert (res.key, res.unit, res.source) == (spec.key, spec.unit, spec.source)
    assert res.unit in UNITS and res.source and set(spec.needs) <= set(OPTIONS)
    assert res.status in STATUSES
    if res.status == "ok":
        assert res.success and res.applies and res.reason is None
        assert isinstance(res.value, float) and math.isfinite(res.value) and res.value >= 0, res.value
        assert res.value_in_000_unit == to_000_unit(res.value, res.unit)
    else:
        assert res.status == "not-applicable", f"{spec.key} failed on a valid matrix: {res.message}"
        assert res.value is None and res.value_in_000_unit is None and not res.success
        assert isinstance(res.reason, str) and res.reason
    # strict JSON round trip back to an equal result of the same type
    d = res.to_dict()
    text = json.dumps(d, allow_nan=False)
    back = json.loads(text)
    assert back == d
    again = Result.from_dict(back)
    assert type(again) is type(res) and again.to_dict() == d
    if isinstance(res, BoundResult):
        assert list(res.stats)[: len(STATS_KEYS)] == list(STATS_KEYS)
        if res.success:
            assert res.winner in pm.copeland_winners.tolist() and res.value == min(res.per_winner.values())
    return res


def check_permutation(spec, pm, perm):
    """Relabelling the arms changes no value (and maps the winners of an LP bound)."""
    a = spec.func(Context(pm))
    b = spec.func(Context(pm.permute(perm)))
    assert a.status == b.status
    if a.value is None:
        assert b.value is None
    else:
        assert b.value == pytest.approx(a.value, rel=1e-7, abs=1e-9)
    if isinstance(a, BoundResult) and a.success:
        # new arm k is old arm perm[k]
        mapped = {int(perm[k]): v for k, v in b.per_winner.items()}
        assert set(mapped) == set(a.per_winner)
        for w, v in a.per_winner.items():
            assert mapped[w] == pytest.approx(v, rel=1e-7, abs=1e-9)


@pytest.mark.parametrize("spec", SPECS, ids=[s.key for s in SPECS])
@pytest.mark.parametrize("mu", NAMED + list(HAND))
def test_contract_on_named_matrices(spec, mu):
    pm = boundcalc.PreferenceMatrix(HAND[mu]) if mu in HAND else load_example(mu)
    res = check_contract(spec, pm)
    # options it does not declare do not change it
    other = {k: v for k, v in ALT_OPTIONS.items() if k not in spec.needs}
    if other:
        alt = spec.func(Context(pm, **other))
        assert (alt.status, alt.reason) == (res.status, res.reason)
        assert alt.value == pytest.approx(res.value, rel=1e-7) if res.value is not None else alt.value is None


def test_statuses_seen_on_the_named_matrices():
    """The named matrices exercise both statuses where the papers say so (so the contract above
    checks not-applicable results too)."""
    status = {
        (s.key, mu): s.func(Context(boundcalc.PreferenceMatrix(m))).status
        for s in SPECS
        for mu, m in (("A2", A2_FAILS), ("CYC", CYCLE))
    }
    assert status[("dts_thm1", "A2")] == status[("dts_thm1_loglog", "A2")] == "not-applicable"
    assert status[("rmed_lb", "CYC")] == status[("cpe_condorcet_ver", "CYC")] == "not-applicable"
    assert status[("cpe_borda_hardness", "CYC")] == "not-applicable"
    assert status[("lower_bound", "CYC")] == status[("ccb", "A2")] == "ok"


@pytest.mark.parametrize("spec", SPECS, ids=[s.key for s in SPECS])
@HSET
@given(data=st_upper_and_perm)
def test_contract_on_random_matrices_and_relabellings(spec, data):
    K, upper, perm = data
    pm = pm_from_upper(K, upper)
    check_contract(spec, pm)
    check_permutation(spec, pm, perm)


# ----------------------------------------------------------------------------- the result type
def test_result_status_rules():
    kw = dict(key="x", unit=UNIT_000, source="src")
    r = Result(value=3, **kw)
    assert r.value == 3.0 and isinstance(r.value, float) and r.success and r.value_in_000_unit == 3.0
    with pytest.raises(ValueError, match="status 'ok' needs a value"):
        Result(value=None, **kw)
    with pytest.raises(ValueError, match="NaN"):
        Result(value=float("nan"), **kw)
    with pytest.raises(ValueError, match="no reason"):
        Result(value=1.0, reason="why", **kw)
    with pytest.raises(ValueError, match="value None and a reason"):
        Result(value=None, status="not-applicable", **kw)
    with pytest.raises(ValueError, match="value None and a reason"):
        Result(value=1.0, status="not-applicable", reason="why", **kw)
    with pytest.raises(ValueError, match="needs a message"):
        Result(value=None, status="failed", **kw)
    with pytest.raises(ValueError, match="passes no value on"):
        Result(value=1.0, status="failed", message="gap too large", **kw)
    with pytest.raises(ValueError, match="status must be one of"):
        Result(value=1.0, status="done", **kw)
    with pytest.raises(TypeError, match="must be a number"):
        Result(value="1.0x", **kw)
    f = Result.failed("x", unit=UNIT_000, source="src", message="HiGHS: numerical error")
    assert (f.status, f.value, f.success, f.applies) == ("failed", None, False, False)
    assert "message='HiGHS" in repr(f)
    n = Result.not_applicable("x", unit=UNIT_RMED, source="src", reason="no Condorcet winner")
    assert n.status == "not-applicable" and "no Condorcet winner" in repr(n)


def test_value_in_000_unit_conversion_and_override():
    assert Result(key="c", value=8.0, unit=UNIT_002, source="s").value_in_000_unit == 4.0
    assert Result(key="c", value=8.0, unit=UNIT_HARDNESS, source="s").value_in_000_unit is None
    o = Result(key="c", value=8.0, unit=UNIT_RMED, source="s", value_in_000_unit_override=3.0)
    assert o.value_in_000_unit == 3.0
    d = json.loads(json.dumps(o.to_dict()))
    assert d["value_in_000_unit"] == 3.0 and Result.from_dict(d) == o
    # to_dict is strict JSON: numpy values made plain, non-finite extras made None
    r = Result(
        key="c",
        value=np.float64(2.5),
        unit=UNIT_000,
        source="s",
        extra={"a": np.arange(3), "b": np.float64(np.inf), 4: (np.int64(1), np.bool_(True))},
    )
    assert r.to_dict()["extra"] == {"a": [0, 1, 2], "b": None, "4": [1, True]}
    json.dumps(r.to_dict(), allow_nan=False)


def test_bound_result_keeps_the_lp_core_keywords():
    cert = Certificate(max_violation=0.0, primal_bound=2.0, dual_bound=2.0)
    q = np.array([[0.0, 1.5], [1.5, 0.0]])
    r = BoundResult(
        value=2.0,
        winner=0,
        per_winner={0: 2.0},
        allocation=q,
        allocations={0: q},
        kind="lower_bound",
        method="cutting-plane",
        unit=UNIT_000,
        stats={"rounds": 3, "seconds": 0.1, "rows_in_model": {"0": 4}},
        certificate=cert,
        certificates={0: cert},
    )
    assert r.key == "lower_bound" and r.source == "Komiyama et al. 2016 (000), Theorem 2"
    assert list(r.stats) == list(STATS_KEYS) + ["rows_in_model"]
    assert r.stats["method"] == "cutting-plane" and r.stats["rounds"] == 3 and r.stats["solver"] is None
    d = r.to_dict()
    assert "allocation" not in d and r.to_dict(allocation=True)["allocation"] == [[0.0, 1.5], [1.5, 0.0]]
    back = Result.from_dict(json.loads(json.dumps(r.to_dict(allocation=True))))
    assert isinstance(back, BoundResult) and back.winner == 0 and np.array_equal(back.allocation, q)
    assert back.certificate == cert and back.to_dict() == d
    with pytest.raises(ValueError, match="disagree"):
        BoundResult(value=1.0, winner=0, kind="ecw", key="lower_bound")
    with pytest.raises(ValueError, match="needs key"):
        BoundResult(value=1.0, winner=0)
    with pytest.raises(ValueError, match="names its winner"):
        BoundResult(value=1.0, kind="ecw")
    failed = BoundResult.failed("lower_bound", message="cutting plane did not converge", method="cutting-plane")
    assert failed.status == "failed" and failed.allocation is None and "did not converge" in repr(failed)
    # a certificate without a dual bound (closed forms) is strict JSON too
    c = Certificate(0.0, 1.0, float("nan"))
    assert c.to_dict()["dual_bound"] is None and math.isnan(Certificate.from_dict(c.to_dict()).dual_bound)


def test_complete_stats_schema():
    s = complete_stats({"lp_solves": 2, "extra_key": 1}, "enumerate")
    assert list(s) == list(STATS_KEYS) + ["extra_key"]
    assert s["method"] == "enumerate" and s["lp_solves"] == 2 and s["rows_removed"] is None
    assert complete_stats({"method": "x"}, "y")["method"] == "x"


# ----------------------------------------------------------------------------- the registry
@pytest.fixture
def scratch_registry(monkeypatch):
    """A copy of the registry that the test may extend; the real one is restored afterwards."""
    monkeypatch.setattr(registry.CONSTANTS, "_items", dict(registry.CONSTANTS._items))
    return registry


def test_a_new_registration_joins_compare(scratch_registry):
    spec = register_constant("k_arms", unit=UNIT_HARDNESS, source="test: the number of arms", order=1000)

    @spec
    def _k(ctx):
        return spec.result(float(ctx.pm.K), extra={"K": ctx.pm.K})

    cmp = boundcalc.compare(load_example("table2"))
    assert cmp.keys()[-1] == "k_arms" and cmp["k_arms"].value == 4.0
    assert boundcalc.compare(CYCLE, keys=["k_arms", "ccb"]).keys() == ["k_arms", "ccb"]
    check_contract(spec, load_example("table2"))


def test_registry_refuses_bad_registrations(scratch_registry):
    with pytest.raises(ValueError, match="unknown unit"):
        register_constant("x", unit="furlongs", source="s", order=1001)
    with pytest.raises(ValueError, match="source"):
        register_constant("x", unit=UNIT_000, source="", order=1001)
    with pytest.raises(ValueError, match="unknown option"):
        register_constant("x", unit=UNIT_000, source="s", order=1001, needs=("gamma",))
    with pytest.raises(ValueError, match="order 10 is already taken by 'lower_bound'"):
        register_constant("x", unit=UNIT_000, source="s", order=10)(lambda ctx: None)
    with pytest.raises(ValueError, match="already registered"):
        register_constant("ccb", unit=UNIT_002, source="s", order=1002)(lambda ctx: None)
    spec = register_constant("y", unit=UNIT_000, source="s", order=1003)
    spec(lambda ctx: spec.result(1.0))
    with pytest.raises(ValueError, match="already has an evaluator"):
        spec(lambda ctx: spec.result(2.0))
    with pytest.raises(KeyError, match="unknown constant 'nope'"):
        registry.get_constant("nope")


def test_evaluate_checks_what_an_evaluator_returns(scratch_registry):
    pm = load_example("table2")
    wrong = register_constant("w1", unit=UNIT_000, source="s", order=1004)
    wrong(lambda ctx: 1.0)
    with pytest.raises(TypeError, match="not a boundcalc.result.Result"):
        wrong.evaluate(Context(pm))
    lying = register_constant("w2", unit=UNIT_000, source="s", order=1005)
    lying(lambda ctx: Result(key="w2", value=1.0, unit=UNIT_002, source="s"))
    with pytest.raises(ValueError, match="disagrees with its registration: unit"):
        lying.evaluate(Context(pm))


def test_context_computes_shared_values_once():
    ctx = Context(load_example("table2"), alpha=0.7)
    thm1 = registry.get_constant("dts_thm1").evaluate(ctx)
    loglog = registry.get_constant("dts_thm1_loglog").evaluate(ctx)
    assert list(ctx.cache) == ["dts_thm1_rows"] and ctx.cache["dts_thm1_rows"] == (thm1, loglog)
    assert ctx.options() == {"alpha": 0.7, "beta": 2.0, "method": "cutting-plane", "certify": False}


def test_solver_values_are_the_documented_ones():
    """STATS_SCHEMA documents the values of stats["solver"]; every method reports one of them."""
    import re

    from boundcalc.result import STATS_SCHEMA

    documented = set(re.findall(r"'([a-z/+-]+)'", STATS_SCHEMA["solver"]))
    pm = load_example("table2")
    seen = {
        boundcalc.lower_bound(pm).stats["solver"],
        boundcalc.ecw_bound(pm).stats["solver"],
        boundcalc.lower_bound(pm, method="enumerate").stats["solver"],
        boundcalc.lower_bound(load_example("mslr5-noncondorcet")).stats["solver"],
    }  # Theorem 6 path
    assert seen <= documented, seen - documented
