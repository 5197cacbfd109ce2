"""``Policy.run`` on a matrix: one compiled call that plays what the Python step loop plays.

The reference is the protocol itself: a fresh policy driven step by step (``select_pair`` /
``update``) against :func:`boundcalc.policies.base.matrix_duel`, the pure-Python duel stream
(:func:`boundcalc.kernels.stats.duel_uniform_py`, tested against the compiled one in
``tests/test_policies.py``).  Speed is measured in ``benchmarks/startup.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

from boundcalc.datasets import load_example, random_matrix
from boundcalc.policies import POLICIES, make_policy
from boundcalc.policies.base import matrix_duel

CASES = [("table2", load_example("table2").mu, 400), ("random6", random_matrix(6, 3).mu, 300)]


def _step_loop(name: str, mu: np.ndarray, steps: int, seed: int):
    p = make_policy(name, mu.shape[0], rng=np.random.default_rng(1))
    duel = matrix_duel(mu, seed)
    pairs, won = [], []
    for _ in range(steps):
        i, j = p.select_pair()
        w = duel(i, j)
        p.update(i, j, w)
        pairs.append((i, j))
        won.append(w)
    return p, np.array(pairs), np.array(won)


@pytest.mark.parametrize("name", sorted(POLICIES))
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_run_on_a_matrix_plays_the_step_loop(name, case):
    _, mu, steps = case
    ref, pairs, won = _step_loop(name, mu, steps, seed=7)
    p = make_policy(name, mu.shape[0], rng=np.random.default_rng(1))
    got_pairs, got_won = p.run(mu, steps, seed=7)
    assert got_pairs.tolist() == pairs.tolist() and got_won.tolist() == won.tolist()
    assert p.t == ref.t == steps + 1 and np.array_equal(p.wins, ref.wins) and p.stats == ref.stats
    more = p.run(mu, 50, seed=8)[0]  # a second call continues the same policy (a new duel stream)
    assert p.t == steps + 51 and more.shape == (50, 2)


def test_matrix_duel_draws_the_matrix():
    # the duel stream's frequencies match mu (10,000 duels of one pair: 4 standard errors)
    mu = np.array([[0.5, 0.7], [0.3, 0.5]])
    duel = matrix_duel(mu, 3)
    wins = sum(duel(0, 1) for _ in range(10_000))
    assert abs(wins / 10_000 - 0.7) < 4 * np.sqrt(0.21 / 10_000)


def test_run_refuses_a_matrix_of_another_size():
    p = make_policy("rmed1", 3)
    with pytest.raises(ValueError, match="3 x 3 preference matrix"):
        p.run(np.full((4, 4), 0.5), 10)
    with pytest.raises(ValueError, match="steps"):
        p.run(np.full((3, 3), 0.5), -1)
