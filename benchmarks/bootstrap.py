#!/usr/bin/env python
"""The bootstrap of the constants (:func:`boundcalc.uncertainty.bootstrap`): its time on a 136-arm
matrix, and how often its intervals cover the true constants.

Timing (``--part timing``)
    Win counts are simulated from the bundled 136 x 136 MSLR informational matrix
    (``load_example("mslr-informational")``, Komiyama et al. 2016, Sec. 5) with ``n`` Bernoulli
    duels per pair (seed 0), and ``D`` posterior draws are bootstrapped for a set of constants:
    ``ecw`` (000 Theorem 5, closed form) and ``lower_bound,ecw`` (what ``bounds --bootstrap``
    computes: the LP of 000 Theorem 2 on every draw).  Each configuration runs in-process (CPU
    seconds by ``time.process_time``, one process) and on a local Dask cluster of ``--workers``
    (default 2) processes (wall seconds); both must give the same rows (the warm LP within its
    tolerance).  The machine's load average is recorded with each: wall seconds on a shared
    machine overstate the time on two free cores, which is about the CPU seconds / 2.  Where ``D``
    is below 1,000, the time of 1,000 draws is projected from the measured per-draw time, and said
    so.  Writes ``benchmarks/results/bootstrap.json``.

Profile (``--part profile``)
    Why a draw of weak data costs more than the true matrix: for the first ``--profile-draws``
    draws at 10^3, 10^4 and 10^5 duels per pair, the Copeland winners of the draw and, per solver
    setting, the CPU of one cold solve on the plain model (``per_i2=1`` and ``per_i2=3``), of one
    plain solver kept warm over the draws (``previous_path``: Theorem 6's closed form with two or
    more winners, else the plain model with ``per_i2=3``) and of the bootstrap's path
    (``bootstrap_path``: the closed form, else the sorted-pool model), the LP's rows and rounds, and the
    values' largest relative difference to the cold solve.  Writes
    ``benchmarks/results/bootstrap_profile.json``.

Coverage (``--part coverage``)
    A known 4-arm matrix (gaps 0.08-0.25) and ``n`` duels per pair: ``--logs`` simulated logs,
    each bootstrapped with ``--cov-draws`` posterior draws; the fraction of logs whose 95 %
    interval contains the true constant, with its binomial standard error.  Writes
    ``benchmarks/results/bootstrap_coverage.json``.

Bradley-Terry at leaderboard scale (``--part bradley-terry``)
    A sparse 300-arm comparison graph (each arm dueled against 10 others drawn at random, 50
    duels per pair, Bradley-Terry strengths evenly spaced in [-2, 2] plus N(0, 0.2) noise; seed
    0) bootstrapped under the model (``scheme="bradley-terry"``: every pair's battles resampled,
    the MLE refitted, 000's lower bound and ECW on each draw) with ``--bt-draws`` (default 200)
    draws, in-process and on a local Dask cluster of ``--workers`` processes; the same rows from
    both.  BLAS runs one thread per process (``OPENBLAS_NUM_THREADS=1``, set by this part before
    numpy loads it in the workers): on a shared two-core machine a threaded BLAS spins and a
    300 x 300 solve takes 100 times longer.  Writes ``benchmarks/results/bootstrap_bt300.json``.

    python3 benchmarks/bootstrap.py [--part timing|profile|coverage|bradley-terry|all] [--workers 2] [--logs 200]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import time
from pathlib import Path

if "--part" in sys.argv and "bradley-terry" in sys.argv:  # one BLAS thread per process (module text)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import boundcalc
from boundcalc.datasets import load_example
from boundcalc.uncertainty import bootstrap

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
TRUE4 = np.array([[0.5, 0.62, 0.7, 0.75], [0.38, 0.5, 0.6, 0.68], [0.3, 0.4, 0.5, 0.58], [0.25, 0.32, 0.42, 0.5]])
#: (duels per pair, constants, draws, also on Dask): the timing configurations.
TIMING = [
    (1000, ["ecw"], 1000, True),
    (10**5, ["lower_bound", "ecw"], 1000, True),
    (10**4, ["lower_bound", "ecw"], 1000, True),
    (1000, ["lower_bound", "ecw"], 1000, True),
]


def simulated_counts(mu: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """Win counts of ``n`` Bernoulli duels per pair from ``mu``."""
    K = mu.shape[0]
    W = np.zeros((K, K))
    iu = np.triu_indices(K, 1)
    w = rng.binomial(n, mu[iu])
    W[iu], W[(iu[1], iu[0])] = w, n - w
    return W


def table(headers, rows) -> str:
    cells = [list(map(str, headers))] + [[str(c) for c in r] for r in rows]
    w = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    out = [
        "  ".join(c.ljust(w[i]) if i == 0 else c.rjust(w[i]) for i, c in enumerate(cells[0])),
        "  ".join("-" * x for x in w),
    ]
    out += ["  ".join(c.ljust(w[i]) if i == 0 else c.rjust(w[i]) for i, c in enumerate(r)) for r in cells[1:]]
    return "\n".join(out)


def same_rows(a, b) -> bool:
    for x, y in zip(a, b):
        if x["index"] != y["index"] or x.get("winners") != y.get("winners"):
            return False
        for k, v in x.get("values", {}).items():
            w = y["values"][k]
            if (v is None) != (w is None) or (v is not None and not math.isclose(v, w, rel_tol=1e-6, abs_tol=1e-9)):
                return False
    return len(a) == len(b)


def timing(workers: int) -> dict:
    mu = load_example("mslr-informational").mu
    out = []
    for n, keys, draws, on_dask in TIMING:
        W = simulated_counts(mu, n, np.random.default_rng(0))
        c0, w0 = time.process_time(), time.perf_counter()
        local = bootstrap(W, draws, seed=0, keys=keys, workers=0, progress=False)
        cpu, wall_local = time.process_time() - c0, time.perf_counter() - w0
        entry = {
            "duels_per_pair": n,
            "keys": keys,
            "draws": draws,
            "cpu_seconds_in_process": cpu,
            "wall_seconds_in_process": wall_local,
            "cpu_ms_per_draw": 1e3 * cpu / draws,
            "projected_cpu_seconds_1000": cpu * 1000 / draws,
            "structure_differs": local.structure_differs,
            "interval": {k: local.constant(k)["interval"] for k in keys},
            "value": {k: local.constant(k)["value"] for k in keys},
            "load_average": os.getloadavg(),
        }
        wall = None
        if on_dask:
            w0 = time.perf_counter()
            dask = bootstrap(W, draws, seed=0, keys=keys, workers=workers, progress=False)
            wall = time.perf_counter() - w0
            entry.update(
                wall_seconds_dask=wall,
                workers=workers,
                seconds_cluster=dask.stats["seconds_cluster"],
                seconds_compute_dask=dask.stats["seconds_compute"],
                same_rows=same_rows(local.rows, dask.rows),
            )
        out.append(entry)
        print(
            f"n = {n:>6}, {','.join(keys):15s} {draws:5d} draws: {cpu:7.1f} s CPU in-process"
            f" ({entry['cpu_ms_per_draw']:.1f} ms/draw)"
            + (f", {wall:6.1f} s wall on {workers} workers" if wall is not None else ""),
            flush=True,
        )
    rows = [
        (
            r["duels_per_pair"],
            ",".join(r["keys"]),
            r["draws"],
            f"{r['cpu_ms_per_draw']:.1f}",
            f"{r['cpu_seconds_in_process']:.1f}",
            f"{r['projected_cpu_seconds_1000']:.0f}",
            "-" if r.get("wall_seconds_dask") is None else f"{r['wall_seconds_dask']:.1f}",
            f"{r['structure_differs']:.2f}",
            r.get("same_rows", "-"),
            f"{r['load_average'][0]:.1f}",
        )
        for r in out
    ]
    print()
    print(
        table(
            [
                "duels/pair",
                "constants",
                "draws",
                "CPU ms/draw",
                "CPU s",
                "CPU s / 1000 draws",
                f"wall s ({workers} workers)",
                "P(structure differs)",
                "same rows",
                "load",
            ],
            rows,
        )
    )
    return {"matrix": "mslr-informational (136 arms)", "configurations": out}


def profile(draws: int) -> dict:
    from boundcalc.lp.online import CopelandLPSolver
    from boundcalc.lp.structure import as_structure
    from boundcalc.matrix import PreferenceMatrix
    from boundcalc.uncertainty import _full, _lower_bound, draw_upper

    def plain(per_i2: int, cache_size: int = 8) -> CopelandLPSolver:
        """The plain model alone, ``per_i2`` cuts per violated ``i2`` and round."""
        s = CopelandLPSolver(cache_size=cache_size)
        s.lift, s.per_i2 = False, per_i2
        return s

    previous = plain(3, cache_size=1)  # one plain solver kept warm over the draws

    mu = load_example("mslr-informational").mu
    true = PreferenceMatrix(mu)
    CopelandLPSolver().solve(true)  # load the compiled kernels
    c0 = time.process_time()
    r0 = CopelandLPSolver().solve(true, certify=False)
    out = {
        "true_matrix": {
            "cpu_ms": 1e3 * (time.process_time() - c0),
            "rows": r0.stats["rows"],
            "rounds": r0.stats["rounds"],
            "winners": true.copeland_winners.tolist(),
            "top_score": int((mu > 0.5).sum(1).max()),
        },
        "settings": [],
    }
    for n in (1000, 10**4, 10**5):
        W = simulated_counts(mu, n, np.random.default_rng(0))
        rows = []
        for r in range(draws):
            pm = PreferenceMatrix(_full(draw_upper(W, r, 0), mu.shape[0]))
            row = {"draw": r, "winners": pm.copeland_winners.tolist(), "top_score": int((pm.mu > 0.5).sum(1).max())}
            for label, solve in (
                ("cold_per_i2_1", lambda: plain(1).solve(pm, certify=False)),
                ("cold_per_i2_3", lambda: plain(3).solve(pm, certify=False)),
                ("previous_path", lambda: previous.solve_empirical(as_structure(pm), certify=False)),
                ("bootstrap_path", lambda: _lower_bound(pm)),
            ):
                c0 = time.process_time()
                res = solve()
                row[label] = {
                    "cpu_ms": 1e3 * (time.process_time() - c0),
                    "value": res.value,
                    "rows": res.stats["rows"],
                    "rounds": res.stats["rounds"],
                    "method": res.stats["method"],
                }
            rows.append(row)
            print(
                f"n = {n:>6} draw {r:2d}: winners {row['winners']} "
                + ", ".join(
                    f"{k} {row[k]['cpu_ms']:.0f} ms ({row[k]['rows']} rows)"
                    for k in row
                    if k.startswith(("cold", "boot", "prev"))
                ),
                flush=True,
            )
        labels = [k for k in rows[0] if k.startswith(("cold", "boot", "prev"))]
        ref = np.array([x["cold_per_i2_1"]["value"] for x in rows])
        out["settings"].append(
            {
                "duels_per_pair": n,
                "draws": draws,
                "rows": rows,
                "mean_cpu_ms": {k: float(np.mean([x[k]["cpu_ms"] for x in rows])) for k in labels},
                "max_rel_diff_to_cold": {
                    k: float(np.max(np.abs(np.array([x[k]["value"] for x in rows]) - ref) / ref)) for k in labels
                },
                "multi_winner_draws": sum(len(x["winners"]) > 1 for x in rows),
            }
        )
    print()
    print(
        table(
            ["duels/pair", "draws", "draws with >= 2 winners"] + [f"{k} ms" for k in labels],
            [
                (s_["duels_per_pair"], s_["draws"], s_["multi_winner_draws"])
                + tuple(f"{s_['mean_cpu_ms'][k]:.0f}" for k in labels)
                for s_ in out["settings"]
            ],
        )
    )
    return out


def coverage(logs: int, draws: int) -> dict:
    truth = boundcalc.compare(TRUE4, keys=["lower_bound", "ecw"]).values()
    out = []
    for n in (300, 50):
        rng = np.random.default_rng(2024 + n)
        covered = {k: 0 for k in truth}
        widths = {k: [] for k in truth}
        c0 = time.process_time()
        for rep in range(logs):
            W = simulated_counts(TRUE4, n, rng)
            res = bootstrap(W, draws, seed=rep, workers=0, progress=False)
            for k in truth:
                lo, hi = res.constant(k)["interval"]
                covered[k] += lo <= truth[k] <= hi
                widths[k].append(hi - lo)
        cov = {k: covered[k] / logs for k in truth}
        se = {k: math.sqrt(cov[k] * (1 - cov[k]) / logs) for k in truth}
        out.append(
            {
                "duels_per_pair": n,
                "logs": logs,
                "draws": draws,
                "level": 0.95,
                "true": truth,
                "coverage": cov,
                "coverage_se": se,
                "median_width": {k: float(np.median(widths[k])) for k in truth},
                "cpu_seconds": time.process_time() - c0,
            }
        )
        print(f"n = {n}: coverage " + ", ".join(f"{k} {cov[k]:.3f} +- {se[k]:.3f}" for k in truth), flush=True)
    print()
    print(
        table(
            ["duels/pair", "logs", "draws", "constant", "true value", "coverage (95 % intervals)", "s.e."],
            [
                (
                    r["duels_per_pair"],
                    r["logs"],
                    r["draws"],
                    k,
                    f"{r['true'][k]:.4g}",
                    f"{r['coverage'][k]:.3f}",
                    f"{r['coverage_se'][k]:.3f}",
                )
                for r in out
                for k in r["true"]
            ],
        )
    )
    return {"matrix": TRUE4.tolist(), "scheme": "posterior, Beta(W_ij + 1/2, W_ji + 1/2)", "settings": out}


def bt_counts(K: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A sparse Bradley-Terry log's counts (the part's text): ``(W, strengths)``."""
    s = np.linspace(2, -2, K) + rng.normal(0, 0.2, K)
    W = np.zeros((K, K))
    for i in range(K):
        for d in rng.choice(np.arange(1, K), 10, replace=False):
            j = (i + d) % K
            w = rng.binomial(50, 1 / (1 + np.exp(s[j] - s[i])))
            W[i, j] += w
            W[j, i] += 50 - w
    return W, s


