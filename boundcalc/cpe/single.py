"""004's constants for a plain K x K dueling matrix: the one-position instance, in closed form.

Paper 004 (Chen, Du, Huang & Zhao, ICML 2020) with ``l = 1`` position and ``K`` candidates
(004 Sec. 2, Definitions 3-5): every maximum matching is one edge, so

* ``w(i) = (1/K) sum_j p_ij`` (eq. (4), diagonal ``p_ii = 1/2`` included), Borda winner
  ``i* = argmax w``; ``Delta^B_i = w(i*) - w(i)`` and, for the winner, ``w(i*) - max_{j != i*} w(j)``
  (Definition 3); ``H^B = sum_i 1/(Delta^B_i)^2`` (Definition 4); ``width = 2``.
* Condorcet winner ``i*`` beats every other arm; ``Delta^C_i = p_{i*,i} - 1/2`` and, for the winner,
  ``min_{i != i*} Delta^C_i`` (Definition 5); Theorem 4's sum over pairs
  ``sum_{i<j} 1/max(Delta^C_i, Delta^C_j)^2``; ``H^C_ver = sum_{i != i*} 1/(p_{i*,i} - 1/2)^2``
  (Sec. 4.3).

These closed forms are what the general code in :mod:`boundcalc.cpe.borda` and
:mod:`boundcalc.cpe.condorcet` returns on ``CPEInstance.from_matrix(mu)`` (tested).  Each
function returns a :class:`~boundcalc.result.Result` (unit: hardness, no unit; ``extra`` names
the ``winner``); it is not applicable, with a ``reason``, when the constant is undefined (no
unique Borda winner, no Condorcet winner).  The three are registered constants
(:mod:`boundcalc.registry`), the ``cpe_*`` rows of :func:`boundcalc.compare`.

This module imports nothing heavy, at load time or when a row is computed (it reads only
:mod:`~boundcalc.cpe.instance`'s validator and tolerances, which load networkx only to build a graph),
so its constants cost :func:`boundcalc.compare` no networkx or scipy.optimize import.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..registry import ConstantSpec, Context, register_constant
from ..result import Result
from ..units import UNIT_HARDNESS

__all__ = [
    "single_position_rewards",
    "cpe_borda_gaps",
    "cpe_borda_hardness",
    "cpe_condorcet_gaps",
    "cpe_condorcet_hardness",
    "cpe_condorcet_ver",
    "cpe_condorcet_winner_gaps",
]

SOURCE_BORDA = (
    "Chen et al. 2020 (004), Definition 4 (H^B), one position; w(i) averages over all K arms,"
    " diagonal included (eq. (4)), so gaps are (K-1)/K of the usual Borda gaps"
)
SOURCE_CONDORCET = (
    "Chen et al. 2020 (004), Theorem 4 (sum over unordered comparable pairs of 1/(Delta^C_{e,e'})^2;"
    " the literal double sum counts each pair twice), one position"
)
SOURCE_VER = "Chen et al. 2020 (004), Sec. 4.3 (H^C_ver, Theorem 5), one position"
NOTE = (
    "sample-complexity hardness of 004's fixed-confidence pure exploration (multiplies"
    " ln(1/delta) up to constants and logarithmic factors); not a regret constant"
)

BORDA = register_constant("cpe_borda_hardness", unit=UNIT_HARDNESS, source=SOURCE_BORDA, order=140)
CONDORCET = register_constant("cpe_condorcet_hardness", unit=UNIT_HARDNESS, source=SOURCE_CONDORCET, order=150)
VER = register_constant("cpe_condorcet_ver", unit=UNIT_HARDNESS, source=SOURCE_VER, order=160)


def _result(spec: ConstantSpec, value: float | None, winner: int | None, reason: str | None) -> Result:
    extra = {"winner": winner, "positions": 1, "note": NOTE}
    if reason:
        return spec.not_applicable(reason, extra=extra)
    assert value is not None  # every caller gives a value or a reason
    return spec.result(value, extra=extra)


def _mu(mu: Any) -> np.ndarray:
    from .instance import validate_block

    m = getattr(mu, "mu", mu)
    return validate_block(m, where="dueling matrix")


def single_position_rewards(mu: Any) -> np.ndarray:
    """``w(i) = (1/K) sum_j p_ij`` (diagonal included): 004 eq. (4) with one position.

    >>> single_position_rewards([[0.5, 0.7], [0.3, 0.5]]).tolist()
    [0.6, 0.4]
    """
    return _mu(mu).mean(axis=1)


def _borda(mu: Any) -> tuple[int | None, np.ndarray | None, str | None]:
    from .instance import BORDA_TIE_TOL

    p = _mu(mu)
    w = p.mean(axis=1)
    K = len(w)
    i = int(np.argmax(w))
    if K == 1:
        return i, np.array([np.inf]), None
    others = np.delete(w, i)
    runner = float(others.max())
    if w[i] - runner <= BORDA_TIE_TOL:
        ties = np.flatnonzero(w >= w[i] - BORDA_TIE_TOL).tolist()
        return None, None, f"no unique Borda winner: arms {ties} tie at w = {w[i]!r} (004 assumes uniqueness)"
    g = w[i] - w
    g[i] = w[i] - runner
    return i, g, None


def cpe_borda_gaps(mu: Any) -> np.ndarray:
    """Borda gaps ``Delta^B_i`` of a K x K matrix (004 Definition 3, ``l = 1``); raises if no unique winner.

    >>> [round(float(g), 12) for g in cpe_borda_gaps([[0.5, 0.7], [0.3, 0.5]])]
    [0.2, 0.2]
    """
    i, g, reason = _borda(mu)
    if i is None or g is None:  # exactly when reason says why
        raise ValueError(reason)
    return g


def cpe_borda_hardness(mu: Any) -> Result:
    """``H^B = sum_i 1/(Delta^B_i)^2`` for a K x K dueling matrix (004 Definition 4, one position).

    Accepts an array-like or anything with ``.mu`` (e.g. :class:`boundcalc.PreferenceMatrix`).
    Not applicable without a unique Borda winner.

    >>> v = cpe_borda_hardness([[0.5, 0.7], [0.3, 0.5]])   # gaps 0.2 and 0.2 (w = 0.6, 0.4)
    >>> round(v.value, 9), v.extra["winner"]
    (50.0, 0)
    """
    i, g, reason = _borda(mu)
    if i is None or g is None:  # exactly when reason says why
        return _result(BORDA, None, None, reason)
    return _result(BORDA, float(np.sum(1.0 / g**2)), i, None)


def _condorcet(mu: Any) -> tuple[int | None, np.ndarray | None, str | None]:
    from .instance import CONDORCET_TOL

    p = _mu(mu)
    K = p.shape[0]
    off = p - 0.5
    np.fill_diagonal(off, np.inf)
    wins = np.flatnonzero(off.min(axis=1) > CONDORCET_TOL)
    if wins.size == 0:
        return None, None, "no Condorcet winner: every arm loses to or ties with some other arm"
    i = int(wins[0])
    if K == 1:
        return i, np.array([np.inf]), None
    g = p[i] - 0.5
    g[i] = np.min(np.delete(g, i))
    return i, g, None


def cpe_condorcet_winner_gaps(mu: Any) -> tuple[int | None, np.ndarray | None, str | None]:
    """``(i*, Delta^C, reason)``: the Condorcet winner and its gaps (004 Definition 5, ``l = 1``), or
    ``(None, None, reason)`` when there is no Condorcet winner -- the non-raising form of
    :func:`cpe_condorcet_gaps`, for callers that report the reason (:func:`boundcalc.plan.plan`).

    >>> i, g, why = cpe_condorcet_winner_gaps([[0.5, 0.4, 0.6], [0.6, 0.5, 0.7], [0.4, 0.3, 0.5]])
    >>> i, [round(float(x), 12) for x in g], why
    (1, [0.1, 0.1, 0.2], None)
    >>> cpe_condorcet_winner_gaps([[0.5, 0.6, 0.4], [0.4, 0.5, 0.6], [0.6, 0.4, 0.5]])[0] is None
    True
    """
    return _condorcet(mu)


def cpe_condorcet_gaps(mu: Any) -> np.ndarray:
    """Condorcet gaps ``Delta^C_i`` (004 Definition 5, ``l = 1``); raises if there is no Condorcet winner.

    >>> [round(float(g), 12) for g in cpe_condorcet_gaps([[0.5, 0.4, 0.6], [0.6, 0.5, 0.7], [0.4, 0.3, 0.5]])]
    [0.1, 0.1, 0.2]
    """
    i, g, reason = _condorcet(mu)
    if i is None or g is None:  # exactly when reason says why
        raise ValueError(reason)
    return g


def cpe_condorcet_hardness(mu: Any) -> Result:
    """``sum_{i<j} 1/max(Delta^C_i, Delta^C_j)^2`` (004 Theorem 4's sum over unordered pairs, ``l = 1``).

    >>> round(cpe_condorcet_hardness([[0.5, 0.4, 0.6], [0.6, 0.5, 0.7], [0.4, 0.3, 0.5]]).value, 9)
    150.0
    """
    i, g, reason = _condorcet(mu)
    if i is None or g is None:  # exactly when reason says why
        return _result(CONDORCET, None, None, reason)
    D = np.maximum(g[:, None], g[None, :])
    iu = np.triu_indices(len(g), 1)
    return _result(CONDORCET, float(np.sum(1.0 / D[iu] ** 2)), i, None)


def cpe_condorcet_ver(mu: Any) -> Result:
    """``H^C_ver = sum_{i != i*} 1/(p_{i*,i} - 1/2)^2`` (004 Sec. 4.3 with ``l = 1``).

    >>> round(cpe_condorcet_ver([[0.5, 0.4, 0.6], [0.6, 0.5, 0.7], [0.4, 0.3, 0.5]]).value, 9)
    125.0
    """
    i, g, reason = _condorcet(mu)
    if i is None or g is None:  # exactly when reason says why
        return _result(VER, None, None, reason)
    p = _mu(mu)
    d = np.delete(p[i] - 0.5, i)
    return _result(VER, float(np.sum(1.0 / d**2)), i, None)


@BORDA
def _borda_row(ctx: Context) -> Result:
    return cpe_borda_hardness(ctx.pm)


@CONDORCET
def _condorcet_row(ctx: Context) -> Result:
    return cpe_condorcet_hardness(ctx.pm)


@VER
def _ver_row(ctx: Context) -> Result:
    return cpe_condorcet_ver(ctx.pm)
