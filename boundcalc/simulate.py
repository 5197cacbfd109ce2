"""Simulate online dueling-bandit policies on a preference matrix: regret curves against the bounds.

Environment
    Bernoulli duels drawn from the true matrix ``mu``: in the duel ``(i, j)`` arm ``i`` wins
    with probability ``mu[i, j]``.  The ``n``-th duel of the unordered pair ``{lo, hi}`` in a
    run uses the uniform ``duel_uniform(key0, key1, lo * K + hi, n)``
    (:mod:`boundcalc.policies.kernel`), so with common random numbers (``crn=True``, the default)
    every policy of a run sees the same outcome for the same draw of the same pair.

Regret (per round, summed to the cumulative regret ``R(t)``)
    * ``"000"``: paper 000's ``r_ij = (L_i + L_j - 2 L(1)) / (2 (K - 1))`` (Sec. 2), including
      the self-duel ``r_ii = (L_i - L(1)) / (K - 1)``; equal to D-TS's (001) regret;
    * ``"condorcet"`` (matrices with a Condorcet winner ``w`` only): RMED's
      ``(Delta_wi + Delta_wj) / 2`` with ``Delta_wi = mu_wi - 1/2`` (Komiyama et al. 2015);
    * ``"nonwinner"``: 1 unless both arms are Copeland winners (000 Sec. 2's alternative
      regret), so ``R(t) / t`` is the share of rounds outside the Copeland winners.

Seeding
    The runner derives the seeds (:func:`boundcalc.runner.job.derive_seed`, :func:`run_seeds`):
    run ``r`` draws everything from ``SeedSequence(seed, spawn_key=(r, ...))`` -- the ``r``-th
    child of ``SeedSequence(seed).spawn(runs)`` and its descendants: the duel keys from
    ``(r, 0)`` (with ``crn``; otherwise ``(r, 0, id)`` with ``id`` a CRC-32 of the policy's
    label), the policy's Generator from ``(r, 1, id)``, the arm shuffle (``shuffle=True``) from
    ``(r, 2)``.  A run's numbers therefore depend on ``(seed, r, policy)`` only: not on how many
    runs there are, how they are batched, or on how many workers.

Execution
    One task per (policy, run) through :func:`boundcalc.runner.run_job` (in-process,
    a local Dask cluster with ``workers=n``, or ``scheduler=ADDRESS``; optional resumable
    JSON Lines store).  The row of policy ``p`` (of ``P``) in run ``r`` has index ``r P + p``, and
    the number of runs is not part of the store's identity: a row file holds runs of its settings
    (``0, 1, ...`` unless ``first_run`` was given), a rerun with more runs computes only the new
    ones (the result is that of one job with all of them), one with fewer reads the first ones.
    ``first_run=m`` runs ``m, ..., m + runs - 1`` instead of ``0, ..., runs - 1``: the same numbers
    those runs have in a job of ``m + runs`` runs, so a long job can be split between machines, or
    continued where the rows of its first runs are gone.  In-process without a row file and without
    a progress bar (a script's default) the tasks need nothing of the runner but their loop, and
    :func:`simulate` computes their rows itself, in order: the runner's rows, each curve the float
    array whose JSON list the runner returns (the same floats; ``tests/test_simulate_paths.py``),
    so that a short run does not pay the runner's fixed cost (``benchmarks/simulate_overhead.py``).
    A compiled policy
    (:class:`~boundcalc.policies.kernel.CompiledPolicy`: every registered one) runs the whole
    horizon in its own whole-run kernel, which loops over the very step functions
    ``select_pair``/``update`` call; ``fast=False`` drives the same policy through the protocol
    step by step (:func:`run_protocol`) and gives the same numbers.
    A randomized policy's stream is seeded by ``pol_ss.generate_state(1, uint64)[0]``
    (``pol_ss`` the policy SeedSequence above) on both paths.

>>> from boundcalc.datasets import load_example
>>> res = simulate(load_example("table2"), ["ecw-rmed", "rmed1"], horizon=2000, runs=3, seed=1)
>>> int(res.checkpoints[-1]), sorted(res.policy_names)
(2000, ['ecw-rmed', 'rmed1'])
>>> bool(res.mean("ecw-rmed")[-1] > 0), round(res.lower_bound, 2), round(res.ecw, 2)
(True, 27.55, 49.66)
"""

from __future__ import annotations

import functools
import math
import os
import sys
import time
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ._table import format_table
from .kernels.policy import new_env
from .kernels.stats import duel_uniform_py
from .matrix import MatrixLike, PreferenceMatrix, as_preference_matrix
from .policies import Policy, PolicyError, get_policy, resolve_policy_list
from .policies.environment import regret_matrices
from .policies.kernel import CompiledPolicy
from .result import Result, RichResult, to_jsonable
from .runner.executor import Rows
from .runner.job import MAX_TASKS, Job, check_count, check_seed, derive_seed, resolve_workers, run_job
from .runner.store import check_revision, revision, same
from .units import UNIT_000, UNIT_RMED

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes

#: How a row file's rows are indexed: policy ``p`` of ``P`` in run ``r`` at ``r P + p``.  Part of the
#: store's identity, so that a file of earlier versions (rows at ``p * runs + r``, no layout in the
#: header) is refused, never misread -- except with one policy, where both layouts index run ``r``
#: at ``r`` and such a file resumes (and takes more runs) as it is.
LAYOUT = "run-major"

