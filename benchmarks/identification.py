"""Identification at fixed confidence: E[tau] / ln(1/delta) against delta for every algorithm, T* the line.

Runs :func:`boundcalc.identification.identify` (through the runner, in-process) for every
algorithm on 000's Table 2 (``table2``) and two 5-arm MSLR submatrices (``mslr5-condorcet``,
``mslr5-noncondorcet``: the Copeland-model algorithm only, no Condorcet winner there) at a
ladder of deltas, prints a table, writes ``benchmarks/results/identification.json`` (every
statistic of every cell: runs, errors, mean duels and its standard error, quantiles, ``T*``,
``T* ln(1/delta)``, the ratio to ``T* kl(delta, 1 - delta)``, CPU seconds) and draws
``docs/img/identification.png`` (``--redraw``: from the JSON, computing nothing).

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
CONDORCET_ALGORITHMS = ["track-and-stop", "track-and-stop-condorcet", "knockout", "dkwt", "car-cond"]
INSTANCES = {
    "table2": CONDORCET_ALGORITHMS,
    "mslr5-condorcet": CONDORCET_ALGORITHMS,
    "mslr5-noncondorcet": ["track-and-stop"],
}


def run(runs: int, seed: int) -> dict:
    from boundcalc.datasets import load_example
    from boundcalc.identification import identify

    cells = []
    for name, algorithms in INSTANCES.items():
        pm = load_example(name)
        for delta in DELTAS:
            t0 = time.process_time()
            res = identify(pm, algorithms, delta=delta, runs=runs, seed=seed, progress=False)
            for a in algorithms:
                s = res.statistics(a)
                s.update(instance=name, delta=delta)
                cells.append(s)
                print(
                    f"{name:18s} {delta:8.0e} {a:26s} errors {s['errors']:3d}/{s['runs']}"
                    f"  mean {s['mean_duels']:11.1f} +- {s['stderr']:9.1f}  ratio {s['ratio']:7.3f}"
                )
            print(f"  ({time.process_time() - t0:.1f} s of CPU)")
    return {"runs": runs, "seed": seed, "deltas": DELTAS, "cells": cells}


def draw(report: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(INSTANCES)
    fig, axes = plt.subplots(1, len(names), figsize=(5.0 * len(names), 4.2), sharey=False)
    for ax, name in zip(axes, names):
        cells = [c for c in report["cells"] if c["instance"] == name]
        stars = {}
        for a in dict.fromkeys(c["algorithm"] for c in cells):
            cs = sorted((c for c in cells if c["algorithm"] == a), key=lambda c: -c["delta"])
            x = [c["delta"] for c in cs]
            y = [c["mean_duels"] / math.log(1 / c["delta"]) for c in cs]
            e = [c["stderr"] / math.log(1 / c["delta"]) for c in cs]
            ax.errorbar(x, y, yerr=e, fmt="o-", ms=3, capsize=2, lw=1, label=a)
            stars[cs[0]["model"]] = cs[0]["t_star"]
        lines: dict[float, list[str]] = {}  # models whose T* coincide share one line and one label
        for model, T in stars.items():
            same = next((t for t in lines if math.isclose(t, T, rel_tol=1e-9)), T)
            lines.setdefault(same, []).append(model)
        for T, models in lines.items():
            ax.axhline(T, ls="--", lw=1, color="k" if "copeland" in models else "0.5")
            ax.text(min(report["deltas"]), T, f" T* ({' = '.join(models)})", va="bottom", fontsize="x-small")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.invert_xaxis()
        ax.set_xlabel("delta")
        ax.set_title(name, fontsize="medium")
    axes[0].set_ylabel("E[tau] / ln(1/delta)  (duels)")
    handles, labels = axes[0].get_legend_handles_labels()  # below the panels, clear of every curve
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize="small", frameon=False)
    fig.suptitle(f"identification: mean duels per ln(1/delta), {report['runs']} runs per point; dashed: T*")
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    print(f"drawn {path}")


def markdown(report: dict) -> str:
    """The results table of ``docs/identification.md``: per instance and algorithm, the errors
    and the ratio of the mean duels to ``T* kl(delta, 1 - delta)`` at every delta."""
    deltas = report["deltas"]
    head = "| instance | algorithm | T* | " + " | ".join(f"delta = {d:g}" for d in deltas) + " |"
    lines = [head, "|" + " --- |" * (3 + len(deltas))]
    for name in INSTANCES:
        for a in INSTANCES[name]:
            cs = {c["delta"]: c for c in report["cells"] if c["instance"] == name and c["algorithm"] == a}
            T = cs[deltas[0]]["t_star"]
            cells = [f"{cs[d]['ratio']:.2f} ({cs[d]['errors']})" for d in deltas]
            lines.append(f"| {name} | {a} | {T:.4g} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--seed", type=int, default=48)
    ap.add_argument("--redraw", action="store_true", help="draw the figure from the stored JSON only")
    args = ap.parse_args()
    if args.redraw:
        report = json.loads(OUT.read_text())
    else:
        t0 = time.process_time()
        report = run(args.runs, args.seed)
        report["cpu_seconds"] = time.process_time() - t0
        write_result(OUT, **report)
    draw(report, FIGURE)
    print(markdown(report))


if __name__ == "__main__":
    main()
