"""``CompiledPolicy.with_stream`` (the simulator's one-build set-up) is the policy that construction
followed by ``seed_stream`` gives: the same pairs, the same stream, the same ``rng`` state."""

import numpy as np
import pytest

import boundcalc as bc
from boundcalc.policies import PolicyError, get_policy, make_policy
from boundcalc.simulate import checkpoints


@pytest.mark.parametrize("name", ["interleaved-filter", "doubler", "rucb"])
def test_with_stream_is_construction_then_seed_stream(name):
    pm = bc.load_example("mslr5-condorcet")
    cls = get_policy(name)
    a = cls(pm.K, rng=np.random.default_rng(11))
    a.seed_stream(2**64 - 5)
    b = cls.with_stream(pm.K, 2**64 - 5, rng=np.random.default_rng(11))
    assert b.rng.bit_generator.state == a.rng.bit_generator.state
    pa, wa = a.run(pm, 3000, seed=4)
    pb, wb = b.run(pm, 3000, seed=4)
    assert np.array_equal(pa, pb) and np.array_equal(wa, wb)
    b.reset()  # a stream set at construction is not kept by reset, as seed_stream's is not
    a.reset()
    assert np.array_equal(a.run(pm, 500, seed=1)[0], b.run(pm, 500, seed=1)[0])


def test_with_stream_refuses_a_deterministic_policy():
    with pytest.raises(PolicyError, match="deterministic"):
        get_policy("savage").with_stream(3, 1)
    assert make_policy("savage", 3).t == 1


def test_checkpoints_are_a_fresh_copy():
    c = checkpoints(1000, per_decade=2)
    c[0] = 99
    assert checkpoints(1000, per_decade=2).tolist() == [1, 3, 10, 32, 100, 316, 1000]
    assert checkpoints(1000, per_decade=2).flags.writeable