#: Longest horizon a simulation accepts (beyond, even the fastest compiled policy runs for hours).
MAX_HORIZON = 10**10

__all__ = [
    "simulate",
    "SimulationResult",
    "PolicyRuns",
    "DuelEnvironment",
    "checkpoints",
    "regret_matrices",
    "run_protocol",
    "run_one",
    "simulation_task",
    "run_seeds",
    "UNIT_NAMES",
]

#: Regret units a simulation records (key -> description).
UNIT_NAMES = {
    "000": UNIT_000.replace(" per ln T", ""),
    "condorcet": UNIT_RMED.replace(" per ln T", ""),
    "nonwinner": "rounds with an arm outside the Copeland winners",
}


# ----------------------------------------------------------------------------- environment
class DuelEnvironment:
    """Bernoulli duels from ``mu`` on the counter-based stream of :mod:`boundcalc.policies.kernel`.

    >>> env = DuelEnvironment(np.array([[0.5, 1.0], [0.0, 0.5]]), 1, 2)
    >>> env.duel(0, 1), env.duel(1, 0), env.draws_of(0, 1)
    (True, False, 2)
    """

    def __init__(self, mu: np.ndarray, key0: int, key1: int):
        self.mu = np.asarray(mu, dtype=float)
        self.K = int(self.mu.shape[0])
        self.key0 = int(key0)
        self.key1 = int(key1)
        self._counts: dict[int, int] = {}

    def draws_of(self, i: int, j: int) -> int:
        lo, hi = min(i, j), max(i, j)
        return self._counts.get(lo * self.K + hi, 0)

    def duel(self, i: int, j: int) -> bool:
        """One duel; True when arm ``i`` wins."""
        lo, hi = (i, j) if i <= j else (j, i)
        code = lo * self.K + hi
        n = self._counts.get(code, 0)
        self._counts[code] = n + 1
        lo_wins = duel_uniform_py(self.key0, self.key1, code, n) < self.mu[lo, hi]
        return bool(lo_wins) if i == lo else not lo_wins


def checkpoints(T: int, per_decade: int = 10) -> np.ndarray:
    """Rounds at which the cumulative regret is recorded: log-spaced from 1, plus ``T``.

    >>> checkpoints(100, per_decade=2).tolist()
    [1, 3, 10, 32, 100]
    """
    T = int(T)
    if T < 1:
        raise ValueError(f"horizon T = {T} must be >= 1")
    if per_decade < 1:
        raise ValueError(f"per_decade = {per_decade} must be >= 1")
    return _checkpoints(T, int(per_decade)).copy()


@functools.lru_cache(maxsize=64)
def _checkpoints(T: int, per_decade: int) -> np.ndarray:
    """:func:`checkpoints` of valid arguments, computed once per ``(T, per_decade)``: numpy's
    ``geomspace`` and ``unique`` cost tens of microseconds, a copy of the kept array one."""
    n = int(math.ceil(per_decade * math.log10(T))) + 1 if T > 1 else 1
    pts = np.unique(np.round(np.geomspace(1, T, n)).astype(np.int64))
    out = np.unique(np.append(pts, T))
    out.flags.writeable = False
    return out


def _label_id(label: str) -> int:
    return zlib.crc32(label.encode())


def run_seeds(
    seed: int, run: int, label: str, crn: bool = True
) -> tuple[int, int, np.random.SeedSequence, np.random.SeedSequence]:
    """``(key0, key1, policy SeedSequence, shuffle SeedSequence)`` of run ``run`` (module text)."""
    return (*_run_keys(seed, run, label, crn), _shuffle_seed(seed, run))


def _run_keys(seed: int, run: int, label: str, crn: bool) -> tuple[int, int, np.random.SeedSequence]:
    """The first three of :func:`run_seeds`: what a run without ``shuffle`` draws from."""
    lid = _label_id(label)
    k0, k1 = derive_seed(seed, run, 0, *(() if crn else (lid,)), form="words", n=2)
    return k0, k1, derive_seed(seed, run, 1, lid)


def _shuffle_seed(seed: int, run: int) -> np.random.SeedSequence:
    """The last of :func:`run_seeds`: the arm shuffle's SeedSequence, drawn only with ``shuffle``."""
    return derive_seed(seed, run, 2)


def run_protocol(policy: Policy, env: DuelEnvironment, T: int, cps: np.ndarray, regrets: np.ndarray) -> np.ndarray:
    """Drive ``policy`` for ``T`` rounds through the protocol; cumulative regret at ``cps``.

    Returns ``out[u, c]`` (units x checkpoints).  A pair outside ``[0, K)`` raises
    :class:`~boundcalc.policies.PolicyError`.
    """
    K = env.K
    U = regrets.shape[0]
    out = np.zeros((U, len(cps)))
    cum = np.zeros(U)
    c = 0
    for t in range(1, T + 1):
        i, j = policy.select_pair()
        if not (0 <= i < K and 0 <= j < K):
            raise PolicyError(f"policy {policy.name!r} proposed ({i}, {j}) at round {t}; arms are 0..{K - 1}")
        won = env.duel(i, j)
        policy.update(i, j, won)
        cum += regrets[:, i, j]
        while c < len(cps) and cps[c] == t:
            out[:, c] = cum
            c += 1
    return out


