"""The public API is typed (``py.typed`` ships): every public function and method of every public
module carries annotations on its parameters and its return, and the names in them resolve."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import typing
from pathlib import Path

import pytest

import boundcalc


def _public_modules() -> list[str]:
    names = []
    for m in pkgutil.walk_packages(boundcalc.__path__, "boundcalc."):
        if not any(part.startswith("_") for part in m.name.split(".")[1:]):
            names.append(m.name)
    return names


def _public_callables():
    seen = set()
    for name in _public_modules():
        mod = importlib.import_module(name)
        exported = getattr(mod, "__all__", [n for n in vars(mod) if not n.startswith("_")])
        for n in exported:
            obj = getattr(mod, n)
            if getattr(obj, "__module__", None) != name or id(obj) in seen:
                continue
            seen.add(id(obj))
            if inspect.isfunction(obj):
                yield f"{name}.{n}", obj
            elif inspect.isclass(obj):
                for an, a in vars(obj).items():
                    if an.startswith("_") and an != "__init__":
                        continue
                    if isinstance(a, (staticmethod, classmethod)):
                        a = a.__func__
                    if isinstance(a, property):
                        a = a.fget
                    if inspect.isfunction(a):
                        yield f"{name}.{n}.{an}", a


CALLABLES = dict(_public_callables())


def test_py_typed_ships():
    assert (Path(boundcalc.__file__).parent / "py.typed").is_file()


def test_the_walk_sees_the_api():
    # the walk itself is not empty or partial: the entry points a user meets first are in it
    for q in (
        "boundcalc.bounds.exact.lower_bound",
        "boundcalc.simulate.simulate",
        "boundcalc.batch.run_batch",
        "boundcalc.explore.explore",
        "boundcalc.comparison.compare",
        "boundcalc.matrix.PreferenceMatrix.__init__",
    ):
        assert q in CALLABLES
    assert len(CALLABLES) > 300


def test_every_public_callable_is_annotated():
    missing = []
    for q, f in CALLABLES.items():
        sig = inspect.signature(f)
        for p in sig.parameters.values():
            if p.name in ("self", "cls") or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                continue
            if p.annotation is inspect.Parameter.empty:
                missing.append(f"{q}({p.name})")
        if sig.return_annotation is inspect.Signature.empty and not q.endswith(".__init__"):
            missing.append(f"{q} -> ?")
    assert not missing, f"{len(missing)} unannotated: " + ", ".join(missing[:40])


@pytest.mark.parametrize(
    "module",
    [
        "boundcalc.matrix",
        "boundcalc.bounds.exact",
        "boundcalc.comparison",
        "boundcalc.batch",
        "boundcalc.runner.job",
        "boundcalc.lp.cutting",
        "boundcalc.cpe.borda",
        "boundcalc.registry",
        "boundcalc.explore",
        "boundcalc.plot",
        "boundcalc.cli",
    ],
)
def test_annotations_resolve(module):
    # names used in annotations exist at run time (the TYPE_CHECKING-only names are the optional
    # pandas / matplotlib types and the lazily imported CPE instance, supplied here from the test extras as a type checker would see them)
    importlib.import_module(module)
    pd = pytest.importorskip("pandas")
    mpl_axes = pytest.importorskip("matplotlib.axes")
    mpl_figure = pytest.importorskip("matplotlib.figure")
    from boundcalc.cpe.instance import CPEInstance  # imported lazily by the CLI layers

    localns = {"pd": pd, "Axes": mpl_axes.Axes, "Figure": mpl_figure.Figure, "CPEInstance": CPEInstance}
    for q, f in CALLABLES.items():
        if q.startswith(module + "."):
            typing.get_type_hints(f, localns=localns)


# ---------------------------------------------------------------------------------------------
# mypy's configuration (pyproject [tool.mypy]) and the types the public results tell.  No test
# runs mypy (CI does); these check what can be checked at run time, each against the code.


def _mypy_config() -> dict:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    root = Path(boundcalc.__file__).parent.parent
    with open(root / "pyproject.toml", "rb") as fh:
        return tomllib.load(fh)["tool"]["mypy"]


def _strict_modules() -> list[str]:
    cfg = _mypy_config()
    return [m for o in cfg.get("overrides", []) if o.get("disallow_untyped_defs") for m in o["module"]]


def test_mypy_config_states_its_strictness():
    cfg = _mypy_config()
    for flag in (
        "check_untyped_defs",
        "no_implicit_optional",
        "strict_equality",
        "warn_unused_ignores",
        "warn_redundant_casts",
    ):
        assert cfg.get(flag) is True, flag
    # missing stubs are excused per library, never for the whole package
    assert "ignore_missing_imports" not in cfg
    excused = [m for o in cfg["overrides"] if o.get("ignore_missing_imports") for m in o["module"]]
    assert excused and not any(m.startswith("boundcalc") for m in excused)


@pytest.mark.slow
def test_strict_modules_exist_and_every_def_in_them_is_annotated():
    # what disallow_untyped_defs asks of these modules, read from their source: every parameter
    # but self/cls annotated, every return annotated (an __init__ with annotated parameters may omit it)
    import ast

    names = _strict_modules()
    assert "boundcalc.result" in names and "boundcalc.bounds.*" in names
    files = []
    for n in names:
        mods = [
            m
            for m in _public_modules() + [f"boundcalc.{p}" for p in ("_table", "_highs")]
            if m == n or (n.endswith(".*") and m.startswith(n[:-1]))
        ]
        if n == "boundcalc.cpe":
            mods = ["boundcalc.cpe"]
        assert mods, f"{n} in [tool.mypy] names no module"
        files += [Path(importlib.import_module(m).__file__) for m in mods]
    missing = []
    for f in sorted(set(files)):
        for node in ast.walk(ast.parse(f.read_text())):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            a = node.args
            params = [p for p in a.posonlyargs + a.args + a.kwonlyargs if p.arg not in ("self", "cls")]
            params += [p for p in (a.vararg, a.kwarg) if p is not None]
            untyped = [p.arg for p in params if p.annotation is None]
            no_return = node.returns is None and not (node.name == "__init__" and params and not untyped)
            if untyped or no_return:
                missing.append(f"{f.name}:{node.lineno} {node.name}")
    assert not missing, missing


def test_lower_bound_is_typed_ok_when_it_raises():
    # lower_bound(pm).value is a float to a type checker (on_failure="raise" never returns a failed
    # result), and BoundResult | None where "return" passes a failure back
    if not hasattr(typing, "get_overloads"):
        pytest.skip("typing.get_overloads is Python 3.11+")
    from boundcalc.bounds.exact import lower_bound
    from boundcalc.datasets import load_example

    sigs = [inspect.signature(o) for o in typing.get_overloads(lower_bound)]
    assert [s.return_annotation for s in sigs] == ["SolvedBoundResult", "BoundResult"]
    assert sigs[0].parameters["on_failure"].annotation.replace("'", '"') == 'Literal["raise"]'
    r = lower_bound(load_example("table2"))
    assert r.status == "ok" and isinstance(r.value, float) and isinstance(r.winner, int)
    assert round(r.value, 3) == 27.549  # paper 000, Table 2's matrix (the docstring's value)


def test_optional_fields_say_none_where_none_occurs():
    from boundcalc.result import BoundResult, Result
    from boundcalc.uncertainty import BootstrapResult

    assert typing.get_type_hints(Result)["value"] == typing.Optional[float]  # noqa: UP045 (the hint as typing spells it)
    assert typing.get_type_hints(BoundResult)["winner"] == typing.Optional[int]  # noqa: UP045 (the hint as typing spells it)
    assert typing.get_type_hints(BootstrapResult)["structure_differs"] == typing.Optional[float]  # noqa: UP045 (the hint as typing spells it)


def test_bootstrap_summary_when_every_draw_is_tied():
    # structure_differs is None when no draw is untied (uncertainty.py); the summary said
    # "{None:.1%}" and raised TypeError before it was typed Optional
    from boundcalc.uncertainty import BootstrapResult

    stats = {
        "draws": 3,
        "tied_draws": 3,
        "errors": 0,
        "resumed": 0,
        "computed": 3,
        "backend": "in-process",
        "workers": 0,
        "chunk_size": 1,
        "seconds": 0.0,
        "seconds_run": 0.0,
        "seconds_cluster": 0.0,
        "seconds_compute": 0.0,
        "notes": [],
    }
    meta = {"draws": 3, "level": 0.9, "scheme": "resample", "seed": 0, "names": None}
    res = BootstrapResult([], {0: None, 1: None}, None, [], {}, meta, stats, [])
    text = res.summary()
    assert "every resampled draw had a pair at exactly 1/2" in text


def test_best_matching_rejects_a_bool_edge_by_name():
    from boundcalc.cpe import CPEInstance
    from boundcalc.cpe.matchings import best_matching

    inst = CPEInstance.from_matrix([[0.5, 0.7], [0.3, 0.5]])
    with pytest.raises(TypeError, match="include: edge indices must be integers; got True"):
        best_matching(inst, [1.0, 2.0], include=True)
    # unconstrained it is the heavier edge (one position, two candidates: edge 1 weighs 2)
    assert best_matching(inst, [1.0, 2.0]) == (2.0, (1,))
