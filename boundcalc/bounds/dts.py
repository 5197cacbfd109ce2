"""D-TS's regret constants (Wu & Liu, NIPS 2016 = paper 001, Proposition 1 and Theorem 1).

001 bounds the regret of Double Thompson Sampling by bounding the expected number of
comparisons of every pair (Lemmas 1-3 and 5) and weighting each comparison by 1, which is
valid because every pair regret ``r_ij = zeta* - (zeta_i + zeta_j)/2`` is at most 1.  001
states eqs. (2) and (6) as bounds on D-TS's regret ``R(T) = zeta* T - (1/2) sum E[zeta_a(1) +
zeta_a(2)]``, whose unit is 000's (000 Sec. 2: the pair regret ``(r_i + r_j) / 2``), so the constants are reported in
"001 regret (= 000's)" and ``value_in_000_unit`` is the same number.

Notation (001 Sec. 4.2): ``Delta_ij = |p_ij - 1/2|``, ``D(p||q)`` the Bernoulli KL divergence,
``alpha > 0.5`` D-TS's RUCB parameter (0.51 in 001's experiments), ``epsilon > 0`` arbitrary
(the limit epsilon -> 0 is reported), ``beta > 2`` (the limit beta -> 2+ is the default).

* Proposition 1, eq. (2): ``sum_{i != j: p_ij < 1/2} [4 alpha / Delta_ij^2 + 1/D(p_ij||1/2)]``.
* Theorem 1, eq. (6), under Assumptions 1 and 2 (and for D-TS+, Corollary 1): for a
  non-winner ``i`` sort all arms ``j`` (``i`` itself included, ``p_ii = 1/2``) by ``p_ji``
  descending as ``sigma_i(1), sigma_i(2), ...``; then the ``ln T`` coefficient is
  ``sum_{i in C*} [sum_{j: p_ji > 1/2} 4 alpha / Delta_ji^2 + sum_{j: p_ji < 1/2} 1/D(p_ji||1/2)]
  + sum_{i not in C*} sum_{j=1}^{L_C+1} 4 alpha / Delta_{sigma_i(j), i}^2``
  and the ``ln ln T`` coefficient is
  ``beta (1 + epsilon)^2 sum_{i not in C*} sum_{j=L_C+2}^{K} 1/D(p_{sigma_i(j),i} || p_{sigma_i(L_C+1),i})``.

Assumption 2 (001 Sec. 4.2.2): for each ``i not in C*``,
``p_{sigma_i(L_C+1), i} > p_{sigma_i(j), i}`` for all ``j > L_C + 1`` -- the ``(L_C+1)``-th
strongest opponent of ``i`` is strictly stronger than the next one (otherwise the ``ln ln T``
term divides by ``D(p||p) = 0``).  Values within ``TIE_ATOL`` (1e-12) count as equal.

>>> m = [[0.5, 0.6, 0.7], [0.4, 0.5, 0.8], [0.3, 0.2, 0.5]]
>>> round(dts_prop1(m).value, 3), round(dts_thm1(m).value, 3)
(344.672, 288.483)
"""

from __future__ import annotations

import numpy as np

from ..matrix import TIE_ATOL, MatrixLike, PreferenceMatrix, as_preference_matrix, kl_bernoulli
from ..registry import Context, register_constant
from ..result import Result
from ..units import UNIT_001, UNIT_001_LOGLOG

__all__ = ["dts_prop1", "dts_thm1", "dts_thm1_loglog", "dts_thm1_rows", "dts_assumption2", "dts_sigma"]

SOURCE_PROP1 = "Wu & Liu 2016 (001), Proposition 1, eq. (2)"
SOURCE_THM1 = "Wu & Liu 2016 (001), Theorem 1, eq. (6) (also D-TS+, Corollary 1)"
_IN_000 = (
    "001 states the bound on D-TS's regret, whose unit equals 000's (it counts each comparison with weight 1 >= r_ij)"
)

PROP1 = register_constant(
    "dts_prop1", unit=UNIT_001, source=SOURCE_PROP1 + ", epsilon -> 0", order=60, needs=("alpha",)
)
THM1 = register_constant("dts_thm1", unit=UNIT_001, source=SOURCE_THM1 + ", epsilon -> 0", order=70, needs=("alpha",))
THM1_LOGLOG = register_constant(
    "dts_thm1_loglog",
    unit=UNIT_001_LOGLOG,
    source=SOURCE_THM1 + " ln ln T term (Lemma 5), epsilon -> 0",
    order=80,
    needs=("alpha", "beta"),
)


def _check_alpha(alpha: float) -> float:
    alpha = float(alpha)
    if not alpha > 0.5:
        raise ValueError(f"D-TS's bounds need alpha > 0.5 (001, Proposition 1); got alpha={alpha}")
    return alpha


def dts_sigma(matrix: MatrixLike, i: int) -> np.ndarray:
    """``sigma_i``: all arms (``i`` included) sorted by ``p_ji`` descending (001 Sec. 4.2.2).

    Equal values keep index order (stable sort); Assumption 2 is what makes the order
    around position ``L_C + 1`` meaningful.

    >>> dts_sigma([[0.5, 0.6, 0.7], [0.4, 0.5, 0.8], [0.3, 0.2, 0.5]], 2).tolist()
    [1, 0, 2]
    """
    pm = as_preference_matrix(matrix)
    return np.argsort(-pm.mu[:, i], kind="stable")


