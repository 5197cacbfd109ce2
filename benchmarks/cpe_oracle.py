"""Condorcet oracle of paper 004 (eq. (6)): the exact HiGHS LP against 004's Frank-Wolfe oracle.

Instances: ``l`` = 4, 8, 16 positions, each with 2 or 3 candidates drawn from a pool of
``l + 2`` candidates (so candidates are shared and the matching constraints bind), a planted
matching filling every position, random preference blocks (seeded).  ``Q`` is a CAR-Cond-like
upper-confidence matrix (004 eq. (8): ``P + noise`` clipped to [0, 1] on comparable pairs, 1/2 on
the diagonal, 0 elsewhere).  Two calls per instance: no forced edges, and a CAR-Cond Line 11
call ``(A u {e}, R, A, R)`` with ``A`` one edge of a planted matching and ``R`` one edge outside it.

Per call:

* exact: :func:`boundcalc.cpe.condorcet_oracle`, median time over ``--repeats`` runs; its
  exactness is certified independently of the LP by two MWMC calls (min over ``P2`` against
  the returned ``x`` and max over ``P1`` against the returned ``y``: they bracket the optimum,
  so ``upper - lower`` is the certified error);
* Frank-Wolfe: :func:`boundcalc.cpe.frank_wolfe_oracle` at ``epsilon = 1e-3``, capped at
  ``--fw-iter`` outer and ``--fw-inner`` inner iterations (004's own counts, ``T_paper`` outer
  and ``inner_paper`` Frank-Wolfe steps per projection, are printed too, with the time they would
  take at the measured cost per linear-minimisation call); its ``|value error|`` against the
  exact value; and the smallest budget in the doubling sequence 25 x 12, 50 x 25, ... (up to
  ``--fw-max-iter``) whose ``|value error| <= epsilon``, with its time ("FW s to eps"; "> budget"
  when none reaches it -- FW itself cannot know this), and the smallest whose own certificate
  ``gap_bound <= epsilon`` ("FW s cert.").

Times are CPU seconds (``time.process_time``).  Prints one table and writes
``benchmarks/results/cpe_oracle.json``.

    python3 benchmarks/cpe_oracle.py [--seed 0] [--repeats 20] [--fw-iter 200] [--fw-inner 100]
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import networkx as nx
import numpy as np

from boundcalc.cpe import CPEInstance, condorcet_oracle, frank_wolfe_oracle, mwmc

HERE = Path(__file__).resolve().parent


def make_instance(l: int, rng: np.random.Generator) -> CPEInstance:
    n = l + 2
    cands = [f"c{i}" for i in range(n)]
    poss = [f"s{j}" for j in range(l)]
    G = nx.Graph()
    G.add_nodes_from(cands, bipartite=0)
    G.add_nodes_from(poss, bipartite=1)
    planted = rng.permutation(n)[:l]
    for j, s in enumerate(poss):
        deg = int(rng.integers(2, 4))
        others = [c for c in rng.permutation(n) if c != planted[j]][: deg - 1]
        for c in [planted[j], *others]:
            G.add_edge(cands[c], s)
    prefs = {}
    for s in poss:
        order = list(G[s])
        d = len(order)
        mat = np.full((d, d), 0.5)
        iu = np.triu_indices(d, 1)
        u = rng.uniform(0.05, 0.95, iu[0].size)
        u = np.where(np.abs(u - 0.5) < 1e-3, 0.51, u)
        mat[iu] = u
        mat[(iu[1], iu[0])] = 1 - u
        prefs[s] = (order, mat)
    return CPEInstance(G, prefs, name=f"random-l{l}")


def ucb_matrix(inst: CPEInstance, rng: np.random.Generator) -> np.ndarray:
    P = np.array(inst.edge_matrix)
    Q = np.clip(P + rng.uniform(0, 0.2, P.shape), 0, 1)
    Q = np.where(inst.comparable, Q, 0.0)
    np.fill_diagonal(Q, 0.5)
    return Q


def certified_gap(inst, Q, r, A1, R1, A2, R2) -> float:
    """upper - lower for the exact answer, from two MWMC calls (independent of the LP)."""
    l = inst.n_positions
    lower = mwmc(inst, Q.T @ r.x / l, include=A2, exclude=R2, minimize=True)[0]
    upper = mwmc(inst, Q @ r.y / l, include=A1, exclude=R1)[0]
    return float(upper - lower)


def lmo_cost(inst, Q, reps: int = 2000) -> float:
    """Seconds per linear-minimisation call of the Frank-Wolfe oracle (its inner loop's unit)."""
    from boundcalc.cpe.oracle import _LMO

    lmo = _LMO(inst, np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp))
    c = np.random.default_rng(0).random(inst.n_edges)
    t = time.process_time()
    for _ in range(reps):
        lmo(c)
    return (time.process_time() - t) / reps


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--epsilon", type=float, default=1e-3)
    ap.add_argument("--fw-iter", type=int, default=200)
    ap.add_argument("--fw-inner", type=int, default=100)
    ap.add_argument(
        "--fw-max-iter",
        type=int,
        default=1600,
        help="largest outer budget tried when searching the budget that reaches epsilon",
    )
    ap.add_argument("--positions", type=int, nargs="+", default=[4, 8, 16])
    ap.add_argument("--out", default=str(HERE / "results" / "cpe_oracle.json"))
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    records = []
    for l in args.positions:
        inst = make_instance(l, rng)
        Q = ucb_matrix(inst, rng)
        M = mwmc(inst, rng.random(inst.n_edges))[1]
        A = (M[0],)
        R = (next(e for e in range(inst.n_edges) if e not in M and inst.edge_position[e] != inst.edge_position[M[0]]),)
        e = next(
            e
            for e in range(inst.n_edges)
            if e not in M and e not in R and inst.edge_position[e] != inst.edge_position[M[0]]
        )
        calls = {"free": ((), (), (), ()), "car-cond-line11": (A + (e,), R, A, R)}
        t_lmo = lmo_cost(inst, Q)
        for name, sets in calls.items():
            condorcet_oracle(inst, Q, *sets)  # warm (imports)
            times = []
            for _ in range(args.repeats):
                t = time.process_time()
                ex = condorcet_oracle(inst, Q, *sets)
                times.append(time.process_time() - t)
            t_ex = float(np.median(times))
            gap = certified_gap(inst, Q, ex, *sets) if ex.status == "optimal" else float("nan")
            t = time.process_time()
            fw = frank_wolfe_oracle(
                inst, Q, *sets, epsilon=args.epsilon, max_iter=args.fw_iter, max_inner=args.fw_inner
            )
            t_fw = time.process_time() - t
            s = fw.stats
            # smallest doubling budget whose |error| (against the exact value) is <= epsilon
            # and the smallest whose own certificate (gap_bound) is <= epsilon
            reach = cert = None
            it, inner = 25, 12
            while it <= args.fw_max_iter and (reach is None or cert is None):
                t = time.process_time()
                f2 = frank_wolfe_oracle(inst, Q, *sets, epsilon=args.epsilon, max_iter=it, max_inner=inner)
                dt = time.process_time() - t
                row = {
                    "max_iter": it,
                    "max_inner": inner,
                    "seconds": dt,
                    "abs_error": abs(ex.value - f2.value),
                    "gap_bound": f2.stats["gap_bound"],
                }
                if reach is None and row["abs_error"] <= args.epsilon:
                    reach = row
                if cert is None and row["gap_bound"] <= args.epsilon:
                    cert = row
                it, inner = 2 * it, 2 * inner
            paper_seconds = float(s["T_paper"]) * (float(s["inner_paper"]) + 1) * t_lmo
            records.append(
                {
                    "positions": l,
                    "edges": inst.n_edges,
                    "candidates": inst.n_candidates,
                    "call": name,
                    "status": ex.status,
                    "exact_value": ex.value,
                    "exact_seconds": t_ex,
                    "exact_certified_gap": gap,
                    "lp_rows": ex.stats.get("rows"),
                    "lp_cols": ex.stats.get("cols"),
                    "fw_value": fw.value,
                    "fw_abs_error": abs(ex.value - fw.value),
                    "fw_gap_bound": s["gap_bound"],
                    "fw_seconds": t_fw,
                    "fw_iterations": s["iterations"],
                    "fw_inner": s["inner_iterations"],
                    "fw_T_paper": s["T_paper"],
                    "fw_inner_paper": s["inner_paper"],
                    "fw_K": s["K"],
                    "lmo_seconds": t_lmo,
                    "fw_paper_seconds_extrapolated": paper_seconds,
                    "speedup_vs_capped_fw": t_fw / t_ex,
                    "fw_to_epsilon": reach,
                    "fw_to_certified_epsilon": cert,
                    "speedup_to_epsilon": (reach["seconds"] / t_ex) if reach else None,
                }
            )
    hdr = (
        f"{'l':>3} {'m':>3} {'call':<16} {'CPU ms':>9} {'cert.gap':>9} {'FW s':>7} {'FW |err|':>9} "
        f"{'FW gap':>8} {'x faster':>9} {'FW s to eps':>12} {'x faster':>9} {'FW s cert.':>11} {'T_paper':>9} {'inner_paper':>11} "
        f"{'paper time':>11}"
    )
    print(f"Condorcet oracle (004 eq. (6)), epsilon = {args.epsilon}, FW capped at {args.fw_iter} x {args.fw_inner}")
    print(hdr)
    print("-" * len(hdr))
    for r in records:
        print(
            f"{r['positions']:>3} {r['edges']:>3} {r['call']:<16} {1e3 * r['exact_seconds']:>9.3f} "
            f"{r['exact_certified_gap']:>9.1e} {r['fw_seconds']:>7.2f} {r['fw_abs_error']:>9.2e} "
            f"{r['fw_gap_bound']:>8.2e} {r['speedup_vs_capped_fw']:>9.0f} "
            + (
                f"{r['fw_to_epsilon']['seconds']:>12.2f} {r['speedup_to_epsilon']:>9.0f} "
                if r["fw_to_epsilon"]
                else f"{'> budget':>12} {'-':>9} "
            )
            + (
                f"{r['fw_to_certified_epsilon']['seconds']:>11.2f} "
                if r["fw_to_certified_epsilon"]
                else f"{'> budget':>11} "
            )
            + f"{r['fw_T_paper']:>9.2e} "
            f"{r['fw_inner_paper']:>11.2e} {r['fw_paper_seconds_extrapolated']:>9.1e} s"
        )
    meta = {
        "seed": args.seed,
        "repeats": args.repeats,
        "epsilon": args.epsilon,
        "fw_iter": args.fw_iter,
        "fw_inner": args.fw_inner,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "time": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"meta": meta, "results": records}, indent=2, default=float))
    print(f"wrote {out}")
    return {"meta": meta, "results": records}


if __name__ == "__main__":
    main()
