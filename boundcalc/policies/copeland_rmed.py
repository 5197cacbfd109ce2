"""Paper 000's Algorithm 1 (CW-RMED / ECW-RMED, Komiyama, Honda & Nakagawa, ICML 2016, Sec. 4).

The algorithm's skeleton is shared by both variants and written once, compiled: the candidate lists
``L_C`` (this pass), ``L_R`` (still to be drawn in this pass), ``L_N`` (next pass), the forced
exploration of line 4, the empirical structure kept up to date duel by duel, and the list step of
lines 11-15 (:func:`skeleton_select`, :func:`skeleton_learn`, :func:`skeleton_refresh`,
:func:`skeleton_finish`), and check (3) of line 8 (:func:`check3`), which 000 prints once for both
variants: the observed counts against ``R_{i*}(mu_hat)`` of eq. (2), by the LP core's sorting oracle.
A variant supplies line 11's target allocation: ECW-RMED (:class:`ECWRMED`, :func:`~boundcalc.kernels.copeland_rmed.ecw_target`)
Theorem 5's closed form over ``R^E`` (eqs. (4)-(5)); CW-RMED (:mod:`boundcalc.policies.cw_rmed`) the
exact LP of eq. (2).

Readings of the text taken here (000 Algorithm 1, Sec. 4)
    * Line 4, forced exploration: at the start of every pass (each iteration of the ``while``
      loop) the pairs ``(i, j)``, ``i > j``, with ``N_ij < alpha sqrt(log t)`` or
      ``|mu_hat_ij - 1/2| < beta / log log t`` are listed once, with ``t`` the round about to be
      played, and each is drawn once, in lexicographic order, before the pass's loop over
      ``L_C``; ``t`` advances with each draw.  ``log log t <= 0`` (``t <= 2``) disables the
      beta test; ``beta = 0`` disables it always.
    * ``L_C`` is walked in lexicographic order of ``(i, j)``, ``i >= j`` (the "arbitrarily fixed
      order" of line 5); the first pass is ``P_{i != j}``.
    * Check (3) is line 8's, the same for both variants: ``N / log t`` in ``R_{i*}(mu_hat)`` of
      eq. (2), as printed (and as the D-TS authors' C++ ECW-RMED checks it); only line 11 differs
      ("(CW)" / "(ECW)").  ECW-RMED does not test the smaller ``R^E`` (eqs. (4)-(5)) there: ``R^E``
      is the set line 11's closed form optimises over, and Sec. 4.2's "the difference ... is the
      amount of exploration" is line 11's target.  Since ``R^E c R``, ECW's target passes check (3)
      once reached, as Theorem 4 needs.  (Testing ``R^E`` here explores more:
      ``tests/test_policies.py`` holds a state where the two checks part.)
    * Check (3) and line 11 use the counts *including* the draw just made and ``t`` = the round
      just played.  In normalised form (``e_p = q_p d(mu_p)``, 000 eq. (2)), check (3) asks, for every
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
      has ``d = 0`` and lies in no row.  ``d(0) = d(1) = log 2``.
    * A self-duel ``(i, i)`` carries no information: counts are unchanged, ``t`` advances.
    * Line 11's allocation depends on ``mu_hat`` alone: after a self-duel only ``log t`` moved, so
      the last allocation is reused and compared with the new ``N / log t``.

The empirical state (fields of :class:`RMEDState`, the one layout of both variants)
    ``beats`` (strict, ties in neither direction), ``L`` (losses), ``d`` (``d(mu_hat)``, 0 on
    ties), ``info = N d``, ``C = r / d`` (000's regret on the empirical losses; ``inf`` on ties and
    the diagonal), ``Q`` (line 11's allocation, draws per ``log t``).  A duel that keeps the
    structure changes one pair's ``d``, ``N d`` and cost (:func:`skeleton_learn`); a duel that flips
    it marks the structure stale and the next decision recomputes everything
    (:func:`skeleton_refresh`).  ``mu_hat``, ``d`` and the costs are computed with the arithmetic of
    :func:`boundcalc.lp.structure.empirical_structure` and :func:`boundcalc.lp.ecw._cost_matrix`,
    bit for bit.

Check (3) (:func:`check3`)
    runs, for each empirical Copeland winner ``i1`` in index order, the LP core's sorting oracle
    (:func:`boundcalc.kernels.lp.copeland_sums`) on ``E = (N / log t) d`` over tables built once
    per empirical structure (:func:`build_tables`, equal to the LP core's); the counts pass when
    ``1 - min_row sum <= check_tol``.  Tables that outgrow their arrays are enlarged by Python
    (:meth:`CopelandRMED._grow_tables`).

ECW-RMED's caches
    A duel that keeps the empirical structure changes only the eq. (5) pools of the pair's loser
    and the eq. (4) row of its winner; those parts of Theorem 5 are recomputed, the others reused.

``stats``: ``forced`` (line 4 draws), ``checks`` (check (3) evaluations), ``targets`` (times line
11 is reached), ``solves`` (line 11 computed anew: the counts changed since the last one),
``self_duels``, ``structures`` (empirical structures met by check (3)), ``check_bound`` (check (3)
decided by its bounds, no oracle).
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any, ClassVar

import numpy as np

from ..kernels import compile_notice
from ..kernels.copeland_rmed import (
    DONE,
    IN_LOOP,
    ISTAR,
    NEED_TABLES,
    NLC,
    PASS_START,
    PENDING,
    POS,
    RESUME,
    S_TARGETS,
    WINNER_TIE_RTOL,
    ECWState,
    RMEDState,
    build_tables,
    check3,
    skeleton_finish,
    skeleton_learn,
    skeleton_refresh,
    skeleton_select,
    skeleton_state,
)
from ..kernels.cw_rmed import copeland_run, copeland_update
from .base import Real
from .kernel import T_, CompiledPolicy, bind, bundle
from .registry import register_policy

#: A decision of lines 7-13 on given counts (:meth:`CopelandRMED.decide`): the winner check (3)
#: passed for (None when it failed), line 11's ``i*``, allocation ``Q`` and per-winner constants
#: (None when check (3) passed), ``L_NC`` (lexicographic, then ``(i*, i*)``), and the policy's
#: counters for this one decision (e.g. CW-RMED's ``warm_answers``: line 11 without HiGHS).
Decision = namedtuple("Decision", ["check", "istar", "Q", "values", "next", "stats"])

__all__ = [
    "CopelandRMED",
    "ECWRMED",
    "ECWState",
    "RMEDState",
    "Decision",
    "skeleton_state",
    "skeleton_select",
    "skeleton_learn",
    "skeleton_refresh",
    "skeleton_finish",
    "check3",
    "build_tables",
    "copeland_update",
    "copeland_run",
    "WINNER_TIE_RTOL",
]


# ----------------------------------------------------------------------------- the classes
class CopelandRMED(CompiledPolicy):
    """The skeleton of 000's Algorithm 1 (see the module text); ECW-RMED and CW-RMED derive from it.

    Hyperparameters: ``alpha > 0`` (forced exploration ``N_ij < alpha sqrt(log t)``) and
    ``beta >= 0`` (``|mu_hat_ij - 1/2| < beta / log log t``); defaults 3 and 0.01, the values of
    000's experiments; ``check_tol`` (check (3) passes when the largest row violation of
    ``N / log t`` is at most this; default 1e-12, i.e. exact up to rounding).

    A compiled step that needs Python (larger tables; CW-RMED's LP) returns a request; the class
    serves it (:meth:`_serve`) and resumes the step (the kernel called with ``i = RESUME``).  The
    protocol's step and the whole run are one kernel
    (:func:`~boundcalc.kernels.cw_rmed.copeland_run`; a step passes ``env = None``).
    """

    #: (select, learning step): the learning step is the run kernel's, ``(s, None, i, j, won)``.
    _calls: tuple[Any, Any]
    hyperparameters = {
        "alpha": Real(3.0, low=0.0, low_open=True, doc="forced exploration N_ij < alpha sqrt(log t)"),
        "beta": Real(0.01, low=0.0, doc="forced exploration |mu_hat - 1/2| < beta / log log t; 0 disables"),
        "check_tol": Real(1e-12, low=0.0, high=1.0, doc="check (3) passes when the largest row violation is <= this"),
    }
    deterministic = True
    stat_names: ClassVar[tuple[str, ...]] = (
        "forced",
        "checks",
        "targets",
        "solves",
        "self_duels",
        "structures",
        "check_bound",
    )

    def _attach(self, arrays: Any) -> None:
        # CompiledPolicy's, with the learning step's entry point bound at its first use: a simulation
        # runs the whole-run kernel alone, and each of the two holds the whole decision (numba would
        # compile it once more for an update bound and never called)
        compile_notice(["policy", type(self).kernels[2].py_func.__module__.rsplit(".", 1)[1]], f"policy {self.name!r}")
        self._arrays = arrays
        self._s = bundle(arrays)
        self._calls = (_entry(type(self), 0, self._s), self._learn_first)

    def _learn_first(self, s: Any, env: None, i: int, j: int, won: bool) -> Any:
        update = _entry(type(self), 1, self._s)  # the learning step alone (select is bound above)
        self._calls = (self._calls[0], update)
        return update(s, env, i, j, won)

    def _bind(self) -> tuple[Any, Any]:
        """The select and learning-step entry points (CompiledPolicy's, for this class's kernels)."""
        self._calls = (self._calls[0], _entry(type(self), 1, self._s))
        return self._calls

    # -- stepping with Python's help ----------------------------------------------------------
    def _learn_compiled(self, i: int, j: int, won: bool) -> None:
        status = self._calls[1](self._s, None, i, j, won)
        while status != DONE:
            self._serve(status)
            status = self._calls[1](self._s, None, RESUME, RESUME, False)

    def run_environment(self, env: Any) -> None:
        run = type(self).kernels[2]
        status = run(self._s, env, RESUME, RESUME, False)
        while status != DONE:
            self._serve(status)
            status = run(self._s, env, RESUME, RESUME, False)

    def _decide(self) -> None:
        self._learn_compiled(RESUME, RESUME, False)

    def _serve(self, status: int) -> None:
        """Provide what the compiled decision asked for."""
        if status == NEED_TABLES:
            self._grow_tables()
        else:  # pragma: no cover - defensive
            raise RuntimeError(f"{self.name}: unknown request {status} from the compiled step")

    def _grow_tables(self) -> None:
        """Flat table arrays large enough for the current structure (twice that, at most every
        level of every arm), for :func:`build_tables` to fill."""
        a = self._arrays
        K = self.K
        L = np.sort(a.L)
        nc = 2 * (int(L[1]) - max(0, int(L[0]) - 1) + 1)
        nwin = int(a.is_win.sum())
        size = min(2 * nwin * K * nc, 2 * K**3)
        csize = min(2 * nwin * nc, 2 * K * K)
        self._replace(
            tab_gI=np.zeros(size, dtype=np.int64),
            tab_gS=np.zeros(size, dtype=np.int64),
            tab_ok=np.zeros(size, dtype=np.bool_),
            tab_caseB=np.zeros(csize, dtype=np.bool_),
        )

    def _replace(self, **arrays: np.ndarray) -> None:
        """New arrays for some fields (sizes changed): the bundle is rebuilt over them."""
        self._attach(self._arrays._replace(**arrays))

    @property
    def candidates(self) -> list[tuple[int, int]]:
        """``L_C``, the current pass's list (a copy)."""
        a = self._arrays
        return [divmod(int(c), self.K) for c in a.LC[: a.reg[NLC]]]

    def decide(self, t: int, wins: np.ndarray, draws: np.ndarray) -> Decision:
        """Lines 7-13 of Algorithm 1 on the counts ``wins`` (``draws = wins + wins.T``) after round
        ``t``, as this policy decides them (its own state is left alone): check (3), line 11 and
        ``L_NC``.  For tests and inspection."""
        W = np.array(wins, dtype=np.int64)
        N = np.array(draws, dtype=np.int64)
        K = self.K
        if W.shape != (K, K) or N.shape != (K, K) or not np.array_equal(N, W + W.T) or np.any(np.diag(N)):
            raise ValueError(f"wins must be a {K}x{K} count matrix with draws = wins + wins.T")
        arrays = self.initial_state()
        arrays.W[:] = W
        arrays.N[:] = N
        reg = arrays.reg
        reg[T_], reg[NLC], reg[POS], reg[PASS_START], reg[IN_LOOP] = int(t), 1, 0, 0, 1
        reg[PENDING] = 1  # the decision after a draw of the loop, made by the next step
        arrays.LC[0] = 1 * K + 0  # a stand-in for the drawn pair (its L_R bit is cleared)
        arrays.inLR[:] = False
        saved = (self._arrays, self._s, self._calls)
        try:
            self._attach(arrays)
            self._decide()
        finally:
            self._arrays, self._s, self._calls = saved
        nxt = [divmod(int(c), K) for c in arrays.LC[: arrays.reg[NLC]]]
        nxt = [p for p in nxt if p[0] != p[1]] + [p for p in nxt if p[0] == p[1]]
        stats = dict(zip(self.stat_names, (int(x) for x in arrays.stats)))
        if arrays.stats[S_TARGETS] == 0:
            return Decision(nxt[0][0], None, None, None, nxt, stats)
        values = {a: float(arrays.wval[a]) for a in np.flatnonzero(arrays.is_win).tolist()}
        return Decision(None, int(arrays.reg[ISTAR]), arrays.Q.copy(), values, nxt, stats)


@register_policy
class ECWRMED(CopelandRMED):
    """ECW-RMED: 000's Algorithm 1 with line 11 over ``R^E`` (eqs. (4)-(5)), Theorem 5's closed form.

    Check (3) (line 8, the same as CW-RMED's) tests the observed counts against ``R_{i1}(mu_hat)``
    of eq. (2) for each empirical Copeland winner in index order (:func:`check3`); when none passes,
    line 11 takes the winner with the smallest ``C^E*_{i1}(mu_hat)`` and its closed-form allocation,
    cost ties broken towards the smaller arm index (:func:`ecw_target`).  Defaults ``alpha = 3``,
    ``beta = 0.01`` (000's experiments); ``beta = 0`` allowed; ``check_tol`` as CW-RMED's.  The readings of the loose parts of the text are listed
    in :mod:`boundcalc.policies.copeland_rmed`.  Regret is at most ``C^E* log T + o(log T)``
    (Theorem 4).

    Examples
    --------
    >>> p = ECWRMED(3)
    >>> [p.select_pair() for _ in range(1)]
    [(1, 0)]
    """

    name = "ecw-rmed"
    plot_style = ("tab:blue", "-", "o")
    reference = "Komiyama, Honda & Nakagawa (ICML 2016), Algorithm 1 (ECW), Theorem 5"
    #: 2: check (3) against line 8's ``R``, as printed.
    revision = 2
    State = ECWState
    kernels = (skeleton_select, copeland_update, copeland_run)

    def initial_state(self) -> ECWState:
        K = self.K
        base = skeleton_state(K, self.params, len(self.stat_names))
        base.update(  # ECW-RMED's fields (the one layout: CW-RMED's stay empty)
            keys=np.empty(K),
            tgt_part=np.zeros((K, K)),
            tgt_h=np.zeros((K, K), dtype=np.int64),
            tgt_level=np.zeros((K, K)),
            tgt_sel=np.zeros((K, K, K), dtype=np.int64),
            tgt_I=np.zeros(K),
            tgt_dirty=np.ones(K, dtype=np.bool_),
            tgtI_dirty=np.ones(K, dtype=np.bool_),
        )
        return ECWState(**base)


_ENTRIES: dict[tuple[Any, int, Any], Any] = {}


def _entry(cls: type[CopelandRMED], k: int, s: Any) -> Any:
    """The entry point of ``cls.kernels[k]`` (0: select, 1: update, the run kernel with a duel given and
    ``env = None``) for the state type of ``s`` (cached)."""
    key = (cls, k, s._numba_type_)
    got = _ENTRIES.get(key)
    if got is None:
        got = bind(cls.kernels[k], s) if k == 0 else bind(cls.kernels[k], s, None, 0, 0, True)
        _ENTRIES[key] = got
    return got