def dts_assumption2(matrix: MatrixLike) -> dict:
    """Check 001's Assumption 2; return ``{"holds": bool, "failing_arms": [...], "detail": str}``.

    For each non-winner ``i``: ``p_{sigma_i(L_C+1), i} > p_{sigma_i(L_C+2), i}`` (the sorted
    column makes this the only comparison needed).  A non-winner with ``L_i = L_C + 1`` always
    passes (its next entry is ``p_ii = 1/2``); a failure needs two opponents tied at the
    ``(L_C+1)``-th place.

    >>> dts_assumption2([[0.5, 0.6, 0.7], [0.4, 0.5, 0.7], [0.3, 0.3, 0.5]])["failing_arms"]
    [2]
    """
    pm = as_preference_matrix(matrix)
    L_C = int(pm.L_sorted[0])
    winners = set(pm.copeland_winners.tolist())
    failing, notes = [], []
    for i in range(pm.K):
        if i in winners:
            continue
        col = np.sort(pm.mu[:, i])[::-1]
        a, b = col[L_C], col[L_C + 1]  # L_i >= L_C + 1 and K >= L_i + 1, so both exist
        if not a - b > TIE_ATOL:
            failing.append(i)
            notes.append(
                f"arm {i}: p_(sigma_{i}({L_C + 1}), {i}) = {a:.12g} does not exceed"
                f" p_(sigma_{i}({L_C + 2}), {i}) = {b:.12g}"
            )
    detail = "; ".join(notes) if notes else "every non-winner's (L_C+1)-th opponent is strictly stronger than the next"
    return {"holds": not failing, "failing_arms": failing, "detail": detail}


def dts_prop1(matrix: MatrixLike, alpha: float = 0.51) -> Result:
    """D-TS's ``O(K^2 ln T)`` coefficient ``sum_{p_ij < 1/2} [4 alpha/Delta_ij^2 + 1/D(p_ij||1/2)]``.

    Paper 001, Proposition 1, eq. (2), in the limit epsilon -> 0 (the ``(1 + epsilon)`` factor
    of the KL term); needs only Assumption 1 (no ties), so it always applies.  The sum runs
    over the ordered pairs with ``p_ij < 1/2``, i.e. once over every unordered pair (its loser
    first), Copeland winners included.

    Unit: 001's regret (= 000's) per ln T; ``value_in_000_unit`` is the same number.

    >>> r = dts_prop1([[0.5, 0.6], [0.4, 0.5]], alpha=0.51)  # 4*0.51/0.01 + 1/D(0.4||0.5)
    >>> round(r.value, 4), r.unit
    (253.6635, "001 regret (= 000's) per ln T")
    """
    pm = as_preference_matrix(matrix)
    alpha = _check_alpha(alpha)
    mu = pm.mu
    lose = mu < 0.5  # diagonal is exactly 1/2
    gap = pm.gap[lose]
    d = kl_bernoulli(mu[lose], 0.5)
    value = float(np.sum(4.0 * alpha / gap**2) + np.sum(1.0 / d))
    return PROP1.result(value, extra={"alpha": alpha, "epsilon": 0.0, "value_in_000_unit_is": _IN_000})


def _thm1_parts(pm: PreferenceMatrix, alpha: float, beta: float) -> tuple[float, float]:
    """(ln T coefficient, ln ln T coefficient) of 001 eq. (6); assumes Assumption 2 holds."""
    mu, gap = pm.mu, pm.gap
    K, L_C = pm.K, int(pm.L_sorted[0])
    winners = set(pm.copeland_winners.tolist())
    log_t = 0.0
    loglog_t = 0.0
    for i in range(K):
        col = mu[:, i]  # p_ji over j
        if i in winners:
            sup = col > 0.5
            inf = col < 0.5
            log_t += np.sum(4.0 * alpha / gap[sup, i] ** 2)
            log_t += np.sum(1.0 / kl_bernoulli(col[inf], 0.5))
        else:
            sigma = np.argsort(-col, kind="stable")
            head, tail = sigma[: L_C + 1], sigma[L_C + 1 :]
            log_t += np.sum(4.0 * alpha / gap[head, i] ** 2)
            ref = col[sigma[L_C]]
            loglog_t += np.sum(1.0 / kl_bernoulli(col[tail], ref))
    return float(log_t), float(beta * loglog_t)