def _policy_label(name: str, params: Mapping[str, Any]) -> str:
    cls = get_policy(name)
    diff = {k: v for k, v in params.items() if cls.hyperparameters[k].default != v}
    if not diff:
        return name
    return (
        name
        + "("
        + ",".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in sorted(diff.items()))
        + ")"
    )


def run_one(
    name: str,
    params: Mapping[str, Any],
    mu: np.ndarray,
    T: int,
    cps: np.ndarray,
    regrets: np.ndarray,
    *,
    seed: int,
    run: int,
    crn: bool = True,
    shuffle: bool = False,
    fast: bool = True,
    label: str | None = None,
) -> dict:
    """One run of one policy: ``{"regret": out (units x checkpoints), "stats", "seconds", "cpu_seconds",
    "kernel"}`` (wall and CPU seconds of the run itself, compilation excluded).

    With ``shuffle`` the arms are relabelled by a permutation drawn for the run (the same for
    every policy); the regret matrices are relabelled with them.
    """
    cls = get_policy(name)
    params = cls.validate_params(params)
    label = label or _policy_label(name, params)
    return _run_checked(cls, params, label, np.asarray(mu, dtype=float), T, cps, regrets, seed, run, crn, shuffle, fast)


def _run_checked(
    cls: type[Policy],
    params: Mapping[str, Any],
    label: str,
    mu: np.ndarray,
    T: int,
    cps: np.ndarray,
    regrets: np.ndarray,
    seed: int,
    run: int,
    crn: bool,
    shuffle: bool,
    fast: bool,
) -> dict:
    """:func:`run_one` of a policy class and hyperparameters already checked (``mu`` a float array)."""
    k0, k1, pol_ss = _run_keys(seed, run, label, crn)
    K = mu.shape[0]
    if shuffle:
        perm = np.random.default_rng(_shuffle_seed(seed, run)).permutation(K)
        mu = mu[np.ix_(perm, perm)]
        regrets = regrets[:, perm][:, :, perm]
    use_kernel = fast and cls.compiled
    if use_kernel:
        _ensure_compiled(cls, params)
    pol = _new_policy(cls, K, pol_ss, params)
    t0, c0 = time.perf_counter(), time.process_time()
    if use_kernel:
        env_arrays, env = new_env(mu, T, k0, k1, cps, regrets)
        assert isinstance(pol, CompiledPolicy)  # cls.compiled: the class has kernels
        pol.run_environment(env)
        out = env_arrays.out
    else:
        out = run_protocol(pol, DuelEnvironment(mu, k0, k1), T, cps, regrets)
    c1, t1 = time.process_time(), time.perf_counter()
    stats = {k: int(v) for k, v in pol.stats.items()}
    return {"regret": out, "stats": stats, "seconds": t1 - t0, "cpu_seconds": c1 - c0, "kernel": bool(use_kernel)}


def _new_policy(cls: type[Policy], K: int, pol_ss: np.random.SeedSequence, params: Mapping[str, Any]) -> Policy:
    """The run's policy: its Generator from the policy SeedSequence; a compiled randomized policy's
    stream seeded by ``pol_ss.generate_state(1, uint64)[0]`` (module text)."""
    rng = np.random.default_rng(pol_ss)
    if cls.compiled and not cls.deterministic:
        assert issubclass(cls, CompiledPolicy)  # compiled is True exactly for CompiledPolicy (policies.base)
        return cls.with_stream(K, int(pol_ss.generate_state(1, np.uint64)[0]), rng=rng, **params)
    return cls(K, rng=rng, **params)


def simulation_task(task: dict, shared: dict) -> dict:
    """The runner's task function: one (policy, run) -> a JSON row (see :func:`simulate`)."""
    spec = shared["policies"][task["policy"]]
    check_revision(spec["name"], spec.get("revision"), get_policy(spec["name"]).revision)
    row = _task_row(task, shared)
    row["regret"] = {u: curve.tolist() for u, curve in row["regret"].items()}
    return row


def _task_row(task: dict, shared: dict) -> dict:
    """:func:`simulation_task`'s row with each unit's curve still a float array: the row
    :func:`simulate` builds its result from when it runs in-process without a row file (the
    runner's rows are these curves as JSON lists, which read back to the same floats)."""
    spec = shared["policies"][task["policy"]]
    res = _run_checked(
        get_policy(spec["name"]),
        spec["params"],
        spec["label"],
        shared["mu"],
        shared["horizon"],
        shared["checkpoints"],
        shared["regrets"],
        shared["seed"],
        task["run"],
        shared["crn"],
        shared["shuffle"],
        shared["fast"],
    )
    return {
        "index": task["index"],
        "policy": spec["label"],
        "run": task["run"],
        "regret": dict(zip(shared["units"], res["regret"])),
        "stats": res["stats"],
        "seconds": res["seconds"],
        "cpu_seconds": res["cpu_seconds"],
        "kernel": res["kernel"],
    }


