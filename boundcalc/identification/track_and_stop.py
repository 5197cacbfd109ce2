"""Track-and-Stop for the Copeland or Condorcet winner (Garivier & Kaufmann, COLT 2016), with a
stopping threshold that is delta-correct by a test-martingale argument.

Sampling
    D-tracking (Garivier & Kaufmann 2016, Sec. 3.1): forced exploration of the least drawn pair
    while some pair has fewer than ``sqrt(t) - P/2`` duels (``P = K (K - 1) / 2``), otherwise the
    pair maximising ``t w*_p(mu_hat) - N_p``.  ``w*(mu_hat)`` is :func:`~boundcalc.identification.
    identification_bound`'s allocation on the empirical matrix (Copeland model: the LP core's
    :meth:`~boundcalc.lp.cutting.CopelandLPSolver.solve_empirical` with a unit cost per draw, its
    models kept warm per structure; Condorcet model: the closed form), recomputed only when the
    empirical Copeland structure changes or ``t`` passes the next time of a geometric grid
    (``t_{k+1} = ceil(1.2 t_k)``): lazy tracking, which keeps the asymptotic optimality argument
    (the target converges; Jedra & Proutiere 2020 analyse such lazy updates).  With several
    empirical Copeland winners the tracked answer is the one of smallest ``T*_i(mu_hat)``, ties to
    the answer tracked before (a sticky choice, as Degenne & Koolen 2019's Sticky Track-and-Stop).

Stopping (``docs/identification.md`` gives the proof)
    Let ``a_p = ln(P_KT(x_p) / P_{1/2}(x_p))`` be pair ``p``'s Krichevsky-Trofimov mixture log
    likelihood ratio against a fair coin (:func:`boundcalc.kernels.identification.kt_log_ratio`;
    ``a_p >= N_p d(mu_hat_p, 1/2) - ln(N_p) / 2 - ln 2``).  The algorithm stops at the first ``t``
    with no tied pair at which

        min over the rows F of the alternative of the answer i of  sum_{p in F} (a_p - ln P)  >=  beta(delta),
        beta(delta) = ln(1/delta) - P ln(1 - 1/P),

    the rows being those of 000's family ``R_i`` (eq. (2)) on the empirical structure (Copeland
    model) or "every loss of an arm k != i" (Condorcet model).  This is the GLR statistic
    ``inf_{lambda in Alt} sum_p N_p d(mu_hat_p, lambda_p)`` (whose infimum is the smallest row of
    ``N_p d(mu_hat_p, 1/2)``) with each pair's ``N_p d`` replaced by its mixture version, computed
    by the same sorting oracle (:func:`boundcalc.kernels.lp.copeland_sums`).

    delta-correctness: ``W(t) = prod_p ((1 - rho) + rho M_p(t))``, ``M_p = P_KT(x_p) / P_{mu_p}(x_p)``,
    ``rho = 1/P``, is a nonnegative martingale of mean 1 under any adaptive sampling (a mixture over
    subsets of products of per-pair likelihood-ratio martingales), so ``P(exists t: W(t) >= 1/delta)
    <= delta`` (Ville's inequality).  If the answer is wrong, the true ``mu`` lies in its
    alternative, so some row ``F`` has every ``mu_p`` (p in F) on the other side of 1/2 from
    ``mu_hat_p``, where ``P_{mu_p}(x_p) <= P_{1/2}(x_p)``; then ``ln W >= sum_{p in F} (a_p - ln P)
    + (P - |F|) ln(1 - 1/P) >= ln(1/delta)`` at the stopping time.  Hence ``P(wrong answer) <=
    delta``, whatever the sampling rule -- the union-bound-free form of the mixture thresholds of
    Kaufmann & Koolen (JMLR 2021, "Mixture martingales revisited", Sec. 4), with the prior ``rho``
    over which pairs deviate.

Answer
    The tracked empirical Copeland winner (Condorcet model: the empirical Condorcet winner).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from ..lp.constraints import CopelandFamily
from ..lp.cutting import CopelandLPSolver
from ..lp.structure import Structure, empirical_mu, empirical_structure
from ..matrix import MatrixLike, as_preference_matrix
from .bound import MODELS, check_delta

__all__ = ["track_and_stop", "TrackAndStopRun", "stopping_threshold", "GRID_GROWTH"]

#: Growth of the geometric grid of re-solve times (a re-solve also follows every structure change).
GRID_GROWTH = 1.2


def stopping_threshold(delta: float, n_pairs: int) -> float:
    """``beta(delta) = ln(1/delta) - P ln(1 - 1/P)`` (module text); ``P = 1``: ``ln(1/delta)``.

    >>> round(stopping_threshold(0.05, 10), 4)
    4.0494
    """
    delta = check_delta(delta)
    P = int(n_pairs)
    extra = 0.0 if P <= 1 else -P * math.log1p(-1.0 / P)
    return -math.log(delta) + extra


@dataclass
class TrackAndStopRun:
    """One run: the answer (None when the budget ran out), duels, how it stopped, LP work."""

    answer: int | None
    n_duels: int
    stopped: str
    re_solves: int = 0
    structure_changes: int = 0
    counts: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.int64))


class _Target:
    """``w*(mu_hat)`` and the tracked answer of one run, recomputed on demand (module text)."""

    def __init__(self, model: str, K: int) -> None:
        self.model = model
        self.K = K
        self.iu = np.triu_indices(K, 1)
        self.P = self.iu[0].size
        self.solver = CopelandLPSolver(cache_size=16, perturb=1e-6) if model == "copeland" else None
        self.unit = np.ones((K, K)) - np.eye(K)
        self.answer: int | None = None
        self.solves = 0

    def update(self, st: Structure) -> np.ndarray:
        """The allocation over pairs (sums to 1) and, in :attr:`answer`, the tracked answer."""
        uniform = np.full(self.P, 1.0 / self.P)
        if self.model == "condorcet":
            # the presumed winner: the arm of fewest losses (the empirical Condorcet winner when any)
            a = int(np.argmin(st.L))
            d = st.d
            assert d is not None
            q = np.zeros((self.K, self.K))
            for k in range(self.K):
                if k == a:
                    continue
                losses = np.flatnonzero(st.beats[:, k])
                if losses.size == 0:  # k unbeaten too: its duel with a decides
                    q[k, a] = q[a, k] = 1.0 / max(d[k, a], 1e-12)
                    continue
                j = int(losses[np.argmax(d[losses, k])])
                q[k, j] = q[j, k] = 1.0 / d[j, k]
            self.answer = a
            w = q[self.iu]
            return w / w.sum()
        assert self.solver is not None
        res = self.solver.solve_empirical(st, regret=self.unit)
        self.solves += 1
        if res.status != "ok" or not res.per_winner:
            self.answer = None
            return uniform
        best = min(res.per_winner.values())
        tied = [w for w, v in res.per_winner.items() if v <= best * (1 + 1e-12)]
        self.answer = self.answer if self.answer in tied else min(tied)
        q = np.asarray(res.allocations[self.answer])[self.iu]
        total = q.sum()
        return q / total if total > 0 else uniform


def _target_structure(wins: np.ndarray) -> Structure:
    """The structure the target is computed on: ``mu_hat``, with a tied pair ``i < j`` (undrawn, or
    as many wins as losses) read as ``1/2 + 1/(2 (N_ij + 2))`` for ``i``.  A tied pair lies in no row
    of an empirical family, so an LP on ``mu_hat`` itself would never ask for it and the tie would
    last (no stopping while a pair is tied); read as a near tie it is asked for in proportion to
    ``1/d``, which is what resolving it takes."""
    mu = empirical_mu(wins)
    N = wins + wins.T
    K = mu.shape[0]
    iu = np.triu_indices(K, 1)
    tied = mu[iu] == 0.5
    if tied.any():
        i, j = iu[0][tied], iu[1][tied]
        v = 0.5 + 0.5 / (N[i, j] + 2.0)
        mu[i, j] = v
        mu[j, i] = 1.0 - v
    return empirical_structure(mu, check=False)


def _tables(st: Structure, answer: int, cache: dict) -> tuple:
    """The oracle's tables of 000's ``R_answer`` on ``st`` (compiled layout), kept per structure."""
    key = (st.key, answer)
    args = cache.get(key)
    if args is None:
        fam = CopelandFamily(st, answer, compiled=True)
        a, Ia, pool, mI, mS, ok, caseB, in_Ia = fam.oracle_args()
        args = (
            np.ascontiguousarray(Ia, dtype=np.int64),
            np.ascontiguousarray(pool),
            np.ascontiguousarray(mI),
            np.ascontiguousarray(mS),
            np.ascontiguousarray(ok),
            np.ascontiguousarray(caseB),
            np.ascontiguousarray(in_Ia),
            np.empty(ok.shape),
        )
        if len(cache) > 64:
            cache.clear()
        cache[key] = args
    return args


_EMPTY_TABLES = (
    np.zeros(0, dtype=np.int64),
    np.zeros((1, 1), dtype=np.bool_),
    np.zeros((1, 1), dtype=np.int64),
    np.zeros((1, 1), dtype=np.int64),
    np.zeros((1, 1), dtype=np.bool_),
    np.zeros(1, dtype=np.bool_),
    np.zeros(1, dtype=np.bool_),
    np.empty((1, 1)),
)


def track_and_stop(
    matrix: MatrixLike,
    *,
    model: str = "copeland",
    delta: float = 0.05,
    keys: tuple[int, int] = (0, 1),
    max_duels: int = 10**8,
) -> TrackAndStopRun:
    """One run of Track-and-Stop on Bernoulli duels from ``matrix`` (module text).

    ``keys`` are the two 64-bit words of the duels' randomness (:func:`boundcalc.kernels.policy.
    duel_uniform`; the runner's :func:`~boundcalc.runner.derive_seed` ``form="words"``).  A run that
    reaches ``max_duels`` stops with ``answer = None`` and ``stopped = "budget"``.
    """
    from ..kernels.identification import track_steps

    if model not in MODELS:
        raise ValueError(f"model must be one of {MODELS}; got {model!r}")
    delta = check_delta(delta)
    pm = as_preference_matrix(matrix)
    if model == "condorcet" and pm.condorcet_winner is None:
        raise ValueError("model='condorcet' needs a matrix with a Condorcet winner; this one has none")
    K = pm.K
    iu = np.triu_indices(K, 1)
    pi, pj = iu[0].astype(np.int64), iu[1].astype(np.int64)
    P = pi.size
    mu = np.ascontiguousarray(pm.mu, dtype=float)
    wins = np.zeros((K, K), dtype=np.int64)
    n_pair = np.zeros(P, dtype=np.int64)
    cum = np.zeros(P)
    answer_out = np.zeros(1, dtype=np.int64)
    log_prior = -math.log(P) if P > 1 else 0.0
    E = np.full((K, K), log_prior)
    np.fill_diagonal(E, 0.0)
    beta = stopping_threshold(delta, P)
    target = _Target(model, K)
    tables: dict = {}
    k0, k1 = np.uint64(keys[0]), np.uint64(keys[1])
    t = 0
    next_solve = 0
    w = np.full(P, 1.0 / P)
    changes = 0
    st: Structure | None = None
    stale = True
    code = 0
    while True:
        if stale:
            st = empirical_structure(empirical_mu(wins), check=False)
        assert st is not None
        if stale or t >= next_solve:
            w = target.update(_target_structure(wins) if st.ties else st)
            next_solve = max(t + 1, math.ceil(GRID_GROWTH * t))
        stale = False
        ans = target.answer
        # Condorcet model: always (its rows are strict losses, its answer found by the kernel);
        # Copeland model: an answer and no tied pair (a tied pair's side is open: conservative)
        can_stop = model == "condorcet" or (ans is not None and st.ties == 0)
        if can_stop and model == "copeland":
            assert ans is not None
            tab = _tables(st, ans, tables)
        else:
            tab = _EMPTY_TABLES
        args = (
            mu, wins, n_pair, cum, pi, pj, np.ascontiguousarray(w), E, k0, k1, t, next_solve, max_duels,
            0 if model == "copeland" else 1, -1 if ans is None else ans, can_stop, *tab, log_prior, beta, answer_out,
        )  # fmt: skip
        t, code = track_steps(*args)
        if code == 1:
            final = ans if model == "copeland" else int(answer_out[0])
            return TrackAndStopRun(final, t, "identified", target.solves, changes, wins)
        if code == 3:
            return TrackAndStopRun(None, t, "budget", target.solves, changes, wins)
        if code == 2:
            stale = True
            changes += 1


def _clock() -> float:  # pragma: no cover - kept for callers that time runs
    return time.perf_counter()
