"""Plain transcriptions of every policy's algorithm, the independent reference of the compiled policies.

These are the step-by-step Python classes the package once shipped (each paper's lines
written out with numpy; the readings documented in the package's policy modules), kept here as
scikit-learn and scipy keep naive references in their tests.  ``tests/test_policy_reference.py``
drives each compiled policy and its transcription on the same outcomes and asserts the same pairs,
round for round; the unit tests of the papers' rules and pitfalls run on these transcriptions.

Randomized transcriptions draw from :class:`Stream`, a pure-Python SplitMix64 with the package's
documented transforms (:mod:`boundcalc.policies.kernel`: uniforms, indices, Box-Muller normals,
Marsaglia-Tsang gammas, Beta as a gamma ratio), seeded like the compiled policy's stream.

CW-RMED's transcription calls the LP core at every step (check (3): ``CopelandLPSolver.violation``;
line 11: ``solve_empirical``), as the package did; its solver keeps the same number of warm models as
the compiled policy's (:data:`CACHE_SIZE`).
"""

from __future__ import annotations

import math
from functools import cached_property

import numpy as np
from builders import lp_solver

from boundcalc.kernels.stats import _GOLDEN, _MASK, _mix64_py
from boundcalc.lp import ecw as _ecw
from boundcalc.lp.highs import SolverError
from boundcalc.lp.online import CopelandLPSolver
from boundcalc.lp.rule import LIFTED_MIN_ARMS
from boundcalc.lp.structure import Structure, empirical_structure, pair_regret
from boundcalc.matrix import kl_half
from boundcalc.policies.base import Integer, Policy, Real
from boundcalc.policies.cw_rmed import CWRMED as _CompiledCW

#: Warm models the transcription's LP solver keeps (the compiled CW-RMED's).
CACHE_SIZE = _CompiledCW.cache_size


class Stream:
    """The policy stream in pure Python (:mod:`boundcalc.policies.kernel`'s module text)."""

    def __init__(self, seed: int):
        self.state = int(seed) & _MASK
        self.spare = None

    def next(self) -> int:
        self.state = (self.state + _GOLDEN) & _MASK
        return _mix64_py(self.state)

    def uniform(self) -> float:
        return (self.next() >> 11) * (1.0 / 9007199254740992.0)

    def index(self, n: int) -> int:
        k = int(self.uniform() * n)
        return k if k < n else n - 1

    def normal(self) -> float:
        if self.spare is not None:
            v, self.spare = self.spare, None
            return v
        u1 = 1.0 - self.uniform()
        u2 = self.uniform()
        r = math.sqrt(-2.0 * math.log(u1))
        w = 2.0 * math.pi * u2
        self.spare = r * math.sin(w)
        return r * math.cos(w)

    def gamma(self, a: float) -> float:
        d = a - 1.0 / 3.0
        c = 1.0 / math.sqrt(9.0 * d)
        while True:
            x = self.normal()
            v = 1.0 + c * x
            if v <= 0.0:
                continue
            v = v * v * v
            u = self.uniform()
            x2 = x * x
            if u < 1.0 - 0.0331 * x2 * x2:
                return d * v
            if u > 0.0 and math.log(u) < 0.5 * x2 + d * (1.0 - v + math.log(v)):
                return d * v

    def beta(self, a: float, b: float) -> float:
        x = self.gamma(a)
        y = self.gamma(b)
        return x / (x + y)


class Streamed(Policy):
    """A randomized transcription: its draws come from :class:`Stream` (``seed``), not from ``rng``."""

    def __init__(self, K: int, *, seed: int = 0, rng=None, **params):
        super().__init__(K, rng=rng, **params)
        self.stream = Stream(seed)


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

    def __init__(self, t: int, wins: np.ndarray, draws: np.ndarray, *, reuse: EmpiricalState | None = None):
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
        "check_tol": Real(1e-12, low=0.0, high=1.0, doc="check (3) passes when the largest row violation is <= this"),
    }
    deterministic = True

    def __init__(self, K: int, *, rng=None, **params):
        super().__init__(K, rng=rng, **params)
        #: check (3)'s oracle (line 8, the same for both variants): the LP core's
        #: ``CopelandLPSolver.violation``, whose rows are checked against brute force in the LP tests
        self.checker = CopelandLPSolver(seed=0, cache_size=CACHE_SIZE)
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

    def check_winner(self, state: EmpiricalState) -> int | None:
        """Check (3), line 8: the first empirical Copeland winner (index order) whose ``R_{i1}(mu_hat)``
        of eq. (2) contains ``N / log t`` (rows only; the box does not bind observed counts), or None."""
        st = state.structure
        q = state.rates
        tol = self.params["check_tol"]
        for a in st.winners.tolist():
            if self.checker.violation(st, q, a, rows=False).amount <= tol:
                return int(a)
        return None

    # -- the hook a variant implements ----------------------------------------------------

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
            self._forced = forced_exploration_pairs(
                self.wins, self.draws, self.t, self.params["alpha"], self.params["beta"]
            )
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


class ECWRMED(CopelandRMED):
    """ECW-RMED: 000's Algorithm 1 with line 11 over ``R^E`` (eqs. (4)-(5)), Theorem 5's closed form.

    Check (3) is line 8's, CW-RMED's (:meth:`CopelandRMED.check_winner`: ``R_{i1}``, as printed);
    when it fails, line 11 takes the winner with the smallest ``C^E*_{i1}(mu_hat)`` and its
    closed-form allocation (:func:`ecw_target`).
    Defaults ``alpha = 3``, ``beta = 0.01`` (000's experiments); ``beta = 0`` allowed.  The
    readings of the loose parts of the text are listed in :mod:`boundcalc.policies.copeland_rmed`.
    Regret is at most ``C^E* log T + o(log T)`` (Theorem 4).

    """

    name = "ecw-rmed"
    reference = "Komiyama, Honda & Nakagawa (ICML 2016), Algorithm 1 (ECW), Theorem 5"

    def target(self, state: EmpiricalState) -> tuple[int, np.ndarray]:
        istar, Q, _ = ecw_target(state.structure)
        return istar, Q


# ----------------------------------------------------------------------------- cw_rmed
class CWRMED(CopelandRMED):
    """CW-RMED: 000's Algorithm 1 with the exact LP ``R_{i1}`` of eq. (2) (Theorems 2-3).

    Hyperparameters ``alpha = 3``, ``beta = 0.01`` (000's experiments; ``beta = 0`` allowed) and
    ``check_tol`` (check (3) passes when the largest row violation of ``N / log t`` is at most
    this; default 1e-12, i.e. exact up to rounding).

    """

    name = "cw-rmed"
    reference = "Komiyama, Honda & Nakagawa (ICML 2016), Algorithm 1 (CW), eq. (2), Theorems 2-3"

    def __init__(self, K: int, *, rng=None, **params):
        super().__init__(K, rng=rng, **params)
        # the oracle's random tie-breaks have a fixed seed: the policy stays deterministic (its
        # pairs are a function of the outcomes alone) and never draws from ``rng``.  The LP is the
        # one the policy solves (plain 0/1 rows, lift=False, below _CompiledCW.lift_min_arms arms;
        # the lifted model from there): where the optimum of line 11 is not unique the vertex
        # returned depends on the model and e* on the vertex; test_cw_rmed.py checks the decisions
        # against brute force over the whole optimal face.
        # revision 3: line 11's costs perturbed as the policy's (CWRMED.perturb), which makes the
        # optimal vertex one whatever the solve path (this solver's warm re-solves included)
        self.solver = lp_solver(seed=0, cache_size=CACHE_SIZE, lift=K >= LIFTED_MIN_ARMS, perturb=_CompiledCW.perturb)
        # check (3) through the LP's own solver, as the package's step-by-step CW-RMED did (its
        # checks touched the solver's cache of warm models)
        self.checker = self.solver
        # counters (ints, like the skeleton's): HiGHS solves, line-11 answers from Theorem 6
        self.stats.update({"lp_solves": 0, "theorem6": 0})

    def target(self, state: EmpiricalState) -> tuple[int, np.ndarray]:
        res = self.solver.solve_empirical(state.structure)
        if not res.success:
            raise SolverError(f"CW-RMED at t = {state.t}: the lower-bound LP failed: {res.message}")
        self.stats["lp_solves"] += int(res.stats["lp_solves"])
        self.stats["theorem6"] += int(res.stats["method"].startswith("closed-form"))
        a = argmin_winner(res.per_winner)
        return a, res.allocations[a]


