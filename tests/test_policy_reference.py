"""Every compiled policy against the plain transcription of its paper's algorithm, pair for pair.

The transcriptions (``tests/reference_policies.py``) are the step-by-step Python classes written
from the papers; the compiled policies (:mod:`boundcalc.policies`) are the package's, each written
once as compiled step functions.  Both are driven on the same duel outcomes (the simulator's
counter-based stream) and must choose the same pair at every round -- for the randomized ones with
the transcription drawing from the same policy stream, in pure Python.  The whole-run kernel is
checked against the protocol path too (``simulate``'s two paths give the same numbers).

The pure-Python stream equals the compiled one number for number, and the compiled one has the
distributions it claims (``tests/test_policies_dts.py``).
"""

from __future__ import annotations

import numpy as np
import pytest
import reference_policies as ref
from numba import njit
from reference_policies import REFERENCE, drive_both

from boundcalc.datasets import load_example, random_matrix
from boundcalc.kernels import stats as kstats
from boundcalc.lp.rule import LIFTED_MIN_ARMS
from boundcalc.policies import get_policy, policy_names
from boundcalc.simulate import checkpoints, regret_matrices, run_one

# rounds per case in the long (slow) run: the transcriptions cost 0.1-1 ms a round
ROUNDS = {"cw-rmed": 1500, "dts": 1500, "dts+": 1500}


def test_every_policy_has_a_transcription():
    assert set(REFERENCE) == set(policy_names())


def _cases(name):
    rng = np.random.default_rng(sum(map(ord, name)))
    cases = [load_example("table2"), load_example("mslr5-condorcet"), load_example("arithmetic8")]
    # mslr5-noncondorcet: degenerate LPs from the start; CW-RMED's revision 3 (perturbed line-11
    # costs) makes its vertex one whatever the solve path, so its transcription agrees there too
    cases.append(load_example("mslr5-noncondorcet"))
    cases += [
        random_matrix(int(K), rng, min_gap=0.02, condorcet=bool(c))
        for K, c in zip(rng.integers(2, 7, size=3), [0, 1, 0])
    ]
    return cases


def _check_cases(name, cases, T):
    for k, pm in cases:
        params = {"alpha": 1.0, "beta": 0.2} if name == "ecw-rmed" and k % 2 else {}
        first, p, r = drive_both(name, pm, T, seed=k, params=params)
        assert first is None, f"{name} on case {k} (K = {pm.K}): pairs differ at round {first}"
        assert np.array_equal(p.wins, r.wins) and p.t == r.t == T + 1
        shared = {key: v for key, v in p.stats.items() if key in r.stats and key != "lp_solves"}
        assert shared == {key: r.stats[key] for key in shared}


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_compiled_policy_equals_its_transcription(name):
    """The same pairs, round for round, and the same counts and statistics at the end (CW-RMED: the
    transcription's counters are a subset), on Table 2, a 5-arm MSLR matrix and a random one, 500
    rounds each (the long run below: more matrices, K = 2..8, 1,500-3,000 rounds)."""
    cases = list(enumerate(_cases(name)))
    _check_cases(name, [cases[0], cases[1], cases[-1]], 500)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_compiled_policy_equals_its_transcription_long(name):
    _check_cases(name, list(enumerate(_cases(name))), ROUNDS.get(name, 3000))


def test_pure_python_stream_equals_the_compiled_stream():
    """:class:`reference_policies.Stream` and the compiled stream functions give the same numbers:
    uniforms, indices, normals (with the Box-Muller spare), gammas and betas, interleaved."""
    st = np.array([12345], dtype=np.uint64)
    spare = np.zeros(2)
    s = ref.Stream(12345)
    rng = np.random.default_rng(0)
    for _ in range(3000):
        kind = int(rng.integers(5))
        if kind == 0:
            assert kstats.stream_uniform(st) == s.uniform()
        elif kind == 1:
            n = int(rng.integers(1, 50))
            assert kstats.stream_index(st, n) == s.index(n)
        elif kind == 2:
            assert kstats.stream_normal(st, spare) == s.normal()
        elif kind == 3:
            a = float(rng.integers(1, 30))
            assert kstats.stream_gamma(st, spare, a) == s.gamma(a)
        else:
            a, b = float(rng.integers(1, 30)), float(rng.integers(1, 30))
            assert kstats.stream_beta(st, spare, a, b) == s.beta(a, b)
        assert int(st[0]) == s.state


