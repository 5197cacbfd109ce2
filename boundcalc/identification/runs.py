"""``boundcalc identify``: identification algorithms run many times through the runner, next to ``T*``.

:func:`identify` runs every named algorithm (:data:`~boundcalc.identification.algorithms.ALGORITHMS`)
``runs`` times on Bernoulli duels from one matrix, through :func:`boundcalc.runner.run_job` (one task
per run: in-process, on a local Dask cluster with ``workers=n`` or on ``scheduler``; a resumable
JSON Lines row file with ``out``; a progress bar), and reports per algorithm the runs, the errors
(answers that are not a correct winner of the algorithm's model: a Copeland winner, or the
Condorcet winner), the duels' mean, standard error and quantiles, and ``T*`` of the algorithm's
model (:func:`~boundcalc.identification.identification_bound`) with ``T* ln(1/delta)`` and the lower
bound ``T* kl(delta, 1 - delta)``.

Seeding: run ``r`` of algorithm number ``a`` (in the order given) draws its duels from the words
``derive_seed(seed, r, form="words")`` -- the same for every algorithm, so the algorithms meet the
same duel outcomes (common random numbers) -- and its own random choices from
``derive_seed(seed, r, a + 1, form="generator")``.

>>> from boundcalc.datasets import load_example
>>> res = identify(load_example("table2"), "knockout", delta=0.1, runs=3, seed=0)
>>> s = res.statistics("knockout")
>>> s["runs"], s["errors"], round(s["t_star"], 4)
(3, 0, 8.1508)
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..matrix import MatrixLike, PreferenceMatrix, as_preference_matrix
from ..result import RichResult, to_jsonable
from .algorithms import ALGORITHMS
from .bound import check_delta, identification_bound, kl_confidence

__all__ = ["identify", "IdentificationRuns", "identify_task", "DEFAULT_MAX_DUELS"]

#: Duels a run may use by default before it stops without an answer.
DEFAULT_MAX_DUELS = 10**7


def identify_task(task: dict, shared: dict) -> dict:
    """The runner's task: run ``task["run"]`` of ``task["algorithm"]`` -> one JSON row."""
    from ..runner.job import derive_seed

    pm: PreferenceMatrix = shared["matrix"]
    spec = ALGORITHMS[task["algorithm"]]
    keys = derive_seed(shared["seed"], task["run"], form="words")
    rng = derive_seed(shared["seed"], task["run"], task["algo_index"] + 1, form="generator")
    t0 = time.process_time()
    answer, duels, stopped = spec.run(pm, shared["delta"], keys, rng, shared["max_duels"])
    seconds = time.process_time() - t0
    correct = answer is not None and answer in shared["correct"][spec.target]
    return {
        "index": task["index"],
        "algorithm": spec.name,
        "run": task["run"],
        "answer": answer,
        "n_duels": int(duels),
        "stopped": stopped,
        "correct": bool(correct),
        "cpu_seconds": seconds,
    }


@dataclass(repr=False)
class IdentificationRuns(RichResult):
    """What :func:`identify` returns: per algorithm its rows and statistics, with ``T*``."""

    matrix: PreferenceMatrix
    algorithms: list
    delta: float
    runs: int
    seed: int
    max_duels: int
    rows: list
    t_star: dict
    runner_stats: dict = field(default_factory=dict)

    def statistics(self, algorithm: str) -> dict:
        """``runs, errors, error_rate, budget, mean_duels, stderr, q10, median, q90, t_star,
        t_star_log, t_star_kl, ratio`` (mean duels over ``T* kl(delta, 1 - delta)``) of one algorithm."""
        rows = [r for r in self.rows if r["algorithm"] == algorithm]
        n = np.array([r["n_duels"] for r in rows], dtype=float)
        R = len(rows)
        errors = sum(1 for r in rows if not r["correct"])
        spec = ALGORITHMS[algorithm]
        T = self.t_star.get(spec.target)
        lower = None if T is None else T * kl_confidence(self.delta)
        mean = float(n.mean())
        q10, q50, q90 = (float(x) for x in np.quantile(n, [0.1, 0.5, 0.9]))
        return {
            "algorithm": algorithm,
            "paper": spec.paper,
            "model": spec.target,
            "runs": R,
            "errors": errors,
            "error_rate": errors / R,
            "budget": sum(1 for r in rows if r["stopped"] == "budget"),
            "mean_duels": mean,
            "stderr": float(n.std(ddof=1) / math.sqrt(R)) if R > 1 else None,
            "q10": q10,
            "median": q50,
            "q90": q90,
            "t_star": T,
            "t_star_log": None
            if T is None
            else T * -math.log(self.delta),  # not log(1/delta): inf at a subnormal delta
            "t_star_kl": lower,
            "ratio": None if not lower else mean / lower,
            "cpu_seconds": float(sum(r["cpu_seconds"] for r in rows)),
        }

    def to_dict(self) -> dict:
        """The JSON document of ``boundcalc identify --json``."""
        return to_jsonable(
            {
                "K": self.matrix.K,
                "delta": self.delta,
                "runs": self.runs,
                "seed": self.seed,
                "max_duels": self.max_duels,
                "t_star": self.t_star,
                "kl_delta": kl_confidence(self.delta),
                "algorithms": [self.statistics(a) for a in self.algorithms],
                "per_run": self.rows,
            }
        )

    def summary(self) -> str:
        """The table ``boundcalc identify`` prints."""
        from .._table import format_table

        def f(x: Any, d: int = 5) -> str:
            return "-" if x is None else f"{x:.{d}g}"

        head = [
            "algorithm",
            "runs",
            "errors",
            "mean duels",
            "s.e.",
            "q10",
            "median",
            "q90",
            "T*",
            "T* ln(1/d)",
            "ratio",
        ]
        body = []
        for a in self.algorithms:
            s = self.statistics(a)
            body.append(
                [a, s["runs"], s["errors"], f(s["mean_duels"], 6), f(s["stderr"], 4), f(s["q10"]), f(s["median"]),
                 f(s["q90"]), f(s["t_star"]), f(s["t_star_log"]), f(s["ratio"], 3)]
            )  # fmt: skip
        lines = [
            f"identification of the winner on a {self.matrix.K}-arm matrix at delta = {self.delta!r}"
            f" ({self.runs} runs each, seed {self.seed})",
            "",
            format_table(head, body),
            "",
            "T*: duels per ln(1/delta) of the algorithm's model (copeland / condorcet); ratio = mean duels /"
            f" (T* kl(delta, 1 - delta)), kl = {kl_confidence(self.delta):.4g}; errors should be at most delta * runs",
        ]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<IdentificationRuns {', '.join(self.algorithms)}: {self.runs} runs at delta {self.delta:g}>"


