#!/usr/bin/env python
"""Speed of the exact Copeland lower bound (000 Theorem 2): three families from 16 to 300 arms,
the 136-arm MSLR matrices, online use, all against the landed version in the same process.

Cases (every offline solve is cold: a fresh solver; times are CPU seconds of this process,
``time.process_time``, best of ``--repeat`` for one matrix, median over several matrices):

* the three 136 x 136 MSLR matrices (informational, navigational, perfect): time, rounds, rows,
  columns, churn (rows added / deleted / re-added), peak memory of one solve (resident set size
  above the process's size before the solve, sampled every 0.5 ms in a fresh subprocess after a
  small warm-up solve has loaded the imports and compiled kernels);
* a scaling table over K = 16 .. 300 for three families, with fitted growth exponents
  (least squares of log time on log K): random submatrices of the MSLR informational matrix
  (K <= 136), :func:`boundcalc.datasets.utility_matrix` (ranker-like, noise 0.05) and
  :func:`boundcalc.datasets.tournament_matrix` (uniform random tournaments, ``|mu - 1/2| ~
  U(0.05, 0.5)``, random orientation: the hard family); the time per part (HiGHS, separation and
  cut building) and the model's size; the peak memory of a 300-arm tournament solve;
* online (CW-RMED's use, 000 Algorithm 1): a 16-arm empirical matrix one duel apart per step,
  the warm re-solve and the violation query (check (3));
* the naive reference: every row enumerated and solved through cvxpy (small K only), whose
  value must agree with the cutting plane (and so must the landed version's).

The *landed* version is the package at ``--baseline`` (a git revision, default ``eccb83b``, the
last commit before the lifted cuts), extracted with ``git archive`` into a temporary folder and
imported in this same process as ``boundcalc_landed``; its churn is counted by wrapping its
``CoveringLP.add_rows`` (a row whose hashes were added before is a re-add).  When the next size
of a family would take the landed version longer than ``--landed-budget`` seconds (predicted
from the last one with its K^3.6 growth on tournaments: K = 128 took 257-343 s), larger K of
that family are not run landed.  ``--no-baseline`` skips it.

Prints tables and writes JSON (``benchmarks/results/lower_bound.json`` by default).  Skips what it
cannot find: the MSLR data are read from ``../shared/data/public`` (or ``$BOUNDCALC_SHARED``).
Machine load moves times by 20-40 %: compare columns of one run, not runs of different days.

    python benchmarks/lower_bound.py [--quick] [--no-baseline] [--out FILE]
    python benchmarks/lower_bound.py formulations [--main /work/main] [--ks 100,...,1000]

The second form compares the offline bound's formulations (plain and sorted pools:
:func:`formulations`) with each other and with the current main; JSON in
``benchmarks/results/lower_bound_formulations.json``.
"""

from __future__ import annotations

import argparse
import importlib
import io
import json
import os
import platform
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import timeit
from pathlib import Path

import numpy as np

import boundcalc
from boundcalc import PreferenceMatrix
from boundcalc.datasets import tournament_matrix, utility_matrix
from boundcalc.lp import CopelandFamily, CopelandLPSolver, empirical_mu, empirical_structure
from boundcalc.lp.cutting import load_kernels
from boundcalc.lp.full import lower_bound_enumerate

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
TARGETS = {
    "mslr136": 0.030,
    ("tournament", 128): 5.0,
    ("tournament", 200): 20.0,
    ("tournament", 300): 60.0,
    "exponent": 2.5,
    "peak_mb_300": 500.0,
}


def shared_dir() -> Path:
    env = os.environ.get("BOUNDCALC_SHARED")
    return Path(env) if env else REPO.parent / "shared"


def cpu_best(f, repeat: int):
    best, out = float("inf"), None
    for _ in range(max(1, repeat)):
        t0 = time.process_time()
        out = f()
        best = min(best, time.process_time() - t0)
    return best, out


