"""Seeded runs of paper 004's algorithms, oracle calls and sampler draws, recorded from the numpy
implementation that preceded the compiled loops (``boundcalc.kernels.cpe``).

``tests/data/cpe_recorded.json`` holds what that implementation returned (commit eccb83b of
``main``, recorded with ``PYTHONPATH=<a checkout of it> python tests/cpe_recorded.py --write``):
for every case below the matching, duel count, stop, trace and statistics of a run and the
SHA-256 of its whole duel sequence ``(e, f, outcome)``; the Condorcet oracle's value and points
(as hexadecimal floats) and statistics; the sampler's draws and the generator state after them.
``tests/test_cpe_algorithms.py::test_runs_equal_the_recorded_numpy_runs`` and its companions
replay every case with the installed package and compare, bit for bit.

Instances are built from explicit edge lists and matrices (or 004's bundled example), so the
recording and the replay construct the same objects with either version of the package.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
from pathlib import Path

import numpy as np

PATH = Path(__file__).resolve().parent / "data" / "cpe_recorded.json"

ONE_MATRIX = [[0.5, 0.8, 0.9], [0.2, 0.5, 0.7], [0.1, 0.3, 0.5]]
TWO_EDGES = [("a", "s1"), ("b", "s1"), ("b", "s2"), ("c", "s2"), ("d", "s2")]
TWO_MATRIX = [
    [0.5, 0.85, 0, 0, 0],
    [0.15, 0.5, 0, 0, 0],
    [0, 0, 0.5, 0.2, 0.25],
    [0, 0, 0.8, 0.5, 0.7],
    [0, 0, 0.75, 0.3, 0.5],
]


def planted_edges(l: int, seed: int):
    """``l`` positions, ``l + 2`` candidates, 2-3 per position, a planted
    winner that beats every other candidate of its position by ``1/2 + U(0.05, 0.2)``; returns
    ``(edges, edge matrix)`` with edges grouped by position."""
    rng = np.random.default_rng(seed)
    n = l + 2
    planted = rng.permutation(n)[:l]
    edges, blocks = [], []
    for j in range(l):
        others = [int(c) for c in rng.permutation(n) if c != planted[j]][: int(rng.integers(1, 3))]
        cands = [int(planted[j])] + others
        k = len(cands)
        P = np.full((k, k), 0.5)
        for a in range(k):
            for b in range(a + 1, k):
                p = 0.5 + rng.uniform(0.05, 0.2) if a == 0 else rng.uniform(0.2, 0.8)
                P[a, b], P[b, a] = p, 1 - p
        order = np.argsort(cands)
        edges += [(f"c{cands[i]}", f"s{j:02d}") for i in order]
        blocks.append(P[np.ix_(order, order)])
    m = len(edges)
    E = np.zeros((m, m))
    o = 0
    for B in blocks:
        E[o : o + len(B), o : o + len(B)] = B
        o += len(B)
    return edges, E.tolist()


def instance(cpe, name: str):
    """The named instance built with the package ``cpe`` (``boundcalc.cpe`` of either version)."""
    if name == "example":
        return cpe.load_cpe_example()
    if name == "one":
        return cpe.CPEInstance.from_matrix(ONE_MATRIX, name="one3")
    if name == "two":
        return cpe.CPEInstance.from_edge_matrix(TWO_EDGES, TWO_MATRIX, name="two")
    if name.startswith("planted"):  # planted<l>-<seed>
        l, seed = (int(x) for x in name[len("planted") :].split("-"))
        return cpe.CPEInstance.from_edge_matrix(*planted_edges(l, seed), name=name)
    if name.startswith("wide"):
        return cpe.CPEInstance.from_edge_matrix(*wide_edges(int(name[len("wide") :])), name=name)
    raise ValueError(name)


def wide_edges(seed: int):
    """15 positions, each with 4 candidates of its own and one shared by a group of 3 positions:
    112^5 (about 1.8e10, more than 2^32) maximum matchings; random preferences."""
    rng = np.random.default_rng(seed)
    edges, blocks = [], []
    for j in range(15):
        cands = [f"c{4 * j + i:02d}" for i in range(4)] + [f"g{j // 3}"]
        edges += [(c, f"s{j:02d}") for c in cands]
        U = rng.uniform(0.05, 0.95, (5, 5))
        B = np.triu(U, 1) + np.tril(1 - U.T, -1)
        np.fill_diagonal(B, 0.5)
        blocks.append(B)
    E = np.zeros((75, 75))
    for j, B in enumerate(blocks):
        E[5 * j : 5 * j + 5, 5 * j : 5 * j + 5] = B
    return edges, E.tolist()


# (algorithm, instance, delta, keyword arguments, seeds)
RUNS = [
    ("clucb_borda_pac", "example", 0.05, {"epsilon": 0.05}, (0, 1)),
    ("clucb_borda_pac", "two", 0.05, {"epsilon": 0.05}, (0, 1, 2)),
    ("clucb_borda_pac", "planted9-4", 0.05, {"epsilon": 0.1, "max_duels": 6000}, (0,)),
    ("clucb_borda_exact", "one", 0.05, {}, (0,)),
    ("clucb_borda_exact", "two", 0.05, {"max_duels": 7000}, (1,)),
    ("car_cond", "one", 0.05, {}, (0, 1)),
    ("car_cond", "two", 0.05, {}, (0, 1, 2)),
    ("car_cond", "example", 0.05, {}, (0, 1)),
    ("car_cond", "planted3-0", 0.05, {}, (0,)),
    ("car_cond", "planted5-2", 0.05, {"max_duels": 12000}, (0,)),
    ("car_verify", "two", 0.01, {}, (0, 1)),
    ("car_verify", "example", 0.05, {}, (0,)),
    ("car_verify", "planted3-0", 0.05, {}, (1,)),
    ("car_parallel", "two", 0.05, {}, (0, 1)),
    ("car_parallel", "example", 0.01, {"max_duels": 12000}, (0,)),
    ("car_parallel", "planted3-0", 0.05, {}, (0,)),
]

# (instance, n, seeds): MatchingSampler(inst, method="exact").sample_many(n, rng), three times per seed
SAMPLES = [("example", 256, (0, 1)), ("two", 100, (2,)), ("planted9-4", 256, (3,)), ("wide0", 64, (4,))]

#: Random Condorcet-oracle calls (tests/builders.random_cpe_instance is not used: the recording
#: must not depend on the package version's test helpers).
ORACLE_SEEDS = range(60)


def _canon(x):
    """JSON-ready form with exact floats (hex) and infinities kept."""
    if isinstance(x, dict):
        return {str(k): _canon(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_canon(v) for v in x]
    if isinstance(x, np.ndarray):
        return _canon(x.tolist())
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        return float(x).hex()
    return x


def _digest(rows) -> str:
    """SHA-256 of an integer table (a duel sequence ``(e, f, outcome)``, or drawn matchings)."""
    return hashlib.sha256(np.ascontiguousarray(rows, dtype=np.int64).tobytes()).hexdigest()


def run_case(alg, expl, cpe, name: str, inst, delta: float, kw: dict, seed: int) -> dict:
    """One seeded run with the modules of either version (``inst`` an instance or its name
    here); its record (the duel sequence hashed)."""
    inst = instance(cpe, inst) if isinstance(inst, str) else inst
    log: list = []
    if name.startswith("clucb"):
        r = getattr(alg, name)(inst, delta, rng=seed, duel_log=log, **kw)
    else:

        class Logged(expl.DuelOracle):
            def duel(self, e, f):
                x = super().duel(e, f)
                log.append((int(e), int(f), bool(x)))
                return x

        saved = alg.DuelOracle
        alg.DuelOracle = Logged
        try:
            r = getattr(alg, name)(inst, delta, rng=seed, **kw)
        finally:
            alg.DuelOracle = saved
    return _canon(
        {
            "matching": r.matching,
            "n_duels": r.n_duels,
            "stopped": r.stopped,
            "stats": r.stats,
            "trace": [(d.t, d.edge, d.action, d.epoch) for d in r.trace],
            "duels": len(log),
            "duels_sha256": _digest(log),
        }
    )


def sample_case(sampler_mod, cpe, inst_name: str, n: int, seed: int) -> dict:
    s = sampler_mod.MatchingSampler(instance(cpe, inst_name), method="exact")
    rng = np.random.default_rng(seed)
    draws = [s.sample_many(n, rng) for _ in range(3)]
    return _canon(
        {"count": s.count, "sha256": _digest(np.stack(draws)), "first": draws[0][:4], "state": rng.bit_generator.state}
    )


def oracle_case(oracle_mod, cpe, seed: int) -> dict:
    """A random instance (2-4 positions), a random matrix (``bar P``-like, or dense) and random
    forced sets: CAR-Cond's ``(A u {e}, R, A, R)`` or ``(A, R u {e}, A, R)``, none, or four
    independent ones (which can leave only the min player's polytope empty)."""
    rng = np.random.default_rng(seed)
    inst = instance(cpe, f"planted{int(rng.integers(2, 5))}-{seed}")
    m = inst.n_edges
    P = np.asarray(inst.edge_matrix)
    if seed % 5 == 4:
        Q = rng.random((m, m))
    else:
        Q = np.where(np.asarray(inst.comparable), np.clip(P + rng.uniform(-0.3, 0.3, P.shape), 0, 1), 0.0)
        np.fill_diagonal(Q, 0.5)
    A = [int(e) for e in rng.choice(m, size=int(rng.integers(0, 2)), replace=False)]
    R = [int(e) for e in rng.choice(m, size=int(rng.integers(0, 3)), replace=False) if e not in A]
    e = int(rng.integers(m))
    sets = [
        (A + [e], R, A, R),
        (A, R + [e], A, R),
        ((), (), (), ()),
        [[int(f) for f in rng.choice(m, size=int(rng.integers(0, 3)), replace=False)] for _ in range(4)],
    ]
    r = oracle_mod.condorcet_oracle(inst, Q, *sets[seed % 4])
    return _canon(
        {
            "value": r.value,
            "status": r.status,
            "x": r.x,
            "y": r.y,
            "stats": {k: v for k, v in r.stats.items() if k != "time"},
        }
    )


def record() -> dict:
    from boundcalc import cpe
    from boundcalc.cpe import algorithms as alg
    from boundcalc.cpe import base as expl
    from boundcalc.cpe import oracle, sampler

    return {
        "runs": {
            f"{a}/{i}/{d}/{json.dumps(kw, sort_keys=True)}/{s}": run_case(alg, expl, cpe, a, i, d, kw, s)
            for a, i, d, kw, seeds in RUNS
            for s in seeds
        },
        "samples": {f"{i}/{n}/{s}": sample_case(sampler, cpe, i, n, s) for i, n, seeds in SAMPLES for s in seeds},
        "oracle": {str(s): oracle_case(oracle, cpe, s) for s in ORACLE_SEEDS},
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help=f"write {PATH.name} (else print a summary)")
    args = ap.parse_args(argv)
    import boundcalc

    print(f"recording with {Path(boundcalc.__file__).parent}")
    rec = record()
    if args.write:
        PATH.write_text(json.dumps(rec, indent=1, sort_keys=True) + "\n")
        print(f"wrote {PATH}")
    print(
        {k: len(v) for k, v in rec.items() if isinstance(v, dict)}, math.fsum(r["duels"] for r in rec["runs"].values())
    )


if __name__ == "__main__":
    main()
