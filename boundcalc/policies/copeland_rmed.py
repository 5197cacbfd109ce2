"""Paper 000's Algorithm 1 (CW-RMED / ECW-RMED, Komiyama, Honda & Nakagawa, ICML 2016, Sec. 4).

:class:`CopelandRMED` is the algorithm's skeleton, shared by both variants: the candidate lists
``L_C`` (this pass), ``L_R`` (still to be drawn in this pass), ``L_N`` (next pass), the forced
exploration of line 4, check (3) and the target allocation of line 11.  A variant supplies the
two places where CW and ECW differ (:meth:`CopelandRMED.check_winner` and
:meth:`CopelandRMED.target`); :class:`ECWRMED` does so with Theorem 5's closed form
(:mod:`boundcalc.lp.ecw`).  CW-RMED is the same skeleton with the exact LP of eq. (2)
(:class:`boundcalc.lp.CopelandLPSolver`).

Readings of the text taken here (THEORY.md section 4; issue 7, point 2)
    * Line 4, forced exploration: at the start of every pass (each iteration of the ``while``
      loop) the pairs ``(i, j)``, ``i > j``, with ``N_ij < alpha sqrt(log t)`` or
      ``|mu_hat_ij - 1/2| < beta / log log t`` are listed once, with ``t`` the round about to be
      played, and each is drawn once, in lexicographic order, before the pass's loop over
      ``L_C``; ``t`` advances with each draw.  ``log log t <= 0`` (``t <= 2``) disables the
      beta test; ``beta = 0`` disables it always.
    * ``L_C`` is walked in lexicographic order of ``(i, j)``, ``i >= j`` (the "arbitrarily fixed
      order" of line 5); the first pass is ``P_{i != j}``.
    * Check (3) and line 11 use the counts *including* the draw just made and ``t`` = the round
      just played.  In the normalised form of THEORY.md section 2, check (3) asks, for every
      covering row ``P``, ``sum_{p in P} N_p d(mu_hat_p) >= log t``; the box ``q <= 1/d`` does
      not apply to observed counts.  At ``t = 1`` (``log t = 0``) the check holds trivially
      and the first empirical Copeland winner is exploited.
    * The empirical winner ``i*`` of line 11 is the argmin of the per-winner constants; values
      within a relative ``1e-12`` of the minimum count as ties and go to the smaller arm index.
    * Line 11 puts ``(i, j)``, ``i > j``, into ``L_NC`` when ``q*_ij > N_ij / log t``; line 12
      adds ``(i*, i*)``.
    * Line 15 ranges over ``P_all`` (pairs with ``i >= j``, 000 Sec. 2), so the exploitation pair
      ``(i*, i*)`` reaches the next pass; a pair still in ``L_R`` (to be drawn later in this
      pass) is not added, and ``L_N`` holds no duplicates.
    * ``mu_hat = 1/2`` for an undrawn or tied pair; such a pair is in neither ``S`` nor ``I``,
      has ``d = 0`` and lies in no row.  ``d(0) = d(1) = log 2`` exactly.
    * A self-duel ``(i, i)`` carries no information: counts are unchanged, ``t`` advances.

Plugging in a variant
    Subclass :class:`CopelandRMED`, set ``name`` (and register it), and implement

    ``check_winner(state) -> int | None``
        check (3): an empirical Copeland winner ``i1`` (from ``state.structure.winners``) with
        ``{N_ij / log t}`` in the variant's ``R_{i1}(mu_hat)``, or ``None``.  ``state.log_t > 0``.
    ``target(state) -> (i_star, Q)``
        line 11: the argmin winner and one optimal allocation ``Q`` (K x K, symmetric,
        draws per ``log t``; 0 on the diagonal and on tied pairs).

    For CW-RMED with :class:`boundcalc.lp.CopelandLPSolver` (kept on ``self`` between steps):
    ``check_winner`` returns the first ``a`` in ``state.structure.winners`` with
    ``solver.violation(state.structure, state.rates, a, rows=False).amount <= 0`` (or a small
    tolerance), and ``target`` solves ``res = solver.solve_empirical(state.structure)`` and
    returns ``a = argmin_winner(res.per_winner)`` with ``res.allocations[a]`` (the same
    tie rule as ECW-RMED).  ``fast_kernel`` stays None: the simulator then drives the policy
    step by step.

    ``state`` is an :class:`EmpiricalState`.  The skeleton calls ``target`` only when the counts
    changed since its last call (line 11's solution depends on ``mu_hat`` alone; after a
    self-duel only ``log t`` moved, so the cached ``Q`` is reused and compared with the new
    ``N / log t``).  ``stats``: ``checks`` (check (3) evaluations), ``targets`` (times line 11
    is reached), ``solves`` (``target`` calls), ``forced`` (line 4 draws), ``self_duels``.
"""