def check_simulation_row(task: dict, row: dict, shared: dict) -> str | None:
    """Why a resumed row is not one :func:`simulation_task` writes for ``task``, or None: its
    policy and run, one list of a finite number per checkpoint for every regret unit, counts as
    stats, seconds >= 0 (the runner refuses the file naming the reason)."""
    label = shared["policies"][task["policy"]]["label"]
    if row.get("policy") != label or row.get("run") != task["run"]:
        return f"it is of policy {row.get('policy')!r}, run {row.get('run')!r}, not of {label!r}, run {task['run']}"
    n, reg = len(shared["checkpoints"]), row.get("regret")
    if not isinstance(reg, dict) or sorted(reg) != sorted(shared["units"]):
        return f"its 'regret' is not a list per unit ({', '.join(shared['units'])})"
    real = (int, float)
    for k, u in enumerate(shared["units"]):
        v = reg[u]
        if not (isinstance(v, list) and len(v) == n and all(isinstance(x, real) and math.isfinite(x) for x in v)):
            return f"its regret[{u!r}] is not {n} finite numbers (one per checkpoint)"
        most = shared["horizon"] * float(np.abs(shared["regrets"][k]).max()) * (1 + 1e-9)  # T steps' regret at most
        if any(abs(x) > most for x in v):
            return f"its regret[{u!r}] exceeds what {shared['horizon']} steps can reach ({most:.6g})"
    stats = row.get("stats")
    if not isinstance(stats, dict) or not all(isinstance(x, int) and not isinstance(x, bool) for x in stats.values()):
        return "its 'stats' are not counts"
    for what in ("seconds", "cpu_seconds"):
        x = row.get(what, 0.0)
        if not (isinstance(x, real) and not isinstance(x, bool) and math.isfinite(x) and x >= 0):
            return f"its {what!r} = {x!r} is not a number of seconds"
    if not isinstance(row.get("kernel"), bool):
        return "its 'kernel' is not true or false"
    return None


_COMPILED: set[type] = set()


def _ensure_compiled(cls: type[Policy], params: Mapping[str, Any]) -> None:
    """Compile (or load from numba's cache) a policy's kernels once per process, so timings exclude it."""
    if cls in _COMPILED:
        return
    pol = _new_policy(cls, 2, np.random.SeedSequence(0), params)
    assert isinstance(pol, CompiledPolicy)  # called for compiled classes only
    pol.run_environment(new_env(np.array([[0.5, 0.6], [0.4, 0.5]]), 3, 1, 2, np.array([3]), np.zeros((1, 2, 2)))[1])
    _COMPILED.add(cls)


# ----------------------------------------------------------------------------- results
@dataclass
class PolicyRuns:
    """All runs of one policy: ``regret[unit]`` is ``runs x checkpoints``; ``seconds`` and
    ``cpu_seconds`` the wall and CPU time of its runs (compilation excluded; CPU ``nan`` when a row
    of an earlier file lacks it; a run's CPU is its process's, so on a Dask worker running several
    threads it includes the others'), ``steps`` their duels, ``revision`` the decisions revision
    (:attr:`Policy.revision`) that chose them."""

    name: str
    label: str
    params: dict
    regret: dict[str, np.ndarray]
    stats: dict[str, int]
    seconds: float
    steps: int
    kernel: bool
    cpu_seconds: float = float("nan")
    revision: int = 1

    @property
    def seconds_per_step(self) -> float:
        return self.seconds / self.steps if self.steps else float("nan")


