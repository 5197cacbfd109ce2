"""The step API a researcher drives by hand: fresh entropy with a recorded seed, ``recommend()``,
``reset()`` (boundcalc.policies.base.Policy, registry.make_policy).

Independent checks: a replay from the recorded seed gives the same pairs on the same outcomes;
``recommend()`` equals a brute-force Copeland count written here from the definition, and names
Table 2's Copeland winner (arm 0, 000 Table 2) after a long run; a reset policy plays as a policy
built anew on the same generator state.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from boundcalc.datasets import load_example
from boundcalc.policies import make_policy, policy_names

TABLE2 = load_example("table2").mu


def play(policy, steps: int, seed: int = 11) -> list[tuple[int, int]]:
    """``steps`` duels on Table 2 with outcomes from a stream of their own (same seed, same outcomes)."""
    env = np.random.default_rng(seed)
    pairs = []
    for _ in range(steps):
        i, j = policy.select_pair()
        policy.update(i, j, env.random() < TABLE2[i, j])
        pairs.append((i, j))
    return pairs


def brute_copeland_winner(W: np.ndarray) -> int:
    """Highest number of empirical wins (mu_hat > 1/2, undrawn = tie), then highest row sum of
    mu_hat, then lowest index: the rule of Policy.recommend, counted pair by pair."""
    K = W.shape[0]
    best = None
    for i in range(K):
        score, strength = 0, 0.5
        for j in range(K):
            if j == i:
                continue
            n = W[i, j] + W[j, i]
            m = W[i, j] / n if n else 0.5
            score += m > 0.5
            strength += m
        key = (-score, -strength, i)
        best = key if best is None or key < best else best
    return best[2]


@pytest.mark.parametrize("name", policy_names())
def test_fresh_entropy_and_a_recorded_seed(name):
    a, b = make_policy(name, 4), make_policy(name, 4)
    assert isinstance(a.seed, int) and isinstance(b.seed, int) and a.seed != b.seed
    replay = make_policy(name, 4, seed=a.seed)
    assert replay.seed == a.seed
    assert play(replay, 300) == play(a, 300)
    assert make_policy(name, 4, rng=np.random.default_rng(0)).seed is None  # a caller's generator


def test_randomized_policies_built_in_a_loop_draw_their_own_streams():
    """D-TS draws a Beta sample per pair and round: two policies without rng on the same outcomes
    part within 300 rounds (before fresh entropy, both drew default_rng(0)'s stream: the same pairs)."""
    a, b = make_policy("dts", 4), make_policy("dts", 4)
    assert play(a, 300) != play(b, 300)


def test_rng_and_seed_are_exclusive_and_seed_is_checked():
    with pytest.raises(ValueError, match="rng or seed, not both"):
        make_policy("rmed1", 4, rng=np.random.default_rng(0), seed=0)
    for bad in (-1, 1.5, "3", True):
        with pytest.raises(ValueError, match="seed ="):
            make_policy("rmed1", 4, seed=bad)


@pytest.mark.parametrize("name", policy_names())
def test_recommend_is_the_empirical_copeland_winner(name):
    p = make_policy(name, 4, seed=3)
    assert p.recommend() == 0  # no duel yet: every arm ties
    env = np.random.default_rng(5)
    for step in range(1, 2001):
        i, j = p.select_pair()
        p.update(i, j, env.random() < TABLE2[i, j])
        if step % 97 == 0:
            assert p.recommend() == brute_copeland_winner(np.asarray(p.wins)), step


def test_recommend_finds_table2_copeland_winner():
    """000 Table 2: arm 0 beats every other arm (L = [0, 2, 2, 2]); after 20,000 duels ECW-RMED names it."""
    p = make_policy("ecw-rmed", 4, seed=0)
    play(p, 20_000)
    assert p.recommend() == 0


@pytest.mark.parametrize("name", policy_names())
def test_reset_plays_as_a_policy_built_anew(name):
    p = make_policy(name, 4, seed=7)
    play(p, 400, seed=1)
    state = copy.deepcopy(p.rng)
    p.reset()
    assert p.t == 1 and not np.asarray(p.wins).any() and not np.asarray(p.draws).any()
    assert p.stats == make_policy(name, 4, seed=7).stats and p.seed == 7  # counters as built
    fresh = make_policy(name, 4, rng=state)
    assert play(p, 400, seed=2) == play(fresh, 400, seed=2)


def test_reset_drops_a_pending_pair():
    p = make_policy("rmed1", 4, seed=0)
    p.select_pair()
    p.reset()
    p.select_pair()  # no "called twice" error


def test_recommend_breaks_ties_by_strength_then_index():
    """A cycle (every arm one empirical win): the larger row sum of mu_hat wins (1.5, 1.75, 1.25)."""
    W = np.array([[0, 3, 1], [1, 0, 4], [3, 0, 0]])
    assert brute_copeland_winner(W) == 1
    p = make_policy("rmed1", 3, seed=0)
    p.wins[:] = W
    p.draws[:] = W + W.T
    assert p.recommend() == 1