def bradley_terry_timing(workers: int, draws: int, K: int = 300) -> dict:
    W, _ = bt_counts(K, np.random.default_rng(0))
    T = np.zeros_like(W)
    kw = dict(seed=0, keys=["lower_bound", "ecw"], scheme="bradley-terry", tie_counts=T, progress=False)
    c0, w0 = time.process_time(), time.perf_counter()
    local = bootstrap(W, draws, workers=0, **kw)
    cpu, wall_local = time.process_time() - c0, time.perf_counter() - w0
    load_local = os.getloadavg()
    w0 = time.perf_counter()
    dask = bootstrap(W, draws, workers=workers, **kw)
    wall = time.perf_counter() - w0
    rep = {
        "K": K,
        "pairs_met": int(np.count_nonzero(np.triu(W + W.T, 1))),
        "duels": float(W.sum()),
        "draws": draws,
        "scheme": "bradley-terry (every pair's battles resampled, the MLE refitted)",
        "cpu_seconds_in_process": cpu,
        "wall_seconds_in_process": wall_local,
        "load_average_in_process": load_local,
        "workers": workers,
        "wall_seconds_dask": wall,
        "seconds_cluster": dask.stats["seconds_cluster"],
        "load_average_dask": os.getloadavg(),
        "undefined_draws": local.stats["tied_draws"],
        "same_rows": same_rows(local.rows, dask.rows),
        "interval": {k: local.constant(k)["interval"] for k in ("lower_bound", "ecw")},
        "value": {k: local.constant(k)["value"] for k in ("lower_bound", "ecw")},
        "blas_threads": os.environ.get("OPENBLAS_NUM_THREADS"),
    }
    print(
        table(
            ["K", "draws", "in-process CPU s", "in-process wall s", f"Dask wall s ({workers} workers)", "same rows"],
            [(K, draws, f"{cpu:.1f}", f"{wall_local:.1f}", f"{wall:.1f}", rep["same_rows"])],
        )
    )
    return rep


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", choices=["timing", "coverage", "profile", "bradley-terry", "all"], default="all")
    ap.add_argument("--bt-draws", type=int, default=200, help="draws of the Bradley-Terry part (default 200)")
    ap.add_argument("--profile-draws", type=int, default=12, help="draws per setting in the profile part")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--logs", type=int, default=200, help="simulated logs per coverage setting (default 200)")
    ap.add_argument("--cov-draws", type=int, default=200, help="draws per log in the coverage part (default 200)")
    a = ap.parse_args(argv)
    RESULTS.mkdir(parents=True, exist_ok=True)
    meta = {
        "boundcalc": boundcalc.__version__,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    if a.part in ("timing", "all"):
        rep = dict(meta, **timing(a.workers))
        (RESULTS / "bootstrap.json").write_text(json.dumps(rep, indent=1) + "\n")
        print(f"wrote {RESULTS / 'bootstrap.json'}")
    if a.part in ("profile", "all"):
        rep = dict(meta, **profile(a.profile_draws))
        (RESULTS / "bootstrap_profile.json").write_text(json.dumps(rep, indent=1) + "\n")
        print(f"wrote {RESULTS / 'bootstrap_profile.json'}")
    if a.part in ("bradley-terry", "all"):
        rep = dict(meta, **bradley_terry_timing(a.workers, a.bt_draws))
        (RESULTS / "bootstrap_bt300.json").write_text(json.dumps(rep, indent=1) + "\n")
        print(f"wrote {RESULTS / 'bootstrap_bt300.json'}")
    if a.part in ("coverage", "all"):
        rep = dict(meta, **coverage(a.logs, a.cov_draws))
        (RESULTS / "bootstrap_coverage.json").write_text(json.dumps(rep, indent=1) + "\n")
        print(f"wrote {RESULTS / 'bootstrap_coverage.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