from __future__ import annotations

import math
from functools import cached_property

import numpy as np

from ..lp import ecw as _ecw
from ..lp.structure import Structure, empirical_structure, pair_regret
from .base import Policy, Real
from .registry import register_policy

__all__ = ["CopelandRMED", "ECWRMED", "EmpiricalState", "forced_exploration_pairs", "ecw_check",
           "ecw_target", "argmin_winner"]

#: Relative tolerance under which two per-winner constants count as tied (line 11).
WINNER_TIE_RTOL = 1e-12


class EmpiricalState:
    """What check (3) and line 11 of 000's Algorithm 1 see after a draw.

    Attributes
    ----------
    t : int
        The round just played (1-based).
    log_t : float
        ``log t`` (natural log).
    wins, draws : ndarray (K, K) of int
        Observed counts (read-only views of the policy's arrays).
    """

    def __init__(self, t: int, wins: np.ndarray, draws: np.ndarray, *, reuse: "EmpiricalState | None" = None):
        self.t = int(t)
        self.log_t = math.log(self.t)
        self.wins = wins
        self.draws = draws
        self.K = int(wins.shape[0])
        if reuse is not None:  # same counts, later t: mu_hat, structure and N d carry over
            for key in ("mu_hat", "structure", "information"):
                if key in reuse.__dict__:
                    self.__dict__[key] = reuse.__dict__[key]

    @cached_property
    def mu_hat(self) -> np.ndarray:
        """``N_{i>j} / N_ij``, 1/2 where undrawn and on the diagonal (000 Sec. 2: ``0/0 = 1/2``)."""
        N = self.draws
        with np.errstate(invalid="ignore", divide="ignore"):
            mu = np.where(N > 0, self.wins / np.where(N > 0, N, 1), 0.5)
        np.fill_diagonal(mu, 0.5)
        return mu

    @cached_property
    def structure(self) -> Structure:
        """The empirical Copeland structure (:func:`boundcalc.lp.structure.empirical_structure`)."""
        return empirical_structure(self.mu_hat)

    @cached_property
    def information(self) -> np.ndarray:
        """``N_ij d(mu_hat_ij)`` (K x K, symmetric; 0 on ties): ``log t`` times the normalised rate."""
        return self.draws * self.structure.d

    @cached_property
    def rates(self) -> np.ndarray:
        """``N_ij / log t`` (the observed ``q`` of check (3)); requires ``t >= 2``."""
        if self.log_t <= 0:
            raise ValueError("rates N / log t are undefined at t = 1")
        return self.draws / self.log_t