def dts_thm1(matrix: MatrixLike, alpha: float = 0.51) -> Result:
    """D-TS's refined ``ln T`` coefficient (001, Theorem 1, eq. (6)); None if Assumption 2 fails.

    ``sum_{i in C*} [sum_{j: p_ji > 1/2} 4 alpha/Delta_ji^2 + sum_{j: p_ji < 1/2} 1/D(p_ji||1/2)]
    + sum_{i not in C*} sum_{j=1}^{L_C+1} 4 alpha/Delta_{sigma_i(j),i}^2`` (epsilon -> 0).
    The ``ln ln T`` terms are :func:`dts_thm1_loglog`.  The same bound holds for D-TS+
    (001 Corollary 1).  Never larger than :func:`dts_prop1`: eq. (6) keeps Proposition 1's
    terms for first candidates in ``C*`` and only the ``L_C + 1`` strongest opponents of the
    others.

    Assumption 2 is checked (:func:`dts_assumption2`; ``extra["assumption2"]``); when it
    fails Theorem 1 does not apply, ``value`` is None and only Proposition 1 holds.

    Unit: 001's regret (= 000's) per ln T; ``value_in_000_unit`` is the same number.

    >>> r = dts_thm1([[0.5, 0.6, 0.7], [0.4, 0.5, 0.7], [0.3, 0.3, 0.5]])
    >>> r.value, r.extra["assumption2_failing_arms"]   # arm 2 loses to arms 0 and 1 with 0.7 each
    (None, [2])
    """
    return dts_thm1_rows(matrix, alpha)[0]


def dts_thm1_loglog(matrix: MatrixLike, alpha: float = 0.51, beta: float = 2.0) -> Result:
    """D-TS's ``ln ln T`` coefficient (001, Theorem 1, eq. (6), Lemma 5); None if Assumption 2 fails.

    ``beta (1 + epsilon)^2 sum_{i not in C*} sum_{j=L_C+2}^{K} 1/D(p_{sigma_i(j),i} || p_{sigma_i(L_C+1),i})``
    with epsilon -> 0 and ``beta`` defaulting to 2, the limit of 001's ``beta > 2``.  The inner
    sum includes ``sigma_i(j) = i`` itself (``p_ii = 1/2``), as eq. (6) is written.  Zero when
    every arm is a Copeland winner.  ``alpha`` does not enter this term; it is accepted (and
    checked) so that all three D-TS functions share one signature.

    Unit: 001's regret (= 000's) per ln ln T; ``value_in_000_unit`` is the same number.

    >>> r = dts_thm1_loglog([[0.5, 0.6, 0.3], [0.4, 0.5, 0.8], [0.7, 0.2, 0.5]])  # all winners
    >>> r.value, r.unit
    (0.0, "001 regret (= 000's) per ln ln T")
    """
    return dts_thm1_rows(matrix, alpha, beta)[1]


def dts_thm1_rows(matrix: MatrixLike, alpha: float = 0.51, beta: float = 2.0) -> tuple[Result, Result]:
    """:func:`dts_thm1` and :func:`dts_thm1_loglog` together (001, Theorem 1, eq. (6)).

    Assumption 2 is checked once and eq. (6)'s ``ln T`` and ``ln ln T`` sums come from one
    pass over the arms; both public functions are this one's two halves.

    >>> a, b = dts_thm1_rows([[0.5, 0.6, 0.7], [0.4, 0.5, 0.6], [0.3, 0.4, 0.5]])
    >>> a.key, b.key, a.extra["assumption2"]
    ('dts_thm1', 'dts_thm1_loglog', True)
    """
    pm = as_preference_matrix(matrix)
    alpha = _check_alpha(alpha)
    beta = float(beta)
    if not beta >= 2.0:
        raise ValueError(f"001 Theorem 1 needs beta > 2 (beta = 2 is the limit); got beta={beta}")
    a2 = dts_assumption2(pm)
    base = {
        "epsilon": 0.0,
        "assumption2": a2["holds"],
        "assumption2_failing_arms": a2["failing_arms"],
        "L_C": int(pm.L_sorted[0]),
    }
    ex1 = {"alpha": alpha, **base}
    ex2 = {"alpha": alpha, "beta": beta, **base}
    if not a2["holds"]:
        return (
            THM1.not_applicable(
                f"001's Assumption 2 fails ({a2['detail']}); only Proposition 1 (dts_prop1) applies", extra=ex1
            ),
            THM1_LOGLOG.not_applicable(
                f"001's Assumption 2 fails ({a2['detail']}): the ln ln T term divides by D(p||p) = 0", extra=ex2
            ),
        )
    log_t, loglog_t = _thm1_parts(pm, alpha, beta)
    ex1["value_in_000_unit_is"] = _IN_000
    ex2["value_in_000_unit_is"] = _IN_000
    return THM1.result(log_t, extra=ex1), THM1_LOGLOG.result(loglog_t, extra=ex2)


@PROP1
def _prop1_row(ctx: Context) -> Result:
    return dts_prop1(ctx.pm, ctx.alpha)


def _shared_thm1_rows(ctx: Context) -> tuple[Result, Result]:
    # one Assumption-2 check and one pass over the arms for both Theorem 1 rows of a context
    return ctx.shared("dts_thm1_rows", lambda: dts_thm1_rows(ctx.pm, ctx.alpha, ctx.beta))


@THM1
def _thm1_row(ctx: Context) -> Result:
    return _shared_thm1_rows(ctx)[0]


@THM1_LOGLOG
def _thm1_loglog_row(ctx: Context) -> Result:
    return _shared_thm1_rows(ctx)[1]