def load_landed(rev: str, tmp: Path):
    """Import the package at git revision ``rev`` as ``boundcalc_landed`` (None if impossible)."""
    try:
        data = subprocess.run(
            ["git", "-C", str(REPO), "archive", rev, "boundcalc"], check=True, capture_output=True
        ).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        print(f"landed version skipped: git archive {rev} failed ({exc})", file=sys.stderr)
        return None
    with tarfile.open(fileobj=io.BytesIO(data)) as tf:
        tf.extractall(tmp, filter="data")
    (tmp / "boundcalc").rename(tmp / "boundcalc_landed")
    sys.path.insert(0, str(tmp))
    try:
        mod = importlib.import_module("boundcalc_landed")
    except Exception as exc:  # noqa: BLE001 - report and go on without it
        print(f"landed version skipped: import failed ({exc!r})", file=sys.stderr)
        return None
    _count_landed_churn(mod)
    return mod


def _count_landed_churn(mod) -> None:
    """Wrap the landed ``CoveringLP.add_rows`` to count rows added again after a deletion."""
    highs = importlib.import_module(mod.__name__ + ".lp.highs")
    cons = importlib.import_module(mod.__name__ + ".lp.constraints")
    orig = highs.CoveringLP.add_rows

    def add_rows(self, rows):
        block = rows if isinstance(rows, cons.RowBlock) else cons.rows_to_csr(list(rows))
        h1, h2 = cons.row_hashes(block, self.n)
        ever = self.__dict__.setdefault("_ever", set())
        before = set(self._keys)
        n = orig(self, block)
        new = [k for k in zip(h1.tolist(), h2.tolist()) if k in self._keys and k not in before]
        self.__dict__["readded"] = self.__dict__.get("readded", 0) + sum(k in ever for k in set(new))
        ever.update(new)
        return n

    highs.CoveringLP.add_rows = add_rows


def _cached_lps(solver):
    """The HiGHS models a solver's cache holds: an entry's ``lp``, or its plain and sorted models' ``lp``."""
    for e in solver._cache.values():
        for m in (getattr(e, "lp", None), getattr(e, "model", None), getattr(e, "sorted", None)):
            lp = getattr(m, "lp", m)
            if lp is not None and lp is not False:
                yield lp


def landed_solve(landed, mu: np.ndarray):
    solver = landed.CopelandLPSolver()
    res = solver.solve(landed.PreferenceMatrix(mu))
    res.stats["rows_readded"] = sum(lp.__dict__.get("readded", 0) for lp in _cached_lps(solver))
    return res


_MEM_SCRIPT = r"""
import sys, threading, time
if sys.argv[3]:
    sys.path.insert(0, sys.argv[3])
mod = __import__(sys.argv[1])
def rss_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0
pm = mod.PreferenceMatrix.from_file(sys.argv[2])
small = mod.PreferenceMatrix(pm.mu[:30, :30])
mod.CopelandLPSolver().solve(small)  # imports, compiled kernels loaded: not part of the solve
before = rss_kb()
peak = [before]
done = threading.Event()
def sample():
    while not done.is_set():
        peak[0] = max(peak[0], rss_kb())
        time.sleep(0.0005)
th = threading.Thread(target=sample)
th.start()
mod.CopelandLPSolver().solve(pm)
done.set()
th.join()
peak[0] = max(peak[0], rss_kb())
print((peak[0] - before) / 1024)
"""


def peak_memory_mb(module: str, path: Path, extra_path: str = "") -> float | None:
    """Peak resident memory (MB) of one cold solve above the process's size before it."""
    if not Path("/proc/self/status").exists():
        return None
    try:
        out = subprocess.run(
            [sys.executable, "-c", _MEM_SCRIPT, module, str(path), extra_path],
            check=True,
            capture_output=True,
            text=True,
            timeout=900,
        ).stdout
        return float(out.strip().splitlines()[-1])
    except Exception as exc:  # noqa: BLE001
        print(f"memory of {module} on {path.name} not measured: {exc}", file=sys.stderr)
        return None


def online_case(info, K: int = 16, steps: int = 400, seed: int = 1):
    """A sequence of empirical matrices, one duel apart (one Copeland winner: the LP path)."""
    rng = np.random.default_rng(seed)
    while True:
        pm = info.submatrix(np.sort(rng.choice(info.K, K, replace=False)))
        if pm.n_winners == 1:
            break
    mu = pm.mu
    N = np.triu(rng.integers(300, 700, (K, K)), 1)
    N = N + N.T
    W = np.triu(rng.binomial(N, mu), 1)
    W = W + np.tril(N - W.T, -1)
    seq = []
    for _ in range(steps):
        i, j = rng.choice(K, 2, replace=False)
        if rng.random() < mu[i, j]:
            W[i, j] += 1
        else:
            W[j, i] += 1
        seq.append(empirical_mu(W))
    return pm, seq


