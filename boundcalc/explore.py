"""Pure exploration on candidate-position instances: many seeded runs of one of paper 004's algorithms.

Chen, Du, Huang & Zhao, "Combinatorial Pure Exploration for Dueling Bandits", ICML 2020 (004).
:func:`explore` runs one registered algorithm (:data:`boundcalc.cpe.algorithms.ALGORITHMS`:
CLUCB-Borda-PAC and CLUCB-Borda-Exact, Algorithms 1 and 5; CAR-Cond, CAR-Parallel and
CAR-Verify, Algorithms 2-4) ``runs`` times on one instance and reports, next to the hardness
constants boundcalc computes exactly (:mod:`boundcalc.cpe`):

* the empirical error rate against ``delta``: a run is *correct* when it returns the true winner
  of the algorithm's target -- the Borda winner ``M^B_*`` (004 Sec. 2, eq. (2)) or the Condorcet
  winner ``M^C_*`` -- and, for the PAC algorithm, when its output is ``epsilon``-optimal,
  ``B(Out) >= B(M^B_*) - epsilon`` (004 Theorem 1); the column ``exact`` says whether the output
  *is* the winner;
* the sample complexity (duels used until the algorithm stops): mean, standard error, spread;
* ``H^B`` (Definition 4), ``H^B_eps`` (Theorem 1, with ``epsilon``), the Condorcet hardness
  ``H^C`` (Theorem 4, unordered comparable pairs), ``H^C_ver`` (Sec. 4.3), the bracketed
  expressions of Theorems 1-6 (:func:`boundcalc.cpe.sample_complexity_expressions`) and the
  explicit lower bounds of Theorems 3 and 6 (App. B.6 and C.4) where their conditions hold.

Seeding
    Run ``r`` uses the integer seed ``s_r = SeedSequence(seed, spawn_key=(r,)).generate_state(1,
    uint64)[0] >> 1`` (the ``r``-th child of ``SeedSequence(seed).spawn(runs)``; the runner's
    :func:`~boundcalc.runner.job.derive_seed`, form ``"int63"``), recorded in the
    table's ``seed`` column: ``run_algorithm(name, inst, delta=..., seed=s_r)`` repeats run ``r``
    exactly.  A run's numbers therefore depend on ``(seed, r)`` only, not on how many runs
    there are, on the chunk size or on the number of Dask workers.

Execution
    One task per run through :func:`boundcalc.runner.run_job` (in-process, a local Dask
    cluster with ``workers=n``, or ``scheduler=ADDRESS``; optional resumable JSON Lines store;
    progress bar on stderr).

>>> res = explore([[0.5, 0.8], [0.2, 0.5]], "car-cond", delta=0.05, runs=3, seed=0)
>>> res.to_dict()["winner"], res.correct_rate, res.hardness["H^C"]
([[0, 's']], 1.0, 11.11...)
>>> bool(res.n_duels.min() > 0), res.statistics()["stopped"]
(True, {'identified': 3})
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .matrix import MatrixLike
from .result import RichResult, to_jsonable
from .runner.store import check_revision, revision, same

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes

    from .cpe.algorithms import AlgorithmSpec
    from .cpe.instance import CPEInstance

__all__ = [
    "explore",
    "ExplorationRuns",
    "explore_task",
    "run_seed",
    "plot_sample_complexity",
    "random_cpe_instance",
    "compute_hardness",
    "HARDNESS_KEYS",
    "DEFAULT_HARDNESS",
]

#: The hardness constants an :class:`ExplorationRuns` carries (keys of ``result.hardness``).
HARDNESS_KEYS = ("H^B", "H^B_eps", "H^C", "H^C_ver")
#: The hardness on the x axis of :func:`plot_sample_complexity` by default, per target.
DEFAULT_HARDNESS = {"borda": "H^B", "condorcet": "H^C"}
#: Relative tolerance of the PAC criterion ``B(Out) >= B(M^B_*) - epsilon`` (rounding of sums).
PAC_RTOL = 1e-12


# ----------------------------------------------------------------------------- seeds and tasks
def run_seed(seed: int, run: int) -> int:
    """The integer seed of run ``run`` (module text): a non-negative 63-bit integer.

    >>> run_seed(0, 0) == run_seed(0, 0) != run_seed(0, 1)
    True
    """
    from .runner.job import derive_seed

    return int(derive_seed(seed, run, form="int63"))


def _spec(name: str) -> AlgorithmSpec:
    from .cpe.algorithms import ALGORITHMS

    try:
        return ALGORITHMS[name]
    except KeyError:
        raise ValueError(f"unknown algorithm {name!r}; choose one of {', '.join(sorted(ALGORITHMS))}") from None


def explore_task(task: dict, shared: dict) -> dict:
    """The runner's task function: run ``task["run"]`` of the algorithm -> a JSON row.

    ``shared`` holds the instance, the algorithm's name and parameters, the true winner (edge
    indices) and, for a Borda target, the edge rewards ``w`` (004 eq. (4)).
    """
    import time

    from .cpe.algorithms import ALGORITHMS, run_algorithm

    check_revision(shared["algorithm"], shared.get("revision"), ALGORITHMS[shared["algorithm"]].revision)
    inst = shared["instance"]
    t0 = time.perf_counter()
    res = run_algorithm(
        shared["algorithm"],
        inst,
        delta=shared["delta"],
        epsilon=shared["epsilon"],
        seed=task["seed"],
        max_duels=shared["max_duels"],
        require_winner=False,
        **shared["options"],
    )
    seconds = time.perf_counter() - t0
    M = None if res.matching is None else tuple(int(e) for e in res.matching)
    winner = tuple(shared["winner"])
    exact = M is not None and tuple(sorted(M)) == tuple(sorted(winner))
    row = {
        "index": task["index"],
        "run": task["run"],
        "seed": task["seed"],
        "n_duels": int(res.n_duels),
        "matching": None if M is None else list(M),
        "stopped": str(res.stopped),
        "exact": bool(exact),
        "correct": bool(exact),
        "seconds": seconds,
    }
    w = shared.get("w")
    if w is not None:
        l = inst.n_positions
        best = float(sum(w[e] for e in winner)) / l
        score = None if M is None else float(sum(w[e] for e in M)) / l
        row["score"] = score
        if shared["epsilon"] is not None:  # only a PAC algorithm has one
            eps = float(shared["epsilon"])
            row["correct"] = score is not None and score >= best - eps - PAC_RTOL * max(1.0, abs(best))
    row["stats"] = to_jsonable(dict(getattr(res, "stats", {})))
    return row


# ----------------------------------------------------------------------------- hardness
def _fin(x: Any) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def _explicit_lower_bounds(inst: CPEInstance, delta: float) -> dict:
    """Theorems 3 and 6 with their explicit constants (004 App. B.6, C.4) at the largest valid gamma.

    Both bounds grow with ``gamma``; the conditions are ``|p - 1/2| <= gamma`` on comparable
    pairs and, for Theorem 3, ``gamma < 1/4`` and ``|M| / (|M| - |M_e|) <= (1 - 4 gamma) / (4 gamma
    l)`` for every edge (so ``gamma <= 1 / (4 (l r + 1))`` with ``r`` the largest ratio), for
    Theorem 6 ``gamma < 1/(2 (2 + l))`` and the structural supposition checked by enumeration.
    Each limit is taken times ``1 - 1e-9`` (strict inequalities, and rounding).  ``delta`` must lie in (0, 0.1).
    """
    from .cpe import CPETooLargeError, NoWinnerError, borda_lower_bound, condorcet_lower_bound, matching_counts

    out: dict = {}
    l = inst.n_positions
    dev = max(float(np.max(np.abs(p - 0.5))) for p in inst.position_matrices)
    try:
        counts = matching_counts(inst)
        ratios = [math.inf if me == counts.total else counts.total / (counts.total - me) for me in counts.per_edge]
        r = max(ratios)
        gamma = min(0.25, 1.0 / (4.0 * (l * r + 1.0))) * (1 - 1e-9) if math.isfinite(r) else 0.0
        if gamma < dev:
            raise ValueError(
                f"no valid gamma: the conditions need gamma <= {gamma:.6g} but |p - 1/2| reaches {dev:.6g}"
            )
        out["theorem3"] = {"value": borda_lower_bound(inst, gamma, delta), "gamma": gamma}
    except (ValueError, CPETooLargeError) as exc:  # NoWinnerError is a ValueError
        out["theorem3"] = {"value": None, "reason": str(exc)}
    try:
        gamma = (1 - 1e-9) / (2.0 * (2 + l))
        if gamma < dev:
            raise ValueError(
                f"no valid gamma: Theorem 6 needs gamma < 1/(2(2 + l)) = {1 / (2 * (2 + l)):.6g}"
                f" but |p - 1/2| reaches {dev:.6g}"
            )
        out["theorem6"] = {"value": condorcet_lower_bound(inst, gamma, delta), "gamma": gamma}
    except (ValueError, CPETooLargeError, NoWinnerError) as exc:
        out["theorem6"] = {"value": None, "reason": str(exc)}
    return out


def compute_hardness(inst: CPEInstance, delta: float, epsilon: float | None = None) -> dict:
    """The constants of 004 an exploration result is compared with, as a JSON-ready dict.

    ``{"width", "H^B", "H^B_eps", "H^C", "H^C_ver", "expressions": {"theorem1".. "theorem6"},
    "lower_bounds": {"theorem3", "theorem6"}, "reasons": {key: why it is None}}``: ``H^B``
    (Definition 4), ``H^B_eps`` (Theorem 1; None without ``epsilon``), ``H^C`` (Theorem 4,
    unordered comparable pairs), ``H^C_ver`` (Sec. 4.3); the expressions inside Theorems 1-6's
    ``O(.)`` / ``Omega(.)`` (no constant factor, in duels); the explicit lower bounds (see
    :func:`_explicit_lower_bounds`).  A quantity that does not exist (no unique Borda winner,
    no Condorcet winner, too large to compute exactly) is None with its reason.
    """
    from .cpe import (
        CPETooLargeError,
        NoWinnerError,
        borda_hardness,
        borda_pac_hardness,
        condorcet_hardness,
        condorcet_ver_hardness,
        sample_complexity_expressions,
        width,
    )

    out: dict = {"width": None, "H^B": None, "H^B_eps": None, "H^C": None, "H^C_ver": None}
    reasons: dict = {}
    try:
        out["width"] = int(width(inst))
    except CPETooLargeError as exc:
        reasons["width"] = str(exc)
    try:
        out["H^B"] = _fin(borda_hardness(inst))
        if epsilon is not None:
            out["H^B_eps"] = _fin(borda_pac_hardness(inst, epsilon, width_value=out["width"]))
        else:
            reasons["H^B_eps"] = "needs epsilon (004 Theorem 1)"
    except (NoWinnerError, CPETooLargeError) as exc:
        reasons["H^B"] = reasons["H^B_eps"] = str(exc)
    try:
        out["H^C"] = _fin(condorcet_hardness(inst))
        out["H^C_ver"] = _fin(condorcet_ver_hardness(inst))
    except (NoWinnerError, CPETooLargeError) as exc:
        reasons["H^C"] = reasons["H^C_ver"] = str(exc)
    try:
        ex = sample_complexity_expressions(inst, delta, epsilon)
        out["expressions"] = {k: (None if r.value is None else _fin(r.value)) for k, r in ex.items()}
        for k, r in ex.items():
            if r.value is None:
                reasons[k] = r.reason
    except CPETooLargeError as exc:
        out["expressions"] = {f"theorem{n}": None for n in range(1, 7)}
        reasons["expressions"] = str(exc)
    out["lower_bounds"] = _explicit_lower_bounds(inst, delta)
    out["reasons"] = reasons
    return out


# ----------------------------------------------------------------------------- result
@dataclass(repr=False)
class ExplorationRuns(RichResult):
    """All runs of one pure-exploration algorithm on one instance, with 004's constants.

    Attributes
    ----------
    instance : CPEInstance
    algorithm, target, paper : str
        Registered name, ``"borda"`` or ``"condorcet"``, the pseudocode it follows.
    delta : float
    epsilon : float or None
    runs, seed : int
    max_duels : int or None
    options : dict
        Extra keywords passed to the algorithm.
    winner : tuple of int
        The true winner of ``target`` (edge indices, position order).
    rows : list of dict
        One per run: ``run, seed, n_duels, matching (edge indices or None), stopped, exact,
        correct, seconds, stats`` (and ``score``, the output's Borda score, for a Borda target).
    hardness : dict
        :func:`compute_hardness`.
    runner_stats : dict
        :attr:`boundcalc.runner.Rows.stats`.
    """

    instance: Any
    algorithm: str
    target: str
    paper: str
    delta: float
    epsilon: float | None
    runs: int
    seed: int
    max_duels: int | None
    options: dict
    winner: tuple
    rows: list
    hardness: dict
    runner_stats: dict = field(default_factory=dict)

    # -- columns
    @property
    def n_duels(self) -> np.ndarray:
        """Duels used by each run (sample complexity), in run order."""
        return np.array([r["n_duels"] for r in self.rows], dtype=np.int64)

    @property
    def correct(self) -> np.ndarray:
        return np.array([r["correct"] for r in self.rows], dtype=bool)

    @property
    def correct_rate(self) -> float:
        return float(self.correct.mean())

    @property
    def winner_edges(self) -> list:
        """The true winner as ``[[candidate, position], ...]``."""
        return [list(e) for e in self.instance.matching_edges(self.winner)]

    def hardness_value(self, key: str | None = None) -> float | None:
        """``hardness[key]``; by default the target's (:data:`DEFAULT_HARDNESS`)."""
        key = key or DEFAULT_HARDNESS[self.target]
        if key in self.hardness and key not in ("expressions", "lower_bounds", "reasons"):
            return self.hardness[key]
        if key in self.hardness.get("expressions", {}):
            return self.hardness["expressions"][key]
        raise KeyError(f"unknown hardness {key!r}; choose one of {list(HARDNESS_KEYS)} or theorem1..theorem6")

    def __repr__(self) -> str:
        name = f" {self.instance.name!r}" if self.instance.name else ""
        return (
            f"<ExplorationRuns {self.algorithm} on{name} ({self.instance.n_edges} edges): {self.runs} runs,"
            f" delta {self.delta:g}, correct rate {self.correct_rate:.3g}>"
        )

    def statistics(self) -> dict:
        """Correct rate, error rate (with a one-sided 95 % Clopper-Pearson upper limit, to hold
        against ``delta``), how the runs stopped, and the sample complexity's mean, standard
        error, min, max and 10 %, 50 %, 90 % quantiles."""
        from scipy.stats import beta

        n = self.n_duels.astype(float)
        R = len(n)
        errors = int(R - self.correct.sum())
        upper = 1.0 if errors == R else float(beta.ppf(0.95, errors + 1, R - errors))
        stopped: dict[str, int] = {}
        for r in self.rows:
            stopped[r["stopped"]] = stopped.get(r["stopped"], 0) + 1
        q10, q50, q90 = (float(x) for x in np.quantile(n, [0.1, 0.5, 0.9]))
        return {
            "correct_rate": float(self.correct.mean()),
            "exact_rate": float(np.mean([r["exact"] for r in self.rows])),
            "error_rate": errors / R,
            "error_rate_upper95": upper,
            "stopped": dict(sorted(stopped.items())),
            "samples": {
                "mean": float(n.mean()),
                "stderr": float(n.std(ddof=1) / math.sqrt(R)) if R > 1 else None,
                "min": int(n.min()),
                "max": int(n.max()),
                "q10": q10,
                "median": q50,
                "q90": q90,
            },
            "seconds": float(sum(r["seconds"] for r in self.rows)),
        }

    def to_frame(self) -> pd.DataFrame:
        """Tidy ``pandas.DataFrame``: one row per run (``run, seed, n_duels, correct, exact,
        matching`` as ``[[candidate, position], ...]`` or None, ``stopped, seconds``)."""
        import pandas as pd

        inst = self.instance
        recs = []
        for r in self.rows:
            rec = {
                "algorithm": self.algorithm,
                "run": r["run"],
                "seed": r["seed"],
                "n_duels": r["n_duels"],
                "correct": r["correct"],
                "exact": r["exact"],
                "matching": None if r["matching"] is None else [list(e) for e in inst.matching_edges(r["matching"])],
                "stopped": r["stopped"],
                "seconds": r["seconds"],
            }
            if "score" in r:
                rec["score"] = r["score"]
            recs.append(rec)
        return pd.DataFrame.from_records(recs)

    def to_dict(self) -> dict:
        """The JSON document of ``boundcalc explore --json``."""
        inst = self.instance
        s = self.statistics()
        per_run = []
        for r in self.rows:
            d = {k: r[k] for k in ("run", "seed", "n_duels", "correct", "exact", "stopped", "seconds")}
            d["matching"] = None if r["matching"] is None else [list(e) for e in inst.matching_edges(r["matching"])]
            if "score" in r:
                d["score"] = r["score"]
            d["stats"] = r.get("stats", {})
            per_run.append(d)
        return {
            "algorithm": self.algorithm,
            "target": self.target,
            "paper": self.paper,
            "instance": inst.name,
            "candidates": inst.n_candidates,
            "positions": inst.n_positions,
            "edges": inst.n_edges,
            "delta": self.delta,
            "epsilon": self.epsilon,
            "runs": self.runs,
            "seed": self.seed,
            "max_duels": self.max_duels,
            "options": self.options,
            "winner": self.winner_edges,
            "correct_rate": s["correct_rate"],
            "exact_rate": s["exact_rate"],
            "error_rate": s["error_rate"],
            "error_rate_upper95": s["error_rate_upper95"],
            "stopped": s["stopped"],
            "samples": s["samples"],
            "hardness": self.hardness,
            "seconds": s["seconds"],
            "per_run": per_run,
        }

    def summary(self) -> str:
        """A short text: the instance, the algorithm, correct rate, duels, hardness (what the CLI prints)."""
        s = self.statistics()
        inst = self.instance
        h = self.hardness
        eps = "" if self.epsilon is None else f", epsilon = {self.epsilon:g}"
        name = f" {inst.name}" if inst.name else ""
        winner = ", ".join(f"({c}, {p})" for c, p in self.winner_edges)
        lines = [
            f"instance{name}: {inst.n_candidates} candidates, {inst.n_positions} positions, {inst.n_edges} edges",
            f"{self.algorithm} ({self.paper}): delta = {self.delta:g}{eps}, {self.runs} runs, seed {self.seed}",
            f"{self.target} winner: {winner}",
            f"correct {s['correct_rate']:.3f} (error rate {s['error_rate']:.3f}, 95% upper limit "
            f"{s['error_rate_upper95']:.3f}, delta {self.delta:g}); stopped: "
            + ", ".join(f"{k} {v}" for k, v in s["stopped"].items()),
        ]
        sm = s["samples"]
        se = "n/a" if sm["stderr"] is None else f"{sm['stderr']:.4g}"
        lines.append(
            f"duels: mean {sm['mean']:.6g} (stderr {se}), min {sm['min']}, median {sm['median']:.6g},"
            f" max {sm['max']}; {s['seconds']:.3g} s wall in all"
        )

        def f(x: float | None) -> str:
            return "n/a" if x is None else f"{x:.6g}"

        lines.append(
            "hardness: " + ", ".join(f"{k} {f(h.get(k))}" for k in HARDNESS_KEYS) + f", width {h.get('width')}"
        )
        ex = h.get("expressions", {})
        lines.append(
            "004 expressions (no constant factor, duels): " + ", ".join(f"Thm {k[-1]} {f(v)}" for k, v in ex.items())
        )
        lb = h.get("lower_bounds", {})
        lines.append("explicit lower bounds: " + ", ".join(f"Thm {k[-1]} {f(v.get('value'))}" for k, v in lb.items()))
        return "\n".join(lines)

    def plot(self, ax: Axes | str | os.PathLike | None = None, hardness: str | None = None, **kw: Any) -> Axes:
        """This result's point on :func:`plot_sample_complexity` (mean, 10 %-90 % bar, against H);
        ``ax`` an Axes or a file path to save to."""
        return plot_sample_complexity([self], ax=ax, hardness=hardness, **kw)


# ----------------------------------------------------------------------------- explore
def _check_unit_interval(name: str, x: Any) -> float:
    try:
        v = float(x)
    except (TypeError, ValueError):
        raise ValueError(f"{name} = {x!r} is not a number") from None
    if not 0 < v < 1:
        raise ValueError(f"{name} must lie in (0, 1); got {x!r}")
    return v


def explore(
    instance: CPEInstance | MatrixLike | Mapping[str, Any],
    algorithm: str,
    *,
    delta: float,
    epsilon: float | None = None,
    runs: int = 10,
    seed: int = 0,
    max_duels: int | None = None,
    options: Mapping[str, Any] | None = None,
    out: str | os.PathLike | None = None,
    overwrite: bool = False,
    workers: int | None = 0,
    scheduler: Any = None,
    chunk_size: int | None = None,
    progress: bool | None = None,
) -> ExplorationRuns:
    """Run the registered algorithm ``runs`` times on ``instance`` (module text).

    Parameters
    ----------
    instance : CPEInstance, PreferenceMatrix or array_like
        A K x K matrix is its one-position instance (:meth:`CPEInstance.from_matrix`).
    algorithm : str
        A key of :data:`boundcalc.cpe.algorithms.ALGORITHMS` (``clucb-borda-pac``,
        ``clucb-borda-exact``, ``car-cond``, ``car-verify``, ``car-parallel``).
    delta : float
        Confidence, in (0, 1).
    epsilon : float, optional
        Accuracy of the PAC algorithm (required there, > 0, and refused by the others); also gives
        ``H^B_eps`` and Theorem 1's expression.
    runs, seed : int
        Independent runs; root seed (run ``r`` uses :func:`run_seed`).
    max_duels : int, optional
        A budget per run (the algorithm stops with ``stopped == "budget"``).
    options : dict, optional
        Extra keywords of the algorithm (:func:`boundcalc.cpe.algorithms.run_algorithm`).
    out, overwrite, workers, scheduler, chunk_size, progress
        The run options shared with :func:`boundcalc.batch.run_batch` and
        :func:`boundcalc.simulate.simulate` (:func:`boundcalc.runner.job.run_job`): a resumable JSON
        Lines row file (one row per run), in-process by default (``workers=n``: a local Dask
        cluster), a progress bar when stderr is a terminal.

    Raises
    ------
    ValueError
        Unknown algorithm; ``delta`` outside (0, 1); a PAC algorithm without ``epsilon`` or a
        non-positive one, an exact algorithm with one; ``runs < 1``; a bad seed; no (unique) winner of the algorithm's
        target (:class:`boundcalc.cpe.NoWinnerError`, a ValueError).
    """
    from .cpe import NoWinnerError, as_instance, borda_winner, condorcet_winner, edge_rewards
    from .runner.job import MAX_TASKS, Job, check_count, check_seed, run_job

    spec = _spec(algorithm)
    delta = _check_unit_interval("delta", delta)
    if epsilon is not None:
        try:
            epsilon = float(epsilon)
        except (TypeError, ValueError):
            raise ValueError(f"epsilon = {epsilon!r} is not a number") from None
        if not (epsilon > 0 and math.isfinite(epsilon)):
            raise ValueError(f"epsilon must be > 0; got {epsilon!r}")
    if spec.needs_epsilon and epsilon is None:
        raise ValueError(f"{algorithm} is a PAC algorithm: give the accuracy epsilon (> 0)")
    if not spec.needs_epsilon and epsilon is not None:
        raise ValueError(f"{algorithm} takes no epsilon (it identifies the exact winner); got epsilon = {epsilon!r}")
    runs = check_count(runs, "runs", low=1, high=MAX_TASKS)
    seed = check_seed(seed)
    if max_duels is not None:
        max_duels = check_count(max_duels, "max_duels", low=1)
    inst = as_instance(instance)
    options = dict(options or {})
    w = None
    if spec.target == "borda":
        try:
            w = edge_rewards(inst)
            winner = borda_winner(inst, w)
        except NoWinnerError as exc:
            raise NoWinnerError(f"{algorithm} identifies the Borda winner, but {exc}") from None
        w = [float(x) for x in w]
    elif spec.target == "condorcet":
        winner = condorcet_winner(inst)
        if winner is None:
            raise NoWinnerError(
                f"{algorithm} identifies the Condorcet winner, but the instance has no Condorcet"
                " winning matching (004 Sec. 2: one with f(M*, M) > 1/2 against every other)"
            )
    else:  # pragma: no cover - the registry's contract
        raise ValueError(f"algorithm {algorithm!r} has an unknown target {spec.target!r}")
    winner = tuple(int(e) for e in winner)
    shared = {
        "instance": inst,
        "algorithm": spec.name,
        "revision": spec.revision,
        "delta": delta,
        "epsilon": epsilon,
        "max_duels": None if max_duels is None else int(max_duels),
        "options": options,
        "winner": winner,
        "w": w,
    }
    header = {
        "kind": "explore",
        "instance": inst.to_json(),
        "algorithm": spec.name,
        "revision": spec.revision,
        "delta": delta,
        "epsilon": epsilon,
        "seed": int(seed),
        "max_duels": shared["max_duels"],
        "options": options,
    }
    # a file written before revisions were recorded holds revision 1's runs (0.1.0's decisions)
    identity = {f: (revision if f == "revision" else same) for f in header}
    job = Job(
        "explore",
        explore_task,
        shared=shared,
        header=header,
        identity=identity,
        desc=f"explore {spec.name}",
        tasks=lambda: [{"index": r, "run": r, "seed": run_seed(seed, r)} for r in range(runs)],
    )
    # a file of another decisions revision is named by the store's one message (runner.store.refusal)
    rows = run_job(
        job,
        out=out,
        overwrite=overwrite,
        workers=workers,
        scheduler=scheduler,
        chunk_size=chunk_size,
        progress=progress,
    )
    hardness = compute_hardness(inst, delta, epsilon)
    return ExplorationRuns(
        instance=inst,
        algorithm=spec.name,
        target=spec.target,
        paper=spec.paper,
        delta=delta,
        epsilon=epsilon,
        runs=runs,
        seed=int(seed),
        max_duels=shared["max_duels"],
        options=options,
        winner=winner,
        rows=list(rows),
        hardness=hardness,
        runner_stats=dict(getattr(rows, "stats", {})),
    )


# ----------------------------------------------------------------------------- plot
def plot_sample_complexity(
    results: Iterable[ExplorationRuns],
    *,
    hardness: str | Mapping[str, str] | None = None,
    ax: Axes | str | os.PathLike | None = None,
    band: str | None = "quantile",
    reference: bool = True,
    title: str | None = None,
) -> Axes:
    """Sample complexity against hardness for a family of instances: log-log, one series per algorithm.

    Per result a marker at ``(H, mean duels)`` with a bar over the runs' spread (``band``:
    ``"quantile"`` 10 %-90 %, ``"minmax"``, ``"stderr"`` or None); the points of one algorithm
    are joined in order of ``H``.  ``hardness`` names the x quantity (a key of
    :data:`HARDNESS_KEYS` or ``"theorem1"`` .. ``"theorem6"``), one for all or a dict per
    algorithm; default :data:`DEFAULT_HARDNESS` of each algorithm's target.  With
    ``reference`` the line ``H ln(1/delta)`` (the shape of 004's lower bounds, Theorems 3 and 6,
    without their constants) is drawn dashed when every result has the same ``delta``.
    Results whose hardness is undefined are left out (a warning names them).  ``ax``: an Axes,
    a file path to save the figure to, or None (a new figure); the Axes is returned.
    """
    from .plot import axes_for

    results = list(results)
    if not results:
        raise ValueError("no results to plot")
    with axes_for(ax, figsize=(6.4, 4.4)) as drawn:
        _draw_sample_complexity(drawn, results, hardness, band, reference, title)
    return drawn


def _draw_sample_complexity(
    ax: Axes,
    results: list[ExplorationRuns],
    hardness: str | Mapping[str, str] | None,
    band: str | None,
    reference: bool,
    title: str | None,
) -> None:
    import warnings

    groups: dict[str, list] = {}
    for r in results:
        groups.setdefault(r.algorithm, []).append(r)
    xs_all: list[float] = []
    keys_used = set()
    for name, rs in groups.items():
        key = hardness.get(name) if isinstance(hardness, Mapping) else hardness
        key = key or DEFAULT_HARDNESS[rs[0].target]
        keys_used.add(key)
        pts = []
        for r in rs:
            H = r.hardness_value(key)
            if H is None or not H > 0:
                warnings.warn(f"{name} on {r.instance.name or 'an instance'}: {key} undefined; left out", stacklevel=2)
                continue
            n = r.n_duels.astype(float)
            m = float(n.mean())
            if band == "quantile":
                lo, hi = np.quantile(n, [0.1, 0.9])
            elif band == "minmax":
                lo, hi = n.min(), n.max()
            elif band == "stderr":
                s = n.std(ddof=1) / math.sqrt(len(n)) if len(n) > 1 else 0.0
                lo, hi = m - s, m + s
            elif band is None:
                lo = hi = m
            else:
                raise ValueError(f"band must be 'quantile', 'minmax', 'stderr' or None; got {band!r}")
            pts.append((H, m, lo, hi))
        if not pts:
            continue
        pts.sort()
        Hs, ms, los, his = (np.array(c) for c in zip(*pts))
        xs_all.extend(Hs.tolist())
        label = name if len(groups) == 1 or isinstance(hardness, str) else f"{name} (x: {key})"
        ax.errorbar(Hs, ms, yerr=[ms - los, his - ms], fmt="o-", ms=4, capsize=3, lw=1, label=label)
    deltas = {r.delta for r in results}
    if reference and xs_all and len(deltas) == 1:
        d = deltas.pop()
        lab = f"H ln(1/delta), delta = {d:g}"
        if max(xs_all) > min(xs_all):
            x = np.geomspace(min(xs_all), max(xs_all), 50)
            ax.plot(x, x * -math.log(d), "k--", lw=1, label=lab)
        else:  # one hardness value: a marker
            ax.plot(xs_all[:1], [xs_all[0] * -math.log(d)], "k_", ms=14, mew=1.5, label=lab)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("hardness " + (" / ".join(sorted(keys_used)) if keys_used else "H"))
    ax.set_ylabel("duels until stopping (sample complexity)")
    if title is None:
        runs = sorted({r.runs for r in results})
        title = (
            f"004 pure exploration: mean and {'10%-90% of runs' if band == 'quantile' else band or 'mean'}"
            f" ({'/'.join(map(str, runs))} runs)"
        )
    ax.set_title(title, fontsize="medium")
    ax.legend(fontsize="small")
    from .plot import plain_log_ticks

    plain_log_ticks(ax.xaxis)


# ----------------------------------------------------------------------------- instances
def random_cpe_instance(
    n_positions: int,
    candidates_per_position: int = 2,
    rng: np.random.Generator | int | None = None,
    *,
    n_candidates: int | None = None,
    gap: float = 0.2,
    spread: float = 0.5,
    condorcet: bool = True,
    max_tries: int = 200,
    name: str | None = None,
) -> CPEInstance:
    """A random candidate-position instance of 004's kind, for families of exploration runs.

    ``n_candidates`` candidates (default ``n_positions + candidates_per_position - 1``) on a
    ring; position ``j`` can take the ``candidates_per_position`` candidates ``j, j+1, ...``
    (mod ``n_candidates``), so neighbouring positions compete for candidates and there are
    several maximum matchings.  Each position's preferences come from latent utilities
    ``u_c ~ N(0, 1)`` per (candidate, position): ``p = 1/2 + (gap + spread |u_c - u_c'| / 2)
    sign(u_c - u_c')``, clipped to ``[0.01, 0.99]``; smaller ``gap`` and ``spread`` give harder
    instances (larger ``H``).  With ``condorcet`` the draw is repeated (up to ``max_tries``)
    until a Condorcet winning matching and a unique Borda winner exist.

    >>> inst = random_cpe_instance(3, 2, 0)
    >>> inst.n_positions, inst.n_edges
    (3, 6)
    """
    from .cpe import CPEInstance, NoWinnerError, borda_winner, condorcet_winner

    l, k = int(n_positions), int(candidates_per_position)
    if l < 1 or k < 2:
        raise ValueError(f"need n_positions >= 1 and candidates_per_position >= 2; got {l}, {k}")
    n = l + k - 1 if n_candidates is None else int(n_candidates)
    if n < max(l, k):
        raise ValueError(f"n_candidates = {n} < max(n_positions, candidates_per_position) = {max(l, k)}")
    if not 0 < gap < 0.5 or spread < 0:
        raise ValueError(f"gap must lie in (0, 1/2) and spread >= 0; got {gap}, {spread}")
    rng = np.random.default_rng(rng)
    for _ in range(max_tries):
        edges, P_blocks = [], []
        for j in range(l):
            cands = [f"c{(j + i) % n}" for i in range(k)]
            u = rng.normal(size=k)
            d = u[:, None] - u[None, :]
            p = 0.5 + np.sign(d) * (gap + spread * np.abs(d) / 2)
            p = np.clip(p, 0.01, 0.99)
            np.fill_diagonal(p, 0.5)
            edges += [(c, f"s{j}") for c in cands]
            P_blocks.append(p)
        m = len(edges)
        P = np.zeros((m, m))
        for j, p in enumerate(P_blocks):
            P[j * k : (j + 1) * k, j * k : (j + 1) * k] = p
        inst = CPEInstance.from_edge_matrix(edges, P, name=name)
        if not condorcet:
            return inst
        try:
            borda_winner(inst)
        except NoWinnerError:
            continue
        if condorcet_winner(inst) is not None:
            return inst
    raise ValueError(
        f"no instance with a Condorcet and a unique Borda winner in {max_tries} draws; raise gap or max_tries"
    )


def __getattr__(name: str) -> type:
    """``ExploreResult``: the 0.1.0 name of :class:`ExplorationRuns` (deprecated: it read like
    :class:`boundcalc.cpe.base.ExplorationResult`, the result of one run)."""
    if name == "ExploreResult":
        import warnings

        warnings.warn(
            "boundcalc.explore.ExploreResult is deprecated: use ExplorationRuns", DeprecationWarning, stacklevel=2
        )
        return ExplorationRuns
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
