"""Every docstring example in the package runs (networkx's habit: each documented function
carries a tiny example that must stay true)."""

import doctest
import importlib
import pkgutil

import pytest

import boundcalc

# (boundcalc.__main__ runs the command on import)
MODULES = sorted(m.name for m in pkgutil.walk_packages(boundcalc.__path__, "boundcalc.") if not m.name.endswith("__main__"))


@pytest.mark.parametrize("name", MODULES)
def test_module_doctests(name):
    mod = importlib.import_module(name)
    res = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    assert res.failed == 0, f"{res.failed} doctest(s) failed in {name}"