def forced_exploration_pairs(wins: np.ndarray, draws: np.ndarray, t: int, alpha: float, beta: float):
    """Line 4 of 000's Algorithm 1: pairs ``(i, j)``, ``i > j``, lexicographic, to draw now.

    ``N_ij < alpha sqrt(log t)`` or ``|mu_hat_ij - 1/2| < beta / log log t`` (the latter only
    when ``log log t > 0``), with ``mu_hat = 1/2`` on undrawn pairs.
    """
    log_t = math.log(t)
    thr = alpha * math.sqrt(log_t)
    loglog = math.log(log_t) if log_t > 0 else -math.inf
    N = np.asarray(draws)
    need = N < thr
    if loglog > 0 and beta > 0:
        with np.errstate(invalid="ignore", divide="ignore"):
            mu = np.where(N > 0, wins / np.where(N > 0, N, 1), 0.5)
        need |= np.abs(mu - 0.5) < beta / loglog
    ii, jj = np.nonzero(np.tril(need, -1))  # row-major: lexicographic (i, j), i > j
    return list(zip(ii.tolist(), jj.tolist()))


def argmin_winner(values: dict[int, float]) -> int:
    """The winner with the smallest constant; near-ties (``WINNER_TIE_RTOL``) go to the smaller index."""
    vmin = min(values.values())
    tol = WINNER_TIE_RTOL * abs(vmin)
    return min(a for a, v in values.items() if v <= vmin + tol)


class CopelandRMED(Policy):
    """The skeleton of 000's Algorithm 1; see the module text for the readings and the hooks.

    Hyperparameters: ``alpha > 0`` (forced exploration ``N_ij < alpha sqrt(log t)``) and
    ``beta >= 0`` (``|mu_hat_ij - 1/2| < beta / log log t``); defaults 3 and 0.01, the values of
    000's experiments.
    """

    hyperparameters = {
        "alpha": Real(3.0, low=0.0, low_open=True, doc="forced exploration N_ij < alpha sqrt(log t)"),
        "beta": Real(0.01, low=0.0, doc="forced exploration |mu_hat - 1/2| < beta / log log t; 0 disables"),
    }
    deterministic = True

    def __init__(self, K: int, *, rng=None, **params):
        super().__init__(K, rng=rng, **params)
        first = [(i, j) for i in range(1, self.K) for j in range(i)]
        self._LC: list[tuple[int, int]] = first
        self._LR: set[tuple[int, int]] = set(first)
        self._LN: set[tuple[int, int]] = set()
        self._pos = 0
        self._forced: list[tuple[int, int]] = []
        self._fpos = 0
        self._pass_start = True
        self._in_loop = False
        self._version = 0  # bumped by every informative duel
        self._target_cache: tuple[int, int, np.ndarray] | None = None
        self._state: EmpiricalState | None = None  # the last state, reused while counts are unchanged
        self._state_version = -1
        self.stats = {"forced": 0, "checks": 0, "targets": 0, "solves": 0, "self_duels": 0}

    # -- the hooks a variant implements --------------------------------------------------
    def check_winner(self, state: EmpiricalState) -> int | None:  # pragma: no cover - interface
        """Check (3): an empirical Copeland winner whose feasible set contains ``N / log t``, or None."""
        raise NotImplementedError

    def target(self, state: EmpiricalState) -> tuple[int, np.ndarray]:  # pragma: no cover - interface
        """Line 11: ``(i*, Q)``, the argmin winner and an optimal allocation (K x K, per log t)."""
        raise NotImplementedError

    # -- Algorithm 1 ----------------------------------------------------------------------
    @property
    def candidates(self) -> list[tuple[int, int]]:
        """``L_C``, the current pass's list (read-only copy)."""
        return list(self._LC)

    def _select(self) -> tuple[int, int]:
        if self._pass_start:
            self._forced = forced_exploration_pairs(self.wins, self.draws, self.t,
                                                    self.params["alpha"], self.params["beta"])
            self._fpos = 0
            self._pass_start = False
        if self._fpos < len(self._forced):
            self._in_loop = False
            pair = self._forced[self._fpos]
            self._fpos += 1
            self.stats["forced"] += 1
            return pair
        self._in_loop = True
        pair = self._LC[self._pos]
        if pair[0] == pair[1]:
            self.stats["self_duels"] += 1
        return pair

    def next_candidates(self, state: EmpiricalState) -> list[tuple[int, int]]:
        """``L_NC`` after a draw of the loop (lines 7-13)."""
        if state.log_t <= 0:
            w = int(state.structure.winners[0])
            return [(w, w)]
        self.stats["checks"] += 1
        w = self.check_winner(state)
        if w is not None:
            return [(int(w), int(w))]
        self.stats["targets"] += 1
        if self._target_cache is None or self._target_cache[0] != self._version:
            self.stats["solves"] += 1
            istar, Q = self.target(state)
            self._target_cache = (self._version, int(istar), np.asarray(Q, dtype=float))
        _, istar, Q = self._target_cache
        ii, jj = np.nonzero(np.tril(Q > state.draws / state.log_t, -1))  # lexicographic, i > j
        out = list(zip(ii.tolist(), jj.tolist()))
        out.append((int(istar), int(istar)))
        return out

    def _learn(self, i: int, j: int, i_won: bool) -> None:
        if i != j:
            self._version += 1
        if not self._in_loop:
            return
        self._in_loop = False
        prev = self._state if self._state is not None and self._state_version == self._version else None
        state = EmpiricalState(self.t, self.wins, self.draws, reuse=prev)
        self._state, self._state_version = state, self._version
        LNC = self.next_candidates(state)
        self._LR.discard(self._LC[self._pos])
        for p in LNC:
            if p not in self._LR:
                self._LN.add(p)
        self._pos += 1
        if self._pos == len(self._LC):
            self._LC = sorted(self._LN)
            self._LR = set(self._LN)
            self._LN = set()
            self._pos = 0
            self._pass_start = True


