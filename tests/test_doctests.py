"""Every module of the package carries docstring examples, and they all run (networkx's habit:
each documented function carries a tiny example that must stay true).

A module that defines functions or classes must have at least one example, unless it is listed
in ``WITHOUT_EXAMPLES`` with the reason; a module that only re-exports (a package namespace)
has nothing of its own to show.  The harness itself is checked on a module with a wrong example.
"""

import doctest
import importlib
import inspect
import pkgutil
import types

import pytest

import boundcalc

FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS

# Modules that define code but carry no example, and why.  Keep this short: an example is the
# cheapest test a reader can check by eye.
WITHOUT_EXAMPLES = {
    "boundcalc.cli": "the command line: tested through main() and a real process in test_cli.py",
    "boundcalc.lp.full": "the enumeration reference LP (cvxpy/Clarabel): checked against the cutting plane in test_lp.py",
}

# (boundcalc.__main__ runs the command on import)
MODULES = ["boundcalc"] + sorted(
    m.name for m in pkgutil.walk_packages(boundcalc.__path__, "boundcalc.") if not m.name.endswith("__main__")
)


def defines_code(mod: types.ModuleType) -> bool:
    """Whether the module defines a function or class of its own (not only re-exports)."""
    return any(
        (inspect.isfunction(v) or inspect.isclass(v)) and v.__module__ == mod.__name__ for v in vars(mod).values()
    )


def n_examples(mod: types.ModuleType) -> int:
    return sum(len(t.examples) for t in doctest.DocTestFinder().find(mod))


@pytest.mark.parametrize("name", MODULES)
def test_module_has_examples_and_they_pass(name):
    mod = importlib.import_module(name)
    n = n_examples(mod)
    if n == 0:
        assert name in WITHOUT_EXAMPLES or not defines_code(mod), (
            f"{name} defines functions or classes but has no docstring example; add one (or list it in"
            " WITHOUT_EXAMPLES with the reason)"
        )
        return
    res = doctest.testmod(mod, optionflags=FLAGS)
    assert res.attempted == n, f"{name}: {n} examples found, {res.attempted} run"
    assert res.failed == 0, f"{res.failed} of {n} doctest example(s) failed in {name}"


@pytest.mark.parametrize("name", sorted(WITHOUT_EXAMPLES))
def test_exemptions_name_modules_that_define_code(name):
    # an exempt module that gains examples has them run like any other's (no failure: its owner
    # may land examples before this list is edited); a renamed or emptied module must leave the list
    assert name in MODULES, f"{name} is listed in WITHOUT_EXAMPLES but is no module of the package"
    assert defines_code(importlib.import_module(name)), f"{name} defines nothing: remove it from WITHOUT_EXAMPLES"


def test_harness_fails_on_a_wrong_example_and_counts_examples():
    mod = types.ModuleType("fake_module")
    exec(
        '''"""Module docstring.

>>> 1 + 1
3
>>> "ok"
'ok'
"""
from math import sqrt


def f():
    """>>> 2 * 3
    6
    """
''',
        mod.__dict__,
    )
    assert n_examples(mod) == 3 and defines_code(mod)
    res = doctest.testmod(mod, optionflags=FLAGS, report=False)
    assert (res.attempted, res.failed) == (3, 1)
    # a namespace that only imports (here: sqrt) defines nothing; one function without an example does
    ns = types.ModuleType("namespace_module")
    exec("from math import sqrt\n", ns.__dict__)
    assert not defines_code(ns) and n_examples(ns) == 0
    exec("def g():\n    return 1\n", ns.__dict__)
    assert defines_code(ns) and n_examples(ns) == 0
