"""HiGHS's fixed cost of one ``run()`` on CW-RMED's models, by option (issue 31, point 1).

Which per-run work of HiGHS (highspy 1.16) an *option* removes without changing the simplex path.
The model is CW-RMED's own: the policy runs ``--steps`` steps on ``--example`` (its own loop, seeded
outcomes) and the LP core's most recently used model is copied (``getLp``, ``getBasis``) into one
fresh HiGHS instance per variant: the LP core's options (:class:`boundcalc.lp.highs.CoveringLP`:
``threads = 1``, tolerances 1e-9, presolve off, ``infinite_cost = inf``, and the lifted models'
``simplex_scale_strategy = 0``) plus one option each.  Per variant, in rounds that alternate the
variants (the machine's load changes within minutes):

* ``fixed_ms``: CPU of a ``run()`` on an unchanged model (0 simplex iterations): what HiGHS does
  around the simplex every run;
* ``perturbed_ms`` and ``iterations``: ``--perturbed`` runs after seeded cost changes (every other
  one back to the model's costs), the same sequence for every variant; ``same_path``: the iteration
  counts and every column value equal the LP core's options' bit for bit.

A second table times the unchanged ``run()`` in child processes whose CPU affinity holds one CPU or
all of them: HiGHS 1.16 counts the physical cores of the affinity mask at every run (two ``/sys``
files per CPU, ``Highs::initializeMultiThreading``), whatever ``threads`` is.

    python3 benchmarks/cw_highs_fixed.py [--example fig1c] [--steps 4000] [--fixed 300] [--perturbed 100]
        [--rounds 3] [--out benchmarks/results/cw_speed/cw_highs_fixed.json]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _results import write_result  # benchmarks/_results.py (the script's own directory is on sys.path)

HERE = Path(__file__).resolve().parent

#: Options tried on top of the LP core's (name -> value); each is HiGHS's default but the first.
VARIANTS: dict[str, dict] = {
    "LP core's options": {},
    "threads = 0 (HiGHS's default)": {"threads": 0},
    "highs_debug_level = 0": {"highs_debug_level": 0},
    "highs_analysis_level = 0": {"highs_analysis_level": 0},
    "log_to_console = false": {"log_to_console": False},
    "log_githash = false": {"log_githash": False},
    "timeless_log = true": {"timeless_log": True},
    "log_dev_level = 0": {"log_dev_level": 0},
}

CHILD = r"""
import os, sys, time
from math import inf  # the options' repr
cpus = {cpus!r}
if cpus is not None:
    os.sched_setaffinity(0, cpus)
import highspy
h = highspy.Highs()
h.setOptionValue("output_flag", False)
for k, v in {options!r}.items():
    h.setOptionValue(k, v)
h.readModel({model!r})
h.readBasis({basis!r})
h.run()
t0 = time.process_time()
for _ in range({n!r}):
    h.run()
print((time.process_time() - t0) / {n!r} * 1e3)
"""


def lp_core_model(example: str, steps: int):
    """CW-RMED's most recently used LP-core model after ``steps`` steps: (HighsLp, HighsBasis, options)."""
    from boundcalc.datasets import load_example
    from boundcalc.policies.cw_rmed import CWRMED

    mu = load_example(example).mu
    p, rng = CWRMED(mu.shape[0], rng=np.random.default_rng(0)), np.random.default_rng(1)
    for _ in range(steps):
        i, j = p.select_pair()
        p.update(i, j, bool(rng.random() < mu[i, j]))
    for e in reversed(list(p.solver._cache.values())):
        if e.model is not None and e.model.lp.n_rows:
            lp = e.model.lp
            return lp.h.getLp(), lp.h.getBasis(), dict(lp._options), lp.n_rows, lp.n_cols
    raise RuntimeError(f"no LP-core model after {steps} steps")


