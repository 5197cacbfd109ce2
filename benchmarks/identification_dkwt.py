"""DKWT against its authors' code (``GCW_algo.py`` of ``bjoernhad/GCWidentification``).

Haddenhorst, Bengs & Huellermeier (NeurIPS 2021) published their implementation of DKWT
(https://github.com/bjoernhad/GCWidentification, commit ``b8c84fb``; ``GCW_algo.DKWT`` on the
multi-dueling environment ``PM.PM``).  It is not a dependency of boundcalc: check the repository
out aside and point ``GCW_PATH`` at it::

    git clone https://github.com/bjoernhad/GCWidentification /tmp/gcw
    GCW_PATH=/tmp/gcw python3 benchmarks/identification_dkwt.py [--runs 100]

Per matrix and ``delta``: the authors' ``DKWT(delta, P)`` with subsets of size ``k = 2`` (``P``
a ``PM(m, 2)`` whose arm ``{i, j}`` wins with ``(mu_ij, mu_ji)``; their code draws from the global
``random`` and ``numpy.random``, seeded per run) against boundcalc's ``dkwt`` (through
:func:`boundcalc.identification.identify`).  The two implement the same algorithm, so their means
of duels must agree within their standard errors (``z``, the difference over its standard error)
and both must name the Condorcet winner.  Writes ``benchmarks/results/identification_dkwt.json``.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from _results import write_result  # noqa: E402

OUT = ROOT / "benchmarks" / "results" / "identification_dkwt.json"
INSTANCES = ["table2", "mslr5-condorcet", "tests-5arm"]
DELTAS = [0.1, 0.01]


def _authors():
    path = os.environ.get("GCW_PATH")
    if path:
        sys.path.insert(0, path)
    import GCW_algo
    import PM

    return GCW_algo, PM


def _authors_run(mu: np.ndarray, delta: float, seed: int) -> tuple[int, int]:
    GCW_algo, PM = _authors()
    m = mu.shape[0]
    P = PM.PM(m, 2)
    for i in range(m):
        for j in range(i + 1, m):
            P.set_arm(((i, j), (float(mu[i, j]), float(mu[j, i]))))
    random.seed(seed)
    np.random.seed(seed)
    answer = GCW_algo.DKWT(delta, P)
    return int(answer), int(P.get_time())


def _stats(n: list[int], answers: list[int], correct: int) -> dict:
    a = np.asarray(n, dtype=float)
    return {
        "runs": len(n),
        "mean_duels": float(a.mean()),
        "stderr": float(a.std(ddof=1) / math.sqrt(len(n))),
        "errors": sum(1 for x in answers if x != correct),
    }


def run(runs: int, seed: int) -> list[dict]:
    from identification import load

    from boundcalc.identification import identify

    cells = []
    for name in INSTANCES:
        pm = load(name)
        for delta in DELTAS:
            n, answers = [], []
            for r in range(runs):
                a, d = _authors_run(np.asarray(pm.mu), delta, seed + r)
                answers.append(a)
                n.append(d)
            ours = identify(pm, "dkwt", delta=delta, runs=runs, seed=seed, progress=False).statistics("dkwt")
            cell = {
                "instance": name,
                "delta": delta,
                "authors": _stats(n, answers, int(pm.condorcet_winner)),
                "boundcalc": {k: ours[k] for k in ("runs", "mean_duels", "stderr", "errors")},
            }
            a, b = cell["authors"], cell["boundcalc"]
            cell["z"] = (a["mean_duels"] - b["mean_duels"]) / math.hypot(a["stderr"], b["stderr"])
            cells.append(cell)
            print(
                f"DKWT {name:16s} delta {delta:5.2f}: authors {a['mean_duels']:9.1f} +- {a['stderr']:7.1f}"
                f" ({a['errors']} errors)  boundcalc {b['mean_duels']:9.1f} +- {b['stderr']:7.1f}"
                f" ({b['errors']} errors)  z {cell['z']:+.2f}",
                flush=True,
            )
    return cells


def markdown(report: dict) -> str:
    """The comparison table of ``docs/identification.md``."""
    lines = [
        "| matrix | delta | authors' `DKWT`: mean duels (errors) | boundcalc `dkwt` (errors) | z |",
        "| --- | --- | --- | --- | --- |",
    ]
    for c in report["cells"]:
        a, b = c["authors"], c["boundcalc"]
        lines.append(
            f"| {c['instance']} | {c['delta']:g} | {a['mean_duels']:.0f} ± {a['stderr']:.0f} ({a['errors']}/{a['runs']}) |"
            f" {b['mean_duels']:.0f} ± {b['stderr']:.0f} ({b['errors']}/{b['runs']}) | {c['z']:+.2f} |"
        )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--seed", type=int, default=48)
    args = ap.parse_args()
    t0 = time.process_time()
    _authors()  # fail early when the authors' code is missing (the module text says where it is)
    report = {"runs": args.runs, "seed": args.seed, "authors_commit": "b8c84fb90df9af98040e8f7472dc07dd3c368c1b"}
    report["cells"] = run(args.runs, args.seed)
    report["cpu_seconds"] = time.process_time() - t0
    write_result(OUT, **report)
    print(markdown(report))


if __name__ == "__main__":
    main()
