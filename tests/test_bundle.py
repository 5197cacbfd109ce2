"""The state bundle built in Python (:func:`boundcalc.kernels.policy.bundle`): compiled code reads and
writes the namedtuple's own arrays through it, the handle keeps them alive, and a state that is not a
namedtuple of numpy arrays is refused by name."""

import gc
from collections import namedtuple

import numpy as np
import pytest

from boundcalc.kernels.policy import bundle, count, new_env, play
from boundcalc.kernels.stats import duel_uniform_py

S = namedtuple("S", ["W", "N", "reg"])


def _state(K):
    return S(np.zeros((K, K), dtype=np.int64), np.zeros((K, K), dtype=np.int64), np.array([1, 7], dtype=np.int64))


def test_compiled_code_writes_the_namedtuples_arrays():
    s = _state(3)
    b = bundle(s)
    count(b, 0, 2, True)  # W[0, 2] and both N entries, by hand
    count(b, 2, 1, False)  # i lost: W[1, 2]
    count(b, 1, 1, True)  # a self-duel counts nothing
    W = np.zeros((3, 3), dtype=np.int64)
    W[0, 2] = W[1, 2] = 1
    N = np.zeros((3, 3), dtype=np.int64)
    N[0, 2] = N[2, 0] = N[1, 2] = N[2, 1] = 1
    assert (s.W == W).all() and (s.N == N).all() and s.reg.tolist() == [1, 7]


def test_the_handle_keeps_the_arrays_alive():
    b = bundle(_state(4))  # no other reference to the namedtuple or its arrays
    gc.collect()
    for _ in range(5):
        count(b, 3, 0, True)
    assert b._arrays.W[3, 0] == 5 and b._arrays.N[0, 3] == 5 and b._arrays.N.sum() == 10


def test_an_environment_bundle_plays_the_duel_stream():
    # one round of (0, 1) at t = 1, checkpoint 1: arm 0 wins iff its uniform is below mu[0, 1]
    mu = np.array([[0.5, 0.7], [0.3, 0.5]])
    regrets = np.array([[[0.0, 0.25], [0.25, 0.5]]])
    arrays, env = new_env(mu, 1, 11, 22, np.array([1]), regrets, log=True)
    won = play(env, 0, 1)
    assert won == (duel_uniform_py(11, 22, 0 * 2 + 1, 0) < 0.7)
    assert arrays.out.tolist() == [[0.25]] and arrays.reg.tolist() == [2, 1, 1]
    assert arrays.log.tolist() == [[0, 1, int(won)]] and arrays.counts.tolist() == [0, 1, 0, 0]


@pytest.mark.parametrize(
    "value, word",
    [((np.zeros(2),), "UniTuple"), (S(np.zeros((2, 2)), np.zeros((2, 2)), 3), "int64"), (S(1, 2, object()), "S")],
)
def test_a_state_of_other_than_arrays_is_refused_by_name(value, word):
    with pytest.raises(TypeError, match="namedtuple of numpy arrays") as info:
        bundle(value)
    assert word in str(info.value)