# ----------------------------------------------------------------------------- ECW-RMED
def ecw_check(structure: Structure, information: np.ndarray, log_t: float, winner: int) -> bool:
    """Check (3) for ECW-RMED: are the observed counts in ``R^E_{winner}(mu_hat)`` (000 eqs. (4)-(5))?

    ``information[i, j] = N_ij d(mu_hat_ij)``.  Eq. (4) read as ``>=``:
    ``N_{i1 j} d >= log t`` for every ``j in I_{i1}``; eq. (5): for every ``i2 != i1`` whose pool
    ``P = S_{i2} \\ {i1}`` holds at least ``m = L_{i2} - L_{i1} + 1`` arms, the ``m`` smallest
    ``N_{j i2} d`` over ``P`` sum to at least ``log t`` (the binding subset of each size-``m``
    family is its ``m`` smallest members; sums are taken in ascending order).
    """
    a = int(winner)
    beats = structure.beats
    L = structure.L
    K = structure.K
    Ia = beats[a]
    if np.any(information[a, Ia] < log_t):
        return False
    for i2 in range(K):
        if i2 == a:
            continue
        pool = beats[:, i2].copy()
        pool[a] = False
        m = int(L[i2] - L[a] + 1)
        n = int(pool.sum())
        if n < m:
            continue
        vals = np.sort(information[i2, pool])
        if np.cumsum(vals)[m - 1] < log_t:
            return False
    return True


def _ecw_allocation(structure: Structure, C: np.ndarray, winner: int):
    """``(C^E*_{winner}, E)`` by Theorem 5 (:func:`boundcalc.lp.ecw.ecw_allocation`, E normalised,
    K x K), with cost ties broken towards the smaller arm index (:func:`canonical_ties`)."""
    value, E = _ecw.ecw_allocation(structure.beats, C, winner)
    return value, canonical_ties(structure, C, winner, np.array(E, dtype=float))