def session(lp, basis, options: dict, n_fixed: int, n_pert: int) -> dict:
    from boundcalc._highs import new_highs

    h = new_highs(**options)
    h.passModel(lp)
    h.setBasis(basis)
    h.run()
    c0 = np.asarray(lp.col_cost_, dtype=float)
    n = c0.size
    cols = np.arange(n, dtype=np.int32)
    rng = np.random.default_rng(0)
    its, xs, t_pert = [], [], 0.0
    for r in range(n_pert):
        c = np.abs(c0 * (1.0 + 0.05 * rng.standard_normal(n))) if r % 2 == 0 else c0
        h.changeColsCost(n, cols, c)
        t0 = time.process_time()
        h.run()
        t_pert += time.process_time() - t0
        its.append(int(h.getInfoValue("simplex_iteration_count")[1]))
        xs.append(np.asarray(h.getSolution().col_value, dtype=float))
    t0 = time.process_time()
    for _ in range(n_fixed):
        h.run()
    t_fixed = time.process_time() - t0
    return dict(fixed_ms=t_fixed / n_fixed * 1e3, perturbed_ms=t_pert / n_pert * 1e3, its=its, x=np.concatenate(xs))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--example", default="fig1c")
    ap.add_argument("--steps", type=int, default=4000)
    ap.add_argument("--fixed", type=int, default=300)
    ap.add_argument("--perturbed", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", default=str(HERE / "results" / "cw_speed" / "cw_highs_fixed.json"))
    a = ap.parse_args()
    lp, basis, base, nrow, ncol = lp_core_model(a.example, a.steps)
    runs: dict[str, list] = {k: [] for k in VARIANTS}
    for _ in range(a.rounds):
        for name, extra in VARIANTS.items():
            runs[name].append(session(lp, basis, {**base, **extra}, a.fixed, a.perturbed))
    ref = runs["LP core's options"][0]
    rows = []
    print(f"{a.example}, {a.steps} steps: model {nrow} rows x {ncol} columns")
    print(f"{'variant':34s} {'fixed ms':>9s} {'perturbed ms':>13s} {'iterations':>10s} same path")
    for name, rs in runs.items():
        same = all(r["its"] == ref["its"] and np.array_equal(r["x"], ref["x"]) for r in rs)
        row = dict(
            variant=name,
            options=VARIANTS[name],
            fixed_ms=[r["fixed_ms"] for r in rs],
            perturbed_ms=[r["perturbed_ms"] for r in rs],
            fixed_ms_min=min(r["fixed_ms"] for r in rs),
            perturbed_ms_min=min(r["perturbed_ms"] for r in rs),
            iterations=int(sum(rs[0]["its"])),
            same_path=same,
        )
        rows.append(row)
        print(
            f"{name:34s} {row['fixed_ms_min']:9.3f} {row['perturbed_ms_min']:13.3f} {row['iterations']:10d} {same}",
            flush=True,
        )
    # the affinity mask's CPUs, in child processes (the model through MPS and basis files)
    affinity = []
    if hasattr(os, "sched_setaffinity"):
        from boundcalc._highs import new_highs

        mask = sorted(os.sched_getaffinity(0))
        with tempfile.TemporaryDirectory() as tmp:
            h = new_highs(**base)
            h.passModel(lp)
            h.setBasis(basis)
            model, bas = str(Path(tmp) / "m.mps"), str(Path(tmp) / "m.bas")
            h.writeModel(model)
            h.writeBasis(bas)
            times: dict[int, list] = {1: [], len(mask): []}
            for _ in range(a.rounds):
                for k in times:
                    code = CHILD.format(
                        cpus=mask[:k] if k < len(mask) else None, options=base, model=model, basis=bas, n=a.fixed
                    )
                    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
                    times[k].append(float(out.stdout.strip().splitlines()[-1]))
        for k, ts in times.items():
            affinity.append(dict(cpus=k, fixed_ms=ts, fixed_ms_min=min(ts)))
            print(f"unchanged run, {k} CPU(s) in the affinity mask: {min(ts):.3f} ms")
    import highspy

    write_result(
        a.out,
        example=a.example,
        steps=a.steps,
        model=dict(rows=nrow, columns=ncol),
        lp_core_options={k: (str(v) if isinstance(v, float) and not np.isfinite(v) else v) for k, v in base.items()},
        fixed_runs=a.fixed,
        perturbed_runs=a.perturbed,
        rounds=a.rounds,
        rows=rows,
        affinity=affinity,
        highspy=highspy.Highs().version() if hasattr(highspy.Highs, "version") else None,
        cpus=os.cpu_count(),
    )


if __name__ == "__main__":
    main()