# ----------------------------------------------------------------------------- rmed1
def empirical_divergence(wins: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """``I_i = sum_{j: mu_hat_ij < 1/2} N_ij d(mu_hat_ij)`` per arm (RMED, COLT 2015, eq. (3)).

    Sums run over ``j`` in ascending order (sequentially, so that compiled kernels agree bit for
    bit).

    """
    W = np.asarray(wins)
    N = np.asarray(draws)
    losing = 2 * W < N
    with np.errstate(invalid="ignore", divide="ignore"):
        mu = np.where(N > 0, W / np.where(N > 0, N, 1), 0.5)
    G = np.where(losing, N * kl_half(mu), 0.0)
    return np.cumsum(G, axis=1)[:, -1]


class RMED1(Policy):
    """RMED1, Komiyama et al. (COLT 2015), Algorithm 1 with the RMED1 subroutine (Algorithm 2).

    Hyperparameters: ``f_scale = 0.3`` and ``f_power = 1.01`` (``f(K) = f_scale K^f_power``, the
    paper's experimental choice) and ``n_init = 1`` (initial draws per pair, the paper's ``l``).
    See the module text for the reading of each step.
    """

    name = "rmed1"
    reference = "Komiyama, Honda, Kashima & Nakagawa (COLT 2015), Algorithms 1-2 (RMED1)"
    hyperparameters = {
        "f_scale": Real(0.3, low=0.0, doc="f(K) = f_scale * K**f_power in the list condition"),
        "f_power": Real(1.01, low=0.0, doc="f(K) = f_scale * K**f_power"),
        "n_init": Integer(1, low=1, doc="draws of every pair in the initial phase"),
    }
    deterministic = True

    def __init__(self, K: int, *, rng=None, **params):
        super().__init__(K, rng=rng, **params)
        self.fK = self.params["f_scale"] * float(self.K) ** self.params["f_power"]
        self._LC = list(range(self.K))
        self._LR = set(self._LC)
        self._LN: set[int] = set()
        self._pos = 0
        self._initial = True
        self._in_loop = False
        self.stats = {"initial": 0, "self_duels": 0}

    def _initial_pair(self):
        n0 = self.params["n_init"]
        for i in range(self.K):
            for j in range(i + 1, self.K):
                if self.draws[i, j] < n0:
                    return (i, j)
        return None

    def best_arm(self) -> tuple[int, np.ndarray]:
        """``(i*, I)``: the arm of smallest empirical divergence and the divergences."""
        I = empirical_divergence(self.wins, self.draws)
        return int(np.argmin(I)), I

    def _pre_loop_pair(self):
        """A draw that precedes the loop over ``L_C`` (RMED1: the initial phase), or None."""
        if self._initial:
            pair = self._initial_pair()
            if pair is not None:
                self._in_loop = False
                self.stats["initial"] += 1
                return pair
            self._initial = False
        return None

    def _rmed1_opponent(self, l: int, istar: int) -> int:
        """RMED1's opponent of ``l``: ``i*`` if it is not empirically beaten by ``l`` (or no arm is),
        else the arm ``l`` does worst against (smallest ``mu_hat_lj``, the first on ties)."""
        W, N = self.wins, self.draws
        opp = [j for j in range(self.K) if j != l and 2 * W[l, j] <= N[l, j]]
        if istar in opp or not opp:
            return istar
        best, m = math.inf, -1
        for j in range(self.K):
            if j == l:
                continue
            mu = W[l, j] / N[l, j] if N[l, j] > 0 else 0.5
            if mu < best:
                best, m = mu, j
        return m

    def _select(self) -> tuple[int, int]:
        pair = self._pre_loop_pair()
        if pair is not None:
            return pair
        self._in_loop = True
        l = self._LC[self._pos]
        istar, _ = self.best_arm()
        m = self._rmed1_opponent(l, istar)
        if m == l:
            self.stats["self_duels"] += 1
        return (l, m)

    def _learn(self, i: int, j: int, i_won: bool) -> None:
        if not self._in_loop:
            return
        self._in_loop = False
        l = self._LC[self._pos]
        self._LR.discard(l)
        istar, I = self.best_arm()
        bound = math.log(self.t) + self.fK
        for a in range(self.K):
            if a not in self._LR and I[a] - I[istar] <= bound:
                self._LN.add(a)
        self._pos += 1
        if self._pos == len(self._LC):
            self._LC = sorted(self._LN)
            self._LR = set(self._LN)
            self._LN = set()
            self._pos = 0


# ----------------------------------------------------------------------------- rmed2
def _mu(W, N, a, b) -> float:
    n = N[a, b]
    return W[a, b] / n if n > 0 else 0.5


def rmed2_target(W, N, istar: int, l: int, floor: float = 0.01) -> int:
    """``b(l)``: the arm ``j`` with ``mu_hat_lj < 1/2`` minimising
    ``max(Delta_{i* l} + Delta_{i* j}, floor) / d(mu_hat_lj)`` (RMED2, COLT 2015, Algorithm 3),
    ``Delta_{i* j} = mu_hat_{i* j} - 1/2``; ``-1`` when no arm beats ``l`` empirically.
    Ties go to the smaller index.

    """
    K = W.shape[0]
    dl = _mu(W, N, istar, l) - 0.5
    best, arg = math.inf, -1
    for j in range(K):
        if j == l or not 2 * W[l, j] < N[l, j]:
            continue
        num = dl + (_mu(W, N, istar, j) - 0.5)
        if num < floor:
            num = floor
        c = num / float(kl_half(W[l, j] / N[l, j]))
        if c < best:
            best, arg = c, j
    return arg


class RMED2(RMED1):
    """RMED2, Komiyama et al. (COLT 2015), Algorithm 1 with the RMED2 subroutine (Algorithm 3).

    Hyperparameters: RMED1's ``f_scale = 0.3``, ``f_power = 1.01``, ``n_init = 1``; ``alpha = 3``
    (forced exploration ``N_ij >= alpha log log t``) and ``delta_floor = 0.01`` (floor of the
    regret numerator, from the authors' C++).  See the module text for the reading of each line.
    ``stats``: ``"initial"``, ``"forced"``, ``"self_duels"``, ``"to_winner"`` (line 3: ``m = i*``
    chosen by the ``N_{l i*}`` test), ``"to_target"`` (``m = b(l)``).
    """

    name = "rmed2"
    reference = "Komiyama, Honda, Kashima & Nakagawa (COLT 2015), Algorithms 1 and 3 (RMED2)"
    hyperparameters = {
        **RMED1.hyperparameters,
        "alpha": Real(3.0, low=0.0, doc="forced exploration: every pair drawn alpha log log t times"),
        "delta_floor": Real(
            0.01, low=0.0, low_open=True, doc="floor of the regret numerator Delta_{i* l} + Delta_{i* j} (> 0)"
        ),
    }
    deterministic = True

    def __init__(self, K: int, *, rng=None, **params):
        super().__init__(K, rng=rng, **params)
        self.stats = {"initial": 0, "forced": 0, "self_duels": 0, "to_winner": 0, "to_target": 0}

    def _target(self, istar: int, l: int) -> int:
        """``b(l)`` of Algorithm 3 (:func:`rmed2_target`), ``-1`` when no arm beats ``l``."""
        return rmed2_target(self.wins, self.draws, istar, l, self.params["delta_floor"])

    def _forced_pair(self):
        if self.t < 3:
            return None
        thr = self.params["alpha"] * math.log(math.log(self.t))
        for i in range(self.K):
            for j in range(i + 1, self.K):
                if self.draws[i, j] < thr:
                    return (i, j)
        return None

    def _pre_loop_pair(self):
        """RMED1's initial phase, then Algorithm 1's forced exploration (``N_ij < alpha log log t``)."""
        pair = super()._pre_loop_pair()
        if pair is None:
            pair = self._forced_pair()
            if pair is not None:
                self._in_loop = False
                self.stats["forced"] += 1
        return pair

    def _select(self) -> tuple[int, int]:
        pair = self._pre_loop_pair()
        if pair is not None:
            return pair
        self._in_loop = True
        l = self._LC[self._pos]
        istar, _ = self.best_arm()
        W, N = self.wins, self.draws
        b = self._target(istar, l)
        if b >= 0:
            loglog = math.log(math.log(self.t))
            if istar != l and 2 * W[l, istar] <= N[l, istar] and N[l, istar] * loglog <= N[l, b]:
                m = istar
                self.stats["to_winner"] += 1
            else:
                m = b
                self.stats["to_target"] += 1
        else:  # no arm beats l empirically: RMED1's rule (its minimiser lies among the arms l does not beat)
            m = self._rmed1_opponent(l, istar)
        if m == l:
            self.stats["self_duels"] += 1
        return (l, m)


# ----------------------------------------------------------------------------- savage
def savage_log_term(K: int, horizon: int, delta_scale: float) -> float:
    """``log(2 N T / delta)`` of 003 eq. (1) with ``N = K(K-1)/2`` and ``delta = delta_scale / T``."""
    delta = delta_scale / horizon
    return math.log(K * (K - 1) * horizon / delta)


def copeland_active_pairs(lo: np.ndarray, hi: np.ndarray) -> list[tuple[int, int]]:
    """The pairs ``(i, j)``, ``i < j``, that 003's Copeland predicate keeps in ``W`` (module text)."""
    K = lo.shape[0]
    off = ~np.eye(K, dtype=bool)
    low = ((lo > 0.5) & off).sum(axis=1)
    up = ((hi > 0.5) & off).sum(axis=1)
    top = low.max()
    out = []
    for i in range(K):
        for j in range(i + 1, K):
            if lo[i, j] <= 0.5 <= hi[i, j] and max(up[i], up[j]) >= top:
                out.append((i, j))
    return out


class SAVAGE(Policy):
    """Copeland SAVAGE, Urvoy et al. (ICML 2013, paper 003), Algorithm 1 with the Copeland
    predicate (Sec. 4.1) and the finite-horizon radius of eq. (1), then exploit (App. B.1).

    Hyperparameters: ``horizon = 10^5`` (``T`` in the radius) and ``delta_scale = 1``
    (``delta = delta_scale / T``, in ``(0, 1]``).  ``stats``: ``"exploration"`` (rounds of
    Algorithm 1's loop) and ``"self_duels"`` (exploit rounds).
    """

    name = "savage"
    reference = "Urvoy, Clerot, Feraud & Naamane (ICML 2013), Algorithm 1, Copeland variant (SAVAGE)"
    hyperparameters = {
        "horizon": Integer(10**5, low=1, doc="horizon T of the finite-horizon confidence radius"),
        "delta_scale": Real(1.0, low=0.0, high=1.0, low_open=True, doc="confidence delta = delta_scale / horizon"),
    }
    deterministic = True

    def __init__(self, K: int, *, rng=None, **params):
        super().__init__(K, rng=rng, **params)
        self.log_term = savage_log_term(self.K, self.params["horizon"], self.params["delta_scale"])
        self.lo = np.zeros((self.K, self.K))
        self.hi = np.ones((self.K, self.K))
        np.fill_diagonal(self.lo, 0.5)
        np.fill_diagonal(self.hi, 0.5)
        self.stats = {"exploration": 0, "self_duels": 0}

    def radius(self, n: int) -> float:
        """``c(n) = sqrt(log(2 N T / delta) / (2 n))`` (003 eq. (1)), ``n >= 1`` samples."""
        return math.sqrt(self.log_term / (2.0 * n))

    def active_pairs(self) -> list[tuple[int, int]]:
        return copeland_active_pairs(self.lo, self.hi)

    def winner(self) -> int:
        """``argmax_k Lo_k`` (smallest index on ties): the decision once ``W`` is empty."""
        off = ~np.eye(self.K, dtype=bool)
        return int(np.argmax(((self.lo > 0.5) & off).sum(axis=1)))

    def _select(self) -> tuple[int, int]:
        act = self.active_pairs()
        if not act:
            w = self.winner()
            self.stats["self_duels"] += 1
            return (w, w)
        self.stats["exploration"] += 1
        best = min(self.draws[i, j] for i, j in act)
        for i, j in act:
            if self.draws[i, j] == best:
                return (i, j)
        raise AssertionError("unreachable")  # pragma: no cover

    def _learn(self, i: int, j: int, i_won: bool) -> None:
        if i == j:
            return
        p, q = (i, j) if i < j else (j, i)
        n = int(self.draws[p, q])
        m = self.wins[p, q] / n
        c = self.radius(n)
        self.lo[p, q] = max(self.lo[p, q], m - c)
        self.hi[p, q] = min(self.hi[p, q], m + c)
        self.lo[q, p] = 1.0 - self.hi[p, q]
        self.hi[q, p] = 1.0 - self.lo[p, q]


# ----------------------------------------------------------------------------- rucb
def relative_bounds(wins: np.ndarray, draws: np.ndarray, alpha: float, t: int) -> tuple[np.ndarray, np.ndarray]:
    """Relative upper and lower confidence bounds ``(U, L)`` (RUCB, ICML 2014, Algorithm 1 lines
    4-5; paper 001, Algorithm 1 line 4).

    ``u_ij = W_ij / N_ij + sqrt(alpha ln t / N_ij)`` and ``l_ij = W_ij / N_ij - sqrt(alpha ln t / N_ij)``
    with ``N = W + W^T``; ``x / 0 := 1`` for any ``x`` (so an undrawn pair has ``u = 2``,
    ``l = 0``); ``u_ii = l_ii = 1/2``.  ``t`` is the 1-based round.

    """
    W = np.asarray(wins, dtype=float)
    N = np.asarray(draws, dtype=float)
    played = N > 0
    Nn = np.where(played, N, 1.0)
    mean = np.where(played, W / Nn, 1.0)
    rad = np.where(played, np.sqrt(alpha * math.log(t) / Nn), 1.0)
    U = mean + rad
    L = mean - rad
    np.fill_diagonal(U, 0.5)
    np.fill_diagonal(L, 0.5)
    return U, L


class RUCB(Streamed):
    """RUCB, Zoghi, Whiteson, Munos & de Rijke (ICML 2014), Algorithm 1 (ICML version, with the
    hypothesised best arm ``B``).

    Hyperparameter ``alpha = 0.51`` (``> 1/2`` as the algorithm's input requires; the value of
    the paper's and of 001's experiments).  The module text gives the reading of every line and
    the order of the random draws.  ``stats``: ``"self_duels"`` (rounds with ``d = c``) and
    ``"empty_C"`` (rounds where line 7 drew ``c`` at random).
    """

    name = "rucb"
    reference = "Zoghi, Whiteson, Munos & de Rijke (ICML 2014), Algorithm 1 (RUCB)"
    hyperparameters = {
        "alpha": Real(0.51, low=0.5, low_open=True, doc="confidence scale of the RUCB (> 1/2)"),
    }
    deterministic = False

    def __init__(self, K: int, *, rng=None, **params):
        super().__init__(K, rng=rng, **params)
        self._B = -1  # the hypothesised best arm (line 2: empty)
        self.stats = {"self_duels": 0, "empty_C": 0}

    # random draws, from the stream (overridable: a test swaps in a pitfall)
    def _draw_index(self, n: int) -> int:
        return self.stream.index(n)

    def _draw_uniform(self) -> float:
        return self.stream.uniform()

    def _select(self) -> tuple[int, int]:
        K = self.K
        U, _ = relative_bounds(self.wins, self.draws, self.params["alpha"], self.t)
        C = np.flatnonzero((U >= 0.5).all(axis=1))  # line 6 (u_cc = 1/2 passes)
        if C.size == 0:  # line 7
            c = self._draw_index(K)
            self._B = -1  # line 8: B intersect {} = {}
            self.stats["empty_C"] += 1
        else:
            if self._B >= 0 and self._B not in C:  # line 8
                self._B = -1
            if C.size == 1:  # line 9
                c = int(C[0])
                self._B = c
            elif self._B < 0:  # line 11 with B = {}: uniform on C
                c = int(C[self._draw_index(C.size)])
            elif self._draw_uniform() < 0.5:  # line 11: p(B) = 1/2
                c = self._B
            else:  # line 11: 1 / (2 |C \ B|) each
                rest = C[C != self._B]
                c = int(rest[self._draw_index(rest.size)])
        col = U[:, c]  # line 13: d = argmax_j u_jc
        ties = np.flatnonzero(col == col.max())
        if ties.size > 1:
            ties = ties[ties != c]  # on a tie d != c
        d = int(ties[0]) if ties.size == 1 else int(ties[self._draw_index(ties.size)])
        if d == c:
            self.stats["self_duels"] += 1
        return (c, d)


# ----------------------------------------------------------------------------- dts
def copeland_candidates(U: np.ndarray) -> np.ndarray:
    """Lines 5-6 of 001 Algorithm 1: the arms maximising ``sum_{j != i} 1(u_ij > 1/2)`` (ascending)."""
    U = np.asarray(U, dtype=float)
    above = U > 0.5
    np.fill_diagonal(above, False)
    score = above.sum(axis=1)
    return np.flatnonzero(score == score.max())


def dts_plus_regret(theta: np.ndarray, arms) -> np.ndarray:
    """001 Sec. 4.3: ``R_i = sum_{j != i, theta_ij != 1/2} r_ij / D(theta_ij || 1/2)`` for ``i`` in ``arms``.

    ``r_ij = zeta* - (zeta_i + zeta_j) / 2`` with ``zeta_i = (1 / (K - 1)) sum_{j != i}
    1(theta_ij > 1/2)`` and ``zeta* = max_i zeta_i`` over all arms; the sum runs over ``j``
    ascending (sequentially, as the compiled kernel does).

    """
    th = np.asarray(theta, dtype=float)
    K = th.shape[0]
    above = th > 0.5
    np.fill_diagonal(above, False)
    zeta = (above.sum(axis=1) / (K - 1)).tolist()
    zstar = max(zeta)
    arms = [int(i) for i in arms]
    d = kl_half(th[arms]).tolist()
    rows = th[arms].tolist()
    out = np.empty(len(arms))
    for k, i in enumerate(arms):
        s = 0.0
        zi = zeta[i]
        row, drow = rows[k], d[k]
        for j in range(K):
            if j != i and row[j] != 0.5:
                s += (zstar - 0.5 * (zi + zeta[j])) / drow[j]
        out[k] = s
    return out


class DTS(Streamed):
    """D-TS, Wu & Liu (NIPS 2016, paper 001), Algorithm 1 (lines 1-18).

    Hyperparameter ``alpha = 0.51`` (001 Sec. 5; ``> 1/2`` as Proposition 1 and Theorem 1
    require).  The module text gives the reading of every line and the order of the random
    draws.  ``stats``: ``"self_duels"`` (``a2 = a1``), ``"eliminations"`` (rounds where the
    candidate set ``C`` of lines 5-6 left some arm out), ``"ties"`` (rounds where line 11 had
    more than one maximiser).
    """

    name = "dts"
    reference = "Wu & Liu (NIPS 2016), Algorithm 1 (D-TS)"
    hyperparameters = {
        "alpha": Real(0.51, low=0.5, low_open=True, doc="confidence scale of the RUCB/RLCB (> 1/2)"),
    }
    deterministic = False

    def __init__(self, K: int, *, rng=None, **params):
        super().__init__(K, rng=rng, **params)
        self._iu = np.triu_indices(self.K, 1)
        self._others = [np.delete(np.arange(self.K), a) for a in range(self.K)]
        self._theta = np.full((self.K, self.K), 0.5)
        self.stats = {"self_duels": 0, "eliminations": 0, "ties": 0}

    # random draws, from the stream (overridable: a test swaps in a pitfall)
    def _draw_beta(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Independent ``Beta(a_k, b_k)`` draws, in the order of the arrays."""
        return np.array([self.stream.beta(float(x), float(y)) for x, y in zip(a, b)])

    def _draw_index(self, n: int) -> int:
        return self.stream.index(n)

    # the algorithm
    def _sample_theta1(self) -> np.ndarray:
        """Lines 7-10: ``theta1`` (K x K, ``theta1_ii = 1/2``, ``theta1_ji = 1 - theta1_ij``)."""
        W = self.wins
        iu = self._iu
        s = self._draw_beta(W[iu] + 1.0, W.T[iu] + 1.0)
        th = self._theta
        th[iu] = s
        th[iu[1], iu[0]] = 1.0 - s
        return th

    def _first(self, theta: np.ndarray, C: np.ndarray) -> int:
        """Line 11: the arm of ``C`` beating the most arms under ``theta``; ties to :meth:`_tie_break`."""
        above = theta > 0.5
        np.fill_diagonal(above, False)
        score = above.sum(axis=1)[C]
        A = C[score == score.max()]
        if A.size == 1:
            return int(A[0])
        self.stats["ties"] += 1
        return self._tie_break(theta, A)

    def _tie_break(self, theta: np.ndarray, A: np.ndarray) -> int:
        """D-TS: uniformly at random among the tied arms ``A``."""
        return int(A[self._draw_index(A.size)])

    def _second(self, a1: int, L: np.ndarray) -> int:
        """Lines 13-14: ``argmax`` of fresh ``theta2_{i a1}`` over ``{i : l_{i a1} <= 1/2}``."""
        W = self.wins
        others = self._others[a1]
        th2 = np.full(self.K, 0.5)
        th2[others] = self._draw_beta(W[others, a1] + 1.0, W[a1, others] + 1.0)
        th2[L[:, a1] > 0.5] = -np.inf
        return int(np.argmax(th2))

    def _select(self) -> tuple[int, int]:
        U, L = relative_bounds(self.wins, self.draws, self.params["alpha"], self.t)
        C = copeland_candidates(U)
        if C.size < self.K:
            self.stats["eliminations"] += 1
        theta = self._sample_theta1()
        a1 = self._first(theta, C)
        a2 = self._second(a1, L)
        if a1 == a2:
            self.stats["self_duels"] += 1
        return (a1, a2)


class DTSPlus(DTS):
    """D-TS+, Wu & Liu (NIPS 2016, paper 001), Sec. 4.3: D-TS (Algorithm 1) with line 11's random
    tie-break replaced by the smallest estimated regret ``R_i`` (:func:`dts_plus_regret`).

    Hyperparameter ``alpha = 0.51`` (001 Sec. 5).  ``stats`` as :class:`DTS`; ``"ties"`` counts
    the rounds where ``A`` had more than one arm (and ``R`` decided).
    """

    name = "dts+"
    reference = "Wu & Liu (NIPS 2016), Sec. 4.3 (D-TS+)"

    def _tie_break(self, theta: np.ndarray, A: np.ndarray) -> int:
        """D-TS+: the tied arm of smallest estimated regret ``R_i`` (first on equal ``R``)."""
        R = dts_plus_regret(theta, A)
        return int(A[int(np.argmin(R))])


# ----------------------------------------------------------------------------- ccb
def copeland_bounds(U: np.ndarray, L: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """002 Algorithm 1 line 7: ``(Cpld_up, Cpld_lo)`` -- per arm, the number of ``k != i`` with
    ``u_ik >= 1/2``, resp. ``l_ik >= 1/2``.

    """
    up = np.asarray(U) >= 0.5
    lo = np.asarray(L) >= 0.5
    np.fill_diagonal(up, False)
    np.fill_diagonal(lo, False)
    return up.sum(axis=1), lo.sum(axis=1)


class CCB(Streamed):
    """CCB, Zoghi, Karnin, Whiteson & de Rijke (NIPS 2015, paper 002), Algorithm 1 (lines 1-15).

    Hyperparameter ``alpha = 0.51`` (``> 1/2`` as Algorithm 1's input requires; the value 001
    Sec. 5 used for CCB).  The module text gives the reading of every line and the order of the
    random draws.  State: ``B`` (bool ``K``, line 2), ``Bi`` (bool ``K x K``, ``Bi[i, k]``: ``a_k
    in B^i``, line 3), ``LC`` (line 4).  ``stats``: ``"self_duels"`` (``d = c``), ``"explore"``
    (rounds decided by line 10), ``"explore_eligible"`` (rounds where line 10's set was
    non-empty), ``"resets"`` (lines 9A and 9B's resets).
    """

    name = "ccb"
    reference = "Zoghi, Karnin, Whiteson & de Rijke (NIPS 2015), Algorithm 1 (CCB)"
    hyperparameters = {
        "alpha": Real(0.51, low=0.5, low_open=True, doc="confidence scale of the U/L bounds (> 1/2)"),
    }
    deterministic = False

    def __init__(self, K: int, *, rng=None, **params):
        super().__init__(K, rng=rng, **params)
        self.stats = {"self_duels": 0, "explore": 0, "explore_eligible": 0, "resets": 0}
        self._reset()

    def _reset(self) -> None:
        """Lines 2-4: ``B`` = all arms, ``B^i`` empty, ``L_C = K``."""
        self.B = np.ones(self.K, dtype=bool)
        self.Bi = np.zeros((self.K, self.K), dtype=bool)
        self.LC = self.K

    # random draws, from the stream (overridable: a test swaps in a pitfall)
    def _draw_index(self, n: int) -> int:
        return self.stream.index(n)

    def _draw_uniform(self) -> float:
        return self.stream.uniform()

    # the algorithm
    def _update_hypotheses(self, U: np.ndarray, L: np.ndarray, up: np.ndarray, lo: np.ndarray, C: np.ndarray) -> None:
        """Line 9 (A, B, C)."""
        K = self.K
        if np.any(self.Bi & (L > 0.5)):  # 9A
            self._reset()
            self.stats["resets"] += 1
        top_lo = lo.max()  # 9B
        for i in np.flatnonzero(self.B):
            if up[i] < top_lo:
                self.B[i] = False
                if int(self.Bi[i].sum()) != self.LC + 1:
                    self.Bi[i] = U[i] < 0.5
        if not self.B.any():
            self._reset()
            self.stats["resets"] += 1
        for i in C:  # 9C
            if up[i] != lo[i]:
                continue
            self.B[i] = True
            self.Bi[i] = False
            self.LC = K - 1 - int(up[i])
            m = self.LC + 1
            for j in range(K):
                if j == i:
                    continue
                n = int(self.Bi[j].sum())
                if n < m:
                    self.Bi[j] = False
                elif n > m:
                    elems = np.flatnonzero(self.Bi[j])
                    for q in range(m):  # partial Fisher-Yates
                        r = q + self._draw_index(n - q)
                        elems[q], elems[r] = elems[r], elems[q]
                    self.Bi[j] = False
                    self.Bi[j, elems[:m]] = True

    def _opponent(self, c: int, U: np.ndarray, L: np.ndarray) -> int:
        """Line 13: ``d = argmax {u_jc : a_j in B^c, l_jc <= 1/2}``, ``B^c`` = ``B^c_t`` or all
        arms with probability 1/2 each (all arms when ``B^c_t`` has no eligible arm); ties
        uniform, ``d != c`` on a tie."""
        eligible = L[:, c] <= 0.5
        if self._draw_uniform() < 0.5:
            own = eligible & self.Bi[c]
            if own.any():
                eligible = own
        col = np.where(eligible, U[:, c], -np.inf)
        ties = np.flatnonzero(col == col.max())
        if ties.size > 1:
            ties = ties[ties != c]
        return int(ties[0]) if ties.size == 1 else int(ties[self._draw_index(ties.size)])

    def _select(self) -> tuple[int, int]:
        U, L = relative_bounds(self.wins, self.draws, self.params["alpha"], self.t)  # line 6
        up, lo = copeland_bounds(U, L)  # line 7
        C = np.flatnonzero(up == up.max())  # line 8
        self._update_hypotheses(U, L, up, lo, C)  # line 9
        explore = self.Bi & (L <= 0.5) & (U >= 0.5)  # line 10
        has = bool(explore.any())
        if has:
            self.stats["explore_eligible"] += 1
        if self._draw_uniform() < 0.25 and has:
            pairs = np.flatnonzero(explore.ravel())
            code = int(pairs[self._draw_index(pairs.size)])
            self.stats["explore"] += 1
            c, d = divmod(code, self.K)
        else:
            both = C[self.B[C]]  # line 11
            if both.size and self._draw_uniform() < 2.0 / 3.0:
                C = both
            c = int(C[0]) if C.size == 1 else int(C[self._draw_index(C.size)])  # line 12
            d = self._opponent(c, U, L)  # line 13
        if c == d:
            self.stats["self_duels"] += 1
        return (c, d)


# ----------------------------------------------------------------------------- scb


def bernoulli_kl(p, q):
    """``d(p, q) = p ln(p / q) + (1 - p) ln((1 - p) / (1 - q))`` with ``0 ln 0 = 0`` (``inf`` when
    ``q`` gives no mass where ``p`` does).

    """
    s = 0.0
    if p > 0.0:
        if q <= 0.0:
            return math.inf
        s += p * math.log(p / q)
    if p < 1.0:
        if q >= 1.0:
            return math.inf
        s += (1.0 - p) * math.log((1.0 - p) / (1.0 - q))
    return s


def scb_pair_decided(w, n, K, delta):
    """002 Algorithm 2 line 1: after ``n`` fresh duels of ``(i, j)`` with ``w`` wins of ``i``, is
    ``p_ij > 1/2`` determined at level ``delta / K^2``?

    ``|w / n - 1/2| > sqrt(ln(4 K^2 n^2 / delta) / (2 n))``: Hoeffding,
    ``P(|w/n - p| > r_n) <= 2 exp(-2 n r_n^2) = delta / (2 K^2 n^2)``, summed over ``n``:
    ``(pi^2 / 12) delta / K^2 < delta / K^2``.

    """
    if n <= 0:
        return False
    x = w / n - 0.5
    rad = math.sqrt(math.log(4.0 * K * K * float(n) * float(n) / delta) / (2.0 * n))
    return abs(x) > rad


def scb_kl_bounds(mu_hat, t, K, delta):
    """002 Algorithm 4's KL confidence interval after ``t`` rewards of mean ``mu_hat``:
    ``{q : t d(mu_hat, q) <= ln(4 t K / delta) + 2 ln ln t}`` (``ln ln t`` taken as 0 while
    ``ln t <= 1``), each end by 60 bisection steps.  Returns ``(l, u)``.

    """
    lt = math.log(float(t))
    beta = math.log(4.0 * t * K / delta) + (2.0 * math.log(lt) if lt > 1.0 else 0.0)
    lo = mu_hat
    hi = 1.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if t * bernoulli_kl(mu_hat, mid) <= beta:
            lo = mid
        else:
            hi = mid
    u = lo
    lo = 0.0
    hi = mu_hat
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if t * bernoulli_kl(mu_hat, mid) <= beta:
            hi = mid
        else:
            lo = mid
    return hi, u


def scb_eliminate(S, R, t, K, delta, eps):
    """002 Algorithm 4 after a pass in which every arm of ``S`` got its ``t``-th reward.

    Drops the arms with ``u_i < max_j l_j`` (``S``, a bool array, is updated in place) and
    returns the identified arm -- ``argmax l`` (smallest index on ties) -- when one arm is left
    or ``1 - max l <= (1 + eps) (1 - max u)``; else -1.  ``R[i]``: arm ``i``'s rewards so far.

    """
    n = S.shape[0]
    L = np.full(n, -1.0)
    U = np.full(n, -1.0)
    ml = -1.0
    for i in range(n):
        if S[i]:
            l, u = scb_kl_bounds(R[i] / t, t, K, delta)
            L[i] = l
            U[i] = u
            if l > ml:
                ml = l
    left = 0
    mu_ = -1.0
    best = -1
    bl = -1.0
    for i in range(n):
        if S[i]:
            if U[i] < ml:
                S[i] = False
            else:
                left += 1
                if U[i] > mu_:
                    mu_ = U[i]
                if L[i] > bl:
                    bl = L[i]
                    best = i
    if left == 1 or 1.0 - bl <= (1.0 + eps) * (1.0 - mu_):
        return best
    return -1


class SCB(Streamed):
    """SCB, Zoghi, Karnin, Whiteson & de Rijke (NIPS 2015, paper 002), Algorithm 3 with
    Algorithms 2 and 4.

    Hyperparameter ``eps = 0`` (Algorithm 3 line 2: an exact Copeland winner); ``eps > 0`` is
    Algorithm 2's approximation parameter, used by Algorithm 4's stopping rule ``(1 - max l) /
    (1 - max u) <= 1 + eps``.  ``T_r`` and ``delta_r`` are fixed by Algorithm 3.  The module
    text gives the reading of every line, the rebuilt Algorithm 4, the behaviour with several
    Copeland winners and the order of the random draws.  ``stats``: ``"self_duels"`` (line 3's
    exploitation), ``"rounds"`` (Algorithm 3 rounds started), ``"identified"`` (rounds where
    Algorithm 2 returned an arm), ``"rewards"`` (completed ``reward`` calls).
    """

    name = "scb"
    reference = "Zoghi, Karnin, Whiteson & de Rijke (NIPS 2015), Algorithms 2-4 (SCB)"
    hyperparameters = {
        "eps": Real(
            0.0,
            low=0.0,
            doc="Algorithm 2's approximation parameter (>= 0; 0 = exact Copeland winner, Algorithm 3 line 2)",
        ),
    }
    deterministic = False

    def __init__(self, K: int, *, rng=None, **params):
        super().__init__(K, rng=rng, **params)
        self.stats = {"self_duels": 0, "rounds": 1, "identified": 0, "rewards": 0}
        self.r = 1
        self.T_r = 4.0
        self.delta = math.log(self.T_r) / self.T_r
        self._new_round()

    def _new_round(self) -> None:
        """Algorithm 3 line 2: a fresh Algorithm 2 / 4 run with budget ``T_r``."""
        self.used = 0.0
        self.winner = -1
        self.S = np.ones(self.K, dtype=bool)
        self.R = np.zeros(self.K, dtype=np.int64)
        self.pass_t = 1
        self.pos = 0
        self.opp = -1
        self.qn = 0
        self.qw = 0

    def _draw_index(self, n: int) -> int:
        return self.stream.index(n)

    def _select(self) -> tuple[int, int]:
        if self.winner >= 0:  # Algorithm 3 line 3
            return (self.winner, self.winner)
        while not self.S[self.pos]:
            self.pos += 1
        a = self.pos
        if self.opp < 0:  # Algorithm 2 line 1: a new reward(a), uniform opponent
            k = self._draw_index(self.K - 1)
            self.opp = k + 1 if k >= a else k
            self.qn = self.qw = 0
        return (a, self.opp)

    def _learn(self, i: int, j: int, i_won: bool) -> None:
        if i == j:
            self.stats["self_duels"] += 1
        else:
            self.qn += 1
            self.qw += int(i_won)
            if scb_pair_decided(self.qw, self.qn, self.K, self.delta):
                self.stats["rewards"] += 1
                if 2 * self.qw > self.qn:
                    self.R[i] += 1
                self.opp = -1
                self.pos += 1
                while self.pos < self.K and not self.S[self.pos]:
                    self.pos += 1
                if self.pos == self.K:  # a pass of Algorithm 4 is complete
                    self.winner = int(
                        scb_eliminate(self.S, self.R, self.pass_t, self.K, self.delta, self.params["eps"])
                    )
                    if self.winner >= 0:
                        self.stats["identified"] += 1
                    self.pass_t += 1
                    self.pos = 0
        self.used += 1.0
        if self.used >= self.T_r:  # force-terminate: next round of Algorithm 3
            self.r += 1
            self.stats["rounds"] += 1
            self.T_r = self.T_r * self.T_r
            self.delta = math.log(self.T_r) / self.T_r
            self._new_round()


# ----------------------------------------------------------------------------- driving both
#: registry name -> transcription
REFERENCE = {
    "ecw-rmed": ECWRMED,
    "cw-rmed": CWRMED,
    "rmed1": RMED1,
    "rmed2": RMED2,
    "savage": SAVAGE,
    "rucb": RUCB,
    "dts": DTS,
    "dts+": DTSPlus,
    "ccb": CCB,
    "scb": SCB,
}


def drive_both(name, pm, T, seed, params=None):
    """Drive the compiled policy and its transcription on the same outcomes; the first round where
    their pairs differ (None if none) and both policies."""
    from boundcalc.policies import make_policy
    from boundcalc.simulate import DuelEnvironment

    params = params or {}
    p = make_policy(name, pm.K, rng=np.random.default_rng(seed), **params)
    kw = dict(params)
    if not p.deterministic:
        kw["seed"] = p._seed
    r = REFERENCE[name](pm.K, **kw)
    env = DuelEnvironment(pm.mu, seed, seed + 1)
    for t in range(1, T + 1):
        a, b = p.select_pair(), r.select_pair()
        if a != b:
            return t, p, r
        won = env.duel(*a)
        p.update(*a, won)
        r.update(*b, won)
    return None, p, r


# ----------------------------------------------------------------------------- interleaved-filter
class InterleavedFilter(Streamed):
    """Interleaved Filter 2, Yue, Broder, Kleinberg & Joachims (JCSS 2012), Algorithm 2, then exploit:
    a plain transcription with Python sets (the readings: :mod:`boundcalc.policies.interleaved_filter`)."""

    name = "interleaved-filter"
    reference = "Yue, Broder, Kleinberg & Joachims (JCSS 2012), Algorithm 2 (IF2)"
    hyperparameters = {"horizon": Integer(10**5, low=1)}

    def __init__(self, K: int, *, rng=None, **params):
        super().__init__(K, rng=rng, **params)
        self.delta = 1.0 / (self.params["horizon"] * K * K)  # line 1
        self.b_hat = self.stream.index(K)  # line 2
        self.Wset = set(range(K)) - {self.b_hat}  # line 3
        self.wins_hat = {b: 0 for b in range(K)}  # lines 4-5: counts since b_hat became the candidate
        self.n_hat = {b: 0 for b in range(K)}
        self.queue = sorted(self.Wset)  # lines 7-9: this round robin's arms, ascending
        self.stats = {"exploration": 0, "self_duels": 0, "candidate_changes": 0}

    def c(self, n: int) -> float:
        return math.sqrt(4.0 * math.log(1.0 / self.delta) / n)

    def p_hat(self, b: int) -> float:
        return self.wins_hat[b] / self.n_hat[b]

    def _select(self):
        if not self.Wset:
            self.stats["self_duels"] += 1
            return (self.b_hat, self.b_hat)
        self.stats["exploration"] += 1
        return (self.b_hat, self.queue[0])

    def _learn(self, i, j, i_won):
        if not self.Wset:
            return
        self.n_hat[j] += 1
        self.wins_hat[j] += int(i_won)
        self.queue.pop(0)
        if self.queue:
            return
        # lines 10-12 (C_hat open: 1/2 outside means P_hat - c >= 1/2)
        for b in sorted(self.Wset):
            if self.n_hat[b] and self.p_hat(b) > 0.5 and not (self.p_hat(b) - self.c(self.n_hat[b]) < 0.5):
                self.Wset.discard(b)
        # line 13: the first b' with P_hat < 1/2 and P_hat + c <= 1/2
        beaten_by = [
            b
            for b in sorted(self.Wset)
            if self.n_hat[b] and self.p_hat(b) < 0.5 and self.p_hat(b) + self.c(self.n_hat[b]) <= 0.5
        ]
        if beaten_by:
            new = beaten_by[0]
            self.Wset = {b for b in self.Wset if not (self.n_hat[b] and self.p_hat(b) > 0.5)}  # lines 14-15
            self.b_hat = new  # lines 16-17
            self.Wset.discard(new)
            self.wins_hat = {b: 0 for b in range(self.K)}
            self.n_hat = {b: 0 for b in range(self.K)}
            self.stats["candidate_changes"] += 1
        self.queue = sorted(self.Wset)


# ----------------------------------------------------------------------------- beat-the-mean
class BeatTheMean(Streamed):
    """Beat-the-Mean, Yue & Joachims (ICML 2011), Algorithm 1 online, then exploit: a plain
    transcription (the readings: :mod:`boundcalc.policies.beat_the_mean`)."""

    name = "beat-the-mean"
    reference = "Yue & Joachims (ICML 2011), Algorithm 1 (BTM)"
    hyperparameters = {"horizon": Integer(10**5, low=1), "gamma": Real(1.0, low=0.0, low_open=True)}

    def __init__(self, K: int, *, rng=None, **params):
        super().__init__(K, rng=rng, **params)
        self.delta = 1.0 / (2.0 * self.params["horizon"] * K)
        self.work = list(range(K))  # W_1 = B, kept ascending
        self.comparisons = {}  # (b, b') -> [wins of b, comparisons], b the chosen arm of line 11
        self.stats = {"exploration": 0, "self_duels": 0, "removals": 0}

    def n_of(self, b):
        return sum(v[1] for (x, y), v in self.comparisons.items() if x == b and y in self.work)

    def w_of(self, b):
        return sum(v[0] for (x, y), v in self.comparisons.items() if x == b and y in self.work)

    def p_hat(self, b):
        n = self.n_of(b)
        return self.w_of(b) / n if n else 0.5

    def radius(self, n):
        g = self.params["gamma"]
        return 1.0 if n == 0 else 3.0 * g * g * math.sqrt(math.log(1.0 / self.delta) / n)

    def _select(self):
        if len(self.work) == 1:
            self.stats["self_duels"] += 1
            return (self.work[0], self.work[0])
        ns = [self.n_of(b) for b in self.work]
        tied = [b for b, n in zip(self.work, ns) if n == min(ns)]  # line 11
        b = tied[0] if len(tied) == 1 else tied[self.stream.index(len(tied))]
        others = [x for x in self.work if x != b]  # line 12
        self.stats["exploration"] += 1
        return (b, others[self.stream.index(len(others))])

    def _learn(self, i, j, i_won):
        if i == j:
            return
        v = self.comparisons.setdefault((i, j), [0, 0])  # lines 13-14
        v[0] += int(i_won)
        v[1] += 1
        P = {b: self.p_hat(b) for b in self.work}
        c = self.radius(min(self.n_of(b) for b in self.work))
        if min(P.values()) + c <= max(P.values()) - c:  # line 16
            worst = min(self.work, key=lambda b: (P[b], b))  # line 17 (ties: smallest index)
            self.work.remove(worst)  # lines 18-19: comparisons with it no longer count
            for key in [k for k in self.comparisons if worst in k]:
                del self.comparisons[key]
            self.stats["removals"] += 1


REFERENCE["interleaved-filter"] = InterleavedFilter
REFERENCE["beat-the-mean"] = BeatTheMean


# ----------------------------------------------------------------------------- rcs
class RCS(Streamed):
    """RCS, Zoghi, Whiteson, de Rijke & Munos (WSDM 2014), Algorithm 1: a plain transcription with
    numpy (the readings: :mod:`boundcalc.policies.rcs`)."""

    name = "rcs"
    reference = "Zoghi et al. (WSDM 2014), Algorithm 1 (RCS)"
    hyperparameters = {"alpha": Real(0.501, low=0.5, low_open=True)}

    def __init__(self, K: int, *, rng=None, **params):
        super().__init__(K, rng=rng, **params)
        self.B = np.zeros(K, dtype=int)  # times each arm was the champion
        self.stats = {"self_duels": 0, "no_sampled_winner": 0}

    def _select(self):
        K, W = self.K, self.wins
        theta = np.full((K, K), 0.5)  # the simulated tournament
        for i in range(K):
            for j in range(i + 1, K):
                theta[i, j] = self.stream.beta(W[i, j] + 1.0, W[j, i] + 1.0)
                theta[j, i] = 1.0 - theta[i, j]
        winners = np.flatnonzero((theta >= 0.5).all(axis=1))
        if winners.size:
            c = int(winners[0])
        else:
            c = int(np.argmin(self.B))
            self.stats["no_sampled_winner"] += 1
        self.B[c] += 1
        U, _ = relative_bounds(self.wins, self.draws, self.params["alpha"], self.t)
        col = U[:, c]  # u_cc = 1/2
        ties = np.flatnonzero(col == col.max())
        if ties.size > 1:
            ties = ties[ties != c]
        d = int(ties[0]) if ties.size == 1 else int(ties[self.stream.index(ties.size)])
        if d == c:
            self.stats["self_duels"] += 1
        return (c, d)


REFERENCE["rcs"] = RCS


# ----------------------------------------------------------------------------- sparring
class UCB1:
    """Auer, Cesa-Bianchi & Fischer (2002) UCB1 with exploration constant ``alpha`` (each arm once,
    ascending; then the first maximiser of ``mean + sqrt(alpha ln n / N_k)``)."""

    def __init__(self, K: int, alpha: float):
        self.plays = [0] * K
        self.rewards = [0.0] * K
        self.alpha = alpha

    def arm(self) -> int:
        for k, n in enumerate(self.plays):
            if n == 0:
                return k
        n = sum(self.plays)
        idx = [
            self.rewards[k] / self.plays[k] + math.sqrt(self.alpha * math.log(n) / self.plays[k])
            for k in range(len(self.plays))
        ]
        return idx.index(max(idx))

    def reward(self, k: int, r: float) -> None:
        self.plays[k] += 1
        self.rewards[k] += r


class Sparring(Policy):
    """Sparring, Ailon, Karnin & Joachims (ICML 2014), Algorithm 4, two UCB1 sub-bandits: a plain
    transcription (the readings: :mod:`boundcalc.policies.sparring`)."""

    name = "sparring"
    reference = "Ailon, Karnin & Joachims (ICML 2014), Algorithm 4 (Sparring)"
    hyperparameters = {"alpha": Real(2.0, low=0.0, low_open=True)}
    deterministic = True

    def __init__(self, K: int, *, rng=None, **params):
        super().__init__(K, rng=rng, **params)
        self.left = UCB1(K, self.params["alpha"])
        self.right = UCB1(K, self.params["alpha"])
        self.stats = {"self_duels": 0}

    def _select(self):
        x, y = self.left.arm(), self.right.arm()
        self.stats["self_duels"] += x == y
        return (x, y)

    def _learn(self, i, j, i_won):
        self.left.reward(i, 1.0 if i_won else 0.0)
        self.right.reward(j, 0.0 if i_won else 1.0)


# ----------------------------------------------------------------------------- self-sparring
class SelfSparring(Streamed):
    """Self-Sparring, Sui et al. (UAI 2017), Algorithm 1 with Beta posteriors and m = 2: a plain
    transcription (the readings: :mod:`boundcalc.policies.self_sparring`)."""

    name = "self-sparring"
    reference = "Sui, Zhuang, Burdick & Yue (UAI 2017), Algorithm 1 (Self-Sparring)"
    hyperparameters = {"eta": Real(1.0, low=0.0, low_open=True)}

    def __init__(self, K: int, *, rng=None, **params):
        super().__init__(K, rng=rng, **params)
        self.S = [0.0] * K
        self.F = [0.0] * K
        self.stats = {"self_duels": 0}

    def _select(self):
        x = []
        for _ in range(2):
            theta = [self.stream.beta(self.S[i] + 1.0, self.F[i] + 1.0) for i in range(self.K)]
            x.append(theta.index(max(theta)))
        self.stats["self_duels"] += x[0] == x[1]
        return (x[0], x[1])

    def _learn(self, i, j, i_won):
        eta = self.params["eta"]
        r = {(0, 1): 1.0 if i_won else 0.0, (1, 0): 0.0 if i_won else 1.0}  # r_jk over positions j != k
        arms = (i, j)
        for (a, b), rab in r.items():
            self.S[arms[a]] += eta * rab
            self.F[arms[a]] += eta * (1.0 - rab)


REFERENCE["sparring"] = Sparring
REFERENCE["self-sparring"] = SelfSparring


# ----------------------------------------------------------------------------- winner-stays
class WinnerStays(Streamed):
    """Winner Stays for strong regret (WS-S), Chen & Frazier (ICML 2017): a plain transcription (the
    readings: :mod:`boundcalc.policies.winner_stays`)."""

    name = "winner-stays"
    reference = "Chen & Frazier (ICML 2017), WS-S"
    hyperparameters = {"beta": Real(2.0, low=1.0, low_open=True)}

    def __init__(self, K: int, *, rng=None, **params):
        super().__init__(K, rng=rng, **params)
        self.C = [0] * K
        self.prev = (None, None)
        self.r = 0
        self.exploit_left = 0  # self-duels left in this round
        self.best = 0
        self.stats = {"ws_duels": 0, "self_duels": 0}

    def _choose(self, exclude):
        arms = [k for k in range(self.K) if k != exclude]
        top = max(self.C[k] for k in arms)
        best = [k for k in arms if self.C[k] == top]
        for k in self.prev:  # the previous i, then the previous j, stays
            if k is not None and k in best:
                return k
        return best[0] if len(best) == 1 else best[self.stream.index(len(best))]

    def _select(self):
        if self.exploit_left == 0:
            i = self._choose(None)
            j = self._choose(i)
            self.stats["ws_duels"] += 1
            return (i, j)
        self.stats["self_duels"] += 1
        return (self.best, self.best)

    def _learn(self, i, j, i_won):
        if self.exploit_left:
            self.exploit_left -= 1
            return
        w, lo = (i, j) if i_won else (j, i)
        self.C[w] += 1
        self.C[lo] -= 1
        self.prev = (i, j)
        self.r += 1
        self.exploit_left = math.floor(self.params["beta"] ** self.r)
        self.best = self.C.index(max(self.C))


REFERENCE["winner-stays"] = WinnerStays


# ----------------------------------------------------------------------------- doubler
class Doubler(Streamed):
    """Doubler, Ailon, Karnin & Joachims (ICML 2014), Algorithm 2, UCB1 singleton bandit: a plain
    transcription with a Python list as the multiset (the readings: :mod:`boundcalc.policies.doubler`)."""

    name = "doubler"
    reference = "Ailon, Karnin & Joachims (ICML 2014), Algorithm 2 (Doubler)"
    hyperparameters = {"alpha": Real(2.0, low=0.0, low_open=True)}

    def __init__(self, K: int, *, rng=None, **params):
        super().__init__(K, rng=rng, **params)
        self.L = [self.stream.index(K)]  # line 2: "an arbitrary singleton in X"
        self.epoch = 1
        self.played = []  # the arms S played in this epoch
        self.S = UCB1(K, self.params["alpha"])
        self.stats = {"self_duels": 0, "epochs": 0}

    def _select(self):
        # the multiset sorted by arm: an index into it picks each arm with its multiplicity
        Ls = sorted(self.L)
        x = Ls[self.stream.index(len(Ls))] if len(Ls) > 1 else Ls[0]
        y = self.S.arm()
        self.stats["self_duels"] += x == y
        return (x, y)

    def _learn(self, i, j, i_won):
        self.S.reward(j, 0.0 if i_won else 1.0)
        self.played.append(j)
        if len(self.played) == 2**self.epoch:
            self.L, self.played = self.played, []
            self.S = UCB1(self.K, self.params["alpha"])
            self.epoch += 1
            self.stats["epochs"] += 1


REFERENCE["doubler"] = Doubler


# ----------------------------------------------------------------------------- rmed2fh
class RMED2FH(RMED2):
    """RMED2FH, Komiyama et al. (COLT 2015): RMED2 with forced exploration to ``alpha log log T`` and
    the targets fixed when the main loop starts (the readings: :mod:`boundcalc.policies.rmed2fh`)."""

    name = "rmed2fh"
    reference = "Komiyama, Honda, Kashima & Nakagawa (COLT 2015), RMED2FH"
    hyperparameters = {**RMED2.hyperparameters, "horizon": Integer(10**5, low=1)}

    def __init__(self, K: int, *, rng=None, **params):
        super().__init__(K, rng=rng, **params)
        self.fixed = None  # arm -> b(arm), fixed at the first main-loop round

    def _forced_pair(self):
        T = self.params["horizon"]
        if T < 3:
            return None
        thr = self.params["alpha"] * math.log(math.log(T))
        for i in range(self.K):
            for j in range(i + 1, self.K):
                if self.draws[i, j] < thr:
                    return (i, j)
        return None

    def _select(self):
        pair = self._pre_loop_pair()
        if pair is not None:
            return pair
        self._in_loop = True
        istar, _ = self.best_arm()
        if self.fixed is None:
            self.fixed = {a: self._target(istar, a) for a in range(self.K)}
        l = self._LC[self._pos]
        b = self.fixed[l]
        W, N = self.wins, self.draws
        m = None
        if b >= 0:
            if istar != l and 2 * W[l, istar] <= N[l, istar] and N[l, istar] * math.log(math.log(self.t)) <= N[l, b]:
                m = istar
                self.stats["to_winner"] += 1
            elif 2 * W[l, b] <= N[l, b]:
                m = b
                self.stats["to_target"] += 1
        if m is None:
            m = self._rmed1_opponent(l, istar)
        if m == l:
            self.stats["self_duels"] += 1
        return (l, m)


REFERENCE["rmed2fh"] = RMED2FH


# ----------------------------------------------------------------------------- merge-rucb
class MergeRUCB(Streamed):
    """MergeRUCB, Zoghi, Whiteson & de Rijke (WSDM 2015), Algorithm 1: a plain transcription with
    Python lists of batches (the readings: :mod:`boundcalc.policies.merge_rucb`)."""

    name = "merge-rucb"
    reference = "Zoghi, Whiteson & de Rijke (WSDM 2015), Algorithm 1 (MergeRUCB)"
    hyperparameters = {
        "alpha": Real(1.01, low=0.5, low_open=True),
        "delta": Real(0.01, low=0.0, high=1.0),
        "batch_size": Integer(4, low=2),
    }

    def __init__(self, K: int, *, rng=None, **params):
        super().__init__(K, rng=rng, **params)
        a, d = self.params["alpha"], self.params["delta"]
        self.C = math.ceil(((4 * a - 1) * K**2 / ((2 * a - 1) * d)) ** (1 / (2 * a - 1)))
        self.P = self.params["batch_size"]
        arms = list(range(K))
        self._shuffle(arms)
        self.batches = [arms[b : b + self.P] for b in range(0, K, self.P)]
        self.stage = 1
        self.stats = {"self_duels": 0, "pruned": 0, "merges": 0}

    def _shuffle(self, xs):
        for i in range(len(xs) - 1, 0, -1):
            j = self.stream.index(i + 1)
            xs[i], xs[j] = xs[j], xs[i]

    def _merge(self):
        old = list(self.batches)
        self._shuffle(old)
        old.sort(key=len)  # stable
        new, i, j = [], 0, len(old) - 1
        while i <= j:
            if i == j:
                new.append(old[i])
                break
            if len(old[i]) + len(old[j]) > 1.5 * self.P:
                new.append(old[j])
                j -= 1
            else:
                new.append(old[i] + old[j])
                i, j = i + 1, j - 1
        self.batches = new
        self.stats["merges"] += 1

    def _u(self, i, j, tau):
        n = self.draws[i, j] + 2
        return (self.wins[i, j] + 1) / n + math.sqrt(self.params["alpha"] * math.log(tau) / n)

    def _select(self):
        if len(self.batches) > 1 and sum(map(len, self.batches)) <= self.K / 2**self.stage + 1:
            self._merge()
            if min(map(len, self.batches)) <= 0.5 * self.P:
                self._merge()
            self.stage += 1
        tau = self.C + self.t
        B = self.batches[tau % len(self.batches)]
        if len(B) == 1:
            self.stats["self_duels"] += 1
            return (B[0], B[0])
        while len(B) > 1:
            losers = [x for x in range(len(B)) for y in range(len(B)) if x != y and self._u(B[x], B[y], tau) < 0.5]
            if not losers:
                break
            B.pop(losers[self.stream.index(len(losers))])
            self.stats["pruned"] += 1
        ci = self.stream.index(len(B))
        c = B[ci]
        if len(B) == 1:
            self.stats["self_duels"] += 1
            return (c, c)
        col = [-1.0 if x == ci else self._u(B[x], c, tau) for x in range(len(B))]
        ties = [x for x in range(len(B)) if col[x] == max(col)]
        d = ties[0] if len(ties) == 1 else ties[self.stream.index(len(ties))]
        return (c, B[d])


REFERENCE["merge-rucb"] = MergeRUCB


# ----------------------------------------------------------------------------- merge-dts
class MergeDTS(MergeRUCB):
    """MergeDTS, Li, Markov, de Rijke & Zoghi (TOIS 2020): a plain transcription with Python lists of
    batches, MergeRUCB's batches, merges and pruning (the readings: :mod:`boundcalc.policies.merge_dts`)."""

    name = "merge-dts"
    reference = "Li, Markov, de Rijke & Zoghi (TOIS 2020), MergeDTS"

    def __init__(self, K: int, *, rng=None, **params):
        super().__init__(K, rng=rng, **params)
        self.stats["single_merges"] = 0

    def _single(self, b):
        """A one-arm batch among others joins the next one, which takes its place."""
        if len(self.batches[b]) != 1 or len(self.batches) < 2:
            return b
        o = (b + 1) % len(self.batches)
        merged = self.batches[o] + self.batches[b]
        self.stats["single_merges"] += 1
        if o == 0:
            self.batches[0] = merged
            del self.batches[b]
            return 0
        self.batches[b] = merged
        del self.batches[o]
        return b

    def _prune(self, b, tau):
        B = self.batches[b]
        if len(B) < 2:
            return False
        losers = [x for x in range(len(B)) for y in range(len(B)) if x != y and self._u(B[x], B[y], tau) < 0.5]
        if not losers:
            return False
        B.pop(losers[self.stream.index(len(losers))])
        self.stats["pruned"] += 1
        return True

    def _select(self):
        if len(self.batches) > 1 and sum(map(len, self.batches)) <= self.K / 2**self.stage + 1:
            self._merge()
            if min(map(len, self.batches)) <= 0.5 * self.P:
                self._merge()
            self.stage += 1
        tau = self.C + self.t
        b = tau % len(self.batches)
        if len(self.batches) == 1 and len(self.batches[0]) == 1:
            self.stats["self_duels"] += 1
            return (self.batches[0][0], self.batches[0][0])
        b = self._single(b)
        while self._prune(b, tau):
            b = self._single(b)
        B, W = self.batches[b], self.wins
        if len(B) == 1:
            self.stats["self_duels"] += 1
            return (B[0], B[0])
        n = len(B)
        score = [
            sum(self.stream.beta(W[B[x], B[y]] + 1.0, W[B[y], B[x]] + 1.0) > 0.5 for y in range(n) if y != x)
            for x in range(n)
        ]
        ties = [x for x in range(n) if score[x] == max(score)]
        ci = ties[0] if len(ties) == 1 else ties[self.stream.index(len(ties))]
        c = B[ci]
        phi = [1.0 if x == ci else self.stream.beta(W[B[x], c] + 1.0, W[c, B[x]] + 1.0) for x in range(n)]
        ties = [x for x in range(n) if phi[x] == min(phi)]
        d = ties[0] if len(ties) == 1 else ties[self.stream.index(len(ties))]
        return (c, B[d])


REFERENCE["merge-dts"] = MergeDTS


# ----------------------------------------------------------------------------- versatile-db
class TsallisINF:
    """Zimmert & Seldin's Tsallis-INF (1/2-Tsallis entropy, reduced-variance estimates) as one side of
    Versatile-DB: the weights by Newton's method from ``min L - 2 / eta``, the draw by one uniform."""

    def __init__(self, K: int):
        self.L = [0.0] * K
        self.w = [0.0] * K

    def weights(self, eta: float) -> None:
        x = min(self.L) - 2.0 / eta
        for _ in range(100):
            ds = [eta * (lk - x) for lk in self.L]
            self.w = [4.0 / (d * d) for d in ds]
            total = 0.0
            d = 0.0
            for v in self.w:
                total += v
                d += v * math.sqrt(v)
            if total - 1.0 <= 1e-12:
                break
            x -= (total - 1.0) / (eta * d)

    def draw(self, u: float) -> int:
        target = u * sum(self.w)
        c = 0.0
        for k, v in enumerate(self.w):
            c += v
            if c > target:
                return k
        return len(self.w) - 1

    def learn(self, arm: int, loss: float, eta: float) -> None:
        for k in range(len(self.L)):
            b = 0.5 if self.w[k] >= eta * eta else 0.0
            self.L[k] += ((loss - b) / self.w[k] + b) if k == arm else b


class VersatileDB(Streamed):
    """Versatile-DB, Saha & Gaillard (ICML 2022), Algorithm 3 with two Tsallis-INF sub-bandits: a plain
    transcription (the readings: :mod:`boundcalc.policies.versatile_db`)."""

    name = "versatile-db"
    reference = "Saha & Gaillard (ICML 2022), Algorithm 3 (Versatile-DB)"
    hyperparameters = {"c": Real(4.0, low=0.0, low_open=True)}

    def __init__(self, K: int, *, seed: int = 0, rng=None, **params):
        super().__init__(K, seed=seed, rng=rng, **params)
        self.sides = (TsallisINF(K), TsallisINF(K))
        self.round = 1
        self.stats = {"self_duels": 0}

    def _eta(self) -> float:
        return self.params["c"] / math.sqrt(self.round)

    def _select(self):
        arms = []
        for side in self.sides:
            side.weights(self._eta())
            arms.append(side.draw(self.stream.uniform()))
        self.stats["self_duels"] += arms[0] == arms[1]
        return (arms[0], arms[1])

    def _learn(self, i, j, i_won):
        o = 1.0 if i_won else 0.0
        self.sides[0].learn(i, 1.0 - o, self._eta())
        self.sides[1].learn(j, o, self._eta())
        self.round += 1


REFERENCE["versatile-db"] = VersatileDB