def fit_exponent(ks, ts) -> float | None:
    ks, ts = np.asarray(ks, dtype=float), np.asarray(ts, dtype=float)
    ok = ts > 0
    if ok.sum() < 2:
        return None
    return float(np.polyfit(np.log(ks[ok]), np.log(ts[ok]), 1)[0])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer sizes, matrices and repeats (a smoke run)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=3, help="runs per single matrix (best is reported)")
    ap.add_argument("--baseline", default="eccb83b", help="git revision of the landed version")
    ap.add_argument("--no-baseline", action="store_true")
    ap.add_argument(
        "--landed-budget",
        type=float,
        default=30.0,
        help="run the landed version on the next size only if predicted to take less (s)",
    )
    ap.add_argument("--max-rows", type=int, default=20_000, help="enumerate only below this many rows")
    ap.add_argument("--out", default=str(HERE / "results" / "lower_bound.json"))
    args = ap.parse_args(argv)

    data = shared_dir() / "data" / "public"
    info_path = data / "nightingal3_MSLR_Informational_PMat.npz"
    have_mslr = info_path.exists()
    if not have_mslr:
        print(f"MSLR cases skipped: {info_path} not found (set BOUNDCALC_SHARED)", file=sys.stderr)
    tmp = Path(tempfile.mkdtemp(prefix="boundcalc_landed_"))
    landed = None if args.no_baseline else load_landed(args.baseline, tmp)
    repeat = 1 if args.quick else args.repeat
    load_kernels()  # compiled kernels loaded once, outside every timing
    CopelandLPSolver().solve(tournament_matrix(30, 99))
    if landed is not None:
        landed.CopelandLPSolver().solve(landed.PreferenceMatrix(tournament_matrix(30, 99).mu))
    records: list[dict] = []

    def check(case, ours, theirs, rtol=1e-7):
        if abs(ours - theirs) > rtol * max(1.0, abs(ours)):
            raise SystemExit(f"MISMATCH {case}: {ours} vs {theirs}")

    # ---- the 136-arm MSLR matrices
    if have_mslr:
        for name in ("Informational", "Navigational", "Perfect"):
            p = data / f"nightingal3_MSLR_{name}_PMat.npz"
            if not p.exists():
                continue
            pm = PreferenceMatrix.from_file(p)
            t, res = cpu_best(lambda: CopelandLPSolver().solve(pm), 5 * repeat)
            rec = {
                "case": f"MSLR {name.lower()} 136x136",
                "family": "mslr136",
                "K": 136,
                "seconds": t,
                "target_seconds": TARGETS["mslr136"],
                "value": res.value,
                "gap": res.certificate.gap,
                "peak_mb": peak_memory_mb("boundcalc", p),
                **{k: res.stats[k] for k in STAT_KEYS},
            }
            if landed is not None:
                lt, lres = cpu_best(lambda: landed_solve(landed, pm.mu), repeat)
                check(name, res.value, lres.value)
                rec.update(
                    landed_seconds=lt,
                    landed_rounds=lres.stats["rounds"],
                    landed_rows=lres.stats["rows"],
                    landed_rows_added=lres.stats["rows_added"],
                    landed_rows_removed=lres.stats["rows_removed"],
                    landed_rows_readded=lres.stats["rows_readded"],
                    landed_peak_mb=peak_memory_mb("boundcalc_landed", p, str(tmp)),
                )
            records.append(rec)
            print(f"  {rec['case']}: {t * 1e3:.1f} ms", file=sys.stderr)

    # ---- scaling: three families, K = 16 .. 300
    info = PreferenceMatrix.from_file(info_path) if have_mslr else None
    sizes = {
        "mslr-sub": [16, 24, 32, 48, 64, 96, 128],
        "utility": [16, 32, 64, 128, 200, 300],
        "tournament": [16, 24, 32, 48, 64, 80, 96, 128, 160, 200, 250, 300],
    }
    if args.quick:
        sizes = {"mslr-sub": [16, 64], "utility": [16, 128], "tournament": [16, 64, 128]}
    if info is None:
        sizes.pop("mslr-sub")
    rng = np.random.default_rng(args.seed)
    scaling: dict[str, list[dict]] = {}
    for fam, ks in sizes.items():
        landed_on = landed is not None
        for K in ks:
            n = 1 if args.quick else (8 if K <= 32 else 5 if K >= 160 else 3)
            mats = []
            for s in range(n):
                if fam == "mslr-sub":
                    mats.append(info.submatrix(np.sort(rng.choice(info.K, K, replace=False))))
                elif fam == "utility":
                    mats.append(utility_matrix(K, 100 * K + s, noise=0.05))
                else:
                    mats.append(tournament_matrix(K, 100 * K + s))
            rows, lts = [], []
            for pm in mats:
                t, res = cpu_best(lambda: CopelandLPSolver().solve(pm), repeat if K <= 128 else 1)
                assert res.status == "ok", res.message
                rows.append((t, res))
                if landed_on:
                    lt, lres = cpu_best(lambda: landed_solve(landed, pm.mu), 1)
                    check(f"{fam} K={K}", res.value, lres.value)
                    lts.append((lt, lres))
            nxt = [k for k in ks if k > K]
            if lts and nxt and max(r[0] for r in lts) * (nxt[0] / K) ** 3.6 > args.landed_budget:
                landed_on = False  # the next size would take longer than the budget (K^3.6 growth)
                print(f"  landed {fam} stops after K={K} ({max(r[0] for r in lts):.1f} s)", file=sys.stderr)
            med = sorted(rows, key=lambda r: r[0])[len(rows) // 2]
            per_lp = [r[0] / len(r[1].per_winner) for r in rows]  # one LP per Copeland winner
            rec = {
                "case": f"{fam} K={K}",
                "family": fam,
                "K": K,
                "matrices": n,
                "seconds": statistics.median(r[0] for r in rows),
                "max_seconds": max(r[0] for r in rows),
                "seconds_per_winner": statistics.median(per_lp),
                "winners": [len(r[1].per_winner) for r in rows],
                "target_seconds": TARGETS.get((fam, K)),
                **{k: med[1].stats[k] for k in STAT_KEYS},
            }
            if lts and len(lts) == len(rows):
                lmed = sorted(lts, key=lambda r: r[0])[len(lts) // 2]
                rec.update(
                    landed_seconds=statistics.median(r[0] for r in lts),
                    landed_rounds=lmed[1].stats["rounds"],
                    landed_rows=lmed[1].stats["rows"],
                    landed_rows_added=lmed[1].stats["rows_added"],
                    landed_rows_removed=lmed[1].stats["rows_removed"],
                    landed_rows_readded=lmed[1].stats["rows_readded"],
                )
            records.append(rec)
            scaling.setdefault(fam, []).append(rec)
            print(
                f"  {rec['case']}: {rec['seconds']:.3f} s"
                + (f" (landed {rec['landed_seconds']:.3f} s)" if "landed_seconds" in rec else ""),
                file=sys.stderr,
            )
    exponents = {}
    for fam, recs in scaling.items():
        ks = [r["K"] for r in recs]
        exponents[fam] = {
            "ours": fit_exponent(ks, [r["seconds"] for r in recs]),
            "ours_K>=64": fit_exponent([k for k in ks if k >= 64], [r["seconds"] for r in recs if r["K"] >= 64]),
            "per_winner": fit_exponent(ks, [r["seconds_per_winner"] for r in recs]),
            "per_winner_K>=64": fit_exponent(
                [k for k in ks if k >= 64], [r["seconds_per_winner"] for r in recs if r["K"] >= 64]
            ),
            "landed": fit_exponent(
                [r["K"] for r in recs if "landed_seconds" in r],
                [r["landed_seconds"] for r in recs if "landed_seconds" in r],
            ),
            "landed_K_max": max([r["K"] for r in recs if "landed_seconds" in r], default=None),
        }

    # ---- peak memory of a 300-arm tournament solve
    big = tmp / "tournament300.npy"
    np.save(big, tournament_matrix(300 if not args.quick else 128, 30000).mu)
    peak300 = peak_memory_mb("boundcalc", big)

    # ---- enumeration agrees (small K)
    n_enum = 0
    for K, mk in (
        (8, lambda s: tournament_matrix(8, 800 + s)),
        (
            16,
            (lambda s: info.submatrix(np.sort(np.random.default_rng(s).choice(info.K, 16, replace=False))))
            if info is not None
            else None,
        ),
    ):
        if mk is None:
            continue
        for s in range(3 if args.quick else 10):
            pm = mk(s)
            if sum(CopelandFamily(pm, w).n_rows() for w in pm.copeland_winners) > args.max_rows:
                continue
            check(f"enumeration K={K}", CopelandLPSolver().solve(pm).value, lower_bound_enumerate(pm).value, 1e-6)
            n_enum += 1

    # ---- online: warm re-solve and check (3) on a 16-arm empirical matrix
    online = []
    if info is not None:
        pm16, seq = online_case(info, 16, 400 if not args.quick else 150, 1)
        for label, kw in (("LP (certify=True)", dict(certify=True)), ("online default", {})):
            solver = CopelandLPSolver()
            for m in seq[: len(seq) // 4]:
                solver.solve_empirical(m, **kw)
            t0 = time.process_time()
            for m in seq[len(seq) // 4 :]:
                r = solver.solve_empirical(m, **kw)
            t = (time.process_time() - t0) / (len(seq) - len(seq) // 4)
            lt = None
            if landed is not None:
                lsolver = landed.CopelandLPSolver()
                for m in seq[: len(seq) // 4]:
                    lsolver.solve_empirical(m, **kw)
                t0 = time.process_time()
                for m in seq[len(seq) // 4 :]:
                    lsolver.solve_empirical(m, **kw)
                lt = (time.process_time() - t0) / (len(seq) - len(seq) // 4)
            online.append(
                {
                    "case": f"online warm re-solve K=16, {label}",
                    "seconds": t,
                    "landed_seconds": lt,
                    "method": r.method,
                    "rows": r.stats["rows"],
                }
            )
        solver = CopelandLPSolver()
        res = solver.solve_empirical(seq[-1])
        st = empirical_structure(seq[-1])
        q = res.allocations[res.winner] * 1.05
        n = 2000
        tq = (
            min(
                timeit.repeat(
                    lambda: solver.violation(st, q, res.winner, rows=False), number=n, repeat=5, timer=time.process_time
                )
            )
            / n
        )
        ltq = None
        if landed is not None:
            lsolver = landed.CopelandLPSolver()
            lst = landed.lp.empirical_structure(seq[-1])
            lsolver.solve_empirical(lst)
            ltq = (
                min(
                    timeit.repeat(
                        lambda: lsolver.violation(lst, q, res.winner, rows=False),
                        number=n,
                        repeat=5,
                        timer=time.process_time,
                    )
                )
                / n
            )
        online.append({"case": "violation query K=16 (structure given)", "seconds": tq, "landed_seconds": ltq})
    records += online

    # ---- tables
    def ms(x):
        return "-" if x is None else f"{x * 1e3:.3f}" if x < 1e-3 else f"{x * 1e3:.1f}"

    print("\nMSLR 136 x 136 (CPU ms, best of runs; churn = rows added / deleted / re-added)")
    hdr = [
        "matrix",
        "ours ms",
        "landed ms",
        "speed-up",
        "target",
        "rounds (landed)",
        "rows (landed)",
        "churn ours",
        "churn landed",
        "peak MB (landed)",
    ]
    table = []
    for r in (r for r in records if r.get("family") == "mslr136"):
        table.append(
            [
                r["case"],
                ms(r["seconds"]),
                ms(r.get("landed_seconds")),
                f"{r['landed_seconds'] / r['seconds']:.1f}x" if r.get("landed_seconds") else "-",
                ms(r["target_seconds"]),
                f"{r['rounds']} ({r.get('landed_rounds', '-')})",
                f"{r['rows']} ({r.get('landed_rows', '-')})",
                f"{r['rows_added']}/{r['rows_removed']}/{r['rows_readded']}",
                f"{r.get('landed_rows_added', '-')}/{r.get('landed_rows_removed', '-')}/"
                f"{r.get('landed_rows_readded', '-')}",
                f"{r['peak_mb'] or 0:.0f} ({r.get('landed_peak_mb') or 0:.0f})",
            ]
        )
    _print(hdr, table)
    print("\nScaling (CPU s, median over matrices; HiGHS / separation share of our time; model size)")
    hdr = [
        "case",
        "ours s",
        "landed s",
        "speed-up",
        "target s",
        "winners",
        "rounds (landed)",
        "rows",
        "block rows",
        "columns",
        "HiGHS %",
        "churn landed",
    ]
    table = []
    for fam, recs in scaling.items():
        for r in recs:
            share = r["lp_seconds"] / max(r["lp_seconds"] + r["separation_seconds"], 1e-12)
            table.append(
                [
                    r["case"],
                    f"{r['seconds']:.3f}",
                    f"{r['landed_seconds']:.3f}" if r.get("landed_seconds") is not None else "-",
                    f"{r['landed_seconds'] / r['seconds']:.1f}x" if r.get("landed_seconds") else "-",
                    "-" if r["target_seconds"] is None else f"{r['target_seconds']:.0f}",
                    ",".join(map(str, r["winners"])),
                    f"{r['rounds']} ({r.get('landed_rounds', '-')})",
                    r["rows"],
                    r.get("block_rows", "-"),
                    r["columns"],
                    f"{100 * share:.0f}",
                    f"{r.get('landed_rows_added', '-')}/{r.get('landed_rows_removed', '-')}/"
                    f"{r.get('landed_rows_readded', '-')}",
                ]
            )
    _print(hdr, table)
    print("\nFitted growth exponents (time ~ K^a; target a <= 2.5 on tournaments)")
    for fam, e in exponents.items():
        f = lambda v: "-" if v is None else f"{v:.2f}"  # noqa: E731
        print(
            f"  {fam}: ours {f(e['ours'])} (K >= 64: {f(e['ours_K>=64'])}; per winner's LP {f(e['per_winner'])},"
            f" K >= 64: {f(e['per_winner_K>=64'])}), landed {f(e['landed'])} (up to K = {e['landed_K_max']})"
        )
    print(
        f"\npeak memory of a {300 if not args.quick else 128}-arm tournament solve: "
        f"{'-' if peak300 is None else f'{peak300:.0f}'} MB (target < {TARGETS['peak_mb_300']:.0f})"
    )
    print(f"cutting plane == enumeration on {n_enum} matrices")
    for r in online:
        print(
            f"  {r['case']}: {r['seconds'] * 1e3:.3f} ms (landed {ms(r['landed_seconds'])} ms)"
            + (f", {r['method']}" if "method" in r else "")
        )

    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    meta = {
        "boundcalc": boundcalc.__version__,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "seed": args.seed,
        "timer": "process_time",
        "baseline": None if landed is None else args.baseline,
        "load_average": os.getloadavg(),
    }
    out.write_text(
        json.dumps(
            {
                "meta": meta,
                "results": records,
                "exponents": exponents,
                "peak_mb_tournament": peak300,
                "enumerated": n_enum,
            },
            indent=2,
            default=float,
        )
    )
    print(f"wrote {out}", file=sys.stderr)
    return 0


STAT_KEYS = (
    "rounds",
    "rows",
    "rows_added",
    "rows_removed",
    "rows_readded",
    "cut_rows",
    "block_rows",
    "columns",
    "pair_columns",
    "lp_seconds",
    "separation_seconds",
    "simplex_iterations",
)


def _print(hdr, table):
    widths = [max(len(str(x)) for x in col) for col in zip(hdr, *table)]
    print("  ".join(h.ljust(w) for h, w in zip(hdr, widths)))
    for row in table:
        print("  ".join(str(x).ljust(w) for x, w in zip(row, widths)))


# ----------------------------------------------------------------------------- formulations
#: One solve in a fresh interpreter: the tree on ``PYTHONPATH`` (this one, or ``--main``'s), a
#: small warm-up solve (imports), then the case's matrix and one timed solve (CPU seconds).
_ONE = r"""
import json, sys, time
import numpy as np
from boundcalc.datasets import load_example, random_matrix, tournament_matrix
from boundcalc.lp import CopelandLPSolver
case, K, seed, form = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
def make(case, K, seed):
    if case == "mslr136":
        return load_example("mslr-informational")
    if case == "tournament":
        return tournament_matrix(K, seed, low=0.05, high=0.45)
    return random_matrix(K, seed, min_gap=0.01)
kw = {"plain": dict(lift=False), "sorted": {}, "current": {}}[form]
def solver():
    s = CopelandLPSolver()
    for k, v in kw.items():  # the formulation: the rule's choice overridden
        setattr(s, k, v)
    return s
solver().solve(tournament_matrix(12, 1))
pm = make(case, K, seed)
t = time.process_time()
res = solver().solve(pm)
sec = time.process_time() - t
c = res.certificate
print(json.dumps({"seconds": sec, "status": res.status, "value": res.value, "rounds": res.stats["rounds"],
                  "rows": res.stats.get("rows"), "gap": None if c is None else c.gap,
                  "violation": None if c is None else c.max_violation}))
"""


def _one(tree: str, case: str, K: int, seed: int, form: str, timeout: float) -> dict:
    env = dict(os.environ, PYTHONPATH=tree)
    try:
        out = subprocess.run(
            [sys.executable, "-c", _ONE, case, str(K), str(seed), form],
            env=env,
            cwd=tree,  # python -c puts the working directory first on sys.path
            capture_output=True,
            text=True,
            timeout=timeout,
            check=True,
        )
    except subprocess.TimeoutExpired:
        return {"seconds": None, "status": f"over {timeout:.0f} s (stopped)"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def formulations(argv=None) -> int:
    """The plain and sorted-pool formulations of the offline bound against
    each other and against the current main (``--main``, a checkout imported in a subprocess),
    every solve in a fresh interpreter, the versions interleaved per matrix; CPU seconds of the
    solve; a formulation that is over ``--budget`` seconds on a family is not run at larger K."""
    ap = argparse.ArgumentParser(description=formulations.__doc__)
    ap.add_argument("--main", default="/work/main", help="a checkout of the current main (its tree on PYTHONPATH)")
    ap.add_argument("--budget", type=float, default=120.0, help="per-solve timeout, seconds")
    ap.add_argument("--ks", default="100,200,300,500,700,1000")
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--families", default="mslr136,random,tournament", help="comma-separated case families")
    ap.add_argument("--max-k-others", type=int, default=500, help="largest K of the plain rows")
    ap.add_argument("--this", default=str(REPO), help="the tree measured as this version (default: this checkout)")
    ap.add_argument("--out", default=str(HERE / "results" / "lower_bound_formulations.json"))
    args = ap.parse_args(argv)
    here = args.this
    cases = [("mslr136", 136, 0)]
    cases += [("random", K, 300 + K) for K in (8, 12, 16, 24, 32)]
    cases += [("tournament", int(K), s) for K in args.ks.split(",") for s in range(args.seeds)]
    cases = [c for c in cases if c[0] in args.families.split(",")]
    forms = [("current", args.main), ("sorted", here), ("plain", here)]
    over: set = set()
    rows = []
    hdr = ("case", "K", "seed") + tuple(f for f, _ in forms)
    print("  ".join(hdr))
    for case, K, seed in cases:
        row = {"case": case, "K": K, "seed": seed}
        for form, tree in forms:
            if (case, form) in over or (form == "plain" and K > args.max_k_others):
                row[form] = {"seconds": None, "status": "skipped (over budget at a smaller K)"}
                continue
            r = _one(tree, case, K, seed, form, args.budget)
            row[form] = r
            if r["seconds"] is None or r["seconds"] > args.budget / 2:
                over.add((case, form))
        vals = [row[f]["value"] for f, _ in forms if row[f].get("value") is not None]
        row["values_agree"] = bool(vals) and max(vals) - min(vals) <= 1e-9 * max(1.0, abs(max(vals)))
        rows.append(row)
        cells = [f"{row[f]['seconds']:.3f}" if row[f]["seconds"] is not None else "-" for f, _ in forms]
        print(f"{case} {K} {seed} " + " ".join(cells) + ("" if row["values_agree"] else "  VALUES DIFFER"), flush=True)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    meta = {
        "boundcalc": boundcalc.__version__,
        "python": platform.python_version(),
        "timer": "process_time of the solve, each in a fresh interpreter",
        "current": f"{args.main} ({_git_head(args.main)})",
        "this": _git_head(here),
        "load_average": os.getloadavg(),
        "argv": sys.argv[1:],
    }
    out.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1, default=float) + "\n")
    print(f"wrote {out}", file=sys.stderr)
    return 0


def _git_head(path: str) -> str:
    try:
        return subprocess.run(
            ["git", "-C", path, "rev-parse", "--short", "HEAD"], capture_output=True, text=True
        ).stdout.strip()
    except OSError:
        return "?"


if __name__ == "__main__":
    if sys.argv[1:2] == ["formulations"]:
        sys.exit(formulations(sys.argv[2:]))
    sys.exit(main())
