"""RMED's Condorcet constants (Komiyama, Honda, Kashima & Nakagawa, "Regret Lower Bound and
Optimal Algorithm in Dueling Bandit Problem", COLT 2015, cited by 000).

That paper is not among the five source texts; the formulas are its Condorcet lower bound and
RMED1's constant as read in, and agreeing with,
the authors' public implementation (jkomiyama/duelingbanditlib, ``policy_rmed.hpp``: RMED1
compares a loser with the empirical winner; the lower bound's opponent minimises
``(p_wi + p_wj - 1) / kl(p_ij, 1/2)``), an independent review found.

Only for matrices with a Condorcet winner (called arm 1 in the paper; any index here, written
``w``).  RMED's regret of drawing the pair ``(i, j)`` is ``(Delta_wi + Delta_wj) / 2`` with
``Delta_wj = p_wj - 1/2`` and ``Delta_ww = 0`` -- yet another unit, not a multiple of 000's
``r_ij`` (it depends on gaps, 000's on Copeland losses), so ``value_in_000_unit`` is None.

* Lower bound (Komiyama et al. 2015's regret lower bound for a Condorcet winner):
  ``sum_{i != w} min_{j: p_ji > 1/2} (Delta_wi + Delta_wj) / (2 D(p_ij || 1/2))``;
  ``j = w`` is always a candidate since the winner beats every ``i``.
* RMED1's constant: the ``j = w`` term alone, ``sum_{i != w} Delta_wi / (2 D(p_iw || 1/2))``,
  so ``rmed_lb <= rmed1`` always, with equality when comparing with the winner is every
  arm's cheapest way to be shown beaten.

With the same regret (:func:`rmed_regret_matrix`) the Copeland LP of 000 restricted to its
``l = 0`` rows is exactly this lower bound: for a Condorcet winner the ``l = 0`` rows are
``sum_{j beats i} e_ij >= 1`` for each ``i != w``, one disjoint row per loser, whose minimum
is the cheapest ``j``.

>>> m = [[0.5, 0.6, 0.7], [0.4, 0.5, 0.8], [0.3, 0.2, 0.5]]
>>> round(rmed_lb(m).value, 4), round(rmed1(m).value, 4)
(3.2614, 3.6985)
"""

from __future__ import annotations

import numpy as np

from ..matrix import MatrixLike, PreferenceMatrix, as_preference_matrix, kl_half
from ..registry import Context, register_constant
from ..result import Result
from ..units import UNIT_RMED

__all__ = ["rmed_lb", "rmed1", "rmed_regret_matrix"]

SOURCE = "Komiyama et al. 2015 (COLT, RMED; cited by 000)"

RMED_LB = register_constant("rmed_lb", unit=UNIT_RMED, source=SOURCE + ", Condorcet regret lower bound", order=90)
RMED1 = register_constant("rmed1", unit=UNIT_RMED, source=SOURCE + ", RMED1 regret upper bound", order=100)


def _winner_or_none(pm: PreferenceMatrix) -> int | None:
    return pm.condorcet_winner


def _no_winner_reason(pm: PreferenceMatrix) -> str:
    return (
        "no Condorcet winner (the best arm loses to "
        f"{int(pm.L_sorted[0])} arm(s)): RMED's bounds are for the Condorcet setting only"
    )


def rmed_regret_matrix(matrix: MatrixLike) -> np.ndarray:
    """RMED's pair regret ``R[i, j] = (Delta_wi + Delta_wj) / 2`` as a K x K array.

    ``w`` is the Condorcet winner, ``Delta_wj = p_wj - 1/2`` (``Delta_ww = 0``).  The array is
    symmetric with a zero diagonal, ready to be passed as the regret of 000's LP (which has a
    variable per pair ``i != j`` only; RMED itself would charge ``Delta_wi`` for the
    self-duel ``(i, i)``, which no LP variable represents).  Raises ``ValueError`` when there
    is no Condorcet winner.

    >>> rmed_regret_matrix([[0.5, 0.6, 0.7], [0.4, 0.5, 0.8], [0.3, 0.2, 0.5]]).round(3).tolist()
    [[0.0, 0.05, 0.1], [0.05, 0.0, 0.15], [0.1, 0.15, 0.0]]
    """
    pm = as_preference_matrix(matrix)
    w = _winner_or_none(pm)
    if w is None:
        raise ValueError(f"rmed_regret_matrix: {_no_winner_reason(pm)}")
    delta = pm.mu[w] - 0.5
    delta[w] = 0.0
    R = 0.5 * (delta[:, None] + delta[None, :])
    np.fill_diagonal(R, 0.0)
    return R


def rmed_lb(matrix: MatrixLike) -> Result:
    """RMED's Condorcet regret lower bound ``sum_{i != w} min_{j beats i} (Delta_wi + Delta_wj) / (2 D(p_ij||1/2))``.

    Komiyama et al. (COLT 2015), the asymptotic lower bound for the Condorcet dueling bandit
    (attained by RMED2), in RMED's regret unit ``(Delta_wi + Delta_wj)/2``; None without a
    Condorcet winner.  ``extra["j_star"]`` gives, per arm ``i`` (index order, ``None`` for
    the winner), the minimising opponent.  No conversion to 000's unit exists.

    >>> rmed_lb([[0.5, 0.6, 0.3], [0.4, 0.5, 0.8], [0.7, 0.2, 0.5]]).reason[:22]
    'no Condorcet winner (t'
    """
    pm = as_preference_matrix(matrix)
    w = _winner_or_none(pm)
    if w is None:
        return RMED_LB.not_applicable(_no_winner_reason(pm))
    R = rmed_regret_matrix(pm)
    cost = R / np.where(pm.d > 0, pm.d, np.inf)  # (Delta_wi + Delta_wj) / (2 d(p_ij))
    total = 0.0
    j_star: list[int | None] = []
    for i in range(pm.K):
        if i == w:
            j_star.append(None)
            continue
        sup = pm.superiors(i)
        k = int(np.argmin(cost[sup, i]))
        j_star.append(int(sup[k]))
        total += float(cost[sup[k], i])
    return RMED_LB.result(total, extra={"condorcet_winner": int(w), "j_star": j_star})


def rmed1(matrix: MatrixLike) -> Result:
    """RMED1's constant ``sum_{i != w} Delta_wi / (2 D(p_iw||1/2))`` (Komiyama et al., COLT 2015).

    The ``j = w`` term of :func:`rmed_lb` for every arm: RMED1 compares each arm with the
    Condorcet winner.  RMED's regret unit; None without a Condorcet winner; no conversion to
    000's unit.

    >>> r = rmed1([[0.5, 0.9, 0.9], [0.1, 0.5, 0.6], [0.1, 0.4, 0.5]])
    >>> round(r.value, 4), round(r.value, 4) == round(rmed_lb([[0.5, 0.9, 0.9], [0.1, 0.5, 0.6], [0.1, 0.4, 0.5]]).value, 4)
    (1.0868, True)
    """
    pm = as_preference_matrix(matrix)
    w = _winner_or_none(pm)
    if w is None:
        return RMED1.not_applicable(_no_winner_reason(pm))
    others = np.array([i for i in range(pm.K) if i != w], dtype=int)
    delta = pm.mu[w, others] - 0.5
    value = float(np.sum(delta / (2.0 * kl_half(pm.mu[others, w]))))
    return RMED1.result(value, extra={"condorcet_winner": int(w)})


@RMED_LB
def _rmed_lb_row(ctx: Context) -> Result:
    return rmed_lb(ctx.pm)


@RMED1
def _rmed1_row(ctx: Context) -> Result:
    return rmed1(ctx.pm)
