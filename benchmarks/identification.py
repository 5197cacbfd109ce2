"""Identification at fixed confidence: E[tau] / ln(1/delta) against delta for every algorithm, T* the line.

Runs :func:`boundcalc.identification.identify` (through the runner, in-process) for every
algorithm on 000's Table 2 (``table2``), two 5-arm MSLR submatrices (``mslr5-condorcet``,
``mslr5-noncondorcet``: the Copeland-model algorithm only, no Condorcet winner there), the 5-arm
matrix of ``tests/test_identification_algorithms.py`` (``tests-5arm``) and the 16-arm panels of
000's Figure 1 (``fig1a``, ``fig1b``: :func:`boundcalc.load_example`, the arms
``benchmarks/figure1.py`` draws; fewer runs and deltas, a run there takes up to a million duels)
at a ladder of deltas.  Figure 1's 64-arm panel (``fig1c``) is not run: its ``T*`` (stored) puts
one run at ``delta = 0.1`` near ``10^8`` duels.  ``TARGET`` adds 100 runs of both Track-and-Stop
models at ``delta = 1e-6`` on ``tests-5arm`` and ``mslr5-condorcet`` (the issue's ratio target).
Prints a table, writes ``benchmarks/results/identification.json`` (every statistic of every cell:
runs, errors, mean duels and its standard error, quantiles, ``T*``, ``T* ln(1/delta)``, the ratio
to ``T* kl(delta, 1 - delta)``, CPU seconds) and draws ``docs/img/identification.png``
(``--redraw``: from the JSON, computing nothing).

    python3 benchmarks/identification.py [--runs 40] [--redraw]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from _results import write_result  # noqa: E402

OUT = ROOT / "benchmarks" / "results" / "identification.json"
FIGURE = ROOT / "docs" / "img" / "identification.png"
DELTAS = [0.1, 1e-2, 1e-4, 1e-6, 1e-9]
FIG1_DELTAS = [1e-2, 1e-4, 1e-6]
CONDORCET_ALGORITHMS = ["track-and-stop", "track-and-stop-condorcet", "knockout", "dkwt", "car-cond"]
#: instance -> [(algorithms, deltas, runs: None for --runs)]
INSTANCES = {
    "table2": [(CONDORCET_ALGORITHMS, DELTAS, None)],
    "mslr5-condorcet": [(CONDORCET_ALGORITHMS, DELTAS, None)],
    "mslr5-noncondorcet": [(["track-and-stop"], DELTAS, None)],
    "tests-5arm": [(CONDORCET_ALGORITHMS, DELTAS, None)],
    "fig1a": [(["track-and-stop", "track-and-stop-condorcet", "knockout", "dkwt"], FIG1_DELTAS, 6),
              (["car-cond"], FIG1_DELTAS, 3)],
    "fig1b": [(["track-and-stop"], FIG1_DELTAS, 6)],
}  # fmt: skip
#: Instances listed with their T* only (no run fits).
T_STAR_ONLY = ["fig1c"]
#: The issue's target: 100 runs at delta = 1e-6, ratio at most 2.
TARGET = {"instances": ["tests-5arm", "mslr5-condorcet"], "delta": 1e-6, "runs": 100,
          "algorithms": ["track-and-stop", "track-and-stop-condorcet"]}  # fmt: skip
#: The 5-arm matrix of tests/test_identification_algorithms.py (Condorcet winner 0, a 3-cycle below).
TESTS_5ARM = [
    [0.5, 0.65, 0.7, 0.75, 0.8],
    [0.35, 0.5, 0.65, 0.7, 0.3],
    [0.3, 0.35, 0.5, 0.65, 0.7],
    [0.25, 0.3, 0.35, 0.5, 0.65],
    [0.2, 0.7, 0.3, 0.35, 0.5],
]


def load(name: str):
    from boundcalc import PreferenceMatrix
    from boundcalc.datasets import load_example

    return PreferenceMatrix(TESTS_5ARM, name=name) if name == "tests-5arm" else load_example(name)


def _cell_line(s: dict) -> str:
    return (
        f"{s['instance']:18s} {s['delta']:8.0e} {s['algorithm']:26s} errors {s['errors']:3d}/{s['runs']}"
        f"  mean {s['mean_duels']:11.1f} +- {s['stderr']:9.1f}  ratio {s['ratio']:7.3f}"
    )


def run(runs: int, seed: int, instances: list[str], target: bool) -> dict:
    from boundcalc.identification import identification_bound, identify

    cells = []
    for name in instances:
        groups = INSTANCES[name]
        pm = load(name)
        for algorithms, deltas, n in groups:
            for delta in deltas:
                t0 = time.process_time()
                res = identify(pm, algorithms, delta=delta, runs=n or runs, seed=seed, progress=False)
                for a in algorithms:
                    s = res.statistics(a)
                    s.update(instance=name, delta=delta)
                    cells.append(s)
                    print(_cell_line(s), flush=True)
                print(f"  ({time.process_time() - t0:.1f} s of CPU)", flush=True)
    targets = []
    for name in TARGET["instances"] if target else []:
        res = identify(load(name), TARGET["algorithms"], delta=TARGET["delta"], runs=TARGET["runs"], seed=seed,
                       progress=False)  # fmt: skip
        for a in TARGET["algorithms"]:
            s = res.statistics(a)
            s.update(instance=name, delta=TARGET["delta"])
            targets.append(s)
            print("target", _cell_line(s), flush=True)
    t_star_only = {}
    for name in T_STAR_ONLY if target else []:
        pm = load(name)
        t_star_only[name] = {"K": pm.K, "copeland": identification_bound(pm, "copeland").value}
    return {"runs": runs, "seed": seed, "deltas": DELTAS, "cells": cells, "target": targets,
            "t_star_only": t_star_only}  # fmt: skip


def _algorithms(name: str) -> list[str]:
    return [a for algorithms, _, _ in INSTANCES[name] for a in algorithms]


def draw(report: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(dict.fromkeys(c["instance"] for c in report["cells"]))
    ncol = 3
    nrow = math.ceil(len(names) / ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(5.0 * ncol, 4.0 * nrow + 0.6), squeeze=False)
    algorithms = list(dict.fromkeys(c["algorithm"] for c in report["cells"]))
    colors = {a: f"C{k}" for k, a in enumerate(algorithms)}
    # marker and line style per algorithm: curves that coincide (the two Track-and-Stop models
    # where their T* agree) stay visible one over the other
    markers = {a: "osD^v"[k % 5] for k, a in enumerate(algorithms)}
    styles = {a: ":" if k % 2 else "-" for k, a in enumerate(algorithms)}
    for ax, name in zip(axes.flat, names):
        cells = [c for c in report["cells"] if c["instance"] == name]
        stars = {}
        for a in dict.fromkeys(c["algorithm"] for c in cells):
            cs = sorted((c for c in cells if c["algorithm"] == a), key=lambda c: -c["delta"])
            x = [c["delta"] for c in cs]
            y = [c["mean_duels"] / math.log(1 / c["delta"]) for c in cs]
            e = [c["stderr"] / math.log(1 / c["delta"]) for c in cs]
            ax.errorbar(x, y, yerr=e, fmt=markers[a], ls=styles[a], ms=4, mfc="none", capsize=2, lw=1.2,
                        label=a, color=colors[a])  # fmt: skip
            stars[cs[0]["model"]] = cs[0]["t_star"]
        lines: dict[float, list[str]] = {}  # models whose T* coincide share one line and one label
        for model, T in stars.items():
            same = next((t for t in lines if math.isclose(t, T, rel_tol=1e-9)), T)
            lines.setdefault(same, []).append(model)
        xmin = min(c["delta"] for c in cells)
        for T, models in lines.items():
            ax.axhline(T, ls="--", lw=1, color="k" if "copeland" in models else "0.5")
            ax.text(xmin, T, f"T* ({' = '.join(models)}) ", va="bottom", ha="right", fontsize="x-small")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.invert_xaxis()
        ax.set_xlabel("delta")
        runs = sorted({c["runs"] for c in cells})
        ax.set_title(f"{name}, runs {'/'.join(map(str, runs))}", fontsize="medium")
    for ax in axes.flat[len(names) :]:
        ax.axis("off")
    for ax in axes[:, 0]:
        ax.set_ylabel("E[tau] / ln(1/delta)  (duels)")
    handles = [plt.Line2D([], [], color=colors[a], marker=markers[a], ls=styles[a], ms=4, mfc="none", lw=1.2)
               for a in algorithms]  # fmt: skip
    fig.legend(handles, list(colors), loc="lower center", ncol=len(colors), fontsize="small", frameon=False)
    fig.suptitle("identification: mean duels per ln(1/delta) (error bars: one standard error); dashed: T*")
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    print(f"drawn {path}")


def markdown(report: dict) -> str:
    """The results table of ``docs/identification.md``: per instance and algorithm, the ratio of
    the mean duels to ``T* kl(delta, 1 - delta)`` and the errors at every delta run ("-": not run)."""
    deltas = sorted({c["delta"] for c in report["cells"]}, reverse=True)
    head = "| instance | algorithm | T* | " + " | ".join(f"delta = {d:g}" for d in deltas) + " |"
    lines = [head, "|" + " --- |" * (3 + len(deltas))]
    for name in dict.fromkeys(c["instance"] for c in report["cells"]):
        for a in dict.fromkeys(c["algorithm"] for c in report["cells"] if c["instance"] == name):
            cs = {c["delta"]: c for c in report["cells"] if c["instance"] == name and c["algorithm"] == a}
            T = next(iter(cs.values()))["t_star"]
            cells = [f"{cs[d]['ratio']:.2f} ({cs[d]['errors']}/{cs[d]['runs']})" if d in cs else "-" for d in deltas]
            lines.append(f"| {name} | {a} | {T:.4g} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def merge(parts: list[dict]) -> dict:
    """One report of parts run apart (``--part``): cells and targets joined, CPU seconds summed."""
    out = dict(parts[0])
    order = list(INSTANCES)
    for key in ("cells", "target"):  # in the order of INSTANCES (a stable sort keeps each part's order)
        out[key] = sorted((c for p in parts for c in p[key]), key=lambda c: order.index(c["instance"]))
    out["t_star_only"] = {k: v for p in parts for k, v in p["t_star_only"].items()}
    out["cpu_seconds"] = sum(p["cpu_seconds"] for p in parts)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--seed", type=int, default=48)
    ap.add_argument("--redraw", action="store_true", help="draw the figure from the stored JSON only")
    ap.add_argument("--part", help="run only these instances (comma-separated; 'target' adds TARGET and"
                    " T_STAR_ONLY) and write the part's JSON to --part-out")  # fmt: skip
    ap.add_argument("--part-out", type=Path)
    ap.add_argument("--merge", nargs="+", type=Path, help="join parts' JSON files into the stored result")
    args = ap.parse_args()
    if args.redraw:
        report = json.loads(OUT.read_text())
    elif args.merge:
        report = merge([json.loads(p.read_text()) for p in args.merge])
        write_result(OUT, **{k: v for k, v in report.items() if k not in ("python", "machine", "when")})
    else:
        names = list(INSTANCES) if not args.part else [n for n in args.part.split(",") if n != "target"]
        t0 = time.process_time()
        report = run(args.runs, args.seed, names, not args.part or "target" in args.part.split(","))
        report["cpu_seconds"] = time.process_time() - t0
        if args.part:
            write_result(args.part_out, **report)
            return
        write_result(OUT, **report)
    draw(report, FIGURE)
    print(markdown(report))


if __name__ == "__main__":
    main()
