"""Names that invited mistakes, renamed (0.2.0), and the one inf/NaN convention of results.

* ``boundcalc.explore.ExploreResult`` (all runs of ``explore``) read like
  ``boundcalc.cpe.base.ExplorationResult`` (one run): it is ``ExplorationRuns``;
* ``boundcalc.cpe.base.Decision`` (a trace entry: an edge accepted or rejected) shared its name with
  the policies' per-step decision: it is ``EdgeDecision``.
Both old names still resolve, with a DeprecationWarning, as the API reference named them.
``OracleResult`` is a :class:`~boundcalc.result.RichResult` and writes infinities as ``null`` like
every other result (it wrote the strings ``"inf"``/``"-inf"``).
"""

from __future__ import annotations

import json
import math

import pytest

from boundcalc import cpe, explore
from boundcalc.cpe.base import EdgeDecision, ExplorationResult
from boundcalc.cpe.instance import CPEInstance
from boundcalc.cpe.oracle import OracleResult, condorcet_oracle
from boundcalc.explore import ExplorationRuns
from boundcalc.result import RichResult


def test_new_names_and_deprecated_aliases():
    assert ExplorationRuns.__name__ == "ExplorationRuns" and ExplorationRuns is not ExplorationResult
    with pytest.warns(DeprecationWarning, match="use ExplorationRuns"):
        assert explore.ExploreResult is ExplorationRuns
    assert cpe.EdgeDecision is EdgeDecision and EdgeDecision.__name__ == "EdgeDecision"
    with pytest.warns(DeprecationWarning, match="use EdgeDecision"):
        assert cpe.Decision is EdgeDecision
    with pytest.warns(DeprecationWarning):  # warns at every use, not only the first
        assert cpe.Decision is EdgeDecision
    assert "Decision" not in cpe.__all__ and "ExploreResult" not in explore.__all__
    with pytest.raises(AttributeError):
        explore.NoSuchName  # noqa: B018


def test_no_two_public_result_or_decision_classes_share_a_name():
    """Across the package's public classes, ``Decision``/``*Result`` names are unique (the policies'
    internal ``copeland_rmed.Decision`` namedtuple is the one left: its module is being moved by
    another change and is not exported by ``boundcalc.policies``)."""
    import importlib
    import pkgutil

    import boundcalc

    seen: dict[str, str] = {}
    for info in pkgutil.walk_packages(boundcalc.__path__, "boundcalc."):
        if info.name.endswith("__main__"):
            continue
        mod = importlib.import_module(info.name)
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name, None)
            if not isinstance(obj, type) or not (name.endswith("Result") or name == "Decision"):
                continue
            if info.name == "boundcalc.policies.copeland_rmed":
                continue
            where = f"{obj.__module__}.{obj.__qualname__}"
            assert seen.setdefault(name, where) == where, (name, seen[name], where)
    assert "ExplorationResult" in seen and "OracleResult" in seen


def test_oracle_result_is_a_rich_result_with_null_infinities():
    inst = CPEInstance.from_matrix([[0.5, 0.8, 0.4], [0.2, 0.5, 0.9], [0.6, 0.1, 0.5]])
    r = condorcet_oracle(inst, inst.edge_matrix)
    assert isinstance(r, RichResult) and isinstance(r, OracleResult)
    assert json.loads(r.to_json())["value"] == pytest.approx(0.5, abs=1e-9)  # the 3-cycle's value (1/2)
    assert str(r).startswith("Condorcet oracle (004 eq. (6)): value 0.5") and "paper codes: 004 = Chen" in str(r)
    empty = OracleResult(-math.inf, None, None, "empty-max", {"time": math.nan, "rows": 3})
    d = empty.to_dict()
    assert d == {"value": None, "x": None, "y": None, "status": "empty-max", "stats": {"time": None, "rows": 3}}
    assert json.loads(empty.to_json()) == d
    assert OracleResult(math.inf, None, None, "empty-min").to_dict()["value"] is None


def test_cli_json_writes_nan_and_inf_as_null(capsys):
    """The CLI's --json of runs (simulate, explore, batch) goes through the same convention:
    strict JSON, NaN and infinities as null (a row file written before CPU time was recorded has NaN)."""
    import argparse

    from boundcalc.cli import _emit_run

    class Fake:
        def to_dict(self):
            return {"cpu_seconds": math.nan, "value": -math.inf, "ok": 1.5}

    assert _emit_run(Fake(), argparse.Namespace(plot=None, json=True)) == 0
    assert json.loads(capsys.readouterr().out) == {"cpu_seconds": None, "value": None, "ok": 1.5}
