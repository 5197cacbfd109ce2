"""What the second typing pass changed at run time in the LP core, the policy
protocol and comparison: each narrowing mypy asked for is a clear error or the same behaviour."""

from __future__ import annotations

import numpy as np
import pytest

from boundcalc.comparison import _check_keys
from boundcalc.datasets import load_example
from boundcalc.lp.cutting import pair_costs
from boundcalc.lp.structure import Structure, as_structure, structure_d


def test_a_structure_without_d_is_refused_by_name():
    # Structure(beats) alone has no KL divergences: the costs c = r / d cannot be formed (was a
    # TypeError on None deep in pair_costs)
    st = Structure(np.array([[0, 1, 1], [0, 0, 1], [0, 0, 0]], bool))
    with pytest.raises(ValueError, match="carries no d"):
        structure_d(st)
    with pytest.raises(ValueError, match="carries no d"):
        pair_costs(st)


def test_pair_costs_of_a_matrix_structure_are_r_over_d():
    # hand-worked: c_p = r_p / d(mu_p) with 000's pair regret and d = KL(mu, 1/2) from the matrix
    pm = load_example("table2")
    st = as_structure(pm)
    iu = np.triu_indices(pm.K, 1)
    assert np.allclose(pair_costs(st), st.regret[iu] / structure_d(st)[iu])
    assert structure_d(st) is st.d


def test_as_structure_refuses_a_path():
    with pytest.raises(TypeError, match="got the path 'matrix.json'"):
        as_structure("matrix.json")


def test_duplicate_comparison_keys_are_named_once_each():
    with pytest.raises(ValueError, match=r"\['ecw', 'lower_bound'\] given more than once"):
        _check_keys(["ecw", "lower_bound", "ecw", "lower_bound", "ecw"])


def test_a_compiled_policys_counts_cannot_be_rebound():
    # wins, draws, t and stats read the compiled state (rebinding raised AttributeError before too)
    from boundcalc.policies import make_policy

    p = make_policy("rmed1", 3, seed=0)
    for name, value in (("t", 5), ("wins", np.ones((3, 3))), ("draws", np.ones((3, 3))), ("stats", {})):
        with pytest.raises(AttributeError, match=f"{name} reads the compiled state"):
            setattr(p, name, value)
    assert p.t == 1 and int(p.wins.sum()) == 0
