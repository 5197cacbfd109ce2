"""Paper 004's five pure-exploration algorithms: duels used and CPU time per duel, and the CPU time
of a Condorcet-oracle call -- optionally beside a landed version of the package, in one process.

Instances: 004's own example (Figures 1-2, bundled) and random ``l``-position instances (``l`` =
4, 8) built like ``benchmarks/cpe_oracle.py``'s: ``l + 2`` candidates, 2-3 candidates per
position, one planted candidate per position that beats every other candidate of that position
with probability ``1/2 + g``, ``g`` uniform in ``[--gap-lo, --gap-hi]`` (so the planted matching
is the Condorcet winner, checked by :func:`boundcalc.cpe.condorcet_winner`), other pairs uniform
in ``[0.2, 0.8]``.  Each algorithm runs ``--runs`` seeded times at ``--delta`` (CLUCB-Borda-PAC at
``--epsilon``); Borda algorithms run only where the Borda winner is unique.

``--landed DIR`` (a directory holding the ``boundcalc`` package of another version, e.g. ``git
archive main boundcalc | tar -x -C DIR``) imports that version as ``boundcalc_landed`` and runs
every seed with both, alternately, checking that both draw the same duels to the same answer;
the table then shows both CPU times per duel and their ratio.  Times are CPU seconds
(``time.process_time``), after one warm-up run per algorithm and version on a small instance
(numba's import and kernel loading, reported as ``load s``, are excluded from the per-duel
figures).

The oracle line: every Condorcet-oracle call (004 eq. (6)) of one CAR-Cond run on 004's example
is recorded and replayed ``--oracle-repeats`` times with each version (median CPU time per call).

Prints the tables and writes ``benchmarks/results/cpe_algorithms.json``.

    python3 benchmarks/cpe_algorithms.py [--seed 0] [--runs 3] [--delta 0.01] [--sizes 4,8] [--no-fast]
                                         [--landed DIR]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import platform
import sys
import time
from pathlib import Path

import networkx as nx
import numpy as np

from boundcalc.cpe import CPEInstance, borda_winner, condorcet_winner, load_cpe_example
from boundcalc.cpe.algorithms import ALGORITHMS, run_algorithm

HERE = Path(__file__).resolve().parent
#: A small instance every algorithm runs once, to completion, before the timed runs (so every
#: compiled kernel is loaded -- or compiled, on a fresh cache -- outside the figures).
WARM_UP = CPEInstance.from_edge_matrix(
    [("a", "s1"), ("b", "s1"), ("b", "s2"), ("c", "s2"), ("d", "s2")],
    [[0.5, 0.85, 0, 0, 0], [0.15, 0.5, 0, 0, 0], [0, 0, 0.5, 0.2, 0.25], [0, 0, 0.8, 0.5, 0.7], [0, 0, 0.75, 0.3, 0.5]],
    name="warm-up",
)


def planted_instance(l: int, rng: np.random.Generator, gap_lo: float, gap_hi: float) -> CPEInstance:
    n = l + 2
    cands = [f"c{i}" for i in range(n)]
    poss = [f"s{j}" for j in range(l)]
    G = nx.Graph()
    G.add_nodes_from(cands, bipartite=0)
    G.add_nodes_from(poss, bipartite=1)
    planted = rng.permutation(n)[:l]
    order: dict[str, list[str]] = {}
    for j, s in enumerate(poss):
        deg = int(rng.integers(2, 4))
        others = [int(c) for c in rng.permutation(n) if c != planted[j]][: deg - 1]
        order[s] = [cands[planted[j]]] + [cands[c] for c in others]
        for c in order[s]:
            G.add_edge(c, s)
    prefs = {}
    for s in poss:
        k = len(order[s])
        P = np.full((k, k), 0.5)
        for a in range(k):
            for b in range(a + 1, k):
                p = 0.5 + rng.uniform(gap_lo, gap_hi) if a == 0 else rng.uniform(0.2, 0.8)
                P[a, b], P[b, a] = p, 1 - p
        prefs[s] = (order[s], P.tolist())
    return CPEInstance(G, prefs, name=f"planted-{l}")


def truth(target: str, inst: CPEInstance):
    try:
        return borda_winner(inst) if target == "borda" else condorcet_winner(inst)
    except ValueError:
        return None


def load_landed(path: str):
    """The ``boundcalc`` package under ``path``, imported as ``boundcalc_landed``."""
    root = Path(path).resolve() / "boundcalc"
    if not (root / "__init__.py").is_file():
        raise SystemExit(f"--landed: no boundcalc package under {path}")
    spec = importlib.util.spec_from_file_location(
        "boundcalc_landed", root / "__init__.py", submodule_search_locations=[str(root)]
    )
    mod = importlib.util.module_from_spec(spec)
    sys.modules["boundcalc_landed"] = mod
    spec.loader.exec_module(mod)
    import boundcalc_landed.cpe as cpe
    import boundcalc_landed.cpe.algorithms as alg
    import boundcalc_landed.cpe.oracle as oracle

    run = getattr(alg, "run_algorithm", None)
    if run is None:  # a version before run_algorithm moved to cpe.algorithms (cpe.exploration)
        run = importlib.import_module("boundcalc_landed.cpe.exploration").run_algorithm
    return {"cpe": cpe, "run": run, "oracle": oracle.condorcet_oracle}


def same_instance(cpe, inst: CPEInstance):
    """``inst`` as an instance of the package ``cpe`` (the same edges, indices and matrices)."""
    if cpe is None:
        return inst
    other = object.__new__(cpe.CPEInstance)
    other.__dict__.update(inst.__dict__)
    other._cache = {}
    return other


def oracle_calls(inst: CPEInstance, delta: float, seed: int) -> list:
    """The Condorcet-oracle calls ``(Q, A1, R1, A2, R2)`` of one CAR-Cond run."""
    from boundcalc.cpe import algorithms, oracle

    calls = []
    real = oracle.condorcet_oracle

    def spy(inst_, Q, *sets, **kw):
        calls.append((np.array(Q), *[list(map(int, s)) for s in sets]))
        return real(inst_, Q, *sets, **kw)

    oracle.condorcet_oracle = spy
    try:
        algorithms.car_cond(inst, delta, rng=seed)
    finally:
        oracle.condorcet_oracle = real
    return calls


def time_oracle(fn, inst, calls, repeats: int) -> float:
    """Median CPU seconds per call over ``repeats`` passes through ``calls``."""
    for c in calls:
        fn(inst, *c)
    per = []
    for _ in range(repeats):
        t = time.process_time()
        for c in calls:
            fn(inst, *c)
        per.append((time.process_time() - t) / len(calls))
    return float(np.median(per))


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--delta", type=float, default=0.01)
    ap.add_argument("--epsilon", type=float, default=0.05)
    ap.add_argument("--gap-lo", type=float, default=0.05)
    ap.add_argument("--gap-hi", type=float, default=0.2)
    ap.add_argument("--sizes", default="4,8", help="positions of the random instances ('' for none)")
    ap.add_argument("--algorithms", default=",".join(ALGORITHMS))
    ap.add_argument(
        "--no-fast",
        action="store_true",
        help="fast=False: the LSA oracle in every round (the path the compiled CLUCB loop and the "
        "enumerated CAR-Verify tests are checked against); car-cond has no such option",
    )
    ap.add_argument("--landed", metavar="DIR", help="a directory holding another version's boundcalc package")
    ap.add_argument("--oracle-repeats", type=int, default=20)
    args = ap.parse_args(argv)
    landed = load_landed(args.landed) if args.landed else None
    versions = [("new", None, run_algorithm)] + ([("landed", landed["cpe"], landed["run"])] if landed else [])
    rng = np.random.default_rng(args.seed)
    instances = [load_cpe_example()]
    instances += [planted_instance(int(l), rng, args.gap_lo, args.gap_hi) for l in args.sizes.split(",") if l]
    rows = []
    hdr = f"{'instance':<16}{'algorithm':<19}{'runs':>5}{'right':>6}{'mean duels':>12}{'s/run':>8}{'us/duel':>9}" + (
        f"{'landed us/duel':>16}{'x faster':>10}" if landed else ""
    )
    print(f"CPU time per duel (delta = {args.delta}, CLUCB-Borda-PAC at epsilon = {args.epsilon})")
    print(hdr)
    print("-" * len(hdr))
    load = {}
    for inst in instances:
        for name in args.algorithms.split(","):
            spec = ALGORITHMS[name]
            win = truth(spec.target, inst)
            if win is None:
                print(f"{inst.name:<16}{name:<19}  (no unique {spec.target} winner: skipped)")
                continue
            kw = {"epsilon": args.epsilon} if spec.needs_epsilon else {}
            if args.no_fast and name != "car-cond":
                kw["fast"] = False
            for tag, cpe, run in versions:  # warm-up: numba's import and kernels, excluded below
                if (tag, name) not in load:
                    t = time.process_time()
                    run(name, same_instance(cpe, WARM_UP), delta=0.05, seed=0, **kw)
                    load[tag, name] = time.process_time() - t
            cpu = {tag: 0.0 for tag, _, _ in versions}
            duels, right = [], 0
            for r in range(args.runs):
                seed = args.seed * 1000 + r
                got = {}
                for tag, cpe, run in versions:
                    t = time.process_time()
                    res = run(name, same_instance(cpe, inst), delta=args.delta, seed=seed, **kw)
                    cpu[tag] += time.process_time() - t
                    got[tag] = (res.matching, res.n_duels, res.stopped)
                if landed and got["new"] != got["landed"]:
                    raise SystemExit(f"{inst.name} {name} seed {seed}: the versions differ: {got}")
                duels.append(res.n_duels)
                right += res.matching is not None and tuple(sorted(res.matching)) == tuple(sorted(win))
            n = float(np.sum(duels))
            row = {
                "instance": inst.name,
                "positions": inst.n_positions,
                "edges": inst.n_edges,
                "algorithm": name,
                "delta": args.delta,
                "epsilon": kw.get("epsilon"),
                "runs": args.runs,
                "right": int(right),
                "mean_duels": float(np.mean(duels)),
                "cpu_seconds_per_run": cpu["new"] / args.runs,
                "cpu_us_per_duel": 1e6 * cpu["new"] / n,
                "load_seconds": load["new", name],
            }
            line = (
                f"{inst.name:<16}{name:<19}{args.runs:>5}{right:>6}{row['mean_duels']:>12.0f}"
                f"{row['cpu_seconds_per_run']:>8.2f}{row['cpu_us_per_duel']:>9.1f}"
            )
            if landed:
                row["landed_cpu_us_per_duel"] = 1e6 * cpu["landed"] / n
                row["landed_load_seconds"] = load["landed", name]
                row["speedup"] = cpu["landed"] / cpu["new"]
                line += f"{row['landed_cpu_us_per_duel']:>16.1f}{row['speedup']:>10.1f}"
            rows.append(row)
            print(line)
    print(
        "load s (warm-up run: numba's import and kernel loading, or compiling on a fresh cache): "
        + ", ".join(f"{tag} {name} {v:.2f}" for (tag, name), v in load.items())
    )

    example = instances[0]
    calls = oracle_calls(example, args.delta, args.seed)
    from boundcalc.cpe.oracle import condorcet_oracle

    oracle = {
        "calls": len(calls),
        "cpu_ms_per_call": 1e3 * time_oracle(condorcet_oracle, example, calls, args.oracle_repeats),
    }
    line = (
        f"Condorcet oracle (004 eq. (6)) on {example.name}: the {len(calls)} calls of one CAR-Cond run, "
        f"median CPU {oracle['cpu_ms_per_call']:.3f} ms per call"
    )
    if landed:
        oracle["landed_cpu_ms_per_call"] = 1e3 * time_oracle(
            landed["oracle"], same_instance(landed["cpe"], example), calls, args.oracle_repeats
        )
        line += f" (landed {oracle['landed_cpu_ms_per_call']:.3f} ms)"
    print(line)
    out = {
        "benchmark": "cpe_algorithms",
        "args": vars(args),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "rows": rows,
        "oracle": oracle,
        "load_seconds": {f"{tag}/{name}": v for (tag, name), v in load.items()},
    }
    path = HERE / "results" / "cpe_algorithms.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(out, indent=2))
    print(f"wrote {path}")
    return out


if __name__ == "__main__":
    main()