@dataclass(repr=False)
class SimulationResult(RichResult):
    """Regret curves of every policy, with the matrix's lower-bound and ECW constants.

    Attributes
    ----------
    matrix : PreferenceMatrix
    horizon, runs, seed : int
    crn, shuffle : bool
    checkpoints : ndarray of int
    first_run : int
        The first run's number: the rows of :attr:`PolicyRuns.regret` are runs ``first_run,
        ..., first_run + runs - 1`` (0 unless :func:`simulate` was given ``first_run``).
    units : list of str
        Recorded units (keys of :data:`UNIT_NAMES`).
    policies : list of PolicyRuns
    lower_bound, ecw : float or None
        ``min C*`` (000 Theorem 2) and ``min C^E*`` (Theorem 4), 000's unit per ln T.
    bounds : dict
        Also RMED's Condorcet constants (``rmed_lb``, ``rmed1``, RMED unit) where defined, and
        ``errors`` naming any constant that could not be computed.
    """

    matrix: PreferenceMatrix
    horizon: int
    runs: int
    seed: int
    crn: bool
    shuffle: bool
    checkpoints: np.ndarray
    units: list[str]
    policies: list[PolicyRuns]
    lower_bound: float | None = None
    ecw: float | None = None
    bounds: dict = field(default_factory=dict)
    runner_stats: dict = field(default_factory=dict)
    first_run: int = 0

    @property
    def policy_names(self) -> list[str]:
        return [p.label for p in self.policies]

    def __repr__(self) -> str:
        name = f" {self.matrix.name!r}" if self.matrix.name else ""
        return (
            f"<SimulationResult{name} K={self.matrix.K}: {len(self.policies)} policies x {self.runs} runs{self._span()},"
            f" T={self.horizon}, seed {self.seed}>"
        )

    def policy(self, label: str) -> PolicyRuns:
        for p in self.policies:
            if p.label == label or (p.name == label and sum(q.name == label for q in self.policies) == 1):
                return p
        raise KeyError(f"no policy {label!r} in this result; have {self.policy_names}")

    def _unit(self, unit: str) -> str:
        if unit not in self.units:
            raise KeyError(f"unit {unit!r} not recorded; have {self.units}")
        return unit

    def regret(self, label: str, unit: str = "000") -> np.ndarray:
        """Cumulative regret, runs x checkpoints."""
        return self.policy(label).regret[self._unit(unit)]

    def mean(self, label: str, unit: str = "000") -> np.ndarray:
        return self.regret(label, unit).mean(axis=0)

    def stderr(self, label: str, unit: str = "000") -> np.ndarray:
        R = self.regret(label, unit)
        if R.shape[0] < 2:
            return np.full(R.shape[1], np.nan)
        return R.std(axis=0, ddof=1) / math.sqrt(R.shape[0])

    def to_frame(self) -> pd.DataFrame:
        """Tidy ``pandas.DataFrame``: one row per (policy, run, checkpoint, unit)."""
        import pandas as pd

        frames = []
        C = len(self.checkpoints)
        for p in self.policies:
            for u in self.units:
                R = p.regret[u]
                frames.append(
                    pd.DataFrame(
                        {
                            "policy": p.label,
                            "run": np.repeat(self.first_run + np.arange(R.shape[0]), C),
                            "t": np.tile(self.checkpoints, R.shape[0]),
                            "unit": u,
                            "regret": R.ravel(),
                        }
                    )
                )
        return pd.concat(frames, ignore_index=True)

    def table(self, unit: str = "000") -> list[dict]:
        """One dict per policy: regret at T (mean, stderr), per ln T (``per_ln_T``,
        ``stderr_per_ln_T``), work and time (``us_per_step`` from wall time, ``cpu_us_per_step``
        from the runs' CPU time)."""
        rows = []
        lnT = math.log(self.horizon) if self.horizon > 1 else float("nan")
        for p in self.policies:
            m = self.mean(p.label, unit)[-1]
            rows.append(
                {
                    "policy": p.label,
                    "mean": float(m),
                    "stderr": float(self.stderr(p.label, unit)[-1]),
                    "per_ln_T": float(m / lnT),
                    "seconds": p.seconds,
                    "cpu_seconds": p.cpu_seconds,
                    "us_per_step": 1e6 * p.seconds_per_step,
                    "stderr_per_ln_T": float(self.stderr(p.label, unit)[-1] / lnT),
                    "cpu_us_per_step": 1e6 * p.cpu_seconds / p.steps if p.steps else float("nan"),
                    "kernel": p.kernel,
                    **p.stats,
                }
            )
        return rows

    def to_dict(self) -> dict:
        """The JSON document of ``boundcalc simulate --json``."""
        pols = []
        for p in self.policies:
            d = {
                "name": p.label,
                "policy": p.name,
                "params": p.params,
                "revision": p.revision,
                "mean": self.mean(p.label).tolist(),
                "stderr": to_jsonable(self.stderr(p.label)),
                "seconds": p.seconds,
                "cpu_seconds": to_jsonable(p.cpu_seconds),
                "seconds_per_step": p.seconds_per_step,
                "kernel": p.kernel,
                "stats": p.stats,
                "units": {
                    u: {"mean": self.mean(p.label, u).tolist(), "stderr": to_jsonable(self.stderr(p.label, u))}
                    for u in self.units
                },
            }
            pols.append(d)
        return {
            "matrix": self.matrix.name,
            "K": self.matrix.K,
            "horizon": self.horizon,
            "runs": self.runs,
            "first_run": self.first_run,
            "seed": self.seed,
            "crn": self.crn,
            "shuffle": self.shuffle,
            "unit": UNIT_NAMES["000"],
            "units": {u: UNIT_NAMES[u] for u in self.units},
            "checkpoints": self.checkpoints.tolist(),
            "lower_bound": self.lower_bound,
            "ecw": self.ecw,
            "bounds": self.bounds,
            "policies": pols,
        }

    def plot(
        self,
        ax: Axes | str | os.PathLike | None = None,
        unit: str = "000",
        band: str | None = "stderr",
        bounds: bool = True,
        title: str | None = None,
        yscale: str = "auto",
    ) -> Axes:
        """Cumulative regret against ``t`` on a log ``t`` axis, linear regret (000 Figure 1 style).

        ``ax`` is a matplotlib Axes to draw on, or a file path (``"regret.png"``, ``.pdf``,
        ``.svg``) to save the figure to; None draws on a new figure.  Per policy the mean over
        runs, in a colour, line style and marker fixed per policy (:func:`boundcalc.plot.policy_style`:
        curves lying on each other stay visible), and a band:
        ``"stderr"`` (mean +- one standard error, as in the tables; the default), ``"quantile"``
        (10%-90% of runs), ``"std"`` (mean +- one standard deviation) or None; the legend's title
        says which and over how many runs.  With ``bounds`` (000's unit) the lines ``C* ln t``
        (lower bound) and ``C^E* ln t`` (ECW) from ``t = 2``, labelled with their constants.
        ``yscale``: ``"auto"`` (default: linear as in 000, log where the lines at ``T`` span more
        than a factor 20; :func:`boundcalc.plot.draw_regret`), ``"linear"`` or ``"log"``.
        Drawn on an Axes that already holds another result's curves (e.g. CW-RMED's shorter run),
        the legend's title names both run counts.  Returns the Axes.
        """
        from .plot import axes_for

        unit = self._unit(unit)
        if yscale not in ("auto", "log", "linear"):
            raise ValueError(f"yscale must be 'auto', 'log' or 'linear'; got {yscale!r}")
        with axes_for(ax) as drawn:
            self._draw(drawn, unit, band, bounds, title, yscale)
        return drawn

    def _draw(
        self, ax: Axes, unit: str, band: str | None, bounds: bool, title: str | None, yscale: str = "auto"
    ) -> None:
        from .plot import draw_regret

        curves = []
        for p in self.policies:
            R = p.regret[unit]
            m = R.mean(axis=0)
            lo = hi = None
            if band and R.shape[0] > 1:
                if band == "quantile":
                    lo, hi = np.quantile(R, [0.1, 0.9], axis=0)
                elif band == "std":
                    s = R.std(axis=0, ddof=1)
                    lo, hi = m - s, m + s
                elif band == "stderr":
                    s = R.std(axis=0, ddof=1) / math.sqrt(R.shape[0])
                    lo, hi = m - s, m + s
                else:
                    raise ValueError(f"band must be 'quantile', 'std', 'stderr' or None; got {band!r}")
            elif band not in (None, "quantile", "std", "stderr"):
                raise ValueError(f"band must be 'quantile', 'std', 'stderr' or None; got {band!r}")
            curves.append((p.label, m, lo, hi))
        what = {"stderr": "mean +- 1 s.e.", "std": "mean +- 1 s.d.", "quantile": "mean, band 10%-90% of runs"}
        runs = f"{self.runs} runs{self._span()}"
        old = ax.get_legend()
        prior = getattr(ax, "_boundcalc_runs", None)  # another result drawn here before: both counts
        if old is not None and prior and prior[0] != runs:
            runs = f"{prior[0]} ({', '.join(self.policy_names)}: {runs})"
        setattr(ax, "_boundcalc_runs", (runs,))  # noqa: B010 (our mark on matplotlib's Axes, untyped there)
        # the first result's scale stays when a second is drawn on the same Axes
        scale = ax.get_yscale() if old is not None and yscale == "auto" else yscale
        draw_regret(
            ax,
            self.checkpoints,
            curves,
            lower_bound=self.lower_bound if bounds and unit == "000" else None,
            ecw=self.ecw if bounds and unit == "000" else None,
            yscale=scale,
            title=title or f"{self.matrix.name or 'matrix'} (K = {self.matrix.K}), {self.runs} runs{self._span()}",
            legend_title=f"{what.get(band or '', 'mean')} over {runs}",
            ylabel=f"cumulative regret ({UNIT_NAMES[unit]})",
        )

    def _span(self) -> str:
        """`` (runs m-n)`` when the runs are not ``0, ..., runs - 1``."""
        return f" (runs {self.first_run}-{self.first_run + self.runs - 1})" if self.first_run else ""

    def summary(self, unit: str = "000") -> str:
        """A short text: the run, the constants, one line per policy (what the CLI prints)."""
        lnT = math.log(self.horizon)  # 0 at T = 1, where the table's R(T)/ln T is nan
        lines = [
            f"matrix {self.matrix.name or ''}: K = {self.matrix.K}, horizon T = {self.horizon}, "
            f"{self.runs} runs{self._span()}, seed {self.seed}, crn {self.crn}, shuffle {self.shuffle}",
            f"regret in {UNIT_NAMES[unit]} units; ln T = {lnT:.4g}",
        ]
        if unit == "000":
            lb = "n/a" if self.lower_bound is None else f"{self.lower_bound:.4g}"
            ec = "n/a" if self.ecw is None else f"{self.ecw:.4g}"
            lines.append(f"lower bound C* = {lb} per ln T; ECW C^E* = {ec} per ln T")
        # per ln T as the docs and the papers quote it; the time per step from CPU time (a busy
        # machine's wall time is mostly other work's)
        head = ["policy", "R(T) mean", "s.e.", "R(T)/ln T", "s.e./ln T", "wall s", "CPU s", "CPU us/step", "path"]

        def f(x: float, spec: str) -> str:  # undefined (one run's s.e., per ln T at T = 1): "-"
            return format(x, spec) if math.isfinite(x) else "-"

        rows = [
            [
                s["policy"],
                f(s["mean"], ".4g"),
                f(s["stderr"], ".2g"),
                f(s["per_ln_T"], ".4g"),
                f(s["stderr_per_ln_T"], ".2g"),
                f(s["seconds"], ".3g"),
                f(s["cpu_seconds"], ".3g"),
                f(s["cpu_us_per_step"], ".3g"),
                "compiled" if s["kernel"] else "protocol",
            ]
            for s in self.table(unit)
        ]
        lines.append(format_table(head, rows))
        return "\n".join(lines)


