"""Why CW-RMED runs HiGHS: every HiGHS run of line 11's LP counted by its cause (issue 31 point 1).

One run of ``simulate(example, ["cw-rmed"], horizon=steps, runs=1, seed=0)`` with the LP core's
calls wrapped (nothing else changes: the decisions are those of an unwrapped run).  Each model solve
of :meth:`boundcalc.lp.online.CopelandLPSolver.solve_online` is put in one class:

* the model's ``(structure, winner)``: ``hit`` (a warm model kept in the LRU cache), ``evicted`` (met
  before, dropped from the cache since), ``new`` (never met); for a model built for it, ``derived``
  (from the last model of the winner, :meth:`boundcalc.lp.lifted.CopelandModel.derived`) or ``cold``;
* the round of the cutting plane: ``first`` (the solve after new costs, or a new model's first) or
  ``cut`` (after rows were added);
* its outcome: a HiGHS ``run`` (with its simplex iterations: a run of 0 iterations returned the
  basis it started from) or ``kept`` (the LP core's reduced-cost test kept the last basis: no run).

Also: the line-11 LP solves (``solve_online`` calls) by number of empirical Copeland winners, the
distinct ``(structure, winner)`` keys and how often they recur, HiGHS's CPU by class
(``time.process_time`` around each solve; the wrapping adds its own), and the run's counters.

    python3 benchmarks/cw_causes.py [--cases fig1a:20000,fig1c:100000]
        [--out benchmarks/results/cw_speed/cw_causes.json]
"""

from __future__ import annotations

import argparse
import collections
import time
from pathlib import Path

import numpy as np
from _results import write_result  # benchmarks/_results.py (the script's own directory is on sys.path)

HERE = Path(__file__).resolve().parent


def count(name: str, steps: int) -> dict:
    """The causes of every HiGHS run of one CW-RMED run on the example ``name``."""
    from boundcalc.datasets import load_example
    from boundcalc.lp import cutting
    from boundcalc.lp.lifted import CopelandModel
    from boundcalc.simulate import simulate

    runs: collections.Counter = collections.Counter()
    kept: collections.Counter = collections.Counter()
    zero: collections.Counter = collections.Counter()
    iters: collections.Counter = collections.Counter()
    cpu: collections.Counter = collections.Counter()
    winners: collections.Counter = collections.Counter()
    keys: collections.Counter = collections.Counter()
    rounds_new: list[int] = []
    seen: set = set()
    ctx: dict = {"kind": "", "round": 0}
    orig_entry = cutting.CopelandLPSolver._entry
    orig_derived = cutting.CopelandLPSolver._derived
    orig_solve = CopelandModel.solve
    orig_online = cutting.CopelandLPSolver.solve_online

    def entry(self, st, w):
        key = (st.key, int(w))
        e = self._cache.get(key)
        kind = "hit" if e is not None and e.model is not None else "evicted" if key in seen else "new"
        seen.add(key)
        if ctx["kind"] in ("new", "evicted") or ctx["kind"].endswith(("derived", "cold")):
            rounds_new.append(ctx["round"])
        ctx["kind"], ctx["round"] = kind, 0
        return orig_entry(self, st, w)

    def derived(self, *args):
        model = orig_derived(self, *args)
        ctx["kind"] += " derived" if model is not None else " cold"
        return model

    def solve(self):
        lp = self.lp
        s0 = lp.solves
        if ctx["kind"] in ("new", "evicted"):  # a model built cold without a derivation attempt
            ctx["kind"] += " cold"
        t = time.process_time()
        sol = orig_solve(self)
        dt = time.process_time() - t
        tag = f"{ctx['kind']}, {'first' if ctx['round'] == 0 else 'cut'}"
        if lp.solves > s0:
            runs[tag] += 1
            zero[tag] += lp._last_its == 0
            iters[tag] += lp._last_its
            cpu[tag] += dt
        else:
            kept[tag] += 1
        ctx["round"] += 1
        return sol

    def online(self, st):
        keys[st.key] += 1
        winners[int(st.winners.size)] += 1
        return orig_online(self, st)

    cutting.CopelandLPSolver._entry = entry
    cutting.CopelandLPSolver._derived = derived
    CopelandModel.solve = solve
    cutting.CopelandLPSolver.solve_online = online
    try:
        t0 = time.process_time()
        res = simulate(load_example(name), ["cw-rmed"], horizon=steps, runs=1, seed=0, bounds=False, workers=0)
        total = time.process_time() - t0
    finally:
        cutting.CopelandLPSolver._entry = orig_entry
        cutting.CopelandLPSolver._derived = orig_derived
        CopelandModel.solve = orig_solve
        cutting.CopelandLPSolver.solve_online = orig_online
    if ctx["kind"] in ("new", "evicted") or ctx["kind"].endswith(("derived", "cold")):
        rounds_new.append(ctx["round"])
    p = res.policies[0]
    tags = sorted(set(runs) | set(kept))
    return dict(
        case=name,
        steps=steps,
        cpu_seconds=total,
        regret=float(np.asarray(p.regret[res.units[0]])[0, -1]),
        stats=p.stats,
        highs_runs=int(sum(runs.values())),
        by_cause={
            t: dict(
                runs=runs[t],
                zero_iteration_runs=zero[t],
                mean_iterations=iters[t] / runs[t] if runs[t] else 0.0,
                highs_cpu_seconds=cpu[t],
                kept=kept[t],
            )
            for t in tags
        },
        model_solves_new=len(rounds_new),
        mean_solves_per_new_model=float(np.mean(rounds_new)) if rounds_new else 0.0,
        line11_lp_solves=int(sum(keys.values())),
        by_winners={str(k): v for k, v in sorted(winners.items())},
        distinct_structures=len(keys),
        structures_met_once=sum(1 for v in keys.values() if v == 1),
        solves_on_recurring_structures=sum(v for v in keys.values() if v > 1),
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default="fig1a:20000,fig1c:100000")
    ap.add_argument("--out", default=str(HERE / "results" / "cw_speed" / "cw_causes.json"))
    a = ap.parse_args()
    rows = []
    for case in a.cases.split(","):
        name, steps = case.split(":")
        row = count(name, int(steps))
        rows.append(row)
        print(f"{name} {steps} steps: {row['highs_runs']:,} HiGHS runs, {row['cpu_seconds']:.1f} s CPU")
        for t, c in row["by_cause"].items():
            print(
                f"  {t:24s} runs {c['runs']:7,d} (0 iterations {c['zero_iteration_runs']:6,d},"
                f" mean {c['mean_iterations']:7.1f}, {c['highs_cpu_seconds']:7.2f} s)  kept {c['kept']:7,d}"
            )
    write_result(a.out, rows=rows)


if __name__ == "__main__":
    main()
