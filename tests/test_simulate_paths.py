"""An in-process simulation without a row file computes its rows itself (boundcalc.simulate, module
text, Execution); through the runner (a row file, JSON rows read back) the same call gives the same
numbers, bit for bit, and a spare environment refilled for a run is the one a new run builds."""

from __future__ import annotations

import numpy as np
import pytest

import boundcalc.simulate as sim
from boundcalc.datasets import load_example
from boundcalc.matrix import PreferenceMatrix
from boundcalc.simulate import regret_matrices, simulate

POLICIES = ["interleaved-filter", "rucb", "sparring", "savage"]


def same_result(a: sim.SimulationResult, b: sim.SimulationResult) -> None:
    assert a.units == b.units and np.array_equal(a.checkpoints, b.checkpoints)
    for p, q in zip(a.policies, b.policies, strict=True):
        assert (p.label, p.params, p.revision, p.steps, p.kernel) == (q.label, q.params, q.revision, q.steps, q.kernel)
        assert p.stats == q.stats
        for u in a.units:
            assert p.regret[u].dtype == q.regret[u].dtype == np.float64
            assert np.array_equal(p.regret[u], q.regret[u]), (p.label, u)


@pytest.mark.parametrize(
    ("seed", "options"),
    [(0, {}), (7, {"crn": False, "shuffle": True}), (3, {"first_run": 2, "fast": False})],
)
def test_in_process_rows_are_the_runners(tmp_path, monkeypatch, seed, options):
    pm = load_example("mslr5-condorcet")
    taken = []
    real = sim._rows_in_process
    monkeypatch.setattr(sim, "_rows_in_process", lambda tasks, shared: taken.append(len(tasks)) or real(tasks, shared))
    kw = {"horizon": 1500, "runs": 2, "seed": seed, "bounds": False, "progress": False, **options}
    here = simulate(pm, POLICIES, **kw)
    assert taken == [2 * len(POLICIES)]  # the in-process path, not the runner
    again = simulate(pm, POLICIES, **kw)  # spare environments refilled
    stored = simulate(pm, POLICIES, out=tmp_path / "runs.jsonl", **kw)  # the runner, JSON rows
    resumed = simulate(pm, POLICIES, out=tmp_path / "runs.jsonl", **kw)  # the rows read back from the file
    assert taken == [2 * len(POLICIES)] * 2
    assert stored.runner_stats["computed"] == 2 * len(POLICIES) and resumed.runner_stats["resumed"] == 2 * len(POLICIES)
    assert here.runner_stats["backend"] == "in-process" and here.runner_stats["computed"] == 2 * len(POLICIES)
    for other in (again, stored, resumed):
        same_result(here, other)


def test_a_run_on_another_matrix_leaves_a_matrix_s_next_simulation_unchanged():
    """Simulations of two matrices of the same size in one process: the first matrix simulated again
    after the second gives its numbers bit for bit (a run's environment holds its own copies of the
    regrets, never the simulator's cached regret stack it was built from)."""
    first = load_example("table2")
    other = PreferenceMatrix([[0.5, 0.3, 0.6, 0.7], [0.7, 0.5, 0.6, 0.55], [0.4, 0.4, 0.5, 0.8], [0.3, 0.45, 0.2, 0.5]])
    assert (first.condorcet_winner is None) == (other.condorcet_winner is None)  # the same units
    kw = {"horizon": 400, "runs": 2, "bounds": False, "progress": False}
    before = simulate(first, ["rmed1"], **kw)
    simulate(other, ["rmed1"], **kw)
    again = simulate(first, ["rmed1"], **kw)
    same_result(before, again)
    assert not np.array_equal(regret_matrices(first)["000"], regret_matrices(other)["000"])