def _ok_value(res: Result) -> float:
    """An ok result's value; a failed or not-applicable one raises, naming its status."""
    if res.value is None:
        raise ValueError(f"{res.key} is {res.status}: {res.message or res.reason}")
    return float(res.value)


def _bounds_of(pm: PreferenceMatrix) -> tuple[float | None, float | None, dict]:
    from .bounds.exact import ecw_bound, lower_bound

    extra: dict[str, Any] = {}
    errors = {}
    lb = ec = None
    try:
        lb = float(lower_bound(pm).value)
    except Exception as exc:  # reported, not swallowed: the CLI prints bounds["errors"]
        errors["lower_bound"] = f"{type(exc).__name__}: {exc}"
    try:
        ec = _ok_value(ecw_bound(pm))
    except Exception as exc:
        errors["ecw"] = f"{type(exc).__name__}: {exc}"
    if pm.condorcet_winner is not None:
        from .bounds.rmed import rmed1, rmed_lb

        for key, fn in (("rmed_lb", rmed_lb), ("rmed1", rmed1)):
            try:
                extra[key] = _ok_value(fn(pm))
            except Exception as exc:
                errors[key] = f"{type(exc).__name__}: {exc}"
        extra["rmed_unit"] = UNIT_RMED
    if errors:
        extra["errors"] = errors
    return lb, ec, extra