def identify(
    matrix: MatrixLike,
    algorithms: list[str] | str = "track-and-stop",
    *,
    delta: float = 0.05,
    runs: int = 10,
    seed: int = 0,
    max_duels: int = DEFAULT_MAX_DUELS,
    out: str | os.PathLike | None = None,
    overwrite: bool = False,
    workers: int | None = 0,
    scheduler: Any = None,
    chunk_size: int | None = None,
    progress: bool | None = None,
) -> IdentificationRuns:
    """Run the identification ``algorithms`` ``runs`` times each on ``matrix`` (module text).

    Raises ``ValueError`` for an unknown algorithm, ``delta`` outside (0, 1), a matrix with ties,
    a Condorcet-model algorithm on a matrix without a Condorcet winner, ``runs < 1`` or a bad seed.
    """
    from ..runner.job import MAX_TASKS, Job, check_count, check_seed, run_job

    names = [algorithms] if isinstance(algorithms, str) else list(algorithms)
    if not names:
        raise ValueError("give at least one algorithm")
    for a in names:
        if a not in ALGORITHMS:
            raise ValueError(f"unknown algorithm {a!r}; choose from {', '.join(ALGORITHMS)}")
    if len(set(names)) != len(names):
        raise ValueError(f"an algorithm is named twice in {names}")
    delta = check_delta(delta)
    runs = check_count(runs, "runs", low=1, high=MAX_TASKS)
    seed = check_seed(seed)
    max_duels = check_count(max_duels, "max_duels", low=1)
    pm = as_preference_matrix(matrix)
    cw = pm.condorcet_winner
    for a in names:
        if ALGORITHMS[a].target == "condorcet" and cw is None:
            raise ValueError(f"{a} identifies the Condorcet winner, but this matrix has none")
    t_star = {"copeland": identification_bound(pm, "copeland").value}
    if cw is not None:
        t_star["condorcet"] = identification_bound(pm, "condorcet").value
    correct = {"copeland": [int(w) for w in pm.copeland_winners], "condorcet": [] if cw is None else [int(cw)]}
    shared = {"matrix": pm, "delta": delta, "seed": seed, "max_duels": max_duels, "correct": correct}
    header = {
        "kind": "identify",
        "matrix": pm.mu.tolist(),
        "algorithms": names,
        "delta": delta,
        "seed": seed,
        "max_duels": max_duels,
    }
    job = Job(
        "identify",
        identify_task,
        shared=shared,
        header=header,
        identity=["kind", "matrix", "algorithms", "delta", "seed", "max_duels"],
        desc="identify " + ",".join(names),
        tasks=lambda: [
            # the index depends on (run, algorithm) alone: a rerun with more runs resumes the file
            {"index": r * len(names) + a, "algorithm": name, "algo_index": a, "run": r}
            for r in range(runs)
            for a, name in enumerate(names)
        ],
    )
    rows = run_job(
        job,
        out=out,
        overwrite=overwrite,
        workers=workers,
        scheduler=scheduler,
        chunk_size=chunk_size,
        progress=progress,
    )
    return IdentificationRuns(
        matrix=pm,
        algorithms=names,
        delta=delta,
        runs=runs,
        seed=seed,
        max_duels=max_duels,
        rows=list(rows),
        t_star=t_star,
        runner_stats=dict(getattr(rows, "stats", {})),
    )
