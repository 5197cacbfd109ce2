"""Knockout against duelpy's public implementation (``duelpy.algorithms.KnockoutTournament``).

duelpy (Bengs et al., https://gitlab.com/duelpy/duelpy, PyPI ``duelpy==1.0.0``) is the public
implementation of Falahatgar et al. (ICML 2017)'s KNOCKOUT.  It is not a dependency of boundcalc:
install it aside and point ``DUELPY_PATH`` at it::

    pip install --no-deps --target /tmp/duelpy duelpy==1.0.0
    DUELPY_PATH=/tmp/duelpy python3 benchmarks/identification_duelpy.py [--runs 200]

(duelpy 1.0.0 still names ``np.float``, removed in NumPy 1.24: the script restores that alias
before importing it.)  Both run with ``epsilon = 0`` (exact COMPARE) and the same ``delta``.

Two comparisons, written to ``benchmarks/results/identification_duelpy.json``:

* ``compare`` -- two arms: KNOCKOUT is one COMPARE.  duelpy's duels until ``|p_hat - 1/2| >
  sqrt(ln(4 n^2 / delta) / (2 n))`` (its radius takes the run's ``delta``); boundcalc's
  :func:`boundcalc.kernels.identification.sequential_compare` at the same ``delta`` must have the
  same distribution of duels and answers: the means are compared with their standard errors
  (``z``, the difference over its standard error).
* ``tournament`` -- whole matrices (``table2``, ``mslr5-condorcet``, the tests' 5-arm matrix):
  duelpy's and boundcalc's ``knockout`` side by side.  They are different tournaments, and the
  table shows by how much: duelpy plays every pair of the remaining arms in a round (its
  ``explore`` loops over ``combinations``) and keeps every arm that won a match, its radius keeps
  the run's ``delta`` in every round (``delta / 2^r`` only enters its budget, infinite at
  ``epsilon = 0``) and its estimates pool a pair's duels over rounds; boundcalc's follows the
  paper's Algorithms 1-3 (a random pairing, ``delta_r = delta / 2^r`` in the radius).  Where a
  cycle lies below the winner (``table2``, the 5-arm matrix) every arm of the cycle wins a match of
  duelpy's all-pairs round, so its arms shrink only when a match goes the wrong way; a run that
  has not named an arm after ``HORIZON`` duels stops without an answer.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from _results import write_result  # noqa: E402

OUT = ROOT / "benchmarks" / "results" / "identification_duelpy.json"
PAIRS = [0.535, 0.6, 0.7]
DELTAS = [0.1, 0.01]


def _duelpy():
    path = os.environ.get("DUELPY_PATH")
    if path:
        sys.path.insert(0, path)
    if not hasattr(np, "float"):
        np.float = float  # type: ignore[attr-defined]  # duelpy 1.0.0 names the removed alias
    from duelpy.algorithms.knockout_tournament import KnockoutTournament
    from duelpy.feedback import MatrixFeedback

    return KnockoutTournament, MatrixFeedback


#: Duels after which a duelpy tournament run stops without an answer (checked between its rounds):
#: on a matrix with a cycle below the winner every arm wins a match of its all-pairs round, and the
#: arms never shrink to one.
HORIZON = 500_000


def _duelpy_run(mu: np.ndarray, delta: float, seed: int, horizon: int | None = None) -> tuple[int, int]:
    """``(answer, duels)`` of one duelpy run: its rounds (``explore``) until one arm remains, or
    -1 when ``horizon`` duels pass first (``run()`` would spend a given horizon's remaining duels
    exploiting the answer, which is not identification)."""
    KnockoutTournament, MatrixFeedback = _duelpy()
    fb = MatrixFeedback(mu, random_state=np.random.RandomState(seed))
    ko = KnockoutTournament(fb, epsilon=0.0, failure_probability=delta)
    while not ko.exploration_finished():
        if horizon is not None and ko.wrapped_feedback.duels_conducted >= horizon:
            return -1, int(ko.wrapped_feedback.duels_conducted)
        ko.explore()
    return int(ko.get_condorcet_winner()), int(ko.wrapped_feedback.duels_conducted)


def _stats(n: list[int], answers: list[int], correct: int) -> dict:
    a = np.asarray(n, dtype=float)
    return {
        "runs": len(n),
        "mean_duels": float(a.mean()),
        "stderr": float(a.std(ddof=1) / math.sqrt(len(n))),
        "errors": sum(1 for x in answers if x != correct),
        "no_answer": sum(1 for x in answers if x == -1),
    }


def _z(a: dict, b: dict) -> float:
    return (a["mean_duels"] - b["mean_duels"]) / math.hypot(a["stderr"], b["stderr"])


def compare_cells(runs: int, seed: int) -> list[dict]:
    from boundcalc.kernels.identification import sequential_compare
    from boundcalc.runner.job import derive_seed

    cells = []
    for p in PAIRS:
        mu = np.array([[0.5, p], [1 - p, 0.5]])
        for delta in DELTAS:
            dp_n, dp_a, bc_n, bc_a = [], [], [], []
            for r in range(runs):
                a, n = _duelpy_run(mu, delta, seed + r)
                dp_n.append(n)
                dp_a.append(a)
                k0, k1 = derive_seed(seed, r, form="words")
                n, w = sequential_compare(p, np.uint64(k0), np.uint64(k1), 0, 0, delta, 10**9)
                bc_n.append(int(n))
                bc_a.append(0 if 2 * w > n else 1)
            cell = {"mu": p, "delta": delta, "duelpy": _stats(dp_n, dp_a, 0), "boundcalc": _stats(bc_n, bc_a, 0)}
            cell["z"] = _z(cell["duelpy"], cell["boundcalc"])
            cells.append(cell)
            print(
                f"COMPARE mu {p:5.3f} delta {delta:5.2f}: duelpy {cell['duelpy']['mean_duels']:9.1f}"
                f" +- {cell['duelpy']['stderr']:6.1f}  boundcalc {cell['boundcalc']['mean_duels']:9.1f}"
                f" +- {cell['boundcalc']['stderr']:6.1f}  z {cell['z']:+.2f}",
                flush=True,
            )
    return cells


def tournament_cells(runs: int, seed: int) -> list[dict]:
    from identification import load

    from boundcalc.identification import identify

    cells = []
    for name in ("table2", "mslr5-condorcet", "tests-5arm"):
        pm = load(name)
        for delta in DELTAS:
            dp_n, dp_a = [], []
            for r in range(runs):
                a, n = _duelpy_run(np.asarray(pm.mu), delta, seed + r, HORIZON)
                dp_n.append(n)
                dp_a.append(a)
            ours = identify(pm, "knockout", delta=delta, runs=runs, seed=seed, progress=False).statistics("knockout")
            cell = {
                "instance": name,
                "delta": delta,
                "duelpy": _stats(dp_n, dp_a, int(pm.condorcet_winner)),
                "boundcalc": {k: ours[k] for k in ("runs", "mean_duels", "stderr", "errors")} | {"no_answer": 0},
            }
            cells.append(cell)
            print(
                f"KNOCKOUT {name:16s} delta {delta:5.2f}: duelpy {cell['duelpy']['mean_duels']:9.1f}"
                f" +- {cell['duelpy']['stderr']:6.1f} ({cell['duelpy']['errors']} errors)  boundcalc"
                f" {ours['mean_duels']:9.1f} +- {ours['stderr']:6.1f} ({ours['errors']} errors)",
                flush=True,
            )
    return cells


def markdown(report: dict) -> str:
    """The comparison tables of ``docs/identification.md``."""
    lines = [
        "| two arms, mu | delta | duelpy COMPARE: mean duels | boundcalc `sequential_compare` | z |",
        "| --- | --- | --- | --- | --- |",
    ]
    for c in report["compare"]:
        d, b = c["duelpy"], c["boundcalc"]
        lines.append(
            f"| {c['mu']:g} | {c['delta']:g} | {d['mean_duels']:.1f} ± {d['stderr']:.1f} |"
            f" {b['mean_duels']:.1f} ± {b['stderr']:.1f} | {c['z']:+.2f} |"
        )
    lines += [
        "",
        "| matrix | delta | duelpy KnockoutTournament: mean duels (wrong / no answer) | boundcalc `knockout` (wrong) |",
        "| --- | --- | --- | --- |",
    ]
    for c in report["tournament"]:
        d, b = c["duelpy"], c["boundcalc"]
        lines.append(
            f"| {c['instance']} | {c['delta']:g} | {d['mean_duels']:.0f} ± {d['stderr']:.0f}"
            f" ({d['errors'] - d['no_answer']} / {d['no_answer']} of {d['runs']}) |"
            f" {b['mean_duels']:.0f} ± {b['stderr']:.0f} ({b['errors']}/{b['runs']}) |"
        )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--tournament-runs", type=int, default=10)
    ap.add_argument("--seed", type=int, default=48)
    args = ap.parse_args()
    t0 = time.process_time()
    _duelpy()  # fail early when duelpy is missing (the module text says how to install it)

    report = {
        "runs": args.runs,
        "tournament_runs": args.tournament_runs,
        "seed": args.seed,
        "duelpy": "1.0.0",
        "compare": compare_cells(args.runs, args.seed),
        "tournament": tournament_cells(args.tournament_runs, args.seed),
    }
    report["cpu_seconds"] = time.process_time() - t0
    write_result(OUT, **report)
    print(markdown(report))


if __name__ == "__main__":
    main()
