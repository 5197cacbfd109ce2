"""Track-and-Stop for the Copeland or Condorcet winner (Garivier & Kaufmann, COLT 2016), with a
stopping threshold that is delta-correct by a test-martingale argument.

Sampling
    C-tracking (Garivier & Kaufmann 2016, Sec. 3.1; :func:`boundcalc.kernels.identification.track_steps`):
    the cumulative sum of the targets, each mixed with the uniform allocation at weight
    ``eps_t = 1 / (2 sqrt(P^2 + t))`` (forced exploration; ``P = K (K - 1) / 2``), is tracked by
    drawing the pair of largest deficit.  The target is ``w*(mu_hat)`` of
    :func:`~boundcalc.identification.identification_bound`'s model -- Copeland model: the LP core's
    :meth:`~boundcalc.lp.online.CopelandLPSolver.solve_empirical` with a unit cost per duel, its
    models kept warm per structure and perturbed (``perturb=1e-6``) so that a degenerate optimum does
    not jump between vertices; Condorcet model: the closed form.  It is recomputed only when ``t``
    passes the next time of a geometric grid (``t_{k+1} = ceil(1.2 t_k)``) or the empirical
    Copeland structure changes -- to a structure not solved within the current grid step
    (``_Target.update``: near a tie the structure flips back and forth).  With several Copeland winners the tracked answer is the one of
    smallest ``T*_i``, ties to the answer tracked before (sticky, as Degenne & Koolen 2019's
    Sticky Track-and-Stop).

Stopping (``docs/identification.md``, "delta-correctness", gives the proof)
    Let ``a_p = ln(P_KT(x_p) / P_{1/2}(x_p))`` be pair ``p``'s Krichevsky-Trofimov mixture log
    likelihood ratio against a fair coin (:func:`boundcalc.kernels.identification.kt_log_ratio`),
    ``n`` the number of pairs of the test martingale (``P`` in the Copeland model, ``K - 1`` in the
    Condorcet model; at least 2), ``rho = 1/n`` and ``E_p = ln(1 + e^(a_p) / (n - 1))``
    (:func:`~boundcalc.kernels.identification.pair_evidence`, never negative).  The algorithm stops
    at the first ``t`` at which

        min over the rows F of the alternative of the answer i of  sum_{p in F} E_p  >=  beta(delta),
        beta(delta) = ln(1/delta) - n ln(1 - 1/n)                       (:func:`stopping_threshold`),

    the rows being those of 000's family ``R_i`` (eq. (2)) on the empirical structure (Copeland
    model; no tied pair allowed) or "every strict loss of an arm k != i" (Condorcet model).  This is
    the GLR statistic ``inf_{lambda in Alt} sum_p N_p d(mu_hat_p, lambda_p)`` (the smallest row of
    ``N_p d(mu_hat_p, 1/2)``) with each pair's ``N_p d`` replaced by its mixture version, computed by
    the same sorting oracle (:func:`boundcalc.kernels.lp.copeland_sums`).

    delta-correctness (Ville's inequality for a mixture of likelihood-ratio martingales, the device
    of Kaufmann & Koolen, "Mixture martingales revisited", JMLR 2021, Sec. 4, here with a prior
    ``rho`` over which pairs deviate instead of a union bound over them).  ``M_p = P_KT(x_p) /
    P_{mu_p}(x_p)`` is a mean-1 martingale under any adaptive sampling, and so is ``W = prod_{p in
    G} ((1 - rho) + rho M_p)`` for a fixed set ``G`` of ``n`` pairs: Copeland model, all pairs;
    Condorcet model, the ``K - 1`` pairs of the true Condorcet winner ``c`` (fixed by ``mu``, unknown
    to the algorithm: no union over it is needed).  A wrong answer puts ``mu`` in its alternative.
    Copeland: the pairs ``D`` where ``mu_hat`` and ``mu`` disagree in sign form a flip set of
    ``Alt(i)``, and with ``E >= 0`` the smallest row of ``R_i`` is at most any such set's sum, so
    ``sum_{p in D} E_p >= beta``; Condorcet: ``c``'s row is checked and lies in ``D``.  On a pair of
    ``D``, ``P_{mu_p}(x_p) <= P_{1/2}(x_p)`` (``mu_p`` and ``mu_hat_p`` on opposite sides of 1/2),
    so ``(1 - rho) + rho M_p >= (1 - rho) e^(E_p)``, and every other factor is at least ``1 - rho``:
    ``ln W >= n ln(1 - rho) + sum_{p in D, p in G} E_p >= ln(1/delta)`` at the stopping time.  Hence
    ``P(wrong answer) <= P(exists t: W(t) >= 1/delta) <= delta`` whatever the sampling rule.

Answer
    The tracked empirical Copeland winner (Condorcet model: the arm of smallest own row, the
    empirical Condorcet winner when there is one).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..lp.constraints import CopelandFamily
from ..lp.online import CopelandLPSolver
from ..lp.structure import Structure, empirical_mu, empirical_structure
from ..matrix import MatrixLike, as_preference_matrix
from .bound import MODELS, check_delta

__all__ = ["track_and_stop", "TrackAndStopRun", "stopping_threshold", "martingale_pairs", "GRID_GROWTH"]

#: Growth of the geometric grid of re-solve times (a re-solve also follows every structure change).
GRID_GROWTH = 1.2


def martingale_pairs(model: str, K: int) -> int:
    """``n``: the pairs of the stopping rule's test martingale (module text), at least 2 so that
    ``rho = 1/n < 1``: ``K (K - 1) / 2`` (Copeland model) or ``K - 1`` (Condorcet model)."""
    n = K * (K - 1) // 2 if model == "copeland" else K - 1
    return max(n, 2)


def stopping_threshold(delta: float, n_pairs: int) -> float:
    """``beta(delta) = ln(1/delta) - n ln(1 - 1/n)`` for a test martingale over ``n >= 2`` pairs
    with ``rho = 1/n`` (module text).

    >>> round(stopping_threshold(0.05, 10), 4)
    4.0493
    """
    delta = check_delta(delta)
    n = int(n_pairs)
    if n < 2:
        raise ValueError(f"the test martingale needs at least 2 pairs; got {n_pairs!r}")
    return -math.log(delta) - n * math.log1p(-1.0 / n)


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
        self.recent: dict = {}  # structure key -> (allocation, answer, t of its solve)

    def update(self, st: Structure, t: int, fresh: bool) -> np.ndarray:
        """The allocation over pairs (sums to 1) and, in :attr:`answer`, the tracked answer.

        Copeland model, ``fresh`` false (a structure change between two grid times): a structure
        solved at a time ``s`` with ``GRID_GROWTH s >= t`` (within the current grid step) keeps
        that solve's allocation and answer instead of a new LP solve -- near a tie the structure
        flips back and forth, and its allocation is as recent as the grid asks."""
        if self.model == "copeland" and not fresh:
            hit = self.recent.get(st.key)
            if hit is not None and GRID_GROWTH * hit[2] >= t:
                self.answer = hit[1]
                return hit[0]
        w = self._solve(st)
        if self.model == "copeland":
            if len(self.recent) > 64:
                self.recent.clear()
            self.recent[st.key] = (w, self.answer, t)
        return w

    def _solve(self, st: Structure) -> np.ndarray:
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

    ``keys`` are the two 64-bit words of the duels' randomness
    (:func:`boundcalc.kernels.policy.duel_uniform`; the runner's :func:`~boundcalc.runner.derive_seed` ``form="words"``).  A run that
    reaches ``max_duels`` stops with ``answer = None`` and ``stopped = "budget"``.
    """
    from ..kernels import compile_notice

    compile_notice(["lp", "identification"], "Track-and-Stop")
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
    n_mart = martingale_pairs(model, K)
    log_odds = -math.log(n_mart - 1)  # ln(rho / (1 - rho)), rho = 1 / n_mart
    E = np.full((K, K), math.log1p(1.0 / (n_mart - 1)))  # pair_evidence of no duels
    np.fill_diagonal(E, 0.0)
    beta = stopping_threshold(delta, n_mart)
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
        resolve = stale or t >= next_solve
        if resolve:  # the signs and the gaps of mu_hat now
            st = empirical_structure(empirical_mu(wins), check=False)
        assert st is not None
        if resolve:
            w = target.update(st, t, fresh=t >= next_solve)
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
            0 if model == "copeland" else 1, -1 if ans is None else ans, can_stop, *tab, log_odds, beta, answer_out,
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
