"""Speed of the online policies: a user's own loop, the whole-run kernel, and CW-RMED at 10^5 steps.

Three measurements, each in CPU seconds (``time.process_time``) in one worker process per package
version (this checkout, and with ``--landed DIR`` an older checkout, e.g. ``git worktree add
/tmp/landed 56885b8``, measured by the same code in its own process):

* **user loop**: ``make_policy(...)`` driven step by step from Python, ``select_pair()`` then
  ``update(i, j, won)`` with the outcome drawn by the loop itself (a Python float against
  ``mu[i][j]``) -- what a researcher's own experiment loop costs per step;
* **kernel**: ``simulate(..., runs=R, horizon=T)``, the compiled whole-run path, per run-step
  (Bernoulli draws and regret bookkeeping included; compiled first on a short run); beside it the
  C++ figures of the D-TS authors' library quoted in the docs' speed page (g++ -O2, per step including its
  simulator): ECW-RMED 2.3 / 10.3 us (K = 5 / 16), RMED1 0.56 / 2.9, RUCB 0.7 / 4.0, D-TS 3.1 /
  28.9, D-TS+ 3.1 / -, CCB 1.9 / 10.2, SCB 0.29 / 1.2, SAVAGE 0.28 / 1.9, RCS 1.75 / 19.1;
* CW-RMED's step is its LP's, whose work depends on the outcomes drawn, so its user loop and its
  compiled path are measured on one stream over the same ``--cw-steps`` steps: ``simulate(...,
  fast=False)``, which calls ``select_pair``/``update`` from Python every step (the outcomes drawn
  in Python too, with the regret bookkeeping: about 2.8 us a step, RMED1's protocol path costing
  2.9-3.0 us against 0.7-0.8 in its own loop), beside ``simulate(...)``, so its user - kernel
  column is an upper bound on the Python calls' cost;
* **CW-RMED**: one run of 10^5 steps through ``simulate`` on 000's Table 2 (K = 4) and on 16- and
  64-arm submatrices of the MSLR informational matrix (``../shared``; skipped when absent), with
  the targets of :data:`CW_TARGET` (under 0.1 / 2 / 60 s; a run of fewer steps is compared with them
  scaled to 10^5).

K = 5 uses 001's two MSLR matrices (bundled); K = 16 a 16-arm MSLR submatrix (a seeded random
matrix when ``../shared`` is absent).  Prints a table and writes ``benchmarks/results/policies.json``.

    python3 benchmarks/policies.py [--steps 20000] [--horizon 100000] [--runs 2] [--landed DIR]
    python3 benchmarks/policies.py --write-costs     # boundcalc/data/step_costs.json from the stored rows

``--write-costs`` writes the per-step cost model ``boundcalc simulate`` estimates its CPU time by
(:func:`step_costs`) from the stored result files and writes nothing else.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CPP = {
    ("ecw-rmed", 5): 2.3,
    ("ecw-rmed", 16): 10.3,
    ("rmed1", 5): 0.56,
    ("rmed1", 16): 2.9,
    ("rucb", 5): 0.7,
    ("rucb", 16): 4.0,
    ("dts", 5): 3.1,
    ("dts", 16): 28.9,
    ("dts+", 5): 3.1,
    ("ccb", 5): 1.9,
    ("ccb", 16): 10.2,
    ("scb", 5): 0.29,
    ("scb", 16): 1.2,
    ("savage", 5): 0.28,
    ("savage", 16): 1.9,
    # RCS, the same library's Alg_RCS.cpp (HuasenWu/DuelingBandits), built and run once outside the
    # repository the same way (g++ -O2, per step with its simulator; no committed script builds it)
    ("rcs", 5): 1.75,
    ("rcs", 16): 19.1,
}
POLICIES = ["ecw-rmed", "rmed1", "rmed2", "rucb", "dts", "dts+", "ccb", "scb", "savage", "cw-rmed"]
#: the classical baselines (their C++ figures, where a C++ exists, are stored by benchmarks/baselines.py)
POLICIES += [
    "interleaved-filter",
    "beat-the-mean",
    "rcs",
    "sparring",
    "self-sparring",
    "winner-stays",
    "doubler",
    "rmed2fh",
]
POLICIES += ["merge-rucb", "merge-dts"]  # benchmarks/results/policies_merge.json
POLICIES += ["versatile-db"]  # benchmarks/results/policies_vdb.json
#: CW-RMED's CPU targets for one run of 10^5 steps: Table 2 under 0.1 s, 16 arms under 2 s, 64 under 60 s
CW_TARGET = {4: 0.1, 16: 2.0, 64: 60.0}


def shared_dir() -> Path:
    return Path(os.environ.get("BOUNDCALC_SHARED", ROOT.parent / "shared"))


def mslr_submatrix(K: int, seed: int, min_gap: float = 0.005) -> list[list[float]] | None:
    """A K-arm submatrix of the MSLR informational matrix with every ``|mu - 1/2| >= min_gap`` (000
    Sec. 5 uses 0.005; 64 arms that far from ties are not to be found, so K = 64 takes any gap
    above 1e-6), arms drawn with a seeded generator; None when the public file is absent."""
    path = shared_dir() / "data" / "public" / "nightingal3_MSLR_Informational_PMat.npz"
    if not path.exists():
        return None
    with np.load(path) as z:
        mu = np.asarray(z[z.files[0]], dtype=float)
    rng = np.random.default_rng(seed)
    for _ in range(100_000):
        arms = np.sort(rng.choice(mu.shape[0], K, replace=False))
        sub = mu[np.ix_(arms, arms)]
        off = ~np.eye(K, dtype=bool)
        if np.all(np.abs(sub[off] - 0.5) >= min_gap):
            return sub.tolist()
    raise RuntimeError(f"no {K}-arm MSLR submatrix without near ties found")


# ------------------------------------------------------------------------------ worker side
def _user_loop(name: str, mu: list[list[float]], steps: int) -> float:
    from boundcalc.policies import make_policy

    K = len(mu)
    pol = make_policy(name, K, rng=np.random.default_rng(0))
    u = np.random.default_rng(1).random(steps).tolist()
    for k in range(min(200, steps)):  # compile / warm up outside the clock
        i, j = pol.select_pair()
        pol.update(i, j, u[k] < mu[i][j])
    pol = make_policy(name, K, rng=np.random.default_rng(0))
    t0 = time.process_time()
    for k in range(steps):
        i, j = pol.select_pair()
        pol.update(i, j, u[k] < mu[i][j])
    return (time.process_time() - t0) / steps


def _kernel(name: str, mu: list[list[float]], horizon: int, runs: int, fast: bool = True) -> float:
    from boundcalc.matrix import PreferenceMatrix
    from boundcalc.simulate import simulate

    pm = PreferenceMatrix(np.array(mu))
    simulate(pm, [name], horizon=200, runs=1, seed=0, bounds=False, workers=0, fast=fast)  # compile
    t0 = time.process_time()
    simulate(pm, [name], horizon=horizon, runs=runs, seed=0, bounds=False, workers=0, fast=fast)
    return (time.process_time() - t0) / (horizon * runs)


def _panels(keys: list[str]) -> dict:
    """Figure 1's panel matrices ``keys`` (benchmarks/figure1.py's own draw, seed 1000 + K +
    condorcet), drawn in the worker (a 64-arm matrix is too long for its command line)."""
    if not keys:
        return {}
    from figure1 import PANELS, submatrix

    path = shared_dir() / "data" / "public" / "nightingal3_MSLR_Informational_PMat.npz"
    if not path.exists():
        return {}
    with np.load(path) as z:
        full = np.asarray(z[z.files[0]], dtype=float)
    out = {}
    for key in keys:
        _, K, condorcet, gap = PANELS[key]
        out[f"figure1 ({key}) K = {K}"] = submatrix(full, K, condorcet, gap, seed=1000 + K + int(condorcet))[
            0
        ].mu.tolist()
    return out


def worker(spec: dict) -> dict:
    out = {"user": {}, "kernel": {}, "cw": {}}
    for label, mu in spec["matrices"].items():
        K = len(mu)
        for name in spec["policies"]:
            if name == "cw-rmed":  # its step is the LP's, which depends on the outcomes: one stream for both
                steps = spec["cw_steps"]
                out["user"][f"{name}|{label}"] = (K, _kernel(name, mu, steps, 1, fast=False))
                out["kernel"][f"{name}|{label}"] = (K, _kernel(name, mu, steps, 1))
                continue
            out["user"][f"{name}|{label}"] = (K, _user_loop(name, mu, spec["steps"]))
            out["kernel"][f"{name}|{label}"] = (K, _kernel(name, mu, spec["horizon"], spec["runs"]))
    for label, mu in (
        dict(spec["cw_matrices"], **_panels(spec.get("cw_panels", []))) if "cw-rmed" in spec["policies"] else {}
    ).items():
        steps = spec["cw_horizon"] if len(mu) <= 16 else spec["cw_horizon_64"]
        per = _kernel("cw-rmed", mu, steps, 1)
        out["cw"][label] = (len(mu), per * steps, steps)
    return out


# ------------------------------------------------------------------------------ parent side
def run_worker(path: Path, spec: dict) -> dict:
    env = dict(os.environ, PYTHONPATH=str(path))
    proc = subprocess.run(
        [sys.executable, __file__, "--worker", json.dumps(spec)], env=env, cwd=str(path), capture_output=True, text=True
    )
    if proc.returncode != 0:
        raise RuntimeError(f"worker in {path} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


#: The result files whose ``user_us`` rows give the step costs, and where the package reads them.
COST_ROWS = ("policies.json", "policies_baselines.json", "policies_merge.json", "policies_vdb.json")
STEP_COSTS = HERE.parent / "boundcalc" / "data" / "step_costs.json"
#: CW-RMED's step, not in those rows (its work depends on the outcomes): the sentence of
#: ``docs/notebooks.md`` that quotes the re-executed ``cw_vs_ecw`` notebook.


def _sig4(x: float) -> float:
    return float(f"{x:.4g}")


def step_costs(results: Path = HERE / "results", docs: Path = HERE.parent / "docs") -> dict:
    """CPU microseconds per policy step at K = 5 and K = 16: the largest ``user_us`` of each policy
    and K over :data:`COST_ROWS` (K = 5: the larger of the two MSLR matrices), to 4 significant
    digits; CW-RMED's from the cw_vs_ecw notebook's stored summary (the larger figure at 16 arms)."""
    rows: dict[str, dict[int, float]] = {}
    for name in COST_ROWS:
        for r in json.loads((results / name).read_text())["rows"]:
            d = rows.setdefault(r["policy"], {})
            d[r["K"]] = max(d.get(r["K"], 0.0), r["user_us"])
    us = {p: [_sig4(d[5]), _sig4(d[16])] for p, d in rows.items()}
    sources = {p: "benchmarks/results/" + ", ".join(COST_ROWS) + ": user_us" for p in us}
    # CW-RMED's step depends on its LP re-solves: the re-executed cw_vs_ecw notebook's stored
    # summary (what docs/notebooks.md renders), Table 2 and the larger 16-arm panel, truncated
    sys.path.insert(0, str(docs / "hooks"))
    import results as rendered

    panels = rendered.notebook_summary("cw_vs_ecw")["panels"]
    table2 = panels[0]["policies"]["cw-rmed"]["us_per_step"]
    k16 = max(p["policies"]["cw-rmed"]["us_per_step"] for p in panels if p["K"] == 16)
    us["cw-rmed"] = [math.floor(10 * table2) / 10, float(math.floor(k16))]
    sources["cw-rmed"] = "notebooks/cw_vs_ecw.ipynb's stored summary (docs/notebooks.md renders it)"
    return {
        "about": "CPU microseconds per policy step (K = 5, K = 16) on simulate's compiled path;"
        " written by benchmarks/policies.py --write-costs",
        "us": us,
        "sources": sources,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write-costs", action="store_true", help="write boundcalc/data/step_costs.json and stop")
    ap.add_argument("--steps", type=int, default=20_000, help="user-loop steps per policy and matrix")
    ap.add_argument("--cw-steps", type=int, default=20_000, help="CW-RMED's steps in the user-loop comparison")
    ap.add_argument("--horizon", type=int, default=100_000, help="kernel horizon")
    ap.add_argument("--runs", type=int, default=2, help="kernel runs")
    ap.add_argument(
        "--cw-horizon",
        type=int,
        default=100_000,
        help="CW-RMED's one run on Table 2 and 16 arms (0: leave that run out)",
    )
    ap.add_argument(
        "--cw-horizon-64",
        type=int,
        default=5_000,
        help="CW-RMED's steps at 64 arms (0: leave that run out; 10^5 take 13-15 CPU minutes there: see docs/results/policy-speed.md)",
    )
    ap.add_argument("--landed", default=None, help="an older checkout, measured the same way")
    ap.add_argument(
        "--landed-cw", action="store_true", help="also run CW-RMED's 10^5 steps on the landed checkout (K <= 16)"
    )
    ap.add_argument(
        "--landed-cw-64",
        action="store_true",
        help="with --landed-cw, run the 64-arm rows (--cw-horizon-64 steps) on the landed checkout too",
    )
    ap.add_argument(
        "--cw-panels",
        default="",
        help="CW-RMED's one-run rows also on Figure 1's panel matrices (benchmarks/figure1.py), e.g. a,c",
    )
    ap.add_argument(
        "--policies",
        default=",".join(POLICIES),
        help="comma-separated policies to measure (default: all; CW-RMED's one-run table only with cw-rmed)",
    )
    ap.add_argument("--out", default=str(HERE / "results" / "policies.json"))
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.write_costs:
        STEP_COSTS.write_text(json.dumps(step_costs(), indent=1) + "\n")
        print(f"wrote {STEP_COSTS}")
        return
    policies = [p for p in a.policies.split(",") if p]
    unknown = sorted(set(policies) - set(POLICIES))
    if unknown or not policies:
        ap.error(
            f"--policies: unknown {', '.join(unknown)}; choose from {', '.join(POLICIES)}"
            if unknown
            else "--policies: name at least one policy"
        )
    if a.worker:
        print(json.dumps(worker(json.loads(a.worker))))
        return
    for opt in ("steps", "cw_steps", "horizon", "runs", "cw_horizon", "cw_horizon_64"):
        low = 0 if opt.startswith("cw_horizon") else 1
        if getattr(a, opt) < low:
            ap.error(
                f"--{opt.replace('_', '-')} = {getattr(a, opt)} must be >= {low}"
                + (" (0 leaves the run out)" if low == 0 else "")
            )

    from boundcalc.datasets import load_example, random_matrix

    mats = {
        "mslr5-condorcet": load_example("mslr5-condorcet").mu.tolist(),
        "mslr5-noncondorcet": load_example("mslr5-noncondorcet").mu.tolist(),
    }
    m16 = mslr_submatrix(16, 0)
    mats["mslr16" if m16 is not None else "random16"] = (
        m16 if m16 is not None else random_matrix(16, np.random.default_rng(0), min_gap=0.005).mu.tolist()
    )
    cw = {"table2 (K = 4)": load_example("table2").mu.tolist()}
    for K in (16, 64):
        sub = mslr_submatrix(K, K, 0.005 if K <= 16 else 1e-6)
        if sub is not None:
            cw[f"mslr K = {K}"] = sub
    # a horizon of 0 leaves its runs out (simulate refuses a horizon below 1)
    cw = {label: mu for label, mu in cw.items() if (a.cw_horizon if len(mu) <= 16 else a.cw_horizon_64) > 0}
    spec = dict(
        policies=policies,
        matrices=mats,
        cw_matrices=cw,
        steps=a.steps,
        cw_steps=a.cw_steps,
        horizon=a.horizon,
        runs=a.runs,
        cw_horizon=a.cw_horizon,
        cw_horizon_64=a.cw_horizon_64,
        cw_panels=[k for k in a.cw_panels.split(",") if k],
    )
    t0 = time.time()
    now = run_worker(ROOT, spec)
    landed = None
    if a.landed:
        # CW-RMED on 64 arms runs in the --landed checkout only with --landed-cw-64 (hours where its LP is slow)
        lcw = {k: v for k, v in spec["cw_matrices"].items() if len(v) <= 16 or a.landed_cw_64} if a.landed_cw else {}
        lspec = dict(
            spec,
            cw_matrices=lcw,
            cw_panels=spec["cw_panels"]
            if a.landed_cw and a.landed_cw_64
            else [k for k in spec["cw_panels"] if k != "c"],
        )
        landed = run_worker(Path(a.landed).resolve(), lspec)

    rows = []
    print(
        "user loop, landed, kernel, user-kernel: measured now (CPU us per step); C++ us: quoted, not measured"
        " here (the D-TS authors' library, g++ -O2, per step with its simulator, as the docs' speed page quotes them)"
    )
    print(
        f"{'policy':10s} {'matrix':20s} {'K':>3s} {'user loop us':>13s} {'landed':>9s} {'kernel us':>10s} "
        f"{'landed':>9s} {'C++ quoted':>10s} {'C++/kernel':>10s} {'user-kernel':>11s}"
    )
    for key, (K, user) in now["user"].items():
        name, label = key.split("|")
        kern = now["kernel"].get(key, (K, None))[1]
        lu = landed["user"].get(key, (K, None))[1] if landed else None
        lk = landed["kernel"].get(key, (K, None))[1] if landed else None
        cpp = CPP.get((name, K))
        f = lambda x, w=9: f"{x * 1e6:{w}.2f}" if x is not None else f"{'-':>{w}s}"  # noqa: E731
        ratio = f"{cpp / (kern * 1e6):10.1f}" if (cpp and kern) else f"{'-':>10s}"
        over = f"{(user - kern) * 1e6:11.2f}" if kern is not None else f"{'-':>11s}"
        print(
            f"{name:10s} {label:20s} {K:3d} {f(user, 13)} {f(lu)} {f(kern, 10)} {f(lk)} "
            f"{cpp if cpp else '-':>10} {ratio} {over}"
        )
        rows.append(
            dict(
                policy=name,
                matrix=label,
                K=K,
                user_us=user * 1e6,
                kernel_us=None if kern is None else kern * 1e6,
                landed_user_us=None if lu is None else lu * 1e6,
                landed_kernel_us=None if lk is None else lk * 1e6,
                cpp_us_quoted=cpp,
            )
        )
    print()
    print(
        f"{'CW-RMED, one run':24s} {'K':>3s} {'steps':>7s} {'CPU s':>8s} {'landed':>8s} {'ratio':>6s} "
        f"{'per 10^5':>9s} {'target':>7s}"
    )
    cw_rows = []
    for label, (K, sec, steps) in now["cw"].items():
        ls = landed["cw"].get(label, (K, None))[1] if landed else None
        per = sec * 1e5 / steps  # a shorter run scaled linearly: an upper bound where early steps cost the most
        print(
            f"{label:24s} {K:3d} {steps:7d} {sec:8.2f} {(f'{ls:8.2f}' if ls is not None else '-'):>8s} "
            f"{(f'{sec / ls:6.2f}' if ls else '-'):>6s} {per:9.2f} {CW_TARGET.get(K, float('nan')):7.1f}"
        )
        cw_rows.append(
            dict(
                matrix=label,
                K=K,
                steps=steps,
                cpu_seconds=sec,
                cpu_seconds_scaled_10_5=per,
                target_10_5=CW_TARGET.get(K),
                landed_cpu_seconds=ls,
            )
        )
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        json.dumps(
            dict(
                rows=rows,
                cw_rmed=cw_rows,
                args=vars(a),
                cpp_source="cpp_us_quoted: quoted from the D-TS authors' C++ library (g++ -O2,"
                " per step with its simulator), not measured by this script",
                python=platform.python_version(),
                machine=platform.machine(),
                wall_seconds=time.time() - t0,
            ),
            indent=1,
        )
        + "\n"
    )
    print(f"\nwritten {out}")


if __name__ == "__main__":
    main()