@njit
def _held_draws(st, spare, kinds, params, ends, out):
    """The draws ``kinds`` (0 uniform, 1 index, 2 normal, 3 gamma, 4 beta; ``params`` their
    arguments) from a register-held stream, loaded at each block start and stored at each block
    end (``ends``); ``out[k]`` the k-th draw."""
    k = 0
    for e in ends:
        g = kstats.held_stream(st, spare)
        while k < e:
            kind = kinds[k]
            if kind == 0:
                g, x = kstats.held_uniform(g)
            elif kind == 1:
                g, q = kstats.held_index(g, int(params[k, 0]))
                x = float(q)
            elif kind == 2:
                g, x = kstats.held_normal(g)
            elif kind == 3:
                g, x = kstats.held_gamma(g, params[k, 0])
            else:
                g, x = kstats.held_beta(g, params[k, 0], params[k, 1])
            out[k] = x
            k += 1
        kstats.store_stream(g, st, spare)


def test_register_held_stream_equals_the_pure_python_stream():
    """The register-held draws D-TS makes a round at a time (``held_*``: loaded once, stored once)
    give :class:`reference_policies.Stream`'s numbers, and the stored arrays hold its state and
    its Box-Muller spare: the array forms draw on from them as the reference does."""
    rng = np.random.default_rng(1)
    n = 3000
    kinds = rng.integers(5, size=n)
    params = np.column_stack([rng.integers(1, 3000, n), rng.integers(1, 30, n)]).astype(float)
    params[kinds == 1, 0] = rng.integers(1, 50, int(np.sum(kinds == 1)))
    ends = np.unique(np.append(rng.integers(1, n, 60), n))
    st = np.array([987654321], dtype=np.uint64)
    spare = np.zeros(2)
    out = np.empty(n)
    _held_draws(st, spare, kinds, params, ends, out)
    s = ref.Stream(987654321)
    draw = [s.uniform, lambda p: s.index(int(p[0])), s.normal, lambda p: s.gamma(p[0]), lambda p: s.beta(p[0], p[1])]
    for k in range(n):
        want = draw[kinds[k]]() if kinds[k] in (0, 2) else draw[kinds[k]](params[k])
        assert out[k] == want, k
    assert int(st[0]) == s.state and bool(spare[0]) == (s.spare is not None)
    assert kstats.stream_normal(st, spare) == s.normal()
    assert kstats.stream_beta(st, spare, 7.0, 300.0) == s.beta(7.0, 300.0)


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_whole_run_kernel_equals_the_protocol(name):
    """``simulate``'s compiled path (the policy's whole-run kernel) and its protocol path
    (``select_pair``/``update`` from Python) give the same regret and statistics."""
    for k, pm in enumerate([load_example("table2"), random_matrix(5, 3, min_gap=0.02)]):
        regs = regret_matrices(pm)
        R = np.stack([regs[u] for u in ("000", "nonwinner")])
        T = 600
        cps = checkpoints(T, per_decade=20)
        params = get_policy(name).validate_params({})
        a = run_one(name, params, pm.mu, T, cps, R, seed=k, run=0, fast=True)
        b = run_one(name, params, pm.mu, T, cps, R, seed=k, run=0, fast=False)
        assert a["kernel"] and not b["kernel"]
        assert np.array_equal(a["regret"], b["regret"]) and a["stats"] == b["stats"]


def test_cw_rmed_on_the_lifted_model_equals_its_transcription():
    """From ``boundcalc.lp.rule.LIFTED_MIN_ARMS`` arms CW-RMED's line 11 runs on the lifted model, re-solved by HiGHS
    (no basis test): the same pairs as the transcription, round for round, through the LP phase."""
    K = LIFTED_MIN_ARMS
    pm = random_matrix(K, np.random.default_rng(7), min_gap=0.02)
    first, p, r = drive_both("cw-rmed", pm, 700, seed=7)
    assert first is None, f"pairs differ at round {first}"
    assert p.stats["solves"] > p.stats["warm_answers"] + p.stats["theorem6"]  # HiGHS answered line 11
