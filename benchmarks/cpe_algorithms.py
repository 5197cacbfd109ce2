"""Paper 004's five pure-exploration algorithms: duels used and wall time per run.

Instances: 004's own example (Figures 1-2, bundled) and random ``l``-position instances (``l`` =
4, 8) built like ``benchmarks/cpe_oracle.py``'s: ``l + 2`` candidates, 2-3 candidates per
position, one planted candidate per position that beats every other candidate of that position
with probability ``1/2 + g``, ``g`` uniform in ``[--gap-lo, --gap-hi]`` (so the planted matching
is the Condorcet winner, checked by :func:`boundcalc.cpe.condorcet_winner`), other pairs uniform
in ``[0.2, 0.8]``.  Each algorithm runs ``--runs`` seeded times at ``--delta`` (CLUCB-Borda-PAC at
``--epsilon``); Borda algorithms run only where the Borda winner is unique.  The issue's target:
one CAR-Parallel run on the 8-position instance at ``delta = 0.01`` in under a minute.

Prints one table (mean duels, right answers, seconds per run, duels per second) and writes
``benchmarks/results/cpe_algorithms.json``.

    python3 benchmarks/cpe_algorithms.py [--seed 0] [--runs 3] [--delta 0.01] [--no-fast]
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import networkx as nx
import numpy as np

from boundcalc.cpe import CPEInstance, borda_winner, condorcet_winner, load_cpe_example
from boundcalc.cpe.exploration import ALGORITHMS, run_algorithm

HERE = Path(__file__).resolve().parent


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


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--delta", type=float, default=0.01)
    ap.add_argument("--epsilon", type=float, default=0.05)
    ap.add_argument("--gap-lo", type=float, default=0.05)
    ap.add_argument("--gap-hi", type=float, default=0.2)
    ap.add_argument("--sizes", default="4,8")
    ap.add_argument("--algorithms", default=",".join(ALGORITHMS))
    ap.add_argument("--no-fast", action="store_true",
                    help="fast=False: the LSA oracle in every round (the path the compiled CLUCB loop and the "
                         "enumerated CAR-Verify tests are checked against); car-cond has no such option")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    instances = [load_cpe_example()]
    instances += [planted_instance(int(l), rng, args.gap_lo, args.gap_hi) for l in args.sizes.split(",")]
    rows = []
    hdr = f"{'instance':<16}{'algorithm':<20}{'runs':>5}{'right':>6}{'mean duels':>12}{'s/run':>9}{'duels/s':>10}"
    print(hdr)
    print("-" * len(hdr))
    for inst in instances:
        for name in args.algorithms.split(","):
            spec = ALGORITHMS[name]
            win = truth(spec.target, inst)
            if win is None:
                print(f"{inst.name:<16}{name:<20}  (no unique {spec.target} winner: skipped)")
                continue
            kw = {"epsilon": args.epsilon} if spec.needs_epsilon else {}
            if args.no_fast and name != "car-cond":
                kw["fast"] = False
            duels, right, secs = [], 0, []
            for r in range(args.runs):
                t0 = time.perf_counter()
                res = run_algorithm(name, inst, delta=args.delta, seed=args.seed * 1000 + r, **kw)
                secs.append(time.perf_counter() - t0)
                duels.append(res.n_duels)
                right += res.matching is not None and tuple(sorted(res.matching)) == tuple(sorted(win))
            row = {"instance": inst.name, "positions": inst.n_positions, "edges": inst.n_edges,
                   "algorithm": name, "delta": args.delta, "epsilon": kw.get("epsilon"), "runs": args.runs,
                   "right": int(right), "mean_duels": float(np.mean(duels)), "seconds_per_run": float(np.mean(secs)),
                   "max_seconds": float(np.max(secs))}
            rows.append(row)
            print(f"{inst.name:<16}{name:<20}{args.runs:>5}{right:>6}{row['mean_duels']:>12.0f}"
                  f"{row['seconds_per_run']:>9.2f}{row['mean_duels'] / max(row['seconds_per_run'], 1e-12):>10.0f}")
    out = {"benchmark": "cpe_algorithms", "args": vars(args), "python": platform.python_version(),
           "machine": platform.machine(), "rows": rows}
    path = HERE / "results" / "cpe_algorithms.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(out, indent=2))
    print(f"wrote {path}")
    return out


if __name__ == "__main__":
    main()