def _policy_specs(
    policies: str | Sequence[str], params: Mapping[str, Mapping[str, Any]] | None, horizon: int | None = None
) -> list[dict]:
    """Validated parameters per policy.  A policy with a ``horizon`` hyperparameter (a
    finite-horizon algorithm such as SAVAGE, whose confidence radius uses T) gets the
    simulation's horizon unless the caller set it."""
    if isinstance(policies, str):
        names = resolve_policy_list(policies)
    else:
        names = resolve_policy_list(list(policies))
    params = dict(params or {})
    unknown = set(params) - set(names)
    if unknown:
        raise ValueError(f"parameters given for policies not simulated: {sorted(unknown)}")
    specs = []
    for n in names:
        cls = get_policy(n)
        given = dict(params.get(n, {}))
        if horizon is not None and "horizon" in cls.hyperparameters and "horizon" not in given:
            given["horizon"] = int(horizon)
        p = cls.validate_params(given)
        specs.append({"name": n, "params": p, "label": _policy_label(n, p), "revision": cls.revision})
    return specs


def _regrets_of(pm: PreferenceMatrix) -> tuple[list[str], np.ndarray]:
    """The recorded units and their regret matrices stacked (units x K x K) for :func:`simulate`,
    computed once per matrix (:func:`_regret_stack`)."""
    units, stack = _regret_stack(pm)
    return list(units), stack


@functools.lru_cache(maxsize=16)
def _regret_stack(pm: PreferenceMatrix) -> tuple[tuple[str, ...], np.ndarray]:
    """:func:`regret_matrices` of ``pm`` as ``(units, stack)``, kept for the matrix's next
    simulation (a matrix's regrets are a function of ``mu``, which a :class:`PreferenceMatrix`
    never changes, and which its equality and hash compare).  The stack stays writable (a
    read-only array is another numba type, and every kernel would compile again for it); no
    kernel writes it."""
    reg = regret_matrices(pm)
    return tuple(reg), np.stack(list(reg.values()))


def _in_process_without_bar(workers: Any, scheduler: Any, chunk_size: Any, progress: bool | None) -> bool:
    """Whether a simulation without a row file runs in this process with no progress bar: then it
    needs nothing of the runner's but the loop over its tasks (:func:`_rows_in_process`).  The run
    options are checked here as :func:`~boundcalc.runner.job.run_job` checks them."""
    if chunk_size is not None:
        check_count(chunk_size, "chunk_size", low=1)
    if resolve_workers(workers, scheduler) != 0 or scheduler is not None:
        return False
    if progress is None:
        progress = bool(getattr(sys.stderr, "isatty", lambda: False)())
    return not progress


def _rows_in_process(tasks: list[dict], shared: dict) -> Rows:
    """The rows of ``tasks`` computed here, in order (the runner's rows of an in-process run without
    a row file, each curve a float array rather than a list of the same floats), with the runner's
    figures of such a run."""
    t0 = time.perf_counter()
    rows = [_task_row(t, shared) for t in tasks]
    stats = {
        "tasks": len(tasks),
        "resumed": 0,
        "computed": len(rows),
        "errors": 0,
        "backend": "in-process",
        "workers": 0,
        "chunk_size": 1,
        "seconds_cluster": 0.0,
        "seconds_run": time.perf_counter() - t0,
    }
    return Rows(rows, stats)


def _simulation_job(pm: PreferenceMatrix, shared: dict, per_decade: int, tasks: Callable[[], list[dict]]) -> Job:
    """The runner's job of a simulation: :func:`simulation_task` over ``tasks``, and the row file's
    header and identity (module text, Execution)."""
    specs = shared["policies"]
    header = {
        "kind": "simulate",
        "matrix": pm.mu.tolist(),
        "horizon": shared["horizon"],
        "seed": shared["seed"],
        "crn": shared["crn"],
        "shuffle": shared["shuffle"],
        "per_decade": per_decade,
        "policies": [{"label": s["label"], "params": s["params"], "revision": s["revision"]} for s in specs],
        "fast": shared["fast"],
        "layout": LAYOUT,
    }
    # with one policy both layouts index run r at r: a file of the earlier layout resumes as it is
    identity = {f: (revision if f == "policies" else same) for f in header if not (f == "layout" and len(specs) == 1)}
    return Job(
        "simulate",
        simulation_task,
        shared=shared,
        header=header,
        identity=identity,
        tasks=tasks,
        check_row=check_simulation_row,
    )


