"""The lean online surface CW-RMED's line 11 uses against the LP core's result
and against scipy:

* ``CopelandLPSolver.solve_online`` gives ``solve_empirical``'s numbers to the last bit (values and
  every winner's allocation) on empirical states with ties, one and several winners (Theorem 6),
  and the same HiGHS runs (two solvers fed the same sequence of structures stay in step); its
  values equal the LP written out with itertools and solved by scipy (``reference_value``);
* ``CoveringLP.add_hashed_rows`` builds the model ``add_rows`` builds (same rows, order,
  de-duplication, HiGHS columns), so both solve to the same point.
"""

from __future__ import annotations

import numpy as np
import pytest
from builders import empirical_state, lp_solver
from test_lp_online import reference_value

from boundcalc.lp import empirical_structure
from boundcalc.lp.constraints import RowBlock, row_hashes
from boundcalc.lp.highs import CoveringLP

STATES = [empirical_state(K, np.random.default_rng(700 + s)) for K in (4, 5, 6) for s in range(8)]


def test_states_cover_ties_and_several_winners():
    sts = [empirical_structure(m) for m in STATES]
    assert sum(s.ties > 0 for s in sts) >= 8 and sum(s.winners.size >= 2 for s in sts) >= 4


@pytest.mark.parametrize("lift", [False, True])
def test_solve_online_is_solve_empirical_and_the_written_out_lp(lift):
    a = lp_solver(seed=0, lift=lift, compiled=True)
    b = lp_solver(seed=0, lift=lift, compiled=True)
    for mu in STATES:  # one sequence of structures for both: warm models, LRU and tie-breaks in step
        st = empirical_structure(mu)
        full = a.solve_empirical(st)
        lean = b.solve_online(st)
        assert full.success and not lean.failures
        assert lean.theorem6 == full.stats["method"].startswith("closed-form")
        assert lean.lp_solves == full.stats["lp_solves"]
        assert lean.per_winner == full.per_winner
        for w in st.winners.tolist():
            assert np.array_equal(lean.allocation(w, st), full.allocations[w])
            assert lean.per_winner[w] == pytest.approx(reference_value(mu, w), rel=1e-7, abs=1e-9)


def test_add_hashed_rows_builds_the_model_add_rows_builds():
    rng = np.random.default_rng(5)
    n = 30
    costs = rng.random(n) + 0.1
    one, two = CoveringLP(costs), CoveringLP(costs)
    for _ in range(6):
        m = int(rng.integers(1, 8))
        rows = [np.sort(rng.choice(n, int(rng.integers(1, 6)), replace=False)) for _ in range(m)]
        rows += rows[:2]  # repeats within a block and across blocks are skipped by both
        starts = np.concatenate([[0], np.cumsum([r.size for r in rows])]).astype(np.int64)
        block = RowBlock(starts, np.concatenate(rows).astype(np.int64), np.zeros(len(rows)))
        h1, h2 = row_hashes(block, n)
        # the compiled builder's arrays are longer than its n rows: padding must be ignored
        pad = lambda a: np.concatenate([a, np.zeros(3, dtype=a.dtype)])  # noqa: E731
        got = two.add_hashed_rows(len(rows), pad(starts), pad(block.idx), pad(h1), pad(h2))
        assert got == one.add_rows(block, (h1, h2))
        x1, x2 = one.solve().x, two.solve().x
        assert np.array_equal(x1, x2)
    assert [r.tolist() for r in one.rows] == [r.tolist() for r in two.rows]
    assert np.array_equal(one._var, two._var) and one.n_rows == two.n_rows