def canonical_ties(structure: Structure, C: np.ndarray, winner: int, E: np.ndarray) -> np.ndarray:
    """Make Theorem 5's choice among equal-cost pairs deterministic: the smaller arm index first.

    Theorem 5 puts ``e = 1/(h - k)`` on the ``h`` cheapest pairs of each pool ``S_{i2} \\ {i1}``;
    when the ``h``-th and the ``(h+1)``-th cheapest cost the same, either choice is optimal and
    the one returned depends on the sort (numpy's default ``argsort`` is not stable on every
    CPU).  Early in a run many pairs have equal counts, hence equal costs, so the policy fixes
    the choice: within each group of equal costs the selected members are those of smallest
    index (a stable sort by ``(cost, arm)``, as the compiled kernel does).
    """
    a = int(winner)
    beats = structure.beats
    K = structure.K
    for i2 in range(K):
        if i2 == a:
            continue
        pool = beats[:, i2].copy()
        pool[a] = False
        chosen = pool & (E[i2] > 0)
        rest = pool & ~chosen
        if not chosen.any() or not rest.any():
            continue
        cut = C[i2, chosen].max()
        if C[i2, rest].min() != cut:
            continue  # the h cheapest are unique: nothing to choose
        members = np.flatnonzero(pool)
        level = float(E[i2, chosen][0])
        tied = members[C[i2, members] == cut]
        n_keep = int(np.sum(C[i2, chosen] == cut))
        keep = pool & (C[i2] < cut)
        keep[tied[:n_keep]] = True
        E[i2, members] = np.where(keep[members], level, 0.0)
        E[members, i2] = E[i2, members]
    return E


def ecw_target(structure: Structure) -> tuple[int, np.ndarray, dict[int, float]]:
    """Line 11 for ECW-RMED on an empirical structure: ``(i*, Q, per-winner values)``.

    Costs ``c_ij = r_hat_ij / d(mu_hat_ij)`` with 000's regret on the empirical losses
    (``r_hat``, Sec. 3); Theorem 5's closed form per empirical Copeland winner; ``Q = E / d``
    (0 where ``d = 0``).
    """
    K = structure.K
    d = structure.d
    R = pair_regret(structure.L, K)
    pos = d > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        C = np.where(pos, R / np.where(pos, d, 1.0), np.inf)
    np.fill_diagonal(C, np.inf)
    values, allocs = {}, {}
    for a in structure.winners.tolist():
        v, E = _ecw_allocation(structure, C, a)
        values[a] = float(v)
        allocs[a] = E
    istar = argmin_winner(values)
    E = allocs[istar]
    with np.errstate(divide="ignore", invalid="ignore"):
        Q = np.where(pos, E / np.where(pos, d, 1.0), 0.0)
    np.fill_diagonal(Q, 0.0)
    return istar, Q, values


@register_policy
class ECWRMED(CopelandRMED):
    """ECW-RMED: 000's Algorithm 1 with ``R^E`` (eqs. (4)-(5)) and Theorem 5's closed form.

    Check (3) tests the observed counts against ``R^E_{i1}(mu_hat)`` (:func:`ecw_check`) for each
    empirical Copeland winner in index order; when none passes, line 11 takes the winner with
    the smallest ``C^E*_{i1}(mu_hat)`` and its closed-form allocation (:func:`ecw_target`).
    Defaults ``alpha = 3``, ``beta = 0.01`` (000's experiments); ``beta = 0`` allowed.  The
    readings of the loose parts of the text are listed in :mod:`boundcalc.policies.copeland_rmed`.
    Regret is at most ``C^E* log T + o(log T)`` (Theorem 4).

    Examples
    --------
    >>> import numpy as np
    >>> p = ECWRMED(3)
    >>> [p.select_pair() for _ in range(1)]
    [(1, 0)]
    """

    name = "ecw-rmed"
    reference = "Komiyama, Honda & Nakagawa (ICML 2016), Algorithm 1 (ECW), Theorem 5"
    fast_kernel = "ecw_rmed"

    def check_winner(self, state: EmpiricalState) -> int | None:
        s = state.structure
        info = state.information
        for a in s.winners.tolist():
            if ecw_check(s, info, state.log_t, a):
                return int(a)
        return None

    def target(self, state: EmpiricalState) -> tuple[int, np.ndarray]:
        istar, Q, _ = ecw_target(state.structure)
        return istar, Q
