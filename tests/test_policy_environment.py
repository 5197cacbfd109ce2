"""The user-loop helpers exported by ``boundcalc.policies``: the matrix environment draws what
``Policy.run`` draws, and the regret accumulator sums the papers' per-round regrets (checked by hand)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import boundcalc as bc
from boundcalc.policies import REGRET_UNITS, PreferenceEnvironment, RegretMeter, make_policy, matrix_duel


def test_the_environment_draws_what_run_draws():
    pm = bc.load_example("mslr5-noncondorcet")
    pairs, won = make_policy("rucb", pm.K, seed=4).run(pm, 500, seed=9)  # the compiled kernel's stream
    env = PreferenceEnvironment(pm, seed=9)
    assert [env.duel(int(i), int(j)) for i, j in pairs] == won.tolist()
    assert sum(env.draws_of(i, j) for i in range(pm.K) for j in range(i, pm.K)) == 500
    again = matrix_duel(pm.mu, seed=9)
    assert [again(int(i), int(j)) for i, j in pairs] == won.tolist()


def test_the_environment_follows_the_matrix():
    mu = np.array([[0.5, 1.0], [0.0, 0.5]])
    env = PreferenceEnvironment(mu)
    assert env.duel(0, 1) and not env.duel(1, 0) and env.draws_of(1, 0) == 2
    with pytest.raises(ValueError, match="arms must lie in"):
        env.duel(0, 2)
    with pytest.raises(ValueError, match=r"entries must lie in \[0, 1\]"):
        PreferenceEnvironment(mu * 2)


def test_regret_by_hand_on_table2():
    """000 Table 2: arm 0 beats every arm (0.6); arms 1-3 form a cycle, each losing to 0 and to one
    other arm: Copeland losses L = (0, 2, 2, 2), so 000's r_ij = (L_i + L_j) / (2 (K - 1)) = (L_i +
    L_j) / 6; the Condorcet winner 0 gives RMED's (Delta_0i + Delta_0j) / 2 with Delta_0j = 0.1."""
    pm = bc.load_example("table2")
    meter = RegretMeter(pm)
    for i, j in [(0, 0), (0, 1), (1, 2), (3, 3)]:
        meter.add(i, j)
    want_000 = 0 + 2 / 6 + 4 / 6 + 4 / 6
    assert meter.t == 4 and meter.total() == pytest.approx(want_000, rel=1e-15)
    assert meter.total("001") == meter.total(REGRET_UNITS["000"]) == meter.total("000")
    assert meter.total("002") == pytest.approx(2 * want_000, rel=1e-15)
    assert meter.total("rmed") == pytest.approx(0 + 0.05 + 0.1 + 0.1, rel=1e-12)
    assert meter.per_ln_t() == pytest.approx(want_000 / math.log(4), rel=1e-15)


def test_regret_units_refused_with_a_reason():
    meter = RegretMeter(bc.load_example("mslr5-noncondorcet").mu)
    assert meter.units == ["000", "001", "002"]
    with pytest.raises(ValueError, match="needs a Condorcet winner"):
        meter.total("rmed")
    with pytest.raises(ValueError, match="unknown regret unit"):
        meter.total("furlongs")
    assert math.isnan(meter.per_ln_t())
