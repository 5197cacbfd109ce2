"""Paper 000's Algorithm 1 (CW-RMED / ECW-RMED, Komiyama, Honda & Nakagawa, ICML 2016, Sec. 4).

The skeleton both variants share is compiled once (:mod:`boundcalc.kernels.copeland_rmed`, ``cr``
below): the lists ``L_C`` (this pass), ``L_R`` (still to draw in it) and ``L_N`` (next pass), line
4's forced exploration, the empirical structure kept up to date duel by duel, lines 11-15's list
step (:func:`~cr.skeleton_select`, :func:`~cr.skeleton_learn`, :func:`~cr.skeleton_refresh`,
:func:`~cr.skeleton_finish`) and line 8's check (3) (:func:`~cr.check3`).  A variant supplies line
11's target: ECW-RMED (:class:`ECWRMED`, :func:`~cr.ecw_target`) Theorem 5's closed form over ``R^E`` (eqs.
(4)-(5)), CW-RMED (:mod:`boundcalc.policies.cw_rmed`) the exact LP of eq. (2).

Readings of the text (000 Algorithm 1, Sec. 4)
    * Line 4: when a pass starts, the pairs ``(i, j)``, ``i > j``, with ``N_ij < alpha sqrt(log t)``
      or ``|mu_hat_ij - 1/2| < beta / log log t`` (``t`` the round about to be played) are listed
      and each is drawn once, in lexicographic order, before the loop over ``L_C`` (``t`` advancing
      with each draw).  The beta test is off when ``log log t <= 0`` or ``beta = 0``.
    * ``L_C`` is walked in lexicographic order of ``(i, j)``, ``i >= j`` (line 5's "arbitrarily
      fixed order"); the first pass is ``P_{i != j}``.
    * Check (3) is line 8's for both variants: ``N / log t`` in ``R_{i*}(mu_hat)`` of eq. (2), as
      printed (and as the D-TS authors' C++ ECW-RMED checks it); only line 11 differs.  ``R^E`` is
      what ECW-RMED's line 11 optimises over; since ``R^E c R`` its target passes check (3) once
      reached (Theorem 4).  Testing ``R^E`` there explores more (``tests/test_policies.py`` has a
      state where they part).
    * Check (3) and line 11 use the counts including the draw just made and ``t`` the round just
      played; in normalised form every covering row asks ``sum_p N_p d(mu_hat_p) >= log t`` (the
      box ``q <= 1/d`` does not apply to counts).  At ``t = 1`` the check holds trivially and the
      first empirical Copeland winner is exploited.
    * Line 11's ``i*`` is the argmin of the per-winner constants; values within a relative
      ``1e-12`` of the minimum are tied and go to the smaller arm index.  ``(i, j)``, ``i > j``,
      joins ``L_NC`` when ``q*_ij > N_ij / log t``; line 12 adds ``(i*, i*)``.
    * Line 15 ranges over ``P_all`` (``i >= j``, Sec. 2), so ``(i*, i*)`` reaches the next pass; a
      pair still in ``L_R`` is not added, and ``L_N`` holds no duplicates.
    * An undrawn or tied pair has ``mu_hat = 1/2``: it is in neither ``S`` nor ``I``, has ``d = 0``
      and lies in no row.  ``d(0) = d(1) = log 2``.
    * A self-duel ``(i, i)`` changes no count (``t`` advances), so line 11's allocation, which
      depends on ``mu_hat`` alone, is reused.

The empirical state (:class:`~cr.RMEDState`)
    ``beats`` (strict), ``L``, ``d`` (0 on ties), ``info = N d``, ``C = r / d`` (000's regret on
    the empirical losses, ``inf`` on ties and the diagonal), ``Q`` (line 11's allocation, draws per
    ``log t``), with the arithmetic of :func:`boundcalc.lp.structure.empirical_structure` and
    :func:`boundcalc.lp.ecw._cost_matrix`, bit for bit.  A duel that keeps the structure changes
    one pair (:func:`~cr.skeleton_learn`), and for ECW-RMED only its loser's eq. (5) pools and its
    winner's eq. (4) row of Theorem 5; one that flips it makes the next decision recompute
    everything (:func:`~cr.skeleton_refresh`).  Check (3) runs the LP core's sorting oracle
    (:func:`boundcalc.kernels.lp.copeland_sums`) on ``E = (N / log t) d`` over tables built once per
    structure (:func:`~cr.build_tables`; Python enlarges them: :meth:`CopelandRMED._grow_tables`).

``stats``: ``forced`` (line 4 draws), ``checks`` (check (3) evaluations), ``targets`` (line 11
reached), ``solves`` (line 11 computed anew), ``self_duels``, ``structures`` (empirical structures
met by check (3)), ``check_bound`` (check (3) decided by its bounds, no oracle).
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any, ClassVar

import numpy as np

from ..kernels import compile_notice
from ..kernels import copeland_rmed as cr
from ..kernels.cw_rmed import copeland_run
from .base import Real
from .kernel import T_, CompiledPolicy, bind, bundle
from .registry import register_policy

#: A decision of lines 7-13 (:meth:`CopelandRMED.decide`): the winner check (3) passed for, or line
#: 11's ``i*``, allocation ``Q`` and per-winner constants (None for the part not taken), ``L_NC``
#: (lexicographic, then ``(i*, i*)``) and the policy's counters for this decision.
Decision = namedtuple("Decision", ["check", "istar", "Q", "values", "next", "stats"])

__all__ = ["CopelandRMED", "ECWRMED", "Decision"]


# ----------------------------------------------------------------------------- the classes
class CopelandRMED(CompiledPolicy):
    """The skeleton of 000's Algorithm 1 (see the module text); ECW-RMED and CW-RMED derive from it.

    Hyperparameters ``alpha`` and ``beta`` (line 4; defaults 3 and 0.01, 000's experiments) and
    ``check_tol`` (check (3)'s tolerance on row violations; 1e-12, exact up to rounding).  A
    compiled step that needs Python (larger tables, CW-RMED's LP) returns a request, which
    :meth:`_serve` serves before the step resumes (the kernel called with ``i = RESUME``).
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
        # the learning step is bound at its first use: a simulation runs the whole-run kernel alone,
        # and numba would compile the whole decision once more for an update never called
        compile_notice(["policy", type(self).kernels[2].py_func.__module__.rsplit(".", 1)[1]], f"policy {self.name!r}")
        self._arrays = arrays
        self._s = bundle(arrays)
        self._calls = (_entry(type(self), 0, self._s), self._learn_first)

    def _learn_first(self, s: Any, env: None, i: int, j: int, won: bool) -> Any:
        return self._bind()[1](s, env, i, j, won)

    def _bind(self) -> tuple[Any, Any]:
        """The select and learning-step entry points (CompiledPolicy's, for this class's kernels)."""
        self._calls = (self._calls[0], _entry(type(self), 1, self._s))
        return self._calls

    def _learn_compiled(self, i: int, j: int, won: bool) -> None:
        status = self._calls[1](self._s, None, i, j, won)
        while status != cr.DONE:
            self._serve(status)
            status = self._calls[1](self._s, None, cr.RESUME, cr.RESUME, False)

    def run_environment(self, env: Any) -> None:
        run = type(self).kernels[2]
        status = run(self._s, env, cr.RESUME, cr.RESUME, False)
        while status != cr.DONE:
            self._serve(status)
            status = run(self._s, env, cr.RESUME, cr.RESUME, False)

    def _serve(self, status: int) -> None:
        """Provide what the compiled decision asked for."""
        if status == cr.NEED_TABLES:
            self._grow_tables()
        else:  # pragma: no cover - defensive
            raise RuntimeError(f"{self.name}: unknown request {status} from the compiled step")

    def _grow_tables(self) -> None:
        """Flat table arrays for :func:`~cr.build_tables`: twice the current structure's need, at most all levels."""
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
        """New arrays for some fields; the bundle is rebuilt over them."""
        self._attach(self._arrays._replace(**arrays))

    def decide(self, t: int, wins: np.ndarray, draws: np.ndarray) -> Decision:
        """Lines 7-13 on the counts ``wins`` (``draws = wins + wins.T``) after round ``t``, this
        policy's state left alone (for tests and inspection)."""
        W = np.array(wins, dtype=np.int64)
        N = np.array(draws, dtype=np.int64)
        K = self.K
        if W.shape != (K, K) or N.shape != (K, K) or not np.array_equal(N, W + W.T) or np.any(np.diag(N)):
            raise ValueError(f"wins must be a {K}x{K} count matrix with draws = wins + wins.T")
        arrays = self.initial_state()
        arrays.W[:] = W
        arrays.N[:] = N
        reg = arrays.reg
        reg[T_], reg[cr.NLC], reg[cr.POS], reg[cr.PASS_START], reg[cr.IN_LOOP] = int(t), 1, 0, 0, 1
        reg[cr.PENDING] = 1  # the decision after a draw of the loop, made by the next step
        arrays.LC[0] = 1 * K + 0  # a stand-in for the drawn pair (its L_R bit is cleared)
        arrays.inLR[:] = False
        saved = (self._arrays, self._s, self._calls)
        try:
            self._attach(arrays)
            self._learn_compiled(cr.RESUME, cr.RESUME, False)
        finally:
            self._arrays, self._s, self._calls = saved
        nxt = [divmod(int(c), K) for c in arrays.LC[: arrays.reg[cr.NLC]]]
        nxt = [p for p in nxt if p[0] != p[1]] + [p for p in nxt if p[0] == p[1]]
        stats = dict(zip(self.stat_names, (int(x) for x in arrays.stats)))
        if arrays.stats[cr.S_TARGETS] == 0:
            return Decision(nxt[0][0], None, None, None, nxt, stats)
        values = {a: float(arrays.wval[a]) for a in np.flatnonzero(arrays.is_win).tolist()}
        return Decision(None, int(arrays.reg[cr.ISTAR]), arrays.Q.copy(), values, nxt, stats)


@register_policy
class ECWRMED(CopelandRMED):
    """ECW-RMED: 000's Algorithm 1 with line 11 over ``R^E`` (eqs. (4)-(5)), Theorem 5's closed form.

    Check (3) tests the counts against ``R_{i1}(mu_hat)`` of eq. (2) per empirical winner
    (:func:`~cr.check3`); when none passes, line 11 takes the winner of smallest ``C^E*_{i1}(mu_hat)``
    and its allocation (:func:`~cr.ecw_target`).  Regret is at most ``C^E* log T + o(log T)`` (Theorem 4).

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
    State = cr.RMEDState
    kernels = (cr.skeleton_select, copeland_run, copeland_run)  # the run kernel learns too

    def initial_state(self) -> cr.RMEDState:
        K = self.K
        base = cr.skeleton_state(K, self.params, len(self.stat_names))
        base.update(  # ECW-RMED's fields (CW-RMED's stay empty)
            keys=np.empty(K),
            tgt_part=np.zeros((K, K)),
            tgt_h=np.zeros((K, K), dtype=np.int64),
            tgt_level=np.zeros((K, K)),
            tgt_sel=np.zeros((K, K, K), dtype=np.int64),
            tgt_I=np.zeros(K),
            tgt_dirty=np.ones(K, dtype=np.bool_),
            tgtI_dirty=np.ones(K, dtype=np.bool_),
        )
        return cr.RMEDState(**base)


_ENTRIES: dict[tuple[Any, int, Any], Any] = {}


def _entry(cls: type[CopelandRMED], k: int, s: Any) -> Any:
    """The cached entry point of ``cls.kernels[k]`` (0: select, 1: update) for the state type of ``s``."""
    key = (cls, k, s._numba_type_)
    if key not in _ENTRIES:
        _ENTRIES[key] = bind(cls.kernels[k], s) if k == 0 else bind(cls.kernels[k], s, None, 0, 0, True)
    return _ENTRIES[key]
