"""Paper 000's Figure 1 at its scale: regret against time on MSLR submatrices, with the lower bound.

Panels as in Komiyama, Honda & Nakagawa (ICML 2016), Sec. 5, Figure 1: (a) a 16-arm submatrix of
the MSLR informational matrix with a Condorcet winner, (b) a 16-arm one without, (c) a 64-arm one
without.  Policies: ECW-RMED, CW-RMED, RMED1, D-TS, CCB, RUCB (the paper's six; CW-RMED is also
run at 64 arms, which the paper could not).  The lower-bound line ``C* ln t`` is drawn on every
panel, at 64 arms too (000 could not compute it there), with ECW's ``C^E* ln t``.

Submatrices: arms drawn with a seeded generator until the matrix has the wanted Condorcet property
and every ``|mu_ij - 1/2| >= min_gap`` (0.005 at 16 arms as in 000's Table 1; at 64 arms no draw
is that far from ties, so 1e-6).  Every panel runs through :func:`boundcalc.simulate.simulate` (the
runner): rows go to ``OUT/<panel>-<policy>.jsonl``, so a killed run resumes where it stopped and a
call with more runs (``--cw-runs 20`` after 4) computes only the new ones (the panel's CPU time is
then the stored runs' plus each new run's own, its wall time the stored panel's plus this call's);
``--workers`` and ``--scheduler`` as in ``boundcalc simulate``.  Writes ``OUT/figure1.json`` (per
panel and policy: checkpoints, mean and standard error of the regret in 000's unit, CPU and wall
seconds) and ``OUT/figure1.png``.

    python3 benchmarks/figure1.py [--runs 100] [--horizon 100000] [--panels a,b,c] [--workers 2]

CW-RMED at 64 arms takes 13-15 CPU minutes a run on a loaded 2-core machine; its 100 runs are a
Dask job (the rows already stored are kept, only the missing runs are computed):

    python3 benchmarks/figure1.py --panels c --policies cw-rmed --cw-runs 100 --scheduler tcp://host:8786

Where a policy's row file is gone but ``figure1.json`` holds its summary of ``n`` runs (the rows
of a panel live on the machine that ran it), ``--carry`` keeps that summary for runs ``0, ...,
n - 1`` and computes only runs ``n, ...`` (:func:`boundcalc.simulate.simulate`'s ``first_run``:
each run has the numbers it has in one job of all runs), pooled with it exactly (:func:`pool`: the
mean and standard error of all runs from the two parts' counts, means and standard errors).  The
policy's entry then records the carried part (``"carried"``), and later calls pool with it again.

Where a panel's row files hold both CW-RMED's and ECW-RMED's runs, ``"paired"`` gives CW-RMED -
ECW-RMED per ln T over the runs both files hold (the runs share their duel outcomes, common
random numbers), mean and standard error, at ``T`` and (``"curve"``) at every checkpoint, and
(``"slopes"``) per decade the regret each policy adds per unit of ln t (its constant, once in its
ln T regime) and their paired difference; the figure draws the curve below the panel.

``--panels t2`` runs 000's Table 2 (4 arms, the bundled example) instead of an MSLR draw, e.g.
to ``T = 10^7``::

    python3 benchmarks/figure1.py --runs 100 --horizon 10000000 --panels t2 --policies ecw-rmed,cw-rmed --out benchmarks/results/table2-1e7

``--draw-only`` computes nothing: it refreshes ``OUT/figure1.json``'s paired entries from the row
files and redraws ``OUT/figure1.png`` (rows copied from another machine without its
``figure1.json``: run the same command as there, which reads every run back and takes the CPU and
wall seconds from the rows).

Environment variables shrink a run for CI and quick looks: ``BOUNDCALC_FIG1_RUNS``,
``BOUNDCALC_FIG1_HORIZON``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
POLICIES = ["ecw-rmed", "cw-rmed", "rmed1", "dts", "ccb", "rucb"]
PANELS = {
    "a": ("MSLR K = 16, Condorcet", 16, True, 0.005),
    "b": ("MSLR K = 16, non-Condorcet", 16, False, 0.005),
    "c": ("MSLR K = 64, non-Condorcet", 64, False, 1e-6),
}
#: Panels on a bundled example matrix (:func:`boundcalc.load_example`) instead of an MSLR draw:
#: key -> (title, example name).  ``--panels t2`` runs 000's Table 2 (4 arms, C* < C^E*).
EXAMPLE_PANELS = {"t2": ("000 Table 2, K = 4, Condorcet", "table2")}


def shared_dir() -> Path:
    return Path(os.environ.get("BOUNDCALC_SHARED", HERE.parent.parent / "shared"))


def informational_matrix() -> np.ndarray:
    """The 136-arm MSLR informational matrix: the public file under ``shared_dir()`` when present,
    else the copy bundled with the package (the same bytes, its SHA-256 tested)."""
    path = shared_dir() / "data" / "public" / "nightingal3_MSLR_Informational_PMat.npz"
    if not path.exists():
        from boundcalc.datasets import mslr_array

        return np.asarray(mslr_array("informational"), dtype=float)
    with np.load(path) as z:
        return np.asarray(z[z.files[0]], dtype=float)


def submatrix(mu: np.ndarray, K: int, condorcet: bool, min_gap: float, seed: int):
    from boundcalc.matrix import PreferenceMatrix

    rng = np.random.default_rng(seed)
    off = ~np.eye(K, dtype=bool)
    for _ in range(200_000):
        arms = np.sort(rng.choice(mu.shape[0], K, replace=False))
        sub = mu[np.ix_(arms, arms)]
        if not np.all(np.abs(sub[off] - 0.5) >= min_gap):
            continue
        pm = PreferenceMatrix(sub, name=f"mslr-informational{arms.tolist()}")
        if (pm.condorcet_winner is not None) == condorcet:
            return pm, arms
    raise RuntimeError(f"no {K}-arm submatrix with condorcet={condorcet} and gaps >= {min_gap}")


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime + c.ru_utime + c.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=int(os.environ.get("BOUNDCALC_FIG1_RUNS", 100)))
    ap.add_argument("--horizon", type=int, default=int(os.environ.get("BOUNDCALC_FIG1_HORIZON", 100_000)))
    ap.add_argument("--panels", default="a,b,c")
    ap.add_argument("--policies", default=",".join(POLICIES))
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--scheduler", default=None, help="an existing Dask cluster (tcp://host:8786) instead of --workers")
    ap.add_argument(
        "--chunk-size",
        type=int,
        default=1,
        help="runs per Dask task (1: each run stored as soon as it ends; runs take minutes)",
    )
    ap.add_argument("--cw-runs", type=int, default=None, help="CW-RMED's runs (default: --runs)")
    ap.add_argument("--cw-panels", default=None, help="panels CW-RMED runs on (default: every panel run)")
    ap.add_argument(
        "--carry",
        action="store_true",
        help="a policy whose row file lacks the runs of its stored summary: keep that summary"
        " for its runs and compute only the later ones, pooled with it",
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(HERE / "results" / "figure1"))
    ap.add_argument(
        "--draw-only",
        action="store_true",
        help="compute nothing: refresh OUT/figure1.json's paired curves from its row files and draw OUT/figure1.png",
    )
    a = ap.parse_args()

    from boundcalc.simulate import simulate

    out = Path(a.out)
    if a.draw_only:  # the stored report, its paired curves refreshed from the row files, drawn
        redraw(out)
        return
    keys = [k for k in a.panels.split(",") if k]
    bad = [k for k in keys if k not in PANELS and k not in EXAMPLE_PANELS]
    if bad:
        raise SystemExit(f"unknown panel(s) {bad}; have {sorted(PANELS) + sorted(EXAMPLE_PANELS)}")
    mu = None
    if any(k in PANELS for k in keys):
        mu = informational_matrix()
    out.mkdir(parents=True, exist_ok=True)
    policies = [p for p in a.policies.split(",") if p]
    report = {"runs": a.runs, "horizon": a.horizon, "seed": a.seed, "panels": []}
    old = out / "figure1.json"
    if old.exists():  # panels run by an earlier call (e.g. with other run counts) are kept
        prev = json.loads(old.read_text())
        if prev.get("horizon") == a.horizon and prev.get("seed", 0) == a.seed:
            report["panels"] = prev["panels"]  # panels and policies not run now are kept
    results = []
    for key in keys:
        if key in EXAMPLE_PANELS:
            from boundcalc import load_example

            title, example = EXAMPLE_PANELS[key]
            pm = load_example(example)
            K, condorcet, gap = pm.K, pm.condorcet_winner is not None, float(pm.min_gap)
            arms = np.arange(K)
        else:
            title, K, condorcet, gap = PANELS[key]
            pm, arms = submatrix(mu, K, condorcet, gap, seed=1000 + K + int(condorcet))
        kept = next((p for p in report["panels"] if p["panel"] == key), None)
        report["panels"] = [p for p in report["panels"] if p["panel"] != key]
        panel = {
            "panel": key,
            "title": title,
            "K": K,
            "arms": arms.tolist(),
            "condorcet": condorcet,
            "min_gap": gap,
            "policies": dict(kept["policies"]) if kept and kept["arms"] == arms.tolist() else {},
        }
        for name in policies:  # one policy at a time: its own CPU and wall time
            if name == "cw-rmed" and a.cw_panels is not None and key not in a.cw_panels.split(","):
                continue
            runs = a.cw_runs if (name == "cw-rmed" and a.cw_runs) else a.runs
            prev = panel["policies"].get(name)
            rows = out / f"{key}-{name}.jsonl"
            carried = carried_part(prev, a.carry, rows, runs)
            first = carried["runs"] if carried else 0
            if runs <= first:  # the stored entry holds more runs than asked, whose rows are gone: kept
                print(
                    f"{title}: {name} kept as stored ({prev['runs']} runs, 0-{first - 1} without rows; {runs} asked)",
                    flush=True,
                )
                continue
            c0, w0 = cpu(), time.time()
            sim = simulate(
                pm,
                [name],
                horizon=a.horizon,
                runs=runs - first,
                first_run=first,
                seed=a.seed,
                workers=None if a.scheduler else a.workers,
                scheduler=a.scheduler,
                chunk_size=a.chunk_size,
                out=rows,
                progress=True,
            )
            cpu_s, wall_s = cpu() - c0, time.time() - w0
            mean, stderr = sim.mean(name), sim.stderr(name)
            if carried:
                mean, stderr = pool(carried["runs"], carried["mean"], carried["stderr"], runs - first, mean, stderr)
            if carried or (sim.runner_stats.get("resumed", 0) and prev):  # runs added to a stored entry
                cpu_s = (carried["cpu_seconds"] if carried else 0.0) + run_cpu(
                    rows, runs, None if carried else prev, first
                )
                wall_s += prev["wall_seconds"]
            elif sim.runner_stats.get("resumed", 0) == runs - first and not prev:
                # every run read back from a row file made by another call (e.g. rows copied from
                # the machine that ran them, without its figure1.json): the rows' own CPU, and as
                # wall time the sum of the runs' own (the job's, where runs ran one at a time)
                cpu_s = run_cpu(rows, runs, None, first)
                wall_s = row_seconds(rows, runs, first)
            panel["policies"][name] = {
                "runs": runs,
                "mean": list(map(float, mean)),
                "stderr": list(map(float, stderr)),
                "cpu_seconds": cpu_s,
                "wall_seconds": wall_s,
            }
            if carried:
                panel["policies"][name]["carried"] = carried
            panel.update(checkpoints=sim.checkpoints.tolist(), lower_bound=sim.lower_bound, ecw=sim.ecw)
            print(
                f"{title}: {name} regret at T {mean[-1]:.1f} +- {stderr[-1]:.1f} "
                f"({cpu_s:.0f} s CPU, {wall_s:.0f} s wall)",
                flush=True,
            )
            results.append((key, name, sim))
        pair = paired(out, key, a.horizon, a.seed)
        if pair:
            panel["paired"] = pair
        report["panels"].append(panel)
        report["panels"].sort(key=lambda p: p["panel"])
        (out / "figure1.json").write_text(json.dumps(report, indent=1) + "\n")
    draw(report, out / "figure1.png")
    print(table(report))


def carried_part(entry: dict | None, carry: bool, path: Path, runs: int) -> dict | None:
    """The part of a stored policy entry that stands for runs whose rows are gone: the entry's own
    ``"carried"`` record, or (``carry``, first time, where the row file ``path`` lacks some of the
    summary's runs) the whole stored summary; None where the row file holds the first ``runs`` runs
    (rows, where there are any, replace a summary).  The stored entry is of this call's horizon and
    seed (``main`` keeps stored panels only then), so its runs are the runs ``0, ...`` of this job."""
    from boundcalc.runner import load_store

    if not entry:
        return None
    held = {r["run"] for r in load_store(path)[1] if "error" not in r} if path.exists() else set()
    if set(range(runs)) <= held:
        return None
    if "carried" in entry:
        return entry["carried"]
    if carry and not set(range(entry["runs"])) <= held:
        keep = ("runs", "mean", "stderr", "cpu_seconds", "wall_seconds")
        return {k: entry[k] for k in keep}
    return None


def pool(n1: int, mean1, se1, n2: int, mean2, se2) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard error (``s.d. / sqrt(n)``, s.d. with ``n - 1``) of ``n1 + n2`` samples from
    those of two parts: each part's sum of squared deviations is ``(n - 1) n se^2`` (0 for a part
    of one sample, whose s.e. is nan), the pooled one adds ``n1 n2 / n (m1 - m2)^2``."""
    m1, m2 = np.asarray(mean1, float), np.asarray(mean2, float)
    # deviations, not raw sums of squares: no cancellation when the spread is small against the mean
    dev = [
        np.zeros_like(m) if k == 1 else (k - 1) * k * np.asarray(se, float) ** 2
        for k, m, se in ((n1, m1, se1), (n2, m2, se2))
    ]
    n = n1 + n2
    mean = (n1 * m1 + n2 * m2) / n
    var = (dev[0] + dev[1] + n1 * n2 / n * (m1 - m2) ** 2) / (n - 1)
    return mean, np.sqrt(var / n)


def paired(out: Path, key: str, horizon: int, seed: int) -> dict | None:
    """CW-RMED - ECW-RMED over the runs both of panel ``key``'s row files hold (None unless both
    files are of this horizon, seed and matrix), per run the difference of the two policies'
    regrets on the same duel outcomes (common random numbers): ``mean`` and ``stderr`` (``s.d. /
    sqrt(n)``, s.d. with ``n - 1``) of the difference per ln T at ``T``, and ``curve`` the same at
    every checkpoint ``t`` (``curve["t"]``), per ln t (null at t = 1, where ln t = 0).
    ``contiguous`` says whether those runs are ``first_run, ..., last_run`` without a gap."""
    from boundcalc.runner import load_store

    files = [out / f"{key}-{n}.jsonl" for n in ("cw-rmed", "ecw-rmed")]
    if not all(f.exists() for f in files):
        return None
    stores = [load_store(f) for f in files]
    heads = [h or {} for h, _ in stores]
    if any(h.get("horizon") != horizon or h.get("seed") != seed for h in heads) or heads[0].get("matrix") != heads[
        1
    ].get("matrix"):
        return None
    curves = [{r["run"]: r["regret"]["000"] for r in rows if "error" not in r} for _, rows in stores]
    runs = sorted(set(curves[0]) & set(curves[1]))
    if len(runs) < 2:
        return None
    from boundcalc.simulate import checkpoints

    t = checkpoints(horizon, heads[0].get("per_decade", 10))
    D = np.array([np.subtract(curves[0][r], curves[1][r]) for r in runs], dtype=float)  # runs x checkpoints
    if D.shape[1] != len(t):
        raise ValueError(f"{files[0]}: {D.shape[1]} checkpoints in its rows, {len(t)} for T = {horizon}")
    lnt = np.log(t.astype(float))
    with np.errstate(divide="ignore", invalid="ignore"):
        m = np.where(t > 1, D.mean(axis=0) / lnt, np.nan)
        se = np.where(t > 1, D.std(axis=0, ddof=1) / np.sqrt(len(runs)) / lnt, np.nan)
    none = lambda x: [None if not np.isfinite(v) else float(v) for v in x]  # noqa: E731
    # the slope over each decade [10^k, 10^(k+1)] (regret added per unit of ln t there: where a
    # policy has reached its ln T regime, its constant): per policy and paired, mean and s.e.
    A = np.array([curves[0][r] for r in runs], dtype=float)
    B = np.array([curves[1][r] for r in runs], dtype=float)
    slopes = []
    for k in range(int(np.log10(horizon))):
        i, j = np.searchsorted(t, 10**k), np.searchsorted(t, 10 ** (k + 1))
        if j >= len(t) or t[i] != 10**k or t[j] != 10 ** (k + 1):
            continue
        row = {"t0": int(t[i]), "t1": int(t[j])}
        for key_, X in (("a", A), ("b", B), ("diff", A - B)):
            x = (X[:, j] - X[:, i]) / np.log(10.0)
            row[key_] = {"mean": float(x.mean()), "stderr": float(x.std(ddof=1) / np.sqrt(len(x)))}
        slopes.append(row)
    return {
        "a": "cw-rmed",
        "b": "ecw-rmed",
        "runs": len(runs),
        "first_run": runs[0],
        "last_run": runs[-1],
        "contiguous": runs[-1] - runs[0] + 1 == len(runs),
        "mean": float(m[-1]),
        "stderr": float(se[-1]),
        "curve": {"t": t.tolist(), "mean": none(m), "stderr": none(se)},
        "slopes": slopes,
    }


def redraw(out: Path) -> None:
    """``--draw-only``: ``OUT/figure1.json`` as stored (nothing simulated), each panel's ``paired``
    recomputed from its row files where both are there (kept as stored where not), written back,
    drawn to ``OUT/figure1.png`` and tabled."""
    path = out / "figure1.json"
    if not path.exists():
        raise SystemExit(f"--draw-only: no stored report {path}")
    report = json.loads(path.read_text())
    for panel in report["panels"]:
        pair = paired(out, panel["panel"], report["horizon"], report.get("seed", 0))
        if pair:
            panel["paired"] = pair
    path.write_text(json.dumps(report, indent=1) + "\n")
    draw(report, out / "figure1.png")
    print(table(report))


def run_cpu(path: Path, runs: int, prev: dict | None, first: int = 0) -> float:
    """CPU seconds of runs ``first, ..., runs - 1`` of a row file: each row's own (``cpu_seconds``),
    and for rows written before rows carried it, the stored panel's figure for them (all or nothing)."""
    from boundcalc.runner import load_store

    rows = {r["run"]: r for r in load_store(path)[1] if "error" not in r and first <= r["run"] < runs}
    old = [r for r in rows.values() if "cpu_seconds" not in r]
    new = sum(r["cpu_seconds"] for r in rows.values() if "cpu_seconds" in r)
    if not old:
        return new
    return new + prev["cpu_seconds"] if prev and len(old) == prev["runs"] else float("nan")


def row_seconds(path: Path, runs: int, first: int = 0) -> float:
    """Sum of the wall seconds of runs ``first, ..., runs - 1`` as their rows record them."""
    from boundcalc.runner import load_store

    return float(
        sum(
            r.get("seconds", float("nan")) for r in load_store(path)[1] if "error" not in r and first <= r["run"] < runs
        )
    )


def in_order(policies: dict) -> list:
    """A panel's ``(name, entry)`` pairs in :data:`POLICIES`' order (legends and tables alike on
    every panel, whichever call added a policy last)."""
    return sorted(policies.items(), key=lambda kv: POLICIES.index(kv[0]) if kv[0] in POLICIES else len(POLICIES))


def table(report: dict) -> str:
    lines = [f"regret at T = {report['horizon']} per ln T (000's unit), mean +- s.e. over the runs"]
    for p in report["panels"]:
        lnT = np.log(report["horizon"])
        lines.append(f"\n{p['title']}: lower bound C* = {p['lower_bound']:.1f}, ECW C^E* = {p['ecw']:.1f}")
        for name, v in in_order(p["policies"]):
            c = v.get("carried")
            runs = f"{v['runs']} runs" + (f", 0-{c['runs'] - 1} carried from a stored summary" if c else "")
            lines.append(
                f"  {name:10s} {v['mean'][-1] / lnT:9.1f} +- {v['stderr'][-1] / lnT:6.1f}"
                f"   ({runs}, {v['cpu_seconds']:.0f} s CPU, {v['wall_seconds']:.0f} s wall)"
            )
        if "paired" in p:
            d = p["paired"]
            span = f"runs {d['first_run']}-{d['last_run']}" + ("" if d.get("contiguous", True) else " with gaps")
            lines.append(
                f"  paired {d['a']} - {d['b']}: {d['mean']:.1f} +- {d['stderr']:.1f} per ln T"
                f" over {span} ({d['runs']} runs both row files hold)"
            )
            for sl in d.get("slopes", [])[-2:]:
                lines.append(
                    f"  slope over t = {sl['t0']:.0e}-{sl['t1']:.0e} (regret per unit of ln t): {d['a']}"
                    f" {sl['a']['mean']:.1f} +- {sl['a']['stderr']:.1f}, {d['b']} {sl['b']['mean']:.1f} +-"
                    f" {sl['b']['stderr']:.1f}, paired {sl['diff']['mean']:.1f} +- {sl['diff']['stderr']:.1f}"
                )
    return "\n".join(lines)


def draw(report: dict, path: Path) -> None:
    """:func:`figure` saved to ``path`` (Agg backend) and closed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = figure(report)
    fig.savefig(path, dpi=130)
    plt.close(fig)


def figure(report: dict):
    """The figure of a report (a matplotlib Figure): per panel, regret against ``t`` as 000 draws it (linear regret, log ``t``;
    log regret only where the lines span more than a factor 20, :func:`boundcalc.plot.draw_regret`),
    every policy in its own colour, line style and marker; below it, where the panel has both
    row files, the paired difference CW-RMED - ECW-RMED per ln t (mean, +- 1 and 2 s.e.) with the
    difference of their constants ``C* - C^E*``."""
    import matplotlib.pyplot as plt

    from boundcalc.plot import draw_paired, draw_regret

    panels = report["panels"]
    n = len(panels)
    two = any("curve" in p.get("paired", {}) for p in panels)
    fig, axes = plt.subplots(2 if two else 1, n, figsize=(5.4 * n, 8.4 if two else 4.6), squeeze=False)
    for k, p in enumerate(panels):
        t = np.asarray(p["checkpoints"], dtype=float)
        curves = [
            (
                name,
                np.asarray(v["mean"]),
                np.asarray(v["mean"]) - np.asarray(v["stderr"]),
                np.asarray(v["mean"]) + np.asarray(v["stderr"]),
            )
            for name, v in in_order(p["policies"])
        ]
        runs = sorted({v["runs"] for v in p["policies"].values()})
        draw_regret(
            axes[0, k],
            t,
            curves,
            lower_bound=p["lower_bound"],
            ecw=p["ecw"],
            title=p["title"],
            legend_title="mean +- 1 s.e. over " + "/".join(map(str, runs)) + " runs",
        )
        if not two:
            continue
        d = p.get("paired", {})
        if "curve" not in d:
            axes[1, k].set_visible(False)
            continue
        span = f"runs {d['first_run']}-{d['last_run']}" + ("" if d.get("contiguous", True) else " with gaps")
        gap = p["lower_bound"] - p["ecw"]
        gap = 0.0 if abs(gap) <= 1e-9 * abs(p["lower_bound"]) else gap  # equal constants (LP round-off)
        draw_paired(
            axes[1, k],
            d["curve"]["t"],
            d["curve"]["mean"],
            d["curve"]["stderr"],
            label=f"{d['a']} - {d['b']} ({d['runs']} paired runs, {span})",
            reference=gap,
            reference_label=f"C* - C^E* = {gap:.1f}",
            title=f"{p['title']}: {d['a']} - {d['b']}",
        )
    fig.tight_layout()
    return fig


if __name__ == "__main__":
    main()