def simulate(
    matrix: MatrixLike,
    policies: str | Sequence[str] = ("ecw-rmed", "rmed1"),
    *,
    horizon: int,
    runs: int = 10,
    seed: int = 0,
    params: Mapping[str, Mapping[str, Any]] | None = None,
    crn: bool = True,
    shuffle: bool = False,
    per_decade: int = 10,
    fast: bool = True,
    out: str | os.PathLike | None = None,
    overwrite: bool = False,
    workers: int | None = 0,
    scheduler: str | None = None,
    chunk_size: int | None = None,
    progress: bool | None = None,
    bounds: bool = True,
    first_run: int = 0,
) -> SimulationResult:
    """Run every policy ``runs`` times for ``horizon`` rounds on ``matrix``.

    Parameters
    ----------
    matrix : PreferenceMatrix or array_like
    policies : str or sequence of str
        Registered names (``"a,b"`` or a list; ``"all"`` = every registered policy).
    horizon, runs, seed : int
    params : dict, optional
        ``{policy name: {hyperparameter: value}}``.
    crn : bool
        Common random numbers across policies (module text).
    shuffle : bool
        Relabel the arms by a random permutation per run (shared by the run's policies).
    per_decade : int
        Checkpoints per decade of ``t`` (plus ``T``).
    fast : bool
        Use compiled kernels where a policy has one (False: the protocol, step by step).
    out, overwrite, workers, scheduler, chunk_size, progress
        The run options shared with :func:`boundcalc.batch.run_batch` and
        :func:`boundcalc.explore.explore` (:func:`boundcalc.runner.job.run_job`): a resumable JSON
        Lines row file (one row per policy and run), in-process by default (``workers=n``: a
        local Dask cluster), a progress bar when stderr is a terminal.
    bounds : bool
        Compute the lower bound and ECW constants of the matrix (000 Theorems 2 and 4).
    first_run : int
        Run runs ``first_run, ..., first_run + runs - 1`` (module text, Execution): each has the
        numbers it has in any job that holds it, and a row file takes them beside its others.
    """
    pm = as_preference_matrix(matrix)
    T = check_count(horizon, "horizon", low=1, high=MAX_HORIZON)
    seed = check_seed(seed)
    specs = _policy_specs(policies, params, T)
    R = check_count(runs, "runs", low=1, high=MAX_TASKS // len(specs))
    R0 = check_count(first_run, "first_run", low=0, high=MAX_TASKS // len(specs) - R)
    per_decade = check_count(per_decade, "per_decade", low=1, high=1000)
    cps = checkpoints(T, per_decade)
    units, regrets = _regrets_of(pm)
    shared = {
        "mu": pm.mu,
        "horizon": T,
        "checkpoints": cps,
        "units": units,
        "regrets": regrets,
        "seed": int(seed),
        "crn": bool(crn),
        "shuffle": bool(shuffle),
        "fast": bool(fast),
        "policies": specs,
    }
    P = len(specs)

    def tasks() -> list[dict]:
        return [{"index": r * P + p, "policy": p, "run": r} for r in range(R0, R0 + R) for p in range(P)]

    if out is None and _in_process_without_bar(workers, scheduler, chunk_size, progress):
        rows = _rows_in_process(tasks(), shared)
    else:
        job = _simulation_job(pm, shared, per_decade, tasks)
        # a refused file (other settings, other decisions revisions, an earlier layout) is named by
        # the store's one message (boundcalc.runner.store.refusal)
        rows = run_job(
            job,
            out=out,
            overwrite=overwrite,
            workers=workers,
            scheduler=scheduler,
            chunk_size=chunk_size,
            progress=progress,
        )
    errors = [r for r in rows if "error" in r]
    if errors:
        raise RuntimeError(f"{len(errors)} simulation task(s) failed; first: {errors[0]['error']}")
    done = []
    for p, s in enumerate(specs):
        mine = [r for r in rows if r["index"] % P == p]
        mine.sort(key=lambda r: r["run"])
        reg_arr = {u: np.array([r["regret"][u] for r in mine], dtype=float) for u in units}
        stats: dict[str, int] = {}
        for r in mine:
            for k, v in r["stats"].items():
                stats[k] = stats.get(k, 0) + int(v)
        done.append(
            PolicyRuns(
                name=s["name"],
                label=s["label"],
                params=s["params"],
                regret=reg_arr,
                stats=stats,
                seconds=float(sum(r["seconds"] for r in mine)),
                cpu_seconds=float(sum(r.get("cpu_seconds", math.nan) for r in mine)),
                revision=s["revision"],
                steps=T * len(mine),
                kernel=all(r["kernel"] for r in mine),
            )
        )
    lb = ec = None
    extra: dict = {}
    if bounds:
        lb, ec, extra = _bounds_of(pm)
    return SimulationResult(
        matrix=pm,
        horizon=T,
        runs=R,
        seed=int(seed),
        crn=bool(crn),
        shuffle=bool(shuffle),
        checkpoints=cps,
        units=units,
        policies=done,
        lower_bound=lb,
        ecw=ec,
        bounds=extra,
        runner_stats=dict(getattr(rows, "stats", {})),
        first_run=R0,
    )
